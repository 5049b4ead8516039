"""bipub's Markdown dialect for reading (not rendering): CommonMark + GFM tables +
strikethrough + footnotes, raw HTML recognised as HTML.

`bipub check` (check/qa.py) and the drafter (translate/segments.py) both parse with `parser()`,
so what one calls code, HTML or prose the other does too. The renderer (render/markdown.py)
builds the same dialect with its own plugins on top (anchors, link validation).
"""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from mdit_py_plugins.footnote import footnote_plugin


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.use(footnote_plugin)
    return md
