from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import Markup

from bipub.render.markdown import is_safe_url, render_markdown
from bipub.render.templates import BLOCKED_URL, safe_url


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        " javascript:alert(1)",
        "java\nscript:alert(1)",
        "java\tscript:alert(1)",
        "vbscript:msgbox",
        "data:text/html,<script>",
        "data:image/png;base64,AAAA",
        "file:///etc/passwd",
    ],
)
def test_dangerous_urls_are_refused(url: str) -> None:
    assert not is_safe_url(url)


@pytest.mark.parametrize(
    "url", ["https://a.b/c", "http://x", "/ko/", "../x", "#h-a", "mailto:a@b", "tel:+82", "x.png"]
)
def test_ordinary_urls_pass(url: str) -> None:
    assert is_safe_url(url)


@pytest.mark.parametrize(
    "source",
    [
        "[x](javascript:alert(1))",
        "[x](&#106;avascript:alert(1))",
        "[x](JAVASCRIPT:alert(1))",
        "<script>alert(1)</script>",
        '<img src=x onerror="alert(1)">',
        "<svg onload=alert(1)>",
        "![x](javascript:alert(1))",
        "<javascript:alert(1)>",
    ],
)
def test_raw_html_and_script_links_never_reach_output(source: str) -> None:
    html = render_markdown(source).html
    assert "<script" not in html
    assert not re.search(r"<[^>]+\son\w+=", html)
    assert 'href="javascript' not in html.lower()
    assert 'src="javascript' not in html.lower()


def test_headings_get_prefixed_ids_and_korean_survives() -> None:
    r = render_markdown("## KV 캐시 페이징\n\n본문")
    assert r.headings[0].id == "h-kv-캐시-페이징"
    assert 'id="h-kv-캐시-페이징"' in r.html


def test_code_is_highlighted_and_unknown_languages_reported() -> None:
    r = render_markdown("```python\nx = 1\n```\n\n```nosuchlang\ny\n```\n")
    assert '<span class="n">x</span>' in r.html
    assert r.unknown_languages == ("nosuchlang",)


def test_tables_and_footnotes() -> None:
    r = render_markdown("| a | b |\n|---|---|\n| 1 | 2 |\n\n각주[^1]\n\n[^1]: 노트\n")
    assert "<table>" in r.html and "footnote-ref" in r.html


@settings(max_examples=200)
@given(st.text(alphabet=st.sampled_from(list("<>[]()!\"'=:/ jsavcriptonerlodg&#;x")), max_size=80))
def test_no_script_or_event_handlers_for_any_input(source: str) -> None:
    html = render_markdown(source).html
    assert "<script" not in html.lower()
    assert not re.search(r"<[a-z][^>]*\son\w+\s*=", html.lower())
    for m in re.finditer(r'(?:href|src)="([^"]*)"', html):
        assert is_safe_url(m.group(1)), m.group(1)


def test_dropped_links_are_reported_with_their_line() -> None:
    source = (
        "# T\n\n"
        "para [a](javascript:alert(1)) ok\n"
        "second line [b](JaVaScRiPt:alert(2))\n\n"
        "[c](&#106;avascript:alert(3)) ![i](data:text/html,x)\n\n"
        "<vbscript:msgbox>\n\n"
        "[h][r]\n\n"
        "[r]: java&#x09;script:alert(5)\n\n"
        "[fine](https://example.org/) [also](#h-t)\n"
    )
    r = render_markdown(source)
    found = [(d.line, d.url.lower().replace("\t", "")) for d in r.dropped_links]
    assert found == [
        (3, "javascript:alert(1)"),
        (4, "javascript:alert(2)"),
        (6, "data:text/html,x"),
        (6, "javascript:alert(3)"),
        (8, "vbscript:msgbox"),
        (12, "java%09script:alert(5)"),
    ]
    assert "javascript:" not in re.sub(r"<p>.*?</p>", "", r.html, flags=re.S)
    assert render_markdown("[ok](https://x.org) <https://y.org>").dropped_links == ()


PATHOLOGICAL = {
    "brackets": "[" * 3000,
    "link openers": "[a](" * 3000,
    "image openers": "![" * 3000,
    "blockquotes": ">" * 3000 + " x",
    "emphasis": "*_" * 3000,
    "backticks": "`" * 3000,
    "angle brackets": "<" * 3000,
    "entities": "&#" * 3000,
    "quotes": '"' * 3000,
    "nested lists": "".join("  " * i + "- x\n" for i in range(1000)),
    "footnotes": "[^" * 3000,
    "table pipes": "|" * 3000 + "\n|-|\n",
    "reference": "[x]: " + "(" * 3000,
}


@pytest.mark.parametrize("source", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
def test_pathological_markdown_finishes_quickly(source: str) -> None:
    """Thousands of nested brackets or quotes: markdown-it's nesting limit keeps this linear
    (each takes well under a second; speed itself is measured in bench/, never asserted here)."""
    html = render_markdown(source * 3).html
    assert "<script" not in html


def test_headings_and_text_are_those_of_the_body() -> None:
    """Each heading's level, id and text (its inline's text, the same as in `text`) in order,
    setext headings too; code blocks' contents in the text."""
    from bipub.render.markdown import Heading, render_markdown

    source = "# One *a*\n\npara `x`\n\nTwo\n---\n\n```py\ncode\n```\n\n## One *a*\n"
    rendered = render_markdown(source)
    assert rendered.headings == (
        Heading(1, "h-one-a", "One a"),
        Heading(2, "h-two", "Two"),
        Heading(2, "h-one-a-1", "One a"),
    )
    assert rendered.text == "One a\npara x\nTwo\ncode\n\nOne a"


_URL_PIECES = st.sampled_from(
    [
        "/",
        "#",
        "https:",
        "http:",
        "HTTP:",
        "javascript:",
        ":",
        "a",
        "\u0307",
        "\u0338",
        "\n",
        " ",
        "\x00",
        "\u3000",
        "가",
        "//",
        "?",
    ]
)


@settings(max_examples=800, deadline=None)
@given(st.lists(_URL_PIECES, max_size=6).map("".join))
def test_url_filter_is_the_rule(url: str) -> None:
    """The templates' `url` filter passes exactly what `is_safe_url` passes (it lets the
    prefixes it knows through without asking: templates.py `_SAFE_PREFIXES`)."""
    expected = url if is_safe_url(url) else BLOCKED_URL
    assert safe_url(url) == expected
    assert type(safe_url(Markup(url))) is str  # (a Markup is printed escaped, as before)
