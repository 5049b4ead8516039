"""A body's HTML cut into its sections (load/sections.py: the units bipub pairs and aligns by
index) from the render of its page (render/markdown.py render_body): the side-by-side page
(render/both.py) shows two bodies' sections in rows, each body's ids prefixed by its language.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from markdown_it.token import Token

HEADING_PREFIX: Final = "h-"  # before every heading id (render/markdown.py heading_slug)

# Marks every id a body makes (its headings', its footnotes') in a render cut into sections:
# `Sections.prefixed` puts a prefix there, or nothing. A parsed body never holds it (markdown-it
# turns NUL into U+FFFD), nor does anything rendered from it.
MARK: Final = "\x00"
_FOOTNOTE_MARK: Final = f"-{MARK}-"  # the footnote plugin's ids: fn-<docId>-1, fnref-<docId>-1


# Where a body's top-level headings are: (first line, end line, level, ATX) of each, lines
# 0-based and the end excluded (a setext heading's underline is in it); llms-full.txt moves
# them (render/llms_body.py shift_headings).
Heads = tuple[tuple[int, int, int, bool], ...]


def top_headings(tokens: list[Token]) -> Heads:
    """The Heads of a body's block tokens."""
    return tuple(
        (t.map[0], t.map[1], int(t.tag[1]), t.markup.startswith("#"))
        for t in tokens
        if t.type == "heading_open" and t.level == 0 and t.map is not None
    )


@dataclass(frozen=True)
class Sections:
    """A body's HTML cut into its sections and its footnotes apart (`render_body`), each id it
    makes marked: `prefixed`; and where its top-level headings are."""

    parts: tuple[str, ...]
    notes: str
    heads: Heads = ()

    def prefixed(self, id_prefix: str) -> tuple[tuple[str, ...], str]:
        """The parts and the footnotes with `id_prefix` before every id the body makes (and
        the body's links to its headings, its permalinks, following them), so two bodies can
        share a page; "": the ids of the post's own page (`"".join(parts) + notes` is its
        HTML)."""
        if not id_prefix:
            return tuple(unmarked(p) for p in self.parts), unmarked(self.notes)
        foot, head = f"-{id_prefix}-", f"{id_prefix}-"
        old, new = f'href="#{HEADING_PREFIX}', f'href="#{id_prefix}-{HEADING_PREFIX}'
        parts = tuple(
            p.replace(_FOOTNOTE_MARK, foot).replace(MARK, head).replace(old, new)
            for p in self.parts
        )
        return parts, self.notes.replace(_FOOTNOTE_MARK, foot).replace(MARK, head)


def unmarked(html: str) -> str:
    return html.replace(_FOOTNOTE_MARK, "").replace(MARK, "") if MARK in html else html


def cut(tokens: list[Token], starts: tuple[int, ...]) -> tuple[list[list[Token]], list[Token]]:
    """The tokens of each part that begins at a line of `starts` (a part is cut only before a
    block of the top level, which renders as it does in the whole: no rule looks past it), with
    each heading's id marked (MARK), and the footnotes' tokens."""
    parts: list[list[Token]] = [[] for _ in starts] or [[]]
    notes: list[Token] = []
    at = 0
    for tok in tokens:
        if tok.type == "footnote_block_open" or notes:
            notes.append(tok)
            continue
        if tok.level == 0 and tok.nesting >= 0 and tok.map is not None:
            while at + 1 < len(starts) and tok.map[0] >= starts[at + 1]:
                at += 1
        if tok.type == "heading_open":
            tok.attrSet("id", f"{MARK}{tok.attrGet('id')}")
        parts[at].append(tok)
    return parts, notes
