"""`bipub serve` checks its output folder where the kernel reported a change (issue 17).

Before an update trusts its record of the output folder and of the spare copy, both must be
as recorded (docs/security.md, guarantee 2). The server watches them (src/bipub/write/
tree_watch.py) and looks only at the paths reported since the last update; whatever it cannot
vouch for falls back to the full check (write/tree_check.py) and `-v` says why. These tests
build as the server does (a resident `Kept`, the watch handed to the prescan), tamper with the
trees between two updates, and require exactly what the full check finds: a clean build's site.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from bipub import pipeline
from bipub.cache import BuildCache
from bipub.pipeline import BuildResult, build
from bipub.serve import ServeBuilds
from bipub.write import tree_watch
from bipub.write.record import tree_state
from bipub.write.tree_watch import TreeWatch, file_system
from tests.conftest import PROJECTS, clean_snapshot, spawned_checkers, tree_snapshot

KINDS = {"html", "json", "feeds", "llms"}
POST = """---
title: {title}
description: Post {n}
date: 2026-03-{day:02d}
tags: [t{tag}]
---

본문 {n}.
"""


class Served:
    """A project built as `bipub serve` builds it (serve.ServeBuilds: what it worked out kept
    in memory, the output folder checked through a TreeWatch), into site/."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.site = root / "site"
        self.kept = pipeline.Kept(BuildCache())
        self.watch = TreeWatch()
        self.builds = ServeBuilds(root, self.site, self.kept, build, self.watch)

    def build(self) -> BuildResult:
        return self.builds(KINDS, None)

    def arm(self) -> bool:
        said = self.builds.idle()
        return said.startswith("output folder watched (")

    def edit(self, word: str, n: int = 3) -> None:
        post = self.root / "content" / "ko" / "posts" / f"post-{n:02d}.md"
        post.write_text(post.read_text(encoding="utf-8") + f"\n{word}.\n", encoding="utf-8")

    def assert_records_match_the_disk(self) -> None:
        record = self.kept.records[self.site.absolute()]
        assert record is not None
        disk = tree_state(str(self.site), record.files)
        assert (record.files, record.dirs) == (disk.files, disk.dirs)
        assert set(record.files) == set(tree_snapshot(self.site))


def _clean(project: Path, tmp_path: Path) -> dict[str, bytes]:
    return clean_snapshot(project, tmp_path, KINDS)


@pytest.fixture
def checked_apart(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every output checked in another process (uptodate.Checker) when it is checked in full,
    as `bipub serve` checks a big one; the list gets each process started."""
    return spawned_checkers(monkeypatch)


@pytest.fixture
def served(tmp_path: Path, checked_apart: list[str]) -> Served:
    """A site after a full build and two updates (both trees recorded), then watched."""
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    for lang in ("ko", "en"):
        for n in range(12):
            path = root / "content" / lang / "posts" / f"post-{n:02d}.md"
            text = POST.format(title=f"{lang} {n}", n=n, day=n % 28 + 1, tag=n % 3)
            path.write_text(text, encoding="utf-8")
    served = Served(root)
    served.build()
    for word in ("하나", "둘"):
        served.edit(word)
        served.build()
    assert served.arm(), served.watch.note
    checked_apart.clear()
    return served


def _page(tree: Path, n: int = 7) -> Path:
    return tree / "ko" / "blog" / f"post-{n:02d}" / "index.html"


def _edit_in_place(path: Path) -> None:
    """Same inode, size and mtime: only the file's ctime tells (and the kernel's report)."""
    st = path.stat()
    with open(path, "r+b") as f:
        f.write(b"<!-- by hand -->"[: st.st_size])
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _replace(path: Path, data: bytes) -> None:
    path.unlink()
    path.write_bytes(data)


TAMPER = {
    "file added": lambda tree: (_page(tree).parent / "planted.html").write_bytes(b"planted"),
    "file added at the top": lambda tree: (tree / "planted.txt").write_bytes(b"planted"),
    "file replaced": lambda tree: _replace(_page(tree), b"replaced by hand"),
    "file removed": lambda tree: _page(tree).unlink(),
    "file edited in place": lambda tree: _edit_in_place(_page(tree)),
    "folder added": lambda tree: (_page(tree).parent / "extra").mkdir(),
    "folder moved away": lambda tree: _page(tree).parent.rename(tree / "moved"),
}


def test_an_update_looks_only_at_what_was_reported(
    served: Served, tmp_path: Path, checked_apart: list[str]
) -> None:
    """Nothing but the server's own updates touched the trees: each update trusts the record
    on the watch's word (no full check), says so at -v, and publishes a clean build's site."""
    for word in ("셋", "넷"):
        served.edit(word)
        result = served.build()
        assert "output folder watched since the last update: " in result.cache_note
        assert checked_apart == []
        assert tree_snapshot(served.site) == _clean(served.root, tmp_path)
        served.assert_records_match_the_disk()


@pytest.mark.parametrize("how", sorted(TAMPER))
@pytest.mark.parametrize("where", ["spare copy", "published site"])
def test_a_tree_changed_by_hand_while_watched_is_checked_in_full_and_repaired(
    served: Served, tmp_path: Path, checked_apart: list[str], where: str, how: str
) -> None:
    """A file added, replaced, removed or edited in place, a folder added or moved in either
    tree between two updates: the update does not take the watch's word (-v says what it saw),
    checks in full as without a watch, and publishes a clean build's site; armed again, the
    watch vouches for the next update."""
    tree = served.site.parent / ".site.prev" if where == "spare copy" else served.site
    TAMPER[how](tree)
    served.edit("손")
    result = served.build()
    assert "output folder checked in full: " in result.cache_note, result.cache_note
    assert len(checked_apart) == 1
    assert tree_snapshot(served.site) == _clean(served.root, tmp_path)
    served.assert_records_match_the_disk()
    assert served.arm(), served.watch.note
    served.edit("다음")
    result = served.build()
    assert "output folder watched since the last update: " in result.cache_note
    assert tree_snapshot(served.site) == _clean(served.root, tmp_path)


@pytest.mark.parametrize("when", ["before its folder is watched", "after"])
def test_a_new_post_s_folder_is_watched_too(
    served: Served, tmp_path: Path, checked_apart: list[str], when: str
) -> None:
    """An update makes folders (a new post's): the next one watches them, with what they hold,
    and looks at all of it; a page in them edited by hand later is reported like any other."""
    post = served.root / "content" / "ko" / "posts" / "post-03.md"
    (post.parent / "post-40.md").write_text(post.read_text(encoding="utf-8"), encoding="utf-8")
    served.build()
    page = served.site / "ko" / "blog" / "post-40" / "index.html"
    assert page.is_file()
    if when == "after":
        served.edit("새 글 다음")
        result = served.build()
        assert "output folder watched since the last update: " in result.cache_note
    _edit_in_place(page)
    served.edit("손")
    result = served.build()
    assert "output folder checked in full: ko/blog/post-40/index.html was changed" in (
        result.cache_note
    ), result.cache_note
    assert tree_snapshot(served.site) == _clean(served.root, tmp_path)


def test_what_was_reported_is_looked_at_at_a_quiet_moment(
    served: Served, tmp_path: Path, checked_apart: list[str]
) -> None:
    """At a quiet moment the server looks at what its last rebuild changed (not the next
    rebuild); a change made by hand found then is said, the watch is placed again and (the
    trees not being as recorded) the next rebuild checks in full and repairs."""
    served.edit("조용")
    served.build()
    assert served.builds.idle() == ""
    served.edit("조용 다음")
    result = served.build()
    assert "output folder watched since the last update: 0 reported paths" in result.cache_note
    _edit_in_place(_page(served.site))
    said = served.builds.idle()
    assert said.startswith(
        "output folder not as recorded (ko/blog/post-07/index.html was changed); "
        "output folder not watched (it was not as recorded when the watch began)"
    ), said
    served.edit("손")
    result = served.build()
    assert "output folder checked in full: it was not as recorded" in result.cache_note
    assert len(checked_apart) == 1
    assert tree_snapshot(served.site) == _clean(served.root, tmp_path)
    assert served.arm()


def test_lost_reports_fall_back_to_the_full_check(
    served: Served, tmp_path: Path, checked_apart: list[str]
) -> None:
    """More reports than the kernel queues (here: times set again and again on two files of
    the spare copy that the check does not compare): some are lost, so the watch cannot vouch
    for anything, says so and ends; the update checks in full."""
    try:
        limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    except OSError:
        pytest.skip("no inotify limits to overflow")
    if limit > 200_000:
        pytest.skip("the kernel queues too many reports to overflow in a test")
    prev = served.site.parent / ".site.prev"
    record = served.kept.records[served.site.absolute()]
    assert record is not None and record.spare is not None
    live = record.files
    # the spare copy's own files (not the published ones: the last update replaced them)
    own = sorted(
        rel
        for rel, ident in record.spare.files.items()
        if rel not in live or ident[24:32] != live[rel][24:32]
    )[:2]
    assert len(own) == 2, own
    for i in range(limit // 2 + 10):
        os.utime(prev / own[i % 2], ns=(i, i))
    served.edit("넘침")
    result = served.build()
    assert "output folder checked in full: reports were lost" in result.cache_note
    assert len(checked_apart) == 1
    assert tree_snapshot(served.site) == _clean(served.root, tmp_path)


def test_a_file_system_that_may_not_report_every_change_is_never_watched(
    served: Served, tmp_path: Path, checked_apart: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On NFS, SMB, FUSE (…) a change made on another machine is not reported: the watch is not
    armed (and says why), every update checks in full."""
    looked: list[str] = []
    monkeypatch.setattr(tree_watch, "file_system", lambda path: looked.append(path) or "nfs4")
    served.watch.close()
    _edit_in_place(_page(served.site, 8))
    served.edit("먼저")
    served.build()  # (checked in full: the watch ended)
    said = served.builds.idle()
    assert "file system (nfs4) that may not report changes made elsewhere" in said, said
    assert served.builds.idle() == ""  # (said once; not tried again at every quiet moment)
    assert len(looked) == 1
    _edit_in_place(_page(served.site))
    served.edit("원격")
    result = served.build()
    assert len(checked_apart) == 2
    assert "output folder checked in full: " in result.cache_note
    assert tree_snapshot(served.site) == _clean(served.root, tmp_path)
    assert served.builds.idle() == "" and len(looked) == 1  # (nor after another rebuild)


def test_a_watch_is_placed_once_per_rebuild_at_most(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A watch that could not be placed for the trees as they are (they were not as recorded)
    is tried again after the next rebuild, not at every quiet moment."""
    placed: list[int] = []
    real = TreeWatch.arm

    def arm(self: TreeWatch, tables: Any) -> bool:
        placed.append(1)
        return real(self, tables)

    monkeypatch.setattr(TreeWatch, "arm", arm)
    _edit_in_place(_page(served.site))
    said = served.builds.idle()
    assert "(it was not as recorded when the watch began)" in said, said
    assert served.builds.idle() == "" and served.builds.idle() == ""
    assert len(placed) == 1
    served.edit("다시")
    served.build()
    assert served.builds.idle().startswith("output folder watched (")
    assert len(placed) == 2


MOUNTINFO = r"""22 1 252:1 / / rw,relatime shared:1 - ext4 /dev/vda rw
30 22 0:40 / /home/me/proj rw shared:2 - nfs4 server:/proj rw
31 30 0:41 / /home/me/proj/.bipub-cache rw shared:3 - tmpfs tmpfs rw
32 22 0:42 / /mnt/a\040b rw shared:4 - fuse.sshfs me@h:/ rw
"""


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/srv/site", "ext4"),
        ("/home/me/proj/site", "nfs4"),
        ("/home/me/proj", "nfs4"),
        ("/home/me/project", "ext4"),
        ("/home/me/proj/.bipub-cache/serve", "tmpfs"),
        ("/mnt/a b/site", "fuse.sshfs"),
    ],
)
def test_the_file_system_of_a_folder_is_that_of_its_innermost_mount(path: str, kind: str) -> None:
    assert file_system(path, MOUNTINFO) == kind


def test_a_folder_of_the_user_s_is_checked_in_full_and_said_once(tmp_path: Path) -> None:
    """`bipub serve --out DIR`: no watch; -v says so once."""
    builds = ServeBuilds(tmp_path, tmp_path / "out", pipeline.Kept(BuildCache()), build, None)
    assert builds.idle() == ServeBuilds.UNWATCHED
    assert "checks it in full" in ServeBuilds.UNWATCHED
    assert builds.idle() == ""
