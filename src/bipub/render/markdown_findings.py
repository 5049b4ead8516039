"""What rendering a body finds wrong, with its line in the body (render/markdown.py reports them
as warnings and errors: MarkdownCache): refused link targets, formulas that cannot be typeset,
footnotes never referenced, emphasis markers and HTML tags shown as text, what a code block's
info string says that is ignored (render/code_info.py), bare URLs that may end in a Korean
particle."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from html import unescape
from typing import Any, Protocol
from urllib.parse import unquote

from markdown_it.token import Token

from bipub.diagnostics import Diagnostic, Severity
from bipub.render import mathml
from bipub.text.markdown import SHOWN_MARKERS

_CTRL = re.compile(r"[\x00-\x20\x7f]+")


@dataclass(frozen=True)
class DroppedLink:
    """A link or image whose target was refused (it stays as literal text in the output)."""

    url: str  # as markdown-it saw it, entities decoded
    line: int | None  # 1-based line in the Markdown source (add the body's first line - 1)


def unused_footnotes(env: dict[str, Any], source: str) -> tuple[tuple[int | None, str], ...]:
    """Footnote definitions no reference points to: markdown-it drops them from the page (and
    the translation skips them), so the author is told rather than left to find them gone."""
    refs = env.get("footnotes", {}).get("refs", {})
    unused = [key[1:] for key, index in refs.items() if index == -1]
    if not unused:
        return ()
    lines = source.split("\n")
    found: list[tuple[int | None, str]] = []
    for label in unused:
        start = f"[^{label}]:"
        row = next(
            (i + 1 for i, line in enumerate(lines) if line.lstrip(" ").startswith(start)), None
        )
        found.append((row, label))
    return tuple(sorted(found, key=lambda f: (f[0] or 0, f[1])))


def math_errors(tokens: list[Token]) -> tuple[tuple[int | None, str], ...]:
    """Each formula that cannot be typeset, with its line in the body (issue 19)."""
    found: list[tuple[int | None, str]] = []
    for tok in tokens:
        formulas: list[tuple[str, bool, int | None]] = []
        line = tok.map[0] + 1 if tok.map else None
        if tok.type.startswith("math_block"):
            formulas.append((tok.content, True, line))
        elif tok.type == "inline":
            for child in tok.children or []:
                if child.type.startswith("math_inline"):
                    at = tok.content.find(child.content)
                    row = line + tok.content[:at].count("\n") if line and at >= 0 else line
                    formulas.append((child.content, child.type != "math_inline", row))
        for latex, display, row in formulas:
            try:
                mathml.to_mathml(latex.strip(), display)
            except mathml.MathSyntaxError as exc:
                found.append((row, f"math ${latex.strip()}$ cannot be typeset: {exc}"))
    return tuple(found)


_ESCAPED = re.compile(r"\\[*~]")


def stray_emphasis(tokens: list[Token]) -> tuple[tuple[int | None, str], ...]:
    """The first `**` or `~~` the page shows as text on each line of the body, with the text
    around it: emphasis that did not open or close. CommonMark does not close `**` after
    punctuation when a letter follows (`**'인용'**를`, `**(선택)**은`: common in Korean), nor
    open one before a space. (A paragraph that escapes a `*` or `~` is not looked at: its text
    shows those on purpose.)"""
    found: dict[int | None, str] = {}
    for tok in tokens:
        if tok.type != "inline" or not tok.children or _ESCAPED.search(tok.content):
            continue
        row = tok.map[0] + 1 if tok.map else None
        for child in tok.children:
            if child.type in ("softbreak", "hardbreak"):
                row = row + 1 if row is not None else None
            elif child.type == "text" and row not in found:
                m = SHOWN_MARKERS.search(child.content)
                if m is not None:
                    text = child.content
                    found[row] = text[max(0, m.start() - 12) : m.end() + 12].strip()
    return tuple(found.items())


#: HTML elements an author writes in Markdown (CommonMark's block-level tags, and the inline
#: ones of prose and tables: `<br>`, `<kbd>`, `<sup>` …): with raw HTML off, shown as text.
HTML_ELEMENTS = frozenset(
    re.findall(
        r"\w+",
        "address article aside blockquote body caption center col colgroup dd details dialog "
        "div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr html "
        "iframe legend li main nav ol p pre section summary table tbody td tfoot th thead tr "
        "ul a abbr b bdi bdo br cite code del dfn em i img ins kbd mark q s samp small span "
        "strong sub sup u var video audio source picture wbr script style",
    )
)
_TAG = re.compile(r"</?([A-Za-z][A-Za-z0-9]*)(?:\s[^<>]*)?/?>")


def html_as_text(tokens: list[Token]) -> tuple[tuple[int | None, str], ...]:
    """With raw HTML off (`outputs.raw_html: false`), the first HTML tag each paragraph, heading
    or table cell shows as text (`<details>`, a `<br>` in a cell), at its line: an author who
    wrote HTML saw it shown as written, and nothing said so. Only the tags of `HTML_ELEMENTS`,
    outside code (`a <T> parameter` is text)."""
    found: dict[int | None, str] = {}
    for tok in tokens:
        if tok.type != "inline" or not tok.children or "<" not in tok.content:
            continue
        row = tok.map[0] + 1 if tok.map else None
        for child in tok.children:
            if child.type in ("softbreak", "hardbreak"):
                row = row + 1 if row is not None else None
            elif child.type == "text" and "<" in child.content:
                tag = next(
                    (m[0] for m in _TAG.finditer(child.content) if m[1].lower() in HTML_ELEMENTS),
                    None,
                )
                if tag is not None:
                    found.setdefault(row, tag[:40])
                    break
    return tuple(found.items())


def _canonical(text: str) -> str:
    """Entities and %-escapes decoded, controls and spaces removed, lower case: for matching."""
    return _CTRL.sub("", unquote(unescape(text))).lower()


def locate(dropped: list[tuple[str, int | None]], source: str) -> tuple[DroppedLink, ...]:
    """The line of each refused URL: the line of its text inside the paragraph, if found."""
    if not dropped:
        return ()
    lines = [_canonical(line) for line in source.split("\n")]
    out: dict[tuple[str, int | None], None] = {}
    for url, start in dropped:
        found = start
        first = (start or 1) - 1
        needle = _canonical(url)[:40]
        for i in range(first, len(lines)):
            if needle and needle in lines[i]:
                found = i + 1
                break
            if start is not None and i > first and not lines[i].strip():
                break  # end of the paragraph
        out[(url, found)] = None
    return tuple(
        DroppedLink(url, line) for url, line in sorted(out, key=lambda d: (d[1] or 0, d[0]))
    )


class Findings(Protocol):
    """What a body's render found (render/markdown.py's RenderedMarkdown)."""

    @property
    def unknown_languages(self) -> tuple[str, ...]: ...
    @property
    def dropped_links(self) -> tuple[DroppedLink, ...]: ...
    @property
    def math_errors(self) -> tuple[tuple[int | None, str], ...]: ...
    @property
    def diagram_errors(self) -> tuple[tuple[int | None, str], ...]: ...
    @property
    def unused_footnotes(self) -> tuple[tuple[int | None, str], ...]: ...
    @property
    def stray_emphasis(self) -> tuple[tuple[int | None, str], ...]: ...
    @property
    def html_text(self) -> tuple[tuple[int | None, str], ...]: ...
    @property
    def unknown_alerts(self) -> tuple[tuple[int | None, str], ...]: ...
    @property
    def code_info(self) -> tuple[tuple[int | None, str], ...]: ...
    @property
    def ambiguous_urls(self) -> tuple[tuple[int | None, str], ...]: ...
    @property
    def heading_ids(self) -> tuple[tuple[int | None, str], ...]: ...


#: The render findings that are (line in the body, text) pairs, each a warning at its line:
#: the Findings field, the code, and what is said of the text.
_AT_LINES: tuple[tuple[str, str, Callable[[str], str]], ...] = (
    (
        "unused_footnotes",
        "footnote-unused",
        lambda label: (
            f"footnote [^{label}] is defined but never referenced: it is not shown on the page "
            f"(nor sent for translation); reference it with [^{label}] or remove it"
        ),
    ),
    (
        "stray_emphasis",
        "emphasis-text",
        lambda snippet: (
            f"{snippet!r} shows `**` or `~~` as text: that emphasis does not open or close (a "
            "space just inside its markers, or punctuation just inside them and a letter just "
            "outside: write '**인용**'를, not **'인용'**를)"
        ),
    ),
    (
        "html_text",
        "html-text",
        lambda snippet: (
            f"{snippet!r} is shown as text: raw HTML is off (bipub.yaml "
            "outputs.raw_html: false); write it in Markdown, put it in `code`, or turn raw HTML "
            "on (not sanitised: docs/security.md)"
        ),
    ),
    (
        "unknown_alerts",
        "alert-unknown",
        lambda marker: (
            f"{marker!r} is no alert (NOTE, TIP, IMPORTANT, WARNING, CAUTION): the quote shows it "
            "as text, as GitHub does"
        ),
    ),
    ("code_info", "code-info", lambda why: f"code block info string: {why}"),
    (
        "ambiguous_urls",
        "url-particle",
        lambda url: (
            f"the bare URL {url!r} may end in a Korean particle: it is linked whole (as GitHub "
            "links it); if the particle is not part of it, write <URL> or a space before the "
            "particle"
        ),
    ),
    ("heading_ids", "heading-id", lambda why: why),
)
WARNING = Severity.WARNING


def render_findings(rel: str, hit: Findings, first_line: int) -> tuple[Diagnostic, ...]:
    """The warnings and errors of one body's render, at their lines in the file `rel` (whose
    body starts at `first_line`)."""
    found = [
        Diagnostic(
            rel,
            None,
            "code-language",
            f"code block language {name!r} is unknown to Pygments; shown unhighlighted",
            Severity.WARNING,
        )
        for name in hit.unknown_languages
    ]
    found += [
        Diagnostic(
            rel,
            first_line + dropped.line - 1 if dropped.line else None,
            "unsafe-link",
            f"link target {dropped.url!r} dropped (only http(s), mailto, tel and "
            "relative links are allowed); its text is shown as written",
            Severity.WARNING,
        )
        for dropped in hit.dropped_links
    ]
    found += [
        Diagnostic(rel, first_line + line - 1 if line else None, "math", message, Severity.ERROR)
        for line, message in hit.math_errors
    ]
    for field, code, say in _AT_LINES:  # (line in the body, what) → a warning at its line
        found += [
            Diagnostic(rel, first_line + line - 1 if line else None, code, say(what), WARNING)
            for line, what in getattr(hit, field)
        ]
    for line, message in hit.diagram_errors:
        at = first_line + line - 1 if line else None
        inner = _DIAGRAM_LINE.match(message)
        if inner and at is not None:  # mermaid counts the diagram's lines: name the file's
            message = f"{message} (line {at + int(inner.group(1))} of the file)"
        found.append(
            Diagnostic(
                rel, at, "diagram", f"mermaid diagram cannot be drawn: {message}", Severity.ERROR
            )
        )
    return tuple(found)


_DIAGRAM_LINE = re.compile(r"(?:Parse|Lexical) error on line (\d+)")
