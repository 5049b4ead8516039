"""load/front_matter.py split_front_matter reads a file only up to its closing `---` line: the
same Split (YAML text, lines, body) or the same error as splitting the whole text into lines."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bipub.load.front_matter import FrontMatterError, Split, split_front_matter


def _by_lines(text: str) -> Split | str:
    """The rule spelled out: every line (split at "\\n"), the first `---`, the next `---` or
    `...` closes (trailing whitespace allowed), the body is every line after it."""
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        return "missing"
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            return Split("\n".join(lines[1:i]) + "\n", 2, "\n".join(lines[i + 1 :]), i + 2)
    return "unclosed"


def _split(text: str) -> Split | str:
    try:
        return split_front_matter(text, "f.md")
    except FrontMatterError as exc:
        return "missing" if "missing" in exc.diagnostic.message else "unclosed"


_PIECES = st.sampled_from(
    [
        "---",
        "...",
        "-",
        ".",
        "\n",
        "\n---",
        "\n...",
        "\n--- ",
        "a",
        "b: 1",
        " ",
        "\t",
        "\r",
        "\x0c",
        "\u2028",
        "가",
    ]
)


@settings(max_examples=1500, deadline=None)
@given(st.lists(_PIECES, max_size=16).map("".join), st.sampled_from(["", "---\n", "--- \r\n"]))
def test_split_is_the_line_rule(rest: str, start: str) -> None:
    text = start + rest
    assert _split(text) == _by_lines(text)


@pytest.mark.parametrize(
    "text",
    [
        "---\ntitle: a\n---\nbody\n",
        "---\n---\n",
        "---\n---",
        "---\ntitle: a\n...  \n\nbody",
        "---",
        "---\n",
        "--- \t\na: 1\n---\t\n# x\n---\nmore",
        "x\n---\n",
        "",
    ],
)
def test_split_examples(text: str) -> None:
    assert _split(text) == _by_lines(text)
