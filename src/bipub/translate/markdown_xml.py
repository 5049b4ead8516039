"""Inline Markdown ↔ XML for DeepL, whose text API knows XML markup but not Markdown.

One *segment* (a heading's text, a paragraph, a table cell…: see translate/segments.py, which
keeps all block structure at home) is encoded as one XML text:

    <x i="3"/>          slot 3, verbatim: a code span, URL, inline HTML, math, an entity, an
                        escape, a hard line break
    <g i="4">…</g>      emphasis, strong or strikethrough: slots 4 and 5 hold `**` and `**`
    <a i="6">…</a>      a link or image: slots 6 and 7 hold `[` and `](https://… "title")`
    <k>vLLM</k>         kept verbatim (an ignored tag): do-not-translate terms, gettext placeholders

Prose is what DeepL should translate, and only that: link *text* and image alt text are prose,
link targets are slots. A soft line break is sent as a space (the restored paragraph is one
line). Slots at the very start or end of a segment that are not part of the sentence (HTML tags,
footnote references, escapes, hard breaks) are trimmed off before sending and put back locally
(`Encoded.lead`, `Encoded.trail`).

`decode(answer, encoded)` never loses a protected byte: a code span, URL, math, HTML or entity
slot the engine dropped is put back at the end of the segment, and every loss — a protected
slot, an emphasis or link pair (the words are kept), a hard break, an unknown or repeated
placeholder, an answer that is not well-formed XML — is reported as a `Loss`.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from bipub.translate.markdown_inline import Delim, Inline, Item, Keep, Slot, Text, source

#: Bump when the XML produced for the same Markdown changes (part of the cache key).
VERSION = "2"
IGNORE_TAGS: tuple[str, ...] = ("k",)
SPLITTING_TAGS: tuple[str, ...] = ()
NON_SPLITTING_TAGS: tuple[str, ...] = ("x", "g", "a")

#: Slot kinds that carry meaning of their own and are put back when an engine drops them.
PROTECTED = frozenset({"code", "url", "math", "html", "entity", "escape", "ref", "char"})
#: Slot kinds trimmed off a segment's edges (not words of the sentence).
_TRIMMED = frozenset({"html", "entity", "escape", "ref", "char", "break"})


@dataclass(frozen=True)
class Encoded:
    """What is sent (`xml`) and what is kept back (`slots` by index, each with its kind;
    `lead`/`trail`: source text trimmed off the segment's edges)."""

    xml: str
    slots: tuple[str, ...]
    kinds: tuple[str, ...] = ()
    lead: str = ""
    trail: str = ""

    @property
    def has_prose(self) -> bool:
        """False when there is nothing to translate: no letters outside slots and kept terms
        (only code, URLs, numbers, markup…). Such a text is its own translation."""
        return any(ch.isalpha() for ch in _NOT_PROSE.sub("", self.xml))

    @property
    def billable(self) -> int:
        """Characters DeepL bills for this text: everything outside tags (with tag_handling,
        tags and their attributes are not billed; an entity counts as its one character)."""
        return billable(self.xml)


def billable(xml: str) -> int:
    text = _TAG.sub("", xml)
    return len(_ENTITY_REF.sub("e", text))


_TAG = re.compile(r"<[^>]*>")
_ENTITY_REF = re.compile(r"&[#\w]+;")
_NOT_PROSE = re.compile(r"<k>.*?</k>|<[^>]*>|&[#\w]+;", re.S)
_WS = " \t"

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


@dataclass
class _Out:
    parts: list[str] = field(default_factory=list)
    slots: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)

    def slot(self, text: str, kind: str) -> None:
        if not text:
            return
        if kind == "softbreak":
            self.parts.append(" ")
            return
        self.parts.append(f'<x i="{len(self.slots)}"/>')
        self.slots.append(text)
        self.kinds.append(kind)

    def text(self, text: str) -> None:
        pos = 0
        for m in _UNSAFE.finditer(text):
            self.parts.append(_escape(text[pos : m.start()]))
            self.slot(m.group(0), "char")
            pos = m.end()
        self.parts.append(_escape(text[pos:]))

    def items(self, items: Iterable[Item]) -> None:
        for item in items:
            if isinstance(item, Text):
                self.text(item.text)
            elif isinstance(item, Slot):
                self.slot(item.text, item.kind)
            elif isinstance(item, Keep):
                self.parts.append("<k>" + _escape(item.text) + "</k>")
            elif isinstance(item, Delim):
                self.text(item.run)
            else:
                n = len(self.slots)
                kind = "emphasis" if item.tag == "g" else "link"
                self.slots.extend((item.open, item.close))
                self.kinds.extend((kind, kind))
                self.parts.append(f'<{item.tag} i="{n}">')
                self.items(item.inner)
                self.parts.append(f"</{item.tag}>")


# --------------------------------------------------------------------------- encode


def keep_terms(keep: Iterable[str]) -> tuple[str, ...]:
    """Do-not-translate terms, longest first (the order the scanner tries them in)."""
    return tuple(sorted({t for t in keep if t and t.strip() == t}, key=lambda t: (-len(t), t)))


def _trim(items: list[Item]) -> tuple[str, list[Item], str]:
    """Split leading and trailing slots that are not words of the sentence (and the white
    space between them) off the items: (lead source, the items to send, trail source)."""

    def edge(item: Item) -> bool:
        if isinstance(item, Slot):
            return item.kind in _TRIMMED or item.kind == "softbreak"
        return isinstance(item, Text) and not item.text.strip()

    lo, hi = 0, len(items)
    while lo < hi and edge(items[lo]):
        lo += 1
    while hi > lo and edge(items[hi - 1]):
        hi -= 1
    body = items[lo:hi]
    if body and isinstance(body[0], Text) and body[0].text[:1].isspace():
        stripped = body[0].text.lstrip()
        lead_ws = body[0].text[: len(body[0].text) - len(stripped)]
        body[0] = Text(stripped)
        items.insert(lo, Text(lead_ws))
        lo += 1
        hi += 1
    if body and isinstance(body[-1], Text) and body[-1].text[-1:].isspace():
        stripped = body[-1].text.rstrip()
        trail_ws = body[-1].text[len(stripped) :]
        body[-1] = Text(stripped)
        items.insert(hi, Text(trail_ws))
    return source(items[:lo]), body, source(items[lo + len(body) :])


def encode_inline(
    text: str,
    breaks: Sequence[tuple[int, int]] = (),
    keep: Sequence[str] = (),
) -> Encoded:
    """One segment's Markdown (inline content: `breaks` are the (start, end) spans of its line
    breaks, with the next line's indentation or quote markers) → XML + slots."""
    scanner = Inline(text, breaks, keep)
    lead, body, trail = _trim(scanner.scan(0, len(text)))
    out = _Out()
    out.items(body)
    return Encoded("".join(out.parts), tuple(out.slots), tuple(out.kinds), lead, trail)


#: gettext placeholders: `%(name)s`, `{name}`, `%s`, `%%`.
_UI_PLACEHOLDER = re.compile(r"%\(\w+\)[sdifr]|\{\w*\}|%[sdif%]")


def encode_ui(text: str, keep: Iterable[str] = ()) -> Encoded:
    """A UI string (gettext msgid) → XML: placeholders become ignored `<k>` elements, HTML tags
    and entities slots; the rest is one text of prose."""
    terms = keep_terms(keep)
    out = _Out()
    stripped = text.strip(_WS + "\n")
    lo = len(text) - len(text.lstrip(_WS + "\n"))
    hi = lo + len(stripped)
    if lo < hi:
        scanner = Inline(text, [], terms, markdown=False)
        items: list[Item] = []
        for item in scanner.scan(lo, hi):
            if isinstance(item, Text):
                pos = 0
                for m in _UI_PLACEHOLDER.finditer(item.text):
                    if m.start() > pos:
                        items.append(Text(item.text[pos : m.start()]))
                    items.append(Keep(m.group(0)))
                    pos = m.end()
                if pos < len(item.text):
                    items.append(Text(item.text[pos:]))
            else:
                items.append(item)
        out.items(items)
    return Encoded("".join(out.parts), tuple(out.slots), tuple(out.kinds), text[:lo], text[hi:])


# --------------------------------------------------------------------------- decode

_TOKEN = re.compile(
    r"""<x\s+i\s*=\s*["'](\d+)["']\s*/>"""
    r"""|<x\s+i\s*=\s*["'](\d+)["']\s*>\s*</x\s*>"""
    r"""|<([ga])\s+i\s*=\s*["'](\d+)["']\s*>"""
    r"""|</([ga])\s*>"""
    r"""|<k\s*>(.*?)</k\s*>"""
    r"""|&(\#[0-9]+|\#[xX][0-9a-fA-F]+|amp|lt|gt|quot|apos);"""
    r"""|<[^>]*>""",
    re.S,
)
_ENTITY_IN_KEEP = re.compile(r"&(\#[0-9]+|\#[xX][0-9a-fA-F]+|amp|lt|gt|quot|apos);")


@dataclass(frozen=True)
class Loss:
    """Something of the segment the engine's answer lost or broke.

    kind: `protected` (a code span, URL, math, HTML… slot: put back at the segment's end),
    `emphasis` / `link` (the pair's markup is gone, its words are kept), `break` (a hard line
    break, dropped), `repeated` (a slot used twice), `unknown` (a placeholder this segment does
    not have: dropped), `malformed` (the answer is not well-formed XML)."""

    kind: str
    text: str

    def describe(self) -> str:
        short = _short(self.text)
        if self.kind == "protected":
            return f"lost {short!r} (put back at the end of the segment)"
        if self.kind == "emphasis":
            return f"lost the emphasis {short!r} (the words are kept without it)"
        if self.kind == "link":
            return f"lost the link {short!r} (the words are kept, the link is gone)"
        if self.kind == "break":
            return "lost a hard line break"
        if self.kind == "repeated":
            return f"{short!r} appears more than once in the translation"
        if self.kind == "unknown":
            return f"the answer holds a placeholder this segment does not have ({short}): dropped"
        return f"the answer is not well-formed XML ({short})"


@dataclass(frozen=True)
class Decoded:
    text: str
    losses: tuple[Loss, ...]

    @property
    def malformed(self) -> bool:
        return any(loss.kind in ("malformed", "unknown") for loss in self.losses)


def well_formed(xml: str) -> str | None:
    """None when `xml` is a well-formed XML fragment without declarations, else why not."""
    if "<!" in xml or "<?" in xml:
        return "a declaration or comment"
    try:
        ET.fromstring(f"<r>{xml}</r>")  # noqa: S314 - declarations refused above, no entities
    except ET.ParseError as exc:
        return str(exc).split(":", 1)[0]
    return None


def decode(xml: str, encoded: Encoded) -> Decoded:
    """The engine's XML → Markdown of one segment (without `lead`/`trail`). Never raises."""
    slots = encoded.slots
    out: list[str] = []
    used = [0] * len(slots)
    stack: list[tuple[str, int, int]] = []  # (tag, its closer's slot, where it opened in out)
    losses: list[Loss] = []
    bad = well_formed(xml)
    if bad is not None:
        losses.append(Loss("malformed", bad))

    def take(n: int) -> str:
        if 0 <= n < len(slots):
            used[n] += 1
            return slots[n]
        losses.append(Loss("unknown", f"#{n}"))
        return ""

    def close(opened: int, closer: int) -> None:
        """The pair opened at `out[opened]` closed: whitespace at its inner edges goes outside
        (`word<g> words</g>` is `word **words**`: `** words**` would show its stars as text),
        and a pair around nothing is dropped, its opener taken back (said as a lost pair)."""
        inner = "".join(out[opened + 1 :])
        words = inner.strip()
        if not words:
            used[closer - 1] -= 1
            out[opened:] = [inner]
            return
        lead, trail = inner[: len(inner) - len(inner.lstrip())], inner[len(inner.rstrip()) :]
        out[opened:] = [lead, out[opened], words, take(closer), trail]

    pos = 0
    for m in _TOKEN.finditer(xml):
        out.append(_text_node(xml[pos : m.start()]))
        pos = m.end()
        if m.group(1) is not None or m.group(2) is not None:
            n = int(m.group(1) or m.group(2))
            if 0 <= n < len(slots) and encoded.kinds[n] in ("emphasis", "link"):
                losses.append(Loss("unknown", f"#{n} used as a single tag"))
                continue
            out.append(take(n))
        elif m.group(3) is not None:
            n = int(m.group(4))
            ok = 0 <= n + 1 < len(slots) and encoded.kinds[n] in ("emphasis", "link")
            if not ok or used[n]:
                losses.append(Loss("unknown", f"<{m.group(3)} i={n}>"))
                stack.append((m.group(3), -1, -1))
                continue
            out.append(take(n))
            stack.append((m.group(3), n + 1, len(out) - 1))
        elif m.group(5) is not None:
            tag = m.group(5)
            for depth in range(len(stack) - 1, -1, -1):
                if stack[depth][0] == tag:
                    for _, closer, opened in reversed(stack[depth:]):
                        if closer >= 0:
                            close(opened, closer)
                    del stack[depth:]
                    break
        elif m.group(6) is not None:
            out.append(_ENTITY_IN_KEEP.sub(lambda e: _unescape_entity(e.group(1)), m.group(6)))
        elif m.group(7) is not None:
            out.append(_unescape_entity(m.group(7)))
        else:
            losses.append(Loss("unknown", m.group(0)))
    out.append(_text_node(xml[pos:]))
    for _, closer, opened in reversed(stack):
        if closer >= 0:
            close(opened, closer)
    text = "".join(out)
    tail: list[str] = []
    n = 0
    while n < len(slots):
        kind = encoded.kinds[n]
        if kind in ("emphasis", "link"):
            if used[n] == 0 and used[n + 1] == 0:
                what = slots[n] + "…" + slots[n + 1] if kind == "emphasis" else slots[n + 1]
                losses.append(Loss(kind, what))
            n += 2
            continue
        if used[n] == 0:
            if kind == "break":
                losses.append(Loss("break", slots[n]))
            else:
                losses.append(Loss("protected", slots[n]))
                tail.append(slots[n])
        elif used[n] > 1:
            losses.append(Loss("repeated", slots[n]))
        n += 1
    for piece in tail:
        if text and not text[-1].isspace():
            text += " "
        text += piece
    return Decoded(text, tuple(losses))


def _text_node(text: str) -> str:
    """The engine's text between tags: a line break in it would end the block, so it is a
    space (the segment is one line; line breaks of the source live in slots)."""
    return text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")


def _short(text: str, limit: int = 40) -> str:
    one = text.replace("\n", "⏎")
    return one if len(one) <= limit else one[: limit - 1] + "…"


def plain(xml: str) -> str:
    """The text of an XML segment without its tags (entities resolved): what DeepL reads."""
    return _ENTITY_IN_KEEP.sub(lambda e: _unescape_entity(e.group(1)), _TAG.sub("", xml))
