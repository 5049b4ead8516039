"""render/markdown.py render_body: one parse of a body gives its page's HTML and the same render
cut into its sections (the side-by-side page's rows). The page's HTML must be what
render_markdown makes of the body, and the sections, their ids unprefixed, must join into it,
whatever Markdown the body is made of."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bipub.load.sections import split_sections
from bipub.render.markdown import MARK, render_body, render_markdown

LINES = st.sampled_from(
    [
        "# Title",
        "## Part",
        "## Part",  # the same heading again: ids made unique
        "Setext",
        "------",
        "paragraph with a note[^n] and [a link](#h-part)",
        "[^n]: the note, [back](#h-title)",
        "[^m]: a note never referenced",
        "```python",
        "x = 1  # [^n]",
        "```",
        "    indented code",
        "> ## quoted",
        "- item",
        "  - nested item",
        "1. first",
        "| a | b |",
        "|---|---|",
        "$$",
        "x^2",
        "inline $y$ math",
        "<div>raw</div>",
        "***",
        "",
        "",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(LINES, max_size=16), st.booleans())
def test_the_sections_join_into_the_page(lines: list[str], raw_html: bool) -> None:
    body = "\n".join(lines) + "\n"
    starts = tuple(sec.line - 1 for sec in split_sections(body, 1))
    rendered, sections = render_body(body, starts, raw_html=raw_html)
    assert rendered == render_markdown(body, raw_html=raw_html)
    parts, notes = sections.prefixed("")
    assert "".join(parts) + notes == rendered.html
    assert len(parts) == max(1, len(starts))
    prefixed, foot = sections.prefixed("en")
    assert MARK not in "".join(prefixed) + foot
    # every link to one of the body's headings follows its prefixed id, the footnotes' too
    # (a footnote's link back to a heading pointed nowhere on the side-by-side page)
    assert 'href="#h-' not in "".join(prefixed) + foot
