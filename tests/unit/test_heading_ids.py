"""bipub.text.headings: the heading ids the drafter and QA read are the ids the renderer gives."""

from __future__ import annotations

import re

import pytest

from bipub.render.markdown import render_markdown
from bipub.text.headings import heading_ids

BODY = (
    "[결론](#h-결론)\n\n## 결론\n\n끝.\n\n## 결론\n\n또.\n\n### `block_size` 와 **KV** 캐시\n\n"
    "## Conclusion!\n\n## [링크](https://example.org/) 제목\n"
)


@pytest.mark.parametrize("fast", [False, True])
def test_heading_ids_are_the_rendered_ids(fast: bool) -> None:
    html = render_markdown(BODY, fast=fast).html
    rendered = re.findall(r'<h[1-6][^>]* id="([^"]+)"', html)
    assert heading_ids(BODY) == rendered
    assert rendered[:2] == ["h-결론", "h-결론-1"]
