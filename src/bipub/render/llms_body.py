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


@lru_cache(maxsize=1)
def _block_parser() -> MarkdownIt:
    return MarkdownIt("commonmark")


@lru_cache(maxsize=1)
def _blocks_only() -> MarkdownIt:
    """The same block parse without the inline one (headings need no more): half the cost."""
    md = MarkdownIt("commonmark")
    md.core.ruler.disable(["inline"])
    return md


def shift_headings(body: str, top: int) -> str:
    """A post's Markdown with its headings moved under the file's: the body's highest heading
    becomes level `top` (at most 6). ATX and setext headings outside code, quotes and lists are
    moved; everything else is kept as written."""
    tokens = [t for t in _blocks_only().parse(body) if t.type == "heading_open" and t.level == 0]
    if not tokens:
        return body
    highest = min(int(t.tag[1]) for t in tokens)
    lines = body.split("\n")
    for token in reversed(tokens):  # (a setext heading's lines become one)
        if token.map is None:
            continue
        start, end = token.map
        level = min(6, int(token.tag[1]) - highest + top)
        if token.markup.startswith("#"):
            text = re.sub(r"^ {0,3}#+", "", lines[start])
            lines[start] = "#" * level + text
        else:  # setext: the text lines, then the underline
            text = " ".join(line.strip() for line in lines[start : end - 1])
            lines[start:end] = ["#" * level + " " + text]
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
