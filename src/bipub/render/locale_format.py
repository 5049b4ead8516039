"""Locale-aware dates, numbers and reading times, with the language passed on every call.

Everything goes through Babel with an explicit locale; nothing here reads or changes process-wide
state (no `locale.setlocale`, no environment variables), so rendering Korean and English pages in
the same process, or in parallel, cannot mix them up.

Languages are bipub language codes: 'ko', 'ko-KR', 'en' and 'en-US' (case and '-' versus '_' do
not matter). Any other code raises ValueError naming it.

Reading time
------------
`reading_minutes` counts Korean by characters and English by words, so mixed text is measured at
both rates:

* Hangul syllables are read at 500 characters a minute (`KO_CHARS_PER_MINUTE`), in any text.
* Korean text ('ko'): Latin words (letters, with inner apostrophes or hyphens: "don't",
  "state-of-the-art") are read at 220 words a minute (`EN_WORDS_PER_MINUTE`); every other
  non-space character (digits, punctuation, other scripts) counts as a Korean character.
* English text ('en'): with the Hangul taken out, every whitespace-separated token containing a
  letter or digit ("Python3", "2026", "3.5%") is a word read at 220 words a minute; bare
  punctuation is free.
* Fenced code blocks (``` or ~~~ fences, CommonMark rules: up to three spaces of indentation, a
  closing fence of the same character at least as long, an unclosed fence runs to the end) count
  at half weight (`CODE_WEIGHT`): readers skim code rather than read it, but it still takes time.
  The fence lines themselves (with their info strings) are not counted. Indented code blocks are
  counted as prose.

The total is rounded half up to whole minutes, and is never less than 1.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime
from functools import lru_cache
from typing import Final

from babel import Locale
from babel.dates import format_date as babel_format_date
from babel.numbers import format_decimal
from babel.units import format_unit

__all__ = [
    "CODE_WEIGHT",
    "DATE_STYLES",
    "EN_WORDS_PER_MINUTE",
    "KO_CHARS_PER_MINUTE",
    "babel_locale",
    "format_date",
    "format_iso",
    "format_number",
    "format_reading_time",
    "reading_minutes",
]

KO_CHARS_PER_MINUTE: Final = 500
EN_WORDS_PER_MINUTE: Final = 220
CODE_WEIGHT: Final = 0.5
DATE_STYLES: Final = ("short", "medium", "long", "full")

# bipub language code (normalised: lower case, '-') → (Babel locale identifier, base language)
_LANGUAGES: Final[dict[str, tuple[str, str]]] = {
    "ko": ("ko_KR", "ko"),
    "ko-kr": ("ko_KR", "ko"),
    "en": ("en_US", "en"),
    "en-us": ("en_US", "en"),
}
# The text around a localized duration ("5 min" / "5분"), per base language.
_READING_TIME: Final[dict[str, str]] = {
    "ko": "{duration}",
    "en": "{duration} read",
}

_HANGUL: Final = re.compile(r"[\uac00-\ud7a3]")
_LATIN_LETTER: Final = r"A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
_LATIN_WORD: Final = re.compile(rf"[{_LATIN_LETTER}]+(?:['’\-][{_LATIN_LETTER}]+)*")
_WORDLIKE: Final = re.compile(r"[^\W_]")
_FENCE_OPEN: Final = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


@lru_cache(maxsize=4096, typed=True)  # pure; called for every card of every page
def babel_locale(lang: str) -> Locale:
    """The Babel locale for a bipub language code; ValueError names an unknown code."""
    return Locale.parse(_language(lang)[0])


@lru_cache(maxsize=4096, typed=True)  # pure; called for every card of every page
def format_date(d: date, lang: str, style: str = "long") -> str:
    """`d` in `lang`: long is '2026년 4월 7일' / 'April 7, 2026'; see `DATE_STYLES`."""
    if style not in DATE_STYLES:
        raise ValueError(f"unknown date style {style!r}; use one of {', '.join(DATE_STYLES)}")
    return babel_format_date(d, style, locale=babel_locale(lang))


def format_iso(d: date | datetime) -> str:
    """ISO 8601 for JSON and feeds: '2026-04-07' for a date, '2026-04-07T09:30:00+09:00' for a
    datetime. A datetime always carries an explicit offset; a naive one is taken to be UTC."""
    if isinstance(d, datetime):
        if d.tzinfo is None or d.utcoffset() is None:
            d = d.replace(tzinfo=UTC)
        return d.isoformat()
    return d.isoformat()


def format_number(n: int | float, lang: str) -> str:
    """`n` with the grouping and decimal signs of `lang` (at most three decimals, as Babel)."""
    if isinstance(n, bool) or not isinstance(n, int | float):
        raise TypeError(f"format_number: expected an int or float, got {n!r}")
    return format_decimal(n, locale=babel_locale(lang))


def reading_minutes(text: str, lang: str) -> int:
    """Estimated reading time of `text` in whole minutes, at least 1 (see the module docstring)."""
    base = _language(lang)[1]
    prose, code = _split_fenced_code(text)
    minutes = _minutes(prose, base) + CODE_WEIGHT * _minutes(code, base)
    return max(1, math.floor(minutes + 0.5))


@lru_cache(maxsize=4096, typed=True)  # pure; called for every card of every page
def format_reading_time(minutes: int, lang: str) -> str:
    """'5분' in Korean, '5 min read' in English; the number and unit come from CLDR via Babel."""
    if isinstance(minutes, bool) or not isinstance(minutes, int):
        raise TypeError(f"format_reading_time: expected an int, got {minutes!r}")
    if minutes < 0:
        raise ValueError(f"format_reading_time: negative minutes {minutes}")
    locale, base = _language(lang)
    duration = format_unit(minutes, "duration-minute", length="short", locale=locale)
    return _READING_TIME[base].format(duration=duration)


def _language(lang: str) -> tuple[str, str]:
    key = lang.strip().replace("_", "-").lower() if isinstance(lang, str) else None
    if key is None or key not in _LANGUAGES:
        known = ", ".join(sorted({"ko", "ko-KR", "en", "en-US"}))
        raise ValueError(f"unknown language {lang!r}; bipub formats {known}")
    return _LANGUAGES[key]


def _minutes(text: str, base: str) -> float:
    """Reading minutes of `text` at the rates of `base` (see the module docstring).

    Korean: Hangul and every other non-space character outside Latin words are both read at
    `KO_CHARS_PER_MINUTE`, so they are counted together, as the non-space characters left once
    the Latin words are taken out (Hangul cannot be part of a Latin word, so taking it out first,
    as the docstring describes, matches the same words). English: the tokens are the
    whitespace-separated ones with Hangul taken out; those with a letter or digit are words.
    tests/unit/test_locale_format.py checks this against the counting spelled out step by step.
    """
    if base == "ko":
        without_words, words = _LATIN_WORD.subn("", text)
        chars = len("".join(without_words.split()))  # str.split's whitespace is re's \s
        return chars / KO_CHARS_PER_MINUTE + words / EN_WORDS_PER_MINUTE
    rest, hangul = _HANGUL.subn(" ", text) if _HANGUL.search(text) else (text, 0)
    tokens = rest.split()  # str.split's whitespace is re's \s
    # a token is a word if it has a letter or digit (`_WORDLIKE`; '_' is no letter; a token of
    # bare punctuation is none): the all-alphanumeric ones, most of them, are told apart at C
    # speed (str.isalnum is re's [^\W_] on each character); only the others are searched
    words = len(tokens) - sum(1 for t in tokens if not t.isalnum() and not _WORDLIKE.search(t))
    return hangul / KO_CHARS_PER_MINUTE + words / EN_WORDS_PER_MINUTE


def _split_fenced_code(text: str) -> tuple[str, str]:
    """(prose, contents of fenced code blocks), each as lines joined by newlines."""
    prose: list[str] = []
    code: list[str] = []
    fence: str | None = None
    for line in text.splitlines():
        if fence is None:
            opened = _FENCE_OPEN.match(line)
            if opened and not (opened[1][0] == "`" and "`" in opened[2]):
                fence = opened[1]
            else:
                prose.append(line)
        elif re.fullmatch(rf" {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*", line):
            fence = None
        else:
            code.append(line)
    return "\n".join(prose), "\n".join(code)
