"""A post's Markdown as llms-full.txt carries it: read away from the site, under the file's own
headings. `shift_headings` moves a body's headings under the post's title; `absolute_links` makes
its relative links and images absolute. Both change only what the Markdown parser takes for a
heading or a link target — never code, never text that merely looks like one.
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import urljoin

from markdown_it import MarkdownIt

from bipub.render.markdown import body_headings
from bipub.render.markdown_sections import Heads


@lru_cache(maxsize=1)
def _block_parser() -> MarkdownIt:
    return MarkdownIt("commonmark")


def shift_headings(body: str, top: int, heads: Heads | None = None, raw_html: bool = False) -> str:
    """A post's Markdown with its headings moved under the file's: the body's highest heading
    becomes level `top` (at most 6). The headings the post's page shows (bipub's Markdown, with
    the site's `raw_html`: ATX and setext headings outside code, math, quotes and lists) are
    moved; everything else is kept as written. `heads`: where they are, from the render of the
    page (MarkdownCache.heads: no parse here), else found by a parse of `body`."""
    if heads is None:
        heads = body_headings(body, raw_html)
    if not heads:
        return body
    highest = min(level for _, _, level, _ in heads)
    lines = body.split("\n")
    for start, end, level, atx in reversed(heads):  # (a setext heading's lines become one)
        moved = min(6, level - highest + top)
        if atx:
            text = re.sub(r"^ {0,3}#+", "", lines[start])
            lines[start] = "#" * moved + text
        else:  # setext: the text lines, then the underline
            text = " ".join(line.strip() for line in lines[start : end - 1])
            lines[start:end] = ["#" * moved + " " + text]
    return "\n".join(lines)


# a target as written: `<…>`, or bare with balanced parentheses one deep (`a_(b).png`)
_INLINE_LINK = re.compile(r"\]\(\s*(<[^>\n]*>|(?:[^\s()<>]|\([^\s()<>]*\))+)")
_REFERENCE = re.compile(r"^( {0,3}\[[^\]\n]+\]:[ \t]*)(<[^>\n]*>|\S+)", re.M)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_CODE_BLOCKS = ("fence", "code_block", "html_block")


def _relative(raw: str) -> bool:
    """Whether a link target as written (`<…>` or bare) is relative: what `absolute_links`
    changes (the same test decides both whether to parse and what to change)."""
    url = raw[1:-1] if raw.startswith("<") else raw
    return bool(url) and not _SCHEME.match(url) and not url.startswith("//")


def absolute_links(body: str, page: str) -> str:
    """A post's Markdown with its relative links and images made absolute against its page's
    URL, as a browser resolves them on the page (`figure.png`, `/assets/x.svg`, `#part`): the
    file is read away from the site. Only what the Markdown parser takes for a link or image
    target is changed — never code, never text that merely looks like one."""
    if not any(_relative(m.group(1)) for m in _INLINE_LINK.finditer(body)) and not any(
        _relative(m.group(2)) for m in _REFERENCE.finditer(body)
    ):
        return body  # no candidate the lines below could change: no parse (most posts)
    md = _block_parser()
    tokens = md.parse(body)
    targets: set[str] = set()
    code: set[int] = set()
    blocks: set[int] = set()  # the lines of blocks: the others hold link reference definitions
    for token in tokens:
        if token.map is not None and token.level == 0:
            blocks.update(range(*token.map))
        if token.type in _CODE_BLOCKS and token.map is not None:
            code.update(range(*token.map))
        for child in token.children or ():
            for name in ("href", "src"):
                value = child.attrs.get(name)
                if isinstance(value, str):
                    targets.add(value)
    if not targets:
        return body

    def resolve(raw: str) -> str | None:
        if not _relative(raw):
            return None  # absolute already
        url = raw[1:-1] if raw.startswith("<") else raw
        if md.normalizeLink(url) not in targets:
            return None
        absolute = urljoin(page, url)
        return f"<{absolute}>" if raw.startswith("<") else absolute

    lines = body.split("\n")
    for i, line in enumerate(lines):
        if i in code or ("](" not in line and "]:" not in line):
            continue

        def inline(m: re.Match[str], line: str = line) -> str:
            if line[: m.start()].count("`") % 2:  # inside a code span
                return m.group(0)
            new = resolve(m.group(1))
            return m.group(0) if new is None else m.group(0)[: m.start(1) - m.start()] + new

        def reference(m: re.Match[str]) -> str:
            new = resolve(m.group(2))
            return m.group(0) if new is None else m.group(1) + new

        if i in blocks:
            lines[i] = _INLINE_LINK.sub(inline, line)
        else:
            lines[i] = _REFERENCE.sub(reference, line)
    return "\n".join(lines)
