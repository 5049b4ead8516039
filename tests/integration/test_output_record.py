"""An update touches what changed, not the whole site (issue 17).

The writer (src/bipub/write/output.py) stages an update in the spare copy of the site
(`.site.prev`) and learns what that copy and the published site hold from the last build's
record (src/bipub/write/record.py) instead of walking them. These tests count what an update
looks at, check the record against the disk after every kind of build, and tamper with both
trees by hand: whatever the record no longer describes must be found and repaired, and the
site must equal a clean build's.
"""

from __future__ import annotations

import builtins
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from bipub import pipeline, uptodate
from bipub.cache import BuildCache, load_signed
from bipub.diagnostics import DiagnosticError
from bipub.pipeline import BuildResult, build
from bipub.project import Project
from bipub.write import output
from bipub.write.record import four, inode, tree_state
from tests.conftest import PROJECTS, clean_snapshot, spawned_checkers, tree_snapshot

KINDS = {"html", "json", "feeds", "llms"}
POSTS = 30  # per language: the site has ~260 files

POST = """---
title: {title}
description: Post {n}
date: 2026-03-{day:02d}
tags: [t{tag}]
---

## 소개

본문 {n}. `code` [링크](https://example.org/{n}).
"""


def _project(root: Path, posts: int = POSTS) -> Path:
    project = root / "p"
    shutil.copytree(PROJECTS / "minimal", project)
    for lang in ("ko", "en"):
        for n in range(posts):
            path = project / "content" / lang / "posts" / f"post-{n:02d}.md"
            path.write_text(
                POST.format(title=f"{lang} {n}", n=n, day=n % 28 + 1, tag=n % 5), encoding="utf-8"
            )
    return project


def _edit(project: Path, word: str, n: int = 3) -> None:
    post = project / "content" / "ko" / "posts" / f"post-{n:02d}.md"
    post.write_text(post.read_text(encoding="utf-8") + f"\n{word}.\n", encoding="utf-8")


def _build(project: Path, **options: Any) -> BuildResult:
    return build(project, only=options.pop("only", KINDS), **options)


def _updated(root: Path, posts: int) -> Path:
    project = _project(root, posts)
    _build(project)
    for word in ("하나", "둘"):
        _edit(project, word)
        _build(project)
    return project


@pytest.fixture
def updated(tmp_path: Path) -> Path:
    """A site after a full build and two updates (the second leaves both trees recorded)."""
    return _updated(tmp_path, POSTS)


# Posts per language of `smaller`: the tests that change a tree by hand and compare the repair
# with a clean build need a page no update touches (`_page`: post-12), not many pages
SMALLER_POSTS = 13


@pytest.fixture
def smaller(tmp_path: Path) -> Path:
    """`updated` with SMALLER_POSTS posts a language (~120 files, not ~260)."""
    return _updated(tmp_path, SMALLER_POSTS)


def _clean(project: Path, tmp_path: Path) -> dict[str, bytes]:
    return clean_snapshot(project, tmp_path, KINDS)


class Visits:
    """Counts the file-system calls this process makes on the output folder, its spare copy
    and its staging folder (and on the posts' files), by patching `os` and `open`."""

    FUNCTIONS = ("lstat", "stat", "scandir", "listdir", "open", "unlink", "link", "mkdir")
    MORE = ("rmdir", "rename", "replace", "chmod", "readlink", "utime", "access")

    def __init__(self, project: Path) -> None:
        self.output = str(project / "site")
        self.beside = str(project / ".site.")  # .site.prev, .site.tmp-…
        self.posts = str(project / "content")
        self.calls: list[tuple[str, str]] = []
        self.post_stats = 0
        self.paused = False

    def _seen(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if self.paused or not args:
            return
        path = args[0]
        if isinstance(path, os.PathLike):
            path = os.fspath(path)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not isinstance(path, str):
            return
        if kwargs.get("dir_fd") is not None or path.startswith((self.output, self.beside)):
            self.calls.append((name, path))
        elif name in ("stat", "lstat") and path.startswith(self.posts) and path.endswith(".md"):
            self.post_stats += 1

    @contextmanager
    def counting(self, patch: pytest.MonkeyPatch) -> Iterator[Visits]:
        with patch.context() as monkeypatch:
            self._patch(monkeypatch)
            yield self

    def _patch(self, monkeypatch: pytest.MonkeyPatch) -> None:
        for name in (*self.FUNCTIONS, *self.MORE):
            real = getattr(os, name)

            def counted(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
                self._seen(_name, args, kwargs)
                return _real(*args, **kwargs)

            monkeypatch.setattr(os, name, counted)
        real_open = builtins.open

        def opened(*args: Any, **kwargs: Any) -> Any:
            self._seen("open", args, kwargs)
            return real_open(*args, **kwargs)

        monkeypatch.setattr(builtins, "open", opened)
        # the prescan's look at the output's folders (one lstat each: it runs in a forked
        # child where it can, ahead of the build) is counted apart, by its own test below
        real_check = uptodate.folders_intact

        def folders(*args: Any) -> bytes:
            self.paused = True
            try:
                return real_check(*args)
            finally:
                self.paused = False

        monkeypatch.setattr(uptodate, "folders_intact", folders, raising=False)
        monkeypatch.setattr(uptodate, "can_fork", lambda: False)  # (counted in this process)


def test_an_update_looks_at_what_changed_not_at_the_whole_site(
    updated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One edited post: the update writes a handful of files and looks at little more (~80
    calls for 7 files). Before issue 17 it looked at every file of both trees several times
    (~1,700 calls for the 260 files here) and at every post file twice."""
    files = len(tree_snapshot(updated / "site"))
    _edit(updated, "다섯")
    visits = Visits(updated)
    with visits.counting(monkeypatch):
        result = _build(updated)
    assert 0 < result.changed < 20, result.changed
    assert "spare copy" not in result.cache_note, result.cache_note  # (no full walk)
    assert len(visits.calls) <= 12 * result.changed + 40, (
        f"{len(visits.calls)} calls on the output for {result.changed} changed files "
        f"(of {files}): {sorted(visits.calls)[:40]}"
    )
    assert visits.post_stats == 0, "the posts were looked up again after the scan of the inputs"


def test_the_prescan_looks_at_each_folder_and_file_once(
    updated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the update trusts the record for is checked ahead, in the prescan: one lstat per
    folder and file of the output (a file edited in place shows only in its own identity) and
    per folder of its spare copy, and not one more."""
    record = uptodate.load(Project(updated), updated / "site")
    assert record is not None and record.spare is not None
    calls = []
    real = os.stat

    def counted(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("dir_fd") is not None:  # (a path in the output or its spare copy)
            calls.append(args[0])
        return real(*args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(os, "stat", counted)
        assert uptodate.folders_intact(updated / "site", record) == b"+"
    assert len(calls) == sum(len(table) for table in (record.dirs, record.files, record.spare.dirs))


def _assert_records_match_the_disk(project: Path) -> None:
    """The saved record says exactly what the output and its spare copy hold."""
    record = uptodate.load(Project(project), project / "site")
    assert record is not None
    disk = tree_state(str(project / "site"), record.files)
    assert record.files == disk.files
    assert record.dirs == disk.dirs
    assert set(record.files) == set(tree_snapshot(project / "site"))
    assert set(record.digests) == set(record.files)
    prev = project / ".site.prev"
    if record.spare is not None:
        spare = tree_state(str(prev), record.spare.files)
        assert set(record.spare.files) == set(tree_snapshot(prev))
        assert {p: inode(i) for p, i in record.spare.files.items()} == {
            p: inode(i) for p, i in spare.files.items()
        }
        assert record.spare.dirs == spare.dirs
        # a file of both trees (the same inode: kept or linked) has its identity now in both
        # records (a new link moves its ctime: write/record.py `_shared_now`)
        files = record.files
        both = [
            p for p, i in record.spare.files.items() if p in files and inode(files[p]) == inode(i)
        ]
        assert {p: record.spare.files[p] for p in both} == {p: spare.files[p] for p in both}
    # the pages' identities the next build's `keep` compares: the published files' (an update
    # updates those of the pages it rendered or linked only: handover.remember_pages)
    pages = BuildCache.load(project / ".bipub-cache").pages[str((project / "site").resolve())]
    stale = {
        p for p, (_, ident) in pages.items() if p in record.files and ident != four(record.files[p])
    }
    assert not stale, sorted(stale)[:5]


def test_after_the_first_update_the_records_base_holds_the_spare_files_as_what_differs(
    tmp_path: Path,
) -> None:
    """The first update after a clean build links every page it keeps into the spare copy,
    which moves each file's ctime: the spare copy's record has them as they are now, so the
    record's new base file holds the spare copy's files as what differs from the output's
    (a few), not whole (read at every build after it: ~34,000 identities at 5,000 posts a
    language)."""
    project = _project(tmp_path, SMALLER_POSTS)
    _build(project)
    _edit(project, "하나")
    _build(project)
    record = uptodate.load(Project(project), project / "site")
    assert record is not None and record.spare is not None and record.base is not None
    held = load_signed(project / ".bipub-cache" / record.base.name)
    source, changed, gone = held["spare_files"]
    assert source == "files"
    # (the files the update wrote: the edited post's pages, the feeds, llms files...)
    assert 0 < len(changed) + len(gone) < len(record.files) // 10, sorted(changed)
    _assert_records_match_the_disk(project)


def _step_edit(project: Path) -> None:
    _edit(project, "편집")


def _step_new_post(project: Path) -> None:
    (project / "content/ko/posts/new.md").write_text(
        POST.format(title="새 글", n=99, day=27, tag=9), encoding="utf-8"
    )


def _step_delete_post(project: Path) -> None:
    (project / "content/ko/posts/post-07.md").unlink()
    (project / "content/en/posts/post-07.md").unlink()


def _step_rename_post(project: Path) -> None:
    (project / "content/ko/posts/post-08.md").rename(project / "content/ko/posts/renamed.md")


def _step_retag(project: Path) -> None:
    post = project / "content/ko/posts/post-09.md"
    post.write_text(post.read_text(encoding="utf-8").replace("tags: [t4]", "tags: [new]"))


STEPS: dict[str, Callable[[Path], None]] = {
    "edit": _step_edit,
    "new post": _step_new_post,
    "delete post": _step_delete_post,
    "rename post": _step_rename_post,
    "retag": _step_retag,
}


def test_after_every_kind_of_update_the_record_is_the_disk(updated: Path, tmp_path: Path) -> None:
    """Edits, new, deleted and renamed posts, new tags, one language, one output kind: after
    each build the record equals the disk and the site equals a clean build; the next build
    with nothing changed is up to date (it compares every file with the record)."""
    _assert_records_match_the_disk(updated)
    for name, step in STEPS.items():
        step(updated)
        result = _build(updated)
        assert "spare copy" not in result.cache_note, (name, result.cache_note)
        _assert_records_match_the_disk(updated)
        assert tree_snapshot(updated / "site") == _clean(updated, tmp_path), name
        assert _build(updated).up_to_date, name
    _edit(updated, "한국어만")
    build(updated, langs=["ko"], only=KINDS)
    _assert_records_match_the_disk(updated)
    _edit(updated, "html만")
    build(updated, only={"html"})
    _assert_records_match_the_disk(updated)
    _edit(updated, "다시 전부")
    _build(updated)
    _assert_records_match_the_disk(updated)
    assert tree_snapshot(updated / "site") == _clean(updated, tmp_path)


def _replace(path: Path, data: bytes) -> None:
    """An editor's save: a new file renamed over the old one (a new inode)."""
    temp = path.with_name(path.name + ".tmp")
    temp.write_bytes(data)
    temp.replace(path)


def _edit_in_place(path: Path) -> None:
    """An edit that keeps the file (its inode, its size, its folder, even its mtime): only the
    file's own ctime tells. The page is a hard link shared with the other tree, so both see it."""
    st = path.stat()
    with open(path, "r+b") as f:
        f.write(b"<!-- by hand -->"[: st.st_size])
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _page(tree: Path, n: int = 12) -> Path:
    return tree / "ko" / "blog" / f"post-{n:02d}" / "index.html"


TAMPER: dict[str, Callable[[Path], None]] = {
    "file added": lambda tree: (_page(tree).parent / "planted.html").write_bytes(b"planted"),
    "file added at the top": lambda tree: (tree / "planted.txt").write_bytes(b"planted"),
    "file replaced": lambda tree: _replace(_page(tree), b"replaced by hand"),
    "file removed": lambda tree: _page(tree).unlink(),
    "file edited in place": lambda tree: _edit_in_place(_page(tree)),
    "folder added": lambda tree: (_page(tree).parent / "extra").mkdir(),
}


def _assert_relinked(note: str) -> None:
    assert "output folder as recorded but for 1 files linked since" in note, note
    assert "the spare copy of the site (.site.prev) checked in full: it was changed" in note
    assert "the output folder was changed (" not in note, note


@pytest.mark.parametrize("how", sorted(TAMPER))
@pytest.mark.parametrize("where", ["spare copy", "published site"])
def test_a_tree_changed_by_hand_is_found_and_repaired(
    smaller: Path, tmp_path: Path, how: str, where: str
) -> None:
    """A file added, replaced or removed by hand in the spare copy (`.site.prev`) or in the
    published site, then an edit: the update finds the trees are not as recorded, says so
    (`-v`), and publishes a clean build's site — and so does the update after it (the site it
    replaced, with the change, is the next spare copy)."""
    updated = smaller
    tree = updated / (".site.prev" if where == "spare copy" else "site")
    TAMPER[how](tree)
    _edit(updated, "손")
    result = _build(updated)
    assert tree_snapshot(updated / "site") == _clean(updated, tmp_path)
    if where == "spare copy" and how in ("file added", "file added at the top", "folder added"):
        assert "spare copy of the site (.site.prev)" in result.cache_note, result.cache_note
    elif where == "spare copy" and how in ("file removed", "file replaced"):
        # the page is a hard link shared with the published site: removing or replacing it in
        # the spare copy moves the published file's ctime alone, and its bytes, hashed again,
        # are as recorded (uptodate.py `Prescan._relinked`); the spare copy is checked in full
        _assert_relinked(result.cache_note)
    else:  # editing it in the spare copy edits the published file too
        assert "the output folder was changed (" in result.cache_note
    _assert_records_match_the_disk(updated)
    _edit(updated, "다음")
    result = _build(updated)
    assert tree_snapshot(updated / "site") == _clean(updated, tmp_path)
    _assert_records_match_the_disk(updated)
    _edit(updated, "그다음")
    result = _build(updated)
    assert "spare copy" not in result.cache_note, result.cache_note  # (trusted again)
    assert tree_snapshot(updated / "site") == _clean(updated, tmp_path)


def test_a_staged_path_not_as_recorded_is_found_while_writing(
    updated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the prescan cannot see (it looks at folders only, ahead of the build): a file of
    the spare copy that the update rewrites is not the one recorded. The writer finds it when
    it gets there, finishes the update, then compares every file and walks every folder."""
    _edit(updated, "여섯")
    page = updated / ".site.prev" / "ko" / "blog" / "post-03" / "index.html"
    real = uptodate.folders_intact

    def then_tamper(*args: Any) -> bytes:  # after the prescan's look, before the writer's
        answer = real(*args)
        _replace(page, b"replaced by hand")
        (page.parent.parent / "post-14" / "planted.html").write_bytes(b"planted")
        return answer

    with monkeypatch.context() as patch:
        patch.setattr(uptodate, "folders_intact", then_tamper)
        patch.setattr(uptodate, "can_fork", lambda: False)
        result = _build(updated)
    assert "was not as the last build left it (ko/blog/post-03/index.html: another file)" in (
        result.cache_note
    ), result.cache_note
    assert tree_snapshot(updated / "site") == _clean(updated, tmp_path)
    _assert_records_match_the_disk(updated)


def test_a_failed_update_leaves_the_spare_copy_to_be_checked(
    updated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An update that fails after it began to stage (a full disk) leaves the spare copy half
    brought up to date; the next build sees its folder moved and walks it."""
    _edit(updated, "일곱")

    def fails(*args: Any, **kwargs: Any) -> int:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch, pytest.raises(DiagnosticError, match="could not write"):
        patch.setattr(pipeline, "publish", fails)
        _build(updated)
    result = _build(updated)
    assert "spare copy of the site (.site.prev) checked in full" in result.cache_note
    assert tree_snapshot(updated / "site") == _clean(updated, tmp_path)
    _assert_records_match_the_disk(updated)


def test_an_output_reached_through_a_symbolic_link_keeps_its_pages(tmp_path: Path) -> None:
    """A web root published through a link (write/output.py): the pages' fingerprints are
    remembered for the folder written, and found again by the next build (before, they were
    saved under the folder's real path and looked up under the link's: every page rendered
    again at every update)."""
    project = _project(tmp_path)
    real = tmp_path / "www"
    real.mkdir()
    (project / "site").symlink_to(real)
    first = _build(project)
    _edit(project, "링크")
    result = _build(project)
    pages = sum(result.pages.values())
    assert first.reused == 0 and result.reused >= pages - 20, (result.reused, pages)
    assert tree_snapshot(real) == _clean(project, tmp_path)


@pytest.fixture
def checked_apart(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Builds check the output in another process (uptodate.Checker) whatever its size, as
    `bipub serve` checks a big one; the list gets the program of each process started."""
    return spawned_checkers(monkeypatch, fork=False)


@pytest.mark.parametrize("how", ["file edited in place", "file added", "file removed"])
@pytest.mark.parametrize("where", ["spare copy", "published site"])
def test_the_output_checked_in_another_process_is_found_changed_and_repaired(
    smaller: Path, tmp_path: Path, checked_apart: list[str], where: str, how: str
) -> None:
    """The process that checks the output (write/tree_check.py) sees what the check in the
    build's own process sees: an edit in place shows only in the file's identity, a file added
    in its folder's."""
    updated = smaller
    tree = updated / (".site.prev" if where == "spare copy" else "site")
    TAMPER[how](tree)
    _edit(updated, "따로")
    result = _build(updated)
    assert [Path(p).name for p in checked_apart] == ["tree_check.py"]
    assert tree_snapshot(updated / "site") == _clean(updated, tmp_path)
    if where == "spare copy" and how == "file added":
        assert "spare copy of the site (.site.prev)" in result.cache_note, result.cache_note
    elif where == "spare copy" and how == "file removed":  # (its published file's ctime alone)
        _assert_relinked(result.cache_note)
    else:
        assert "the output folder was changed (" in result.cache_note, result.cache_note
    _assert_records_match_the_disk(updated)
    _edit(updated, "또 따로")
    result = _build(updated)
    assert "the output folder was changed" not in result.cache_note, result.cache_note
    assert tree_snapshot(updated / "site") == _clean(updated, tmp_path)
    assert len(checked_apart) == 2


def test_a_check_that_gives_no_answer_is_done_here(
    updated: Path, tmp_path: Path, checked_apart: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checking process cannot run (here: its program is missing): the build checks the
    output itself, says so at -v, and still finds a file edited in place."""
    monkeypatch.setattr(uptodate.tree_check, "__file__", str(tmp_path / "missing.py"))
    _edit_in_place(_page(updated / "site"))
    _edit(updated, "대답 없음")
    result = _build(updated)
    assert len(checked_apart) == 1
    assert "output checked in-process (the check gave no answer)" in result.cache_note
    assert "the output folder was changed (" in result.cache_note, result.cache_note
    assert tree_snapshot(updated / "site") == _clean(updated, tmp_path)


def test_a_file_removed_by_hand_is_not_carried_over_by_a_build_of_other_kinds(
    updated: Path, tmp_path: Path
) -> None:
    """`build --only html` carries the other kinds' files over from the published site
    (handover.carry_other_kinds); one removed by hand since is left out (the next build of its
    kind makes it again), not taken for an error."""
    feed = updated / "site" / "ko" / "feed.xml"
    feed.unlink()
    _edit(updated, "html만 다시")
    build(updated, only={"html"})
    assert not feed.exists()
    assert (updated / "site" / "en" / "feed.xml").is_file()  # (the others are carried over)
    _assert_records_match_the_disk(updated)
    _build(updated)
    assert tree_snapshot(updated / "site") == _clean(updated, tmp_path)


def test_a_resident_build_knows_its_output_without_the_marker(tmp_path: Path) -> None:
    """`bipub serve` keeps its record of the output in memory (the file is saved when it
    stops): a marker removed by hand is found missing against that record, not the older
    file's, so the folder is still known as bipub's and the site is repaired (found by the
    incremental state machine: the rebuild refused the folder as not bipub's)."""
    project = _project(tmp_path)
    kept = pipeline.Kept(BuildCache())
    _build(project, kept=kept)
    _edit(project, "상주")
    _build(project, kept=kept)
    (project / "site" / ".bipub-output").unlink()
    _build(project, kept=kept)
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)


def test_the_root_copy_of_llms_full_is_written_once(
    updated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The root llms-full.txt is the default language's (ko): an edit writes the text once
    and links the other path to it (tens of MB on a big site; `output.BIG` lowered so that
    this small site's texts count as big). The record still equals the disk, the site a
    clean build's, and the builds after it keep or replace either path."""
    monkeypatch.setattr(output, "BIG", 0)
    site = updated / "site"
    for word in ("셋", "넷"):
        _edit(updated, word)
        result = _build(updated)
        assert "spare copy" not in result.cache_note, result.cache_note
        root, own = (site / "llms-full.txt").stat(), (site / "ko" / "llms-full.txt").stat()
        assert (root.st_ino, root.st_dev) == (own.st_ino, own.st_dev)
        _assert_records_match_the_disk(updated)
        assert tree_snapshot(site) == _clean(updated, tmp_path)
        assert _build(updated).up_to_date
    monkeypatch.setattr(output, "BIG", 1 << 16)
    _edit(updated, "다섯")
    _build(updated)
    _assert_records_match_the_disk(updated)
    assert tree_snapshot(site) == _clean(updated, tmp_path)
