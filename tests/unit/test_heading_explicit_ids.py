"""Session 32: a heading's own id, `## 결론 {#conclusion}` (bipub.text.headings
`heading_attribute`), read the same way by the renderer, the drafter and QA."""

from __future__ import annotations

import pytest

from bipub.check.anchors import _anchors
from bipub.check.qa import check_markup
from bipub.check.qa_facts import facts
from bipub.render.llms_body import shift_headings
from bipub.render.markdown import render_markdown
from bipub.render.markdown_heading_ids import PAGE_IDS
from bipub.text.headings import HeadingAttribute, heading_attribute, heading_ids
from bipub.translate.segments import layout
from tests.conftest import body_warnings


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("결론 {#conclusion}", HeadingAttribute("결론", "conclusion", None, " {#conclusion}")),
        ("결론{#conclusion}", HeadingAttribute("결론", "conclusion", None, "{#conclusion}")),
        ("A  {#a_1-b}", HeadingAttribute("A", "a_1-b", None, "  {#a_1-b}")),
        ("{#only}", HeadingAttribute("", "only", None, "{#only}")),
        ("결론", HeadingAttribute("결론", None)),
        ("결론 {#결론}", HeadingAttribute("결론 {#결론}", None, "{#결론}")),
        ("A {.note}", HeadingAttribute("A {.note}", None, "{.note}")),
        ("A {#a .note}", HeadingAttribute("A {#a .note}", None, "{#a .note}")),
        ("A {#1a}", HeadingAttribute("A {#1a}", None, "{#1a}")),
        ("A \\{#a}", HeadingAttribute("A \\{#a}", None)),  # escaped: text
        ("A {#a} b", HeadingAttribute("A {#a} b", None)),  # not at the end
        ("set {x}", HeadingAttribute("set {x}", None)),  # braces of prose
    ],
)
def test_heading_attribute_reads_a_trailing_id(written: str, read: HeadingAttribute) -> None:
    assert heading_attribute(written) == read


BODY = (
    "See [the end](#conclusion).\n\n## 결론 {#conclusion}\n\n끝.\n\n## 요약 ##\n\n"
    "Setext **제목** {#setext}\n---\n\n## `code` {#code-id} ##\n"
)


@pytest.mark.parametrize("fast", [False, True])
def test_the_renderer_sets_the_id_and_drops_the_attribute(fast: bool) -> None:
    rendered = render_markdown(BODY, fast=fast)
    assert rendered.html == (
        '<p>See <a href="#conclusion">the end</a>.</p>\n'
        '<h2 id="conclusion">결론 <a class="header-anchor" href="#conclusion">¶</a></h2>\n'
        "<p>끝.</p>\n"
        '<h2 id="h-요약">요약 <a class="header-anchor" href="#h-요약">¶</a></h2>\n'
        '<h2 id="setext">Setext <strong>제목</strong> '
        '<a class="header-anchor" href="#setext">¶</a></h2>\n'
        '<h2 id="code-id"><code>code</code> <a class="header-anchor" href="#code-id">¶</a></h2>\n'
    )
    assert [(h.id, h.text) for h in rendered.headings] == [
        ("conclusion", "결론"),
        ("h-요약", "요약"),
        ("setext", "Setext 제목"),
        ("code-id", "code"),
    ]
    assert "{#" not in rendered.text  # (search, reading time, llms-full.txt's plain text)
    assert heading_ids(BODY) == ["conclusion", "h-요약", "setext", "code-id"]


def test_an_unread_attribute_stays_text_with_a_warning_at_its_line() -> None:
    body = "Intro.\n\n## 결론 {#결론}\n\n## B {.wide}\n\n## C {#c}\n"
    html = render_markdown(body).html
    assert '<h2 id="h-결론-결론">결론 {#결론} ' in html and 'id="c"' in html
    found = body_warnings(body, "heading-id")
    assert [(d.line, d.message.split(" is not read")[0]) for d in found] == [
        (8, "'{#결론}'"),  # body line 3 of a body that starts at line 6
        (10, "'{.wide}'"),
    ]


def test_clashing_explicit_ids_are_warned_about() -> None:
    body = "## A {#same}\n\n## B {#same}\n\n## Intro\n\n## C {#h-intro}\n"
    found = body_warnings(body, "heading-id")
    assert [d.line for d in found] == [8, 12]
    assert "used by another heading" in found[0].message
    assert "'Intro' would get" in found[1].message
    assert heading_ids(body) == ["same", "same", "h-intro-1", "h-intro"]


def test_llms_full_moves_a_heading_without_its_attribute() -> None:
    body = "# 결론 {#conclusion}\n\nA {#b} stays.\n\n## C {#c} ##\n\nSet {#s}\n===\n"
    assert shift_headings(body, 4) == "#### 결론\n\nA {#b} stays.\n\n##### C\n\n#### Set\n"


def test_the_drafter_never_sends_the_attribute_and_keeps_it() -> None:
    text = "## 결론 {#conclusion}\n\n[결론](#conclusion)을 보세요.\n\n## 닫힘 {#closed} ##\n"
    lay = layout(text)
    sent = [seg.encoded.xml for seg in lay.segments]
    assert sent == ["결론", '<a i="0">결론</a>을 보세요.', "닫힘"]
    filled = lay.fill(["Conclusion", "See [the conclusion](#conclusion).", "Closed"])
    assert filled == (
        "## Conclusion {#conclusion}\n\nSee [the conclusion](#conclusion).\n\n"
        "## Closed {#closed} ##\n"
    )


def test_qa_compares_the_headings_ids() -> None:
    source = "## 결론 {#conclusion}\n\n끝.\n"
    assert check_markup(source, "## Conclusion {#conclusion}\n\nThe end.\n") == []
    assert check_markup(source, "## Conclusion\n\nThe end.\n") == [
        "heading ids differ: source {#conclusion}, translation none"
    ]
    assert check_markup(source, "## Conclusion {#end}\n\nThe end.\n") == [
        "heading ids differ: source {#conclusion}, translation {#end}"
    ]
    assert "conclusion" not in facts(source).prose  # no prose to compare


def test_qa_reads_links_to_explicit_ids_as_heading_links() -> None:
    text = "See [the end](#conclusion) and [top](#top)."
    assert _anchors(text, frozenset({"conclusion"})) == ["conclusion"]
    assert _anchors(text) == []


def test_an_id_the_page_uses_itself_is_warned_about() -> None:
    found = body_warnings("## A {#main}\n\n## B {#fn1}\n\n## C {#mainly}\n", "heading-id")
    assert [d.line for d in found] == [6, 8]
    assert "an id the page uses itself" in found[0].message


def test_page_ids_holds_every_id_of_the_theme() -> None:
    import re
    from pathlib import Path

    import bipub

    templates = Path(bipub.__file__).parent / "theme" / "templates"
    written = {
        m.group(1)
        for path in templates.rglob("*.html")
        for m in re.finditer(r'\bid="([A-Za-z][A-Za-z0-9_-]*)"', path.read_text(encoding="utf-8"))
    }
    assert written == PAGE_IDS


def test_the_drafter_never_rewrites_a_link_to_an_explicit_id() -> None:
    from bipub.translate.anchors import anchor_map, relink

    source = "[결론](#conclusion), [서론](#h-서론)\n\n## 서론\n\n## 결론 {#conclusion}\n"
    present = "## Intro\n\n## Conclusion\n"  # (its heading lost the id: QA says so)
    ids = anchor_map(source, present)
    assert ids == {"h-서론": "h-intro"}
    assert relink("[a](#conclusion) [b](#h-서론)", ids) == "[a](#conclusion) [b](#h-intro)"


@pytest.mark.parametrize("fast", [False, True])
def test_a_setext_headings_id_on_a_line_of_its_own(fast: bool) -> None:
    body = "Title\n{#alone}\n===\n"
    assert render_markdown(body, fast=fast).html == (
        '<h1 id="alone">Title <a class="header-anchor" href="#alone">¶</a></h1>\n'
    )
    lay = layout(body)
    assert [seg.encoded.xml for seg in lay.segments] == ["Title"]
    assert lay.fill(["제목"]) == "제목\n{#alone}\n===\n"
