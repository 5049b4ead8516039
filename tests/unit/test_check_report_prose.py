"""The HTML check report's unit texts: prose escaped as it is, code spans and fenced blocks in
<code> (monospace; the prose around them is proportional, see tests/browser)."""

from __future__ import annotations

from bipub.check.report import _prose_html


def test_code_spans_and_fences_are_code_and_the_rest_is_escaped_prose() -> None:
    text = "Use `a<b>` and ``x ` y`` here.\n\n```python\nif a < b:\n    pass\n```\n끝 <i>"
    html = _prose_html(text)
    assert html == (
        "Use <code>`a&lt;b&gt;`</code> and <code>``x ` y``</code> here.\n\n"
        '<code class="fence">```python\nif a &lt; b:\n    pass\n```</code>\n끝 &lt;i&gt;'
    )


def test_an_unclosed_fence_runs_to_the_end_and_a_longer_fence_closes_only_itself() -> None:
    assert _prose_html("a\n~~~~\nx\n~~~\ny") == 'a\n<code class="fence">~~~~\nx\n~~~\ny</code>'
    assert _prose_html("````\n```\n````\nz") == '<code class="fence">````\n```\n````</code>\nz'
