"""QA rule `numbers`: the numbers of a translation against its source's.

The multiset of numbers outside code and link targets (bipub.check.qa_facts), thousands
separators removed, unicode dashes and `~` read as range separators, with `%`/`×` kept as part
of the number (`%p`, `pp`, "percent", "퍼센트" → `%`; `x`, `배`, "times", "-fold" → `×`; a range's
`%`/`×` given to both ends: `2.4–2.7×`, `10에서 20%로`), month names (with a day, or a
capitalized full name alone: "in March") and `1월` both read as month numbers, a date with dots
(`2024.3.5`) as its year, month and day, Korean numbers with units as one number (`3천만` =
30,000,000, `1만 2천` = 12,000, `3천원` = 3,000 won), `k`/`K`, `M`, `B`/`bn`, `T` after the digits
as their magnitude (`10k` = 10,000 = `1만`, `1.5M` = `150만`), a half after a unit of time as .5
(`2시간 반` = 2.5 hours). A minus sign is part of a number (`-3.5%`, `−20°C`; not the hyphen of
`3-5`, `2026-12-04`, `GPT-4`, `2016년 -2018년`: `_signed`), and a number with one matches the
same number without it only beside a word of decrease or of improvement ("down 3.5%", "3.5%
감소", "영하 20도", "5% faster", "5% 개선"; not of increase: "rose 5%"). A unit of time or data
size after a number is read (bipub.check.qa_units; a range's for both ends: `10–20 GB`, `10 to
20 GB`, `10에서 20GB`, "between 10 and 20 GB"): a quantity may be said in another unit (`0.5초`
= `500 ms`, `2분` = `120 seconds`, `1 GB` = `1,024 MB`, `2시간 30분` = `2.5 hours`), and the
same number with another unit of its dimension is a changed unit (`0.5초` / `0.5 ms`, `10GB` / `10MB`, `80GB` / `80 GiB`, `3.0 ms` / `3 s`; a unit on
one side only is not). A number word before a counter or unit is a number (`두 시간`, `세 번`,
`two hours`: bipub.check.qa_words); other spelled-out numbers ("three", "tripled", `한 달`)
cannot cause a finding but can stand for a digit on the other side.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache

from bipub.check.qa_facts import HANGUL, REF, bare_urls, facts
from bipub.check.qa_units import (
    changed_units,
    compound,
    compounds_converted,
    converted,
    measurable,
    unit_at,
)
from bipub.check.qa_words import and_a_half, counted, english_words, has_one_word, spelled_out

# hyphens, the en dash and minus signs read as `-` (a range, or a sign: `_signed`); the em dash,
# the horizontal bar and wave dashes only as range separators
_DASHES = dict.fromkeys(map(ord, "‐‑‒–−﹣－"), "-") | dict.fromkeys(map(ord, "—―～〜"), "~")
# (`배` is a multiplier alone or with its particle, `2배로`, `2배가`, `2배입니다`; not a word
# after a space, `3 배포`, `32 배치`)
_NUM = re.compile(
    r"(?<![\d.,/])(?P<int>\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?P<frac>\.\d+)?(?P<den>/\d+)?"
    r"(?P<mag>\s?(?:만|억|조)|[\s-](?:thousand|million|billion|trillion)\b"
    r"|(?-i:[kKMBT]|bn)(?![A-Za-z0-9]))?"
    r"(?P<suffix>\s?(?:%\s?p\b|%\s?포인트|%|퍼센트|percent(?:age points?)?|per cent|pp\b)"
    r"|\s?(?:×|x(?![A-Za-z])|배(?![가-힣])|배(?=[가로의를는나씩에이인까만라보도입였쯤와과면])"
    r"|times\b|-?fold\b))?"
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
    "k": 10**3,  # (`10k`, `10K`, `2.5M`, `3B`, `3bn`, `15T`: the case is the regex's)
    "m": 10**6,
    "b": 10**9,
    "bn": 10**9,
    "t": 10**12,
}
# Korean numbers written with units: `3천` (3,000), `3천만` (30,000,000), `1만 2천` (12,000),
# `2억 5천만` (250,000,000): read as one number (`_ko_units`); a lone `1만`/`1.5억` is read by
# `_NUM` itself. The small unit follows its digits directly (`3천원`; not `v2 백업`).
_KO_GROUP = re.compile(
    r"(?<![\dA-Za-z.,/])(?P<int>\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?P<frac>\.\d+)?"
    r"(?:(?P<small>[천백])(?:\s?(?P<big>[만억조]))?|\s?(?P<big_only>[만억조]))"
)
_KO_SMALL = {"천": 3, "백": 2}
_KO_BIG = {"만": 4, "억": 8, "조": 12}
_RANGE_SEP = re.compile(r"^\s*(?:-|to|~|→)?\s*$")
# between the ends of a range whose unit of time or data size is written once (`10–20 GB`,
# `10 to 20 GB`, `10에서 20GB`); `에서`/`부터` give a `%`/`×` to the first end only when the
# second ends the range (`10에서 20%로`; not `3.10에서 20% 빨라졌다`: "20% faster in 3.10")
_UNIT_RANGE_SEP = re.compile(r"^\s*(?:-|to|~|→|에서|부터)\s*$")
_KO_RANGE_SEP = re.compile(r"^(?:에서|부터)\s*$")
_KO_RANGE_END = re.compile(r"\s?(?:으로|로|까지|사이)")
# "between 2 and 4 GB" (not "10 and 80 GB": two numbers, one with the unit)
_AND = re.compile(r"^\s*and\s*$", re.IGNORECASE)
_BETWEEN = re.compile(r"\bbetween\s+$", re.IGNORECASE)
# between the parts of a duration in two or more units (`2시간 30분`, "2 hours and 30 minutes")
_JOINED = re.compile(r"\s*(?:and\s+)?", re.IGNORECASE)


def _between(prose: str, start: int, end: int, nxt: int) -> bool:
    """Whether the numbers at `start`…`end` and from `nxt` are the ends of "between … and"."""
    return bool(_AND.match(prose[end:nxt]) and _BETWEEN.search(prose[max(0, start - 16) : start]))


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
# a month named alone ("released in March"): a capitalized full name; `May` not at a
# sentence's start ("May I …")
_MONTH_ALONE = re.compile(
    r"\b(?:January|February|March|April|June|July|August|September|October|November|December)\b"
    r"|(?<=[A-Za-z0-9,;:] )May\b"
)
# a date written with dots (`2024.3.5`, `2024.03.05`): its year, month and day
_DOTTED_DATE = re.compile(
    r"(?<![\d.,/])((?:19|20)\d\d)\.(0?[1-9]|1[0-2])\.(0?[1-9]|[12]\d|3[01])(?![\d.]\d|\d)"
)
#: What may come just before a number's minus sign (besides a space or a line's start).
_OPENERS = frozenset("([{<=:;,|~→\"'“‘")
#: Words of decrease, and of improvement (whose direction is the measure's: a latency -5% is
#: "5% faster", "5% 개선"): beside a number (`_beside_decrease`) they may stand for its sign.
#: Words of increase ("rose 5%", "5% 증가") do not.
_DECREASE = re.compile(
    r"\b(?:decreas\w*|declin\w*|drop(?:s|ped|ping)?|fall(?:s|ing|en)?|fell|down(?:ward)?"
    r"|lower(?:ed|s|ing)?|less|fewer|minus|negative|loss(?:es)?|lost|los(?:e|es|ing)|reduc\w*"
    r"|cut(?:s|ting)?|shr[iau]nk\w*|below|deficit|dip(?:s|ped)?|slid(?:e|es|ing)?|slump\w*"
    r"|plung\w*|sank|sink(?:s|ing)?|slower|cheaper|shorte[nr]\w*|smaller|trimm?\w*"
    r"|sav(?:e|es|ed|ing|ings)"
    r"|improv\w*|better|faster|quicker|speed(?:s|ed)?[\s-]?up|speedups?)\b"
    r"|감소|줄[어었였인일여]|하락|떨어|내려|내린|내렸|낮아|낮춰|낮췄|낮춘|저하|축소|감축|삭감|절감"
    r"|인하|손실|적자|영하|마이너스|하향|느려|덜|단축|짧아|짧게|작아|절약|아껴|아낀|아꼈"
    r"|개선|향상|빨라|빨랐|빠른|빠르|나아|[↓▼▽△🔻]",  # (△: a negative in Korean accounts)
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"[,;:!?()\[\]|\n]|\.(?!\d)")


# a name with a number in it (H100, v0.6.3, W8A8, Llama-3-8B, p99): kept out of the numbers,
# compared as a name (`_names`); a trailing dot ends the sentence, not the name
_NAME = re.compile(r"(?<![A-Za-z0-9_.\-])[A-Za-z]+[-_]?\d[A-Za-z0-9_.\-]*")


@dataclass(frozen=True)
class Numbers:
    required: Counter[str]
    optional: Counter[str]  # spelled-out numbers: may stand for a digit, never required
    has_one_word: bool = False
    names: Counter[str] = field(default_factory=Counter)  # names with a number (`_names`)
    spelled: dict[str, str] = field(default_factory=dict)  # each name as first written
    # numbers without a sign beside a word of decrease ("down 3.5%", "3.5% 감소", "영하 20도"):
    # each may stand for the same number with a minus on the other side
    softened: Counter[str] = field(default_factory=Counter)
    # numbers with a unit of time or data size (bipub.check.qa_units): (number, unit), and
    # each as first written (`0.5초`, `10 GB`)
    measures: Counter[tuple[str, str]] = field(default_factory=Counter)
    measured: dict[tuple[str, str], str] = field(default_factory=dict)
    # durations in two or more units (`2시간 30분`): their numbers and their sum, (`150`, `min`)
    compounds: tuple[tuple[tuple[str, ...], tuple[str, str]], ...] = ()
    # where each number is first written: the words around it (`_around`), for the finding
    where: dict[str, str] = field(default_factory=dict)


def _signed(prose: str, start: int) -> bool:
    """Whether the number at `start` has a minus sign: a `-` just before it, after a space,
    a line's start or an opening bracket or separator (`-3.5%`, `(−20°C)`, `| -2 |`); not
    after a letter or digit (`3-5`, `2026-12-04`, `GPT-4`), nor after a number, with its unit
    or not, and a space (`2016 -2018`, `2016년 -2018년`, `10GB -20GB`: a range). A list bullet
    is markup, not prose (bipub.check.qa_facts)."""
    if start == 0 or prose[start - 1] != "-":
        return False
    i = start - 2
    while i >= 0 and prose[i] in " \t":
        i -= 1
    if i < 0 or prose[i] == "\n":
        return True
    if i < start - 2:  # (a space before the sign)
        word = i
        while word > 0 and not prose[word - 1].isspace():
            word -= 1
        after_number = prose[word].isdigit() and prose[i] not in _OPENERS and prose[i] != "."
        return not (after_number or prose[i] in "%×")
    return prose[i] in _OPENERS


def _beside_decrease(prose: str, start: int, end: int) -> bool:
    """Whether a word of decrease is among the three words before or after a number, in its
    clause ("a 3.5% decrease", "fell by 3.5%", "20°C below zero", "3.5%가 줄었다", "영하 20도")."""
    before = _CLAUSE.split(prose[max(0, start - 48) : start])[-1].split()[-3:]
    after = _CLAUSE.split(prose[end : end + 48])[0].split()[:3]
    return _DECREASE.search(" ".join([*before, "", *after])) is not None


def _names(prose: str) -> tuple[Counter[str], dict[str, str]]:
    """The names with a number in `prose`, compared without case, `-` and `_` (`GPT-4`,
    `gpt4`): a translation may spell one out (E2E → end-to-end), not put another in its place
    (H100 → H200, v0.6.3 → v0.6.4: `check_numbers`)."""
    out: Counter[str] = Counter()
    spelled: dict[str, str] = {}
    for m in _NAME.finditer(prose):
        written = m.group().rstrip(".-")
        name = written.lower().replace("-", "").replace("_", "")
        if name.endswith("s") and name[-2:-1].isdigit():  # (English plurals: H100s)
            name = name[:-1]
        out[name] += 1
        spelled.setdefault(name, written)
    return out, spelled


def _without_names(prose: str) -> tuple[str, list[tuple[int, int]]]:
    """`prose` with each name a space, and for each name (its end in the result, characters
    removed up to there): positions in the result mapped back by `_back`."""
    out: list[str] = []
    shifts: list[tuple[int, int]] = []
    at = removed = length = 0
    for m in _NAME.finditer(prose):
        out.append(prose[at : m.start()] + " ")
        length += m.start() - at + 1
        removed += len(m.group()) - 1
        shifts.append((length, removed))
        at = m.end()
    out.append(prose[at:])
    return "".join(out), shifts


def _back(shifts: list[tuple[int, int]], pos: int) -> int:
    i = bisect_right(shifts, (pos, 1 << 60))
    return pos + (shifts[i - 1][1] if i else 0)


def _around(prose: str, start: int, end: int, width: int = 18) -> str:
    """The words around `start`…`end` of `prose`, as a reviewer looks for them: «…GPU 2배로…»."""
    a, b = max(0, start - width), min(len(prose), end + width)
    while a > 0 and not prose[a - 1].isspace() and a > start - 2 * width:
        a -= 1
    while b < len(prose) and not prose[b].isspace() and b < end + 2 * width:
        b += 1
    text = " ".join(prose[a:b].split())
    return f"«{'…' if a > 0 else ''}{text}{'…' if b < len(prose) else ''}»"


def _canon(m: re.Match[str]) -> str:

    integer = m.group("int").replace(",", "")
    if m.group("den"):
        return f"{int(integer)}{m.group('den')}"
    value = Decimal(integer + (m.group("frac") or ""))
    mag = (m.group("mag") or "").strip().lstrip("-").lower()
    if mag:
        value *= _MAGNITUDE[mag]
    text = format(value.normalize(), "f") if mag else f"{int(integer)}{m.group('frac') or ''}"
    suffix = m.group("suffix")
    if suffix:
        s = suffix.strip().lower()
        text += "%" if ("%" in s or "퍼센트" in s or "cent" in s or s == "pp") else "×"
    return text


def _ko_units(prose: str) -> str:
    """`prose` with each Korean number written with `천`/`백` units, or in several groups
    (`1만 2천`, `2억 5천만`: each group smaller than the one before, a space at most between),
    as its digits (`3000`, `12000`, `250000000`)."""
    groups = list(_KO_GROUP.finditer(prose))
    if not groups:
        return prose
    out: list[str] = []
    at = 0
    i = 0
    while i < len(groups):
        j, total, rank = i, Decimal(0), 99
        while j < len(groups):
            g = groups[j]
            gap = prose[groups[j - 1].end() : g.start()] if j > i else ""
            if len(gap) > 1 or (gap and not gap.isspace()):
                break
            exponent = _KO_SMALL.get(g.group("small") or "", 0) + _KO_BIG.get(
                g.group("big") or g.group("big_only") or "", 0
            )
            if exponent >= rank:
                break
            rank = exponent
            total += Decimal(g.group("int").replace(",", "") + (g.group("frac") or "")) * (
                10**exponent
            )
            j += 1
        first, last = groups[i], groups[j - 1]
        if j - i > 1 or first.group("small"):
            out.append(prose[at : first.start()])
            out.append(format(total.normalize(), "f"))
            at = last.end()
        i = j
    out.append(prose[at:])
    return "".join(out)


@lru_cache(maxsize=65536)
def numbers_of(text: str) -> Numbers:
    """The numbers of a text's prose (see the module docstring for the normalization).

    Numbers inside names (after ASCII letters: H100, p99, E2E, W8A8, GPT-4, v0.6.3) are not
    quantities: the names are compared as names (`_names`)."""
    prose = _DOTTED_DATE.sub(r"\1 \2 \3", facts(text).prose.translate(_DASHES))
    if HANGUL.search(prose):
        prose = _ko_units(prose)
    prose = REF.sub(" ", prose)
    for url in bare_urls(prose):
        prose = prose.replace(url, " ")
    names, spelled = _names(prose)
    named, shifts = prose, list[tuple[int, int]]()
    if names:  # (their numbers are theirs: GPT-4's 4 is not a quantity)
        prose, shifts = _without_names(prose)
    where: dict[str, str] = {}

    def seen(token: str, start: int, end: int) -> None:
        if token not in where:
            where[token] = _around(named, _back(shifts, start), _back(shifts, end))

    required: Counter[str] = Counter()
    optional: Counter[str] = Counter()
    found: list[tuple[int, int, str, bool]] = []  # start, end, token, has a unit
    for m in _NUM.finditer(prose):
        start = m.start()
        if start > 0 and prose[start - 1].isascii() and prose[start - 1].isalpha():
            continue
        token = _canon(m)
        if m.group("ordinal"):
            optional[token] += 1
            continue
        if token.isdigit() and and_a_half(prose, m.end()):  # (`2시간 반`: 2.5 hours)
            token += ".5"
        if _signed(prose, start) and token.strip("0.%×"):  # (not -0)
            token, start = "-" + token, start - 1
        found.append((start, m.end(), token, m.group("suffix") is not None))
    # a range such as 2.4–2.7× gives its unit to both ends
    for i in range(len(found) - 2, -1, -1):
        start, end, token, has_suffix = found[i]
        nxt = found[i + 1]
        between = prose[end : nxt[0]]
        ko_range = _KO_RANGE_SEP.match(between) and _KO_RANGE_END.match(prose, nxt[1])
        ranged = _RANGE_SEP.match(between) or ko_range or _between(prose, start, end, nxt[0])
        if not has_suffix and nxt[3] and ranged:
            found[i] = (start, end, token + nxt[2][-1], True)
    required.update(t for _, _, t, _ in found)
    for start, end, t, _ in found:
        seen(t, start, end)
    softened: Counter[str] = Counter(
        t for start, end, t, _ in found if t[0] != "-" and _beside_decrease(prose, start, end)
    )
    measures: Counter[tuple[str, str]] = Counter()
    measured: dict[tuple[str, str], str] = {}
    units = [
        unit_at(prose, start + (t[0] == "-"), end) if measurable(t) else None
        for start, end, t, _ in found
    ]
    written = [
        " ".join(prose[start : unit[1]].split()) if unit else ""
        for (start, _, _, _), unit in zip(found, units, strict=True)
    ]
    # a range such as 10–20 GB gives its unit to both ends (written `10 GB`)
    for i in range(len(found) - 2, -1, -1):
        start, end, t, _ = found[i]
        nxt, unit = found[i + 1], units[i + 1]
        if (
            units[i]
            or not unit
            or not measurable(t)
            or not (
                _UNIT_RANGE_SEP.match(prose[end : nxt[0]]) or _between(prose, start, end, nxt[0])
            )
        ):
            continue
        units[i] = unit
        written[i] = " ".join((prose[start:end] + prose[nxt[1] : unit[1]]).split())
    for (_, _, t, _), unit, text in zip(found, units, written, strict=True):
        if unit is not None:
            measures[t, unit[0]] += 1
            measured.setdefault((t, unit[0]), text)
    # a duration in two or more units, the largest first (`2시간 30분`, "1 hour and 2 minutes")
    compounds = []
    i = 0
    while i < len(found):
        j = i
        while (
            j + 1 < len(found)
            and (unit := units[j])
            and units[j + 1]
            and _JOINED.fullmatch(prose, unit[1], found[j + 1][0])
        ):
            j += 1
        parts = [(found[k][2], unit[0]) for k in range(i, j + 1) if (unit := units[k])]
        total = compound(parts) if j > i else None
        if total is not None:
            compounds.append((tuple(t for t, _ in parts), total))
        i = j + 1
    # number words before a counter or unit (`두 시간`, `two hours`: bipub.check.qa_words)
    english = english_words(prose)  # (read once for the rules of qa_words)
    words = list(counted(prose, english))
    for start, end, t in words:
        required[t] += 1
        seen(t, start, end)
        unit = unit_at(prose, start, end) if measurable(t) else None
        if unit is not None:
            measures[t, unit[0]] += 1
            measured.setdefault((t, unit[0]), " ".join(prose[start : unit[1]].split()))
    optional.update(spelled_out(prose, frozenset(start for start, _, _ in words), english))
    vocabulary = {w for _, w in english}
    if not vocabulary.isdisjoint(_MONTHS):
        dated = set()
        for mm in _MONTH.finditer(prose):
            name = (mm.group(1) or mm.group(2)).lower()
            required[str(_MONTHS[name])] += 1
            seen(str(_MONTHS[name]), mm.start(), mm.end())
            dated.add(mm.start())
        for mm in _MONTH_ALONE.finditer(prose):
            if mm.start() not in dated:
                required[str(_MONTHS[mm.group().lower()])] += 1
                seen(str(_MONTHS[mm.group().lower()]), mm.start(), mm.end())
    has_one = has_one_word(prose, english)
    return Numbers(
        required,
        optional,
        has_one,
        names,
        spelled,
        softened,
        measures,
        measured,
        tuple(compounds),
        where,
    )


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


def _fmt(
    c: Counter[str], units: Counter[tuple[str, str]], written: dict[tuple[str, str], str]
) -> str:
    """The numbers of `c`, then each of `units` as `written`."""
    numbers = sorted(c.elements(), key=lambda t: (len(t), t))
    return ", ".join([*numbers, *(written[u] for u in sorted(units.elements()))])


def _one_side(
    side: str,
    other_side: str,
    c: Counter[str],
    units: Counter[tuple[str, str]],
    has: Numbers,
    other: Numbers,
) -> str:
    """A number on one side with none in its place on the other: where it is written (the
    words around it), and a name on the other side with that number glued to a word (`x2`,
    `H100`, `v0.6.3`: read as a name, not as a number), which a reviewer may take for it."""
    said = []
    for token in sorted(c, key=lambda t: (len(t), t)):
        times = f" ({c[token]} times)" if c[token] > 1 else ""
        said.append(f"{token}{times} in {has.where[token]}" if token in has.where else token)
    said.extend(has.measured[u] for u in sorted(units.elements()))
    many = sum(c.values()) + sum(units.values()) > 1
    line = (
        f"numbers differ: the {side} has {', '.join(said)} but the {other_side} has no number "
        f"in {'their' if many else 'its'} place"
    )
    digits = [_bare(t).lstrip("-") for t in c] + [t.lstrip("-") for t, _ in units]
    glued = [
        other.spelled[n]
        for n in sorted((other.names - has.names).elements())
        if any(re.search(rf"(?<![\d.]){re.escape(d)}(?!\d)", other.spelled[n]) for d in digits)
    ]
    if glued:
        line += (
            f" (it has {', '.join(glued)}: a number glued to a word is read as a name, not as "
            "a number)"
        )
    return line


def check_numbers(source: str, translation: str) -> list[str]:
    s, t = numbers_of(source), numbers_of(translation)
    lost, added = s.required - t.required, t.required - s.required
    compounds_converted(lost, added, s.compounds, t.measures)  # (2시간 30분 / 2.5 hours)
    compounds_converted(added, lost, t.compounds, s.measures)
    lost, added = _absorb(+lost, t), _absorb(+added, s)
    # "51번" / "51 times", "3배" / "3 times": a multiplier sign alone is not a different number
    for token in sorted(lost):
        other = token[:-1] if token.endswith("×") else token + "×"
        while lost[token] and added[other]:
            lost[token] -= 1
            added[other] -= 1
    converted(lost, added, s.measures, t.measures)  # (0.5초 / 500 ms, 1 GB / 1,024 MB)
    # -3.5% / "down 3.5%", "3.5% 감소" / -3.5%: a word of decrease beside the number on the
    # side without the sign stands for it
    soft = {"source": Counter(s.softened), "translation": Counter(t.softened)}
    for token in sorted(lost):
        plain = token.removeprefix("-")
        other, unsigned = (plain, "translation") if token != plain else ("-" + token, "source")
        while lost[token] and added[other] and soft[unsigned][plain]:
            lost[token] -= 1
            added[other] -= 1
            soft[unsigned][plain] -= 1
    # the same number with another unit (0.5초 / 0.5 ms, 10GB / 10MB, 80GB / 80 GiB); one
    # written otherwise (3.0 ms / 3 s) is said as its unit, not as a number too
    unit_was, unit_now = changed_units(s.measures, t.measures)
    for token, _ in sorted(unit_was.elements()):
        if token not in (u for u, _ in unit_now) and lost[token]:
            lost[token] -= 1
    for token, _ in sorted(unit_now.elements()):
        if token not in (u for u, _ in unit_was) and added[token]:
            added[token] -= 1
    lost, added = +lost, +added
    out = []
    if (lost or unit_was) and (added or unit_now):  # (both sides said: the numbers show where)
        was, now = _fmt(lost, unit_was, s.measured), _fmt(added, unit_now, t.measured)
        out.append(f"numbers differ: the source has {was} but the translation has {now}")
    elif lost or unit_was:
        out.append(_one_side("source", "translation", lost, unit_was, s, t))
    elif added or unit_now:
        out.append(_one_side("translation", "source", added, unit_now, t, s))
    # a name with a number put in another's place (one spelled out alone is not said)
    gone, new = s.names - t.names, t.names - s.names
    if gone and new:
        was = ", ".join(s.spelled[n] for n in sorted(gone.elements()))
        now = ", ".join(t.spelled[n] for n in sorted(new.elements()))
        out.append(f"names with numbers differ: the source has {was} but the translation has {now}")
    return out
