"""Post cards' HTML kept from build to build (render/templates.py KeptCardHtml): a listing page
(blog, tag, series, home) is its chrome and the HTML of its cards, each rendered once by
partials/post_card.html and kept under its card key (what the card shows) and the site-wide
key (templates, catalogs, configuration). A card that changed is rendered again; a template
that overrides the card's or the list's changes every listing page; the output stays the
clean build's, byte for byte."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from bipub.cache import BuildCache
from bipub.pipeline import Kept, build
from bipub.render import card_html, page_views, templates, workers
from bipub.render.views import PostCard
from tests.conftest import PROJECTS, tree_snapshot

KINDS = {"html"}

NEW_POST = """---
title: 새 글 {n}
description: 새 글의 설명 {n}
date: 2026-03-0{n}
tags: [vllm, scheduler]
---

## 소개

본문 {n}.
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    return root


class Rendered:
    """The titles of the cards partials/post_card.html rendered, in every process (the render
    workers are forked: a file each appends to)."""

    def __init__(self, log: Path) -> None:
        self.log = log

    def __call__(self) -> list[str]:
        return self.log.read_text("utf-8").splitlines() if self.log.exists() else []

    def clear(self) -> None:
        self.log.unlink(missing_ok=True)


@pytest.fixture
def rendered(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Rendered]:
    seen = Rendered(tmp_path / "cards.log")
    real = templates.CardHtml._render

    def render(self: templates.CardHtml, card: object, level: int, number: int | None) -> object:
        with seen.log.open("a", encoding="utf-8") as f:
            f.write(getattr(card, "title", "?") + "\n")
        return real(self, card, level, number)

    monkeypatch.setattr(templates.CardHtml, "_render", render)
    yield seen


def _clean(project: Path, out: Path) -> dict[str, bytes]:
    build(project, out, use_cache=False, only=KINDS)
    return tree_snapshot(out)


def _assert_clean(project: Path, tmp_path: Path, name: str) -> None:
    got = tree_snapshot(project / "site")
    want = _clean(project, tmp_path / name)
    assert sorted(got) == sorted(want)
    assert [p for p in want if got[p] != want[p]] == []


def test_a_new_post_renders_its_own_card_only(
    project: Path, tmp_path: Path, rendered: Rendered
) -> None:
    """`bipub serve` after a new post: every listing page shifts (the post is the newest) and
    is rendered again, but the cards that did not change are not: only the new post's (in
    each language that lists it)."""
    kept = Kept(BuildCache())
    build(project, only=KINDS, kept=kept)
    assert rendered()  # the first build rendered every card
    rendered.clear()
    (project / "content/ko/posts/newest.md").write_text(NEW_POST.format(n=1), "utf-8")
    build(project, only=KINDS, kept=kept)
    assert rendered() and set(rendered()) == {"새 글 1"}
    _assert_clean(project, tmp_path, "clean")
    rendered.clear()
    (project / "content/ko/posts/newest.md").unlink()  # deleted again: nothing rendered
    build(project, only=KINDS, kept=kept)
    assert rendered() == []
    _assert_clean(project, tmp_path, "clean2")


def test_a_changed_card_is_never_kept(project: Path, tmp_path: Path, rendered: Rendered) -> None:
    """A post retitled: its card is rendered again (its card key changed), on every listing
    that shows it, and the kept HTML of its old card is never shown."""
    kept = Kept(BuildCache())
    build(project, only=KINDS, kept=kept)
    post = project / "content/ko/posts/alpha.md"
    text = post.read_text("utf-8")
    head, sep, rest = text.partition("\ntitle: ")
    old_title = rest.split("\n", 1)[0]
    rendered.clear()
    post.write_text(head + sep + "바뀐 제목" + rest[len(old_title) :], "utf-8")
    build(project, only=KINDS, kept=kept)
    assert "바뀐 제목" in rendered()
    blog = (project / "site/ko/blog/index.html").read_text("utf-8")
    assert "바뀐 제목" in blog
    _assert_clean(project, tmp_path, "clean")


@pytest.mark.parametrize("resident", [True, False], ids=["serve", "build"])
def test_a_card_template_override_changes_the_listings(
    project: Path, tmp_path: Path, resident: bool
) -> None:
    """A project's own partials/post_card.html (then partials/post_list.html) is what every
    listing page shows, from the first build on and when it is added or edited between two
    builds (the kept cards' HTML is the old template's: never shown again)."""
    kept = Kept(BuildCache()) if resident else None
    build(project, only=KINDS, kept=kept)
    partials = project / "templates" / "partials"
    partials.mkdir(parents=True)
    card = '<li class="mine">{{ card.title }} · {{ level }} · {{ number }}</li>\n'
    (partials / "post_card.html").write_text(card, "utf-8")
    build(project, only=KINDS, kept=kept)
    blog = (project / "site/ko/blog/index.html").read_text("utf-8")
    assert '<li class="mine">' in blog and "post-card" not in blog
    _assert_clean(project, tmp_path, "clean")
    (partials / "post_card.html").write_text(card.replace("mine", "yours"), "utf-8")
    build(project, only=KINDS, kept=kept)
    blog = (project / "site/ko/blog/index.html").read_text("utf-8")
    assert '<li class="yours">' in blog and '"mine"' not in blog
    _assert_clean(project, tmp_path, "clean2")
    # the theme's list with a loop of its own (its other macros as they are)
    theme = (templates.THEME_DIR / "templates/partials/post_list.html").read_text("utf-8")
    start = theme.index("{% macro post_list(")
    listing = theme[:start] + (
        "{% macro post_list(cards, level=2, numbered=false) %}"
        '<ol class="theirs">{% for c in cards %}<li>{{ c.title }}</li>{% endfor %}</ol>'
        "{% endmacro %}\n"
    )
    (partials / "post_list.html").write_text(listing, "utf-8")
    build(project, only=KINDS, kept=kept)
    blog = (project / "site/ko/blog/index.html").read_text("utf-8")
    assert '<ol class="theirs">' in blog and '"yours"' not in blog
    _assert_clean(project, tmp_path, "clean3")


@pytest.mark.parametrize("workers_", [1, 2])
def test_bipub_build_reads_the_cards_back(
    project: Path,
    tmp_path: Path,
    rendered: Rendered,
    monkeypatch: pytest.MonkeyPatch,
    workers_: int,
) -> None:
    """`bipub build` (no resident caller): the cards' HTML is read back from the build cache
    (.bipub-cache/card-html/), the cards render workers made too (forced here, a page a
    chunk, and every chunk but the first left to the worker): after a new post, only its
    card is rendered; deleted again, none."""
    monkeypatch.setenv("BIPUB_WORKERS", str(workers_))
    monkeypatch.setattr(workers, "MIN_PAGES_TO_RENDER_IN_WORKERS", 0)
    monkeypatch.setattr(workers, "CHUNK", 1)
    monkeypatch.setattr(Future, "cancel", lambda self: False)  # (the build's process takes none)
    build(project, only=KINDS)
    assert rendered() and list((project / ".bipub-cache" / card_html.FOLDER).glob("*.pickle"))
    rendered.clear()
    (project / "content/ko/posts/newest.md").write_text(NEW_POST.format(n=2), "utf-8")
    build(project, only=KINDS)
    assert rendered() and set(rendered()) == {"새 글 2"}
    _assert_clean(project, tmp_path, "clean")
    rendered.clear()
    (project / "content/ko/posts/newest.md").unlink()
    build(project, only=KINDS)
    assert rendered() == []
    _assert_clean(project, tmp_path, "clean2")


def test_a_damaged_file_of_cards_is_said_and_not_used(
    project: Path, tmp_path: Path, rendered: Rendered
) -> None:
    """Damaged files of cards (.bipub-cache/card-html/): their cards are rendered (the output
    is the clean build's), `-v` says why, and the build writes them again."""
    build(project, only=KINDS)
    for path in (project / ".bipub-cache" / card_html.FOLDER).glob("*.pickle"):
        data = bytearray(path.read_bytes())
        data[-5] ^= 0xFF
        path.write_bytes(bytes(data))
    (project / "content/ko/posts/newest.md").write_text(NEW_POST.format(n=3), "utf-8")
    rendered.clear()
    result = build(project, only=KINDS)
    assert "cards' HTML not read (card-html/" in result.cache_note
    assert ".pickle: damaged" in result.cache_note
    # every damaged file counted, not only the first said
    damaged = len(list((project / ".bipub-cache" / card_html.FOLDER).glob("*.pickle")))
    if damaged > 1:
        assert "more files): rendered" in result.cache_note, result.cache_note
    assert set(rendered()) > {"새 글 3"}  # the others rendered again too
    _assert_clean(project, tmp_path, "clean")
    rendered.clear()
    (project / "content/ko/posts/newest.md").unlink()
    result = build(project, only=KINDS)
    assert rendered() == [] and "cards' HTML" not in result.cache_note


def test_serve_starts_from_the_file_then_keeps_them_in_memory(
    project: Path, rendered: Rendered
) -> None:
    """`bipub serve` reads the cards `bipub build` left (the first time it needs a card it
    has not); the cards made by its builds after its first (the first that rendered: nothing
    changed before it) are kept in memory only: the files are not written again."""
    build(project, only=KINDS)
    folder = project / ".bipub-cache" / card_html.FOLDER
    rendered.clear()
    kept = Kept(BuildCache.load(project / ".bipub-cache"))
    build(project, only=KINDS, kept=kept)  # (nothing changed: nothing rendered)
    assert rendered() == []
    for n in (4, 5, 6):
        written = _files_of(folder)
        (project / f"content/ko/posts/new-{n}.md").write_text(NEW_POST.format(n=n), "utf-8")
        rendered.clear()
        build(project, only=KINDS, kept=kept)
        assert set(rendered()) == {f"새 글 {n}"}
    assert _files_of(folder) == written


def test_a_file_of_cards_that_cannot_be_saved_is_a_warning(
    project: Path, tmp_path: Path, rendered: Rendered
) -> None:
    """Files of cards that cannot be written (here a file in the place of their folder): the
    site is published and the build warns `cache-not-saved`, as for the other cache files,
    instead of a note only `-v` shows."""
    path = project / ".bipub-cache" / card_html.FOLDER
    path.parent.mkdir(parents=True)
    path.write_text("in the way", "utf-8")
    result = build(project, only=KINDS)
    assert [d.code for d in result.warnings if d.code == "cache-not-saved"] == ["cache-not-saved"]
    _assert_clean(project, tmp_path, "clean")


def _files_of(folder: Path) -> dict[str, tuple[int, int]]:
    """Each file of `folder` (its name) with its inode and modification time."""
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in folder.iterdir()}


def test_a_retitled_post_reads_and_writes_the_files_of_its_cards_only(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`bipub build` after a post's title edit: the files of cards it reads are those of the
    other cards of the pages it renders again (a few of each language's, heading level and
    part of the card keys: `card_html.SHARDS` parts), and the files it writes again are those
    of the cards it made (the post's new card on its listings and as an archive row); every
    other file is left as it is. The card-html.pickle of bipub before session 37 is removed."""
    build(project, only=KINDS)
    folder = project / ".bipub-cache" / card_html.FOLDER
    (project / ".bipub-cache" / card_html.OLD_FILE).write_bytes(b"old")
    before = _files_of(folder)
    read: list[str] = []
    real = card_html.KeptCardHtml._load

    def load(self: card_html.KeptCardHtml, path: Path) -> object:
        read.append(path.name)
        return real(self, path)

    monkeypatch.setattr(card_html.KeptCardHtml, "_load", load)
    post = project / "content/ko/posts/alpha.md"
    text = post.read_text("utf-8")
    post.write_text(text.replace("\ntitle: ", "\ntitle: (N) ", 1), "utf-8")
    build(project, only=KINDS)
    after = _files_of(folder)
    written = {name for name in after if after[name] != before.get(name)}
    # its card as a listing's and as an archive row, in the language of the edit only
    assert written and {name.split("-")[0] for name in written} == {"ko"}
    assert len(written) <= 3 and set(read) <= set(before) | written
    assert len(read) < len(before) and not any(name.startswith("en-") for name in read)
    assert not (project / ".bipub-cache" / card_html.OLD_FILE).exists()
    _assert_clean(project, tmp_path, "clean")


def _older_posts(project: Path, n: int) -> None:
    """`n` Korean posts older than the project's, tagged `옛`: on the blog's and the tag's
    last pages (posts_per_page: 2) and the archive only."""
    for i in range(n):
        (project / f"content/ko/posts/old-{i}.md").write_text(
            f"---\ntitle: 옛 글 {i}\ndescription: 옛 설명 {i}\ndate: 2024-0{i + 1}-01\n"
            f"tags: [옛]\n---\n\n본문 {i}.\n",
            "utf-8",
        )


NEWEST = "---\ntitle: 맨 새 글\ndate: 2026-07-01\ntags: [옛, vllm]\n---\n\n새 본문.\n"


def test_a_new_post_makes_no_card_for_the_listings_other_posts(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`bipub build` (a new process) after a new post, then after its deletion: every blog
    and tag page that lists it shifts and is rendered again, but the cards of the posts they
    show that did not change are not made (`PageViews._make_card`: render/card_html.py
    `KeptCard`, their HTML kept from the last build), in no process (render workers are
    forked: a file each appends to); the pages are the clean build's."""
    _older_posts(project, 6)
    build(project, only=KINDS)
    made = tmp_path / "made.log"
    real = page_views.PageViews._make_card

    def make_card(self: page_views.PageViews, entry: Any, lang: str) -> PostCard:
        card = real(self, entry, lang)
        with made.open("a", encoding="utf-8") as f:
            f.write(f"{lang} {card.title}\n")
        return card

    monkeypatch.setattr(page_views.PageViews, "_make_card", make_card)
    newest = project / "content/ko/posts/newest.md"
    for step in ("new", "deleted"):
        made.unlink(missing_ok=True)
        if step == "new":
            newest.write_text(NEWEST, "utf-8")
        else:
            newest.unlink()
        build(project, only=KINDS)
        cards = made.read_text("utf-8").splitlines() if made.exists() else []
        # (the home page's latest posts read their cards' fields: their cards made)
        assert not [c for c in cards if c[3:] in {f"옛 글 {i}" for i in range(3)}], (step, cards)
        blog = (project / "site/ko/blog/page/4/index.html").read_text("utf-8")
        assert ("옛 글 2" in blog) == (step == "new") and "옛 설명 1" in blog
        _assert_clean(project, tmp_path, f"clean-{step}")


BLOG_OWN = """{% extends "base.html" %}
{% from "partials/post_list.html" import post_list %}
{% block content %}
<p class="own">{{ posts|length }} {{ posts[0].title }} {{ posts[-1].href }}</p>
{% for card in posts %}<p class="own">{{ card.key }} {{ card.date }} {{ card.href }}
{{ card.description }} {% for tag in card.tags %}{{ tag.name }} {% endfor %}{{ card.state }}
{{ card == posts[0] }}</p>
{% endfor %}
{{ post_list(posts, level=2) }}{{ post_list(posts, level=3, numbered=true) }}
{% endblock %}
"""


@pytest.mark.parametrize("resident", [True, False], ids=["serve", "build"])
def test_a_projects_own_listings_read_any_card_field(
    project: Path, tmp_path: Path, resident: bool
) -> None:
    """A project's own blog.html and tag.html may read any field of their cards: a card not
    made (a KeptCard, its HTML kept) shows it as the card would (made when a field it does not
    keep is read), after a new post, a title edit and a deletion, byte for byte as a clean
    build does; and the cards at a level the theme does not show them are rendered."""
    kept = Kept(BuildCache()) if resident else None
    _older_posts(project, 3)
    templates_ = project / "templates"
    templates_.mkdir()
    (templates_ / "blog.html").write_text(BLOG_OWN, "utf-8")
    (templates_ / "tag.html").write_text(BLOG_OWN.replace("{{ posts|length }}", "#{{ tag.name }}"))
    build(project, only=KINDS, kept=kept)
    newest = project / "content/ko/posts/newest.md"
    newest.write_text(NEWEST, "utf-8")
    build(project, only=KINDS, kept=kept)
    page = (project / "site/ko/blog/page/3/index.html").read_text("utf-8")
    assert '<p class="own">2 옛 글 1 /ko/blog/old-0/</p>' in page and "옛 설명 1 옛 source" in page
    _assert_clean(project, tmp_path, "clean")
    old = project / "content/ko/posts/old-2.md"
    old.write_text(old.read_text("utf-8").replace("title: 옛 글 2", "title: 새 제목"), "utf-8")
    build(project, only=KINDS, kept=kept)
    _assert_clean(project, tmp_path, "clean2")
    newest.unlink()
    build(project, only=KINDS, kept=kept)
    page = (project / "site/ko/tags/옛/page/2/index.html").read_text("utf-8")
    assert '<p class="own">#옛 옛 글 0 /ko/blog/old-0/</p>' in page
    _assert_clean(project, tmp_path, "clean3")
