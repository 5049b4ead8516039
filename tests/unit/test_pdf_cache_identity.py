"""Issue 16 item 4 for the PDF cache: a file a cached PDF loaded (an image) that is edited in
place with the same size and its mtime set back (`touch -r`) is seen as changed (its ctime
moved), so the PDF is rendered again instead of served stale. And a write to the cache that
fails leaves no temporary file behind."""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bipub.render.pdf.cache import RenderCache
from bipub.render.pdf.jobs import PdfJob, PdfResult


def test_a_same_size_edit_with_its_mtime_restored_changes_the_stamp(tmp_path: Path) -> None:
    image = tmp_path / "x.png"
    image.write_bytes(b"AAAA")
    before = RenderCache._stamp(str(image))
    st = image.stat()
    time.sleep(0.01)  # (so the ctime of the edit differs on coarse clocks)
    with image.open("r+b") as f:
        f.write(b"BBBB")
    os.utime(image, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = RenderCache._stamp(str(image))
    assert before is not None and after is not None
    assert after != before


def _cache(tmp_path: Path) -> tuple[RenderCache, PdfJob, PdfResult]:
    fonts: Any = SimpleNamespace(faces=[])
    cache = RenderCache(tmp_path / "pdf", tmp_path, fonts)
    job = PdfJob("pdf/cv-ko.pdf", "<html></html>", "https://example.org/", ())
    return cache, job, PdfResult(job.document, b"%PDF-1.7 test\n", pages=1)


def test_a_failed_rename_leaves_no_temporary_file(tmp_path: Path) -> None:
    cache, job, result = _cache(tmp_path)
    slot = cache._slot(job)
    (slot.with_suffix(".pdf") / "in-the-way").mkdir(parents=True)  # the rename fails
    problem = cache.put(job, result)
    assert problem is not None and "could not be kept in the PDF cache" in problem  # told
    assert sorted(p.name for p in slot.parent.iterdir()) == [slot.with_suffix(".pdf").name]
    assert cache.get(job) is None


def test_a_write_that_fails_half_way_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk fills while the PDF is written: the part written is removed."""
    cache, job, result = _cache(tmp_path)
    real = Path.write_bytes

    def disk_full(self: Path, data: Any) -> int:
        real(self, bytes(data)[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device", str(self))

    monkeypatch.setattr(Path, "write_bytes", disk_full)
    problem = cache.put(job, result)
    monkeypatch.undo()
    assert problem is not None and "No space left on device" in problem
    assert list((tmp_path / "pdf").iterdir()) == []
    assert cache.put(job, result) is None  # room again: it is cached
    hit = cache.get(job)
    assert hit is not None and hit.data == result.data
