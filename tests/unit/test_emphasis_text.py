"""`**` or `~~` a page shows as text: emphasis that did not open or close, which CommonMark
does to `**'인용'**를` (punctuation just inside the markers, a Korean letter just outside).
The build says so at the line (`emphasis-text`) instead of publishing the stars silently."""

from __future__ import annotations

import pytest

from bipub.render.markdown import render_markdown
from tests.conftest import body_warnings


@pytest.mark.parametrize(
    ("body", "lines"),
    [
        ("첫 문단 **'인용'**를 보자.\n", (1,)),  # punctuation inside, a letter outside
        ("A\n\n둘째 **(선택)**은 여기\n그리고 **정상**이다.\n", (3,)),  # one a line
        ("- 목록 ** 공백 **입니다\n", (1,)),  # a space just inside
        ("~~ 취소 ~~선\n", (1,)),
        ("**정상**이다. '**인용**'를 본다.\n", ()),  # emphasis that works
        ("`**코드**`와 $x**2$ 수식\n", ()),  # code and math are not text
        ("별표 \\*\\* 두 개를 쓴다\n", ()),  # escaped on purpose
        ("a__b 와 __init__\n", ()),  # underscores inside words are text in CommonMark
    ],
)
def test_stars_shown_as_text_are_found_at_their_line(body: str, lines: tuple[int, ...]) -> None:
    rendered = render_markdown(body)
    assert tuple(line for line, _ in rendered.stray_emphasis) == lines
    for _, snippet in rendered.stray_emphasis:
        assert "**" in snippet or "~~" in snippet


def test_the_build_warns_at_the_file_line() -> None:
    found = body_warnings("Body.\n\n첫 문단 **'인용'**를 보자.\n", "emphasis-text")
    assert len(found) == 1
    assert (found[0].file, found[0].line) == ("content/ko/posts/p.md", 8)
    assert "**'인용'**를" in found[0].message and found[0].severity.value == "warning"
