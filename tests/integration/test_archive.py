"""The archive (render/archive.py): every post a language lists, newest first, under a heading
for each year, at /<lang>/blog/archive/; linked from the blog's pages; off with bipub.yaml
`outputs.archive: false`; rendered again when a post's title, date or set changes, kept when only
a body changed."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import jinja2
import pytest

from bipub.pipeline import build
from bipub.render import card_html, page_views, templates
from bipub.render.views import PostCard
from tests.conftest import CliResult, tree_snapshot

ARCHIVE = "blog/archive/index.html"


def _post(root: Path, lang: str, name: str, front: str, body: str = "본문.") -> None:
    path = root / "content" / lang / "posts" / f"{name}.md"
    path.write_text(f"---\n{front}\n---\n\n{body}\n", encoding="utf-8")


def _years(html: str) -> list[str]:
    return re.findall(r'<h2 class="archive-year__title">([^<]+?) <span', html)


def _titles(html: str) -> list[str]:
    return re.findall(r'class="archive-item__title"[^>]*>([^<]+)</a>', html)


def test_every_post_by_year_newest_first_in_each_language(
    make_project: Callable[[str], Path], cli: Callable[..., CliResult]
) -> None:
    root = make_project("minimal")
    _post(root, "ko", "gamma", "title: 감마 글\ndate: 2025-12-31\ntags: [vllm]")
    # scheduled: dated after the tests' "now" (2027-01-01, tests/conftest.py), listed nowhere
    _post(root, "ko", "later", "title: 나중 글\ndate: 2027-06-01\ntags: [vllm]")
    result = cli("-C", str(root), "-q", "build", "--only", "html")
    assert result.exit_code == 0, result.stderr
    site = root / "site"
    ko = (site / "ko" / ARCHIVE).read_text(encoding="utf-8")
    assert _years(ko) == ["2026년", "2025년"]
    assert _titles(ko) == ["베타 글", "알파 글", "감마 글"]
    assert "글 3개" in ko
    en = (site / "en" / ARCHIVE).read_text(encoding="utf-8")
    assert _years(en) == ["2026", "2025"]
    # the English archive lists the posts English lists: beta and gamma in their Korean text
    # (not translated yet: marked so, and in their own language)
    assert len(_titles(en)) == 3
    beta = re.search(r'<li class="archive-item archive-item--missing">.*?</li>', en, re.S)
    assert beta is not None
    assert 'hreflang="ko" lang="ko">베타 글</a>' in beta.group(0)
    assert "Not translated yet" in beta.group(0)
    assert "나중 글" not in ko + en
    # the blog links to it
    blog = (site / "ko" / "blog" / "index.html").read_text(encoding="utf-8")
    assert 'href="/ko/blog/archive/"' in blog
    assert "연도별 전체 글" in blog


def test_off_in_bipub_yaml(
    make_project: Callable[[str], Path], cli: Callable[..., CliResult]
) -> None:
    root = make_project("minimal")
    config = root / "bipub.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "outputs:\n  archive: false\n", encoding="utf-8"
    )
    result = cli("-C", str(root), "-q", "build", "--only", "html")
    assert result.exit_code == 0, result.stderr
    site = root / "site"
    assert not (site / "ko" / ARCHIVE).exists()
    assert not (site / "en" / ARCHIVE).exists()
    assert "/blog/archive/" not in (site / "ko" / "blog" / "index.html").read_text(encoding="utf-8")


def test_a_slug_archive_is_reserved(
    make_project: Callable[[str], Path], cli: Callable[..., CliResult]
) -> None:
    root = make_project("minimal")
    _post(root, "ko", "archive", "title: 보관\ndate: 2026-01-02")
    result = cli("-C", str(root), "-q", "build", "--only", "html")
    assert result.exit_code != 0
    assert "content/ko/posts/archive.md" in result.stderr
    assert "slug 'archive' is reserved" in result.stderr


def test_rendered_again_for_a_title_kept_for_a_body(make_project: Callable[[str], Path]) -> None:
    root = make_project("minimal")
    first = build(root)
    assert first.state is not None
    page = "ko/blog/archive/index.html"
    before = first.state.fingerprints[page]
    alpha = root / "content" / "ko" / "posts" / "alpha.md"
    alpha.write_text(alpha.read_text(encoding="utf-8") + "\n덧붙인 문단.\n", encoding="utf-8")
    body = build(root)
    assert body.state is not None
    assert body.state.fingerprints[page] == before  # (a body edit: the archive is kept)
    alpha.write_text(
        alpha.read_text(encoding="utf-8").replace("title: 알파 글", "title: 새 알파"),
        encoding="utf-8",
    )
    title = build(root)
    assert title.state is not None
    assert title.state.fingerprints[page] != before
    html = (root / "site" / page).read_text(encoding="utf-8")
    assert "새 알파" in html
    assert "알파 글" not in html


def test_turned_off_after_a_build_is_said(
    make_project: Callable[[str], Path], cli: Callable[..., CliResult]
) -> None:
    """The archive a build published and the next one does not (bipub.yaml turned it off) is a
    `url-removed` warning in bipub.yaml, as every page a build takes away is."""
    root = make_project("minimal")
    assert cli("-C", str(root), "-q", "build", "--only", "html").exit_code == 0
    config = root / "bipub.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "outputs:\n  archive: false\n", encoding="utf-8"
    )
    result = cli("-C", str(root), "build", "--only", "html")
    assert result.exit_code == 0, result.stderr
    for lang in ("ko", "en"):
        assert (
            f"bipub.yaml: warning: /{lang}/blog/archive/ (published by the last build) is not any "
            "more: outputs.archive is false; links to it break [url-removed]"
        ) in result.stderr


def _older_posts(root: Path, n: int) -> None:
    """`n` posts without tags, older than the project's: on the blog's last pages and the
    archive only (posts_per_page: 2)."""
    for i in range(n):
        _post(
            root,
            "ko",
            f"old-{i}",
            f"title: 옛 글 {i}\ndescription: 옛 설명 {i}\ndate: 2024-0{i + 1}-01",
        )


def _retitle(root: Path) -> None:
    beta = root / "content" / "ko" / "posts" / "beta.md"
    beta.write_text(
        beta.read_text(encoding="utf-8").replace("title: 베타 글", "title: 새 베타"), "utf-8"
    )


def _clean_equal(root: Path, tmp_path: Path) -> None:
    got = tree_snapshot(root / "site")
    clean = tmp_path / "clean"
    build(root, clean, use_cache=False, only={"html"})
    want = tree_snapshot(clean)
    assert sorted(got) == sorted(want)
    assert [p for p in want if got[p] != want[p]] == []


def test_a_title_edit_makes_no_card_for_the_archives_kept_rows(
    make_project: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build after a title edit (a new process, as `bipub build` is) shows the archive's
    other rows as the last build kept them (render/card_html.py `KeptCard`): the cards of the
    posts that no page rendered again shows are not made (`PageViews._make_card`), and the
    pages are the clean build's."""
    root = make_project("minimal")
    _older_posts(root, 6)
    build(root, only={"html"})
    made = tmp_path / "made.log"  # (every process's: render workers are forked)
    real = page_views.PageViews._make_card

    def make_card(self: page_views.PageViews, entry: object, lang: str) -> PostCard:
        card = real(self, entry, lang)  # type: ignore[arg-type]
        with made.open("a", encoding="utf-8") as f:
            f.write(f"{lang} {card.title}\n")
        return card

    monkeypatch.setattr(page_views.PageViews, "_make_card", make_card)
    _retitle(root)
    build(root, only={"html"})
    cards = made.read_text("utf-8").splitlines()
    assert "ko 새 베타" in cards
    assert "ko 옛 글 0" not in cards and "ko 옛 글 1" not in cards  # (the archive's rows only)
    html = (root / "site" / "ko" / ARCHIVE).read_text(encoding="utf-8")
    assert "새 베타" in html and "옛 글 0" in html
    _clean_equal(root, tmp_path)


ARCHIVE_OWN = """{% extends "base.html" %}
{% block content %}
{% for group in years %}<section>{% for card in group.posts %}
<p class="own">{{ card.key }} {{ card.date }} {{ card.description }} {{ card.href }}
{% for tag in card.tags %}{{ tag.name }} {% endfor %}{{ card.reading_minutes }}</p>
{% endfor %}<ul>{{ archive_rows(group.posts) }}</ul></section>{% endfor %}
{% endblock %}
"""

ARCHIVE_ITEM_OWN = """<li class="own-row">{{ card.title }} · {{ card.description }} ·
{% for tag in card.tags %}{{ tag.name }} {% endfor %}· {{ card.series }}</li>
"""


def test_a_projects_own_archive_reads_any_card_field(
    make_project: Callable[[str], Path], tmp_path: Path
) -> None:
    """A project's own archive.html and partials/archive_item.html may read any field of a
    card: a row kept from the last build shows it as the card would (KeptCard makes the card
    when a field it does not keep is read), after a title edit, a body edit and a new post,
    byte for byte as a clean build does."""
    root = make_project("minimal")
    _older_posts(root, 4)
    partials = root / "templates" / "partials"
    partials.mkdir(parents=True)
    (root / "templates" / "archive.html").write_text(ARCHIVE_OWN, "utf-8")
    (partials / "archive_item.html").write_text(ARCHIVE_ITEM_OWN, "utf-8")
    build(root, only={"html"})
    _retitle(root)
    build(root, only={"html"})
    html = (root / "site" / "ko" / ARCHIVE).read_text(encoding="utf-8")
    assert "옛 설명 3" in html and '<li class="own-row">옛 글 3 · 옛 설명 3' in html
    assert '<li class="own-row">새 베타 · 번역되지 않은 글 ·\nKV cache · 연재</li>' in html
    _clean_equal(root, tmp_path)
    _post(root, "ko", "newest", "title: 새 글\ndescription: 새 설명\ndate: 2026-07-01")
    build(root, only={"html"})
    _clean_equal(root, tmp_path / "2")


def test_a_kept_card_is_its_card() -> None:
    """A KeptCard reads as its card for every field, and CardHtml gives the HTML kept under its
    card key at the level and list number it is shown at (elsewhere, the card is rendered)."""
    made: list[PostCard] = []
    card = PostCard("k", "제목", "설명", "/ko/k/", None, None, (), None, None, "source", "ko", 3)

    def make() -> PostCard:
        made.append(card)
        return card

    row = card_html.KeptCard("k", None, "ko", "ck", make)
    assert (row.key, row.date) == ("k", None) and not made
    assert (row.title, row.description, row.reading_minutes) == ("제목", "설명", 3)
    assert made == [card] and row.series_lang == "" and made == [card]
    assert repr(row) == repr(card) and row == card and hash(row) == hash(card)
    loader = jinja2.DictLoader(
        {
            "partials/archive_item.html": "<li>row {{ card.title }}</li>",
            "partials/post_card.html": "<h{{ level }}>{{ card.title }} {{ number }}</h{{ level }}>",
        }
    )
    cards = templates.CardHtml(jinja2.Environment(loader=loader, autoescape=True), "ko")
    kept = card_html.KeptCardHtml()
    kept.start("site")
    kept.keep(("ko", "ck", templates.ARCHIVE_ROW, None), "<li>kept</li>")
    kept.keep(("ko", "ck", 2, None), "<h2>kept</h2>")
    cards.kept = kept
    made.clear()
    fresh = card_html.KeptCard("k", None, "ko", "ck", make)
    assert str(cards(fresh, templates.ARCHIVE_ROW)) == "<li>kept</li>"
    assert str(cards.rows([fresh, fresh])) == "<li>kept</li><li>kept</li>"
    assert str(cards.join([fresh, fresh], 2)) == "<h2>kept</h2><h2>kept</h2>" and not made
    assert str(cards(fresh, 3)) == "<h3>제목 None</h3>" and made == [card]
    assert str(cards(fresh, templates.ARCHIVE_ROW, 1)) == "<li>row 제목</li>"
    assert str(cards.join([fresh], 3, True)) == "<h3>제목 1</h3>"
    other = card_html.KeptCard("k", None, "en", "ck", lambda: card)  # (another language's)
    assert str(cards(other, 2)) == "<h2>제목 None</h2>"


def test_a_card_that_cannot_be_made_is_an_error_not_a_missing_field() -> None:
    """An AttributeError while a KeptCard makes its card is raised as an error: from
    `__getattr__` it would read as a missing field, which a template prints as nothing."""

    def broken() -> PostCard:
        raise AttributeError("'Document' object has no attribute 'meta'")

    row = card_html.KeptCard("k", None, "ko", "ck", broken)
    with pytest.raises(RuntimeError, match="the card of k could not be made"):
        _ = row.title
    env = jinja2.Environment(autoescape=True)
    with pytest.raises(RuntimeError):
        env.from_string("{{ card.title }}").render(card=row)
