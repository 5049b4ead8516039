"""Session 29: every piece of text a page shows in another language than its own carries that
language's `lang` (screen readers read it with that language's voice and rules, browsers choose
its fonts and line breaking): the titles of posts not translated yet in a series box and pager,
a series' name when no post of it is translated (box, cards, series page), the names of the
languages in the bilingual CV PDF's link ("한국어 + English").

The 'minimal' project, plus a Korean-only series and an English-only post: on each English page
every text with Hangul must sit in an element marked `lang="ko"`, and on each Korean page the
English-only post's title and the word "English" in one marked `lang="en"`.

Session 30, <head>: a <meta> whose `content` is the page's title or description in another
language carries that `lang` (a global attribute; on a <meta>, the language of its `content`).
<title> cannot: it joins that title and the site's name (the page's language) in one text,
which cannot hold an element to mark a part of it, so it keeps the page's language."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from lxml import html as lxml_html

from tests.conftest import TESTS

HANGUL = re.compile(r"[\uac00-\ud7a3]")
EN_ONLY_TITLE = "Delta, written in English only"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from bipub.pipeline import build

    project = tmp_path_factory.mktemp("langs") / "minimal"
    shutil.copytree(TESTS / "projects" / "minimal", project)
    posts = project / "content"
    (posts / "ko" / "posts" / "gamma.md").write_text(
        "---\ntitle: 감마 글\ndescription: 번역되지 않은 연재\ndate: 2026-05-02\n"
        "series: 혼자 연재\nseries_order: 1\n---\n\n아직 한국어로만 있습니다.\n",
        encoding="utf-8",
    )
    (posts / "en" / "posts" / "delta.md").write_text(
        f"---\ntitle: {EN_ONLY_TITLE}\ndescription: Not translated\ndate: 2026-05-03\n"
        "source_lang: en\n---\n\nOnly in English so far.\n",
        encoding="utf-8",
    )
    build(project, only={"html"})
    return project / "site"


def _texts(page: Path) -> list[tuple[str, str]]:
    """(text, the language of its nearest element with a `lang`) of every text in <body>."""
    tree = lxml_html.fromstring(page.read_bytes())
    out = []
    for node in tree.xpath("//body//text()[normalize-space()][not(ancestor::script)]"):
        parent = node.getparent()
        langs = parent.xpath("ancestor-or-self::*[@lang][1]/@lang")
        out.append((str(node).strip(), str(langs[0]) if langs else ""))
    return out


def _pages(site: Path, lang: str) -> list[Path]:
    pages = sorted((site / lang).rglob("index.html"))
    assert len(pages) > 10
    return pages


def test_korean_text_on_english_pages_is_marked_korean(site: Path) -> None:
    unmarked = [
        (str(page.relative_to(site)), text)
        for page in _pages(site, "en")
        for text, lang in _texts(page)
        if HANGUL.search(text) and not lang.startswith("ko")
    ]
    assert unmarked == []


def test_english_text_on_korean_pages_is_marked_english(site: Path) -> None:
    seen = 0
    unmarked = []
    for page in _pages(site, "ko"):
        for text, lang in _texts(page):
            if EN_ONLY_TITLE in text or re.search(r"\bEnglish\b", text):
                seen += 1
                if not lang.startswith("en"):
                    unmarked.append((str(page.relative_to(site)), text))
    assert seen and unmarked == []


def test_the_places_that_show_another_language(site: Path) -> None:
    """The places this is about, one by one (the scans above would pass on pages without them)."""
    box = (site / "en" / "blog" / "alpha" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<a href="/en/blog/beta/" lang="ko" hreflang="ko">베타 글</a>', box)
    assert re.search(r'<span class="pager__title" lang="ko">베타 글</span>', box)
    gamma = (site / "en" / "blog" / "gamma" / "index.html").read_text(encoding="utf-8")
    assert re.search(
        r'<h2 class="series-box__title"[^>]*><a href="[^"]+" lang="ko">혼자 연재</a>', gamma
    )
    series = (site / "en" / "series").glob("*/index.html")
    assert any('<h1 class="page-title" lang="ko">혼자 연재</h1>' in p.read_text() for p in series)
    listing = (site / "en" / "blog" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<a href="/en/series/[^"]+" lang="ko">혼자 연재</a>', listing)
    home = (site / "en" / "index.html").read_text(encoding="utf-8")
    assert '<span lang="ko">한국어</span> + <span lang="en">English</span>' in home


def _head_metas(page: Path) -> list[tuple[str, str, str]]:
    """(name or property, content, its language) of every <meta content> in <head>."""
    tree = lxml_html.fromstring(page.read_bytes())
    return [
        (m.get("name") or m.get("property") or "", m.get("content"), m.get("lang") or "")
        for m in tree.xpath("//head/meta[@content]")
    ]


def test_head_texts_in_another_language_are_marked(site: Path) -> None:
    wrong = []
    for page in _pages(site, "en"):
        for name, content, lang in _head_metas(page):
            if (lang == "ko") != bool(HANGUL.search(content)):
                wrong.append((str(page.relative_to(site)), name, lang))
    assert wrong == []
    beta = _head_metas(site / "en" / "blog" / "beta" / "index.html")
    marked = {name for name, _, lang in beta if lang == "ko"}
    assert marked == {
        "description",
        "og:title",
        "og:description",
        "og:image:alt",
        "twitter:title",
        "twitter:description",
    }
    html = (site / "en" / "blog" / "beta" / "index.html").read_text(encoding="utf-8")
    assert "<title>베타 글 · Test site</title>" in html  # (see the module's docstring)
    ko_delta = _head_metas(site / "ko" / "blog" / "delta" / "index.html")
    assert ("og:title", EN_ONLY_TITLE, "en") in ko_delta
    every = [*site.rglob("*.html")]
    assert [str(p.relative_to(site)) for p in every if 'lang=""' in p.read_text("utf-8")] == []
