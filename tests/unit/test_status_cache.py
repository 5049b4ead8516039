"""A status file is parsed once per text (pair/status.py StatusCache): while its text is the
same, a build takes it as the last build parsed it, with what parsing said; an edited, damaged
or foreign cache entry is parsed again."""

from __future__ import annotations

from pathlib import Path

import pytest

from bipub.diagnostics import Collector
from bipub.pair import status as status_module
from bipub.pair.status import StatusCache, load_status

GOOD = "posts/a:title:\n  source_hash: '0123456789ab'\n  state: reviewed\n  reviewer: min\n"
BAD = "posts/b:title:\n  source_hash: 12\n"  # (not a string: a `status` error, repeated)


def _load(root: Path, folder: Path | None) -> tuple[dict[str, object], list[str]]:
    collector = Collector()
    found = load_status(root, "en", collector, StatusCache(folder) if folder else None)
    return dict(found.records), [d.format() for d in collector.items]


def _refuse(*args: object) -> None:
    raise AssertionError("parsed again")


def test_a_status_file_is_parsed_once_per_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, folder = tmp_path / "p", tmp_path / "p" / ".bipub-cache"
    (root / "status").mkdir(parents=True)
    status = root / "status" / "en.yaml"
    status.write_text(GOOD + BAD, encoding="utf-8")
    plain = _load(root, None)
    assert plain[1] and "posts/a:title" in plain[0]  # (the record, and the bad one said)
    assert _load(root, folder) == plain  # parsed, and kept
    real = status_module._parse
    monkeypatch.setattr(status_module, "_parse", _refuse)
    assert _load(root, folder) == plain  # taken as parsed, what it said said again
    status.write_text(GOOD.replace("reviewed", "draft"), encoding="utf-8")
    with pytest.raises(AssertionError, match="parsed again"):
        _load(root, folder)  # another text
    monkeypatch.setattr(status_module, "_parse", real)
    edited = _load(root, folder)
    assert edited[0]["posts/a:title"].state == "draft" and not edited[1]  # type: ignore[attr-defined]
    for kept in folder.glob("status-*.pickle"):  # damaged: parsed again, never trusted
        kept.write_bytes(b"\0" * 40)
    monkeypatch.setattr(status_module, "_parse", _refuse)
    with pytest.raises(AssertionError, match="parsed again"):
        _load(root, folder)


def test_a_missing_status_file_is_the_same_empty_one(tmp_path: Path) -> None:
    """(So that `bipub serve`'s pairing memo sees the status files as they were.)"""
    cache = StatusCache()
    first = load_status(tmp_path, "en", Collector(), cache)
    assert not first.records
    assert load_status(tmp_path, "en", Collector(), cache) is first
