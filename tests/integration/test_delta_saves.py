"""The up-to-date record and the build cache's build.pickle are saved as what changed since a
base file (cache.py `save_delta`). A build killed while saving them, or a base file damaged
since, leaves a next build that publishes what a clean build does, and says at `-v` why it
did more work; the build after that is up to date again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bipub import cache, uptodate
from bipub.pipeline import build
from bipub.project import Project
from bipub.result import up_to_date
from tests.conftest import clean_snapshot, tree_snapshot

KINDS = {"html", "json", "feeds", "llms"}


@pytest.fixture
def edited(make_project) -> Path:  # type: ignore[no-untyped-def]
    """A project built twice (the second build saved its files as deltas), then edited."""
    project: Path = make_project("minimal")
    build(project, only=KINDS)
    _edit(project, "\n첫 편집.\n")
    build(project, only=KINDS)
    _edit(project, "\n두 번째 편집.\n")
    return project


def _edit(project: Path, text: str) -> None:
    post = project / "content" / "ko" / "posts" / "alpha.md"
    post.write_text(post.read_text(encoding="utf-8") + text, encoding="utf-8")


def _bases(project: Path) -> list[Path]:
    folder = project / ".bipub-cache"
    return [*folder.glob("uprecord-*.pickle"), *folder.glob(f"{cache.TABLES}-*.pickle")]


def test_a_small_change_writes_no_base_file_again(edited: Path) -> None:
    """(On a site this small an edit changes more than a quarter of the record: a touched
    input changes one identity in it, and the folders that swapped places.)"""
    build(edited, only=KINDS)
    before = {p.name: p.stat().st_mtime_ns for p in _bases(edited)}
    assert len(before) == 2
    post = edited / "content" / "ko" / "posts" / "alpha.md"
    st = post.stat()
    os.utime(post, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert not build(edited, only=KINDS).up_to_date
    assert {p.name: p.stat().st_mtime_ns for p in _bases(edited)} == before


@pytest.mark.parametrize("killed", ["uptodate-", "build.pickle", "uprecord-", cache.TABLES])
def test_a_build_killed_while_saving_leaves_a_next_build_that_is_right(
    edited: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, killed: str
) -> None:
    """Killed (after publishing) as it writes one of the files saved as deltas: a new base
    file (a delta too big: the site's folders all changed, forced here by no base known) or
    the file naming its base."""
    real = cache.save_signed

    def kill(path: Path, value: object, prefix: bytes = b"") -> bytes:
        if path.name.startswith(killed):
            raise KeyboardInterrupt
        return real(path, value, prefix)

    monkeypatch.setattr(cache, "save_signed", kill)
    if killed in ("uprecord-", cache.TABLES):  # (no base to save a delta against)
        monkeypatch.setattr(cache, "_still_signed", lambda path, signature: False)
    with pytest.raises(KeyboardInterrupt):
        build(edited, only=KINDS)
    monkeypatch.undo()
    again = build(edited, only=KINDS)
    assert not again.up_to_date  # (the record says the output of the build before)
    assert tree_snapshot(edited / "site") == clean_snapshot(edited, tmp_path, KINDS)
    assert build(edited, only=KINDS).up_to_date


@pytest.mark.parametrize("damage", ["truncated", "removed"])
@pytest.mark.parametrize(
    ("base", "note"),
    [
        ("uprecord-", "up-to-date record ignored"),
        (cache.TABLES, "build cache ignored"),
    ],
)
def test_a_damaged_base_file_is_not_used_and_said(
    edited: Path, tmp_path: Path, base: str, note: str, damage: str
) -> None:
    build(edited, only=KINDS)  # (saved as a delta of the base damaged now)
    _edit(edited, "\n세 번째 편집.\n")
    (found,) = (edited / ".bipub-cache").glob(f"{base}*.pickle")
    if damage == "truncated":
        found.write_bytes(found.read_bytes()[:-7])
    else:
        found.unlink()
    result = build(edited, only=KINDS)
    assert not result.up_to_date
    assert note in result.cache_note
    assert tree_snapshot(edited / "site") == clean_snapshot(edited, tmp_path, KINDS)
    assert build(edited, only=KINDS).up_to_date


def test_the_prescans_child_sends_the_record_with_its_base(
    edited: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The forked prescan sends the record's files as it read them (not pickled again): the
    build gets the record with its base, and saves what changed since it."""
    monkeypatch.setattr(uptodate, "can_fork", lambda: True)  # (even if a test left a thread)
    build(edited, only=KINDS)
    before = {p.name: p.stat().st_mtime_ns for p in _bases(edited)}
    post = edited / "content" / "ko" / "posts" / "alpha.md"
    st = post.stat()
    os.utime(post, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    target, key = uptodate.build_key(Project(edited), None, None, KINDS)
    with uptodate.Prescan(edited, target, key) as prescan:
        assert prescan._pid
        record = prescan.scan().record
        assert record is not None and record.base is not None and record.raw is None
        assert record == uptodate.load(Project(edited), target)
        assert not build(edited, only=KINDS, prescan=prescan).up_to_date
    assert {p.name: p.stat().st_mtime_ns for p in _bases(edited)} == before


def test_the_prescans_child_sends_the_inputs_as_what_changed_in_the_records(
    edited: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After an edit (the record's paths, an identity changed) the child sends only what
    changed in the inputs: the build's are the scan's, in its order, made of the record's
    objects but for the edited file's; a file added (another path) sends them whole."""
    monkeypatch.setattr(uptodate, "can_fork", lambda: True)
    build(edited, only=KINDS)
    project = Project(edited)
    post = edited / "content" / "ko" / "posts" / "alpha.md"
    st = post.stat()
    os.utime(post, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    target, key = uptodate.build_key(project, None, None, KINDS)
    edited_rel = "content/ko/posts/alpha.md"
    for added in (False, True):
        if added:
            (post.parent / "new.md").write_text("---\ntitle: 새 글\n---\n본문.\n", "utf-8")
        with uptodate.Prescan(edited, target, key) as prescan:
            scan = prescan.scan()
            assert list(scan.inputs.items()) == list(uptodate.scan_inputs(project).items())
            assert scan.changed is None and scan.record is not None
            kept = [
                path for path, ident in scan.inputs.items() if ident is scan.record.inputs.get(path)
            ]
            if added:
                assert kept == []
            else:
                assert set(scan.inputs) - set(kept) == {edited_rel}


def test_a_build_with_nothing_to_do_reads_only_the_records_head(
    edited: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With nothing to do, the forked prescan's answers and the record's head are all the
    report needs: the record's tables are not read (the same report as the build's own)."""
    monkeypatch.setattr(uptodate, "can_fork", lambda: True)
    build(edited, only=KINDS)
    real = uptodate.from_raw
    read: list[int] = []
    monkeypatch.setattr(uptodate, "from_raw", lambda *a: read.append(1) or real(*a))
    target, key = uptodate.build_key(Project(edited), None, None, KINDS)
    with uptodate.Prescan(edited, target, key) as prescan:
        assert prescan._pid
        done = up_to_date(prescan, strict=False)
    assert done is not None and read == []
    again = build(edited, only=KINDS)  # (no child: from the whole record)
    assert again.up_to_date
    assert (done.files, done.pages, done.warnings, done.reused) == (
        again.files,
        again.pages,
        again.warnings,
        again.reused,
    )
    (edited / "site" / "ko" / "index.html").write_text("by hand", encoding="utf-8")
    with uptodate.Prescan(edited, target, key) as prescan:
        assert up_to_date(prescan, strict=False) is None
        known = prescan.known_output()
        assert known is not None and known.changed
    assert read == [1]  # (the build reads the record then)
