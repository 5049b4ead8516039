"""What other outputs take from the one render of a body's page (render/markdown.py
render_body), so that none parses it again: its HTML cut into its sections (load/sections.py: the
units bipub pairs and aligns by index), which the side-by-side page (render/both.py) shows in rows,
each body's ids prefixed by its language; and its `Outline` for llms-full.txt
(render/llms_body.py): where its headings are, what its links point to.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from markdown_it.token import Token

from bipub.text.headings import HEADING_PREFIX as HEADING_PREFIX  # (bipub.text.headings)

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


# a link target as written: `<…>`, or bare with balanced parentheses one deep (`a_(b).png`)
INLINE_LINK = re.compile(r"\]\(\s*(<[^>\n]*>|(?:[^\s()<>]|\([^\s()<>]*\))+)")
REFERENCE = re.compile(r"^( {0,3}\[[^\]\n]+\]:[ \t]*)(<[^>\n]*>|\S+)", re.M)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
# what holds no link: code, raw HTML, math (dollarmath's blocks)
_CODE_BLOCKS = frozenset({"fence", "code_block", "html_block", "math_block", "math_block_label"})


def is_relative(raw: str) -> bool:
    """Whether a link target as written (`<…>` or bare) is relative: what llms-full.txt makes
    absolute (the same test decides both whether to look for links and what to change)."""
    url = raw[1:-1] if raw.startswith("<") else raw
    return bool(url) and not _SCHEME.match(url) and not url.startswith("//")


def relative_candidates(body: str) -> bool:
    """Whether the body has text that may be a relative link (most bodies have none)."""
    return any(is_relative(m.group(1)) for m in INLINE_LINK.finditer(body)) or any(
        is_relative(m.group(2)) for m in references(body)
    )


def references(body: str) -> Iterator[re.Match[str]]:
    """`REFERENCE.finditer(body)`, looking only at the lines that hold "]:" (a match lies
    within one line, from its start, and holds "]:"): `re` would try the pattern at every
    character of the body (~30 times slower on a body without link definitions)."""
    find = body.find
    at = find("]:")
    while at >= 0:
        found = REFERENCE.match(body, body.rfind("\n", 0, at) + 1)
        if found is not None:
            yield found
        end = find("\n", at)
        if end < 0:
            return
        at = find("]:", end)


Spans = tuple[tuple[int, int], ...]  # line ranges: 0-based, the end excluded


@dataclass(frozen=True)
class Links:
    """A body's links as its render found them: the targets of its links and images (as
    markdown-it normalized them), the lines of its code (and raw HTML and math) blocks, and
    those of its blocks (the other lines hold link reference definitions)."""

    targets: frozenset[str]
    code: Spans
    blocks: Spans


@dataclass(frozen=True)
class Outline:
    """What llms-full.txt needs of a body's parse (render/llms_body.py): where its top-level
    headings are, and its links (None: no relative link, nothing to make absolute)."""

    heads: Heads
    links: Links | None = None

    def skipped(self, skip: int) -> Outline:
        """The same, for the body without its first `skip` lines (its leading blank lines)."""
        if not skip:
            return self

        def move(spans: Spans) -> Spans:
            return tuple((start - skip, end - skip) for start, end in spans)

        heads = tuple(
            (start - skip, end - skip, level, atx) for start, end, level, atx in self.heads
        )
        links = self.links
        if links is not None:
            links = Links(links.targets, move(links.code), move(links.blocks))
        return Outline(heads, links)


def outline(tokens: list[Token], source: str) -> Outline:
    """The Outline of a body's tokens (as parsed: before the render marks its images)."""
    if not relative_candidates(source):
        return Outline(top_headings(tokens))
    targets: set[str] = set()
    code: list[tuple[int, int]] = []
    blocks: list[tuple[int, int]] = []
    for token in tokens:
        if token.map is not None:  # (a footnote's blocks too: they are moved to the end)
            blocks.append((token.map[0], token.map[1]))
        if token.type in _CODE_BLOCKS and token.map is not None:
            code.append((token.map[0], token.map[1]))
        if token.map is not None and token.type == "inline" and "$$" in token.content:
            code += _formula_lines(token, token.map[0])
        targets.update(link_targets(token))
    links = Links(frozenset(targets), tuple(code), tuple(blocks))
    return Outline(top_headings(tokens), links)


def link_targets(token: Token) -> Iterator[str]:
    """The link and image targets an inline token's children write (as markdown-it normalized
    them; not a heading's permalink, which anchors_plugin adds: it is not in the Markdown)."""
    for child in token.children or ():
        if child.attrs.get("class") == "header-anchor":
            continue
        for name in ("href", "src"):
            value = child.attrs.get(name)
            if isinstance(value, str):
                yield value


def _formula_lines(token: Token, first: int) -> list[tuple[int, int]]:
    """The lines inside each `$$…$$` formula of a paragraph that spans lines (session 29:
    display math inside a paragraph), between its first and its last: they hold no link. (A
    line a formula shares with text is left to the line's own reading, as a `$…$` one's.)"""
    spans = []
    at = 0
    for child in token.children or ():
        if child.type != "math_inline_double" or "\n" not in child.content:
            continue
        written = f"$${child.content}$$"
        start = token.content.find(written, at)
        if start < 0:
            continue
        at = start + len(written)
        top = first + token.content.count("\n", 0, start)
        bottom = top + written.count("\n")
        if bottom - top > 1:
            spans.append((top + 1, bottom))
    return spans


@dataclass(frozen=True)
class Sections:
    """A body's HTML cut into its sections and its footnotes apart (`render_body`), each id it
    makes marked: `prefixed`; and its Outline."""

    parts: tuple[str, ...]
    notes: str
    outline: Outline = Outline(())
    explicit: frozenset[str] = frozenset()  # its headings' own ids (`{#conclusion}`) but `h-…`

    def prefixed(self, id_prefix: str) -> tuple[tuple[str, ...], str]:
        """The parts and the footnotes with `id_prefix` before every id the body makes (and
        the body's links to its headings, its permalinks, following them), so two bodies can
        share a page; "": the ids of the post's own page (`"".join(parts) + notes` is its
        HTML)."""
        if not id_prefix:
            return tuple(unmarked(p) for p in self.parts), unmarked(self.notes)
        foot, head = f"-{id_prefix}-", f"{id_prefix}-"
        links = [(f'href="#{HEADING_PREFIX}', f'href="#{id_prefix}-{HEADING_PREFIX}')]
        links += [(f'href="#{name}"', f'href="#{id_prefix}-{name}"') for name in self.explicit]

        def prefix(html: str) -> str:
            html = html.replace(_FOOTNOTE_MARK, foot).replace(MARK, head)
            for old, new in links:
                html = html.replace(old, new)
            return html

        return tuple(map(prefix, self.parts)), prefix(self.notes)


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
