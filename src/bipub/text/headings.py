"""A heading's id: `h-` and a slug of its text (`## 결론` → `h-결론`, `## Conclusion` →
`h-conclusion`), made unique in its page as the renderer makes it (`-1`, `-2` after a repeated
one). The renderer (render/markdown.py: markdown-it-py's anchors plugin with `heading_slug`),
the drafter (translate/anchors.py: a draft's in-page links to the translation's headings) and
QA (check/anchors.py: an in-page link naming no heading of its page) read ids here.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Final

from mdit_py_plugins.anchors.index import unique_slug

from bipub.text.markdown import parser

HEADING_PREFIX: Final = "h-"  # before every heading id


@lru_cache(maxsize=4096)  # pure; asked for every heading of every body (the same few texts)
def heading_slug(text: str) -> str:
    value = unicodedata.normalize("NFC", text).strip().lower()
    value = re.sub(r"[^\w\- ]+", "", value)
    value = re.sub(r"\s+", "-", value).strip("-")
    return HEADING_PREFIX + (value or "section")


def heading_ids(body: str) -> list[str]:
    """The id of each heading of a page's Markdown body, in order (its text: the heading's
    text and code spans, as the anchors plugin reads it)."""
    tokens = parser().parse(body)
    seen: set[str] = set()
    out: list[str] = []
    for i, tok in enumerate(tokens):
        if tok.type != "heading_open":
            continue
        title = "".join(
            child.content
            for child in tokens[i + 1].children or []
            if child.type in ("text", "code_inline")
        )
        out.append(unique_slug(heading_slug(title), seen))
    return out
