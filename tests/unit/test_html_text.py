"""HTML tags a page shows as text: with raw HTML off (`outputs.raw_html: false`, the default)
an author's `<details>` block or a `<br>` in a table cell was published as literal text, and
nothing said so. The build says so at the line (`html-text`)."""

from __future__ import annotations

import pytest

from bipub.render.markdown import render_markdown
from tests.conftest import body_warnings


@pytest.mark.parametrize(
    ("body", "found"),
    [
        (
            "<details>\n<summary>더 보기</summary>\n\n본문\n\n</details>\n",
            ((1, "<details>"), (6, "</details>")),
        ),
        ("| a | b |\n|---|---|\n| 첫 줄<br>둘째 줄 | x |\n", ((3, "<br>"),)),
        ("단축키는 <kbd>Ctrl</kbd>+<kbd>C</kbd>입니다.\n", ((1, "<kbd>"),)),
        ("`<div>` 요소와 제네릭 `Vec<T>`\n", ()),  # code is code
        ("Vec<T> 와 a < b > c, <https://example.org>\n", ()),  # no HTML element
        ("```html\n<div>코드</div>\n```\n", ()),  # a code block
    ],
)
def test_tags_shown_as_text_are_found_at_their_line(body: str, found: tuple[object, ...]) -> None:
    assert render_markdown(body).html_text == found


def test_nothing_is_said_with_raw_html_on() -> None:
    assert (
        render_markdown("<details>\n<summary>x</summary>\n</details>\n", raw_html=True).html_text
        == ()
    )


def test_the_build_warns_at_the_file_line() -> None:
    found = body_warnings(
        "Body.\n\n<details>\n<summary>더 보기</summary>\n</details>\n", "html-text"
    )
    assert [(d.file, d.line) for d in found] == [("content/ko/posts/p.md", 8)]
    assert "'<details>' is shown as text" in found[0].message
    assert found[0].severity.value == "warning"
