"""Session 29: GitHub task lists (`- [x] done`, `- [ ] to do`) were shown as literal text, sent to
DeepL as a link around "x", and unchecked by QA. One reading (bipub.text.markdown `task_marker`)
now serves the renderer (a disabled, labelled checkbox), the drafter (the marker stays in the
skeleton) and QA (a translation ticked otherwise than its source is a `markup` problem)."""

from __future__ import annotations

import pytest

from bipub.check.qa import check_markup, facts
from bipub.render.markdown import render_markdown
from bipub.translate.segments import layout

SOURCE = "- [x] 완료한 **일**\n- [ ] 남은 일\n  둘째 줄\n- 보통 항목\n"


@pytest.mark.parametrize("fast", [True, False])
def test_task_items_render_as_disabled_labelled_checkboxes(fast: bool) -> None:
    html = render_markdown(SOURCE, fast=fast).html
    assert html == (
        '<ul class="contains-task-list">\n'
        '<li class="task-list-item"><label class="task-list-item-label">'
        '<input class="task-list-item-checkbox" type="checkbox" disabled checked>'
        " 완료한 <strong>일</strong></label></li>\n"
        '<li class="task-list-item"><label class="task-list-item-label">'
        '<input class="task-list-item-checkbox" type="checkbox" disabled> 남은 일\n'
        "둘째 줄</label></li>\n"
        "<li>보통 항목</li>\n"
        "</ul>\n"
    )
    assert "[x]" not in render_markdown(SOURCE, fast=fast).text


@pytest.mark.parametrize(
    "source",
    [
        "- [x]\n",  # a marker alone
        "- [y] no\n",
        "[x] not in a list\n",
        "[x]: /u\n\n- [x] a link to a definition\n",
        "- a\n\n  [x] not the item's first paragraph\n",
    ],
)
def test_what_is_not_a_task_stays_as_it_was(source: str) -> None:
    assert "checkbox" not in render_markdown(source).html


def test_the_draft_keeps_the_marker_and_sends_only_the_text() -> None:
    lay = layout("- [x] done thing\n- [ ] remaining **bold** thing\n  next line\n\n1. [X] o\n")
    assert [seg.encoded.xml for seg in lay.segments] == [
        "done thing",
        'remaining <g i="0">bold</g> thing next line',
        "o",
    ]
    filled = lay.fill(["끝낸 일", "남은 <g i='0'>굵은</g> 일", "오"])
    assert filled.startswith("- [x] 끝낸 일\n- [ ] 남은 ")
    assert "\n1. [X] 오\n" in filled


def test_qa_compares_the_markers() -> None:
    src = "- [x] a\n- [ ] b\n"
    assert check_markup(src, "- [x] 가\n- [ ] 나\n") == []
    assert check_markup(src, "- [ ] 가\n- [ ] 나\n") == [
        "task list items differ: source [x] [ ], translation [ ] [ ]"
    ]
    assert check_markup(src, "- 가\n- 나\n") == [
        "task list items differ: source [x] [ ], translation none"
    ]
    assert facts("- [x] 3 items\n").prose == "3 items\n"
