"""What the QA rules (bipub.check.qa, bipub.check.qa_numbers) read from a text, parsed once.

Markdown is read with markdown-it-py tokens (the same CommonMark + tables + footnotes dialect as
the renderer), so code, links and text are told apart by the parser, not by regular expressions
over raw text. `facts` splits a text into its prose (outside code, HTML and link targets), its
code spans and blocks, its link targets (with autolinks and bare URLs, which end where the
drafter and the renderer end them: bipub.text.urls) and its skeleton (headings, list items, task
list markers, tables, images, alerts). A task list item's `[x]`/`[ ]` is markup
(bipub.text.markdown `task_marker`), not prose; so is an alert's title (`alert_title`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from bipub.text import urls
from bipub.text.headings import heading_attribute
from bipub.text.markdown import SHOWN_MARKERS, alert_title, parser, task_marker, ticked

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

# --------------------------------------------------------------------------- Markdown facts


@dataclass(frozen=True)
class Skeleton:
    headings: tuple[int, ...] = ()
    list_items: int = 0
    tables: tuple[tuple[int, int], ...] = ()  # (rows, columns) per table
    images: int = 0
    tasks: str = ""  # each task list item's marker, in order: "x" done, " " to do
    stray: int = 0  # runs of `**`, `~~` shown as text (emphasis that did not parse)
    alerts: tuple[str, ...] = ()  # each alert's kind, in order (`> [!NOTE]`: "NOTE")
    # each heading's own id (`## 결론 {#conclusion}`: bipub.text.headings), "" for none
    heading_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Facts:
    """Everything the checks need from one text, read once."""

    prose: str  # text outside code, HTML and link targets (for numbers, refs, words)
    code_spans: tuple[str, ...]
    blocks: tuple[tuple[str, str], ...]  # (info string, content) of fenced/indented code
    links: tuple[str, ...]
    skeleton: Skeleton = field(default_factory=Skeleton)
    # the text of each heading and paragraph outside tables (footnote definitions included)
    paragraphs: tuple[str, ...] = ()


def _parser() -> MarkdownIt:
    """The dialect the drafter reads too (bipub.text.markdown), imported when first needed."""

    return parser()


def bare_urls(text: str) -> list[str]:
    """The bare URLs of a text as written, ending where the drafter and the renderer end them
    (bipub.text.urls: a Korean particle glued to a URL is not part of it)."""
    return [url.text for url in urls.bare_urls(text)]


@lru_cache(maxsize=65536)
def facts(text: str) -> Facts:
    """Parse `text` as Markdown and collect its prose, code, links and skeleton."""
    tokens = _parser().parse(unicodedata.normalize("NFC", text))
    prose: list[str] = []
    spans: list[str] = []
    blocks: list[tuple[str, str]] = []
    links: list[str] = []
    headings: list[int] = []
    heading_ids: list[str] = []
    list_items = 0
    tables: list[tuple[int, int]] = []
    images = 0
    tasks: list[str] = []
    rows = cols = 0
    in_table = False
    stray = 0
    paragraphs: list[str] = []
    alerts: list[str] = []

    def inline(children: Iterable[Token]) -> None:
        nonlocal images, stray
        for tok in children:
            if tok.type == "text":
                prose.append(tok.content)
                # as the page links them: normalized as a link's target is (a Hangul path is
                # percent-encoded in both: `[…](https://…/트랜스포머)` and a bare URL are one target)
                links.extend(
                    map(_parser().normalizeLink, (u.href for u in urls.bare_urls(tok.content)))
                )
                if "**" in tok.content or "~~" in tok.content:
                    stray += len(SHOWN_MARKERS.findall(tok.content))
            elif tok.type == "code_inline":
                spans.append(tok.content)
                prose.append(" ")
            elif tok.type == "link_open":
                href = tok.attrGet("href")
                if href is not None:
                    links.append(str(href))
            elif tok.type == "image":
                images += 1
                src = tok.attrGet("src")
                if src is not None:
                    links.append(str(src))
                inline(tok.children or [])
            elif tok.type in ("softbreak", "hardbreak"):
                prose.append(" ")

    for i, tok in enumerate(tokens):
        t = tok.type
        if t in ("fence", "code_block"):
            blocks.append((tok.info.strip(), tok.content))
            prose.append("\n")
        elif t == "heading_open":
            headings.append(int(tok.tag[1:]))
            heading_ids.append(heading_attribute(tokens[i + 1].content).id or "")
        elif t == "list_item_open":
            list_items += 1
        elif t == "alert_open":
            alerts.append(tok.info)
        elif t == "table_open":
            in_table, rows, cols = True, 0, 0
        elif t == "tr_open" and in_table:
            rows += 1
        elif t in ("th_open", "td_open") and in_table and rows == 1:
            cols += 1
        elif t == "table_close":
            tables.append((rows, cols))
            in_table = False
        elif t == "inline" and not alert_title(tokens, i):
            children = tok.children or []
            task = task_marker(tokens, i)
            if task is not None:
                tasks.append("x" if ticked(task) else " ")
                children = [children[0].copy(content=children[0].content[task.end() :])]
                children += (tok.children or [])[1:]
            content = tok.content
            if i and tokens[i - 1].type == "heading_open" and heading_ids[-1]:
                # the `{#id}` is no prose (the drafter never sends it): out of the last text
                read = heading_attribute(content)
                content = read.text
                if children and children[-1].type == "text":
                    last = children[-1]
                    kept = last.content[: len(last.content) - len(read.tail)]
                    children = [*children[:-1], last.copy(content=kept)]
            if not in_table:
                paragraphs.append(content.strip())
            inline(children)
            prose.append("\n")
    skeleton = Skeleton(
        tuple(headings),
        list_items,
        tuple(tables),
        images,
        "".join(tasks),
        stray,
        tuple(alerts),
        tuple(heading_ids),
    )
    return Facts(
        "".join(prose), tuple(spans), tuple(blocks), tuple(links), skeleton, tuple(paragraphs)
    )


#: `#1234` and `owner/repo#1234` references (a number that names an issue, not a quantity).
REF = re.compile(r"(?<![\w&])(?:[\w.-]+/[\w.-]+)?#\d+(?!\d)")
HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")


def has_hangul(text: str) -> bool:
    return HANGUL.search(text) is not None
