"""The test run's search memo, seeded before the tests need it (tests/conftest.py starts this
in a process of its own: `python -m tests.search_seed FOLDER`).

The stems of a word are a function of the word (render/search.py), so the memo's stems can be
found ahead of the builds: Kiwi analyses, once, every Korean word the tests' sources hold (the
demo, the test projects, the theme, the test files), with the forms the rendered pages give them
(split at Markdown's marks and at punctuation, HTML-escaped) and the dates and durations the
templates write. A word the seed missed is found by the build that meets it (and added to the
memo): the seed saves time, it decides nothing. The test processes then load Kiwi only for
such words; the seeding process holds the memo's lock until it is done (a build that asks
meanwhile waits for it).
"""

from __future__ import annotations

import html
import re
import sys
from collections.abc import Iterator
from pathlib import Path

from bipub.render.search_memo import SearchMemo

REPO = Path(__file__).resolve().parent.parent
SOURCES = ("content", "tests", "src/bipub", "templates", "static", "status", "glossary.yaml")
SUFFIXES = frozenset({".md", ".py", ".yaml", ".yml", ".html", ".po", ".txt", ".json", ".js"})
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_MARKS = re.compile(r"[*_`~\[\]{}<>|#\\]+")  # Markdown's and HTML's
_PUNCTUATION = re.compile(r"[*_`~\[\]{}<>|#\\\"'(),.:;!?/=]+")


def _cuts(token: str) -> set[str]:
    """The token cut at its marks and punctuation, each kept or not: what a page's text may
    hold of it once Markdown's marks became tags (`**캐시**를` → 캐시, 를; `(언어)` → 언어)).
    (A token of many marks, as a link's URL, is cut at those next to Hangul.)"""
    marks = [i for i, ch in enumerate(token) if not (ch.isalnum() or _HANGUL.match(ch))]
    # and where Hangul follows another letter or a digit (`%(date)s에` → 에)
    marks += [i for i in range(1, len(token)) if _HANGUL.match(token[i]) and token[i - 1].isascii()]
    if len(marks) > 8:  # (a URL's): those next to Hangul
        near = {i for i, ch in enumerate(token) if _HANGUL.match(ch)}
        marks = [i for i in marks if {i - 1, i + 1} & near][:8]
    starts = {0, *marks, *(i + 1 for i in marks)}
    ends = {len(token), *marks, *(i + 1 for i in marks)}
    return {token[i:j] for i in starts for j in ends if i < j}


def _sources() -> Iterator[Path]:
    for name in SOURCES:
        path = REPO / name
        if path.is_file():
            yield path
        elif path.is_dir():
            yield from (p for p in sorted(path.rglob("*")) if p.suffix in SUFFIXES and p.is_file())


def words() -> set[str]:
    """The Korean words to analyse ahead (a superset of what the tests' pages hold, mostly)."""
    found: set[str] = set()
    for path in _sources():
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for token in re.findall(r"\S+", text):
            if not _HANGUL.search(token):
                continue
            forms = {token, *_MARKS.split(token), *_PUNCTUATION.split(token), *_cuts(token)}
            forms |= {html.escape(f) for f in forms} | {html.escape(f, quote=False) for f in forms}
            found |= {f for f in forms if _HANGUL.search(f)}
    # dates and reading times, as the templates write them (render/locale_format.py)
    found |= {f"{n}일" for n in range(1, 32)} | {f"{n}월" for n in range(1, 13)}
    found |= {f"{n}분" for n in range(1, 121)} | {f"{n}년" for n in range(1990, 2040)}
    return found


def seed(folder: Path) -> None:
    """Analyse `words()` into the memo in `folder`. The memo is locked first, and "locked" is
    printed then (the test run waits for that line before it starts its test processes)."""
    # (the stamp's modules first: a few imports, so that the lock is taken early)
    from bipub.render.search_shards import search_stamp

    memo = SearchMemo(folder, search_stamp())
    with memo.locked():  # (builds that ask meanwhile wait)
        print("locked", flush=True)
        from bipub.render.search import Stemmer  # (Kiwi: the seconds of work)

        stemmer = Stemmer()
        stemmer(words())
        memo.add_stems(stemmer.known(), locked=True)
    for note in memo.notes:
        print(note, file=sys.stderr)
    if memo.notes:
        sys.exit(1)


if __name__ == "__main__":
    seed(Path(sys.argv[1]))
