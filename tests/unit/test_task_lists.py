"""Session 29: GitHub task lists (`- [x] done`, `- [ ] to do`) were shown as literal text, sent to
DeepL as a link around "x", and unchecked by QA. One reading (bipub.text.markdown `task_marker`)
now serves the renderer (a disabled checkbox, its words searchable), the drafter (the marker stays in the
skeleton) and QA (a translation ticked otherwise than its source is a `markup` problem)."""

from __future__ import annotations

import gzip

import pytest

from bipub.check.qa import check_markup, facts
from bipub.render.markdown import render_markdown
from bipub.render.search import SearchPage, Stemmer, search_index
from bipub.translate.segments import layout

SOURCE = "- [x] 완료한 **일**\n- [ ] 남은 일\n  둘째 줄\n- 보통 항목\n"


@pytest.mark.parametrize("fast", [True, False])
def test_task_items_render_as_disabled_checkboxes(fast: bool) -> None:
    html = render_markdown(SOURCE, fast=fast).html
    assert html == (
        '<ul class="contains-task-list">\n'
        '<li class="task-list-item">'
        '<input class="task-list-item-checkbox" type="checkbox" disabled checked>'
        " 완료한 <strong>일</strong></li>\n"
        '<li class="task-list-item">'
        '<input class="task-list-item-checkbox" type="checkbox" disabled> 남은 일\n'
        "둘째 줄</li>\n"
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


@pytest.mark.real_search
def test_the_words_of_task_items_are_in_the_search_index() -> None:
    """Pagefind leaves out the text of a <label>: a task item's words inside one were not found
    (the first version of this change wrapped the item in a label)."""
    body = render_markdown("- [x] zebrafish migration\n- [ ] walrus tuning\n").html
    html = f'<html lang="en"><body><main data-pagefind-body>{body}</main></body></html>'
    files = search_index([SearchPage("/en/blog/a/", html)], "en", Stemmer())
    fragments = [gzip.decompress(data) for path, data in files.items() if "fragment/" in path]
    assert len(fragments) == 1
    assert b"zebrafish migration" in fragments[0] and b"walrus tuning" in fragments[0]
