"""Code blocks in Markdown bodies: a ```mermaid fence is a diagram (render/diagrams.py), any
other fence is Pygments' HTML (render/markdown.py's highlighter, through RendererHTML.fence),
kept by what it is made of for the next render of the same block (`code_block`), under its
title if its info string gives one (```` ```python title="app.py" ````: code_info.py)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape
from typing import Any, Final

from markdown_it.common.utils import MD_TRIM_RE, mdTrim, unescapeAll
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token

from bipub.render.code_info import line_count, parse_info
from bipub.render.diagrams import Diagrams

_SVG_ID = re.compile(r'<svg id="(mermaid-[0-9a-f]+)"')

# A code block's HTML (RendererHTML.fence, with bipub's highlighter) by what it is made of: the
# fence's info string, its code, its attributes (set by `mark_code_blocks`) and the renderer's
# class prefix (the info string holds its title and highlighted lines: code_info.py; the title
# is added around the kept HTML, `titled`); a post and its translation share their code blocks
# (code is not translated) and are rendered one after the other in the same process
# (render/workers.py `chunks`), so a few hundred are enough. Used on the verified markdown-it-py only (render/upstream.py: what
# RendererHTML.fence depends on), by the renders of MarkdownCache.
Fences = dict[tuple[str, str, tuple[tuple[str, Any], ...], str], str]
FENCES_KEPT: Final = 256
FENCES: Final = "bipub_fences"  # (env keys: the render's memo and its unknown languages)
UNKNOWN: Final = "bipub_unknown"


def is_diagram(info: str) -> bool:
    return info.strip().split(maxsplit=1)[:1] == ["mermaid"]


def info_rest(info: str) -> str:
    """A fence's info string after its language, as RendererHTML.fence passes it to the
    highlighter (`langAttrs`)."""
    parts = MD_TRIM_RE.split(mdTrim(unescapeAll(info)), maxsplit=1) if info else []
    return parts[1] if len(parts) == 2 else ""


def mark_code_blocks(tokens: list[Token]) -> tuple[tuple[int | None, str], ...]:
    """Pygments output needs the `highlight` wrapper class; fences get a language label and
    their title (`fence`). Returns what fences' info strings say that is ignored (code_info.py),
    at their lines in the body."""
    ignored: list[tuple[int | None, str]] = []
    for tok in tokens:
        if tok.type != "fence":
            continue
        lang = tok.info.strip().split()[0] if tok.info.strip() else ""
        tok.attrSet("class", "highlight")
        if lang:
            tok.attrSet("data-lang", escape(lang))
        rest = info_rest(tok.info)
        if not rest:
            continue
        line = tok.map[0] + 1 if tok.map else None
        if is_diagram(tok.info):
            ignored.append((line, f"{rest!r} ignored: a ```mermaid diagram takes no attributes"))
            continue
        info = parse_info(rest, line_count(tok.content))
        if info.title:
            tok.meta["title"] = info.title
        ignored += [(line, why) for why in info.ignored]
    return tuple(ignored)


def titled(tok: Token, html: str) -> str:
    """A code block's HTML under its title, if it has one (`mark_code_blocks`)."""
    title = tok.meta.get("title") if tok.meta else None
    if not title:
        return html
    return (
        f'<div class="code-block"><div class="code-title" translate="no">{escape(title)}</div>\n'
        f"{html}</div>\n"
    )


def fence(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    tok = tokens[idx]
    diagrams = env.get("diagrams")
    if not is_diagram(tok.info) or not isinstance(diagrams, Diagrams):
        fences = env.get(FENCES)
        if fences is None:
            return titled(tok, str(RendererHTML.fence(self, tokens, idx, options, env)))
        return titled(tok, code_block(self, tokens, idx, options, env, fences))
    drawn = diagrams.get(tok.content)
    if drawn.svg is None:  # an error at the fence's line (the build fails: nothing published)
        line = tok.map[0] + 1 if tok.map else None
        env.setdefault("diagram_errors", []).append((line, drawn.error or "not drawn"))
        return f'<pre class="diagram-error"><code>{escape(tok.content)}</code></pre>\n'
    svg = drawn.svg
    found = _SVG_ID.match(svg)  # its id scopes its styles and prefixes its inner ids
    if found:
        seen = env.setdefault("diagram_ids", {})
        seen[found[1]] = n = seen.get(found[1], 0) + 1
        if n > 1:  # the same diagram again in this body: ids must stay unique on the page
            svg = svg.replace(found[1], f"{found[1]}-{n}")
    return f'<figure class="diagram">{svg}</figure>\n'


def code_block(
    self: RendererHTML,
    tokens: Sequence[Token],
    idx: int,
    options: Any,
    env: dict[str, Any],
    fences: Fences,
) -> str:
    """RendererHTML.fence's HTML for a code block, from `fences` if a render made it before.
    A block whose language has no lexer is not kept: its render reports the name each time."""
    tok = tokens[idx]
    key = (tok.info, tok.content, tuple(tok.attrs.items()), options.langPrefix)
    html = fences.get(key)
    if html is None:
        unknown: list[str] = env[UNKNOWN]
        before = len(unknown)
        html = str(RendererHTML.fence(self, tokens, idx, options, env))
        if len(unknown) == before:
            if len(fences) >= FENCES_KEPT:
                fences.clear()
            fences[key] = html
    return html
