"""render/markdown_sections.py `references`: the link reference definitions of a body, found on
the lines that hold "]:" instead of by a regex scan of the whole body. They must be exactly the
matches of `REFERENCE.finditer`, on any text."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from bipub.render.markdown_sections import REFERENCE, references

PIECES = st.sampled_from(
    [
        "[a]:",
        "[^1]:",
        "]:",
        "[",
        "]",
        ":",
        " ",
        "   ",
        "    ",
        "\t",
        "\n",
        "\r",
        "x",
        "<u>",
        "<",
        ">",
        "../p.png",
        "https://e.org/",
        "[a]: <b c>",
        "\n[r]: ./x\n",
    ]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(PIECES, max_size=30).map("".join))
@example("[a]: x\n[b]: y")
@example("x [a]: y\n   [b]:\tz")
@example("]:\n[a]: b")
@example("[a]: b ]: c\n")
def test_references_are_the_regex_matches(body: str) -> None:
    found = [(m.span(), m.groups()) for m in references(body)]
    assert found == [(m.span(), m.groups()) for m in REFERENCE.finditer(body)]
