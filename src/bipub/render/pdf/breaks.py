"""Korean line breaking for the PDF renderer (a pre-pass on the print HTML).

WeasyPrint 70 ignores `word-break: keep-all` and breaks lines between any two Hangul syllables
("해결하 / 는"). Korean is set with breaks between words (어절) only, so before rendering:

* inside every run of non-space characters that contains Hangul (a 어절 with its attached
  particles and punctuation, e.g. ``「PagedAttention은`` or ``2.4×).``), a WORD JOINER (U+2060)
  goes between each two characters: UAX #14 forbids a break on either side of it, so lines
  break only at spaces. U+2060 is default-ignorable: it draws nothing, takes no width and is
  not in the PDF's text layer (copy, search and pdftotext see the plain word).
  Why not ``<span class="kw" style="white-space: nowrap">`` per word (which also works): each
  span is an inline box, and on the demo CV the ~900 spans doubled WeasyPrint's layout and
  drawing time (Korean CV 0.8 s → 2 s), over the 1.5 s budget. `wrap_words(…, spans=True)`
  still produces the spans (the print CSS keeps `.kw { white-space: nowrap }`);
* where one word continues across an inline tag (``<code>x</code>를``, ``<b>굵게</b>는``) and one
  side is Hangul or the next starts with closing punctuation, a WORD JOINER is put at the
  junction too, so no line starts with the particle;
* Latin runs are left alone (they still wrap at spaces and hyphens, links with
  ``overflow-wrap: anywhere``), and so are runs longer than `MAX_RUN` characters (a nowrap run
  wider than the column would overflow the page: better a break inside it than lost text);
* nothing inside <pre>, <code>, <kbd>, <samp>, <script>, <style>, <head> … is changed.
"""

from __future__ import annotations

import re
import unicodedata
from html import escape
from html.parser import HTMLParser
from itertools import pairwise

WORD_JOINER = "\u2060"
MAX_RUN = 40
KW_OPEN = '<span class="kw">'

_HANGUL = re.compile(
    "[\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7a3\ud7b0-\ud7ff\uffa0-\uffdc]"
)
_SPACE = " \t\n\r\f\u3000"
_RUN = re.compile(f"[^{_SPACE}]+")
# Characters that must never begin a line (closing brackets, quotes and sentence punctuation).
CLOSING = set(".,!?:;)]}»›%」』》〉】〕〗〙〛）］｝、。，．：；！？”’…‥·")
_SKIP = {
    "pre",
    "code",
    "kbd",
    "samp",
    "var",
    "script",
    "style",
    "textarea",
    "title",
    "head",
    "svg",
    "math",
}
# Inline elements: a word may continue across their tags.
_INLINE = {
    "a",
    "abbr",
    "b",
    "bdi",
    "bdo",
    "cite",
    "code",
    "data",
    "del",
    "dfn",
    "em",
    "i",
    "ins",
    "kbd",
    "mark",
    "q",
    "s",
    "samp",
    "small",
    "span",
    "strong",
    "sub",
    "sup",
    "time",
    "u",
    "var",
}
_VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}


def has_hangul(text: str) -> bool:
    return _HANGUL.search(text) is not None


def _joinable(ch: str) -> bool:
    """Whether a word joiner may go before `ch` (never inside a grapheme cluster)."""
    code = ord(ch)
    if 0x1160 <= code <= 0x11FF or 0xD7B0 <= code <= 0xD7FF:  # conjoining jamo V and T
        return False
    return unicodedata.category(ch) not in ("Mn", "Mc", "Me", "Cf", "Sk")


def join_word(run: str) -> str:
    """`run` with a WORD JOINER between each two characters (grapheme clusters kept whole)."""
    out = [run[0]]
    for prev, ch in pairwise(run):
        if _joinable(ch) and prev != "\u200d" and prev != WORD_JOINER and ch != WORD_JOINER:
            out.append(WORD_JOINER)
        out.append(ch)
    return "".join(out)


def wrap_words(text: str, spans: bool = False) -> str:
    """Escape `text` and keep each Hangul-containing run (≤ MAX_RUN chars) on one line: word
    joiners inside it, or (spans=True) a kw span around it."""

    def repl(m: re.Match[str]) -> str:
        run = m.group(0)
        if len(run) <= MAX_RUN and has_hangul(run):
            if spans:
                return f"{KW_OPEN}{escape(run, quote=False)}</span>"
            return escape(join_word(run), quote=False)
        return escape(run, quote=False)

    out: list[str] = []
    last = 0
    for m in _RUN.finditer(text):
        out.append(escape(text[last : m.start()], quote=False))
        out.append(repl(m))
        last = m.end()
    out.append(escape(text[last:], quote=False))
    return "".join(out)


class _Breaker(HTMLParser):
    def __init__(self, spans: bool = False) -> None:
        super().__init__(convert_charrefs=True)
        self.spans = spans
        self.out: list[str] = []
        self.skip: list[str] = []  # open elements whose text is left alone
        self.raw = False  # inside <script>/<style>: text is emitted verbatim
        self.tail = " "  # last character of the text before the current position
        self.tail_index: int | None = None  # out[] index of that text, if it may be changed

    # A word boundary (block tag, <br>, <img>…): the next text starts a new word.
    def _boundary(self) -> None:
        self.tail = " "
        self.tail_index = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.out.append(self.get_starttag_text() or f"<{tag}>")
        if tag not in _INLINE:
            self._boundary()
        if tag in ("script", "style"):
            self.raw = True
        if tag in _SKIP and tag not in _VOID:
            self.skip.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.out.append(self.get_starttag_text() or f"<{tag}/>")
        if tag not in _INLINE:
            self._boundary()

    def handle_endtag(self, tag: str) -> None:
        self.out.append(f"</{tag}>")
        if tag in ("script", "style"):
            self.raw = False
        if tag in self.skip:
            while self.skip:
                if self.skip.pop() == tag:
                    break
        if tag not in _INLINE:
            self._boundary()

    def handle_data(self, data: str) -> None:
        if self.raw:
            self.out.append(data)
            return
        if not data:
            return
        editable = not self.skip
        head = data[0]
        joined = head not in _SPACE and self.tail not in _SPACE
        if joined and (has_hangul(self.tail) or has_hangul(head) or head in CLOSING):
            if self.tail_index is not None:
                self.out[self.tail_index] += WORD_JOINER
            elif editable:
                data = WORD_JOINER + data
        self.out.append(wrap_words(data, self.spans) if editable else escape(data, quote=False))
        self.tail = data[-1]
        self.tail_index = len(self.out) - 1 if editable else None

    def handle_comment(self, data: str) -> None:
        self.out.append(f"<!--{data}-->")

    def handle_decl(self, decl: str) -> None:
        self.out.append(f"<!{decl}>")

    def handle_pi(self, data: str) -> None:
        self.out.append(f"<?{data}>")

    def unknown_decl(self, data: str) -> None:
        self.out.append(f"<![{data}]>")


def korean_line_breaks(html: str, spans: bool = False) -> str:
    """The print HTML with Korean words protected from breaking (see the module docstring);
    `spans=True`: kw spans instead of word joiners (slower; kept for comparison in bench/)."""
    parser = _Breaker(spans)
    parser.feed(html)
    parser.close()
    return "".join(parser.out)
