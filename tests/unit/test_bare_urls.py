"""Session 32: a bare URL in Korean prose ("자세한 내용은 https://docs.vllm.ai/en/latest/에서
확인한다.") was read with the particle glued to it: the drafter hid "에서" from DeepL in the URL's
slot (the English draft said "…/latest/에서"), QA read the link target "…/latest/에서" (a correct
translation got a `links` finding), and the renderer did not link bare URLs at all. One rule
(bipub.text.urls: GFM's autolink extension, and a particle glued to the URL is not part of it)
now serves the drafter, QA and the renderer (render/markdown_autolinks.py)."""

from __future__ import annotations

import pytest

from bipub.check.qa import check_links, words_to_translate
from bipub.render.markdown import render_markdown
from bipub.text.urls import BareUrl, bare_urls, url_at
from bipub.translate.segments import layout
from tests.conftest import body_warnings

DOCS = "https://docs.vllm.ai/en/latest/"
WIKI = "https://ko.wikipedia.org/wiki/트랜스포머"


@pytest.mark.parametrize(
    ("text", "urls"),
    [
        # a particle glued to the URL is not part of it
        (f"자세한 내용은 {DOCS}에서 확인한다.", [DOCS]),
        (f"{DOCS}에서는 이렇게 쓴다", [DOCS]),
        ("https://github.com/vllm-project/vllm을 보면", ["https://github.com/vllm-project/vllm"]),
        ("https://example.com를 참고", ["https://example.com"]),
        ("https://example.com/v2는 새 API다", ["https://example.com/v2"]),
        ("https://example.com/a.html이다.", ["https://example.com/a.html"]),
        ("주소는 https://example.com입니다.", ["https://example.com"]),
        ("https://example.com/docs으로 옮겼다", ["https://example.com/docs"]),
        ("https://example.com/docs까지", ["https://example.com/docs"]),
        ("https://example.com/라는 주소", ["https://example.com/"]),
        # trailing punctuation, then the particle; quotes and parentheses around the URL
        (f"({DOCS})에서 본다", [DOCS]),
        (f'"{DOCS}"를 연다', [DOCS]),
        (f"{DOCS}에서.", [DOCS]),
        (
            "see https://example.com/a, https://example.com/b.",
            ["https://example.com/a", "https://example.com/b"],
        ),
        ("https://example.com/path?!", ["https://example.com/path"]),
        # parentheses inside the URL are balanced (GFM)
        (
            "see https://en.wikipedia.org/wiki/Python_(programming_language).",
            ["https://en.wikipedia.org/wiki/Python_(programming_language)"],
        ),
        ("(https://example.com/a_(b))", ["https://example.com/a_(b)"]),
        # a Hangul path stays whole
        (f"{WIKI} 참고", [WIKI]),
        (f"{WIKI}_(기계_학습)의 설명", [f"{WIKI}_(기계_학습)"]),
        # query strings and fragments, entities at the end
        (
            "https://example.com/s?q=kv+cache&lang=ko#top에서",
            ["https://example.com/s?q=kv+cache&lang=ko#top"],
        ),
        ("https://example.com/?a=1&amp; b", ["https://example.com/?a=1"]),
        # www. and e-mail addresses
        ("www.example.com을 보라", ["www.example.com"]),
        ("www.example 은 주소가 아니다", []),
        ("문의는 me@example.com으로 한다", ["me@example.com"]),
        ("mailto:me@example.com.", ["mailto:me@example.com"]),
        ("vllm@0.6.3 설치", []),
        # where a URL starts: not glued to a letter or digit before it; `<` ends it
        ("링크:https://example.com", ["https://example.com"]),
        ("xhttps://example.com", []),
        ("https://example.com<br>", ["https://example.com"]),
        ("https:// 빈 주소", []),
    ],
)
def test_where_a_bare_url_ends(text: str, urls: list[str]) -> None:
    assert [url.text for url in bare_urls(text)] == urls


def test_a_url_that_may_end_in_a_particle_is_kept_whole_and_said() -> None:
    found = bare_urls(f"{WIKI}를 보라")
    assert found == [BareUrl(0, len(WIKI) + 1, f"{WIKI}를", f"{WIKI}를", ambiguous=True)]
    # a Hangul path ending like a noun (고양이: 이) is not said
    assert not url_at("https://ko.wikipedia.org/wiki/고양이", 0).ambiguous  # type: ignore[union-attr]
    assert bare_urls("www.example.com")[0].href == "http://www.example.com"
    assert bare_urls("me@example.com")[0].href == "mailto:me@example.com"


def test_the_drafter_sends_the_particle_and_keeps_the_url_in_a_slot() -> None:
    encoded = layout(f"자세한 내용은 {DOCS}에서 확인한다.\n").segments[0].encoded
    assert encoded.xml == '자세한 내용은 <x i="0"/>에서 확인한다.'
    assert encoded.slots == (DOCS,) and encoded.kinds == ("url",)
    encoded = (
        layout("문의는 me@example.com으로, 문서는 www.example.com을 본다.\n").segments[0].encoded
    )
    assert encoded.xml == '문의는 <x i="0"/>으로, 문서는 <x i="1"/>을 본다.'
    assert encoded.slots == ("me@example.com", "www.example.com")


def test_qa_reads_the_url_without_its_particle() -> None:
    source = f"자세한 내용은 {DOCS}에서 확인한다.\n"
    assert check_links(source, f"For details, see {DOCS}.\n") == []
    assert check_links(source, "For details, see https://docs.vllm.ai/en/stable/.\n") == [
        f"link target {DOCS} of the source is missing",
        "the translation links to https://docs.vllm.ai/en/stable/, which the source does not",
    ]
    # a bare URL is the target the page links to: the same as a link's to a Hangul path
    assert check_links(f"[트랜스포머]({WIKI})를 보라.\n", f"See {WIKI}.\n") == []
    assert check_links(f"<{WIKI}>를 보라.\n", f"See {WIKI}.\n") == []
    # the particle left in a translation is a word to translate, not part of the URL
    words = words_to_translate(f"For details, see {DOCS}에서.\n")
    assert "에서" in words and "latest" not in words


@pytest.mark.parametrize("fast", [True, False])
def test_the_renderer_links_a_bare_url_without_its_particle(fast: bool) -> None:
    html = render_markdown(f"자세한 내용은 {DOCS}에서 확인한다.\n", fast=fast).html
    assert html == f'<p>자세한 내용은 <a href="{DOCS}">{DOCS}</a>에서 확인한다.</p>\n'
    html = render_markdown("www.example.com을, me@example.com으로\n", fast=fast).html
    assert html == (
        '<p><a href="http://www.example.com">www.example.com</a>을, '
        '<a href="mailto:me@example.com">me@example.com</a>으로</p>\n'
    )


@pytest.mark.parametrize("fast", [True, False])
def test_the_renderer_links_only_safe_bare_urls_outside_links_and_code(fast: bool) -> None:
    source = (
        "javascript:alert(1) data:text/html,x https://e.example/x\n"
        "[https://a.example](https://b.example) `https://c.example` <https://d.example>\n"
    )
    rendered = render_markdown(source, fast=fast)
    assert "javascript" not in rendered.html.split("<a", 1)[-1].split(">", 1)[0]
    assert '<a href="https://e.example/x">https://e.example/x</a>' in rendered.html
    assert rendered.html.count("<a ") == 3 and 'href="https://a.example"' not in rendered.html
    assert rendered.dropped_links == ()
    assert "<code>https://c.example</code>" in rendered.html
    assert render_markdown(source, fast=fast).html == render_markdown(source, fast=not fast).html


def test_a_url_that_may_end_in_a_particle_is_a_render_warning() -> None:
    body = f"글.\n\n둘째 줄\n{WIKI}를 보라.\n\n{WIKI} 그리고 {DOCS}에서.\n"
    html = render_markdown(body).html
    assert '<a href="https://ko.wikipedia.org/wiki/%ED%8A%B8' in html
    found = body_warnings(body, "url-particle")
    assert [(d.file, d.line) for d in found] == [("content/ko/posts/p.md", 9)]
    assert f"the bare URL '{WIKI}를' may end in a Korean particle" in found[0].message
