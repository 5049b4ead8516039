"""A unit's text as a local skeleton with numbered holes, one hole per segment of prose.

    lay = layout(section_text, keep)       # parse once: skeleton + segments
    lay.segments[2].encoded.xml            # what DeepL gets for segment 2 (inline markup only)
    lay.fill(translated_bodies)            # the skeleton with every hole filled

A segment is one block of prose: a heading's text, a paragraph (also inside list items, block
quotes and footnotes), a table cell. Everything else — heading markers, bullets and numbers,
indentation, quote markers, table pipes and delimiter rows, blank lines, fenced and indented
code, HTML blocks, reference definitions — is skeleton and never leaves the machine, so an
engine can neither move, drop nor invent structure. Blocks are found with markdown-it-py's
tokens and their line maps, in the dialect `bipub check` reads (bipub.text.markdown), so the
drafter and QA agree on what is code and what is prose (the approach of translate-toolkit's
Markdown storage and po4a's Markdown mode).

Filling a hole escapes what would start a block of its own at the start of a line (`# `, `- `,
`1. `, `>`, fences) and, in a table cell, unescaped pipes: the engine's words stay words.
`structure(text)` is the block shape the filled text must keep (`check_structure`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import accumulate, pairwise

from bipub.text.headings import heading_attribute
from bipub.text.markdown import parser, task_marker
from bipub.translate import markdown_xml as mx


@dataclass(frozen=True)
class Segment:
    index: int
    kind: str  # "heading" | "paragraph" | "cell" | "text" (a title, a UI string)
    source: str  # the hole's source text (lead + body + trail)
    line: int  # 1-based line of the hole's start in the unit's text
    encoded: mx.Encoded
    #: a link title ("title" segment): the segment whose link it belongs to, and that link's
    #: closing slot (`](url "title")`) in it
    parent: tuple[int, int] | None = None

    @property
    def body(self) -> str:
        """The source between the trimmed lead and trail (what a translation replaces)."""
        lead, trail = self.encoded.lead, self.encoded.trail
        return self.source[len(lead) : len(self.source) - len(trail)]

    @property
    def needs_request(self) -> bool:
        return self.encoded.has_prose


@dataclass(frozen=True)
class Layout:
    text: str
    pieces: tuple[str | int, ...]  # skeleton text, and hole numbers (segment indexes)
    segments: tuple[Segment, ...]
    unlocated: tuple[int, ...] = ()  # 1-based lines of prose blocks kept as they are
    html: tuple[int, ...] = ()  # 1-based lines of HTML blocks with words (never sent)
    diagrams: tuple[int, ...] = ()  # 1-based lines of ```mermaid diagrams with words (never sent)

    def fill(self, bodies: Sequence[str | None]) -> str:
        """The skeleton with hole i holding `lead + bodies[i] + trail` (None: the source)."""
        out: list[str] = []
        for piece in self.pieces:
            if isinstance(piece, str):
                out.append(piece)
                continue
            seg = self.segments[piece]
            body = bodies[piece]
            if body is None:
                out.append(seg.source)
            else:
                out.append(seg.encoded.lead + escape_body(body, seg) + seg.encoded.trail)
        return "".join(out)


# --------------------------------------------------------------------------- escaping

_BLOCK_START = re.compile(
    r"(?:#{1,6}|[>+*\-=]|`{3,}|~{3,})(?=[ \t]|$)|>|`{3,}|~{3,}"
    r"|<(?:[!?/]|(?:address|article|aside|blockquote|details|div|dl|fieldset|figure|footer|form"
    r"|h[1-6]|header|hr|main|nav|ol|p|pre|section|table|ul|script|style|textarea)(?![\w-]))",
    re.I,
)
#: a complete open or closing tag alone on its line starts an HTML block (CommonMark's type 7)
_HTML_LINE = re.compile(
    r"(?:<[A-Za-z][A-Za-z0-9-]*(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s\"'=<>`]+|'[^']*'"
    r"|\"[^\"]*\"))?)*\s*/?>|</[A-Za-z][A-Za-z0-9-]*\s*>)[ \t]*(?:\n|$)"
)
_ORDERED = re.compile(r"(\d{1,9})([.)])(?=[ \t]|$)")
_DEFINITION = re.compile(r"(\[[^\]\n]*\]):")
_JOINS_BRACKET = frozenset(":(")
#: what starts a block in the middle of a paragraph (interrupts it, or makes it a setext heading
#: or a table's header): a continuation line of a translated body must not begin with it
_INTERRUPTS = re.compile(
    r"#{1,6}(?:[ \t]|$)|`{3,}(?!.*`)|~{3,}|>|[-+*][ \t]+\S|1[.)][ \t]+\S"
    r"|([-*_])(?:[ \t]*\1){2,}[ \t]*$|=+[ \t]*$|-+[ \t]*$"
    r"|<(?:script|pre|style|textarea)(?:[\s>]|$)|<!--|<\?|<![A-Za-z]|<!\[CDATA\["
    r"|</?(?:address|article|aside|blockquote|details|div|dl|fieldset|figure|footer|form"
    r"|h[1-6]|header|hr|main|nav|ol|p|pre|section|table|ul)(?:[\s>]|/>|$)"
    r"|\[\^[^\]]+\]:"
    r"|(?=[^|]*\|)\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$",
    re.I,
)
_KEEPS_HEAD = re.compile(r"1(?=[.)])|\[\^[^\]]+\](?=:)")
_HEADING_CLOSE = re.compile(r"([ \t])(#+)[ \t]*$")
_PIPE = re.compile(r"(?<!\\)\|")


def escape_body(body: str, seg: Segment) -> str:
    """A translated body made safe for its hole: nothing in it starts or ends a block."""
    if body == seg.body:
        return body
    text = body.strip()
    lead = seg.encoded.lead
    if (not lead or "\n" in lead) and seg.kind != "text":  # the body starts a line
        m = _ORDERED.match(text) or _DEFINITION.match(text)
        if m:  # `1\. `, `[^1]\:`: the number or the reference stays as it is
            text = m.group(1) + "\\" + text[m.end(1) :]
        elif _BLOCK_START.match(text) or _HTML_LINE.match(text):
            text = "\\" + text
    if lead.endswith("]") and text[:1] in _JOINS_BRACKET:
        # `[^1]` + `: n` would be a footnote's definition, `[x]` + `(u)` a link: kept apart
        text = "\\" + text
    if "\n" in text:
        text = _escape_continuations(text, seg)
    if seg.kind == "heading" and not seg.encoded.trail:
        text = _HEADING_CLOSE.sub(lambda m: m.group(1) + "\\" + m.group(2), text)
    if seg.kind == "cell":
        text = _PIPE.sub(r"\\|", text)
    return text


def _escape_continuations(text: str, seg: Segment) -> str:
    """Each line after the first, past its line break's own prefix (indentation, quote
    markers), escaped where it would start a block: an engine that moved words or lost a tag
    must not turn a paragraph's second line into a fence, a heading, a list or a table."""
    prefixes = sorted(
        {
            slot.rsplit("\n", 1)[1]
            for slot, kind in zip(seg.encoded.slots, seg.encoded.kinds, strict=False)
            if kind in ("break", "softbreak") and "\n" in slot
        },
        key=len,
        reverse=True,
    )
    lines = text.split("\n")
    for i in range(1, len(lines)):
        line = lines[i]
        at = next((len(p) for p in prefixes if p and line.startswith(p)), 0)
        at += len(line) - at - len(line[at:].lstrip(" \t"))
        rest = line[at:]
        if _INTERRUPTS.match(rest):
            head = _KEEPS_HEAD.match(rest)
            cut = at + (head.end() if head else 0)
            lines[i] = line[:cut] + "\\" + line[cut:]
    return "\n".join(lines)


# --------------------------------------------------------------------------- finding holes


@dataclass(frozen=True)
class _Hole:
    start: int
    end: int
    kind: str
    breaks: tuple[tuple[int, int], ...]  # relative to start


def _locate(
    lines: Sequence[str],
    offsets: Sequence[int],
    first: int,
    content: str,
    kind: str,
    tail: str = "",
) -> _Hole | None:
    """Where the inline `content` of a block starting at line `first` lies in the text (`tail`:
    what follows it on its last line, a heading's `{#id}`: skeleton)."""
    parts = content.split("\n")
    if first + len(parts) > len(lines):
        return None
    spans: list[tuple[int, int]] = []
    for k, part in enumerate(parts):
        line = lines[first + k]
        if not part:
            return None
        if k == len(parts) - 1:
            line = line.rstrip()
            if kind == "heading":
                line = _ATX_CLOSE.sub("", line).rstrip()
                if tail:
                    if not line.endswith(tail):
                        return None
                    line = line[: len(line) - len(tail)]
        if not line.endswith(part):
            return None
        spans.append((len(line) - len(part), len(line)))
    base = offsets[first]
    start = base + spans[0][0]
    end = offsets[first + len(parts) - 1] + spans[-1][1]
    breaks: list[tuple[int, int]] = []
    for k in range(len(parts) - 1):
        line_text = lines[first + k][spans[k][0] : spans[k][1]]
        stop = spans[k][0] + len(line_text.rstrip(" \t"))
        if line_text.rstrip(" \t").endswith("\\"):
            stop -= 1
        brk_start = offsets[first + k] + stop
        brk_end = offsets[first + k + 1] + spans[k + 1][0]
        breaks.append((brk_start - start, brk_end - start))
    return _Hole(start, end, kind, tuple(breaks))


def _without_id(content: str) -> tuple[str, str]:
    """A heading's inline content without its `{#id}` (bipub.text.headings: skeleton, never
    sent), and what follows it on its last line ("" when the id has a line of its own)."""
    if "{" not in content:
        return content, ""
    read = heading_attribute(content)
    if read.id is None:
        return content, ""
    if read.text.endswith("\n"):  # a setext heading's `{#id}` alone on its last line
        return read.text.rstrip("\n"), ""
    return read.text, read.tail


def _after_task_marker(hole: _Hole, n: int) -> _Hole | None:
    """`hole` without its first `n` characters (a task list item's `[x] `, on its first line)."""
    if hole.breaks and hole.breaks[0][0] < n:
        return None
    breaks = tuple((a - n, b - n) for a, b in hole.breaks)
    return _Hole(hole.start + n, hole.end, hole.kind, breaks)


_ATX_CLOSE = re.compile(r"(?<=[ \t])#+[ \t]*$|^#+[ \t]*$")
_ROW_PREFIX = re.compile(r"(?:[ \t]{0,3}>)*[ \t]*")


def _cells(line: str, offset: int) -> list[_Hole]:
    """The cells of one table row: spans between unescaped pipes (as markdown-it splits)."""
    m = _ROW_PREFIX.match(line)
    lo = m.end() if m else 0
    cuts = [lo - 1]
    j = lo
    while j < len(line):
        if line[j] == "\\":
            j += 2
            continue
        if line[j] == "|":
            cuts.append(j)
        j += 1
    cuts.append(len(line))
    holes = []
    for a, b in pairwise(cuts):
        cell = line[a + 1 : b]
        text = cell.strip()
        if not text:
            continue
        at = a + 1 + (len(cell) - len(cell.lstrip()))
        holes.append(_Hole(offset + at, offset + at + len(text), "cell", ()))
    return holes


_HTML_TAG = re.compile(r"<[^>]*>|&[#\w]+;")
#: A Mermaid diagram's labels: `A[text]`, `(text)`, `{text}`, `"text"`, an edge's `|text|` or
#: `-- text -->`, a sequence diagram's message or note after `:`; and any Hangul at all.
_DIAGRAM_WORDS = re.compile(
    r"\[[^\]\n]*[^\W\d_][^\]\n]*\]|\([^)\n]*[^\W\d_][^)\n]*\)|\{[^}\n]*[^\W\d_][^}\n]*\}"
    r'|"[^"\n]*[^\W\d_][^"\n]*"|\|[^|\n]*[^\W\d_][^|\n]*\||--[ \t]+[^\W\d_][^\n]*?--'
    r"|(?:>|\bnote\b)[^\n:]*:[ \t]*[^\W\d_]|[\uac00-\ud7a3]",
    re.IGNORECASE,
)


def has_diagram_words(fence: str) -> bool:
    """Whether a ```mermaid diagram shows words (labels, messages) that a translation of its
    page would translate: the drafter never sends a diagram (it is code to the parser)."""
    return _DIAGRAM_WORDS.search(fence) is not None


def _holes(
    text: str, unlocated: list[int], html: list[int], diagrams: list[int] | None = None
) -> list[_Hole]:
    lines = text.split("\n")
    offsets = [0, *accumulate(len(line) + 1 for line in lines)]
    holes: list[_Hole] = []
    tokens = parser().parse(text)
    in_table = False
    kind = "paragraph"
    for i, tok in enumerate(tokens):
        if tok.type == "table_open":
            in_table = True
        elif tok.type == "table_close":
            in_table = False
        elif tok.type == "tr_open" and tok.map:
            row = tok.map[0]
            holes.extend(_cells(lines[row], offsets[row]))
        elif tok.type == "html_block" and tok.map:
            if any(ch.isalpha() for ch in _HTML_TAG.sub("", tok.content)):
                html.append(tok.map[0] + 1)
        elif tok.type == "fence" and tok.map and diagrams is not None:
            mermaid = tok.info.strip().split(maxsplit=1)[:1] == ["mermaid"]
            if mermaid and has_diagram_words(tok.content):
                diagrams.append(tok.map[0] + 1)
        elif tok.type in ("heading_open", "paragraph_open"):
            kind = "heading" if tok.type == "heading_open" else "paragraph"
        elif tok.type == "inline" and not in_table and tok.map and tok.content.strip():
            content, tail = _without_id(tok.content) if kind == "heading" else (tok.content, "")
            if not content.strip():  # `## {#id}`: nothing to send
                continue
            hole = _locate(lines, offsets, tok.map[0], content, kind, tail)
            task = task_marker(tokens, i)
            if hole is not None and task is not None:  # `[x] ` stays home, as a list marker does
                hole = _after_task_marker(hole, task.end())
            if hole is not None:
                holes.append(hole)
            else:
                unlocated.append(tok.map[0] + 1)
    holes.sort(key=lambda h: h.start)
    kept: list[_Hole] = []
    for hole in holes:  # never overlapping (a defence: markdown-it's blocks never overlap)
        if not kept or hole.start >= kept[-1].end:
            kept.append(hole)
    return kept


def prose_spans(text: str) -> list[tuple[int, int, tuple[tuple[int, int], ...]]]:
    """The holes of a unit's text (its blocks of prose, as `layout` finds them): (start, end,
    line breaks relative to start) each, in order."""
    return [(h.start, h.end, h.breaks) for h in _holes(text, [], [])]


_TITLE_PREFIX = re.compile(r"\s*\[[^\]\n]+\]\s*")


def layout(text: str, keep: Sequence[str] = (), *, title: bool = False) -> Layout:
    """Parse a unit's Markdown into skeleton and segments. `title`: the text is one line of
    prose whose `[Prefix]` is kept; `keep`: do-not-translate terms."""
    terms = mx.keep_terms(keep)
    unlocated: list[int] = []
    html: list[int] = []
    diagrams: list[int] = []
    if title:
        m = _TITLE_PREFIX.match(text)
        lo = m.end() if m else 0
        stripped = text[lo:].rstrip()
        hi = lo + len(stripped)
        if lo >= hi:
            return Layout(text, (text,), ())
        holes = [_Hole(lo, hi, "text", ())]
    else:
        holes = _holes(text, unlocated, html, diagrams)
    pieces: list[str | int] = []
    segments: list[Segment] = []
    pos = 0
    for hole in holes:
        if hole.start > pos:
            pieces.append(text[pos : hole.start])
        source = text[hole.start : hole.end]
        enc = mx.encode_inline(source, hole.breaks, terms)
        line = text.count("\n", 0, hole.start) + 1
        pieces.append(len(segments))
        segments.append(Segment(len(segments), hole.kind, source, line, enc))
        pos = hole.end
    if pos < len(text):
        pieces.append(text[pos:])
    for parent in list(segments):  # link titles: segments of their own, after the holes
        if not parent.needs_request:
            continue
        for slot, closer in enumerate(parent.encoded.slots):
            m = _LINK_TITLE.match(closer) if parent.encoded.kinds[slot] == "link" else None
            if m and any(ch.isalpha() for ch in m.group(3)):
                enc = mx.encode_inline(m.group(3), (), terms)
                index = len(segments)
                segments.append(
                    Segment(index, "title", m.group(3), parent.line, enc, (parent.index, slot))
                )
    return Layout(
        text, tuple(pieces), tuple(segments), tuple(unlocated), tuple(html), tuple(diagrams)
    )


#: A link's closing slot with a title: `](dest "title")`, `](dest 'title')`, `](dest (title))`.
_LINK_TITLE = re.compile(
    r"""(\]\(\s*(?:<[^<>\n]*>|\S+)\s+)("(?=[^"]*"\s*\)$)|'(?=[^']*'\s*\)$)|\()(.*)(["')]\s*\))$""",
    re.S,
)


def with_titles(seg: Segment, titles: dict[int, str]) -> mx.Encoded:
    """`seg`'s encoding with the link titles of `titles` (slot → translated title) in its
    closing slots (the title's quote escaped inside it)."""
    if not titles:
        return seg.encoded
    slots = list(seg.encoded.slots)
    for slot, title in titles.items():
        m = _LINK_TITLE.match(slots[slot])
        if m is None:
            continue
        quote = m.group(2)
        close = ")" if quote == "(" else quote
        text = " ".join(title.split()).replace(close, "\\" + close)
        slots[slot] = m.group(1) + quote + text + m.group(4)
    return replace(seg.encoded, slots=tuple(slots))


def ui_layout(text: str, keep: Sequence[str] = ()) -> Layout:
    """A gettext msgid: one segment (placeholders kept, HTML slots), no Markdown."""
    enc = mx.encode_ui(text, keep)
    seg = Segment(0, "text", text, 1, enc)
    return Layout(text, (0,), (seg,))


# --------------------------------------------------------------------------- structure


def structure(text: str) -> tuple[tuple[str, ...], ...]:
    """The block shape of a Markdown text: every block token (type, tag, markup, info and,
    for code and HTML blocks, the content byte for byte) and each table row's cell count."""
    out: list[tuple[str, ...]] = []
    cells = 0
    for tok in parser().parse(text):
        if tok.type == "inline":
            continue
        if tok.type in ("th_open", "td_open"):
            cells += 1
            continue
        if tok.type == "tr_close":
            out.append(("row", str(cells)))
            cells = 0
            continue
        content = tok.content if tok.type in ("fence", "code_block", "html_block") else ""
        out.append((tok.type, tok.tag, tok.markup, tok.info, content))
    return tuple(out)
