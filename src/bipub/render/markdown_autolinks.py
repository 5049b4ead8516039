"""Bare URLs linked, as GitHub, GitLab and Hugo link them (GFM's autolink extension): `http://…`,
`https://…`, `www.…` and e-mail addresses in the text of a paragraph, a heading, a list item or
a table cell become links; not inside a link, an image's text, code or raw HTML.

Where a bare URL ends is bipub.text.urls's rule, which the drafter and QA read too: a Korean
particle glued to a URL is not part of it ("…/latest/에서 확인한다": the link ends at `/`). A URL
kept whole though it may end in one (`…/wiki/트랜스포머를`: the rule cannot tell) is said, with
its line (`ambiguous_urls`: the render warning `url-particle`).

A core rule on the inline tokens (as markdown-it's own `linkify`), after `text_join`: it reads
the same text tokens QA reads (check/qa_facts.py), and gives the same tokens on the fast path
(render/markdown_fast.py changes nothing it sees). Each link goes through the parser's
`normalizeLink` and `validateLink` (render/markdown.py: bipub's link validation).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import isLinkClose, isLinkOpen
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from bipub.text.urls import bare_urls

#: What every bare URL has (a quick test before the token walk).
_MAYBE = re.compile(r"://|www\.|@|mailto:")
#: The env key the ambiguous URLs go to: (line in the body, URL as written).
AMBIGUOUS = "bipub_ambiguous_urls"


def _text(content: str, level: int) -> Token:
    token = Token("text", "", 0)
    token.content = content
    token.level = level
    return token


def _split(md: MarkdownIt, tok: Token, row: int | None, found: list[Any]) -> list[Token]:
    """A text token as text and links, one for each bare URL in it (`[tok]`: none)."""
    text, level = tok.content, tok.level
    nodes: list[Token] = []
    last = 0
    for url in bare_urls(text):
        href = md.normalizeLink(url.href)
        if not md.validateLink(href):
            continue
        if url.start > last:
            nodes.append(_text(text[last : url.start], level))
        opening = Token("link_open", "a", 1)
        opening.attrs = {"href": href}
        opening.level, opening.markup, opening.info = level, "linkify", "auto"
        closing = Token("link_close", "a", -1)
        closing.level, closing.markup, closing.info = level, "linkify", "auto"
        nodes += [opening, _text(md.normalizeLinkText(url.text), level + 1), closing]
        last = url.end
        if url.ambiguous:
            found.append((row, url.text))
    if not nodes:
        return [tok]
    if last < len(text):
        nodes.append(_text(text[last:], level))
    return nodes


def _linked(md: MarkdownIt, children: list[Token], row: int | None, found: list[Any]) -> None:
    out: list[Token] = []
    links = html_links = 0
    for tok in children:
        kind = tok.type
        if kind == "link_open":
            links += 1
        elif kind == "link_close":
            links -= 1
        elif kind == "html_inline":
            if isLinkOpen(tok.content):
                html_links += 1
            elif isLinkClose(tok.content):
                html_links = max(0, html_links - 1)
        if kind != "text" or links or html_links or not _MAYBE.search(tok.content):
            out.append(tok)
            continue
        at = (
            row + sum(t.type in ("softbreak", "hardbreak") for t in out)
            if row is not None
            else None
        )
        out.extend(_split(md, tok, at, found))
    children[:] = out


def bare_links(set_line: Callable[[int | None], object]) -> Callable[[StateCore], None]:
    """The core rule (`set_line`: where `validateLink` learns the line of what it checks)."""

    def rule(state: StateCore) -> None:
        found: list[Any] = []
        md = state.md
        for block in state.tokens:
            if block.type != "inline" or not block.children or not _MAYBE.search(block.content):
                continue
            row = block.map[0] + 1 if block.map else None
            set_line(row)
            _linked(md, block.children, row, found)
        set_line(None)
        if found:
            state.env[AMBIGUOUS] = found

    return rule
