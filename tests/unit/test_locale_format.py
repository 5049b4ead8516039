"""Tests for bipub.render.locale_format: Babel formatting with an explicit language per call."""

from __future__ import annotations

import locale
import re
import sys
from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bipub.load.reading import _minutes  # the counting itself, tested step by step below
from bipub.render.locale_format import (
    CODE_WEIGHT,
    EN_WORDS_PER_MINUTE,
    KO_CHARS_PER_MINUTE,
    babel_locale,
    format_date,
    format_iso,
    format_number,
    format_reading_time,
    reading_minutes,
)

KST = timezone(timedelta(hours=9))

# --- language codes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "language"),
    [("ko", "ko"), ("ko-KR", "ko"), ("ko_KR", "ko"), ("en", "en"), ("en-US", "en"), ("EN", "en")],
)
def test_language_codes_map_to_babel_locales(lang: str, language: str) -> None:
    assert babel_locale(lang).language == language


@pytest.mark.parametrize("lang", ["ja", "fr", "de-DE", "en-GB", "kor", "", "english", "ko KR"])
def test_unknown_language_raises_naming_it(lang: str) -> None:
    for call in (
        lambda: babel_locale(lang),
        lambda: format_date(date(2026, 4, 7), lang),
        lambda: format_number(1, lang),
        lambda: reading_minutes("text", lang),
        lambda: format_reading_time(5, lang),
    ):
        with pytest.raises(ValueError, match="unknown language") as info:
            call()
        assert repr(lang) in str(info.value)


# --- dates -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("d", "ko", "en"),
    [
        (date(2026, 4, 7), "2026년 4월 7일", "April 7, 2026"),
        (date(2025, 12, 31), "2025년 12월 31일", "December 31, 2025"),
        (date(2024, 2, 29), "2024년 2월 29일", "February 29, 2024"),
        (date(2000, 1, 1), "2000년 1월 1일", "January 1, 2000"),
        (date(1999, 10, 10), "1999년 10월 10일", "October 10, 1999"),
    ],
)
def test_format_date_long(d: date, ko: str, en: str) -> None:
    assert format_date(d, "ko") == ko
    assert format_date(d, "ko-KR") == ko
    assert format_date(d, "en") == en
    assert format_date(d, "en-US") == en
    assert format_date(d, "ko", "long") == ko


@pytest.mark.parametrize(
    ("style", "ko", "en"),
    [
        ("full", "2026년 4월 7일 화요일", "Tuesday, April 7, 2026"),
        ("long", "2026년 4월 7일", "April 7, 2026"),
        ("medium", "2026. 4. 7.", "Apr 7, 2026"),
        ("short", "26. 4. 7.", "4/7/26"),
    ],
)
def test_format_date_styles(style: str, ko: str, en: str) -> None:
    assert format_date(date(2026, 4, 7), "ko", style) == ko
    assert format_date(date(2026, 4, 7), "en", style) == en


def test_format_date_accepts_a_datetime() -> None:
    moment = datetime(2026, 4, 7, 23, 59, tzinfo=KST)
    assert format_date(moment, "ko") == "2026년 4월 7일"
    assert format_date(moment, "en") == "April 7, 2026"


@pytest.mark.parametrize("style", ["yyyy-MM-dd", "LONG", "", "iso"])
def test_format_date_unknown_style_raises(style: str) -> None:
    with pytest.raises(ValueError, match="unknown date style"):
        format_date(date(2026, 4, 7), "ko", style)


def test_no_process_wide_locale_state(monkeypatch: pytest.MonkeyPatch) -> None:
    before = locale.setlocale(locale.LC_ALL)

    def forbidden(*args: object) -> str:
        raise AssertionError("locale.setlocale must not be called")

    monkeypatch.setattr(locale, "setlocale", forbidden)
    for var in ("LANG", "LC_ALL", "LC_TIME", "LC_NUMERIC", "LANGUAGE"):
        monkeypatch.setenv(var, "en_US.UTF-8")
    # Interleaved calls keep their own languages.
    assert format_date(date(2026, 4, 7), "ko") == "2026년 4월 7일"
    assert format_date(date(2026, 4, 7), "en") == "April 7, 2026"
    assert format_date(date(2026, 4, 7), "ko") == "2026년 4월 7일"
    assert format_reading_time(5, "ko") == "5분"
    assert format_number(1234.5, "ko") == "1,234.5"
    monkeypatch.undo()
    assert locale.setlocale(locale.LC_ALL) == before


# --- ISO 8601 ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (date(2026, 4, 7), "2026-04-07"),
        (date(2000, 1, 1), "2000-01-01"),
        (datetime(2026, 4, 7, 9, 30), "2026-04-07T09:30:00+00:00"),
        (datetime(2026, 4, 7, 9, 30, tzinfo=UTC), "2026-04-07T09:30:00+00:00"),
        (datetime(2026, 4, 7, 9, 30, tzinfo=KST), "2026-04-07T09:30:00+09:00"),
        (
            datetime(2026, 4, 7, 9, 30, tzinfo=timezone(timedelta(hours=-5))),
            "2026-04-07T09:30:00-05:00",
        ),
        (datetime(2026, 4, 7, 9, 30, 5, 250000, tzinfo=KST), "2026-04-07T09:30:05.250000+09:00"),
    ],
)
def test_format_iso(value: date, expected: str) -> None:
    assert format_iso(value) == expected


@given(st.datetimes(timezones=st.none() | st.timezones()))
def test_format_iso_datetimes_always_carry_an_offset(value: datetime) -> None:
    text = format_iso(value)
    parsed = datetime.fromisoformat(text)
    assert parsed.utcoffset() is not None
    expected = value.replace(tzinfo=UTC) if value.utcoffset() is None else value
    # Same wall time and same offset (compared apart: equality across zones is undefined for times
    # in a DST gap or fold).
    assert parsed.replace(tzinfo=None) == expected.replace(tzinfo=None)
    assert parsed.utcoffset() == expected.utcoffset()


@given(st.dates())
def test_format_iso_dates_round_trip(value: date) -> None:
    text = format_iso(value)
    assert len(text) == 10
    assert date.fromisoformat(text) == value


# --- numbers -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (0, "0"),
        (7, "7"),
        (1234, "1,234"),
        (1234567, "1,234,567"),
        (-42000, "-42,000"),
        (1234.5, "1,234.5"),
        (0.25, "0.25"),
        (10**12, "1,000,000,000,000"),
    ],
)
@pytest.mark.parametrize("lang", ["ko", "en", "ko-KR", "en-US"])
def test_format_number(n: float, expected: str, lang: str) -> None:
    assert format_number(n, lang) == expected


@pytest.mark.parametrize("n", [True, "12", None])
def test_format_number_rejects_non_numbers(n: object) -> None:
    with pytest.raises(TypeError):
        format_number(n, "ko")  # type: ignore[arg-type]


# --- reading time ------------------------------------------------------------------------------


def test_rates() -> None:
    assert KO_CHARS_PER_MINUTE == 500
    assert EN_WORDS_PER_MINUTE == 220
    assert CODE_WEIGHT == 0.5


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("text", ["", "   \n\t", "안녕", "hello", "```\n```"])
def test_reading_time_is_at_least_one_minute(text: str, lang: str) -> None:
    assert reading_minutes(text, lang) == 1


@pytest.mark.parametrize(
    ("chars", "expected"),
    [(1000, 2), (1249, 2), (1250, 3), (2500, 5), (5000, 10), (749, 1), (750, 2)],
)
def test_korean_counts_hangul_characters(chars: int, expected: int) -> None:
    text = "가나다라마" * (chars // 5) + "가" * (chars % 5)
    assert reading_minutes(text, "ko") == expected
    # Whitespace is free.
    assert reading_minutes(" ".join(text), "ko") == expected
    assert reading_minutes("\n".join(text), "ko") == expected


def test_korean_counts_other_non_space_characters() -> None:
    assert reading_minutes("1" * 1000, "ko") == 2
    assert reading_minutes(". " * 1500, "ko") == 3


@pytest.mark.parametrize(("words", "expected"), [(440, 2), (549, 2), (550, 3), (1100, 5)])
def test_english_counts_words(words: int, expected: int) -> None:
    assert reading_minutes(" ".join(["reading"] * words), "en") == expected
    # Long or short, a word is a word.
    assert reading_minutes(" ".join(["a"] * words), "en") == expected
    assert reading_minutes(" ".join(["internationalization"] * words), "en") == expected


def test_english_words_include_numbers_but_not_bare_punctuation() -> None:
    assert reading_minutes(" ".join(["2026"] * 550), "en") == 3
    assert reading_minutes(" ".join(["Python3"] * 550), "en") == 3
    assert reading_minutes(" ".join(["—"] * 2000), "en") == 1


def test_mixed_text_uses_both_rates() -> None:
    korean = "가" * 1000  # 2 minutes
    english = " ".join(["word"] * 440)  # 2 minutes
    mixed = f"{korean} {english}"
    assert reading_minutes(mixed, "ko") == 4
    assert reading_minutes(mixed, "en") == 4
    # Words are not counted per letter in Korean text, nor Hangul per token in English text.
    assert reading_minutes(" ".join(["internationalization"] * 440), "ko") == 2
    assert reading_minutes(" ".join(["가나다라마바사아자차"] * 100), "en") == 2


def test_latin_words_with_inner_apostrophes_and_hyphens_are_one_word() -> None:
    assert reading_minutes(" ".join(["state-of-the-art"] * 550), "ko") == 3
    assert reading_minutes(" ".join(["don't"] * 550), "ko") == 3


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_fenced_code_counts_at_half_weight(lang: str) -> None:
    prose = "가" * 1000  # 2 minutes
    code = "가" * 2000  # 4 minutes as prose, 2 as code
    assert reading_minutes(f"{prose}\n{code}", lang) == 6
    assert reading_minutes(f"{prose}\n```python\n{code}\n```\n", lang) == 4
    assert reading_minutes(f"{prose}\n~~~\n{code}\n~~~\n", lang) == 4
    assert reading_minutes(f"{prose}\n   ````\n{code}\n`````\n", lang) == 4


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_fence_edge_cases(lang: str) -> None:
    prose = "가" * 1000
    code = "가" * 2000
    # An unclosed fence runs to the end.
    assert reading_minutes(f"{prose}\n```\n{code}", lang) == 4
    # A fence closes only with the same character, at least as long.
    after = "나" * 1000
    assert reading_minutes(f"```\n{code}\n~~~\n{after}\n```\n{prose}", lang) == 5
    assert reading_minutes(f"````\n{code}\n```\n{after}\n````\n{prose}", lang) == 5
    # Four spaces of indentation is not a fence; a backtick in the info string is not a fence.
    assert reading_minutes(f"{prose}\n    ```\n{code}\n    ```", lang) == 6
    assert reading_minutes(f"{prose}\n``` a`b\n{code}\n```", lang) == 6


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_fence_info_strings_are_not_counted(lang: str) -> None:
    info = " ".join(["word"] * 1000)
    assert reading_minutes(f"```{info}\n```", lang) == 1


@given(st.integers(min_value=0, max_value=20000))
def test_hangul_only_text_rounds_half_up(n: int) -> None:
    expected = max(1, (2 * n + KO_CHARS_PER_MINUTE) // (2 * KO_CHARS_PER_MINUTE))
    assert reading_minutes("한" * n, "ko") == expected
    assert reading_minutes("한" * n, "en") == expected


@given(st.text(max_size=300), st.sampled_from(["ko", "en"]))
def test_reading_minutes_is_a_positive_int_for_any_text(text: str, lang: str) -> None:
    minutes = reading_minutes(text, lang)
    assert isinstance(minutes, int)
    assert minutes >= 1


@pytest.mark.parametrize(
    ("minutes", "ko", "en"),
    [
        (1, "1분", "1 min read"),
        (5, "5분", "5 min read"),
        (12, "12분", "12 min read"),
        (1234, "1,234분", "1,234 min read"),
    ],
)
def test_format_reading_time(minutes: int, ko: str, en: str) -> None:
    assert format_reading_time(minutes, "ko") == ko
    assert format_reading_time(minutes, "ko-KR") == ko
    assert format_reading_time(minutes, "en") == en
    assert format_reading_time(minutes, "en-US") == en


def test_format_reading_time_of_reading_minutes() -> None:
    text = "가" * 2500
    assert format_reading_time(reading_minutes(text, "ko"), "ko") == "5분"
    assert format_reading_time(reading_minutes(" ".join(["w"] * 1100), "en"), "en") == "5 min read"


@pytest.mark.parametrize(
    ("minutes", "error"), [(-1, ValueError), (True, TypeError), (2.5, TypeError)]
)
def test_format_reading_time_rejects_bad_minutes(minutes: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        format_reading_time(minutes, "ko")  # type: ignore[arg-type]


# --- reading time: the fast counting equals the counting spelled out step by step ---------------

_REF_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_REF_LETTER = r"A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
_REF_LATIN_WORD = re.compile(rf"[{_REF_LETTER}]+(?:['’\-][{_REF_LETTER}]+)*")
_REF_WORDLIKE = re.compile(r"[^\W_]")


def _reference_minutes(text: str, base: str) -> float:
    """The module docstring's rules, one step at a time (the implementation before 2026-11)."""
    rest, hangul = _REF_HANGUL.subn(" ", text)
    if base == "ko":
        without_words, words = _REF_LATIN_WORD.subn(" ", rest)
        others = len(re.sub(r"\s+", "", without_words))
        return (hangul + others) / KO_CHARS_PER_MINUTE + words / EN_WORDS_PER_MINUTE
    words = sum(1 for token in rest.split() if _REF_WORDLIKE.search(token))
    return hangul / KO_CHARS_PER_MINUTE + words / EN_WORDS_PER_MINUTE


_READING_ALPHABET = (
    "가나힣ㄱㅏ"
    "abzAZéÿŁſ"
    "'’-_"
    "09٣"
    ".,!?—|`~*#"
    "한글漢字ひら"
    " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u2028\u3000\u200b"
)


@given(st.text(alphabet=_READING_ALPHABET, max_size=200) | st.text(max_size=100))
def test_minutes_match_the_step_by_step_counting(text: str) -> None:
    for base in ("ko", "en"):
        assert _minutes(text, base) == _reference_minutes(text, base)


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=200))
def test_minutes_of_ascii_text_match_the_step_by_step_counting(text: str) -> None:
    """(English ASCII text is counted with its non-word characters deleted: `_minutes`.)"""
    for base in ("ko", "en"):
        assert _minutes(text, base) == _reference_minutes(text, base)
    every = "".join(map(chr, range(128)))
    for glue in (" ", "", "a", "\n"):
        assert _minutes(glue.join(every), "en") == _reference_minutes(glue.join(every), "en")


def test_minutes_match_the_step_by_step_counting_on_every_character() -> None:
    # every BMP code point (and a sample of the others), alone and glued to letters and Hangul
    codes = [*range(0xD800), *range(0xE000, 0x10000), *range(0x10000, sys.maxunicode + 1, 97)]
    chars = [chr(c) for c in codes]
    for text in (" ".join(chars), "".join(chars), "a".join(chars), "가".join(chars)):
        for base in ("ko", "en"):
            assert _minutes(text, base) == _reference_minutes(text, base)


def _reference_split(text: str) -> tuple[str, str]:
    """load/reading.py's `_split_fenced_code` one line at a time (before 2026-12)."""
    prose: list[str] = []
    code: list[str] = []
    fence: str | None = None
    for line in text.splitlines():
        if fence is None:
            opened = re.match(r"^ {0,3}(`{3,}|~{3,})(.*)$", line)
            if opened and not (opened[1][0] == "`" and "`" in opened[2]):
                fence = opened[1]
            else:
                prose.append(line)
        elif re.fullmatch(rf" {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*", line):
            fence = None
        else:
            code.append(line)
    return "\n".join(prose), "\n".join(code)


_FENCE_LINES = st.lists(
    st.sampled_from(
        ["```", "````", "~~~", "~~~~", "   ```", "    ```", "``` py", "```a`b", "~~~ `x`"]
    )
    | st.text(alphabet=" `~ab\t\r가", max_size=12),
    max_size=25,
)


@given(_FENCE_LINES, st.sampled_from(["\n", "\r\n", "\r", "\u2028"]))
def test_fenced_code_is_split_as_line_by_line(lines: list[str], end: str) -> None:
    """Only lines with three backticks or tildes in a row are looked at (the others are taken
    in slices): the same prose and code as the step-by-step split."""
    from bipub.load.reading import _split_fenced_code

    text = end.join(lines)
    assert _split_fenced_code(text) == _reference_split(text)
    assert _split_fenced_code(text + end) == _reference_split(text + end)


def test_load_locales_reads_the_locale_data_of_the_languages_bipub_formats(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """(load/ahead.py: read while the build waits for its load child, not at the first page)
    A code bipub does not format is left to the pages, which say so."""
    import babel.localedata

    from bipub.render import locale_format

    read: list[str] = []
    real = babel.localedata.load

    def load(name: str, merge_inherited: bool = True) -> object:
        read.append(name)
        return real(name, merge_inherited)

    monkeypatch.setattr(babel.localedata, "load", load)
    locale_format.babel_locale.cache_clear()
    try:
        locale_format.load_locales(["ko", "en-US", "fr"])
        assert {"ko_KR", "en_US"} <= set(read)
        read.clear()
        assert locale_format.format_date(date(2026, 4, 7), "ko") == "2026년 4월 7일"
        assert read == []  # (read already)
    finally:
        locale_format.babel_locale.cache_clear()
