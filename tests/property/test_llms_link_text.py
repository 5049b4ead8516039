"""llms.py _link_text skips str.translate when there is nothing to escape: the same text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bipub.render.llms import _MARKDOWN_SPECIAL, _link_text, _one_line


@given(st.one_of(st.none(), st.text(), st.text(alphabet="\\[]<>a 가\n\t")))
def test_link_text_is_the_translated_line(text: str | None) -> None:
    assert _link_text(text) == _one_line(text).translate(_MARKDOWN_SPECIAL)


def test_link_text_escapes() -> None:
    assert _link_text("x](javascript:alert(1)) <b>") == "x\\](javascript:alert(1)) \\<b\\>"
    assert _link_text("제목 [1]") == "제목 \\[1\\]"
