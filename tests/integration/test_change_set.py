"""`bipub serve`'s change sets: the paths its watcher reported since the last build stand for a
scan of content/ (uptodate.rescan_inputs) where they can, the build says when they cannot, and
a change the watcher did not report is found by the scan at the first quiet moment after each
rebuild and built (serve.Follower). The state machine of tests/integration/test_incremental.py builds
from change sets too (its `watched` runs): output equal to a clean build after any edits."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from watchfiles import Change, DefaultFilter

from bipub import uptodate
from bipub.cache import BuildCache
from bipub.pipeline import Kept, build
from bipub.project import Project
from bipub.serve import Follower, unreported, watch_filter
from tests.conftest import PROJECTS, tree_snapshot


def reported(before: dict[str, uptodate.Identity], after: dict[str, uptodate.Identity]) -> set[str]:
    """What watchfiles reports between two scans of content/ (inotify, as measured: one event
    per file added, removed or written, one per folder added or removed, none for a folder
    whose entries changed), as absolute paths under the project."""
    paths = set()
    for rel in before.keys() | after.keys():
        if not rel.startswith("content/") or before.get(rel) == after.get(rel):
            continue
        if rel.endswith("/"):
            if (rel in before) != (rel in after):  # a folder added or removed
                paths.add(rel.rstrip("/"))
        else:
            paths.add(rel)
    return paths


def _abs(project: Path, rels: set[str]) -> set[str]:
    return {os.path.join(os.path.abspath(project), *rel.split("/")) for rel in rels}


# one edit of content/: (what it does, the files it touches)
EDITS = ["edit", "add", "remove", "rename", "other_file", "mkdir", "rmdir", "file_in_new_folder"]


def _edit(project: Path, what: str, n: int) -> None:
    posts = project / "content" / "ko" / "posts"
    files = sorted(p for p in posts.iterdir() if p.is_file())
    if what == "edit" and files:
        path = files[n % len(files)]
        path.write_text(path.read_text(encoding="utf-8") + f"\n편집 {n}\n", encoding="utf-8")
    elif what == "add":
        shutil.copy(PROJECTS / "minimal/content/ko/posts/alpha.md", posts / f"new-{n}.md")
    elif what == "remove" and files:
        files[n % len(files)].unlink()
    elif what == "rename" and files:
        files[n % len(files)].rename(posts / f"renamed-{n}.md")
    elif what == "other_file":
        (posts / f"notes-{n}.txt").write_text("x", encoding="utf-8")
    elif what == "mkdir":
        (posts / f"folder-{n}").mkdir(exist_ok=True)
    elif what == "rmdir":
        for folder in sorted(p for p in posts.iterdir() if p.is_dir()):
            shutil.rmtree(folder)
            break
    elif what == "file_in_new_folder":
        (posts / f"deep-{n}").mkdir(exist_ok=True)
        shutil.copy(PROJECTS / "minimal/content/ko/posts/beta.md", posts / f"deep-{n}/b.md")


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(edits=st.lists(st.tuples(st.sampled_from(EDITS), st.integers(0, 5)), max_size=6))
def test_a_full_change_set_stands_for_a_scan(make_project: Any, edits: list[Any]) -> None:
    """With every path the watcher reports, the rescan finds what a scan finds, or says it
    cannot (a folder added or removed)."""
    project = make_project("minimal")
    try:
        scanned = uptodate.scan_inputs(Project(project))
        for what, n in edits:
            _edit(project, what, n)
            now = uptodate.scan_inputs(Project(project))
            changed = _abs(project, reported(scanned, now))
            found, why = uptodate.rescan_inputs(Project(project), scanned, changed)
            if found is None:
                assert "folder" in why, why
                assert any(what in ("mkdir", "rmdir", "file_in_new_folder") for what, _ in edits)
            else:
                assert found == now, why
            scanned = now
    finally:
        shutil.rmtree(project)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("content", "a change on content/ itself"),
        ("content/ko/posts", "a change on the folder content/ko/posts"),
        ("content/ko/new/x.md", "did not find as a folder"),
        ("../elsewhere/x.md", "outside the project"),
    ],
)
def test_a_change_set_that_cannot_stand_for_a_scan_says_why(
    make_project: Any, change: str, why: str
) -> None:
    project = make_project("minimal")
    base = uptodate.scan_inputs(Project(project))
    path = os.path.normpath(os.path.join(os.path.abspath(project), change))
    found, said = uptodate.rescan_inputs(Project(project), base, {path})
    assert found is None and why in said


def test_inputs_outside_content_are_scanned_whatever_the_change_set(make_project: Any) -> None:
    project = make_project("minimal")
    base = uptodate.scan_inputs(Project(project))
    (project / "templates").mkdir(exist_ok=True)
    (project / "templates" / "extra.html").write_text("x", encoding="utf-8")
    found, _ = uptodate.rescan_inputs(Project(project), base, set())
    assert found == uptodate.scan_inputs(Project(project))


def test_the_build_says_which_scan_it_did(make_project: Any) -> None:
    project = make_project("minimal")
    kept = Kept(BuildCache())
    build(project, only={"html"}, kept=kept)
    post = project / "content/ko/posts/alpha.md"
    post.write_text(post.read_text(encoding="utf-8") + "\n더\n", encoding="utf-8")
    done = build(project, only={"html"}, kept=kept, changed={str(post.absolute())})
    assert "inputs from the last build's and the watcher's changes" in done.cache_note
    (project / "content/ko/posts/sub").mkdir()
    done = build(
        project,
        only={"html"},
        kept=kept,
        changed={str(project.absolute() / "content/ko/posts/sub")},
    )
    assert "inputs scanned in full: a change on the folder content/ko/posts/sub" in done.cache_note


class _Ui:
    def __init__(self) -> None:
        self.said: list[str] = []

    def debug(self, text: str) -> None:
        self.said.append(text)


def test_a_change_the_watcher_did_not_report_is_built_at_once(
    make_project: Any, tmp_path: Path
) -> None:
    """The watcher reports one of two edits (a file edited through a hard link elsewhere, a
    file system without events): the rebuild from its change set misses the other, the scan
    after it finds it, says so and builds again; the site then equals a clean build."""
    project = make_project("minimal")
    kept = Kept(BuildCache())
    ui = _Ui()
    builds: list[Any] = []

    def rebuild(changed: frozenset[str] | None) -> bool:
        builds.append(changed)
        build(project, only={"html"}, kept=kept, changed=changed)
        return True

    target = (project / "site").absolute()
    quiet: list[int] = []
    follow = Follower(
        ui,
        rebuild,
        lambda: unreported(Project(project), kept.records, target),
        lambda: quiet.append(len(builds)),
    )
    rebuild(None)
    alpha = project / "content/ko/posts/alpha.md"
    beta = project / "content/ko/posts/beta.md"
    follow([(Change.modified, str(alpha.absolute()))])  # (the first batch: every input scanned)
    follow([])  # (a quiet moment: the scan finds nothing; the caller's turn)
    assert builds == [None, None] and quiet == [2]
    alpha.write_text(
        alpha.read_text(encoding="utf-8").replace("알파", "고친알파"), encoding="utf-8"
    )
    beta.write_text(beta.read_text(encoding="utf-8") + "\n\n보고되지 않은 편집\n", encoding="utf-8")
    follow([(Change.modified, str(alpha.absolute()))])
    assert builds[-1] == frozenset({str(alpha.absolute())})  # (the change set's build)
    follow([])  # (the scan at the next quiet moment finds beta: said, not built yet)
    assert any("did not report" in s and "content/ko/posts/beta.md" in s for s in ui.said)
    assert len(builds) == 3
    follow([])  # (still not reported: built from a full scan)
    assert builds[-1] is None and len(builds) == 4
    build(project, tmp_path / "clean", only={"html"}, use_cache=False)
    assert tree_snapshot(project / "site") == tree_snapshot(tmp_path / "clean")
    assert follow.pending == set()


def test_a_change_the_scan_finds_before_the_watcher_reports_it_is_built_once() -> None:
    """The scan at a quiet moment finds a save the watcher reports right after (a save at that
    very moment): its batch builds it from a full scan, and nothing is built twice."""
    seen: list[frozenset[str] | None] = []
    found = [["content/a.md"], []]

    def rebuild(changed: frozenset[str] | None) -> bool:
        seen.append(changed)
        return True

    follow = Follower(_Ui(), rebuild, lambda: found.pop(0))
    follow([(Change.modified, "/p/content/b.md")])  # (the first batch: a full scan)
    follow([])  # (the scan finds a.md, which the watcher reports next)
    follow([(Change.modified, "/p/content/a.md")])
    follow([])  # (the scan after it: nothing)
    follow([])  # (nothing to scan: no rebuild since)
    assert seen == [None, None]
    assert found == []


def test_a_save_during_a_rebuild_is_built_before_any_scan() -> None:
    """Saves reported while a rebuild ran come in the next batch, before the watcher is quiet:
    built from their change set; the inputs are scanned only once the watcher is quiet."""
    scans: list[int] = []
    seen: list[frozenset[str] | None] = []

    def rebuild(changed: frozenset[str] | None) -> bool:
        seen.append(changed)
        return True

    follow = Follower(_Ui(), rebuild, lambda: scans.append(len(seen)) or [])
    follow([(Change.modified, "/p/content/a.md")])
    follow([(Change.modified, "/p/content/b.md")])
    follow([(Change.modified, "/p/content/c.md")])
    assert scans == []
    follow([])
    assert scans == [3]
    assert seen == [None, frozenset({"/p/content/b.md"}), frozenset({"/p/content/c.md"})]


def test_after_the_first_quiet_moment_the_first_batch_stands_for_a_scan() -> None:
    """The scan at the first quiet moment finds nothing changed since the first build: the
    watcher (running by then) reports every change from then on, so the first save is built
    from its change set, not from a full scan."""
    seen: list[frozenset[str] | None] = []
    scans: list[int] = []

    def rebuild(changed: frozenset[str] | None) -> bool:
        seen.append(changed)
        return True

    follow = Follower(_Ui(), rebuild, lambda: scans.append(len(seen)) or [])
    follow([])
    follow([(Change.modified, "/p/content/a.md")])
    assert scans == [0] and seen == [frozenset({"/p/content/a.md"})]


def test_a_change_before_the_watcher_started_is_found_at_the_first_quiet_moment() -> None:
    ui = _Ui()
    seen: list[frozenset[str] | None] = []
    found = [["content/a.md"], []]

    def rebuild(changed: frozenset[str] | None) -> bool:
        seen.append(changed)
        return True

    follow = Follower(ui, rebuild, lambda: found.pop(0))
    follow([])  # (said; built at the next quiet moment, if the watcher does not report it)
    assert seen == [] and any("content/a.md" in s for s in ui.said)
    follow([])
    assert seen == [None]
    follow([])  # (the scan after that rebuild)
    follow([(Change.modified, "/p/content/b.md")])
    assert seen == [None, frozenset({"/p/content/b.md"})] and found == []


def test_a_failed_first_rebuild_is_not_scanned_for_at_each_quiet_moment() -> None:
    """A first batch whose build fails keeps a full scan for the next one: no scan at the quiet
    moments after it (the inputs differ from the last record: it would build again and again)."""
    seen: list[frozenset[str] | None] = []
    scans: list[int] = []

    def rebuild(changed: frozenset[str] | None) -> bool:
        seen.append(changed)
        return False

    follow = Follower(_Ui(), rebuild, lambda: scans.append(1) or ["content/a.md"])
    follow([(Change.modified, "/p/content/a.md")])
    for _ in range(3):
        follow([])
    assert seen == [None] and scans == []


def test_a_failed_build_keeps_its_changes_for_the_next() -> None:
    outcomes = iter([True, False, True])
    seen: list[frozenset[str] | None] = []

    def rebuild(changed: frozenset[str] | None) -> bool:
        seen.append(changed)
        return next(outcomes)

    follow = Follower(_Ui(), rebuild, lambda: [])
    follow([(Change.modified, "/p/content/a.md")])
    follow([(Change.modified, "/p/content/b.md")])
    follow([(Change.modified, "/p/content/c.md")])
    assert seen == [
        None,
        frozenset({"/p/content/b.md"}),
        frozenset({"/p/content/b.md", "/p/content/c.md"}),
    ]


def test_the_watcher_reports_every_change_in_content_but_an_editors_own_files(
    tmp_path: Path,
) -> None:
    content = str(tmp_path / "content")
    report = watch_filter(content, DefaultFilter())
    posts = os.path.join(content, "en", "posts")
    for name in ("a.md", "a.md~", "#a.md#", ".hidden", ".drafts", "node_modules", ".git"):
        assert report(Change.added, os.path.join(posts, name)), name
    assert report(Change.added, os.path.join(posts, ".git", "x.md"))
    for name in (".a.md.swp", ".a.md.swx", ".DS_Store"):
        assert not report(Change.added, os.path.join(posts, name)), name
    assert not report(Change.added, str(tmp_path / "templates" / "x.html~"))  # (as before)


def _clean(project: Path, where: Path) -> dict[str, bytes]:
    build(project, where, only={"html"}, use_cache=False)
    return tree_snapshot(where)


def test_posts_edited_in_place_are_read_again_the_others_taken(
    make_project: Any, tmp_path: Path
) -> None:
    """The content load of a resident caller (load/content.py ContentMemo): after edits in
    place only those files are read, a post added is read and put in its place, a post removed
    left out, without listing content/ again; a file the listing warns about lists it again."""
    project = make_project("minimal")
    kept = Kept(BuildCache())
    build(project, only={"html"}, kept=kept)
    alpha = project / "content/ko/posts/alpha.md"
    alpha.write_text(alpha.read_text(encoding="utf-8").replace("알파", "고친알파"), "utf-8")
    done = build(project, only={"html"}, kept=kept, changed={str(alpha.absolute())})
    assert "1 post or page edited in place read again" in done.cache_note
    assert tree_snapshot(project / "site") == _clean(project, tmp_path / "c1")
    gamma = project / "content/ko/posts/gamma.md"
    shutil.copy(alpha, gamma)
    gamma.write_text(gamma.read_text(encoding="utf-8").replace("고친알파", "감마"), "utf-8")
    done = build(project, only={"html"}, kept=kept, changed={str(gamma.absolute())})
    assert (
        "as the last load listed it, 0 posts or pages edited in place read again, 1 added, 0 removed"
        in done.cache_note
    )
    assert tree_snapshot(project / "site") == _clean(project, tmp_path / "c2")
    gamma.unlink()
    done = build(project, only={"html"}, kept=kept, changed={str(gamma.absolute())})
    assert ", 0 added, 1 removed" in done.cache_note
    assert tree_snapshot(project / "site") == _clean(project, tmp_path / "c3")
    swap = project / "content/ko/posts/.alpha.md.swp"  # (an editor's: passed over in silence)
    for text in ("first", "second"):  # (added, then edited in place)
        swap.write_text(text, encoding="utf-8")
        done = build(project, only={"html"}, kept=kept, changed={str(swap.absolute())})
        assert "as the last load listed it, 0 posts or pages edited" in done.cache_note
    notes = project / "content/ko/posts/notes.txt"  # (the listing warns: "ignored-file")
    notes.write_text("not a post", encoding="utf-8")
    done = build(project, only={"html"}, kept=kept, changed={str(notes.absolute())})
    assert "content listed again: content/ko/posts/notes.txt added or removed" in done.cache_note
    assert any(d.code == "ignored-file" for d in done.warnings)
    assert tree_snapshot(project / "site") == _clean(project, tmp_path / "c4")


def test_a_post_that_stops_loading_is_said_at_every_build_until_fixed(make_project: Any) -> None:
    from bipub.diagnostics import DiagnosticError

    project = make_project("minimal")
    kept = Kept(BuildCache())
    build(project, only={"html"}, kept=kept)
    alpha = project / "content/ko/posts/alpha.md"
    good = alpha.read_text(encoding="utf-8")
    alpha.write_text(good.replace("title:", "title: [unclosed\nx:", 1), "utf-8")
    for _ in range(2):  # (the second build: nothing changed, the error is said again)
        with pytest.raises(DiagnosticError) as failed:
            build(project, only={"html"}, kept=kept, changed={str(alpha.absolute())})
        assert any(d.file == "content/ko/posts/alpha.md" for d in failed.value.diagnostics)
    alpha.write_text(good.replace("알파", "고친알파"), "utf-8")
    build(project, only={"html"}, kept=kept, changed={str(alpha.absolute())})
    assert "고친알파" in (project / "site/ko/blog/alpha/index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("date: 2026-04-07", "date: 2026-06-01"),  # alpha moves before beta
        ("date: 2026-04-07", "date: 2026-04-07\ndraft: true"),  # alpha leaves the lists
        ("title: 알파 글", "title: 고친 알파"),  # same place: the last order, alpha swapped in
    ],
)
def test_the_posts_order_is_carried_only_where_it_holds(
    make_project: Any, tmp_path: Path, old: str, new: str
) -> None:
    """pair/memo.py PairMemo.carry_posts: each language's posts in order from the last
    pairing, with the edited post in its place, only where sorting would put it there."""
    project = make_project("minimal")
    kept = Kept(BuildCache())
    build(project, only={"html"}, kept=kept)
    alpha = project / "content/ko/posts/alpha.md"
    alpha.write_text(alpha.read_text(encoding="utf-8").replace(old, new), "utf-8")
    build(project, only={"html"}, kept=kept, changed={str(alpha.absolute())})
    assert tree_snapshot(project / "site") == _clean(project, tmp_path / "clean")


def test_pairing_again_says_what_the_other_entries_said(make_project: Any, tmp_path: Path) -> None:
    """A resident pairing (PairMemo): after an edit in place, the warnings of the entries taken
    as they were are said again (a translation writing a shared field otherwise), and a slug
    edited into another post's URL is the clash a clean build finds."""
    from bipub.diagnostics import DiagnosticError

    project = make_project("minimal")
    en = project / "content/en/posts/alpha.md"
    en.write_text(en.read_text(encoding="utf-8").replace("series:", "date: 2026-05-01\nseries:"))
    kept = Kept(BuildCache())
    build(project, only={"html"}, kept=kept)
    beta = project / "content/ko/posts/beta.md"
    beta.write_text(beta.read_text(encoding="utf-8") + "\n더 쓴 문단.\n", encoding="utf-8")
    done = build(project, only={"html"}, kept=kept, changed={str(beta.absolute())})
    clean = build(project, tmp_path / "clean", only={"html"}, use_cache=False)
    assert any(d.code == "shared-differs" for d in done.warnings)
    assert done.warnings == clean.warnings
    beta.write_text(beta.read_text(encoding="utf-8").replace("series:", "slug: alpha\nseries:"))
    with pytest.raises(DiagnosticError) as failed:
        build(project, only={"html"}, kept=kept, changed={str(beta.absolute())})
    with pytest.raises(DiagnosticError) as clean_failed:
        build(project, tmp_path / "clean2", only={"html"}, use_cache=False)
    assert failed.value.diagnostics == clean_failed.value.diagnostics
    assert any(d.file == "content/ko/posts/beta.md" for d in failed.value.diagnostics)


def test_the_scan_after_an_up_to_date_start_finds_what_the_watcher_did_not_report(
    make_project: Any,
) -> None:
    """A server started on an output its record on disk calls current publishes nothing: no
    record in memory. An edit made before its watcher started (never reported) is found all
    the same by the scan at the first quiet moment, from the record on disk."""
    project = make_project("minimal")
    build(project, only={"html"})  # (the record saved on disk: `bipub build`'s)
    target = (project / "site").absolute()
    kept = Kept(BuildCache())
    assert build(project, only={"html"}, kept=kept).up_to_date  # (the server's start)
    assert target not in kept.records
    alpha = project / "content/ko/posts/alpha.md"
    alpha.write_text(alpha.read_text(encoding="utf-8") + "\n\n보지 못한 편집\n", encoding="utf-8")
    assert unreported(Project(project), kept.records, target) == ["content/ko/posts/alpha.md"]
