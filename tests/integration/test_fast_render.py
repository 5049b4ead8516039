"""Fast render (`bipub serve`, render/first_pages.py): an update publishes first the pages of the
entries edited, added or removed and their blog's first page (and the pages open in a browser),
keeping the other changed pages' published files for a moment; the next build, whichever it is
(the second step, one after another edit, one after a kill), renders them: the site then equals
a clean build."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import Any

import pytest

from bipub.cache import BuildCache
from bipub.pipeline import Kept, build
from bipub.render import urls
from bipub.render.first_pages import FirstPages, page_file
from bipub.result import BuildResult
from tests.conftest import PROJECTS, tree_snapshot
from tests.integration.test_incremental import KINDS, Killed, _killing

NEW = """---
title: 감마 글
description: 새 글
date: 2026-08-01
tags: [kv-cache]
---

## 소개

새 글입니다.
"""


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    yield root


def _clean(project: Path, tmp: Path) -> dict[str, bytes]:
    out = tmp / "clean"
    shutil.rmtree(out, ignore_errors=True)
    build(project, out, use_cache=False, only=KINDS)
    return tree_snapshot(out)


def _html(files: dict[str, bytes]) -> dict[str, bytes]:
    return {p: b for p, b in files.items() if p.endswith(".html")}


def test_page_file_maps_a_browser_path_to_its_output_file() -> None:
    assert page_file("/ko/blog/") == "ko/blog/index.html"
    assert page_file("/") == "index.html"
    assert page_file("/ko/tags/%EC%BA%90%EC%8B%9C/") == "ko/tags/캐시/index.html"
    assert page_file("/ko/%ff/") is None
    assert page_file("ko/blog/") is None


@pytest.mark.parametrize("resident", [True, False], ids=["resident", "restored"])
@pytest.mark.parametrize("then", ["second", "edit", "kill"])
def test_deferred_pages_are_rendered_by_whatever_build_comes_next(
    project: Path, tmp_path: Path, resident: bool, then: str
) -> None:
    """A new post: its pages and its blog's first page go first, the other pages it changes
    (its neighbour's, its tag's page, the tag cloud) keep their files; the next build (the second step,
    one after another edit, or one killed and the one after) leaves the site a clean build
    makes."""
    kept = Kept(BuildCache()) if resident else None
    build(project, only={"html"}, kept=kept)
    before = tree_snapshot(project / "site")
    (project / "content/ko/posts/gamma.md").write_text(NEW, encoding="utf-8")
    first = FirstPages(few=0)
    build(project, only={"html"}, kept=kept, first=first)
    site = tree_snapshot(project / "site")
    assert "ko/blog/gamma/index.html" in site  # the new post is served at once
    assert first.deferred, "no page deferred: the test shows nothing"
    assert "ko/tags/index.html" in first.deferred
    assert "ko/tags/kv-cache/index.html" in first.deferred  # (it shows it after the next)
    assert "ko/blog/index.html" not in first.deferred
    assert "감마 글".encode() in site["ko/blog/index.html"]
    for path in first.deferred:  # kept as they were for now
        assert site[path] == before[path], path
    assert first.first > 0
    if then == "edit":  # another save before the second step
        alpha = project / "content/ko/posts/alpha.md"
        alpha.write_text(alpha.read_text(encoding="utf-8") + "\n더 씁니다.\n", encoding="utf-8")
    elif then == "kill":  # the second step killed at its first write, then a build again
        with ExitStack() as stack:
            _killing(stack, 1)
            with suppress(Killed):
                build(project, only={"html"}, kept=kept)
    build(project, only={"html"}, kept=kept)
    assert _html(tree_snapshot(project / "site")) == _html(_clean(project, tmp_path))


def test_the_pages_open_in_a_browser_go_first(project: Path) -> None:
    kept = Kept(BuildCache())
    build(project, only={"html"}, kept=kept)
    (project / "content/ko/posts/gamma.md").write_text(NEW, encoding="utf-8")
    first = FirstPages({"ko/blog/index.html"}, few=0)
    build(project, only={"html"}, kept=kept, first=first)
    assert first.deferred and "ko/blog/index.html" not in first.deferred
    assert "감마 글".encode() in (project / "site/ko/blog/index.html").read_bytes()


def test_an_update_of_few_pages_is_published_in_one_step(project: Path) -> None:
    kept = Kept(BuildCache())
    build(project, only={"html"}, kept=kept)
    (project / "content/ko/posts/gamma.md").write_text(NEW, encoding="utf-8")
    first = FirstPages()  # (FEW pages: the sample site's update is smaller)
    build(project, only={"html"}, kept=kept, first=first)
    assert not first.deferred and first.first > 0


def test_an_up_to_date_check_never_takes_a_deferred_publish_for_current(project: Path) -> None:
    """The second step reads the same input files as the first: the up-to-date record of the
    first must not let it stop there."""
    kept = Kept(BuildCache())
    build(project, only={"html"}, kept=kept)
    (project / "content/ko/posts/gamma.md").write_text(NEW, encoding="utf-8")
    first = FirstPages(few=0)
    build(project, only={"html"}, kept=kept, first=first)
    assert first.deferred
    second = build(project, only={"html"}, kept=kept)
    assert not second.up_to_date
    total = sum(second.pages.values())
    assert 0 < total - second.reused <= len(first.deferred)  # (those that changed)


def test_an_open_page_names_itself_and_reloads_only_for_its_own_publish(tmp_path: Path) -> None:
    """The live-reload stream of an open page tells the server which page it shows (a rebuild
    publishes it first); a publish of other pages alone (fast render's second step) does not
    reload it, one of its page or of every page does."""
    import http.client
    import threading
    import time
    from http.server import ThreadingHTTPServer

    from bipub.serve import RELOAD_SCRIPT, ServeStatus, make_handler

    assert b"location.pathname" in RELOAD_SCRIPT
    site = tmp_path / "site"
    (site / "ko").mkdir(parents=True)
    state = ServeStatus()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(site, state))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", httpd.server_address[1], timeout=30)
        conn.request("GET", "/__bipub/events?page=%2Fko%2F%25EC%25BA%2590%2F")
        events = conn.getresponse()
        for _ in range(3000):  # (a hang guard: at most ~30 s, no clock read)
            if state.open.files():
                break
            time.sleep(0.01)
        assert state.open.files() == {"ko/캐/index.html"}
        state.done([], only=frozenset({"ko/blog/index.html"}))
        assert events.fp.readline() == b": keep-alive\n"
        events.fp.readline()
        state.done([], only=frozenset({"ko/캐/index.html"}))
        assert events.fp.readline() == b"event: reload\n"
        events.fp.readline(), events.fp.readline()
        state.done([])
        assert events.fp.readline() == b"event: reload\n"
        events.close()
        conn.close()
        for _ in range(600):  # (a hang guard, as above)
            if not state.open.files():
                break
            state.done([], only=frozenset())  # (the stream ends at its next write)
            time.sleep(0.05)
        assert state.open.files() == frozenset()
    finally:
        state.close()
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize("edit", ["new", "draft"])
def test_the_second_step_renders_only_the_deferred_pages_that_changed(
    project: Path, edit: str
) -> None:
    """A deferred page was not even fingerprinted: some did not change. The build cache keeps
    each one's file with that file's fingerprint and identity, so the second step keeps those
    and renders the others only."""
    kept = Kept(BuildCache())
    for n in range(6):  # (more posts: listing pages that an edit does not change)
        text = NEW.replace("감마 글", f"글 {n}").replace("2026-08-01", f"2025-0{n + 1}-01")
        (project / f"content/ko/posts/more-{n}.md").write_text(text, encoding="utf-8")
    build(project, only={"html"}, kept=kept)
    if edit == "new":
        (project / "content/ko/posts/gamma.md").write_text(NEW, encoding="utf-8")
    else:
        post = project / "content/ko/posts/more-3.md"
        post.write_text(post.read_text(encoding="utf-8").replace("---\n\n", "draft: true\n---\n\n"))
    first = FirstPages(few=0)
    build(project, only={"html"}, kept=kept, first=first)
    before = tree_snapshot(project / "site")
    second = build(project, only={"html"}, kept=kept)
    after = tree_snapshot(project / "site")
    changed = [p for p in first.deferred if after.get(p) != before[p]]
    assert changed, "no deferred page changed: the test shows nothing"
    assert len(changed) < len(first.deferred), "every deferred page changed: it shows nothing"
    assert sum(second.pages.values()) - second.reused == len(changed)


def test_a_deleted_post_leaves_its_blogs_first_page_at_once(project: Path) -> None:
    """A deleted post: the first page of its blog, which the last build's plan says listed
    it, is published first; its tag's page, which showed it, and the blog's later pages,
    which only shift, wait for the next build, which makes them as a clean build does."""
    kept = Kept(BuildCache())
    for n in range(6):  # a tag on every other post
        text = NEW.replace("감마 글", f"글 {n}").replace("2026-08-01", f"2025-0{n + 1}-01")
        text = text.replace("[kv-cache]", "[shared]" if n % 2 == 0 else "[other]")
        (project / f"content/ko/posts/more-{n}.md").write_text(text, encoding="utf-8")
    build(project, only={"html"}, kept=kept)
    tag = urls.output_file(urls.tag("ko", "shared", 1))
    assert b'href="/ko/blog/more-2/"' in (project / "site" / tag).read_bytes()
    (project / "content/ko/posts/more-2.md").unlink()
    first = FirstPages(few=0)
    build(project, only={"html"}, kept=kept, first=first)
    assert first.deferred, "no page deferred: the test shows nothing"
    assert "ko/blog/index.html" not in first.deferred
    assert tag in first.deferred
    build(project, only={"html"}, kept=kept)
    assert b'href="/ko/blog/more-2/"' not in (project / "site" / tag).read_bytes()


def test_a_new_post_publishes_first_its_own_pages_and_its_blogs_first_page(
    project: Path,
) -> None:
    """Of the pages a new post changes, the first publish has its own pages in every
    language (post and side-by-side pages) and its blog's first page; its neighbour's page
    (whose next link points at it) and its tag's pages wait for the next build."""
    kept = Kept(BuildCache())
    build(project, only={"html"}, kept=kept)
    neighbour = urls.output_file(urls.post("ko", "beta"))  # (the newest post before it)
    (project / "content/ko/posts/gamma.md").write_text(NEW, encoding="utf-8")
    first = FirstPages(few=0)
    build(project, only={"html"}, kept=kept, first=first)
    own = [p for p in tree_snapshot(project / "site") if "/gamma/" in p]
    assert own and len({p.split("/")[0] for p in own}) > 1  # (every language's)
    assert not first.deferred.keys() & set(own)
    assert "ko/blog/index.html" not in first.deferred
    assert neighbour in first.deferred, sorted(first.deferred)
    assert urls.output_file(urls.tag("ko", "kv-cache", 1)) in first.deferred
    assert b'href="/ko/blog/gamma/"' not in (project / "site" / neighbour).read_bytes()
    build(project, only={"html"}, kept=kept)
    assert b'href="/ko/blog/gamma/"' in (project / "site" / neighbour).read_bytes()


def test_the_first_page_of_a_listing_that_shows_a_new_post_goes_first(project: Path) -> None:
    """A new post far down the blog adds a page to the listing: its first page (which counts
    the pages) is published first; the later pages, which only shift, and the one that shows
    the post wait for the next build."""
    kept = Kept(BuildCache())
    for n in range(6):
        text = NEW.replace("감마 글", f"글 {n}").replace("2026-08-01", f"2025-0{n + 1}-01")
        (project / f"content/ko/posts/more-{n}.md").write_text(text, encoding="utf-8")
    build(project, only={"html"}, kept=kept)
    old = NEW.replace("2026-08-01", "2025-01-15")  # (between more-1 and more-0: the last page)
    (project / "content/ko/posts/gamma.md").write_text(old, encoding="utf-8")
    first = FirstPages(few=0)
    build(project, only={"html"}, kept=kept, first=first)
    assert first.deferred, "no page deferred: the test shows nothing"
    assert urls.output_file(urls.blog("ko", 3)) in first.deferred  # (only shifted)
    assert "ko/blog/index.html" not in first.deferred
    build(project, only={"html"}, kept=kept)


def test_open_pages_are_told_right_after_the_swap_before_the_build_returns(
    project: Path,
) -> None:
    """`bipub serve` tells open pages to reload from the build's `on_publish`, called once the
    new site is swapped in (the new post's page is served), before the saves that follow and
    before the build returns; a build that publishes nothing never calls it."""
    from bipub.serve import ServeBuilds, ServeStatus

    state = ServeStatus()
    seen: list[tuple[str, int, bool]] = []
    page = project / "site/ko/blog/gamma/index.html"

    def told() -> None:
        seen.append(("swapped", state.generation, page.is_file()))
        state.done([])

    def building(*args: Any, **kw: Any) -> BuildResult:
        result = build(*args, **kw)
        seen.append(("returned", state.generation, page.is_file()))
        return result

    builds = ServeBuilds(project, project / "site", Kept(BuildCache()), building, None)
    builds({"html"}, None)
    seen.clear()
    (project / "content/ko/posts/gamma.md").write_text(NEW, encoding="utf-8")
    builds({"html"}, None, first=FirstPages(few=0), on_publish=told)
    assert seen == [("swapped", 0, True), ("returned", 1, True)]
    seen.clear()
    builds({"html"}, None, on_publish=told)  # (the deferred pages: a publish)
    builds({"html"}, None, on_publish=told)  # (up to date: nothing published)
    assert seen == [("swapped", 1, True), ("returned", 2, True), ("returned", 2, True)]


def test_every_page_of_an_edited_post_goes_first_when_one_of_them_is_open(project: Path) -> None:
    """An edited post's pages in every language go first, also when one of them is open (the
    open page's edited document does not hide the other languages' pages, whose documents did
    not change)."""
    kept = Kept(BuildCache())
    build(project, only={"html"}, kept=kept)
    alpha = project / "content/ko/posts/alpha.md"
    alpha.write_text(alpha.read_text(encoding="utf-8") + "\n더 씁니다.\n", encoding="utf-8")
    first = FirstPages({"ko/blog/alpha/index.html"}, few=0)
    build(project, only={"html"}, kept=kept, first=first)
    assert not [p for p in first.deferred if "/alpha/" in p], sorted(first.deferred)


class _Ui:
    def __init__(self) -> None:
        self.said: list[str] = []

    def debug(self, text: str) -> None:
        self.said.append(text)

    info = debug

    def diagnostics(self, items: Any) -> None:
        self.said.extend(str(d) for d in items)


def test_a_save_waiting_is_built_before_what_follows_the_first_publish(
    project: Path, tmp_path: Path
) -> None:
    """`bipub serve` (serve.Rebuilds): once an update's first pages are published, a save the
    watcher reported meanwhile is built before the deferred pages and the other outputs
    (said with -v): the site is then whole, with the pages left as they were; the update of
    that save renders them, and the site equals a clean build."""
    from bipub.serve import Rebuilds, ServeBuilds, ServeStatus

    ui, saves = _Ui(), [True]
    builds = ServeBuilds(project, project / "site", Kept(BuildCache()), build, None)
    later = KINDS - {"html"}
    rebuild = Rebuilds(ui, builds, ServeStatus(), later, waiting=lambda: bool(saves), few=0)
    assert rebuild(None, fast=False)  # (the server's first build: every output)
    before = tree_snapshot(project / "site")
    (project / "content/ko/posts/gamma.md").write_text(NEW, encoding="utf-8")
    assert rebuild(None)
    site = tree_snapshot(project / "site")
    assert "ko/blog/gamma/index.html" in site  # (its first pages)
    assert site["ko/tags/index.html"] == before["ko/tags/index.html"]  # (deferred: left)
    assert all(p.endswith(".html") for p in site.keys() - before.keys())  # (no JSON yet)
    assert {p: b for p, b in site.items() if p.endswith(".json")} == {
        p: b for p, b in before.items() if p.endswith(".json")
    }
    tail = " pages that follow left to its update, built now"
    assert any(s.startswith("a save is waiting: the ") and s.endswith(tail) for s in ui.said)
    ui.said.clear()
    alpha = project / "content/ko/posts/alpha.md"  # (the save: an edit of few pages)
    alpha.write_text(alpha.read_text(encoding="utf-8") + "\n더 씁니다.\n", encoding="utf-8")
    assert rebuild(None, fast=False)
    others = "feeds, JSON, llms.txt, search and PDFs"
    assert f"a save is waiting: {others} left to its update, built now" in ui.said, ui.said
    assert tree_snapshot(project / "site") != _clean(project, tmp_path)  # (no JSON yet)
    saves.clear()
    alpha.write_text(alpha.read_text(encoding="utf-8") + "\n또 씁니다.\n", encoding="utf-8")
    assert rebuild(None)
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)


def test_the_readers_threads_are_favoured_from_the_first_publish_to_the_update_s_end(
    project: Path,
) -> None:
    """serve.Rebuilds: after an update's first publish, the interpreter hands the GIL to the
    server's threads (the pages that reload) every READERS_SWITCH_S until the update ends;
    before the publish and after the update, as it was."""
    import sys

    from bipub.serve import READERS_SWITCH_S, Rebuilds, ServeBuilds, ServeStatus

    seen: list[tuple[str, float]] = []
    builds = ServeBuilds(project, project / "site", Kept(BuildCache()), build, None)

    def built(only: set[str], changed: Any, **kw: Any) -> Any:
        seen.append(("before", sys.getswitchinterval()))
        result = builds(only, changed, **kw)
        seen.append(("after", sys.getswitchinterval()))
        return result

    rebuild = Rebuilds(_Ui(), built, ServeStatus(), KINDS - {"html"})  # type: ignore[arg-type]
    usual = sys.getswitchinterval()
    assert rebuild(None, fast=False)
    assert seen[0] == ("before", usual)
    assert seen[1] == ("after", READERS_SWITCH_S)  # (published: the readers' threads first)
    assert all(interval == READERS_SWITCH_S for _, interval in seen[2:])  # (what follows)
    assert sys.getswitchinterval() == usual  # (the update ended: as it was)
