"""GitHub's alerts in a rendered body: `> [!NOTE]`, `> [!TIP]`, `> [!IMPORTANT]`, `> [!WARNING]`,
`> [!CAUTION]` (markdown-it-py's `alerts` option, on in bipub's dialect: bipub.text.markdown).

markdown-it-py titles each alert in English ("Note"); `alert_titles` (a core rule after the
inline parse) gives it the title of the body's language instead (`env["lang"]`: a Korean body's
reads 참고, wherever it is shown), and `alert_open` renders it as GitHub does
(`<div class="markdown-alert markdown-alert-note">`) with `role="note"`. A quote whose first line
looks like a marker but names no alert kind (`> [!NOTICE]`, `> [!WARN]`) stays a quote, as on
GitHub, and is said (`unknown_alerts`: the render warning `alert-unknown`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

#: Each alert kind's title by language (the body's); another language's body takes English's.
TITLES: dict[str, dict[str, str]] = {
    "en": {
        "NOTE": "Note",
        "TIP": "Tip",
        "IMPORTANT": "Important",
        "WARNING": "Warning",
        "CAUTION": "Caution",
    },
    "ko": {"NOTE": "참고", "TIP": "팁", "IMPORTANT": "중요", "WARNING": "경고", "CAUTION": "주의"},
}
KINDS = tuple(TITLES["en"])

#: A quote's first line that is written as an alert marker: `[!WORD]` alone on its line.
_MARKER = re.compile(r"\[!([A-Za-z]+)\]")


def title(kind: str, lang: str) -> str:
    """The title an alert of `kind` ("NOTE") shows in a body written in `lang`."""
    return TITLES.get(lang, TITLES["en"]).get(kind, kind.capitalize())


def alert_titles(state: StateCore) -> None:
    """Each alert's title token (markdown-it-py's "Note") in the body's language."""
    lang = str(state.env.get("lang") or "en")
    tokens = state.tokens
    for i, tok in enumerate(tokens):
        if tok.type != "alert_open":
            continue
        inline = tokens[i + 2]  # (alert_open, alert_title_open, inline, alert_title_close)
        text = title(tok.info, lang)
        inline.content = text
        inline.children = [Token("text", "", 0, content=text)]


def render_alert_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    """`<div class="markdown-alert markdown-alert-note" role="note">`."""
    tok = tokens[idx]
    tok.attrSet("role", "note")
    return str(self.renderToken(tokens, idx, options, env))


def unknown_alerts(tokens: Sequence[Token]) -> list[tuple[int | None, str]]:
    """(line, marker) of each quote whose first paragraph starts with a line written as an
    alert marker of no alert kind (`[!NOTICE]`): shown as text, as GitHub shows it."""
    found: list[tuple[int | None, str]] = []
    for i, tok in enumerate(tokens[:-2]):
        if tok.type != "blockquote_open" or tokens[i + 1].type != "paragraph_open":
            continue
        first = tokens[i + 2].content.split("\n", 1)[0].strip()
        m = _MARKER.fullmatch(first)
        if m is not None and m[1].upper() not in KINDS:
            found.append((tok.map[0] + 1 if tok.map else None, first))
    return found
