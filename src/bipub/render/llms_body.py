"""A post's Markdown as llms-full.txt carries it: read away from the site, under the file's own
headings. `shift_headings` moves a body's headings under the post's title; `absolute_links` makes
its relative links and images absolute. Both change only what the post's page shows as a heading
or a link target (bipub's Markdown) — never code, never text that merely looks like one; both
take where those are from the render of the page (render/markdown_sections.py Outline), else
from a parse of their own.
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import urljoin

from markdown_it import MarkdownIt

from bipub.render.markdown import body_outline
from bipub.render.markdown_sections import (
    INLINE_LINK,
    REFERENCE,
    Heads,
    Links,
    is_relative,
    relative_candidates,
)
from bipub.text.headings import heading_attribute


@lru_cache(maxsize=1)
def _normalizer() -> MarkdownIt:
    return MarkdownIt("commonmark")  # (its normalizeLink: what markdown-it makes of a target)


def _normalize(url: str) -> str:
    return str(_normalizer().normalizeLink(url))


def shift_headings(body: str, top: int, heads: Heads | None = None, raw_html: bool = False) -> str:
    """A post's Markdown with its headings moved under the file's: the body's highest heading
    becomes level `top` (at most 6). The headings the post's page shows (bipub's Markdown, with
    the site's `raw_html`: ATX and setext headings outside code, math, quotes and lists) are
    moved; everything else is kept as written. `heads`: where they are, from the render of the
    page (MarkdownCache.outlines: no parse here), else found by a parse of `body`. A moved
    heading loses its `{#id}` (bipub.text.headings), as its page shows it."""
    if heads is None:
        heads = body_outline(body, raw_html).heads
    if not heads:
        return body
    highest = min(level for _, _, level, _ in heads)
    lines = body.split("\n")
    for start, end, level, atx in reversed(heads):  # (a setext heading's lines become one)
        moved = min(6, level - highest + top)
        if atx:
            text = re.sub(r"^ {0,3}#+", "", lines[start])
            if "{" in text:
                text = _without_id(text)
            lines[start] = "#" * moved + text
        else:  # setext: the text lines, then the underline
            text = " ".join(line.strip() for line in lines[start : end - 1])
            lines[start:end] = ["#" * moved + " " + heading_attribute(text).text]
    return "\n".join(lines)


_ATX_CLOSE = re.compile(r"[ \t]+#+[ \t]*$")


def _without_id(text: str) -> str:
    """An ATX heading's line after its `#`s, without its `{#id}` (and its closing `#`s then)."""
    read = heading_attribute(_ATX_CLOSE.sub("", text).strip())
    return f" {read.text}" if read.id is not None else text


def absolute_links(body: str, page: str, links: Links | None = None, raw_html: bool = False) -> str:
    """A post's Markdown with its relative links and images made absolute against its page's
    URL, as a browser resolves them on the page (`figure.png`, `/assets/x.svg`, `#part`): the
    file is read away from the site. Only what the post's page shows as a link or image target
    (bipub's Markdown with the site's `raw_html`) is changed — never code or math, never text
    that merely looks like one. `links`: the body's links as its page's render found them
    (MarkdownCache.outlines: no parse here), else found by a parse of `body`."""
    if links is None:
        if not relative_candidates(body):
            return body  # no candidate the lines below could change: no parse (most posts)
        links = body_outline(body, raw_html).links
        assert links is not None  # (a candidate)
    targets = links.targets
    if not targets:
        return body
    code = {i for start, end in links.code for i in range(start, end)}
    blocks = {i for start, end in links.blocks for i in range(start, end)}

    def resolve(raw: str) -> str | None:
        if not is_relative(raw):
            return None  # absolute already
        url = raw[1:-1] if raw.startswith("<") else raw
        if _normalize(url) not in targets:
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
            lines[i] = INLINE_LINK.sub(inline, line)
        else:
            lines[i] = REFERENCE.sub(reference, line)
    return "\n".join(lines)
