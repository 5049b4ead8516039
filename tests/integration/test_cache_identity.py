"""Every cache that decides "unchanged" sees what the up-to-date check sees (issue 16 item 4).

A same-size edit whose mtime is set back (`touch -r`, an editor or a sync tool keeping times)
keeps the file's mtime, size and inode; only its ctime (which no tool sets back) changes. The
parsed-document cache and the keep-this-page check used to miss it: an incremental build
published the new text, and a later full build put the old one back.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CliResult

Cli = Callable[..., CliResult]


def _same_size_edit(path: Path, old: bytes, new: bytes) -> None:
    """Replace `old` by `new` (same length) in place, then restore the mtime (`touch -r`)."""
    assert len(old) == len(new)
    st = path.stat()
    data = path.read_bytes()
    assert old in data
    with path.open("r+b") as f:  # in place: the inode stays
        f.write(data.replace(old, new))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = path.stat()
    assert (after.st_mtime_ns, after.st_size, after.st_ino) == (
        st.st_mtime_ns,
        st.st_size,
        st.st_ino,
    )


def _full_build_for_another_reason(cli: Cli, project: Path) -> None:
    """A build that runs in full, with the build cache: the record of the last build is gone
    (as after `bipub build --out elsewhere`... or any build the up-to-date check cannot use)."""
    records = list((project / ".bipub-cache").glob("uptodate-*.pickle"))
    assert records
    for record in records:
        record.unlink()
    result = cli("-C", str(project), "-v", "build")
    assert result.exit_code == 0, result.stderr
    assert "Up to date" not in result.stderr, result.stderr  # it ran the build's stages


@pytest.mark.parametrize("first", ["cached", "no-cache"])
def test_a_same_size_edit_with_its_mtime_restored_is_published_and_stays(
    make_project: Callable[[str], Path], cli: Cli, first: str
) -> None:
    project = make_project("minimal")
    assert cli("-C", str(project), "-q", "build").exit_code == 0
    page = project / "site/en/blog/alpha/index.html"
    post = project / "content/en/posts/alpha.md"
    assert b"Alpha" in post.read_bytes()
    _same_size_edit(post, b"Alpha", b"Omega")
    args = ("--no-cache",) if first == "no-cache" else ()
    assert cli("-C", str(project), "-q", "build", *args).exit_code == 0
    assert b"Omega" in page.read_bytes()
    _full_build_for_another_reason(cli, project)
    assert b"Omega" in page.read_bytes(), "a later full build put the old text back"
    assert cli("-C", str(project), "-q", "build", "--no-cache").exit_code == 0
    assert b"Omega" in page.read_bytes()


def test_a_published_page_edited_in_place_is_rendered_again(
    make_project: Callable[[str], Path], cli: Cli
) -> None:
    """The keep-this-page check: a page whose inputs did not change is kept only if its file is
    still exactly the one bipub wrote."""
    project = make_project("minimal")
    assert cli("-C", str(project), "-q", "build").exit_code == 0
    page = project / "site/en/blog/alpha/index.html"
    original = page.read_bytes()
    _same_size_edit(page, b"<html", b"<HTML")
    _full_build_for_another_reason(cli, project)
    assert page.read_bytes() == original


def test_an_edited_cv_gets_a_new_pdf_from_the_pdf_cache(
    make_project: Callable[[str], Path], cli: Cli, tmp_path: Path
) -> None:
    """The PDF cache (render/pdf/cache.py) reuses a PDF only for the same print HTML: a CV edit
    gives the PDF a clean build gives, on an incremental build and on a full one with the
    cache. (Placeholder PDFs, tests/conftest.py, go through the same cache and follow the HTML.)"""
    project = make_project("minimal")
    assert cli("-C", str(project), "-q", "build").exit_code == 0
    pdf = project / "site/pdf/cv-en.pdf"
    before = pdf.read_bytes()
    cv = project / "content/en/cv.yaml"
    cv.write_text(
        cv.read_text(encoding="utf-8").replace("Builds things.", "Builds other things."),
        encoding="utf-8",
    )
    assert cli("-C", str(project), "-q", "build").exit_code == 0
    clean = tmp_path / "clean"
    assert cli("-C", str(project), "-q", "build", "--no-cache", "--out", str(clean)).exit_code == 0
    assert (clean / "pdf/cv-en.pdf").read_bytes() != before
    assert pdf.read_bytes() == (clean / "pdf/cv-en.pdf").read_bytes()
    _full_build_for_another_reason(cli, project)
    assert pdf.read_bytes() == (clean / "pdf/cv-en.pdf").read_bytes()
