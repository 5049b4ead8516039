"""The lexicon of a search index: how the search page reads a query word as the index did.

    files, names = lexicon(words_of(bundle_files) for each shard)   # {"words/0-1a2b….json": …}

The Korean pages are indexed with Kiwi's stems after each word (render/search.py: `올랐습니다
⟦오르다⟧`), but a query is read in the browser, where Kiwi is not. So each build writes, beside
the index, the words it holds and what to ask Pagefind for each (static/search.js):

- `w`: each Korean word of the indexed text (as Pagefind indexed it: punctuation left out) and
  each stem → the *term* to search for it: its first stem when that is the word's leading noun
  run or a dictionary form (`적중률이` → `적중률`, `올랐습니다` → `오르다`, `재사용합니다` →
  `재사용`), else "" (the word itself: `재사용`, `캐시`);
- `b`: each word's *base*, the word without a common ending (`ENDINGS`; `base`, as the page
  does with the table each build writes into shards.json: `table`): `올랐습니다` and `올랐다`
  → `올랐`, `재사용합니다` and `재사용했습니다` → `재사용`, and each stem's without 다 (`오르다` → `오르`, the base of
  `오릅니다` and `오른다`) → the term of the words with that base (a base whose words have
  different terms is left out: it cannot be read);
- `n`: the one-syllable noun stems (책): a query word stripped down to one syllable is read as
  a noun only if it is one of them;
- `l`: the leading runs of ASCII letters and digits of the indexed words and stems, in lower
  case (`GPU가 ⟦GPU⟧`, `k8s` → `gpu`, `k8s`): a query word such as `GPU가` or `API에서는` (a
  Latin run and particles) is asked as its run, if an indexed word starts with it (session 34).

Every language's index has one (session 34). The English index's holds its Latin words (`l`)
only: the English page asks a query word if a word of the index starts with it, or if Pagefind's
exact search for it finds a page (its stem is a word of the index; static/search.js
`readStemmed`), and names it as left out otherwise (asked, Pagefind matched `kubernetes` to the
letter `k`).

The words are read from the bundles Pagefind wrote (each page's fragment holds the text it
indexed, stems included: `words_of`), so the lexicon is a function of the index: kept shards,
memo hits and new shards alike, and the same index gives the same bytes. Pagefind also indexes
the description (alt) of each image of the indexed text, which no fragment holds: `alt_words`
reads them from a shard's pages when it is made (render/search_shards.py keeps them in its
record for the shards a build keeps). It is split by each word's first
syllable (`shard_of`, of a power of two of files) so that a query fetches only
the files of its words' first syllables; the files are named by their content's digest.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from html.parser import HTMLParser
from typing import Final

FOLDER: Final = "words"  # under /<lang>/pagefind/
SHARD_BYTES: Final = 24_000  # a lexicon file's size the split aims under (before compression)
MAX_FILES: Final = 256
OPEN, CLOSE = "⟦", "⟧"  # (render/search.py)
_KEY = re.compile(r"^[\uac00-\ud7a3]+$")
_LATIN = re.compile(r"^[A-Za-z0-9]+")  # a word's leading ASCII letters and digits (GPU가: GPU)
_NOT_WORD = re.compile(r"[\W_]+")

#: The particles taken off a query word (캐시를 → 캐시, GPU가 → GPU): static/search.js reads them
#: from shards.json (`table`), where each build writes them; the page holds no copy.
PARTICLES: Final = (
    "에서부터", "으로부터", "이라고", "에게서", "한테서", "으로서", "으로써",
    "께서", "에서", "에게", "한테", "으로", "까지", "부터", "처럼", "보다", "이나", "이랑",
    "마다", "조차", "밖에", "라고", "로서", "로써", "이다", "입니다",
    "은", "는", "이", "가", "을", "를", "의", "에", "로", "와", "과", "도", "만",
)  # fmt: skip

#: Endings taken off a word to find its base (`base`; static/search.js reads them from
#: shards.json, `table`). A 하다/되다 verb's ending goes whole, down to its noun (재사용했습니다
#: → 재사용); another verb keeps its stem's last syllable, where the tense is (올랐습니다, 올랐다
#: → 올랐).
ENDINGS: Final = (
    "했었습니다", "되었습니다", "시켰습니다",
    "했습니다", "됐습니다", "했었다", "되었다", "되었고", "되었던", "되어서", "시킵니다",
    "시켰다", "하려면", "하려고", "되도록", "했지만", "했는데", "했으며", "했으나", "했어요",
    "됐지만", "됐어요", "하지만", "되지만", "하는데", "되는데", "합니다", "합니까", "됩니다",
    "했다", "했고", "했던", "했을", "했죠", "했어", "했음", "한다", "하는", "하고", "하지",
    "하면", "하며", "하여", "해서", "해야", "해요", "해도", "하기", "하게", "하던", "하니",
    "하다", "됐다", "됐고", "됐던", "된다", "되는", "되고", "되지", "되면", "되며", "되어",
    "돼서", "돼요", "되기", "되게", "되던", "되다", "시킨다", "시키는", "시키고", "시킨",
    "습니다", "습니까", "니다", "니까", "는데", "지만", "으며", "으면", "어서", "아서", "어요",
    "아요", "어도", "아도", "다고", "다는", "다면", "다며", "다가",
    "한", "할", "함", "된", "될", "됨", "다", "고", "며", "면", "지", "죠", "던", "요",
)  # fmt: skip
_BY_LENGTH: Final = sorted(ENDINGS, key=len, reverse=True)


def table() -> dict[str, list[str]]:
    """The particles and endings, longest first, as shards.json gives them to the search page
    (static/search.js reads a query word with them, as `base` does here): their one source."""
    return {
        "particles": sorted(PARTICLES, key=len, reverse=True),
        "endings": list(_BY_LENGTH),
    }


_FINAL_N, _FINAL_B = 4, 17  # a syllable's final consonant ㄴ, ㅂ (its code point's remainder)


def base(word: str) -> str:
    """The word without its longest ending of `ENDINGS` that leaves a syllable ("" if none),
    and without the final ㅂ of ㅂ니다 or ㄴ of ㄴ다, which belong to the ending (오릅니다,
    오른다 → 오르: the base of 오르고, 오르면 and of the stem 오르다)."""
    for ending in _BY_LENGTH:
        if len(word) > len(ending) and word.endswith(ending):
            found = word[: -len(ending)]
            last = ord(found[-1]) - 0xAC00
            final = last % 28 if 0 <= last < 11172 else 0
            if (final == _FINAL_B and ending in ("니다", "니까")) or (
                final == _FINAL_N and ending == "다"
            ):
                found = found[:-1] + chr(0xAC00 + last - final)
            return found
    return ""


def shard_of(word: str, count: int) -> int:
    """The lexicon file of a word, of `count`: by its first syllable's initial consonant and
    vowel (its code point's own remainder is uneven: most syllables have no final consonant,
    28 of them to each initial and vowel); a Latin run's (`l`) by its first character's code."""
    code = ord(word[0])
    return ((code - 0xAC00) // 28 if 0xAC00 <= code <= 0xD7A3 else code) % count


def term(word: str, stems: list[str]) -> str:
    """What to search for `word` (a key of the lexicon): its first stem when that is its leading
    noun run (a prefix of it) or a dictionary form (…다), else "" (the word itself)."""
    if stems and (word.startswith(stems[0]) or stems[0].endswith("다")):
        return stems[0] if stems[0] != word else ""
    return ""


def _keys(token: str) -> list[str]:
    """The Korean words, and the words that start with an ASCII letter or digit (GPU, GPU가),
    Pagefind indexes for a word of the text: the word without punctuation, and its parts when
    punctuation splits it (캐시-히트: 캐시히트, 캐시, 히트)."""
    parts = [p for p in _NOT_WORD.split(token) if p]
    found = ["".join(parts), *parts] if len(parts) > 1 else parts
    return [k for k in dict.fromkeys(found) if _KEY.match(k) or _LATIN.match(k)]


def words_of(files: Mapping[str, bytes]) -> dict[str, list[str]]:
    """The Korean words (and those led by a Latin run: `_keys`) of a Pagefind bundle's pages (its
    fragments' text) → their stems (render/search.py's, read back from between ⟦ and ⟧ after
    each word)."""
    found: dict[str, list[str]] = {}
    for name in sorted(files):
        if not name.startswith("fragment/"):
            continue
        data = gzip.decompress(files[name]).removeprefix(b"pagefind_dcd")
        content = json.loads(data).get("content", "")
        _read(str(content), found)
    return found


#: Elements whose text Pagefind leaves out (its own list, and render/search.py's EXCLUDED)
_SKIPPED: Final = frozenset({"svg", "form", "nav", "script", "style", "template", "noscript"})
_SKIPPED_CLASSES: Final = frozenset({"math", "header-anchor"})  # (render/search.py EXCLUDED)
_VOID: Final = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)


class _Alts(HTMLParser):
    """The descriptions (alt) of the images a page offers to the index: in an element marked
    `data-pagefind-body`, not in one Pagefind or bipub leaves out."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._open: list[tuple[str, bool, bool]] = []  # (tag, marks the body, is left out)
        self._body = self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "img":
            if self._body and not self._skip and named.get("alt"):
                self.found.append(named["alt"] or "")
            return
        if tag in _VOID:
            return
        body = "data-pagefind-body" in named
        classes = set((named.get("class") or "").split())
        skip = (
            tag in _SKIPPED or "data-pagefind-ignore" in named or bool(classes & _SKIPPED_CLASSES)
        )
        self._open.append((tag, body, skip))
        self._body += body
        self._skip += skip

    def handle_endtag(self, tag: str) -> None:
        if tag not in {t for t, _, _ in self._open}:
            return
        while self._open:
            name, body, skip = self._open.pop()
            self._body -= body
            self._skip -= skip
            if name == tag:
                return


def alt_words(pages: Iterable[str]) -> list[str]:
    """The Korean words (and Latin-led ones: `_keys`) of the image descriptions of `pages` (their
    HTML), sorted: Pagefind indexes an image's alt, but its fragment's text (`words_of`) does
    not hold it."""
    found: set[str] = set()
    for html in pages:
        parser = _Alts()
        parser.feed(html)
        parser.close()
        found.update(k for alt in parser.found for token in alt.split() for k in _keys(token))
    return sorted(found)


def _read(content: str, found: dict[str, list[str]]) -> None:
    tokens = content.split()
    last: list[str] = []  # the keys of the word before
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.startswith(OPEN):  # the stems of the word before, up to ⟧
            group = [token[len(OPEN) :]]
            while not group[-1].endswith(CLOSE) and i + 1 < len(tokens):
                i += 1
                group.append(tokens[i])
            group[-1] = group[-1].removesuffix(CLOSE)
            stems = [s for s in group if s]
            for key in last[:1]:  # (the whole word's stems; not its parts')
                if not found.get(key):
                    found[key] = stems
            last = []
        else:
            last = _keys(token)
            for key in last:
                found.setdefault(key, [])
        i += 1


def lexicon(shards: Iterable[Mapping[str, list[str]]]) -> dict[str, bytes]:
    """The lexicon's files ({"words/<n>-<digest>.json": bytes}, in the order of n) of the words
    of every shard of one language's index."""
    every: dict[str, list[str]] = {}  # (Korean words, and words that start with a Latin run)
    for shard in shards:
        for word, stems in shard.items():
            if stems or word not in every:
                every[word] = stems
    # the leading ASCII runs of the indexed words and stems (GPU가 ⟦GPU⟧, k8s: gpu, k8s), as
    # Pagefind indexes them (lower case): a query word such as GPU가 is asked as its run only
    # if an indexed word starts with it (static/search.js `latinStem`)
    latin = {m.group().lower() for w in every if (m := _LATIN.match(w))}
    latin |= {m.group().lower() for ss in every.values() for s in ss if (m := _LATIN.match(s))}
    words = {w: stems for w, stems in every.items() if _KEY.match(w)}
    surface = set(words)
    for stems in every.values():  # the stems are indexed words too (⟦오르다⟧, GPU메모리 ⟦메모리⟧)
        for stem in stems:
            if _KEY.match(stem):
                words.setdefault(stem, [])
    terms = {w: term(w, s) for w, s in sorted(words.items())}
    bases: dict[str, set[str]] = {}
    for word, found in terms.items():
        # a stem's base is it without 다 (오르다 → 오르; 재사용하다 → 재사용하, not 재사용:
        # the noun's own words say what 재사용 is read as)
        b = base(word) if word in surface else word[:-1] if word.endswith("다") else ""
        if b:
            bases.setdefault(b, set()).add(found or word)
    # a one-syllable noun stem: 책 (책을 ⟦책⟧); not a one-syllable word without stems (재)
    nouns = sorted({s for stems in every.values() for s in stems if len(s) == 1 and _KEY.match(s)})
    entries: list[tuple[str, str, object]] = [("w", w, t) for w, t in terms.items()]
    entries += [("b", b, next(iter(t))) for b, t in sorted(bases.items()) if len(t) == 1]
    entries += [("n", s, 1) for s in nouns]
    entries += [("l", run, 1) for run in sorted(latin)]
    size = sum(len(k.encode()) + len(str(v).encode()) + 6 for _, k, v in entries)
    count = 1
    while count < MAX_FILES and size / count > SHARD_BYTES:
        count *= 2
    split: list[dict[str, dict[str, object]]] = [
        {"w": {}, "b": {}, "n": {}, "l": {}} for _ in range(count)
    ]
    for kind, key, value in entries:
        split[shard_of(key, count)][kind][key] = value
    files = {}
    for n, part in enumerate(split):
        data = json.dumps(
            {"w": part["w"], "b": part["b"], "n": sorted(part["n"]), "l": sorted(part["l"])},
            ensure_ascii=False,
            separators=(",", ":"),
            sort_keys=True,
        ).encode("utf-8")
        files[f"{FOLDER}/{n}-{hashlib.sha256(data).hexdigest()[:10]}.json"] = data
    return files
