"""render/workers.py `_fence_languages`: the code languages the warm-up pages are chosen by,
found from the fences' marks; the same as a multiline search of the fence expression at every
position (the reference kept here)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from bipub.render.workers import _fence_languages

_REFERENCE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})[ \t]*([^\s`{]+)", re.M)
_PIECES = ["`", "~", "```", "~~~", " ", "   ", "\t", "\n", "\r\n", "\u2028", "{", "py", "한국", "x"]


@settings(max_examples=500)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
def test_the_languages_are_those_a_multiline_search_finds(body: str) -> None:
    assert set(_fence_languages(body)) == set(_REFERENCE.findall(body))


def test_a_post_with_code_blocks() -> None:
    body = "글.\n\n```python\nx = 1\n```\n\n  ~~~ {.js}\n~~~\n    ```rust\n```bash title\n```\n"
    assert _fence_languages(body) == ["python", "bash"]
