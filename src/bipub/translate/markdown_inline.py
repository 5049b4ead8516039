"""The inline scanner behind markdown_xml: one segment's Markdown as a list of items — text,
slots (verbatim spans: code, URLs, HTML, math, entities, escapes, line breaks), kept terms and
emphasis/link pairs — each slot with its kind. A deliberately small CommonMark-like scanner:
where it misreads unusual Markdown the cost is translation quality, never a lost byte (every
byte of the source is in exactly one item, `source(items)` gives it back).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bipub.text.urls import url_at

_WS = " \t"


def _break_kind(text: str) -> str:
    """A line break inside a paragraph: hard (`\\` or two spaces before it) or soft."""
    head = text.split("\n", 1)[0]
    return "break" if head.endswith("\\") or head.endswith("  ") else "softbreak"


def _protected_kind(text: str) -> str:
    first = text[:1]
    if first == "`":
        return "code"
    if first == "$":
        return "math"
    if first == "&":
        return "entity"
    if first == "\\":
        return "escape"
    if first == "[":
        return "ref"
    if first == "<":
        return "url" if re.match(r"<[A-Za-z][A-Za-z0-9+.\-]{1,31}:|<[^<>\s]+@", text) else "html"
    if first == "h" or url_at(text, 0) is not None:
        return "url"
    return "char"


# --------------------------------------------------------------------------- inline items


@dataclass
class Text:
    text: str


@dataclass
class Slot:
    text: str
    kind: str = "char"


@dataclass
class Keep:
    text: str


@dataclass
class Delim:
    run: str
    can_open: bool
    can_close: bool


@dataclass
class Pair:
    """Emphasis (`g`) or a link/image (`a`): opening slot, translated inside, closing slot."""

    tag: str
    open: str
    inner: list[Item]
    close: str


Item = Text | Slot | Keep | Delim | Pair


def source(items: Iterable[Item]) -> str:
    out: list[str] = []
    for item in items:
        if isinstance(item, Text | Slot | Keep):
            out.append(item.text)
        elif isinstance(item, Delim):
            out.append(item.run)
        else:
            out.extend((item.open, source(item.inner), item.close))
    return "".join(out)


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
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_MATH = re.compile(r"\$\$.+?\$\$|\$(?=[^\s$])[^$]*?[^\s$\\]\$(?!\d)|\$[^\s$]\$(?!\d)", re.S)
_VERBATIM_OPEN = re.compile(
    r"<(code|kbd|samp|var|pre|tt|math|svg|script|style)\b[^>]*(?<!/)>$", re.I
)
_EMAIL_FIRST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-_")
_FOOTNOTE_REF = re.compile(r"\[\^[^\]\s]+\]")
_REF_LABEL = re.compile(r"\[[^\[\]]{0,999}\]")


def _is_space(ch: str) -> bool:
    return ch == "" or ch.isspace()


class Inline:
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
        self.emails = "@" in text

    def char(self, i: int, lo: int, hi: int) -> str:
        """The character at i for flanking rules: line breaks and the region's edges are spaces."""
        if i < lo or i >= hi or i in self.break_chars:
            return " "
        return self.s[i]

    def scan(self, lo: int, hi: int) -> list[Item]:
        s = self.s
        items: list[Item] = []
        buf: list[str] = []

        def flush() -> None:
            if buf:
                items.append(Text("".join(buf)))
                buf.clear()

        def add(item: Item) -> None:
            flush()
            items.append(item)

        i = lo
        while i < hi:
            if i in self.breaks:
                end = self.breaks[i]
                add(Slot(s[i:end], _break_kind(s[i:end])))
                i = end
                continue
            ch = s[i]
            got = self.protected(i, hi)
            if got is not None:
                add(Slot(s[i:got], _protected_kind(s[i:got])))
                i = got
                continue
            term = self.keep_at(i, hi)
            if term:
                add(Keep(term))
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
        if ch in "hwm" or (self.emails and ch in _EMAIL_FIRST):
            # a bare URL, where QA and the renderer read it to end (bipub.text.urls): a Korean
            # particle glued to it is prose ("…/latest/에서 확인한다")
            url = url_at(s, i, hi)
            if url is not None:
                return url.end
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

    def delim(self, run: str, i: int, j: int, lo: int, hi: int) -> Delim:
        before, after = self.char(i - 1, lo, hi), self.char(j, lo, hi)
        left = not _is_space(after) and (
            after not in _PUNCT or _is_space(before) or before in _PUNCT
        )
        right = not _is_space(before) and (
            before not in _PUNCT or _is_space(after) or after in _PUNCT
        )
        if run[0] == "_":
            return Delim(
                run,
                left and (not right or before in _PUNCT),
                right and (not left or after in _PUNCT),
            )
        return Delim(run, left, right)

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

    def link(self, i: int, hi: int) -> tuple[Pair, int] | None:
        s = self.s
        start = i
        if s[i] == "!":
            if i + 1 >= hi or s[i + 1] != "[":
                return None
            if _FOOTNOTE_REF.match(s, i + 1, hi):
                return None  # `![^1]` is "!" and a footnote reference (a slot), not an image
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
                return Pair("a", opener, inner, s[close:end]), end
        if nxt < hi and s[nxt] == "[":
            m = _REF_LABEL.match(s, nxt, hi)
            if m:
                return Pair("a", opener, inner, s[close : m.end()]), m.end()
        return Pair("a", opener, inner, "]"), close + 1


def _resolve(items: list[Item]) -> list[Item]:
    """Pair emphasis delimiters (a simplified CommonMark process) into nested `g` pairs."""
    partner: dict[int, int] = {}
    stack: list[int] = []
    for idx, item in enumerate(items):
        if not isinstance(item, Delim):
            continue
        matched = False
        if item.can_close:
            for pos in range(len(stack) - 1, -1, -1):
                opener = items[stack[pos]]
                assert isinstance(opener, Delim)
                if opener.run == item.run:
                    partner[stack[pos]] = idx
                    del stack[pos:]
                    matched = True
                    break
        if not matched and item.can_open:
            stack.append(idx)
    if not partner:
        return items

    def build(lo: int, hi: int) -> list[Item]:
        out: list[Item] = []
        k = lo
        while k < hi:
            item = items[k]
            if k in partner:
                end = partner[k]
                closer = items[end]
                assert isinstance(item, Delim) and isinstance(closer, Delim)
                out.append(Pair("g", item.run, build(k + 1, end), closer.run))
                k = end + 1
                continue
            out.append(Text(item.run) if isinstance(item, Delim) else item)
            k += 1
        return out

    return build(0, len(items))
