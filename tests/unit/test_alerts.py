"""Session 32: GitHub's alerts (`> [!NOTE]` …) were shown as a quote starting with the text
"[!NOTE]", and the drafter sent the marker to DeepL with the quote's words (a marker translated
into `[!참고]` is no alert any more). One reading (bipub.text.markdown: markdown-it-py's `alerts`)
now serves the renderer (titled in the body's language: render/markdown_alerts.py), the drafter
(the marker line stays in the skeleton) and QA (a translation whose alerts differ is a `markup`
problem); a marker of no alert kind is said (`alert-unknown`)."""

from __future__ import annotations

import pytest

from bipub.check.qa import check_markup, check_untranslated, facts
from bipub.render.markdown import render_markdown
from bipub.translate.segments import layout
from tests.conftest import body_warnings

SOURCE = "> [!NOTE]\n> 이 글은 **vLLM** 0.6 기준이다.\n\n> [!caution]\n> 되돌릴 수 없다.\n"


@pytest.mark.parametrize("fast", [True, False])
def test_an_alert_is_titled_in_the_language_of_its_body(fast: bool) -> None:
    ko = render_markdown(SOURCE, fast=fast, lang="ko")
    assert ko.html == (
        '<div class="markdown-alert markdown-alert-note" role="note">\n'
        '<p class="markdown-alert-title">참고</p>\n'
        "<p>이 글은 <strong>vLLM</strong> 0.6 기준이다.</p>\n"
        "</div>\n"
        '<div class="markdown-alert markdown-alert-caution" role="note">\n'
        '<p class="markdown-alert-title">주의</p>\n'
        "<p>되돌릴 수 없다.</p>\n"
        "</div>\n"
    )
    assert "[!" not in ko.text and "참고" in ko.text  # (search, reading time)
    en = render_markdown("> [!TIP]\n> Use `max_num_seqs`.\n", fast=fast, lang="en").html
    assert '<p class="markdown-alert-title">Tip</p>' in en
    assert ko.unknown_alerts == ()


def test_a_marker_of_no_alert_kind_stays_a_quote_and_is_said() -> None:
    body = "글.\n\n> [!NOTICE]\n> 오타.\n\n> [!NOTE] not alone on its line\n"
    html = render_markdown(body, lang="ko").html
    assert "<blockquote>\n<p>[!NOTICE]" in html and "markdown-alert" not in html
    found = body_warnings(body, "alert-unknown")
    assert [(d.file, d.line) for d in found] == [("content/ko/posts/p.md", 8)]
    assert "'[!NOTICE]' is no alert (NOTE, TIP, IMPORTANT, WARNING, CAUTION)" in found[0].message
    assert body_warnings(SOURCE, "alert-unknown") == []


def test_the_draft_keeps_the_marker_and_sends_only_the_text() -> None:
    lay = layout("## 제목\n\n> [!WARNING]\n> `--enforce-eager`를 켜면\n> 느려진다.\n")
    assert [seg.source for seg in lay.segments] == ["제목", "`--enforce-eager`를 켜면\n> 느려진다."]
    filled = lay.fill(["Title", "Turning on `--enforce-eager` makes it slow."])
    assert filled == ("## Title\n\n> [!WARNING]\n> Turning on `--enforce-eager` makes it slow.\n")


def test_qa_compares_the_kinds_and_reads_no_title_as_text() -> None:
    src = "> [!NOTE]\n> 이 글은 vLLM 0.6 기준이다.\n"
    assert check_markup(src, "> [!NOTE]\n> This post is about vLLM 0.6.\n") == []
    assert check_markup(src, "> [!WARNING]\n> This post is about vLLM 0.6.\n") == [
        "alerts differ: source [!NOTE], translation [!WARNING]"
    ]
    assert check_markup(src, "> This post is about vLLM 0.6.\n") == [
        "alerts differ: source [!NOTE], translation none"
    ]
    read = facts(src)
    assert read.paragraphs == ("이 글은 vLLM 0.6 기준이다.",) and "Note" not in read.prose
    en = "> [!TIP]\n> Batch size is set by max_num_seqs.\n"
    assert check_untranslated(en, "> [!TIP]\n> 배치 크기는 max_num_seqs로 정한다.\n", "ko") == []
