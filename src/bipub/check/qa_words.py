"""Numbers written as words, for QA rule `numbers` (bipub.check.qa_numbers).

A number word before a counter or a unit is a number, compared as its digits (`counted`):

* native Korean numerals from two to twelve (`두`, `세`, `네`, `다섯` … `열`, `열한`, `열두`)
  before a counter (`번`, `배`, `개`, `개월`, `가지`, `명`, `사람`, `단계`, `차례`, `시간`, `달`,
  `주일`; after a space only `대`, `장`, `줄`, `주`, `해`, `건`: `세대` is "generation", `열대`
  "tropics") that ends its word or takes a particle (`두 시간이`, `세 번을`, `열 개의`): `두
  시간` = 2 hours;
* Sino-Korean numerals from two to ten (`이`, `삼` … `십`) before `년`, `개월`, `주일`, or after a
  space before `분`, `초` (`삼 년`, `십 분`): `이` only before `년` and `개월` (`이 시간`, `이 분`,
  `이 주`: "this hour", "this person", "this week");
* the native words for days (`이틀` two days, `사흘`, `나흘` … `열흘` ten days);
* English `two` … `twelve` before a unit or counter (`two hours`, `a two-hour window`, `three
  times`, `two GPUs`).

Left as words that may stand for a digit on the other side but never cause a finding
(`spelled_out`): one (`한`, `one`, `a`: an idiom as often as a number: `한번 써 보세요`, `한 달`
"a month"), a number word in a range or a choice (`두세 번`, `한두 시간`, `한 두 번`, `two or
three times`, `two to three hours`), an ordinal (`세 번째`), an idiom (`두 번 다시`: "never
again", `세 줄 요약`: "TL;DR"), and any other number word (`three`, `tripled`, `half`, `세`
before another noun, `일주일` for seven days, `하루` for 24 hours, `보름` for 15 days, `재작년`
for two years ago). A half after a unit of time makes the number N.5 (`두 시간 반`, `2년 반`,
`two and a half hours` = 2.5: `and_a_half`; `an hour and a half` = 1.5).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

#: Spelled-out numbers: they never cause a finding but may stand for a digit on the other side.
WORD_NUMBERS = {
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
    "couple": "2",
    "both": "2",
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
    "twofold": "2×",
    "threefold": "3×",
    "fourfold": "4×",
    "fivefold": "5×",
    "tenfold": "10×",
    "hundredfold": "100×",
    "half": "1/2",
    "halved": "1/2",
    "third": "1/3",
    "quarter": "1/4",
}
#: Words for "a/each/per": an unmatched plain 1 is forgiven when the other side has one.
ONE_WORDS = frozenset(["a", "an", "one", "each", "every", "per", "single", "once", "first"])
_ENGLISH_WORD = re.compile(r"[A-Za-z]+")
#: A text's English words as `english_words` lists them: (start, the word in lower case).
Words = list[tuple[int, str]]


def english_words(prose: str) -> Words:
    """Each run of ASCII letters of `prose`, in lower case, with where it starts: read once
    for every rule of this module that looks at English words."""
    return [(m.start(), m.group().lower()) for m in _ENGLISH_WORD.finditer(prose)]


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
    "열한": "11",
    "열두": "12",
    "열": "10",
}
_KO_SINO = {
    "이": "2",
    "삼": "3",
    "사": "4",
    "오": "5",
    "육": "6",
    "칠": "7",
    "팔": "8",
    "구": "9",
    "십": "10",
}
# what may follow a counter in its word: a particle (`두 시간이`, `열 개의`, `세 번씩`, `두 달간`)
_PARTICLE = (
    r"(?:이나|이면|이라|이란|이고|이며|이상|이하|이내|으로|에서|에는|까지|부터|마다|동안|정도"
    r"|밖에|만에|짜리|보다|처럼|하고|이랑|[이가을를은는의에도만씩간과와로나쯤당내후전뒤랑])"
)
_WORD_END = r"(?:" + _PARTICLE + r"(?![가-힣])|(?![가-힣]))"
_KO_COUNTED = re.compile(
    r"(?<![가-힣])(?:(?P<native>한|두|세|네|다섯|여섯|일곱|여덟|아홉|열한|열두|열)"
    r"(?=(?P<counter>\s?(?:배|번|개월|개|가지|명|사람|단계|차례|시간|달|주일)"
    r"|\s(?:대|장|줄|주|해|건))"  # (glued, a word of its own: `세대` "generation", `열대`)
    + _WORD_END
    + r")|(?P<sino>삼|사|오|육|칠|팔|구|십)(?=(?P<sino_counter>\s?(?:년|개월|주일)|\s(?:분|초))"
    + _WORD_END
    + r")|(?P<two>이)(?=(?P<two_counter>\s(?:년|개월))"
    + _WORD_END
    + r"))"
)
# days counted in native words (`이틀` two days … `열흘` ten days)
_KO_DAYS = {
    "이틀": "2",
    "사흘": "3",
    "나흘": "4",
    "닷새": "5",
    "엿새": "6",
    "이레": "7",
    "여드레": "8",
    "아흐레": "9",
    "열흘": "10",
}
_KO_DAYS_WORD = re.compile(r"(?<![가-힣])(" + "|".join(_KO_DAYS) + r")(?=" + _WORD_END + r")")
# words of time with a number in them, which may stand for it (`일주일` "seven days", `하루`
# "24 hours", `재작년` "two years ago")
_KO_TIME_WORDS = {
    "하루": ("1", "24"),
    "일주일": ("7",),
    "보름": ("15",),
    "재작년": ("2",),
}
_KO_TIME_WORD = re.compile(r"(?<![가-힣])(" + "|".join(_KO_TIME_WORDS) + r")")
# a native numeral and a space just before another: a choice (`한 두 번`, `두 세 시간`)
_CHOICE = re.compile(r"(?<![가-힣])(?:" + "|".join(_KO_NATIVE) + r")\s$")
# a half after a unit of time (`두 시간 반`, `2년 반`, `two and a half hours`): N.5
_HALF = re.compile(r"\s*반" + _PARTICLE + r"?(?![가-힣])")
_HALVED = ("시간", "개월", "달", "년", "주일", "주", "분", "초", "해")
_AND_A_HALF = re.compile(
    r"\s?(?:" + "|".join(_HALVED) + r")" + _HALF.pattern + r"|\s+and\s+a\s+half\b"
)
# any native numeral before a noun (`세 배`, `이 두 항목`): may stand for a digit
_KO_SPELLED = re.compile(r"(?<![가-힣])(" + "|".join(_KO_NATIVE) + r")(?=\s?[가-힣])")
_EN_COUNTED = re.compile(
    r"(?<![\w-])(?<!\bor )(?<!\bto )(?<!\band )"
    r"(?P<word>one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
    r"(?=(?P<half>\s+and\s+a\s+half)?[\s-](?P<counter>times|(?:hour|minute|second|millisecond"
    r"|day|week|month|year|step|stage|item|line|request|case|page|layer|node|machine|server"
    r"|GPU|core|thread|worker"
    r"|replica|way|kind|type|person|people)s?)\b)",
    re.IGNORECASE,
)


#: The words `_EN_COUNTED` starts with (in lower case).
_EN_COUNTERS = frozenset(
    [
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
    ]
)
_EN_ONE_AND_A_HALF = re.compile(
    r"\b(?:an?|one)(?=\s+(?:hour|minute|second|day|week|month|year)\s+and\s+a\s+half\b)",
    re.IGNORECASE,
)


def counted(prose: str, words: Words | None = None) -> Iterator[tuple[int, int, str]]:
    """The number words before a counter or unit in `prose` (see the module docstring): the
    start and end of each word and its number (`2`; `2×` before `배`, `times`). `words`:
    `english_words(prose)`, if read already."""
    found = english_words(prose) if words is None else words
    for start, word in found:
        if word not in _EN_COUNTERS:  # (the pattern is tried only where its word is)
            continue
        m = _EN_COUNTED.match(prose, start)
        if m is None:
            continue
        value = WORD_NUMBERS[m.group("word").lower()]
        if value == "1" and not m.group("half"):
            continue  # (one is `a` as often: optional)
        value += ".5" if m.group("half") else ""
        yield m.start(), m.end(), value + ("×" if m.group("counter").lower() == "times" else "")
    if any(word == "half" for _, word in found):  # (what the pattern needs)
        for m in _EN_ONE_AND_A_HALF.finditer(prose):  # (`an hour and a half`)
            yield m.start(), m.end(), "1.5"
    if not re.search(r"[가-힣]", prose):
        return
    for m in _KO_DAYS_WORD.finditer(prose):
        yield m.start(), m.end(), _KO_DAYS[m.group(1)]
    for m in _KO_COUNTED.finditer(prose):
        counter = next(g for g in ("counter", "sino_counter", "two_counter") if m.group(g))
        if m.group(counter).strip() == "번" and prose.startswith(" 다시", m.end(counter)):
            continue  # (`두 번 다시 … 않는다`: "never again")
        if m.group(counter).strip() == "줄" and prose.startswith(" 요약", m.end(counter)):
            continue  # (`세 줄 요약`: "TL;DR")
        if _CHOICE.search(prose, max(0, m.start() - 4), m.start()):
            continue  # (`한 두 번`, `두 세 시간`: "a few")
        word = m.group("native") or m.group("sino") or m.group("two")
        value = _KO_NATIVE.get(word) or _KO_SINO[word]
        if _HALF.match(prose, m.end(counter)):
            if m.group(counter).strip() not in _HALVED:
                continue
            value += ".5"
        elif value == "1":
            continue  # (`한 달`: "a month" as often as one: optional)
        yield m.start(), m.end(), value + ("×" if m.group(counter).strip() == "배" else "")


def and_a_half(prose: str, end: int) -> bool:
    """Whether a half follows the number ending at `end` with its unit of time (`2시간 반`,
    `2년 반`, `2 and a half hours`): the number is N.5."""
    return _AND_A_HALF.match(prose, end) is not None


def spelled_out(prose: str, skip: frozenset[int], words: Words | None = None) -> Iterator[str]:
    """The numbers spelled out in `prose` other than those starting at `skip` (read by
    `counted`): each may stand for a digit on the other side. `words`: as for `counted`."""
    for start, word in english_words(prose) if words is None else words:
        value = WORD_NUMBERS.get(word)
        if value is not None and start not in skip:
            yield value
    if not re.search(r"[가-힣]", prose):
        return
    for m in _KO_SPELLED.finditer(prose):
        if m.start() not in skip:
            after = prose[m.end() :].lstrip()
            yield _KO_NATIVE[m.group(1)] + ("×" if after.startswith("배") else "")
    for m in _KO_TIME_WORD.finditer(prose):
        yield from _KO_TIME_WORDS[m.group(1)]


def has_one_word(prose: str, words: Words | None = None) -> bool:
    """Whether `prose` has a word for "a/each/per/one" (`ONE_WORDS`, `매`, `각`, `한`, `첫`).
    `words`: as for `counted`."""
    found = english_words(prose) if words is None else words
    return any(w in ONE_WORDS for _, w in found) or any(c in prose for c in "매각한첫")
