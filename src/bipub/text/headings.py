"""A heading's id: `h-` and a slug of its text (`## 결론` → `h-결론`, `## Conclusion` →
`h-conclusion`), made unique in its page as the renderer makes it (`-1`, `-2` after a repeated
one). The renderer (render/markdown.py: markdown-it-py's anchors plugin with `heading_slug`),
the drafter (translate/anchors.py: a draft's in-page links to the translation's headings) and
QA (check/anchors.py: an in-page link naming no heading of its page) read ids here.

An author may give a heading its own id, as Hugo, MkDocs (attr_list), Pandoc and kramdown
read it: a trailing `{#id}` (`## 결론 {#conclusion}`, spaces before it optional). The id is used
as written (`#conclusion`, no `h-`), so a Korean and an English heading can share it.
`heading_attribute` reads it — for the renderer, the drafter (which never sends it) and QA.
Accepted: `[A-Za-z][A-Za-z0-9_-]*` alone in the braces. Anything else in trailing braces that
starts with `#` or `.` (`{#결론}`, `{.class}`, `{#a .b}`, `{#a key=v}`) is not read: it stays text
and the renderer warns (`heading-id`).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Final, NamedTuple

from mdit_py_plugins.anchors.index import unique_slug

from bipub.text.markdown import parser

HEADING_PREFIX: Final = "h-"  # before every heading id

# A heading's trailing attribute as written (its inline source, its last line): the `{#id}`
# read (group "id"), or any other `{#…}` / `{.…}` (not read). `\{` (escaped) is text.
_TRAILING = re.compile(r"(?<!\\)[ \t]*(\{[#.][^{}\n]*\})[ \t]*$")
_ID = re.compile(r"\{#([A-Za-z][A-Za-z0-9_-]*)\}")


class HeadingAttribute(NamedTuple):
    """What `heading_attribute` read of a heading's text."""

    text: str  # the text without the attribute (as it was, when there is none or it is refused)
    id: str | None  # the explicit id (None: none)
    refused: str | None = None  # a trailing `{#…}`/`{.…}` that is not read (left in `text`)
    tail: str = ""  # what `text` lost: the attribute and the spaces before it


@lru_cache(maxsize=4096)
def heading_attribute(content: str) -> HeadingAttribute:
    """A heading's text as written (its inline content: `결론 {#conclusion}`) → its text
    without a trailing `{#id}` and the id."""
    found = _TRAILING.search(content) if content.endswith("}") else None
    if found is None:
        return HeadingAttribute(content, None)
    written = found.group(1)
    read = _ID.fullmatch(written)
    if read is None:
        return HeadingAttribute(content, None, written)
    return HeadingAttribute(content[: found.start()], read.group(1), None, found.group(0))


@lru_cache(maxsize=4096)  # pure; asked for every heading of every body (the same few texts)
def heading_slug(text: str) -> str:
    value = unicodedata.normalize("NFC", text).strip().lower()
    value = re.sub(r"[^\w\- ]+", "", value)
    value = re.sub(r"\s+", "-", value).strip("-")
    return HEADING_PREFIX + (value or "section")


def heading_ids(body: str) -> list[str]:
    """The id of each heading of a page's Markdown body, in order: its `{#id}`, else made of its
    text (the heading's text and code spans, as the anchors plugin reads it; the plugin
    reserves the explicit ids first)."""
    tokens = parser().parse(body)
    inlines = [tokens[i + 1] for i, tok in enumerate(tokens) if tok.type == "heading_open"]
    explicit = [heading_attribute(inline.content).id for inline in inlines]
    seen = {found for found in explicit if found}
    out: list[str] = []
    for inline, found in zip(inlines, explicit, strict=True):
        if found:
            out.append(found)
            continue
        title = "".join(
            child.content
            for child in inline.children or []
            if child.type in ("text", "code_inline")
        )
        out.append(unique_slug(heading_slug(title), seen))
    return out
