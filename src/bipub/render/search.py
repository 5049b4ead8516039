"""The static search index of each language: Pagefind, with Korean stems from Kiwi.

    files = search_index(pages, lang)      # {"ko/pagefind/pagefind.js": b"...", ...}

`pages` are rendered pages (their site URL and HTML, in memory). Pagefind indexes what the page
marks `data-pagefind-body` (the theme marks a post's title, lead and body). English is stemmed by
Pagefind itself. Korean words carry particles and endings (캐시를, 캐시가, 비웠다): Pagefind
would index those surface forms only, so each Korean page is indexed from a copy in which Kiwi's
stems follow the words they come from, between ⟦ and ⟧ (`캐시를 ⟦캐시⟧`, `비웠다 ⟦비우다⟧`).
The published page is not changed; the search page's script (theme static/search.js) removes
the ⟦…⟧ from the excerpts it shows and strips particles from the words of a Korean query.

The index is a function of the pages: the same pages give the same bytes (Pagefind names its
files by content hash; pages are added in URL order).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Final, Protocol
from urllib.parse import unquote

from bipub.render.search_memo import SearchMemo

if TYPE_CHECKING:
    from kiwipiepy import Kiwi

BUNDLE: Final = "pagefind"  # the index's folder under /<lang>/
#: What the index leaves out of a page: formulas (render/mathml.py: MathML, whose characters in
#: a row are no words) and each heading's `¶` permalink (it showed in the results' excerpts).
EXCLUDED: Final = (".math", ".header-anchor")
OPEN, CLOSE = "⟦", "⟧"  # around the stems added to the indexing copy (static/search.js)
# Pagefind's own UIs and the highlighter: bipub's search page does not use them (~400 kB)
_UNUSED = re.compile(r"^pagefind-(?:component-ui|modular-ui|ui|highlight)\.(?:js|css)$")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_SPLIT = re.compile(r"(<[^>]*>)")
_WORD = re.compile(r"\S+")
_MARKED = re.compile(r"<[A-Za-z][^>]*\sdata-pagefind-body[\s>=/]")
_RAW = ("script", "style", "pre", "code", "textarea")  # text left as it is
# Kiwi's part-of-speech tags whose forms are indexed as stems (Sejong tag set)
_NOUNS: Final = frozenset({"NNG", "NNP", "NR", "SL", "SH", "XR"})
_VERBS: Final = frozenset({"VV", "VA", "VV-R", "VA-R", "VV-I", "VA-I"})
_ROOTS: Final = frozenset({"XR", "NNG", "MAG"})  # + 하 (XSA, XSV): 평평하다, 계산하다, 뾰족하다
_PLURAL: Final = frozenset({"들"})  # a suffix left out of a word's leading run


@dataclass(frozen=True)
class SearchPage:
    url: str  # the page's href (with the site's path prefix): what a result links to
    html: str  # the rendered page


def is_indexed(html: str) -> bool:
    """Does the page mark text for the index? (The theme marks posts and pages shown in their
    own language; a page showing another language's text until it is translated is left out.)"""
    return _MARKED.search(html) is not None


class _Token(Protocol):
    form: str
    tag: str
    start: int
    len: int


@lru_cache(maxsize=1)
def _kiwi() -> Kiwi:
    """The analyzer, loaded once per process: its model takes ~1 s to load and its first
    analysis ~2 s more, so `bipub serve` (a rebuild per save) and a process that builds several
    times load it once. It holds no state between analyses that changes their results."""
    from kiwipiepy import Kiwi  # numpy and the model: only for a site with Korean pages

    # Without the multi-word dictionary: it costs ~1.4 s of CPU to load and its first analysis,
    # and changed the stems of none of the 2,232 distinct Korean words of the demo and the test
    # projects (bench/RESULTS.md, "Search index").
    return Kiwi(load_multi_dict=False)


MEMO_WORDS: Final = 200_000  # stems remembered between builds (search_shards.py), at most


class Stemmer:
    """Kiwi, loaded once (it takes a second) and only when a Korean word not seen before is
    indexed. `known`: the stems found by earlier builds (each word's are analysed on their own,
    so they do not depend on the build that found them); `memo`: those that builds share
    (render/search_memo.py), asked before Kiwi is, and given what Kiwi found."""

    def __init__(
        self, known: dict[str, list[str]] | None = None, memo: SearchMemo | None = None
    ) -> None:
        self._kiwi: Kiwi | None = None
        self._known: dict[str, list[str]] = dict(known or {})  # word → its stems
        self._asked: set[str] = set()  # this build's words
        self._memo = memo
        self._memo_read = False

    def known(self) -> dict[str, list[str]]:
        """The stems to remember for the next build: all found so far, or this build's words
        only once they are more than MEMO_WORDS."""
        if len(self._known) <= MEMO_WORDS:
            return dict(self._known)
        return {w: self._known[w] for w in self._asked}

    def _analyzer(self) -> Kiwi:
        if self._kiwi is None:
            self._kiwi = _kiwi()
        return self._kiwi

    def __call__(self, words: Iterable[str]) -> dict[str, list[str]]:
        """Each Korean word's stems that are not the word itself (words without any: left out).

        Each distinct word is analysed once per build, on its own (so its stems do not depend on
        the pages around it): a site's vocabulary is far smaller than its text."""
        asked = set(words)
        self._asked |= asked
        new = sorted(w for w in asked if w not in self._known)
        if new and self._memo is not None and not self._memo_read:
            self._memo_read = True  # (read once a build: another build may add words meanwhile)
            shared = self._memo.stems()
            self._known.update((w, shared[w]) for w in new if w in shared)
            new = [w for w in new if w not in self._known]
        if new:
            results = self._analyzer().tokenize(new)
            for word, tokens in zip(new, results, strict=True):
                found = _word_stems(word, tokens)
                self._known[word] = found[0][1] if found else []
            if self._memo is not None:
                self._memo.add_stems({w: self._known[w] for w in new})
        return {w: self._known[w] for w in sorted(asked) if self._known.get(w)}


def _word_stems(text: str, tokens: Iterable[_Token]) -> list[tuple[int, list[str]]]:
    words = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(text)]
    found: dict[int, list[str]] = {}
    # word → end of its leading run of nouns (처리량이 → 처리량), with a prefix before them and
    # suffixes after them (재사용합니다 → 재사용, 적중률이 → 적중률; not the plural 들: 요청들이 → 요청)
    lead: dict[int, int] = {}
    nouns: set[int] = set()  # the words whose leading run holds a noun
    w = 0
    previous: tuple[int, str] | None = None  # (word, form) of a root that 하 can follow
    for tok in tokens:
        while w < len(words) and words[w][1] <= tok.start:
            w += 1
        if w == len(words) or tok.start < words[w][0]:
            continue
        start, end, word = words[w]
        stems = found.setdefault(w, [])
        in_run = lead.get(w, start) == tok.start  # (the token continues the word's leading run)
        if in_run and (
            tok.tag in _NOUNS
            or (tok.tag == "XPN" and tok.start == start)
            or (tok.tag == "XSN" and w in nouns and tok.form not in _PLURAL)
        ):
            lead[w] = tok.start + tok.len
            if tok.tag in _NOUNS:
                nouns.add(w)
        if tok.tag in _NOUNS:
            if len(tok.form) >= 2 or tok.tag == "SL":
                stems.append(tok.form)
        elif tok.tag in _VERBS:
            stems.append(tok.form + "다")  # the dictionary form: 비웠다 → 비우다
        elif tok.tag in ("XSA", "XSV"):
            if (
                in_run and w in nouns
            ):  # the whole run: 재사용합니다 → 재사용하다, 자동화된 → 자동화되다
                stems.append(text[start : tok.start] + tok.form + "다")
            if previous is not None and previous[0] == w:
                stems.append(previous[1] + tok.form + "다")  # 평평해진다 → 평평하다
        previous = (w, tok.form) if tok.tag in _ROOTS else None
    out = []
    for w, stems in sorted(found.items()):
        start, end, word = words[w]
        if w in nouns and lead[w] < end:
            stems.insert(0, text[start : lead[w]])
        # (not a Latin letter alone, p99는 → p, S를 → S: a query word no indexed word starts
        # with matches Pagefind's longest indexed prefix of it, and such stems made `part` find
        # and mark every "p"; a letter that starts its word is found by the word)
        kept = [
            s
            for s in dict.fromkeys(stems)
            if s and s != word and _HANGUL.search(s + word) and (len(s) > 1 or _HANGUL.match(s))
        ]
        if kept:
            out.append((end, kept))
    return out


def indexing_copies(pages: Sequence[SearchPage], stemmer: Stemmer) -> list[str]:
    """Each page's HTML with the stems of its Korean words added (as ⟦stems⟧ after each word)."""
    split = [_SPLIT.split(page.html) for page in pages]
    wanted: list[tuple[int, int]] = []  # (page, part) of the text parts with Hangul
    for p, parts in enumerate(split):
        raw = 0
        for i, part in enumerate(parts):
            if i % 2:  # a tag
                name = part[1:].lstrip("/").split(None, 1)[0].rstrip(">").lower() if part else ""
                if name in _RAW and not part.endswith("/>"):
                    raw += -1 if part.startswith("</") else 1
                    raw = max(raw, 0)
            elif not raw and _HANGUL.search(part):
                wanted.append((p, i))
    words = {m.group() for p, i in wanted for m in _WORD.finditer(split[p][i])}
    stems = stemmer(w for w in words if _HANGUL.search(w))

    def add_stems(m: re.Match[str]) -> str:
        found = stems.get(m.group())
        return f"{m.group()} {OPEN}{' '.join(found)}{CLOSE}" if found else m.group()

    for p, i in wanted:
        split[p][i] = _WORD.sub(add_stems, split[p][i])
    return ["".join(parts) for parts in split]


def search_index(
    pages: Sequence[SearchPage], lang: str, stemmer: Stemmer, memo: SearchMemo | None = None
) -> dict[str, bytes]:
    """The search bundle of one language's pages: {path under /<lang>/pagefind/: bytes}.
    `memo`: bundles made before, by a key of everything they are made of (search_memo.py)."""
    ordered = sorted(pages, key=lambda page: page.url)
    key = None
    if memo is not None and memo.folder is not None:
        made_by = f"{_binary_identity()} excluding {EXCLUDED}"  # (the command's options too)
        key = memo.bundle_key(lang, ((p.url, p.html) for p in ordered), made_by)
        kept = memo.bundle(key)
        if kept is not None:
            why = incomplete(kept) or _count_differs(kept, len(ordered))
            if not why:
                memo.hits += 1
                return kept
            memo.notes.append(f"search memo: a bundle for {lang} ignored ({why})")
    copies = indexing_copies(ordered, stemmer) if lang.split("-")[0] == "ko" else None
    htmls = copies if copies is not None else [page.html for page in ordered]
    job = list(zip((p.url for p in ordered), htmls, strict=True))
    why = ""
    for _ in range(ATTEMPTS):
        files = _pagefind(job, lang)
        why = incomplete(files)
        if not why:
            if memo is not None and key is not None:
                memo.keep_bundle(key, files)
            return files
    raise SearchIndexError(
        f"Pagefind wrote an incomplete search index for {lang} ({why}) {ATTEMPTS} times; "
        "nothing was published"
    )


ATTEMPTS: Final = 3
_REQUIRED: Final = ("pagefind.js", "pagefind-entry.json")


class SearchIndexError(RuntimeError):
    """Pagefind's bundle came out incomplete: the build stops rather than publish it."""


def incomplete(files: dict[str, bytes]) -> str:
    """What is wrong with a Pagefind bundle, or "" if nothing: under load its service has been
    seen to leave files empty (a 0-byte pagefind-entry.json or wasm file, with no error), which
    would publish a search page that finds nothing."""
    missing = [name for name in _REQUIRED if name not in files]
    if missing:
        return "no " + ", ".join(missing)
    empty = sorted(name for name, data in files.items() if not data)
    if empty:
        return "empty " + ", ".join(empty[:3]) + (" …" if len(empty) > 3 else "")
    try:
        entry = json.loads(files["pagefind-entry.json"])
    except ValueError as exc:
        return f"pagefind-entry.json is not JSON ({exc})"
    if not isinstance(entry, dict) or not entry.get("languages"):
        return "pagefind-entry.json names no language"
    return ""


def _executable() -> Path:
    from pagefind.service import get_executable  # (finds the binary; starts nothing)

    exe = get_executable()
    if exe is None:
        raise SearchIndexError(
            "Pagefind's binary is not installed (Python package pagefind_bin_extended)"
        )
    return exe


def _binary_identity() -> str:
    """What tells one Pagefind binary from another (a memo key's part): its package's version,
    its path, size and modification time."""
    from importlib.metadata import PackageNotFoundError, version  # (imports `email`, …)

    exe = _executable()
    st = os.stat(exe)
    try:
        release = version("pagefind-bin-extended")
    except PackageNotFoundError:
        release = "?"
    return f"{release}:{os.path.realpath(exe)}:{st.st_size}:{st.st_mtime_ns}"


def _count_differs(files: dict[str, bytes], pages: int) -> str:
    indexed = _page_count(files)
    return "" if indexed == pages else f"it holds {indexed} pages, not {pages}"


def _pagefind(pages: list[tuple[str, str]], lang: str) -> dict[str, bytes]:
    """Pagefind's bundle of `pages` (URL, HTML). The pages are written to a temporary folder and
    indexed from there by one run of Pagefind's command (the binary of the pagefind_bin_extended
    package). Adding them one by one through Pagefind's Python API costs ~0.1 s a page
    (bench/search_bench.py); its service also sleeps 0.1 s before it reads each answer, ~0.3 s
    a bundle of pure waiting, where the command takes ~0.05 s for the same files."""
    exe = _executable()
    with tempfile.TemporaryDirectory(prefix="bipub-search-") as tmp:
        site, out = Path(tmp) / "site", Path(tmp) / "bundle"
        for url, html in pages:
            rel = unquote(url).strip("/")
            if ".." in rel.split("/"):
                raise ValueError(f"search: refusing page URL {url!r}")
            path = site / rel / "index.html"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(html, encoding="utf-8")
        site.mkdir(exist_ok=True)
        # What is left out: `EXCLUDED`. Run in the empty temporary folder, without PAGEFIND_* variables: the command reads
        # its options from a pagefind.yml/.toml/.json there and from those variables too.
        env = {k: v for k, v in os.environ.items() if not k.startswith("PAGEFIND_")}
        args = ["--site", str(site), "--output-path", str(out), "--force-language", lang]
        proc = subprocess.run(
            [str(exe), *args, *(a for sel in EXCLUDED for a in ("--exclude-selectors", sel))],
            cwd=tmp,
            env=env,
            capture_output=True,
            text=True,
            errors="replace",
            check=False,
        )
        if proc.returncode != 0:
            said = " ".join((proc.stderr or proc.stdout).split())[-300:]
            raise SearchIndexError(
                f"Pagefind could not index the {len(pages)} pages of {lang} "
                f"(exit status {proc.returncode}): {said}"
            )
        files = {}
        for path in sorted(out.rglob("*")):
            rel = path.relative_to(out).as_posix()
            if path.is_file() and not _UNUSED.match(rel):
                files[rel] = path.read_bytes()
    indexed = _page_count(files)
    if indexed is not None and indexed != len(pages):
        raise SearchIndexError(f"Pagefind indexed {indexed} of {len(pages)} pages for {lang}")
    return files


def _page_count(files: dict[str, bytes]) -> int | None:
    """The pages a bundle holds, by its pagefind-entry.json (None: not readable; `incomplete`
    says what is wrong with it)."""
    try:
        languages = json.loads(files["pagefind-entry.json"])["languages"]
        return sum(int(language["page_count"]) for language in languages.values())
    except (KeyError, ValueError, TypeError, AttributeError):
        return None
