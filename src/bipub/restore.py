"""What `bipub serve` keeps in memory between builds (`Kept`), and `bipub build` reads back
from .bipub-cache/ and saves again: one build path for both (pipeline.py).

A `bipub build` restores

* the build cache (cache.py) and the BuildState of the output folder (buildstate.py);
* the last build's pairing, as `bipub serve` keeps it (pair/memo.py `PairMemo.restored`):
  each entry as `_pair_group` paired it (its versions, its units, what it said), what it read
  of the status records, what it brings to the tags and series (pair/taxonomy.py), the
  digests of the status files read and whether every entry was paired without an error;
  the pairing then pairs only the groups whose documents changed (pair/site.py
  `_pair_again`), or, with other status files, each entry whose records changed; with each
  entry, what planning read of it (pair/model.py `Entry.source_image`, `aliased`,
  `mermaid_docs`, `Version.is_fallback`, pair/site_pages.py `partners`, and `pdf_langs`, which
  render/pdf/links.py `any_pdf` asks of every post: kept in its __dict__);
* what its entry key was made of (render/page_plan.py `EntryKeyMemo`, with the status records
  the keys were worked out with). (The aggregates' parts of an unchanged entry are found by
  its entry key: render/parts.py.)

They are kept in the entries file (`entries-<output>.pickle`): a header (the format, the
bipub and Python versions, the configuration, the keys' status records and what their
`around` came from — each language's posts in order, each series, each tag —, the status
files' digests, whether the pairing was whole, each language's posts as it carried them
(`PairMemo.restored`), the tag tables (pair/tables.py `tables_state`: each tag's posts by
their places in those, each title-prefix group's files by name), each entry's piece, the segment files and where each piece is in them)
naming the segment files (`entries-<output>-<id>.pickle`,
cache_pieces.py) that hold the entries' rows in 64 pieces (by a hash of the entry's kind and
key), each pickled in one piece with its documents named by file and digest, not copied, and
each body unit as a row (its key, language, line, hash, its translation's line and hash and its
section's index: read back, a unit holds what a build reads of it, and is made whole from its
row, its texts sliced from the documents, only when more of it is read: entry_rows.py). One piece per entry cost more to
unpickle than pairing the entry again (~50-100 µs against ~30-45 µs, session 13); one piece
for all cost ~0.45 s to pickle at every save. The header and each segment are checked against
their signatures (cache.py: keyed BLAKE3 with this user's key; a file planted, damaged or
written by another user is never unpickled, and a segment is read only with the signature the
header names) once read. A piece is unpickled with the documents of the build cache as the
last build left it (read back before this build loads: an unchanged document is the very
object the build then loads, and an edited one is another): a document not in the cache by
that file and digest (an entries file older than the cache, another project's) refuses the
piece, whose entries are then paired again. A save makes
the rows of only the pieces holding an entry whose pairing, taxa or key is not the very one
read (found by identity in C loops, `_changed`), pickles again those whose rows are not those
read, and writes them into one more segment; the others stay where they are (after an edit at
5,000 posts a language: ~140 KB written, not the ~9 MB of the whole file). The segment is
written first, then the header, atomically (a kill at any moment leaves the old header with
its segments or the new one with its), after the build cache and the state.

What cannot be restored (no file, another bipub, another configuration, a bad signature, a
piece that cannot be read) is worked out again by the same functions as in a build without
it; `-v` says why and how many entries were taken.
"""

from __future__ import annotations

import pickle
import sys
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import compress
from operator import is_not
from pathlib import Path
from typing import Any

from bipub import buildstate, uptodate
from bipub.buildstate import BuildState
from bipub.cache import (
    UNREADABLE,
    BuildCache,
    ReadAhead,
    entries_file,
    kept_to_the_end,
    read_signed,
    write_signed,
)
from bipub.cache_pieces import Pieces, read_pieces, remove_unnamed, write_pieces
from bipub.code_stamp import CODE
from bipub.config import SiteConfig
from bipub.entry_rows import ResidentUnpickler, Row, dumps_rows
from bipub.load.content import ContentMemo
from bipub.pair.memo import Group, Paired, PairMemo, Read
from bipub.pair.model import Entry
from bipub.pair.status import StatusCache
from bipub.pair.tables import TablesState
from bipub.pair.taxonomy import EntryTaxa
from bipub.project import Project
from bipub.render.kept_pages import KeepMemo
from bipub.render.page_plan import KeyMade, PageMemo

FORMAT = 10  # 2: what the keys' `around` came from (EntryKeyMemo.order, members, tags);
# 3: the pairing as `bipub serve` keeps it (pair/memo.py Resident), after the header;
# 4: a source draft's translations are not listed (pair/model.py Entry.shown_in)
# 5: a post dated after the build's "now" is scheduled (Entry.publish_at, scheduled)
# 6: a page dated after it too; 7: pieces in segment files (cache_pieces.py); 8: posts_order;
# 9: a body unit's row holds its translation's hash (entry_rows.py UnitRow); 10: the tag tables
_HEAD = 8  # bytes of the header's length, after the signature

CHUNKS = 64  # the entries are pickled in this many pieces: a save pickles again the changed


def _chunk(group: Group) -> int:
    """The piece an entry's row is pickled in (the same in every process)."""
    return zlib.crc32(f"{group[0]}/{group[1]}".encode()) % CHUNKS


@dataclass
class Kept:
    """What a long-running caller (`bipub serve`) keeps in memory between builds; a `bipub
    build` reads it back from .bipub-cache/ (`restore`) and saves it again (`on_disk`)."""

    cache: BuildCache
    state: BuildState | None = None
    pairs: PairMemo = field(default_factory=PairMemo)  # what pairing worked out per entry
    pages: PageMemo = field(default_factory=PageMemo)  # what planning made per entry
    content: ContentMemo = field(default_factory=ContentMemo)  # what loading listed and read
    # the up-to-date record of each output folder, once a build made it here (uptodate.py;
    # saved by the caller when it stops: `save_records`)
    records: dict[Path, uptodate.Record | None] = field(default_factory=dict)
    on_disk: bool = False  # read back from .bipub-cache/ by `restore`: the build saves it
    # whether the kinds a `--only` build makes own a published file (handover.carry_other_kinds)
    owned: dict[tuple[str, ...], dict[str, bool]] = field(default_factory=dict)
    entries: EntryStore | None = None  # the entries file it was restored from
    # what the last build's pages kept, and from what (render/kept_pages.py; in memory only)
    keep: KeepMemo = field(default_factory=KeepMemo)

    def paired_note(self, entries: int) -> str:
        """How many of the `entries` the last pairing paired again, and why (for `-v`), and
        what the entries file gave them."""
        memo = self.pairs
        again = entries - memo.reused
        why = f" ({memo.why})" if memo.why else ""
        note = f"{again} of {entries} entr{'y' if entries == 1 else 'ies'} paired again{why}"
        note += f"; posts sorted again ({memo.posts_why})" if memo.posts_why else ""
        note += f"; tag tables joined again ({memo.tables_why})" if memo.tables_why else ""
        return f"{note}; {self.entries.note(memo.paired)}" if self.entries is not None else note

    def save_records(self, project: Project) -> None:
        for target, record in self.records.items():
            if record is not None:
                uptodate.save(project, target, record)


def restore(
    project: Project, target: Path, notes: list[str], ahead: ReadAhead | None = None
) -> Kept:
    """What the last build into `target` left in .bipub-cache/, as `bipub serve` keeps it
    (the module's text); why a part of it was not used is added to `notes` (`-v`). `ahead`:
    the files of cache.py `restore_files`, as read and checked ahead (`ReadAhead`)."""
    with kept_to_the_end():
        cache = BuildCache.load(project.cache, ahead)
        state, why = buildstate.load_noted(project, target, ahead)
        notes.append(why)
        store, why = EntryStore.load(project, target, ahead)
        notes.append(why)
        read = store.read(cache.docs) if store is not None else None
        # (the memos read back, made with the collector off and kept to the end too: the tag
        # tables' ~30,000 objects cost ~2-3 ms more with it on)
        pairs = PairMemo(status=StatusCache(project.cache))
        pages = PageMemo(once=True)  # (a build in a new process plans once: its keys only)
        if store is not None:
            assert read is not None
            pages.config = store.config
            paired, taxa, keys = read
            pairs.restored(
                store.config,
                paired,
                taxa,
                store.digests,
                store.whole,
                store.posts,
                store.tables,
                cache.docs,
            )
            pages.keys.known.update(keys)  # (each key with the very entry it is of)
            pages.keys.status = store.status
            # (an unchanged entry whose neighbours, series and tags did not move keeps its key
            # without its `around` worked out again: EntryKeyMemo.take)
            pages.keys.order, pages.keys.members, pages.keys.tags = store.around
        if ahead is not None:
            notes.append(ahead.note)
            ahead.release()  # (files read ahead but not asked for: not kept to the end)
    return Kept(cache, state, pairs, pages, on_disk=True, entries=store)


def entries_path(project: Project, target: Path) -> Path:
    return entries_file(project.cache, target)


def _stamp() -> tuple[int, str, str]:
    return (FORMAT, CODE, sys.version)


class EntryStore:
    """The entries file as read (the module's text): each piece of entries is unpickled with
    the documents of the build cache (`read`), and what they hold becomes the pairing's and
    the planning's memos'."""

    def __init__(self, config: SiteConfig, index: dict[Group, int], pieces: Pieces) -> None:
        self.config = config
        self.index = index  # each entry's piece
        self.pieces = pieces  # the pieces' segment files as read (cache_pieces.py)
        self.chunks = pieces.places  # where each piece is
        self.rows: dict[int, list[Row]] = {}  # each piece as read (`save` compares)
        self.taken: dict[Group, tuple[Paired, Read]] = {}  # what the pairing was given
        # the taxa and keys the memos were given, as the very tuples (`save`: `_changed`)
        self.taxa: dict[tuple[str, str], tuple[Entry, EntryTaxa]] = {}
        self.keys: dict[tuple[str, str], KeyMade] = {}
        self.compared = 0  # rows a save made and compared with those read (tests count them)
        self.unpickled = 0  # entries unpickled (tests count them)
        self.refused = ""  # why a piece could not be read, if one could not
        # the status records the entries' keys were worked out with (EntryKeyMemo.status),
        # and what their `around` came from (EntryKeyMemo.order, members, tags)
        self.status: object = None
        self.around: tuple[Any, Any, Any] = ({}, {}, {})
        # the digest of each status file the pairing read (None: not known), and whether it
        # paired every entry (pair/memo.py `PairMemo.restored`)
        self.digests: dict[str, str] | None = None
        self.whole = False
        # each language's posts by key as the pairing carried them (PairMemo.posts_order)
        self.posts: dict[str, tuple[str, ...]] | None = None
        # the pairing's tag tables (PairMemo.tables_state; None: not kept)
        self.tables: TablesState | None = None

    @classmethod
    def load(
        cls, project: Project, target: Path, ahead: ReadAhead | None = None
    ) -> tuple[EntryStore | None, str]:
        """The entries file of `target`, checked, or None and why not (for `-v`; `ahead`:
        as read and checked ahead, `restore`)."""
        path = entries_path(project, target)
        if not path.is_file():
            return None, "no entries file of the last build: every entry worked out again"
        try:
            payload = read_signed(path, ahead=ahead)
            size = int.from_bytes(payload[:_HEAD], "little")
            head = pickle.loads(payload[_HEAD : _HEAD + size])  # noqa: S301 - signed by us
            if not isinstance(head, tuple) or not head or head[0] != _stamp():
                return None, f"{path.name} ignored (made by another bipub or Python version)"
            _, config, status, index, around, digests, whole, posts, tables, segments, places = head
            if not isinstance(config, SiteConfig) or not isinstance(index, dict):
                raise ValueError("not an entries file")
            if not isinstance(around, tuple) or len(around) != 3:
                raise ValueError("not an entries file")
            if posts is not None and not isinstance(posts, dict):
                raise ValueError("not an entries file")
            if tables is not None and not isinstance(tables, tuple):
                raise ValueError("not an entries file")
            pieces = read_pieces(project.cache, segments, places, ahead)
        except UNREADABLE as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            return None, (
                f"{path.name} ignored ({why or type(exc).__name__}): every entry worked out again"
            )
        store = cls(config, index, pieces)
        store.status, store.around, store.digests, store.whole = status, around, digests, whole
        store.posts, store.tables = posts, tables
        return store, ""

    def read(
        self, docs: dict[str, tuple[Any, str, Any]]
    ) -> tuple[
        dict[Group, tuple[Paired, Read]],
        dict[tuple[str, str], tuple[Entry, EntryTaxa]],
        dict[tuple[str, str], KeyMade],
    ]:
        """Each entry as the last build paired it, its taxa and its key, with the documents of
        the build cache (`docs`: the last build's, read back before this one loads: an
        unchanged document is then the very object this build loads). A piece that cannot be
        read (a document not in the cache, another bipub's classes) gives none of its
        entries: the pairing pairs them (`whole` is then false), and `note` says why."""
        paired: dict[Group, tuple[Paired, Read]] = {}
        taxa: dict[tuple[str, str], tuple[Entry, EntryTaxa]] = {}
        keys: dict[tuple[str, str], KeyMade] = {}
        for chunk in sorted(self.chunks):
            try:
                rows = ResidentUnpickler(self.pieces.piece(chunk), docs).load()
                if not isinstance(rows, list):
                    raise ValueError("not a piece of entries")
            except UNREADABLE as exc:  # (signed by us: a document not in the cache, or a bug)
                self.refused = f"piece {chunk}: {type(exc).__name__}: {exc}"
                self.whole = False
                continue
            self.rows[chunk] = rows
            self.unpickled += len(rows)
            for group, one, read, kept_taxa, made in rows:
                entry = one.entry
                paired[group] = (one, read)
                if kept_taxa is not None:
                    taxa[group] = (entry, kept_taxa)
                if made is not None:
                    keys[group] = (entry, *made)
        self.taken, self.taxa, self.keys = dict(paired), dict(taxa), dict(keys)
        return paired, taxa, keys

    def note(self, paired: dict[Group, tuple[Paired, Read]]) -> str:
        """What the build took (`paired`: the pairing's entries now), for `-v`."""
        total = len(self.index)
        taken = sum(1 for group, known in self.taken.items() if paired.get(group) is known)
        refused = f"; {self.refused}" if self.refused else ""
        return (
            f"taxa and entry keys of {taken} of {total} "
            f"entr{'y' if total == 1 else 'ies'} restored{refused}"
        )


def save(project: Project, target: Path, kept: Kept) -> int:
    """Save what the last build of `kept` worked out per entry for the next build into
    `target` (the module's text). Returns how many entries were pickled again (the pieces
    whose entries are those read are written as they were read). Only the rows of the pieces
    holding an entry whose pairing, taxa or key is not the very one read (`_changed`) are
    made and compared with those read; the others are the pieces as read."""
    memo = kept.pairs
    path = entries_path(project, target)
    if memo.config is None:
        path.unlink(missing_ok=True)
        remove_unnamed(project.cache, path.stem, ())
        return 0
    store = kept.entries
    known_keys = kept.pages.keys.known
    changed = _changed(store, memo, known_keys) if store is not None else None
    kept_rows: dict[int, list[Row]] = {}  # the pieces whose rows are those read
    groups: Iterable[Group] = memo.paired
    index: dict[Group, int] = {}  # each entry's piece
    if store is not None and changed is not None:  # (the pieces of the changed groups only)
        touched = set(map(_chunk, changed))
        kept_rows = {c: rows for c, rows in store.rows.items() if c not in touched}
        groups = changed.union(*([row[0] for row in store.rows.get(c, ())] for c in touched))
        store.compared += len(groups)
        index = dict(store.index)
        for group in groups:
            index.pop(group, None)
    chunks: dict[int, list[Row]] = {}
    for group in sorted(groups):
        known_paired = memo.paired.get(group)
        if known_paired is None:
            continue
        paired, read = known_paired
        entry = paired.entry
        if entry is None:
            continue
        known = memo.taxa.get(group)
        taxa = known[1] if known is not None and known[0] is entry else None
        made = known_keys.get(group)
        chunk = index[group] = _chunk(group)
        rows = chunks.get(chunk)
        if rows is None:
            rows = chunks[chunk] = []
        rows.append(
            (group, paired, read, taxa, made[1:] if made is not None and made[0] is entry else None)
        )
    chunks.update(kept_rows)
    blobs: dict[int, bytes | memoryview] = {}
    same: set[int] = set()  # the pieces as read (written again only with the others)
    pickled = 0
    for chunk, rows in sorted(chunks.items()):
        old = store.rows.get(chunk) if store is not None else None
        if store is not None and old is not None and (old is rows or _same_rows(old, rows)):
            blobs[chunk] = store.pieces.piece(chunk)
            same.add(chunk)
        else:
            blobs[chunk] = dumps_rows(rows)
            pickled += len(rows)
    found = store.pieces if store is not None else None
    segments, places = write_pieces(project.cache, path.stem, blobs, same, found)
    keys = kept.pages.keys
    around = (keys.order, keys.members, keys.tags)
    posts = memo.posts_order()  # (as the very tuples of `around` where equal: pickled once)
    posts = posts and {k: keys.order[k] if keys.order.get(k) == v else v for k, v in posts.items()}
    head = pickle.dumps(
        (
            _stamp(),
            memo.config,
            keys.status,
            index,
            around,
            memo.digests(),
            memo.last is not None,
            posts,
            memo.tables_state(),
            segments,
            places,
        ),
        protocol=pickle.HIGHEST_PROTOCOL,
    )
    write_signed(path, [len(head).to_bytes(_HEAD, "little"), head])  # (last: the old one until now)
    remove_unnamed(project.cache, path.stem, segments)
    return pickled


def _changed(
    store: EntryStore, memo: PairMemo, keys: dict[tuple[str, str], KeyMade]
) -> set[Any] | None:
    """The groups whose row `save` would make may not be the one read: whose pairing (with
    its status reads), taxa or key is not the very tuple `read` gave the memos, new or gone
    (compared by identity, in C: no step per entry); None if a piece was not read (its
    entries paired again, in no row read: every row is made)."""
    if store.rows.keys() != store.chunks.keys():
        return None
    out: set[Any] = set()
    tables: list[tuple[dict[Any, Any], dict[Any, Any]]] = [
        (memo.paired, store.taken),
        (memo.taxa, store.taxa),
        (keys, store.keys),
    ]
    for now, was in tables:
        out.update(compress(now, map(is_not, now.values(), map(was.get, now))))
        out.update(was.keys() - now.keys())
    return out


def _same_rows(old: list[Row], rows: list[Row]) -> bool:
    """Whether a piece's rows are those read (`EntryStore.read`): the same groups, paired
    entries, status reads, taxa and keys."""
    if len(old) != len(rows):
        return False
    for (group, paired, read, taxa, made), (was_group, was, was_read, was_taxa, was_made) in zip(
        rows, old, strict=True
    ):
        if group != was_group or paired is not was or taxa is not was_taxa or read != was_read:
            return False
        if made is None or was_made is None:
            if made is not was_made:
                return False
        elif made[0] is not was_made[0] or made[1:] != was_made[1:]:
            return False
    return True
