"""Where a bare URL in prose starts and ends: one rule for the drafter (translate/markdown_inline.py
keeps the URL out of what DeepL reads), QA (check/qa_facts.py compares the URLs of source and
translation) and the renderer (render/markdown_autolinks.py links them, as GitHub, GitLab and
Hugo do).

What is a bare URL — GitHub's autolink extension (https://github.github.com/gfm/#autolinks-extension-):

* `http://` or `https://` and a domain, `www.` and a domain with a dot, an e-mail address
  (`name@example.com`, also after `mailto:`); not glued to a letter or digit before it;
* it runs to white space or `<`; then trailing `? ! . , : * _ ~ ' " [ ]` are not part of it, nor
  a `)` without its `(` in the URL, nor an entity-like `&name;` at the end.

And one rule for Korean prose, where a particle (조사) is written glued to the word before it —
also to a URL: "자세한 내용은 https://docs.vllm.ai/en/latest/에서 확인한다." The particle is not part
of the URL: when what ends the URL (after the trimming above) is a run of Hangul that is exactly
one of `PARTICLES`, glued to a character that is not Hangul (`/`, a letter, a digit, `)`…), the
URL ends before it (and the trimming is done again: "(https://example.com)에서").

A URL whose path is Hangul stays whole: https://ko.wikipedia.org/wiki/트랜스포머. When its last
Hangul run is longer than a particle but ends with one (`…/wiki/트랜스포머를`: the page
"트랜스포머" and 를, or a page of that name?) the URL is kept whole, as GitHub reads it, and
`BareUrl.ambiguous` says so (for one of the `TELLING` particles: not for `…/wiki/고양이`): the
author can write `<https://…>`, or a space before the particle.
"""

from __future__ import annotations

import re
import string
import unicodedata
from dataclasses import dataclass
from typing import Final

#: Particles (and particle + copula endings) that are cut off the end of a bare URL. Case and
#: topic particles with their combinations, and the copula forms written after a noun: the words
#: a Korean sentence glues to a URL ("…에서 확인한다", "…를 참고", "…이다."). A Hangul run at the
#: end of a URL that is exactly one of these is a particle (see the module's docstring).
PARTICLES: Final[frozenset[str]] = frozenset(
    {
        # 이/가, 을/를, 은/는, 의, 와/과, 이나/나, 이랑/랑, 으로/로 (render/josa.py's pairs and more)
        *("이", "가", "을", "를", "은", "는", "의", "와", "과", "이나", "나", "이랑", "랑"),
        *("으로", "로", "으로는", "로는", "으로도", "로도", "으로만", "로만", "으로의", "로의"),
        *("에", "에서", "에게", "에는", "에도", "에만", "에서는", "에서도", "에서만", "에서의"),
        *("에서부터", "와는", "과는", "와의", "과의", "와도", "과도", "도", "만", "만은", "만이"),
        *("까지", "까지는", "까지도", "부터", "부터는", "처럼", "보다", "마다", "조차", "밖에"),
        # the copula after a noun: 이다, 입니다, 이에요/예요, 이라는/라는, 이라고/라고, 인…
        *("이다", "입니다", "이에요", "예요", "이야", "이고", "이며", "이면", "인", "인데"),
        *("이라", "라", "이라는", "라는", "이라고", "라고", "이란", "란", "이지만", "였다"),
        *("이었다", "이었고"),
    }
)

#: The particles that tell: a Hangul run longer than one of these, ending with it, is ambiguous
#: (`BareUrl.ambiguous`). Not the one-syllable 이 가 도 의 로 와 과 나 만 인 라 란 (nor 이나),
#: which end many nouns (고양이, 차이나): `…/wiki/고양이` is not said.
TELLING: Final[frozenset[str]] = frozenset(
    p for p in PARTICLES if (len(p) > 1 and p != "이나") or p in ("을", "를", "은", "는", "에")
)

_PREFIXES: Final = ("http://", "https://", "www.", "mailto:")
#: Characters a URL may not be glued to (before it): then it is part of a longer word.
_GLUED: Final = frozenset(string.ascii_letters + string.digits + "._-+@")
_SPACE: Final = frozenset(" \t\r\n\v\f\x00")
_TRAILING: Final = frozenset("?!.,:*_~'\"[]")
_ENTITY_END: Final = re.compile(r"&[A-Za-z0-9]+;$")
_EMAIL_LOCAL: Final = re.compile(r"[A-Za-z0-9.+\-_]+@")
_EMAIL_DOMAIN: Final = re.compile(r"[A-Za-z0-9\-_]+(?:\.[A-Za-z0-9\-_]+)+")


@dataclass(frozen=True)
class BareUrl:
    start: int
    end: int
    text: str  # as written (text[start:end])
    href: str  # what it links to: `http://` before `www.`, `mailto:` before an address
    ambiguous: bool = False  # ends in Hangul that may be a particle: kept whole (see above)


def is_hangul(ch: str) -> bool:
    return "\uac00" <= ch <= "\ud7a3"


def _domain(text: str, pos: int, stop: int, short: bool) -> bool:
    """GFM's domain check at text[pos:]: letters, digits, `-`, `_` and `.` up to the first other
    punctuation or space; no `_` in its last two labels; a dot in it unless `short`."""
    dots = under_last = under_this = 0
    i = pos
    while i < stop:
        ch = text[i]
        if ch == "_":
            under_this += 1
        elif ch == ".":
            under_last, under_this, dots = under_this, 0, dots + 1
        elif ch in _SPACE or ch == "<" or (ch != "-" and unicodedata.category(ch)[0] == "P"):
            break
        i += 1
    if i == pos or under_last or under_this:
        return False
    return short or dots > 0


def _trim(text: str, start: int, end: int) -> int:
    """GFM's trailing-punctuation rule (`autolink_delim`) on text[start:end]."""
    while end > start:
        ch = text[end - 1]
        if ch in _TRAILING:
            end -= 1
        elif ch == ";":
            m = _ENTITY_END.search(text, start, end)
            end = m.start() if m else end - 1
        elif ch == ")" and text.count(")", start, end) > text.count("(", start, end):
            end -= 1
        else:
            break
    return end


def _end(text: str, start: int, stop: int, body: int) -> tuple[int, bool]:
    """The end of a URL starting at `start` whose domain starts at `body`, and whether it ends in
    a Hangul run that may hold a particle (kept)."""
    end = start
    while end < stop and text[end] not in _SPACE and text[end] != "<":
        end += 1
    end = _trim(text, start, end)
    run = end
    while run > body and is_hangul(text[run - 1]):
        run -= 1
    word = text[run:end]
    if word in PARTICLES and run > body:
        return _trim(text, start, run), False
    return end, bool(word) and any(word.endswith(p) for p in TELLING)


def _email(text: str, start: int, stop: int) -> int | None:
    local = _EMAIL_LOCAL.match(text, start, stop)
    if local is None:
        return None
    domain = _EMAIL_DOMAIN.match(text, local.end(), stop)
    if domain is None:
        return None
    end = domain.end()
    while text[end - 1] in "-_":  # (not the last character of an address)
        end -= 1
    labels = text[local.end() : end].split(".")
    # a name with a dot, its last label with a letter: `vllm@0.6.3` is a package, not an address
    return end if len(labels) > 1 and re.search("[A-Za-z]", labels[-1]) else None


def url_at(text: str, start: int, stop: int | None = None) -> BareUrl | None:
    """The bare URL starting at text[start] (and ending by `stop`), if one does."""
    stop = len(text) if stop is None else stop
    if start > 0 and text[start - 1] in _GLUED:
        return None
    ch = text[start : start + 1]
    if ch in ("h", "w"):
        for prefix in _PREFIXES[:3]:
            if text.startswith(prefix, start, stop):
                body = start + len(prefix)
                if not _domain(text, body, stop, short=prefix != "www."):
                    return None
                end, ambiguous = _end(text, start, stop, body)
                if end <= body:
                    return None
                written = text[start:end]
                href = "http://" + written if prefix == "www." else written
                return BareUrl(start, end, written, href, ambiguous)
    if ch == "m" and text.startswith("mailto:", start, stop):
        last = _email(text, start + len("mailto:"), stop)
        return None if last is None else BareUrl(start, last, text[start:last], text[start:last])
    if ch and ((ch.isascii() and ch.isalnum()) or ch in ".+-_"):
        last = _email(text, start, stop)
        if last is not None:
            written = text[start:last]
            return BareUrl(start, last, written, "mailto:" + written)
    return None


#: Where a bare URL may start (an address's name only where a run of its characters starts:
#: one try per run, not one per character of a long word).
_CANDIDATE: Final = re.compile(r"https?://|www\.|mailto:|(?<![A-Za-z0-9.+\-_])[A-Za-z0-9.+\-_]+@")


def bare_urls(text: str) -> list[BareUrl]:
    """Every bare URL of a text, in order."""
    found: list[BareUrl] = []
    pos = 0
    while True:
        m = _CANDIDATE.search(text, pos)
        if m is None:
            return found
        url = url_at(text, m.start())
        if url is None:
            pos = m.start() + 1
        else:
            found.append(url)
            pos = url.end
