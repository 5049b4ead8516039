"""Math in Markdown (`$…$` inline, `$$…$$` display: on lines of their own or inside a paragraph),
typeset at build time.

Pages get MathML (latex2mathml), which browsers draw without any script; PDFs get SVG
(ziamath, its own STIX Two Math font), because WeasyPrint does not draw MathML (it prints the
bare characters of a formula in a row). A formula that cannot be typeset is an error naming
the file and line (`math`): latex2mathml's own errors, unbalanced braces, and commands it does
not know (which it would otherwise print as text, e.g. `\\foo`).
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache
from html import escape
from typing import Any, Final

_COMMAND = re.compile(r"\\[A-Za-z]+")
_MATH = re.compile(r"<math\b[^>]*>.*?</math>", re.S)
_CLASS_WORDS = re.compile(r"(?<!^)(?=[A-Z])")
MATH_CLASS: Final = "math"


class MathSyntaxError(ValueError):
    """A formula that cannot be typeset; the message says why."""


def _braces(latex: str) -> str | None:
    depth = 0
    i = 0
    while i < len(latex):
        ch = latex[i]
        if ch == "\\":
            i += 2  # \{ \} \\ and the first letter of a command
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return "a '}' closes no '{'"
        i += 1
    return "a '{' is never closed" if depth else None


@lru_cache(maxsize=4096)
def to_mathml(latex: str, display: bool) -> str:
    """The formula as a <math> element; raises MathSyntaxError if it cannot be typeset."""
    from latex2mathml.converter import convert  # only for a page with math

    problem = _braces(latex)
    if problem is not None:
        raise MathSyntaxError(problem)
    try:
        mathml = str(convert(latex, display="block" if display else "inline"))
    except Exception as exc:  # latex2mathml raises its own exception classes, and IndexError
        name = _CLASS_WORDS.sub(" ", type(exc).__name__.removesuffix("Error")).lower()
        detail = f": {exc}" if str(exc) else ""
        raise MathSyntaxError(f"{name}{detail}") from exc
    unknown = _COMMAND.findall(re.sub(r"<[^>]*>", " ", mathml))
    if unknown:
        raise MathSyntaxError(f"unknown command {unknown[0]}")
    return mathml


def render(latex: str, display: bool) -> str:
    """What a page shows for a formula: MathML, or (if it cannot be typeset: the build reports
    the error and publishes nothing) the source, escaped."""
    try:
        return to_mathml(latex.strip(), display)
    except MathSyntaxError:
        return f"<code>{escape(latex)}</code>"


def render_display_inline(
    _self: object, tokens: Any, idx: int, _options: object, _env: object
) -> str:
    """markdown-it's render rule for `$$…$$` inside a paragraph (dollarmath's
    `math_inline_double`): display math in a <span> the theme shows as a block (`.math.display`),
    where the plugin's own rule puts a <div> inside the <p> (invalid HTML: the browser ends the
    paragraph there and leaves an empty one after)."""
    return f'<span class="math display">{render(str(tokens[idx].content), True)}</span>'


def spaced_double_as_text(state: Any) -> None:
    """markdown-it core rule (after `inline`): `$$…$$` inside a paragraph whose formula starts
    or ends with a space stays text, as a `$…$` does (`allow_space=False`): the plugin's space
    rule leaves `$$` out, and a shell's `$$` (`kill $$ and echo $$`) or `$$ vs $$$` tiers became
    a formula. (A formula that starts on the next line, `$$⏎…⏎$$`, is display math.)"""
    for token in state.tokens:
        for child in token.children or ():
            if child.type != "math_inline_double":
                continue
            if child.content[:1] in (" ", "\t") or child.content[-1:] in (" ", "\t"):
                child.type, child.tag, child.markup = "text", "", ""
                child.content = f"$${child.content}$$"


@lru_cache(maxsize=4096)
def _svg(mathml: str) -> str:
    from ziamath.zmath import Math  # only for a PDF with math

    svg = Math(mathml).svg()
    return re.sub(r"^<\?xml[^>]*>\s*", "", str(svg))


_SVG_ID = re.compile(r'((?<![\w:-])id="|href="#)')


def for_print(html: str, scope: str = "") -> str:
    """The page's HTML with each <math> element replaced by an SVG drawing of it (for
    WeasyPrint, which draws SVG but not MathML). ziamath names each glyph's <symbol> after the
    glyph (`STIXTwoMathRegular_1196`), so two formulas that share a glyph would define the same
    id twice in the page (WeasyPrint: "Anchor defined twice", a warning per glyph, an error
    under --strict): each formula's ids get its own prefix (`m2-STIXTwoMathRegular_1196`), with
    `scope` in it where one document is made of several such pieces of HTML."""
    if "<math" not in html:
        return html
    count = itertools.count(1)

    def drawing(m: re.Match[str]) -> str:
        svg = _SVG_ID.sub(rf"\1m{scope}{next(count)}-", _svg(m.group()))
        return f'<span class="math-svg">{svg}</span>'

    return _MATH.sub(drawing, html)
