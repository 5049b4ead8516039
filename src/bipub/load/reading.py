"""The reading time of a text, in whole minutes (a loaded Document keeps it: load/content.py).

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
from functools import lru_cache
from itertools import filterfalse
from typing import Final

KO_CHARS_PER_MINUTE: Final = 500
EN_WORDS_PER_MINUTE: Final = 220
CODE_WEIGHT: Final = 0.5

# bipub language code (normalised: lower case, '-') → (Babel locale identifier, base language)
LANGUAGES: Final[dict[str, tuple[str, str]]] = {
    "ko": ("ko_KR", "ko"),
    "ko-kr": ("ko_KR", "ko"),
    "en": ("en_US", "en"),
    "en-us": ("en_US", "en"),
}

_HANGUL: Final = re.compile(r"[\uac00-\ud7a3]")
_LATIN_LETTER: Final = r"A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
_LATIN_WORD: Final = re.compile(rf"[{_LATIN_LETTER}]+(?:['’\-][{_LATIN_LETTER}]+)*")
_WORDLIKE: Final = re.compile(r"[^\W_]")
_FENCE_OPEN: Final = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
# every ASCII character that is neither a letter or digit (`_WORDLIKE` on ASCII: [A-Za-z0-9])
# nor whitespace (str.split's): deleted from an ASCII text, it leaves of each token its letters
# and digits, so the tokens that had none vanish and the others stay apart (`_minutes`)
_ASCII_NOT_WORDLIKE: Final = dict.fromkeys(
    c for c in range(128) if not chr(c).isalnum() and not chr(c).isspace()
)


def reading_minutes(text: str, lang: str) -> int:
    """Estimated reading time of `text` in whole minutes, at least 1 (see the module docstring)."""
    base = language(lang)[1]
    prose, code = _split_fenced_code(text)
    minutes = _minutes(prose, base) + CODE_WEIGHT * _minutes(code, base)
    return max(1, math.floor(minutes + 0.5))


def language(lang: str) -> tuple[str, str]:
    key = lang.strip().replace("_", "-").lower() if isinstance(lang, str) else None
    if key is None or key not in LANGUAGES:
        known = ", ".join(sorted({"ko", "ko-KR", "en", "en-US"}))
        raise ValueError(f"unknown language {lang!r}; bipub formats {known}")
    return LANGUAGES[key]


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
    if text.isascii():  # (a flag: no Hangul; each token a word if it has a letter or digit)
        return len(text.translate(_ASCII_NOT_WORDLIKE).split()) / EN_WORDS_PER_MINUTE
    has_hangul = _HANGUL.search(text) is not None
    rest, hangul = _HANGUL.subn(" ", text) if has_hangul else (text, 0)
    tokens = rest.split()  # str.split's whitespace is re's \s
    # a token is a word if it has a letter or digit (`_WORDLIKE`; '_' is no letter; a token of
    # bare punctuation is none): the all-alphanumeric ones, most of them, are told apart at C
    # speed (str.isalnum is re's [^\W_] on each character); only the others are searched
    search = _WORDLIKE.search
    words = len(tokens) - sum(1 for t in filterfalse(str.isalnum, tokens) if not search(t))
    return hangul / KO_CHARS_PER_MINUTE + words / EN_WORDS_PER_MINUTE


@lru_cache(maxsize=64)
def _closing(fence: str) -> re.Pattern[str]:
    """What closes a fence opened by `fence`: the same character, at least as many times, with
    up to three spaces before and spaces or tabs after."""
    return re.compile(rf" {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*")


def _split_fenced_code(text: str) -> tuple[str, str]:
    """(prose, contents of fenced code blocks), each as lines joined by newlines.

    Only a line with three backticks or tildes in a row can open or close a fence (an opening
    fence is at least three of one of them, a closing one at least as long as its opening
    one): the other lines are taken in slices, between those."""
    lines = text.splitlines()
    if "```" not in text and "~~~" not in text:
        return "\n".join(lines), ""
    prose: list[str] = []
    code: list[str] = []
    closing: re.Pattern[str] | None = None  # while in a fence: what closes it
    start = 0  # the first line not yet taken
    for i in [i for i, line in enumerate(lines) if "```" in line or "~~~" in line]:
        line = lines[i]
        if closing is None:
            opened = _FENCE_OPEN.match(line)
            if opened and not (opened[1][0] == "`" and "`" in opened[2]):
                closing = _closing(opened[1])
                prose.extend(lines[start:i])
                start = i + 1
        elif closing.fullmatch(line):
            code.extend(lines[start:i])
            closing = None
            start = i + 1
    (prose if closing is None else code).extend(lines[start:])
    return "\n".join(prose), "\n".join(code)
