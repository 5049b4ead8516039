"""What a pairing worked out per entry, for the next pairing of a caller that keeps it in
memory (`bipub serve`): `PairMemo`.

An entry is paired by pair/site.py `_pair_group` from its documents, the status records its
units read and the configuration. The memo keeps, per entry, the documents it was paired from
(by file and digest of their bytes), what `_pair_group` made of them (the entry, or None, its
units and what it said) and what it read of the status records; the next pairing takes an entry
whose documents, records and configuration are as they were as it was paired, instead of
pairing it again — by the same function, so the result is the same. What each entry brings to
the tags and series (pair/taxonomy.py `taxa_of`) is kept beside it.

A `bipub build` in a new process starts from the memo the last build left (restore.py reads it
back from the entries file, with the documents of the build cache: `restored`), so it pairs
only what changed, by the same functions. Each entry's rows are pickled in one of 64 pieces
(a piece per entry cost more to unpickle than pairing the entry again: ~50-100 µs against
~30-45 µs, session 13); each language's posts in order and the tag tables are kept in the
file's header (`posts_order`, `tables_state`: the tables in a small shape, pair/tables.py), the
documents with images and the entries naming a series worked out again from the entries.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, NamedTuple

from bipub.config import SiteConfig
from bipub.diagnostics import Diagnostic
from bipub.load.content import Document
from bipub.model.post import Kind
from bipub.pair.assets import with_images
from bipub.pair.model import Entry, Site, changed_entries, insert_post, remove_post
from bipub.pair.status import StatusCache, StatusFile
from bipub.pair.tables import Tables, TablesState, tables_read_back, tables_state
from bipub.pair.taxonomy import EntryTaxa, series_named
from bipub.pair.units import Unit
from bipub.schedule import PUBLISH_ALL, holds, is_scheduled

Group = tuple[Kind, str]  # (kind, key) of an entry's documents
DocIds = tuple[tuple[str, str, str], ...]  # each version's (language, file, digest of its bytes)
Read = tuple[tuple[str, str, str | None] | None, ...]  # what pairing read of each unit's record


def url_keys(entry: Entry | None) -> set[tuple[str, str, str]]:
    """The URLs pair/site.py `_check_urls` claims for `entry`."""
    if entry is None:
        return set()
    return {(lang, entry.kind, entry.slug.casefold()) for lang in entry.versions}


def last_of(paired: dict[Group, tuple[Paired, Read]]) -> Last | None:
    """The groups of a pairing that paired every group without an error (`PairMemo.paired`
    after it), as `_pair_documents` (pair/site.py) leaves them in `Last`; None if one of
    them has no entry. Its documents are in the order of their groups (each group's in
    the order of its entry's), not sorted as `load_content` sorts them: `_pair_again` finds
    the documents that changed by identity in any order (pair/model.py `changed_entries`),
    and sorting them read every document of the site, just read back (~10 ms at 5,000 posts
    a language); the two orders are the same where each document's key is its file's name.
    Each group's documents are its entry's very dict (`_pair_again` copies one before it
    changes it)."""
    keys = sorted(paired)
    made = [paired[group][0] for group in keys]
    entries = [one.entry for one in made if one.entry is not None]
    if len(entries) != len(made):
        return None
    docs = [entry.docs for entry in entries]
    documents = list(chain.from_iterable(map(dict.values, docs)))
    diags = {at: one.diagnostics for at, one in enumerate(made) if one.diagnostics}
    urls: set[tuple[str, str, str]] = set()
    for entry in entries:
        urls.update(url_keys(entry))
    index = {group: at for at, group in enumerate(keys)}
    units = [one.units for one in made]
    return Last(documents, keys, docs, made, index, entries, units, diags, urls)


def doc_ids(docs: dict[str, Document]) -> DocIds:
    return tuple([(lang, doc.rel, doc.digest) for lang, doc in docs.items()])


def status_read(units: Iterable[Unit], status: dict[str, StatusFile]) -> Read:
    """What pair/site.py `_resolve_version` and pair/align.py `out_of_step` read of the status
    records of these units: each record's state, source hash and translation hash (each unit's target language has a status file: pair_site
    loads one for every language). Compared as strings: the records themselves are read
    again from their files at every pairing, and comparing models costs more."""
    records = {lang: file.records for lang, file in status.items()}
    out: list[tuple[str, str, str | None] | None] = []
    for unit in units:
        rec = records[unit.target_lang].get(unit.key)
        out.append((rec.state, rec.source_hash, rec.translation_hash) if rec is not None else None)
    return tuple(out)


# from how many entries changed the posts are sorted again (`PairMemo.carry_posts`)
CARRY_AT_MOST = 256


def _shown(entry: Entry, lang: str) -> bool:
    """Whether `entry` is among the posts `lang` lists (pair/model.py `Site.posts`)."""
    return entry.kind == "posts" and entry.shown_in(lang)


@dataclass
class Last:
    """The last pairing's groups, as `_pair_documents` (pair/site.py) went through them, for a
    pairing after posts or pages were edited, added or removed (`_pair_again`), when it paired
    every group (so each group has an entry, in the same place): the documents it paired (the
    very list; read back, in the order of their groups: `last_of`), each group in order with
    its documents, what pairing gave, its entry, its units and what it said (`diags`: the
    groups that said something, by their index), and the URLs the entries claim (pair/site.py
    `_url_keys`)."""

    documents: list[Document]
    keys: list[Group]  # in order (sorted)
    docs: list[dict[str, Document]]
    paired: list[Paired]
    index: dict[Group, int]
    entries: list[Entry]
    units: list[tuple[Unit, ...]]
    diags: dict[int, tuple[Diagnostic, ...]]
    urls: set[tuple[str, str, str]] = field(default_factory=set)

    def insert(self, group: Group) -> int:
        """A place for a new group, in order (filled by `set`); returns its index."""
        at = bisect_left(self.keys, group)
        self.keys.insert(at, group)
        for parts in (self.docs, self.paired, self.entries, self.units):
            parts.insert(at, None)  # type: ignore[arg-type]
        self._moved(at, 1)
        return at

    def remove(self, at: int) -> None:
        """The group at `at` is gone."""
        for parts in (self.keys, self.docs, self.paired, self.entries, self.units):
            del parts[at]
        self.diags.pop(at, None)
        self._moved(at, -1)

    def set(self, at: int, docs: dict[str, Document], paired: Paired) -> None:
        """The group at `at` paired now from `docs`."""
        assert paired.entry is not None
        self.docs[at], self.paired[at], self.units[at] = docs, paired, paired.units
        self.entries[at] = paired.entry
        if paired.diagnostics:
            self.diags[at] = paired.diagnostics
        else:
            self.diags.pop(at, None)

    def due(self, known: tuple[float, float] | None, now: float) -> frozenset[Group]:
        """The groups whose post is published at `now` but was scheduled when it was paired,
        or the other way round (bipub/schedule.py); none where `now` is within the window the
        last pairing held for (`known`: then no post is looked at)."""
        if holds(known, now):
            return frozenset()
        return frozenset(
            self.keys[at]
            for at, entry in enumerate(self.entries)
            if entry.publish_at is not None
            and entry.scheduled != is_scheduled(entry.publish_at, now)
        )

    def _moved(self, at: int, by: int) -> None:
        """The groups from `at` on moved by `by` places."""
        self.diags = {
            i + by if i >= at else i: d for i, d in self.diags.items() if i != at or by > 0
        }
        self.index = {group: i for i, group in enumerate(self.keys)}


class Paired(NamedTuple):
    """One entry as `_pair_group` paired it, with what it said. (A tuple: one object an entry
    for the garbage collector to go through, where a dataclass is two.)"""

    docs: DocIds  # what it was paired from
    entry: Entry | None  # None: it could not be paired (said in `diagnostics`)
    units: tuple[Unit, ...]
    diagnostics: tuple[Diagnostic, ...]


@dataclass
class PairMemo:
    """What the last pairing worked out for each entry (module text). What depends on other
    entries is joined again every time: the URL clashes and the series from every entry, the
    tags and the tag-spelling and title-prefix warnings from the last pairing's tables with the
    changed entries' parts moved out and in (pair/tables.py; each entry's part, pair/taxonomy.py
    taxa_of, kept here)."""

    config: SiteConfig | None = None
    paired: dict[Group, tuple[Paired, Read]] = field(default_factory=dict)
    _next: dict[Group, tuple[Paired, Read]] = field(default_factory=dict)
    reused: int = 0  # entries taken as they were by the last pairing
    why: str = ""  # why it took none, if it had some (`-v`)
    # what each entry brought to the tags and series, with the entry (pair/taxonomy.py)
    taxa: dict[tuple[str, str], tuple[Entry, EntryTaxa]] = field(default_factory=dict)
    tables: Tables | None = None  # the tags and spellings joined from them (pair/tables.py)
    status: StatusCache = field(default_factory=StatusCache)  # the status files as parsed
    # the status files of the last pairing, and whether this one's are those very objects
    _status: dict[str, StatusFile] = field(default_factory=dict)
    _same_status: bool = False
    last: Last | None = None  # the last pairing's groups, if it paired every one (pair/site.py)
    # the last pairing's entries and each language's posts in order (Site.posts)
    _entries: list[Entry] = field(default_factory=list)
    _posts: dict[str, list[Entry]] = field(default_factory=dict)
    _codes: tuple[str, ...] = ()
    # the last pairing's documents and those with Markdown images; its entries and the ids of
    # those whose source names a series (`with_images`, `series_named`)
    _docs: list[Document] = field(default_factory=list)
    _with_images: list[Document] = field(default_factory=list)
    _named_of: list[Entry] = field(default_factory=list)
    _named: set[int] = field(default_factory=set)
    # a memo read back for a build in a new process (`restored`): the digest of the text of
    # each language's status file its last pairing read (its `_status` is not kept)
    _digests: dict[str, str] | None = None
    # the pairing's "now" (bipub/schedule.py), and the window of instants the last pairing
    # held for (None: not known, as in a memo read back: its posts are looked at)
    now: float = PUBLISH_ALL
    window: tuple[float, float] | None = None
    # why a memo read back (`restored`) does not have each language's posts in order ("": it
    # has; `carry_posts` then sorts them, as a memo of no pairing does)
    posts_why: str = ""
    # why the tag tables were joined from nothing, not read back (`restored`; for `-v`)
    tables_why: str = ""

    def start(
        self, config: SiteConfig, status: dict[str, StatusFile], now: float = PUBLISH_ALL
    ) -> None:
        """A pairing starts: with another configuration, every entry is paired again; with the
        status files of the last pairing (`status` takes an unchanged one as it was parsed),
        what each entry read of them is as it was; at `now`, a post published or scheduled
        unlike then is paired again (bipub/schedule.py)."""
        self.why, self.now = "", now
        if config != self.config:
            if self.config is not None:
                self.why = "bipub.yaml changed"
            self.config, self.paired, self.taxa, self.tables = config, {}, {}, None
            self.last, self.window = None, None
        self._same_status = status.keys() == self._status.keys() and all(
            file is self._status[lang] for lang, file in status.items()
        )
        if self._digests is not None:  # (read back: the files as the status cache parsed them)
            self._same_status = self.status.same(status, self._digests)
        self._status, self._digests = dict(status), None
        self.reused, self._next = 0, {}

    @property
    def same_status(self) -> bool:
        """Whether this pairing's status files are the last one's very objects (`start`)."""
        return self._same_status

    def forget(self, group: Group) -> None:
        """An entry of the last pairing that this one does not have (after `take_all`)."""
        del self._next[group]
        self.reused -= 1

    def take_all(self) -> None:
        """Every entry of the last pairing is this one's (`get` for each), but those `keep`
        is told of next (pair/site.py `_pair_again`, which counts them out of `reused`)."""
        self._next = dict(self.paired)
        self.reused = len(self.paired)

    def get(
        self, group: Group, docs: dict[str, Document], status: dict[str, StatusFile]
    ) -> Paired | None:
        """The entry as the last pairing left it, if its inputs are as they were (kept)."""
        known = self.paired.get(group)
        if known is None:
            return None
        paired, read = known
        if paired.docs != doc_ids(docs):
            return None
        entry = paired.entry
        if entry is not None and entry.scheduled != is_scheduled(entry.publish_at, self.now):
            return None  # (published or scheduled unlike then: paired again)
        if not self._same_status and status_read(paired.units, status) != read:
            return None
        self.reused += 1
        self._next[group] = known
        return paired

    def keep(self, group: Group, paired: Paired, status: dict[str, StatusFile]) -> None:
        """An entry paired now (by `_pair_group`)."""
        read = status_read(paired.units, status)
        self._next[group] = (paired, read)

    def carry_posts(self, site: Site) -> None:
        """Give `site` each language's posts in order (Site.posts) from the last pairing's:
        the entries that are not this pairing's (the same objects) taken out, and this
        pairing's new ones each put where sorting puts it (pair/model.py `post_order_key`:
        unique per entry, so the list is the one `Site.posts` sorts). With another set of
        languages, or many entries changed, `Site.posts` sorts them when asked. The posts are
        kept for the next pairing."""
        entries, before = site.entries, self._entries
        codes = tuple(site.config.codes)
        gone, come = changed_entries(before, entries) if codes == self._codes else ([], [])
        if codes == self._codes and len(gone) + len(come) <= CARRY_AT_MOST:
            for lang, posts in self._posts.items():
                moved = [e for e in gone if _shown(e, lang)], [e for e in come if _shown(e, lang)]
                if moved[0] or moved[1]:
                    posts = list(posts)  # (the last site's is not changed)
                    for entry in moved[0]:
                        if not remove_post(posts, entry):
                            raise AssertionError(f"{entry.key}: not in the last posts")
                    for entry in moved[1]:
                        insert_post(posts, entry)
                site._posts[lang] = posts
        self._entries, self._codes = entries, codes
        self._posts = {lang: site.posts(lang) for lang in codes}

    def posts_order(self) -> dict[str, tuple[str, ...]] | None:
        """Each language's posts by key, in order, as the last pairing carried them
        (`carry_posts`), for the entries file (restore.py: `restored` takes them back); None
        if they are not of the entries of `last` (a pairing that did not pair every group, or
        ended before they were carried)."""
        last = self.last
        if (
            last is None
            or self._entries is not last.entries
            or set(self._posts) != set(self._codes)
        ):
            return None
        return {lang: tuple([e.key for e in posts]) for lang, posts in self._posts.items()}

    def with_images(self, documents: list[Document]) -> list[Document]:
        """pair/assets.py `with_images` of `documents` (sorted as `load_content` sorts them):
        the last pairing's, without the documents that are not this one's and with the new
        ones that have images, put in their order; worked out anew when many changed."""
        olds, news = changed_entries(self._docs, documents) if self._docs else ([], documents)
        if self._docs and len(olds) + len(news) <= CARRY_AT_MOST:
            gone = {id(d) for d in olds}
            found = [d for d in self._with_images if id(d) not in gone]
            added = [d for d in news if d.image_refs]
            if added:
                found = sorted([*found, *added], key=lambda d: (d.kind, d.name, d.lang))
        else:
            found = with_images(documents)
        self._docs, self._with_images = documents, found
        return found

    def series_named(self, entries: list[Entry]) -> set[int]:
        """pair/taxonomy.py `series_named` of `entries`: the last pairing's, without the
        entries that are not this one's and with the new ones; worked out anew when many
        changed. (An id is of an entry alive: the memo keeps the last entries until then.)"""
        olds, news = changed_entries(self._named_of, entries) if self._named_of else ([], entries)
        if self._named_of and len(olds) + len(news) <= CARRY_AT_MOST:
            named = self._named.difference(map(id, olds))
            named.update(series_named(news))
        else:
            named = series_named(entries)
        self._named_of, self._named = entries, named
        return named

    def digests(self) -> dict[str, str] | None:
        """The digest of the text of each status file the last pairing read (`restored`)."""
        return self.status.digests(self._status)

    def restored(
        self,
        config: SiteConfig,
        paired: dict[Group, tuple[Paired, Read]],
        taxa: dict[tuple[str, str], tuple[Entry, EntryTaxa]],
        digests: dict[str, str] | None,
        whole: bool,
        posts: Mapping[str, Sequence[str]] | None = None,
        tables: TablesState | None = None,
        docs: Mapping[str, tuple[Any, str, Any]] | None = None,
    ) -> None:
        """This memo as the last build's pairing left it (a memo of a new process, read back
        by restore.py with the documents of the build cache): each entry as it was paired,
        with what it read of the status records (`paired`), what it brought to the tags and
        series (`taxa`), the digests of the status files read (`digests`: pair/status.py
        `StatusCache.same` finds them as they were) and whether it paired every entry
        without an error (`whole`: its groups are then `last`, and the next pairing pairs
        only the changed ones, pair/site.py `_pair_again`). `posts`: each language's posts
        by key as the last pairing carried them (`posts_order`, kept in the entries file's
        header): with every entry read back, they are the last pairing's posts (`carry_posts`
        then moves only the changed entries instead of sorting every language's posts again,
        ~20 ms a language at 5,000 posts; `posts_why` says why not, for `-v`). `tables`: the
        last pairing's tag tables as the entries file keeps them (`tables_state`), each
        prefix group's documents those of the build cache `docs`: with those posts and every
        entry's taxa read back, they are the last pairing's tables (pair/tables.py
        `tables_read_back`; the next join moves only the changed entries, ~0.03 s at 5,000
        posts a language); else they are joined from empty ones. The documents with images
        and the entries naming a series are worked out again, from these."""
        self.config, self.paired, self.taxa, self.tables = config, paired, taxa, None
        self._digests, self.window = digests if digests is not None else {}, None
        self.last = last_of(paired) if whole else None
        if self.last is None:
            self.posts_why = "the last pairing did not pair every entry"
        elif posts is None:
            self.posts_why = "not in the entries file"
        else:
            self.posts_why = self._posts_read_back(config, self.last.entries, posts)
        kept = {group: own for group, (_, own) in taxa.items()}
        if tables is None or docs is None:
            self.tables_why = "not in the entries file"
        elif self.last is None or self.posts_why:
            self.tables_why = "the posts were not read back in order"
        elif len(kept) != len(self._entries):
            self.tables_why = "not every entry's taxa were read back"
        else:
            self.tables_why = ""
            joined: dict[str, list[Entry]] = dict(self._posts)
            joined[""] = self._entries
            self.tables = tables_read_back(config, tables, joined, kept, docs)

    def tables_state(self) -> TablesState | None:
        """The last pairing's tag tables in the entries file's shape (pair/tables.py
        `tables_state`), if they were moved to the posts `posts_order` gives and the entries
        of `last` (`restored` reads them back with those); else None."""
        tables, last = self.tables, self.last
        if tables is None or last is None or self.posts_order() is None:
            return None
        joined = tables.joined
        if joined.get("") is not last.entries or any(
            joined.get(lang) is not posts for lang, posts in self._posts.items()
        ):
            return None
        return tables_state(tables)

    def _posts_read_back(
        self, config: SiteConfig, entries: list[Entry], order: Mapping[str, Sequence[str]]
    ) -> str:
        """The last pairing's entries and each language's posts (`carry_posts`), from the
        entries read back and the posts' keys in order (`restored`); nothing if a language or
        a key is not among them (then `Site.posts` sorts, as without them), and why."""
        codes = tuple(config.codes)
        if set(order) != set(codes):
            return "the entries file's posts are of other languages"
        by_key = {entry.key: entry for entry in entries if entry.kind == "posts"}
        posts: dict[str, list[Entry]] = {}
        for lang in codes:
            found = [by_key.get(key) for key in order[lang]]
            if None in found:
                return f"a {lang} post of the entries file's order was not read back"
            posts[lang] = found  # type: ignore[assignment]  # (no None: checked above)
        self._entries, self._codes, self._posts = list(entries), codes, posts
        return ""

    def done(self) -> None:
        """The pairing is over: what it worked out replaces what the last one did (entries
        removed since are forgotten)."""
        self.paired, self._next = self._next, {}
