"""The search index of a whole site, in shards a build can keep (issue 19, issue 17's edit times).

Pagefind cannot update one page of an index: a bundle is made from all of its pages. So each
language's indexed pages are split into shards by a hash of their URL (one shard up to
`outputs.search_shard_pages` pages, then 2, 4, 8 … shards, so a page stays in its shard while
the site grows within a power of two), and each shard is its own Pagefind bundle under
/<lang>/pagefind/<n>/. The search page's script (theme static/search.js) reads
/<lang>/pagefind/shards.json, opens the first bundle and merges the others (Pagefind's
`mergeIndex`: one result list, sorted by score). Each index also gets its lexicon, listed in
shards.json as `words` (render/search_words.py: how the search page reads a query word; the
English one holds the index's Latin words only), made each build from every shard's fragments
and images' descriptions, and says whether Pagefind stems it (`stemmed`: not the Korean one).

A build makes again only the shards whose pages changed. What the last build indexed is kept in
a signed record in the project's cache folder, one per output folder (`SearchRecord`): each
page's file identity (inode, size, mtime: a page kept by the build is the same file; a page
rendered again is a new file) and whether it is indexed, each shard's key (its pages and their
identities, the tool versions) and the identities of its published files, and the Korean stems
found so far (so that an edit that brings no new word does not load Kiwi). A shard is carried
over only if its key is the same and every one of its published files is still the file the
record names; anything else (no record, another bipub, a damaged or planted record, a file
changed by hand, `--no-cache`) makes it again, which gives the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from bipub.cache import UNREADABLE, load_signed, save_signed
from bipub.diagnostics import Collector, Diagnostic, DiagnosticError, Severity
from bipub.render.search import (
    BUNDLE,
    SearchIndexError,
    SearchPage,
    Stemmer,
    is_indexed,
    search_index,
)
from bipub.render.search_memo import ENV, SearchMemo
from bipub.render.search_words import alt_words, lexicon, table, words_of
from bipub.write.output import OutputFile, OutputTree

SHARDS_FILE: Final = "shards.json"  # under /<lang>/pagefind/: the bundles to search
RECORD_FORMAT: Final = 4  # 2: the image descriptions of each shard (session 33); 3: their
# words that start with a Latin letter or digit too (session 34); 4: every language's (session
# 34: the English index has a lexicon too)
Ident = tuple[int, int, int]  # (inode, size, mtime_ns) of a file


def shard_count(pages: int, per_shard: int) -> int:
    """1 shard up to `per_shard` pages, then the least power of two that keeps shards that size."""
    count = 1
    while pages > count * per_shard:
        count *= 2
    return count


def shard_of(url: str, count: int) -> int:
    return int.from_bytes(hashlib.sha256(url.encode("utf-8")).digest()[:8], "big") % count


def _tool_versions() -> tuple[str, ...]:
    """The versions of what makes the index, with the digest of the stemming rules' source."""
    from importlib.metadata import PackageNotFoundError, version  # (imports `email`, …)

    rules = Path(__file__).with_name("search.py").read_bytes()
    found = [hashlib.sha256(rules).hexdigest()[:16]]
    for dist in ("pagefind", "pagefind-bin-extended", "kiwipiepy", "kiwipiepy-model"):
        try:
            found.append(f"{dist}={version(dist)}")
        except PackageNotFoundError:
            found.append(f"{dist}=?")
    return tuple(found)


def search_stamp() -> tuple[object, ...]:
    """What every kept part of the index depends on besides its pages: the record's format,
    the stemming rules and the tools' versions (the record's and the search memo's stamp)."""
    return (RECORD_FORMAT, *_tool_versions())


def _ident(st: os.stat_result) -> Ident:
    return (st.st_ino, st.st_size, st.st_mtime_ns)


@dataclass
class SearchRecord:
    """What the last build indexed into one output folder (see the module docstring)."""

    stamp: tuple[object, ...] = ()
    pages: dict[str, tuple[Ident, bool]] = field(
        default_factory=dict
    )  # page path → (file, indexed)
    shards: dict[str, tuple[str, dict[str, Ident]]] = field(
        default_factory=dict
    )  # lang/n → key, files
    stems: dict[str, list[str]] = field(default_factory=dict)  # Korean word → its stems
    # lang/n → the Korean (and Latin-led) words of its images' descriptions (alt): Pagefind
    # indexes them, but its fragments, which the lexicon is read from, do not hold them
    # (render/search_words.py)
    alts: dict[str, list[str]] = field(default_factory=dict)

    @staticmethod
    def path(cache: Path, out: Path) -> Path:
        name = hashlib.sha256(str(out.absolute()).encode("utf-8")).hexdigest()[:16]
        return cache / f"search-{name}.pickle"

    @classmethod
    def load(cls, path: Path | None, stamp: tuple[object, ...]) -> SearchRecord:
        if path is None or not path.is_file():
            return cls(stamp)
        try:
            data = load_signed(path)
        except UNREADABLE:  # made again: a record is never trusted unless signed and whole
            return cls(stamp)
        if not isinstance(data, SearchRecord) or data.stamp != stamp:
            return cls(stamp)
        return data


@dataclass
class _Page:
    path: str  # in the output tree
    href: str  # what a result links to
    ident: Ident


def index_site(
    tree: OutputTree,
    folder: Path,
    paths: Iterable[str],
    langs: Iterable[str],
    href: Callable[[str], str],
    per_shard: int,
    record_path: Path | None,
    collector: Collector,
) -> list[str]:
    """Write each language's search shards (made again or carried over) and shards.json into
    `tree`. `folder` holds the pages (`paths`: every file of the build, relative to it);
    `href` turns a page's path into its site URL. Returns what it did, one line a language
    (for -v); a record that cannot be saved is a warning in `collector` (`search-record`)."""
    stamp = search_stamp()
    old = SearchRecord.load(record_path, stamp)
    new = SearchRecord(stamp, stems=old.stems)
    memo = SearchMemo.from_env(stamp)
    stemmer = Stemmer(old.stems, memo)
    every = sorted(paths)
    said = []
    for lang in langs:
        pages: list[_Page] = []
        texts: dict[str, str] = {}  # the pages read this build
        for rel in every:
            if not (rel.startswith(f"{lang}/") and rel.endswith("index.html")):
                continue
            if rel.split("/")[1] in (BUNDLE, "api"):
                continue
            ident = _ident(os.stat(folder / rel))
            before = old.pages.get(rel)
            if before is not None and before[0] == ident:
                indexed = before[1]
            else:
                texts[rel] = (folder / rel).read_text("utf-8")
                indexed = is_indexed(texts[rel])
            new.pages[rel] = (ident, indexed)
            if indexed:
                pages.append(_Page(rel, href(rel[: -len("index.html")]), ident))
        count = shard_count(len(pages), per_shard)
        groups: dict[int, list[_Page]] = {}
        for page in pages:
            groups.setdefault(shard_of(page.href, count), []).append(page)
        bundles, made = [], 0
        korean = lang.split("-")[0] == "ko"
        shard_words: list[dict[str, list[str]]] = []  # each shard's Korean words → stems
        for n in sorted(groups):
            members = sorted(groups[n], key=lambda page: page.href)
            name = f"{lang}/{n}"
            key = hashlib.sha256(
                repr((stamp, lang, count, n, [(p.href, p.ident) for p in members])).encode()
            ).hexdigest()
            prefix = f"{lang}/{BUNDLE}/{n}/"
            files = _carried(tree, old.shards.get(name), key, prefix, lang, name in old.alts)
            alts = old.alts.get(name, [])
            if files is None:
                made += 1
                shard = [
                    SearchPage(p.href, texts.get(p.path) or (folder / p.path).read_text("utf-8"))
                    for p in members
                ]
                alts = alt_words(page.html for page in shard)
                files = {}
                try:
                    bundle = search_index(shard, lang, stemmer, memo)
                except SearchIndexError as exc:  # said, and nothing is published
                    raise DiagnosticError(
                        [Diagnostic(None, None, "search-index", f"{prefix}: {exc}")]
                    ) from exc
                for rel, data in bundle.items():
                    tree.add(prefix + rel, data, lang, "search index")
                    files[rel] = _ident(os.stat(tree.staging / (prefix + rel)))
            new.shards[name] = (key, files)
            new.alts[name] = alts
            bundles.append(f"{n}/")
            # (read from the published fragments: made or kept alike)
            staged = tree.staging / prefix
            fragments = {r: (staged / r).read_bytes() for r in files if r.startswith("fragment/")}
            shard_words.append(words_of(fragments) | {w: [] for w in alts})
        # the particles and endings the page reads a query word with: their one source is
        # render/search_words.py (every language: a Korean word typed on any search page)
        # `stemmed`: Pagefind stems this index's words (every language but Korean, which bipub
        # stems with Kiwi: render/search.py); the page then asks a Latin word no indexed word
        # starts with if its stem is a word of the index (static/search.js `readStemmed`)
        listing: dict[str, object] = {"bundles": bundles, "table": table(), "stemmed": not korean}
        # the lexicon of the search page, every language's (render/search_words.py; session 34:
        # the English page's Latin words, `l`, which an English query word is read by too)
        words = lexicon(shard_words)
        for rel, data in words.items():
            tree.add(f"{lang}/{BUNDLE}/{rel}", data, lang, "search index")
        listing["words"] = list(words)
        manifest = json.dumps(listing, ensure_ascii=False, separators=(",", ":")) + "\n"
        tree.add(f"{lang}/{BUNDLE}/{SHARDS_FILE}", manifest, lang, "search index")
        from_memo = f" ({memo.hits} of them from {ENV})" if memo.hits else ""
        memo.hits = 0
        said.append(
            f"search index ({lang}): {len(pages)} pages in {len(bundles)} shards, "
            f"{made} made, {len(bundles) - made} kept{from_memo}"
        )
        said.extend(memo.notes)
        memo.notes.clear()
    new.stems = stemmer.known()
    if record_path is not None:
        try:
            save_signed(record_path, new)
        except OSError as exc:  # the site is whole; the next build makes every shard again
            collector.add(
                Diagnostic(
                    None,
                    None,
                    "search-record",
                    f"the search index's record could not be saved "
                    f"({exc.strerror or type(exc).__name__}: {record_path}): the next build "
                    "will make every search shard again",
                    Severity.WARNING,
                )
            )
    return said


def _carried(
    tree: OutputTree,
    old: tuple[str, dict[str, Ident]] | None,
    key: str,
    prefix: str,
    lang: str,
    recorded: bool = True,
) -> dict[str, Ident] | None:
    """Carry the shard's published files over if they are the ones made for `key` (and the
    record holds the rest of what the shard gives: `recorded`)."""
    if old is None or old[0] != key or not old[1] or not recorded:
        return None
    for rel, ident in old[1].items():
        try:
            if _ident(os.stat(tree.out / (prefix + rel))) != ident:
                return None
        except OSError:
            return None
    kept = {}
    for rel in old[1]:
        tree.carry_over(prefix + rel, OutputFile(lang, "search index"))
        kept[rel] = _ident(os.stat(tree.staging / (prefix + rel)))
    return kept
