"""QA of a translation against its source: one small pure function per finding code.

Each check takes the source and translation texts and returns a list of problems (plain
sentences; empty when clean). Markdown is read with markdown-it-py tokens (the same CommonMark +
tables + footnotes dialect as the renderer), so code, links and text are told apart by the parser,
not by regular expressions over raw text. What each check compares:

- numbers: the multiset of numbers outside code and link targets, thousands separators removed,
  unicode dashes and `~` read as range separators, with `%`/`×` kept as part of the number
  (`%p`, "percent", "퍼센트" → `%`; `x`, `배`, "times", "-fold" → `×`), month names and
  `1월` both read as month numbers. Spelled-out numbers ("three", "세 배", "tripled") cannot
  cause a finding but can stand for a digit on the other side.
- links: the set of link and image targets, autolinks and bare URLs.
- code: inline code spans (as a multiset) and fenced/indented blocks (in order), byte for byte;
  a ```mermaid diagram's labels may differ (they are translated), its structure may not.
- refs: `#1234` and `owner/repo#1234` references.
- markup: heading levels in order, number of list items, table shapes, number of images.
- placeholders (UI strings): gettext `%(name)s` / `{name}` sets, and no new HTML tags.
- glossary: a glossary term in the source has one of its renderings in the translation.
- prefix: a bracketed title prefix such as `[vLLM]` is kept.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from typing import TYPE_CHECKING

from bipub.render.catalogs import placeholders, tags
from bipub.text.markdown import parser

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

    from bipub.check.glossary import Glossary


# --------------------------------------------------------------------------- Markdown facts


@dataclass(frozen=True)
class Skeleton:
    headings: tuple[int, ...] = ()
    list_items: int = 0
    tables: tuple[tuple[int, int], ...] = ()  # (rows, columns) per table
    images: int = 0


@dataclass(frozen=True)
class Facts:
    """Everything the checks need from one text, read once."""

    prose: str  # text outside code, HTML and link targets (for numbers, refs, words)
    code_spans: tuple[str, ...]
    blocks: tuple[tuple[str, str], ...]  # (info string, content) of fenced/indented code
    links: tuple[str, ...]
    skeleton: Skeleton = field(default_factory=Skeleton)


def _parser() -> MarkdownIt:
    """The dialect the drafter reads too (bipub.text.markdown), imported when first needed."""

    return parser()


_URL = re.compile(r"https?://[^\s<>()\[\]\"'`]+")
_URL_TRAIL = ".,;:!?'\")]}"


def _bare_urls(text: str) -> list[str]:
    return [m.group(0).rstrip(_URL_TRAIL) for m in _URL.finditer(text)]


@lru_cache(maxsize=65536)
def facts(text: str) -> Facts:
    """Parse `text` as Markdown and collect its prose, code, links and skeleton."""
    tokens = _parser().parse(unicodedata.normalize("NFC", text))
    prose: list[str] = []
    spans: list[str] = []
    blocks: list[tuple[str, str]] = []
    links: list[str] = []
    headings: list[int] = []
    list_items = 0
    tables: list[tuple[int, int]] = []
    images = 0
    rows = cols = 0
    in_table = False

    def inline(children: Iterable[Token]) -> None:
        nonlocal images
        for tok in children:
            if tok.type == "text":
                prose.append(tok.content)
                links.extend(_bare_urls(tok.content))
            elif tok.type == "code_inline":
                spans.append(tok.content)
                prose.append(" ")
            elif tok.type == "link_open":
                href = tok.attrGet("href")
                if href is not None:
                    links.append(str(href))
            elif tok.type == "image":
                images += 1
                src = tok.attrGet("src")
                if src is not None:
                    links.append(str(src))
                inline(tok.children or [])
            elif tok.type in ("softbreak", "hardbreak"):
                prose.append(" ")

    for tok in tokens:
        t = tok.type
        if t in ("fence", "code_block"):
            blocks.append((tok.info.strip(), tok.content))
            prose.append("\n")
        elif t == "heading_open":
            headings.append(int(tok.tag[1:]))
        elif t == "list_item_open":
            list_items += 1
        elif t == "table_open":
            in_table, rows, cols = True, 0, 0
        elif t == "tr_open" and in_table:
            rows += 1
        elif t in ("th_open", "td_open") and in_table and rows == 1:
            cols += 1
        elif t == "table_close":
            tables.append((rows, cols))
            in_table = False
        elif t == "inline":
            inline(tok.children or [])
            prose.append("\n")
    skeleton = Skeleton(tuple(headings), list_items, tuple(tables), images)
    return Facts("".join(prose), tuple(spans), tuple(blocks), tuple(links), skeleton)


# --------------------------------------------------------------------------- numbers

_DASHES = dict.fromkeys(map(ord, "‐‑‒–—―−～〜"), "-")
_REF = re.compile(r"(?<![\w&])(?:[\w.-]+/[\w.-]+)?#\d+(?!\d)")
_NUM = re.compile(
    r"(?<![\d.,/])(?P<int>\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?P<frac>\.\d+)?(?P<den>/\d+)?"
    r"(?P<mag>\s?(?:만|억|조)|\s(?:thousand|million|billion|trillion)\b)?"
    r"(?P<suffix>\s?(?:%\s?p\b|%\s?포인트|%|퍼센트|percent(?:age points?)?|per cent)"
    r"|\s?(?:×|x(?![A-Za-z])|배|times\b|-?fold\b))?"
    r"(?P<ordinal>st|nd|rd|th)?",
    re.IGNORECASE,
)
_MAGNITUDE = {
    "만": 10**4,
    "억": 10**8,
    "조": 10**12,
    "thousand": 10**3,
    "million": 10**6,
    "billion": 10**9,
    "trillion": 10**12,
}
_RANGE_SEP = re.compile(r"^\s*(?:-|to|~|→)?\s*$")
_MONTHS = {
    name: i
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_MONTH_NAMES = "|".join(sorted(_MONTHS, key=len, reverse=True))
_MONTH = re.compile(
    r"\b(" + _MONTH_NAMES + r")\.?(?=\s+\d)|(?<=\d\s)(" + _MONTH_NAMES + r")\b", re.IGNORECASE
)
#: Spelled-out numbers: they never cause a finding but may stand for a digit on the other side.
_WORD_NUMBERS = {
    "zero": "0",
    "no": "0",
    "none": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "eleven": "11",
    "twelve": "12",
    "thirteen": "13",
    "fourteen": "14",
    "fifteen": "15",
    "sixteen": "16",
    "seventeen": "17",
    "eighteen": "18",
    "nineteen": "19",
    "twenty": "20",
    "thirty": "30",
    "forty": "40",
    "fifty": "50",
    "hundred": "100",
    "thousand": "1000",
    "million": "1000000",
    "billion": "1000000000",
    "dozen": "12",
    "once": "1",
    "twice": "2×",
    "double": "2×",
    "doubled": "2×",
    "doubles": "2×",
    "triple": "3×",
    "tripled": "3×",
    "triples": "3×",
    "quadruple": "4×",
    "quadrupled": "4×",
    "half": "1/2",
    "halved": "1/2",
    "third": "1/3",
    "quarter": "1/4",
}
_ASCII_WORD = re.compile(r"[A-Za-z]+")
_KO_NATIVE = {
    "한": "1",
    "두": "2",
    "세": "3",
    "네": "4",
    "다섯": "5",
    "여섯": "6",
    "일곱": "7",
    "여덟": "8",
    "아홉": "9",
    "열": "10",
}
_KO_WORD = re.compile(
    r"(?<![가-힣])(" + "|".join(_KO_NATIVE) + r")\s?(배|번|개|가지|명|장|줄|단계|시간|달|주|해|건)"
)
#: Words for "a/each/per": an unmatched plain 1 is forgiven when the other side has one.
_ONE_WORDS = frozenset(["a", "an", "one", "each", "per", "single", "once", "first"])


@dataclass(frozen=True)
class Numbers:
    required: Counter[str]
    optional: Counter[str]  # spelled-out numbers: may stand for a digit, never required
    has_one_word: bool = False


def _canon(m: re.Match[str]) -> str:

    integer = m.group("int").replace(",", "")
    if m.group("den"):
        return f"{int(integer)}{m.group('den')}"
    value = Decimal(integer + (m.group("frac") or ""))
    mag = (m.group("mag") or "").strip().lower()
    if mag:
        value *= _MAGNITUDE[mag]
    text = format(value.normalize(), "f") if mag else f"{int(integer)}{m.group('frac') or ''}"
    suffix = m.group("suffix")
    if suffix:
        s = suffix.strip().lower()
        text += "%" if ("%" in s or "퍼센트" in s or "cent" in s) else "×"
    return text


@lru_cache(maxsize=65536)
def numbers_of(text: str) -> Numbers:
    """The numbers of a text's prose (see the module docstring for the normalization).

    Numbers inside identifiers (directly after an ASCII letter: H100, p99, E2E, W8A8) are
    left out; they are names, not quantities."""
    prose = facts(text).prose.translate(_DASHES)
    prose = _REF.sub(" ", prose)
    for url in _bare_urls(prose):
        prose = prose.replace(url, " ")
    required: Counter[str] = Counter()
    optional: Counter[str] = Counter()
    found: list[tuple[int, int, str, bool]] = []  # start, end, token, has a unit
    for m in _NUM.finditer(prose):
        if m.start() > 0 and prose[m.start() - 1].isascii() and prose[m.start() - 1].isalpha():
            continue
        token = _canon(m)
        if m.group("ordinal"):
            optional[token] += 1
            continue
        found.append((m.start(), m.end(), token, m.group("suffix") is not None))
    # a range such as 2.4–2.7× gives its unit to both ends
    for i in range(len(found) - 2, -1, -1):
        start, end, token, has_suffix = found[i]
        nxt = found[i + 1]
        if not has_suffix and nxt[3] and _RANGE_SEP.match(prose[end : nxt[0]]):
            found[i] = (start, end, token + nxt[2][-1], True)
    required.update(t for _, _, t, _ in found)
    words = [w.lower() for w in _ASCII_WORD.findall(prose)]
    vocabulary = set(words)
    if not vocabulary.isdisjoint(_MONTHS):
        for mm in _MONTH.finditer(prose):
            name = (mm.group(1) or mm.group(2)).lower()
            required[str(_MONTHS[name])] += 1
    for w in words:
        value = _WORD_NUMBERS.get(w)
        if value is not None:
            optional[value] += 1
    if _HANGUL.search(prose):
        for mm in _KO_WORD.finditer(prose):
            value = _KO_NATIVE[mm.group(1)]
            optional[value + "×" if mm.group(2) == "배" else value] += 1
    has_one = not vocabulary.isdisjoint(_ONE_WORDS) or any(c in prose for c in "매각한첫")
    return Numbers(required, optional, has_one)


def _bare(token: str) -> str:
    return token.rstrip("%×")


def _absorb(unmatched: Counter[str], other: Numbers) -> Counter[str]:
    """Remove from `unmatched` what a spelled-out number on the other side stands for."""
    left = Counter(unmatched)
    spare = Counter({k: v for k, v in other.optional.items()})
    for token in sorted(left):
        for word in sorted(spare):
            while left[token] and spare[word] and (word == token or _bare(word) == _bare(token)):
                left[token] -= 1
                spare[word] -= 1
    if left["1"] and other.has_one_word:
        left["1"] = 0
    return +left


def _fmt(c: Counter[str]) -> str:
    return ", ".join(sorted(c.elements(), key=lambda t: (len(t), t)))


def check_numbers(source: str, translation: str) -> list[str]:
    s, t = numbers_of(source), numbers_of(translation)
    lost = _absorb(s.required - t.required, t)
    added = _absorb(t.required - s.required, s)
    # "51번" / "51 times", "3배" / "3 times": a multiplier sign alone is not a different number
    for token in sorted(lost):
        other = token[:-1] if token.endswith("×") else token + "×"
        while lost[token] and added[other]:
            lost[token] -= 1
            added[other] -= 1
    lost, added = +lost, +added
    if not lost and not added:
        return []
    parts = []
    if lost:
        parts.append(f"the source has {_fmt(lost)}")
    if added:
        parts.append(f"the translation has {_fmt(added)}")
    return [f"numbers differ: {' but '.join(parts)}"]


# --------------------------------------------------------------------------- links, code, refs


def check_links(source: str, translation: str) -> list[str]:
    s, t = set(facts(source).links), set(facts(translation).links)
    problems = [f"link target {u} of the source is missing" for u in sorted(s - t)]
    problems += [f"the translation links to {u}, which the source does not" for u in sorted(t - s)]
    return problems


def _short(code: str, limit: int = 60) -> str:
    one = code.replace("\n", "⏎")
    return one if len(one) <= limit else one[: limit - 1] + "…"


def check_code(source: str, translation: str) -> list[str]:
    fs, ft = facts(source), facts(translation)
    problems: list[str] = []
    s_spans, t_spans = Counter(fs.code_spans), Counter(ft.code_spans)
    for span in sorted((s_spans - t_spans).elements()):
        problems.append(f"code span `{_short(span)}` of the source is missing or changed")
    for span in sorted((t_spans - s_spans).elements()):
        problems.append(f"the translation has code span `{_short(span)}`, the source does not")
    if len(fs.blocks) != len(ft.blocks):
        problems.append(
            f"{len(fs.blocks)} code block(s) in the source, {len(ft.blocks)} in the translation"
        )
    for i, (sb, tb) in enumerate(zip(fs.blocks, ft.blocks, strict=False), start=1):
        if sb == tb:
            continue
        if sb[0] != tb[0]:
            problems.append(f"code block {i}: info string {tb[0]!r}, the source has {sb[0]!r}")
            continue
        if sb[0].split(maxsplit=1)[:1] == ["mermaid"]:  # a diagram: its labels are translated
            at = _diagram_differs(sb[1], tb[1])
            if at is not None:
                problems.append(
                    f"diagram (code block {i}) differs from the source in more than its labels "
                    f"(first at its line {at})"
                )
            continue
        s_lines, t_lines = sb[1].split("\n"), tb[1].split("\n")
        at = next(
            (n for n, (a, b) in enumerate(zip(s_lines, t_lines, strict=False), 1) if a != b),
            min(len(s_lines), len(t_lines)) + 1,
        )
        problems.append(f"code block {i} differs from the source (first at its line {at})")
    return problems


# a Mermaid label: quoted, in node brackets or between edge pipes (nested shapes: repeated)
_DIAGRAM_LABEL = re.compile(r'"[^"\n]*"|\[[^\[\]\n]*\]|\([^()\n]*\)|\{[^{}\n]*\}|\|[^|\n]*\|')
_DIAGRAM_TEXT_LINE = re.compile(r"(?:title|accTitle|accDescr|section|note|Note)\b")


def _diagram_line(line: str) -> str:
    """A Mermaid line without what a translator translates: labels, text after `:` (messages),
    titles, notes and section names; comments dropped."""
    text = line.split("%%", 1)[0].strip()
    if _DIAGRAM_TEXT_LINE.match(text):
        return text.split(maxsplit=1)[0]
    previous = None
    while previous != text:
        previous, text = text, _DIAGRAM_LABEL.sub("", text)
    return " ".join(text.split(":", 1)[0].split())


def _diagram_differs(source: str, translation: str) -> int | None:
    """The first line (of the translation's diagram) whose structure differs from the
    source's: node ids, arrows, keywords; None if only labels differ."""
    s = [x for x in map(_diagram_line, source.split("\n")) if x]
    t = [(n, x) for n, x in enumerate(map(_diagram_line, translation.split("\n")), 1) if x]
    for k, (n, x) in enumerate(t):
        if k >= len(s) or s[k] != x:
            return n
    return None if len(s) == len(t) else len(translation.split("\n"))


def refs_of(text: str) -> Counter[str]:
    return Counter(m.group(0) for m in _REF.finditer(facts(text).prose))


def check_refs(source: str, translation: str) -> list[str]:
    s, t = refs_of(source), refs_of(translation)
    problems = [f"reference {r} of the source is missing" for r in sorted((s - t).elements())]
    problems += [f"the translation adds reference {r}" for r in sorted((t - s).elements())]
    return problems


# --------------------------------------------------------------------------- markup


def check_markup(source: str, translation: str) -> list[str]:
    s, t = facts(source).skeleton, facts(translation).skeleton
    problems: list[str] = []
    if s.headings != t.headings:
        problems.append(
            "headings differ: source "
            + (" ".join("#" * h for h in s.headings) or "none")
            + ", translation "
            + (" ".join("#" * h for h in t.headings) or "none")
        )
    if s.list_items != t.list_items:
        problems.append(f"{s.list_items} list item(s) in the source, {t.list_items} here")
    if s.tables != t.tables:

        def shape(tables: tuple[tuple[int, int], ...]) -> str:
            return ", ".join(f"{r}×{c}" for r, c in tables) or "none"

        problems.append(
            f"tables (rows×columns) differ: source {shape(s.tables)}, translation {shape(t.tables)}"
        )
    if s.images != t.images:
        problems.append(f"{s.images} image(s) in the source, {t.images} here")
    return problems


# --------------------------------------------------------------------------- UI strings


def check_placeholders(source: str, translation: str) -> list[str]:
    """gettext msgid vs msgstr: the same placeholder set and no new HTML tags."""

    problems: list[str] = []
    sp, tp = set(placeholders(source)), set(placeholders(translation))
    if sp != tp:
        problems.append(
            f"placeholders differ: msgid has {sorted(sp) or 'none'}, msgstr has "
            f"{sorted(tp) or 'none'}"
        )
    extra = set(tags(translation)) - set(tags(source))
    if extra:
        problems.append(f"msgstr adds markup its msgid does not have: {sorted(extra)}")
    return problems


# --------------------------------------------------------------------------- glossary, prefix


@lru_cache(maxsize=4096)
def _term_pattern(term: str, exact_case: bool = False) -> re.Pattern[str]:
    """ASCII terms match as whole words; others (Korean takes particles) as substrings."""
    escaped = re.escape(unicodedata.normalize("NFC", term))
    if term.isascii():
        escaped = r"(?<![A-Za-z0-9])" + escaped + r"(?![A-Za-z0-9])"
    return re.compile(escaped, 0 if exact_case else re.IGNORECASE)


def _contains(text: str, term: str, exact_case: bool = False) -> bool:
    return _term_pattern(term, exact_case).search(text) is not None


def check_glossary(
    source: str, translation: str, glossary: Glossary, source_lang: str, target_lang: str
) -> list[str]:
    """A glossary term of the source has one of its renderings in the translation."""
    s_prose = unicodedata.normalize("NFC", facts(source).prose)
    t_prose = unicodedata.normalize("NFC", facts(translation).prose)
    problems: list[str] = []
    for term in glossary.keep:  # names: matched with their exact case
        if _contains(s_prose, term, True) and not _contains(t_prose, term, True):
            problems.append(f"{term!r} is never translated (glossary keep) but is missing here")
    for entry in glossary.terms:
        sources = entry.renderings(source_lang)
        targets = entry.renderings(target_lang)
        if not sources or not targets:
            continue
        hit = next((s for s in sources if _contains(s_prose, s)), None)
        if hit is not None and not any(_contains(t_prose, t) for t in targets):
            wanted = " or ".join(repr(t) for t in targets)
            problems.append(f"glossary: {hit!r} should be rendered as {wanted}")
    return problems


_PREFIX = re.compile(r"^\s*\[([^\]]+)\]")


def check_prefix(source: str, translation: str) -> list[str]:
    m = _PREFIX.match(source)
    if m is None:
        return []
    t = _PREFIX.match(translation)
    if t is None or t.group(1).strip() != m.group(1).strip():
        return [f"the title prefix [{m.group(1)}] of the source is not kept"]
    return []


# --------------------------------------------------------------------------- untranslated

_HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]")


def has_hangul(text: str) -> bool:
    return _HANGUL.search(text) is not None


_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "or",
        "the",
        "of",
        "for",
        "in",
        "on",
        "to",
        "with",
        "vs",
        "via",
        "at",
        "by",
        "from",
        "as",
        "is",
        "are",
        "be",
    ]
)


def words_to_translate(text: str, allow: Iterable[str] = ()) -> list[str]:
    """Words of the prose that need translating.

    Not counted: code, URLs, numbers, acronyms (all capitals, up to 6 letters), allowed terms.
    A text of at most four capitalised words and nothing else ("Triton Inference Server",
    "Kubernetes") reads as a name and needs no translation."""
    prose = facts(text).prose
    for url in _bare_urls(prose):
        prose = prose.replace(url, " ")
    for term in sorted(allow, key=len, reverse=True):
        if term:
            prose = _term_pattern(term).sub(" ", prose)
    latin = [w for w in _LATIN_WORD.findall(prose) if not (w.isupper() and len(w) <= 6)]
    lower = [w for w in latin if w.islower() and w not in _STOP]
    capital = [w for w in latin if not w.islower()]
    hangul = re.findall(r"[\uac00-\ud7a3]+", prose)
    if lower or hangul:
        return lower + capital + hangul
    return capital if len(capital) > 4 else []


def check_untranslated(
    source: str, translation: str, target_lang: str, allow: Iterable[str] = ()
) -> list[str]:
    """A translation identical to its source, or a Korean one without Hangul.

    Only when the source has words to translate (not just code, URLs, acronyms, numbers or
    allowed names and terms)."""
    allowed = tuple(allow)
    src = unicodedata.normalize("NFC", source).strip()
    tr = unicodedata.normalize("NFC", translation).strip()
    if src != tr and (target_lang != "ko" or has_hangul(tr)):
        return []  # the common case, decided without parsing
    if src in allowed or not words_to_translate(src, allowed):
        return []
    if src == tr:
        return ["the translation is identical to the source"]
    if (
        target_lang == "ko"
        and not has_hangul(facts(tr).prose)
        and not words_to_translate(tr, allowed)
    ):
        return []  # only names and terms are left (e.g. "Prometheus, Grafana")
    if target_lang == "ko" and not has_hangul(facts(tr).prose):
        return ["the Korean translation has no Hangul"]
    return []
