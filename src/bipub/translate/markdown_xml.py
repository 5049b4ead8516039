"""Markdown ↔ XML for DeepL, whose text API knows HTML/XML markup but not Markdown.

`encode_markdown(text)` turns a Markdown text into an XML string plus a tuple of *slots* (the
source bytes DeepL must never see); `decode(xml, slots)` turns DeepL's answer back into Markdown.
Every byte of the source ends up either as escaped XML text (prose DeepL translates) or in a slot,
so `decode(encode(md).xml, encode(md).slots) == md` for any text whatsoever.

The XML DeepL receives (`tag_handling=xml`, `ignore_tags=k`, `splitting_tags=t`,
`outline_detection=false`) uses five elements:

    <t>…</t>            one block of prose: a paragraph, a heading's text, a list item, a table cell
    <x i="3"/>          slot 3, verbatim: code fences and spans, URLs, raw HTML, math, entities,
                        escapes, heading/list/quote/table syntax, line breaks and indentation
    <g i="4">…</g>      emphasis, strong or strikethrough: slots 4 and 5 hold `**` and `**`
    <a i="6">…</a>      a link or image: slots 6 and 7 hold `[` and `](https://… "title")`
    <k>vLLM</k>         kept verbatim (an ignored tag): do-not-translate terms, gettext placeholders

Prose is what DeepL should translate, and only that: link *text* and image alt text are prose,
link targets are slots. Line structure is kept by construction (newlines only ever live in
slots), so headings, lists, tables and block quotes come back where they were; a paragraph's soft
line breaks travel with the words DeepL moves them with.

The parser is a deliberately small line scanner (fences, indented code, `$$` math, HTML blocks,
ATX headings, lists, quotes, GFM tables, reference and footnote definitions) plus an inline
scanner (code spans, autolinks, inline HTML, links/images, emphasis, math, URLs, entities,
escapes). Where it misreads unusual Markdown the cost is translation quality, never lost bytes.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

#: Bump when the XML produced for the same Markdown changes (part of the cache key).
VERSION = "1"
IGNORE_TAGS: tuple[str, ...] = ("k",)
SPLITTING_TAGS: tuple[str, ...] = ("t",)
NON_SPLITTING_TAGS: tuple[str, ...] = ("x", "g", "a")


@dataclass(frozen=True)
class Encoded:
    """What is sent (`xml`) and what is kept back (`slots`, referenced by index)."""

    xml: str
    slots: tuple[str, ...]

    @property
    def has_prose(self) -> bool:
        """False when there is nothing to translate: no letters outside slots and kept terms
        (only code, URLs, numbers, markup…). Such a text is its own translation."""
        return any(ch.isalpha() for ch in _NOT_PROSE.sub("", self.xml))


# --------------------------------------------------------------------------- XML text

_NOT_PROSE = re.compile(r"<k>.*?</k>|<[^>]*>|&[#\w]+;", re.S)

_XML_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
#: Characters XML cannot carry or DeepL would normalise: always slots.
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


def _escape(text: str) -> str:
    return "".join(_XML_ESCAPES.get(ch, ch) for ch in text)


_ENTITY_NAMES = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}


def _unescape_entity(name: str) -> str:
    if name in _ENTITY_NAMES:
        return _ENTITY_NAMES[name]
    try:
        code = int(name[2:], 16) if name[1:2] in ("x", "X") else int(name[1:])
        return chr(code)
    except (ValueError, OverflowError):
        return f"&{name};"


# --------------------------------------------------------------------------- inline items


@dataclass
class _Text:
    text: str


@dataclass
class _Slot:
    text: str


@dataclass
class _Keep:
    text: str


@dataclass
class _Delim:
    run: str
    can_open: bool
    can_close: bool


@dataclass
class _Pair:
    """Emphasis (`g`) or a link/image (`a`): opening slot, translated inside, closing slot."""

    tag: str
    open: str
    inner: list[_Item]
    close: str


_Item = _Text | _Slot | _Keep | _Delim | _Pair


@dataclass
class _Out:
    parts: list[str] = field(default_factory=list)
    slots: list[str] = field(default_factory=list)

    def slot(self, text: str) -> None:
        if not text:
            return
        self.parts.append(f'<x i="{len(self.slots)}"/>')
        self.slots.append(text)

    def text(self, text: str) -> None:
        pos = 0
        for m in _UNSAFE.finditer(text):
            self.parts.append(_escape(text[pos : m.start()]))
            self.slot(m.group(0))
            pos = m.end()
        self.parts.append(_escape(text[pos:]))

    def items(self, items: Iterable[_Item]) -> None:
        for item in items:
            if isinstance(item, _Text):
                self.text(item.text)
            elif isinstance(item, _Slot):
                self.slot(item.text)
            elif isinstance(item, _Keep):
                self.parts.append("<k>" + _escape(item.text) + "</k>")
            elif isinstance(item, _Delim):
                self.text(item.run)
            else:
                n = len(self.slots)
                self.slots.extend((item.open, item.close))
                self.parts.append(f'<{item.tag} i="{n}">')
                self.items(item.inner)
                self.parts.append(f"</{item.tag}>")


# --------------------------------------------------------------------------- inline scanner

_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_BACKTICKS = re.compile(r"`+")
_AUTOLINK = re.compile(
    r"<(?:[A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*|[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+)>"
)
_INLINE_HTML = re.compile(
    r"<!--.*?-->|<\?.*?\?>|<![A-Za-z][^>]*>|<!\[CDATA\[.*?\]\]>"
    r"|</?[A-Za-z][A-Za-z0-9\-]*(?:\s+[A-Za-z_:][\w:.\-]*(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+))?)*\s*/?>",
    re.S,
)
#: Bare URLs exactly as the QA link check reads them (bipub.check.qa._URL / _URL_TRAIL).
_URL = re.compile(r"https?://[^\s<>()\[\]\"'`]+")
_URL_TRAIL = ".,;:!?'\")]}"
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_MATH = re.compile(r"\$\$.+?\$\$|\$(?=[^\s$])[^$]*?[^\s$\\]\$(?!\d)|\$[^\s$]\$(?!\d)", re.S)
_VERBATIM_OPEN = re.compile(
    r"<(code|kbd|samp|var|pre|tt|math|svg|script|style)\b[^>]*(?<!/)>$", re.I
)
_FOOTNOTE_REF = re.compile(r"\[\^[^\]\s]+\]")
_REF_LABEL = re.compile(r"\[[^\[\]]{0,999}\]")


def _is_space(ch: str) -> bool:
    return ch == "" or ch.isspace()


class _Inline:
    """Scans text[start:end] (breaks: (start, end) spans that are line breaks) into items."""

    def __init__(
        self,
        text: str,
        breaks: Sequence[tuple[int, int]],
        keep: Sequence[str],
        placeholders: re.Pattern[str] | None = None,
        markdown: bool = True,
    ) -> None:
        self.s = text
        self.breaks = {b[0]: b[1] for b in breaks}
        self.break_chars = {i for a, b in breaks for i in range(a, b)}
        self.keep = keep
        self.keep_first = {t[0] for t in keep}
        self.placeholders = placeholders
        self.markdown = markdown

    def char(self, i: int, lo: int, hi: int) -> str:
        """The character at i for flanking rules: line breaks and the region's edges are spaces."""
        if i < lo or i >= hi or i in self.break_chars:
            return " "
        return self.s[i]

    def scan(self, lo: int, hi: int) -> list[_Item]:
        s = self.s
        items: list[_Item] = []
        buf: list[str] = []

        def flush() -> None:
            if buf:
                items.append(_Text("".join(buf)))
                buf.clear()

        def add(item: _Item) -> None:
            flush()
            items.append(item)

        i = lo
        while i < hi:
            if i in self.breaks:
                end = self.breaks[i]
                add(_Slot(s[i:end]))
                i = end
                continue
            ch = s[i]
            got = self.protected(i, hi)
            if got is not None:
                add(_Slot(s[i:got]))
                i = got
                continue
            term = self.keep_at(i, hi)
            if term:
                add(_Keep(term))
                i += len(term)
                continue
            if self.markdown and ch in "[!":
                pair = self.link(i, hi)
                if pair is not None:
                    item, end = pair
                    add(item)
                    i = end
                    continue
            if self.markdown and ch in "*_~":
                j = i
                while j < hi and s[j] == ch and j not in self.breaks:
                    j += 1
                run = s[i:j]
                if ch == "~" and len(run) != 2:
                    buf.append(run)
                    i = j
                    continue
                add(self.delim(run, i, j, lo, hi))
                i = j
                continue
            buf.append(ch)
            i += 1
        flush()
        return _resolve(items)

    def protected(self, i: int, hi: int) -> int | None:
        """End of a protected span starting at i (code, URL, HTML, math, entity, escape)."""
        s = self.s
        ch = s[i]
        if self.placeholders is not None:
            m = self.placeholders.match(s, i, hi)
            if m and m.end() > i:
                return m.end()
        if ch == "<":
            m = _AUTOLINK.match(s, i, hi) or _INLINE_HTML.match(s, i, hi)
            if m:
                verbatim = _VERBATIM_OPEN.match(m.group(0))
                if verbatim:  # <code>…</code>, <kbd>…</kbd>: the content is not prose either
                    close = re.compile(rf"</{verbatim.group(1)}\s*>", re.I).search(s, m.end(), hi)
                    if close:
                        return close.end()
                return m.end()
        if ch == "&":
            m = _ENTITY.match(s, i, hi)
            if m:
                return m.end()
        if ch == "h" and (i == 0 or not s[i - 1].isalnum()):
            m = _URL.match(s, i, hi)
            if m:
                end = len(m.group(0).rstrip(_URL_TRAIL))
                if end > len("https://"):
                    return i + end
        if not self.markdown:
            return None
        if ch == "\\" and i + 1 < hi and s[i + 1] in _PUNCT:
            return i + 2
        if ch == "`":
            run = _BACKTICKS.match(s, i, hi)
            assert run is not None
            n = len(run.group(0))
            j = run.end()
            while j < hi:
                m = _BACKTICKS.search(s, j, hi)
                if m is None:
                    break
                if len(m.group(0)) == n:
                    return m.end()
                j = m.end()
            return run.end()  # an unmatched run of backticks is literal: keep it as is
        if ch == "$":
            m = _MATH.match(s, i, hi)
            if m:
                return m.end()
        if ch == "[":
            m = _FOOTNOTE_REF.match(s, i, hi)
            if m:
                return m.end()
        return None

    def keep_at(self, i: int, hi: int) -> str | None:
        s = self.s
        if s[i] not in self.keep_first:
            return None
        for term in self.keep:
            if not s.startswith(term, i) or i + len(term) > hi:
                continue
            if term[0].isalnum() and i > 0 and s[i - 1].isalnum():
                continue
            end = i + len(term)
            if term[-1].isalnum() and end < len(s) and s[end].isalnum() and s[end].isascii():
                continue
            return term
        return None

    def delim(self, run: str, i: int, j: int, lo: int, hi: int) -> _Delim:
        before, after = self.char(i - 1, lo, hi), self.char(j, lo, hi)
        left = not _is_space(after) and (
            after not in _PUNCT or _is_space(before) or before in _PUNCT
        )
        right = not _is_space(before) and (
            before not in _PUNCT or _is_space(after) or after in _PUNCT
        )
        if run[0] == "_":
            return _Delim(
                run,
                left and (not right or before in _PUNCT),
                right and (not left or after in _PUNCT),
            )
        return _Delim(run, left, right)

    def bracket_end(self, i: int, hi: int) -> int | None:
        """Index of the `]` closing the `[` at i (nested brackets, code spans, escapes)."""
        s = self.s
        depth = 0
        j = i
        while j < hi:
            ch = s[j]
            if ch == "\\" and j + 1 < hi:
                j += 2
                continue
            if ch == "`":
                end = self.protected(j, hi)
                j = end if end is not None else j + 1
                continue
            if ch == "[":
                depth += 1
            elif ch == "]":
                depth -= 1
                if depth == 0:
                    return j
            j += 1
        return None

    def _skip_space(self, j: int, hi: int) -> int:
        while j < hi and (self.s[j] in _WS or j in self.breaks):
            j = self.breaks.get(j, j + 1)
        return j

    def destination(self, i: int, hi: int) -> int | None:
        """End of `(dest "title")` starting at the `(` at i, or None."""
        s = self.s
        j = self._skip_space(i + 1, hi)
        if j < hi and s[j] == "<":
            k = s.find(">", j, hi)
            if k < 0 or "\n" in s[j:k]:
                return None
            j = k + 1
        else:
            depth = 0
            while j < hi and not s[j].isspace():
                if s[j] == "\\" and j + 1 < hi:
                    j += 2
                    continue
                if s[j] == "(":
                    depth += 1
                elif s[j] == ")":
                    if depth == 0:
                        break
                    depth -= 1
                j += 1
        j = self._skip_space(j, hi)
        if j < hi and s[j] in "\"'(":
            close = ")" if s[j] == "(" else s[j]
            k = j + 1
            while k < hi and s[k] != close:
                k += 2 if s[k] == "\\" else 1
            if k >= hi:
                return None
            j = k + 1
            while j < hi and s[j] in " \t":
                j += 1
        if j < hi and s[j] == ")":
            return j + 1
        return None

    def link(self, i: int, hi: int) -> tuple[_Pair, int] | None:
        s = self.s
        start = i
        if s[i] == "!":
            if i + 1 >= hi or s[i + 1] != "[":
                return None
            i += 1
        close = self.bracket_end(i, hi)
        if close is None or (close == i + 1 and s[start] == "["):
            return None
        opener = s[start : i + 1]
        inner = self.scan(i + 1, close)
        nxt = close + 1
        if nxt < hi and s[nxt] == "(":
            end = self.destination(nxt, hi)
            if end is not None:
                return _Pair("a", opener, inner, s[close:end]), end
        if nxt < hi and s[nxt] == "[":
            m = _REF_LABEL.match(s, nxt, hi)
            if m:
                return _Pair("a", opener, inner, s[close : m.end()]), m.end()
        return _Pair("a", opener, inner, "]"), close + 1


def _resolve(items: list[_Item]) -> list[_Item]:
    """Pair emphasis delimiters (a simplified CommonMark process) into nested `g` pairs."""
    partner: dict[int, int] = {}
    stack: list[int] = []
    for idx, item in enumerate(items):
        if not isinstance(item, _Delim):
            continue
        matched = False
        if item.can_close:
            for pos in range(len(stack) - 1, -1, -1):
                opener = items[stack[pos]]
                assert isinstance(opener, _Delim)
                if opener.run == item.run:
                    partner[stack[pos]] = idx
                    del stack[pos:]
                    matched = True
                    break
        if not matched and item.can_open:
            stack.append(idx)
    if not partner:
        return items

    def build(lo: int, hi: int) -> list[_Item]:
        out: list[_Item] = []
        k = lo
        while k < hi:
            item = items[k]
            if k in partner:
                end = partner[k]
                closer = items[end]
                assert isinstance(item, _Delim) and isinstance(closer, _Delim)
                out.append(_Pair("g", item.run, build(k + 1, end), closer.run))
                k = end + 1
                continue
            out.append(_Text(item.run) if isinstance(item, _Delim) else item)
            k += 1
        return out

    return build(0, len(items))


# --------------------------------------------------------------------------- block scanner


@dataclass
class _Region:
    start: int
    end: int
    breaks: list[tuple[int, int]] = field(default_factory=list)


_QUOTE = re.compile(r"(?: {0,3}>[ \t]?)+")
_FENCE = re.compile(r"([ \t]*)(`{3,}|~{3,})(.*)")
_THEMATIC = re.compile(r" {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})")
_SETEXT = re.compile(r" {0,3}(?:=+|-+)[ \t]*")
_ATX = re.compile(r"( {0,3}#{1,6})(?=[ \t]|$)")
_ATX_CLOSE = re.compile(r"[ \t]+#+[ \t]*$|[ \t]+$")
_LIST = re.compile(r"( {0,12})([-*+]|\d{1,9}[.)])([ \t]+(?:\[[ xX]\][ \t]+)?|$)")
_REF_DEF = re.compile(r" {0,3}\[(?!\^)(?:[^\[\]\\]|\\.)+\]:")
_FOOTNOTE_DEF = re.compile(r" {0,3}\[\^[^\]\s]+\]:[ \t]*")
_DELIM_ROW = re.compile(r"\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*")
_HTML_BLOCK = re.compile(
    r" {0,3}(?:<!--|<\?|<![A-Z]|<!\[CDATA\[|</?(?:address|article|aside|blockquote|body|caption|"
    r"center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|"
    r"h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|nav|ol|optgroup|option|p|"
    r"param|pre|script|section|source|style|summary|table|tbody|td|textarea|tfoot|th|thead|"
    r"title|tr|track|ul|video|audio|picture)(?=[\s/>]|$))",
    re.I,
)
_WS = " \t"


def _indent(text: str) -> int:
    n = 0
    for ch in text:
        if ch == " ":
            n += 1
        elif ch == "\t":
            n += 4 - n % 4
        else:
            break
    return n


def _table_rows(lines: Sequence[str]) -> tuple[set[int], set[int]]:
    """(row line indexes, delimiter-row line indexes) of GFM tables."""
    rows: set[int] = set()
    delims: set[int] = set()

    def body(line: str) -> str:
        m = _QUOTE.match(line)
        return line[m.end() :] if m else line

    i = 0
    while i + 1 < len(lines):
        head, delim = body(lines[i]), body(lines[i + 1])
        if (
            "|" in head
            and "-" in delim
            and _DELIM_ROW.fullmatch(delim)
            and ("|" in delim or delim.strip().startswith(":"))
            and i not in rows
        ):
            rows.add(i)
            delims.add(i + 1)
            j = i + 2
            while j < len(lines) and body(lines[j]).strip() and "|" in body(lines[j]):
                rows.add(j)
                j += 1
            i = j
            continue
        i += 1
    return rows, delims


def _cells(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """Spans of a table row's cells (between unescaped pipes outside code spans)."""
    cuts = [lo - 1]
    j = lo
    while j < hi:
        ch = text[j]
        if ch == "\\":
            j += 2
            continue
        if ch == "`":
            run = _BACKTICKS.match(text, j, hi)
            assert run is not None
            close = text.find(run.group(0), run.end(), hi)
            j = close + len(run.group(0)) if close >= 0 else run.end()
            continue
        if ch == "|":
            cuts.append(j)
        j += 1
    cuts.append(hi)
    return [(a + 1, b) for a, b in itertools.pairwise(cuts)]


def _strip_span(text: str, lo: int, hi: int) -> tuple[int, int]:
    while lo < hi and text[lo] in _WS:
        lo += 1
    while hi > lo and text[hi - 1] in _WS:
        hi -= 1
    return lo, hi


def _regions(text: str) -> list[_Region]:
    """The prose regions of a Markdown text; everything outside them is kept verbatim."""
    lines = text.split("\n")
    table_rows, delim_rows = _table_rows(lines)
    regions: list[_Region] = []
    para: _Region | None = None
    fence: tuple[str, int] | None = None
    math = False
    html_until: str | None = None  # "-->" or "" (a blank line)
    in_icode = False
    prev_blank = True
    list_indent: int | None = None
    offset = 0

    def close() -> None:
        nonlocal para
        if para is not None:
            regions.append(para)
            para = None

    def start_para(lo: int, hi: int) -> None:
        nonlocal para
        lo, hi = _strip_span(text, lo, hi)
        if lo < hi:
            para = _Region(lo, hi)

    for index, line in enumerate(lines):
        base = offset
        offset += len(line) + 1
        q = _QUOTE.match(line)
        qlen = q.end() if q else 0
        rest = line[qlen:]
        lo, hi = base + qlen, base + len(line)
        blank = not rest.strip()
        if fence is not None:
            m = _FENCE.fullmatch(rest.rstrip())
            if m and m.group(2)[0] == fence[0] and len(m.group(2)) >= fence[1] and not m.group(3):
                fence = None
            continue
        if math:
            if "$$" in rest:
                math = False
            continue
        if html_until is not None:
            if html_until == "-->" and "-->" in rest:
                html_until = None
            elif html_until == "" and blank:
                html_until = None
                prev_blank = True
            continue
        if blank:
            close()
            prev_blank = True
            in_icode = False
            continue
        ind = _indent(rest)
        if list_indent is not None and prev_blank and ind < list_indent:
            list_indent = None
        code_base = list_indent or 0
        if para is None and (prev_blank or in_icode) and ind - code_base >= 4:
            in_icode = True
            prev_blank = False
            continue
        in_icode = False
        prev_blank = False
        m = _FENCE.match(rest)
        if m and ind - code_base < 4 and not (m.group(2)[0] == "`" and "`" in m.group(3)):
            close()
            fence = (m.group(2)[0], len(m.group(2)))
            continue
        stripped = rest.strip()
        if stripped.startswith("$$"):
            close()
            math = not (len(stripped) > 2 and stripped.endswith("$$"))
            continue
        if _HTML_BLOCK.match(rest):
            close()
            if rest.lstrip().startswith("<!--"):
                html_until = None if "-->" in rest[rest.find("<!--") + 4 :] else "-->"
            else:
                html_until = ""
            continue
        if index in delim_rows:
            close()
            continue
        if index in table_rows:
            close()
            for a, b in _cells(text, lo, hi):
                a, b = _strip_span(text, a, b)
                if a < b:
                    regions.append(_Region(a, b))
            continue
        if (para is not None and _SETEXT.fullmatch(rest)) or _THEMATIC.fullmatch(rest):
            close()
            continue
        m = _ATX.match(rest)
        if m:
            close()
            a = lo + m.end()
            tail = _ATX_CLOSE.search(rest, m.end())
            b = lo + tail.start() if tail else hi
            a, b = _strip_span(text, a, b)
            if a < b:
                regions.append(_Region(a, b))
            continue
        if para is None and _REF_DEF.match(rest):
            continue
        m = _FOOTNOTE_DEF.match(rest)
        if m:
            close()
            start_para(lo + m.end(), hi)
            continue
        m = _LIST.match(rest)
        if m and not (para is not None and m.group(3) == ""):
            close()
            width = len(m.group(0).expandtabs(4))
            list_indent = width if m.group(3) else width + 1
            start_para(lo + m.end(), hi)
            continue
        a, b = _strip_span(text, lo, hi)
        if para is not None:
            brk = para.end
            if brk > para.start and text[brk - 1] == "\\":
                brk -= 1
            para.breaks.append((brk, a))
            para.end = b
        else:
            start_para(lo, hi)
    close()
    return regions


# --------------------------------------------------------------------------- encode / decode


def _keep_terms(keep: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted({t for t in keep if t and t.strip() == t}, key=lambda t: (-len(t), t)))


_TITLE_PREFIX = re.compile(r"\s*\[[^\]\n]+\]")


def encode_markdown(text: str, keep: Iterable[str] = (), *, title: bool = False) -> Encoded:
    """Markdown → XML + slots. `keep`: do-not-translate terms; `title`: keep a `[Prefix]`."""
    terms = _keep_terms(keep)
    out = _Out()
    scanner = _Inline(text, [], terms)
    pos = 0
    prefix_end = 0
    if title:
        m = _TITLE_PREFIX.match(text)
        if m:
            prefix_end = m.end()
    for region in _regions(text):
        lo, hi = _strip_span(text, max(region.start, prefix_end), region.end)
        if lo >= hi:
            continue
        scanner.breaks = {a: b for a, b in region.breaks}
        scanner.break_chars = {i for a, b in region.breaks for i in range(a, b)}
        out.slot(text[pos:lo])
        out.parts.append("<t>")
        out.items(scanner.scan(lo, hi))
        out.parts.append("</t>")
        pos = hi
    out.slot(text[pos:])
    return Encoded("".join(out.parts), tuple(out.slots))


#: gettext placeholders: `%(name)s`, `{name}`, `%s`, `%%`.
_UI_PLACEHOLDER = re.compile(r"%\(\w+\)[sdifr]|\{\w*\}|%[sdif%]")


def encode_ui(text: str, keep: Iterable[str] = ()) -> Encoded:
    """A UI string (gettext msgid) → XML: placeholders become ignored `<k>` elements, HTML tags
    and entities slots; the rest is one block of prose."""
    terms = _keep_terms(keep)
    out = _Out()
    lo, hi = _strip_span(text, 0, len(text))
    out.slot(text[:lo])
    if lo < hi:
        scanner = _Inline(text, [], terms, markdown=False)
        items: list[_Item] = []
        for item in scanner.scan(lo, hi):
            if isinstance(item, _Text):
                pos = 0
                for m in _UI_PLACEHOLDER.finditer(item.text):
                    if m.start() > pos:
                        items.append(_Text(item.text[pos : m.start()]))
                    items.append(_Keep(m.group(0)))
                    pos = m.end()
                if pos < len(item.text):
                    items.append(_Text(item.text[pos:]))
            else:
                items.append(item)
        out.parts.append("<t>")
        out.items(items)
        out.parts.append("</t>")
    out.slot(text[hi:])
    return Encoded("".join(out.parts), tuple(out.slots))


_TOKEN = re.compile(
    r"""<x\s+i\s*=\s*["'](\d+)["']\s*/>"""
    r"""|<x\s+i\s*=\s*["'](\d+)["']\s*>\s*</x\s*>"""
    r"""|<([ga])\s+i\s*=\s*["'](\d+)["']\s*>"""
    r"""|</([ga])\s*>"""
    r"""|</?t\s*>|<t\s*/>"""
    r"""|<k\s*>(.*?)</k\s*>"""
    r"""|&(\#[0-9]+|\#[xX][0-9a-fA-F]+|amp|lt|gt|quot|apos);""",
    re.S,
)


_ENTITY_IN_KEEP = re.compile(r"&(\#[0-9]+|\#[xX][0-9a-fA-F]+|amp|lt|gt|quot|apos);")


@dataclass(frozen=True)
class Decoded:
    text: str
    problems: tuple[str, ...]  # placeholders DeepL lost or repeated


def decode(xml: str, slots: Sequence[str]) -> Decoded:
    """DeepL's XML → Markdown. Never raises: lost or repeated slots are reported as problems."""
    out: list[str] = []
    used = [0] * len(slots)
    stack: list[tuple[str, int]] = []
    unknown = 0

    def take(n: int) -> str:
        nonlocal unknown
        if 0 <= n < len(slots):
            used[n] += 1
            return slots[n]
        unknown += 1
        return ""

    pos = 0
    for m in _TOKEN.finditer(xml):
        out.append(xml[pos : m.start()])
        pos = m.end()
        token = m.group(0)
        if m.group(1) is not None or m.group(2) is not None:
            out.append(take(int(m.group(1) or m.group(2))))
        elif m.group(3) is not None:
            n = int(m.group(4))
            out.append(take(n))
            if 0 <= n + 1 < len(slots):
                stack.append((m.group(3), n + 1))
        elif m.group(5) is not None:
            tag = m.group(5)
            for depth in range(len(stack) - 1, -1, -1):
                if stack[depth][0] == tag:
                    for _, closer in reversed(stack[depth:]):
                        out.append(take(closer))
                    del stack[depth:]
                    break
        elif m.group(6) is not None:
            out.append(_ENTITY_IN_KEEP.sub(lambda e: _unescape_entity(e.group(1)), m.group(6)))
        elif m.group(7) is not None:
            out.append(_unescape_entity(m.group(7)))
        elif token.startswith("</t") or token.endswith("/>"):
            for _, closer in reversed(stack):
                out.append(take(closer))
            stack.clear()
    out.append(xml[pos:])
    for _, closer in reversed(stack):
        out.append(take(closer))
    problems: list[str] = []
    lost = [n for n, count in enumerate(used) if count == 0]
    extra = [n for n, count in enumerate(used) if count > 1]
    if lost:
        problems.append(
            f"{len(lost)} protected part(s) lost in translation: "
            + ", ".join(repr(_short(slots[n])) for n in lost[:3])
            + (" …" if len(lost) > 3 else "")
        )
    if extra:
        problems.append(
            f"{len(extra)} protected part(s) repeated in translation: "
            + ", ".join(repr(_short(slots[n])) for n in extra[:3])
        )
    if unknown:
        problems.append(f"{unknown} unknown placeholder(s) in the translation were dropped")
    return Decoded("".join(out), tuple(problems))


def _short(text: str, limit: int = 40) -> str:
    one = text.replace("\n", "⏎")
    return one if len(one) <= limit else one[: limit - 1] + "…"


def roundtrip(text: str) -> str:
    """decode(encode(text)) — the identity; for tests and for texts with no prose."""
    enc = encode_markdown(text)
    return decode(enc.xml, enc.slots).text
