"""bipub's Markdown dialect for reading (not rendering): CommonMark + GFM tables +
strikethrough + footnotes, raw HTML recognised as HTML.

`bipub check` (check/qa.py) and the drafter (translate/segments.py) both parse with `parser()`,
so what one calls code, HTML or prose the other does too. The renderer (render/markdown.py)
builds the same dialect with its own plugins on top (anchors, link validation).

GitHub's task lists (`- [x] done`, `- [ ] to do`) are read the same way by all three through
`task_marker`: the renderer draws a checkbox for the marker, the drafter keeps it out of the
text it sends, and QA compares the markers of source and translation.

GitHub's alerts (a block quote whose first line is `[!NOTE]`, `[!TIP]`, `[!IMPORTANT]`,
`[!WARNING]` or `[!CAUTION]`: markdown-it-py's `alerts` option) are read by all three too: the
marker line is structure the drafter never sends (the title token markdown-it adds has no line),
QA compares the kinds of source and translation, and the renderer titles each in its page's
language (render/markdown_alerts.py).

Bare URLs (`https://…`, `www.…`, e-mail addresses) stay text in this reading dialect; where one
ends — a Korean particle glued to it is not part of it — is one rule, bipub.text.urls, which the
drafter's inline scanner (translate/markdown_inline.py), QA's link targets (check/qa_facts.py) and
the renderer's links (render/markdown_autolinks.py) all use.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.footnote import footnote_plugin

#: A task list item's marker at the start of its first paragraph: `[ ]`, `[x]` or `[X]` and the
#: white space after it (GFM: https://github.github.com/gfm/#task-list-items-extension-).
TASK_MARKER = re.compile(r"\[([ xX])\][ \t\n\v\f\r]+")
#: Emphasis markers a page shows as text (in a `text` token): `**`/`~~` that did not open or
#: close. (`__` is left out: between letters it is text in CommonMark, as `a__b` means it.)
SHOWN_MARKERS = re.compile(r"\*\*+|~~+")


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    """The reading dialect. Footnote definitions stay where they are written, each with its
    line map: the plugin's `footnote_tail` (moving them to the end, dropping any that the text
    does not reference) is off, since a unit is one section of a post and its definitions are
    mostly referenced from other sections — dropped, their prose was neither sent to the
    drafter nor read by QA."""
    md = MarkdownIt("commonmark", {"html": True, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.options["alerts"] = True  # `> [!NOTE]` (markdown-it-py ≥ 4.1)
    md.use(footnote_plugin)
    md.core.ruler.disable("footnote_tail")
    return md


def alert_title(tokens: Sequence[Token], i: int) -> bool:
    """Whether the inline token `tokens[i]` is the title markdown-it-py gives an alert ("Note"
    for `> [!NOTE]`): not text of the document."""
    return i > 0 and tokens[i - 1].type == "alert_title_open"


def task_marker(tokens: Sequence[Token], i: int) -> re.Match[str] | None:
    """The task marker of the inline token `tokens[i]` (its match in the inline's `content`),
    if that inline is the first paragraph of a list item and starts with one (before any other
    inline markup: `[x]` that is a link to a `[x]: …` definition is a link, as on GitHub)."""
    tok = tokens[i]
    if (
        i < 2
        or tok.type != "inline"
        or tokens[i - 1].type != "paragraph_open"
        or tokens[i - 2].type != "list_item_open"
    ):
        return None
    m = TASK_MARKER.match(tok.content)
    if m is None or m.end() >= len(tok.content):  # `- [x]` alone is no task
        return None
    children = tok.children
    if children and (children[0].type != "text" or not children[0].content.startswith(m[0])):
        return None
    return m


def ticked(marker: re.Match[str]) -> bool:
    """Whether a task marker (`task_marker`) says done: `[x]` or `[X]`."""
    return marker[1] in "xX"
