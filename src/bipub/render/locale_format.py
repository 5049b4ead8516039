"""Locale-aware dates, numbers and reading times, with the language passed on every call.

Everything goes through Babel with an explicit locale; nothing here reads or changes process-wide
state (no `locale.setlocale`, no environment variables), so rendering Korean and English pages in
the same process, or in parallel, cannot mix them up.

Languages are bipub language codes: 'ko', 'ko-KR', 'en' and 'en-US' (case and '-' versus '_' do
not matter). Any other code raises ValueError naming it.

Reading time: `reading_minutes` (load/reading.py) counts it; `format_reading_time` shows it.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime
from functools import lru_cache
from typing import Final

from babel import Locale
from babel.dates import format_date as babel_format_date
from babel.numbers import format_decimal
from babel.units import format_unit

from bipub.load.reading import (
    CODE_WEIGHT,
    EN_WORDS_PER_MINUTE,
    KO_CHARS_PER_MINUTE,
    language,
    reading_minutes,
)

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
    "load_locales",
    "reading_minutes",
]

DATE_STYLES: Final = ("short", "medium", "long", "full")

# The text around a localized duration ("5 min" / "5분"), per base language.
_READING_TIME: Final[dict[str, str]] = {
    "ko": "{duration}",
    "en": "{duration} read",
}


@lru_cache(maxsize=4096, typed=True)  # pure; called for every card of every page
def babel_locale(lang: str) -> Locale:
    """The Babel locale for a bipub language code; ValueError names an unknown code."""
    return Locale.parse(language(lang)[0])


def load_locales(langs: Iterable[str]) -> None:
    """Read now the locale data of `langs` (bipub language codes), which Babel reads and
    merges at a locale's first use (~8 ms for Korean and English): for a process with a moment
    to spare before its pages (load/ahead.py). A code bipub does not format is left alone
    here: the first page that formats a date in it says so."""
    for lang in langs:
        try:
            locale = babel_locale(lang)
        except ValueError:
            continue  # (said by the pages: see above)
        locale.date_formats  # noqa: B018 - (the data is read at the first use of any of it)


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


@lru_cache(maxsize=4096, typed=True)  # pure; called for every card of every page
def format_reading_time(minutes: int, lang: str) -> str:
    """'5분' in Korean, '5 min read' in English; the number and unit come from CLDR via Babel."""
    if isinstance(minutes, bool) or not isinstance(minutes, int):
        raise TypeError(f"format_reading_time: expected an int, got {minutes!r}")
    if minutes < 0:
        raise ValueError(f"format_reading_time: negative minutes {minutes}")
    locale, base = language(lang)
    duration = format_unit(minutes, "duration-minute", length="short", locale=locale)
    return _READING_TIME[base].format(duration=duration)
