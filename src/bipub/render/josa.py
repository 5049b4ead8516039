"""Korean particles (조사) that agree with the word before them.

A particle such as 은/는 has one form after a syllable with a final consonant (받침) and one after a
vowel; 으로/로 also takes 로 after a final ㄹ. `josa` picks the right form and is meant to be used as
a Jinja2 filter::

    {{ '서버'|josa('을/를') }}   → 서버를
    {{ '파일'|josa('으로/로') }} → 파일로
    {{ 'vLLM'|josa('은/는') }}   → vLLM은

The two halves of `forms` may come in either order ('을/를' or '를/을').

How the last pronounced syllable is found
-----------------------------------------
Trailing punctuation, closing brackets, quotes, whitespace and symbols (emoji, ™, …) are skipped,
so '"서버"' → '"서버"를' and 'KV 캐시)' is read from 시. Two symbols are pronounced and are not
skipped: '%' (퍼센트, vowel) and '#' (샵, as in C#: 받침 ㅂ). Fullwidth letters and digits and Latin
letters with accents (é, ü) count as their plain ASCII letter. The last pronounced character then
decides:

* **Hangul syllable** — final index ``(code - 0xAC00) % 28``: 0 is no 받침, 8 is ㄹ. Only a plain ㄹ
  counts as ㄹ (닭 ends in ㄺ and takes 으로).
* **Digits** — the Sino-Korean reading of the whole number they end (commas grouping thousands,
  like "10,000", are part of it): a number that does not end in 0 ends with its last digit (영 일 이
  삼 사 오 육 칠 팔 구); otherwise with the place of its last non-zero digit: 십 (ㅂ), 백 (ㄱ),
  천 (ㄴ), 만 (ㄴ), 억 (ㄱ), 조 (vowel), 경 (ㅇ) … so "20" → 이십, "300" → 삼백, "100000" →
  십만. A lone 0 (or 00…) reads 영. Digits after a decimal point are read as a number too
  ("3.10" → 십), which agrees with a digit-by-digit reading ("일영") in every case up to 10^12.
* **Latin letters ending in a capital** (GPU, vLLM, macOS), **a single letter** (x, n) and **runs
  without a vowel letter** (npm, ssh, dbt) — the Korean name of the last letter: 에이 비 씨 디 이
  에프 지 에이치 아이 제이 케이 엘 엠 엔 오 피 큐 알 에스 티 유 브이 더블유 엑스 와이 지.
  Only L (엘), M (엠), N (엔) and R (알) end in a consonant; L and R in ㄹ.
* **Other Latin words** (ending in a lower-case letter) — the standard Korean transcription of the
  English word (외래어 표기법), approximated from its spelling:

  =============================================  ====================  =======================
  Ending                                         Read as               Examples
  =============================================  ====================  =======================
  -m, -mb                                        ㅁ 받침               stream, Chromium, bomb
  -n, -ng                                        ㄴ / ㅇ 받침          Python, Kotlin, string
  -l                                             ㄹ 받침               kernel, Perl, tool
  -le (syllabic or silent e)                     ㄹ 받침               Google, file, table
  -ne, -me (silent e)                            ㄴ / ㅁ 받침          engine, phone, time
  other -e (silent or not)                       vowel                 cache, node, Vue, core
  -r (-er, -or, -ar, …)                          vowel (어)            Docker, server, Jupyter
  -a -i -o -u -y -w                              vowel                 Go, Ruby, TensorFlow
  -s -x -z -f -v -h (-sh -ch -th) -j -q          vowel (스, 프, 시 …)  Redis, Linux, PyTorch
  -d, -g (not -ng)                               vowel (드, 그)        pod, debug, log
  -t -k -c -p -b -ck after a consonant letter    vowel (트 크 프 브)   Rust, Swift, React, Flask
  (-st, -ft, -ct, -nt, -sk, -nk, -mp, -lp, …)
  -t -k -c -p -b (or -tt -pp) after ONE          받침 (ㅅ ㄱ ㅂ)       Git 깃, commit 커밋, Mac 맥,
  vowel letter, and any -ck                                            pip 핍, app 앱, web 웹,
                                                                       Slack 슬랙, Anthropic
  -t -k -c -p -b after a vowel pair              vowel (트 크 프)      boot, loop, sheet, leak
  … except -ook, -eep, -out, -oup                받침                  notebook, deep, layout,
                                                                       group
  =============================================  ====================  =======================

  A short list of established spellings overrides the table: -hub (허브), -check (체크),
  -type (타입), -template (템플릿), and the word "bit" (비트).

  This deliberately differs from a blunt "-t/-k/-p read 트/크/프" rule: Korean writes a final
  voiceless stop after a short vowel as 받침 (깃, 커밋, 슬랙, 앱), so 'Git' takes 을, not 를.

A word whose last pronounced character is none of the above (a Hanja, kana, Hangul jamo, a Greek
letter, a superscript digit …) or which has nothing pronounceable at all raises ValueError: a
particle is never guessed silently.
"""

from __future__ import annotations

import unicodedata
from typing import Final

__all__ = ["SUPPORTED_FORMS", "has_final_consonant", "josa"]

_Final = tuple[bool, bool]
"""(has a final consonant, that final consonant is ㄹ)"""

_VOWEL: Final[_Final] = (False, False)
_CONSONANT: Final[_Final] = (True, False)
_RIEUL: Final[_Final] = (True, True)

# (form after a final consonant, form after a vowel)
_PAIRS: Final[tuple[tuple[str, str], ...]] = (
    ("은", "는"),
    ("이", "가"),
    ("을", "를"),
    ("과", "와"),
    ("이나", "나"),
    ("이라", "라"),
    ("으로", "로"),
)
_RO: Final = "으로"
SUPPORTED_FORMS: Final[tuple[str, ...]] = tuple(f"{c}/{v}" for c, v in _PAIRS)

_FORMS: Final[dict[tuple[str, str], tuple[str, str]]] = {
    **{(c, v): (c, v) for c, v in _PAIRS},
    **{(v, c): (c, v) for c, v in _PAIRS},
}

_HANGUL_FIRST: Final = 0xAC00
_HANGUL_LAST: Final = 0xD7A3
_RIEUL_INDEX: Final = 8

# Sino-Korean digits: 영 일 이 삼 사 오 육 칠 팔 구
_DIGITS: Final[dict[str, _Final]] = {
    "0": _CONSONANT,
    "1": _RIEUL,
    "2": _VOWEL,
    "3": _CONSONANT,
    "4": _VOWEL,
    "5": _VOWEL,
    "6": _CONSONANT,
    "7": _RIEUL,
    "8": _RIEUL,
    "9": _VOWEL,
}
# 십 백 천, indexed by the number of trailing zeros (1-3)
_SMALL_PLACES: Final[tuple[_Final, ...]] = (_CONSONANT, _CONSONANT, _CONSONANT)
# 만 억 조 경 해 자 양 구 간 정 재 극: 10^4, 10^8, … 10^48
_LARGE_PLACES: Final[tuple[_Final, ...]] = (
    _CONSONANT,  # 만
    _CONSONANT,  # 억
    _VOWEL,  # 조
    _CONSONANT,  # 경
    _VOWEL,  # 해
    _VOWEL,  # 자
    _CONSONANT,  # 양
    _VOWEL,  # 구
    _CONSONANT,  # 간
    _CONSONANT,  # 정
    _VOWEL,  # 재
    _CONSONANT,  # 극
)

# Korean names of the Latin letters; only 엘 엠 엔 알 end in a consonant.
_LETTERS: Final[dict[str, _Final]] = {letter: _VOWEL for letter in "ABCDEFGHIJKOPQSTUVWXYZ"} | {
    "L": _RIEUL,
    "M": _CONSONANT,
    "N": _CONSONANT,
    "R": _RIEUL,
}

# Pronounced symbols (everything else that is not a letter or digit is skipped).
_SYMBOLS: Final[dict[str, _Final]] = {
    "%": _VOWEL,  # 퍼센트
    "％": _VOWEL,
    "#": _CONSONANT,  # 샵 (C#, F#)
    "＃": _CONSONANT,
}

_SUFFIX_EXCEPTIONS: Final[tuple[tuple[str, _Final], ...]] = (
    ("template", _CONSONANT),  # 템플릿
    ("check", _VOWEL),  # 체크
    ("type", _CONSONANT),  # 타입
    ("hub", _VOWEL),  # 허브 (GitHub)
)
_WORD_EXCEPTIONS: Final[dict[str, _Final]] = {
    "bit": _VOWEL,  # 비트
}
_ENGLISH_VOWELS: Final = "aeiou"
_STOPS: Final = frozenset({"t", "tt", "k", "c", "p", "pp", "b", "bb"})
_LONG_VOWEL_STOP_EXCEPTIONS: Final = frozenset({"ook", "eep", "out", "oup"})
_SKIPPED_CATEGORIES: Final = frozenset("PZSCM")


def josa(word: str, forms: str) -> str:
    """Return `word` followed by the form of the particle `forms` (such as '을/를') that fits it.

    Raises ValueError for forms that are not supported (the message lists the supported ones) and
    for a word whose last pronounced character cannot be read (see the module docstring).
    """
    after_consonant, after_vowel = _parse_forms(forms)
    has_final, is_rieul = has_final_consonant(word)
    if after_consonant == _RO:
        particle = after_consonant if has_final and not is_rieul else after_vowel
    else:
        particle = after_consonant if has_final else after_vowel
    return word + particle


def has_final_consonant(word: str) -> tuple[bool, bool]:
    """Return (whether the last pronounced syllable of `word` has a 받침, whether that 받침 is ㄹ).

    Raises ValueError when `word` is empty, has nothing pronounceable, or ends in a character whose
    Korean reading is unknown (see the module docstring for the rules).
    """
    if not isinstance(word, str):
        raise TypeError(f"josa: expected a string, got {type(word).__name__} {word!r}")
    if not word:
        raise ValueError("josa: cannot attach a particle to an empty word")
    text = "".join(_fold(ch) for ch in unicodedata.normalize("NFC", word))
    for end in range(len(text) - 1, -1, -1):
        ch = text[end]
        if _HANGUL_FIRST <= ord(ch) <= _HANGUL_LAST:
            final = (ord(ch) - _HANGUL_FIRST) % 28
            return final != 0, final == _RIEUL_INDEX
        if ch in _SYMBOLS:
            return _SYMBOLS[ch]
        if _is_ascii_digit(ch):
            return _number_final(text, end)
        if _is_ascii_letter(ch):
            return _latin_final(text, end)
        if unicodedata.category(ch)[0] in _SKIPPED_CATEGORIES:
            continue
        raise ValueError(
            f"josa: cannot tell how {word!r} is pronounced: its last pronounced character {ch!r} "
            "is neither Hangul, a Latin letter nor a digit"
        )
    raise ValueError(
        f"josa: {word!r} has no Hangul syllable, Latin letter or digit to attach a particle to"
    )


def _parse_forms(forms: str) -> tuple[str, str]:
    halves = forms.split("/")
    pair = _FORMS.get((halves[0].strip(), halves[1].strip())) if len(halves) == 2 else None
    if pair is None:
        supported = ", ".join(SUPPORTED_FORMS)
        raise ValueError(
            f"josa: unsupported particle forms {forms!r}; supported: {supported} "
            "(either half may come first)"
        )
    return pair


def _fold(ch: str) -> str:
    """Map fullwidth and accented Latin letters and fullwidth digits to plain ASCII."""
    if ch.isascii() or unicodedata.category(ch) not in {"Lu", "Ll", "Nd"}:
        return ch
    decomposed = unicodedata.normalize("NFKD", ch)
    base, marks = decomposed[0], decomposed[1:]
    if (_is_ascii_letter(base) or _is_ascii_digit(base)) and all(
        unicodedata.category(mark) == "Mn" for mark in marks
    ):
        return base
    return ch


def _is_ascii_digit(ch: str) -> bool:
    return "0" <= ch <= "9"


def _is_ascii_letter(ch: str) -> bool:
    return "a" <= ch <= "z" or "A" <= ch <= "Z"


def _number_final(text: str, end: int) -> _Final:
    start = end
    while start > 0 and (_is_ascii_digit(text[start - 1]) or text[start - 1] == ","):
        start -= 1
    groups = text[start : end + 1].lstrip(",").split(",")
    grouped = 1 <= len(groups[0]) <= 3 and all(len(group) == 3 for group in groups[1:])
    digits = "".join(groups) if grouped else groups[-1]
    return _sino_korean_final(digits)


def _sino_korean_final(digits: str) -> _Final:
    significant = digits.rstrip("0")
    if not significant:
        return _DIGITS["0"]  # 영
    zeros = len(digits) - len(significant)
    if zeros == 0:
        return _DIGITS[digits[-1]]
    if zeros < 4:
        return _SMALL_PLACES[zeros - 1]
    group = zeros // 4
    if group <= len(_LARGE_PLACES):
        return _LARGE_PLACES[group - 1]
    return _DIGITS["0"]  # too long for place names: read digit by digit, ending in 영


def _latin_final(text: str, end: int) -> _Final:
    start = end
    while start > 0 and _is_ascii_letter(text[start - 1]):
        start -= 1
    run = text[start : end + 1]
    lower = run.lower()
    if run[-1].isupper() or len(run) == 1 or not any(c in _ENGLISH_VOWELS + "y" for c in lower):
        return _LETTERS[run[-1].upper()]
    return _english_final(lower)


def _english_final(word: str) -> _Final:
    """Final consonant of the Korean transcription of a lower-case English word (see the table)."""
    if word in _WORD_EXCEPTIONS:
        return _WORD_EXCEPTIONS[word]
    for suffix, final in _SUFFIX_EXCEPTIONS:
        if word.endswith(suffix):
            return final
    last = word[-1]
    if last == "l":
        return _RIEUL
    if last in "mn" or word.endswith(("ng", "mb")):
        return _CONSONANT
    if last == "e":
        if len(word) >= 3 and word[-2] == "l":
            return _RIEUL
        if len(word) >= 3 and word[-2] in "mn":
            return _CONSONANT
        return _VOWEL
    if word.endswith("ck"):
        return _CONSONANT
    return _stop_final(word)


def _stop_final(word: str) -> _Final:
    coda_start = len(word)
    while coda_start > 0 and word[coda_start - 1] not in _ENGLISH_VOWELS + "y":
        coda_start -= 1
    coda = word[coda_start:]
    if coda not in _STOPS:
        return _VOWEL
    nucleus_start = coda_start
    while nucleus_start > 0 and word[nucleus_start - 1] in _ENGLISH_VOWELS:
        nucleus_start -= 1
    nucleus = word[nucleus_start:coda_start]
    if len(nucleus) > 1 and nucleus[0] == "u" and word[nucleus_start - 1 : nucleus_start] == "q":
        nucleus = nucleus[1:]  # the u of "qu" is a consonant: quit → 큇, equip → 이큅
    if len(nucleus) == 1 or nucleus + coda[0] in _LONG_VOWEL_STOP_EXCEPTIONS:
        return _CONSONANT
    return _VOWEL
