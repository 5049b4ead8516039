"""llms.py `_joined` joins llms-full.txt's parts as bytes (kept encoded by a build, tens of MB
on a big site): the same bytes as the text join it stands for, whatever the parts end with —
Unicode spaces (str.rstrip strips them, bytes.rstrip would not), parts of spaces only."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bipub.render.llms import _joined, _stripped

parts = st.lists(st.text(alphabet="a가 \n\t\u3000\u00a0\u2028\x1c#"), max_size=6)


@given(parts)
def test_joined_is_the_text_join(texts: list[str]) -> None:
    expected = "\n\n".join(t for t in texts if t).rstrip() + "\n"
    assert _joined([t.encode("utf-8") for t in texts]) == expected.encode("utf-8")


@given(parts, st.lists(st.text(alphabet="a가 \n\t\u3000\u00a0\u2028\x1c#", min_size=1), max_size=6))
def test_joined_takes_texts_known_not_empty_as_they_are(texts: list[str], more: list[str]) -> None:
    """`more` (each post's text: never empty) joins after the others, unfiltered, the same."""
    expected = "\n\n".join([t for t in texts if t] + more).rstrip() + "\n"
    head = [t.encode("utf-8") for t in texts]
    assert _joined(head, [t.encode("utf-8") for t in more]) == expected.encode("utf-8")


@given(parts)
def test_stripped_is_the_text_join_of_lines(lines: list[str]) -> None:
    """llms.txt's lines (the posts' kept encoded) are joined by `_stripped` as
    `"\\n".join(...).rstrip()` would, whatever its last lines end with."""
    expected = "\n".join(lines).rstrip() + "\n"
    assert _stripped(b"\n", [t.encode("utf-8") for t in lines]) == expected.encode("utf-8")
