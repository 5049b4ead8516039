"""A footnote definition nothing references is dropped from the page by markdown-it: the build
says so at its line (`footnote-unused`), instead of losing it silently."""

from __future__ import annotations

from bipub.render.markdown import render_markdown
from tests.conftest import body_warnings


def test_an_unreferenced_definition_is_named_with_its_line() -> None:
    body = "Text[^a].\n\n[^a]: used\n\n[^b]: never referenced\n"
    rendered = render_markdown(body)
    assert "never referenced" not in rendered.html  # (what markdown-it does with it)
    assert rendered.unused_footnotes == ((5, "b"),)
    assert render_markdown("Text[^a].\n\n[^a]: used\n").unused_footnotes == ()


def test_the_build_warns_at_the_file_line() -> None:
    found = body_warnings(
        "Body.\n\n[^gone]: lost note\n", "footnote-unused", "content/en/posts/p.md"
    )
    assert len(found) == 1
    assert (found[0].file, found[0].line) == ("content/en/posts/p.md", 8)
    assert "[^gone]" in found[0].message and found[0].severity.value == "warning"
