"""A heading's own id, `## 결론 {#conclusion}` (bipub.text.headings `heading_attribute`): a core
rule after `inline` and before the anchors plugin's `anchor` rule, which keeps an id already set.

The rule takes the attribute out of the heading's text (its inline token's content and its last
text child, so neither the page, its table of contents, search nor feeds show it) and sets the
id as written. What it cannot read, and ids that clash, go to `state.env[HEADING_IDS]` as
(line in the body, why): the render warning `heading-id`.
"""

from __future__ import annotations

import re
from typing import Final

from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from mdit_py_plugins.anchors.index import unique_slug

from bipub.text.headings import heading_attribute, heading_slug

#: The env key the problems go to: (line in the body, why).
HEADING_IDS = "bipub_heading_ids"
#: Ids the theme's pages give their own elements (bipub/theme/templates: a test keeps the list
#: whole), and the footnote plugin's (`fn1`, `fnref1`, `fnref1:1`): an explicit heading id is
#: used as written, so one of these would be a second element with that id.
PAGE_IDS: Final = frozenset(
    [
        "awards-title",
        "certifications-title",
        "education-title",
        "experience-title",
        "highlights-title",
        "languages-title",
        "latest-title",
        "main",
        "notice-title",
        "opensource-title",
        "projects-title",
        "search-q",
        "series-box-title",
        "site-search-q",
        "skills-title",
        "spotlight-title",
        "stats-title",
        "toc-title",
    ]
)
_FOOTNOTE_ID: Final = re.compile(r"fn(?:ref)?\d+")


def _line(opening: Token, inline: Token) -> int | None:
    """The body line (1-based) of a heading's last text line: where its attribute is."""
    return opening.map[0] + inline.content.count("\n") + 1 if opening.map else None


def _strip(inline: Token, tail: str) -> bool:
    """`inline`'s children without `tail` at the end of their last text (False: not there)."""
    children = inline.children or []
    if not children or children[-1].type != "text" or not children[-1].content.endswith(tail):
        return False
    last = children[-1]
    last.content = last.content[: len(last.content) - len(tail)]
    if not last.content:
        children.pop()
        while children and children[-1].type == "softbreak":  # `{#id}` alone on its line
            children.pop()
    return True


def heading_ids(state: StateCore) -> None:
    """The core rule (see the module's docstring)."""
    tokens = state.tokens
    found: list[tuple[int | None, str]] = []
    explicit: dict[str, int | None] = {}  # id → line of its heading
    others: list[Token] = []  # the inline tokens of headings without one
    for i, tok in enumerate(tokens):
        if tok.type != "heading_open" or i + 1 >= len(tokens):
            continue
        inline = tokens[i + 1]
        read = heading_attribute(inline.content)
        line = _line(tok, inline)
        if read.refused is not None:
            found.append(
                (
                    line,
                    f"{read.refused!r} is not read as a heading id (an id is {{#id}}: a letter, "
                    "then letters, digits, '-' or '_'; classes and other attributes are not "
                    "supported): it is shown as text",
                )
            )
        if read.id is None:
            others.append(inline)
            continue
        if not _strip(inline, read.tail):  # (the source ends with it: its last text does too)
            found.append((line, f"heading id {{#{read.id}}} could not be read: shown as text"))
            others.append(inline)
            continue
        inline.content = read.text.rstrip()
        if read.id in explicit:
            found.append((line, f"heading id {{#{read.id}}} is used by another heading too"))
        if read.id in PAGE_IDS or _FOOTNOTE_ID.fullmatch(read.id):
            found.append(
                (line, f"heading id {{#{read.id}}} is an id the page uses itself: choose another")
            )
        explicit.setdefault(read.id, line)
        tok.attrSet("id", read.id)
    if explicit and others:  # an explicit id that another heading's own id would be
        seen: set[str] = set()
        for inline in others:
            title = "".join(
                c.content for c in inline.children or [] if c.type in ("text", "code_inline")
            )
            made = unique_slug(heading_slug(title), seen)
            if made in explicit:
                found.append(
                    (
                        explicit[made],
                        f"heading id {{#{made}}} is the id the heading {title.strip()!r} would "
                        "get: that one gets another (link to it by its new id, or give it one)",
                    )
                )
    if found:
        state.env[HEADING_IDS] = sorted(found, key=lambda f: f[0] or 0)
