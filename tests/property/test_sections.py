"""split_sections (pair/units.py) looks only at heading and fence lines; it must split exactly
as the line-by-line reading it replaced (kept here as the reference)."""

from __future__ import annotations

import pickle
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from bipub.load.content import Document
from bipub.pair.units import Section, split_sections, text_hash

_FENCE = re.compile(r"^(\s{0,3})(`{3,}|~{3,})")
_HEADING = re.compile(r"^#{1,6}\s")


def _reference(body: str, first_line: int) -> list[Section]:
    sections: list[Section] = []
    current: list[str] = []
    start = first_line
    fence: str | None = None
    for offset, line in enumerate(body.split("\n")):
        lead = line.lstrip(" ")[:1]
        m = _FENCE.match(line) if lead in ("`", "~") else None
        if m:
            marker = m.group(2)
            if fence is None:
                fence = marker[0] * len(marker)
            elif line.strip().startswith(fence) and set(line.strip()) <= {fence[0]}:
                fence = None
        if fence is None and lead == "#" and current and _HEADING.match(line):
            text = "\n".join(current).strip("\n")
            if text.strip():
                sections.append(Section(len(sections), text, start))
            current = []
            start = first_line + offset
        if not current and not line.strip():
            start = first_line + offset + 1
            continue
        current.append(line)
    text = "\n".join(current).strip("\n")
    if text.strip():
        sections.append(Section(len(sections), text, start))
    return sections


_LINES = st.sampled_from(
    [
        "",
        " ",
        "\t",
        "text",
        "한국어 문장.",
        "# Title",
        "## Sub",
        "#no-space",
        " # indented",
        "####### seven",
        "#\t tab",
        "```",
        "```python",
        "````",
        "   ```",
        "    ```",
        "\t```",
        "~~~",
        "~~~~ info",
        " ~~~",
        "``` a`b",
        "``",
        "`code`",
        "~~x~~",
        "\r",
        "text\r",
        "#\r",
        "```\r",
        "- item",
        "> quote",
    ]
)


@settings(max_examples=400)
@given(st.lists(_LINES, max_size=40), st.integers(min_value=1, max_value=30))
def test_split_matches_the_line_by_line_reference(lines: list[str], first_line: int) -> None:
    body = "\n".join(lines)
    assert split_sections(body, first_line) == _reference(body, first_line)


@given(st.text(alphabet="#`~ \n\tab\r가", max_size=200))
def test_split_matches_the_reference_on_any_text(body: str) -> None:
    assert split_sections(body, 1) == _reference(body, 1)


def test_headings_inside_fences_do_not_split() -> None:
    body = "intro\n# One\n```\n# not a heading\n```\n## Two\ntext"
    assert [s.text.split("\n")[0] for s in split_sections(body, 5)] == ["intro", "# One", "## Two"]
    assert [s.line for s in split_sections(body, 5)] == [5, 6, 10]


def _cached(body: str, first_line: int) -> Document:
    """A document as a warm build gets it from the build cache (pickled with section spans)."""
    doc = Document("content/ko/posts/x.md", "ko", "posts", "x", None, body, first_line, None)  # type: ignore[arg-type]
    return pickle.loads(pickle.dumps(doc))


@settings(max_examples=400)
@given(st.lists(_LINES, max_size=40), st.integers(min_value=1, max_value=30))
def test_sections_of_a_cached_document_are_split_sections(
    lines: list[str], first_line: int
) -> None:
    """The build cache keeps each section as a slice of the body and its digest; what comes back
    is what split_sections gives, each with text_hash as its digest."""
    body = "\n".join(lines)
    cached = _cached(body, first_line)
    assert "sections" not in vars(cached)
    assert cached.sections == tuple(split_sections(body, first_line))
    assert [vars(s)["digest"] for s in cached.sections] == [
        text_hash(s.text) for s in cached.sections
    ]
    again = pickle.loads(pickle.dumps(cached))  # and again, from the rebuilt sections
    assert again.sections == cached.sections
    assert [s.digest for s in again.sections] == [s.digest for s in cached.sections]


@given(st.text(alphabet="#`~ \n\tab\r가", max_size=200))
def test_sections_of_a_cached_document_on_any_text(body: str) -> None:
    cached = _cached(body, 1)
    assert cached.sections == tuple(split_sections(body, 1))
    assert [s.digest for s in cached.sections] == [text_hash(s.text) for s in cached.sections]


def test_repeated_section_texts_come_back_in_place() -> None:
    body = "# A\n\nsame\n\n# A\n\nsame\n\n\n# A\n\nsame"
    cached = _cached(body, 3)
    assert cached.sections == tuple(split_sections(body, 3))
    assert [s.line for s in cached.sections] == [3, 7, 12]
