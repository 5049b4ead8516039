"""An update finds the aggregates' parts of the entries whose key did not change by that key
(render/parts.py Parts.each, Parts.feed_mark): it reads the values of the changed entries
only and makes again only the feeds that show them. Byte equality with a clean build is
test_kept_parts.py's and test_incremental.py's job; these pin that the skip happens, and
only where it may."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from bipub.cache import BuildCache
from bipub.pair.model import Entry
from bipub.pipeline import Kept, build
from bipub.render import cards, feeds, parts
from bipub.render.page_plan import PageSpec
from tests.conftest import PROJECTS, feeds_made, replace_in, tree_snapshot

KINDS = {"html", "json", "feeds", "llms"}


@pytest.fixture(params=["build", "serve"])
def kept(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, Kept | None]:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    memory = Kept(BuildCache()) if request.param == "serve" else None
    build(root, only=KINDS, kept=memory)
    return root, memory


def _built_minimal(tmp_path: Path) -> tuple[Path, Kept, dict[Any, Any]]:
    """The minimal project built once into a resident state: its root, the state, and the
    parts that build kept."""
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    memory = Kept(BuildCache())
    build(root, only=KINDS, kept=memory)
    assert memory.state is not None
    return root, memory, memory.state.parts.now or memory.state.parts.earlier


def test_an_update_reads_the_values_of_the_changed_entry_only(
    kept: tuple[Path, Kept | None], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root, memory = kept
    read: list[str] = []
    real = parts.version_key

    def version_key(entry: Entry, lang: str) -> tuple[object, ...]:
        read.append(entry.key)
        return real(entry, lang)

    monkeypatch.setattr(parts, "version_key", version_key)
    replace_in(root, "content/ko/posts/alpha.md", "title: 알파 글", "title: 고친 알파")
    build(root, only=KINDS, kept=memory)
    assert set(read) == {"alpha"}, read
    build(root, tmp_path / "clean", use_cache=False, only=KINDS)
    assert tree_snapshot(root / "site") == tree_snapshot(tmp_path / "clean")


def test_an_update_makes_again_only_the_feeds_that_show_a_changed_post(
    kept: tuple[Path, Kept | None], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root, memory = kept
    made = feeds_made(monkeypatch)
    build(root, only=KINDS, kept=memory)  # nothing changed: every feed kept
    assert made == []
    replace_in(root, "content/ko/posts/beta.md", "title: 베타 글", "title: 고친 베타")
    build(root, only=KINDS, kept=memory)
    shown = {
        path
        for path in made
        if "/blog/beta/" in (root / "site" / path.lstrip("/")).read_text(encoding="utf-8")
    }
    assert made and set(made) == shown, made  # each feed made shows beta
    every = [p for p in tree_snapshot(root / "site") if p.endswith("feed.xml")]
    assert len(made) < len(every)
    build(root, tmp_path / "clean", use_cache=False, only=KINDS)
    assert tree_snapshot(root / "site") == tree_snapshot(tmp_path / "clean")


LATER = {"json", "feeds", "llms"}  # (`bipub serve`'s second build: the outputs after the pages)


def test_the_outputs_after_the_pages_take_their_keys_only_from_the_same_files(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`bipub serve` builds the pages, then the other outputs: the second build takes the
    entries' keys the first worked out (BuildState.inputs) when it reads the same files, and
    finds the parts by their values when a file changed in between (-v says so)."""
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    memory = Kept(BuildCache())
    build(root, only={"html"}, kept=memory)
    build(root, only=LATER, kept=memory)
    replace_in(root, "content/ko/posts/alpha.md", "title: 알파 글", "title: 고친 알파")
    build(root, only={"html"}, kept=memory)
    read: list[str] = []
    real = parts.version_key

    def version_key(entry: Entry, lang: str) -> tuple[object, ...]:
        read.append(entry.key)
        return real(entry, lang)

    monkeypatch.setattr(parts, "version_key", version_key)
    note = build(root, only=LATER, kept=memory).cache_note
    assert set(read) == {"alpha"}, read  # the same files: the pages' build's keys
    assert "found by their entry's key" in note, note
    replace_in(root, "content/ko/posts/alpha.md", "title: 고친 알파", "title: 다시 고친 알파")
    build(root, only={"html"}, kept=memory)
    replace_in(root, "content/ko/posts/beta.md", "title: 베타 글", "title: 고친 베타")  # (between)
    read.clear()
    note = build(root, only=LATER, kept=memory).cache_note
    assert {"alpha", "beta"} <= set(read), read  # (by their values: every post's read)
    assert "no build of the pages from the same files" in note, note
    records = (root / "site/api/ko/posts.json").read_text(encoding="utf-8")
    assert "고친 베타" in records and "다시 고친 알파" in records
    build(root, only={"html"}, kept=memory)
    build(root, tmp_path / "clean", use_cache=False, only={"html", *LATER})
    clean = tree_snapshot(tmp_path / "clean")
    assert {p: d for p, d in tree_snapshot(root / "site").items() if p in clean} == clean


def test_an_update_looks_only_at_the_changed_posts_cards_and_says_their_warnings_again(
    kept: tuple[Path, Kept | None], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A card is kept by its entry's key (render/cards.py, Parts.kept): an update works out
    what the edited post's cards show and no other's; a kept card whose title the font
    cannot draw warns again, as a kept page repeats its body's warnings."""
    root, memory = kept
    replace_in(root, "content/ko/posts/beta.md", "title: 베타 글", "title: 베타 🚀")
    build(root, only={*KINDS, "cards"}, kept=memory)
    seen: list[str] = []
    real = cards._post_text

    def post_text(spec: PageSpec, *args: object) -> cards.CardText:
        seen.append(spec.path)
        return real(spec, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(cards, "_post_text", post_text)
    replace_in(root, "content/ko/posts/alpha.md", "title: 알파 글", "title: 고친 알파")
    result = build(root, only={*KINDS, "cards"}, kept=memory)
    assert seen and {path.split("/")[3] for path in seen} == {"alpha"}, seen
    warned = {w.file for w in result.warnings if w.code == "card-glyph"}
    assert warned == {"content/ko/posts/beta.md"}
    build(root, tmp_path / "clean", use_cache=False, only={*KINDS, "cards"})
    clean = tree_snapshot(tmp_path / "clean")
    assert tree_snapshot(root / "site") == clean


def test_an_update_makes_again_the_sitemap_urls_of_the_changed_entry_only(
    kept: tuple[Path, Kept | None], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A route whose pages are all one entry's is kept by that entry's key (Parts.routes):
    after an edit of alpha, no other post's route is made again (the listings' are)."""
    root, memory = kept
    made: list[tuple[str, ...]] = []
    real = feeds.route_part

    def route_part(route: tuple[str, ...], *args: object) -> feeds.SitemapPart:
        made.append(route)
        return real(route, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(feeds, "route_part", route_part)
    replace_in(root, "content/ko/posts/alpha.md", "title: 알파 글", "title: 고친 알파")
    build(root, only=KINDS, kept=memory)
    of_entries = {route for route in made if route[0] in ("post", "both")}
    assert of_entries and {route[1] for route in of_entries} == {"alpha"}, made
    build(root, tmp_path / "clean", use_cache=False, only=KINDS)
    assert tree_snapshot(root / "site") == tree_snapshot(tmp_path / "clean")


def test_the_sitemap_routes_are_kept_by_entry_and_a_wrong_kept_part_is_not_trusted(
    tmp_path: Path,
) -> None:
    """Parts.routes keeps each entry's routes' sitemap parts as one part, by its entry's key
    (one look-up per entry, not per route); a kept part whose routes are not its entry's
    routes now is made again, never taken, and the sitemap still equals a clean build's."""
    root, memory, kept = _built_minimal(tmp_path)
    by_entry = {
        mark: part
        for mark, part in kept.items()
        if isinstance(part, dict) and part and all(isinstance(r, tuple) for r in part)
    }
    routes = [r for part in by_entry.values() for r in part]
    assert {r[1] for r in routes if r[0] == "post"} >= {"alpha", "beta"}, routes
    assert len(routes) > len(by_entry)  # (a post's page and its side-by-side page: one part)
    # a part that names a route no entry has (and lacks its own): not trusted
    mark, part = next((m, p) for m, p in by_entry.items() if ("post", "alpha") in p)
    kept[mark] = {("post", "nowhere"): part[("post", "alpha")]}
    replace_in(root, "content/ko/posts/beta.md", "title: 베타 글", "title: 고친 베타")
    build(root, only=KINDS, kept=memory)
    build(root, tmp_path / "clean", use_cache=False, only=KINDS)
    assert tree_snapshot(root / "site") == tree_snapshot(tmp_path / "clean")
    assert memory.state is not None
    again = memory.state.parts.now or memory.state.parts.earlier
    assert again[mark] == part  # (made again from alpha's routes: kept right for the next)


def test_a_route_kept_in_another_entrys_part_is_not_taken(tmp_path: Path) -> None:
    """Each route found in a kept part must be a route of the entry whose key found it: beta's
    routes held in alpha's part (alpha's key unchanged) are not taken when beta changed (its
    lastmod here), and the sitemap equals a clean build's."""
    root, memory, kept = _built_minimal(tmp_path)
    by_entry = {m: p for m, p in kept.items() if isinstance(p, dict) and ("post", "beta") in p}
    [(beta_mark, beta_part)] = by_entry.items()
    [alpha_mark] = [m for m, p in kept.items() if isinstance(p, dict) and ("post", "alpha") in p]
    kept[alpha_mark] = beta_part  # (beta's routes, as they were, held by alpha's key)
    del kept[beta_mark]
    replace_in(
        root,
        "content/ko/posts/beta.md",
        "date: 2026-05-01",
        "date: 2026-05-01\nupdated: 2026-06-02",
    )
    build(root, only=KINDS, kept=memory)
    sitemap = (root / "site/sitemap.xml").read_text(encoding="utf-8")
    assert "2026-06-02" in sitemap
    build(root, tmp_path / "clean", use_cache=False, only=KINDS)
    assert tree_snapshot(root / "site") == tree_snapshot(tmp_path / "clean")


def test_the_changed_entrys_routes_are_kept_from_the_parts_sitemap_parts_made(
    kept: tuple[Path, Kept | None], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Parts.routes keeps the routes' parts of the entries whose key changed from what
    feeds.sitemap_parts made (its `fresh`: the parts of the routes not known, each made once),
    not by looking through every route of the sitemap: after an edit of alpha, `fresh` holds
    exactly the routes made, alpha's part is its routes' parts made, and the sitemap equals a
    clean build's."""
    root, memory = kept
    made: list[tuple[str, ...]] = []
    fresh_seen: list[dict[tuple[str, ...], feeds.SitemapPart]] = []
    real_part, real_parts = feeds.route_part, feeds.sitemap_parts

    def route_part(route: tuple[str, ...], *args: object) -> feeds.SitemapPart:
        made.append(route)
        return real_part(route, *args)  # type: ignore[arg-type]

    def sitemap_parts(*args: object, **kwargs: object) -> list[feeds.SitemapPart]:
        found = real_parts(*args, **kwargs)  # type: ignore[arg-type]
        fresh = args[4] if len(args) > 4 else kwargs.get("fresh")
        assert isinstance(fresh, dict)
        fresh_seen.append(fresh)
        return found

    monkeypatch.setattr(feeds, "route_part", route_part)
    monkeypatch.setattr(feeds, "sitemap_parts", sitemap_parts)
    replace_in(root, "content/ko/posts/alpha.md", "title: 알파 글", "title: 고친 알파")
    build(root, only=KINDS, kept=memory)
    [fresh] = fresh_seen
    assert set(fresh) == set(made) and ("post", "alpha") in fresh, made
    if memory is not None:
        assert memory.state is not None
        now = memory.state.parts.now or memory.state.parts.earlier
        [alpha] = [p for p in now.values() if isinstance(p, dict) and ("post", "alpha") in p]
        assert alpha == {route: fresh[route] for route in sorted(alpha)}
        assert all(alpha[route] is fresh[route] for route in alpha)
    monkeypatch.undo()
    build(root, tmp_path / "clean", use_cache=False, only=KINDS)
    assert tree_snapshot(root / "site") == tree_snapshot(tmp_path / "clean")
