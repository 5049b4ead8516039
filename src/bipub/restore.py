"""What `bipub serve` keeps in memory between builds (`Kept`), and `bipub build` reads back
from .bipub-cache/ and saves again: one build path for both (pipeline.py).

A `bipub build` restores

* the build cache (cache.py) and the BuildState of the output folder (buildstate.py);
* what the memos `bipub serve` keys on each entry object worked out of it: what the entry
  brings to the tags and series (pair/taxonomy.py, in pair/memo.py `PairMemo.taxa`) and what
  its entry key was made of (render/page_plan.py `EntryKeyMemo`, with the status records the
  keys were worked out with). (The aggregates' parts of an unchanged entry are found by its
  entry key: render/parts.py.)

The entries themselves are paired again: unpickling an entry, its versions and units costs
more than pairing it (~50-100 µs against ~30-45 µs, session 13). Each entry's values are
taken for the entry paired now when it was paired from the same documents (by file and digest
of their bytes) and read the same status records, under the same configuration: what the
memos worked out of it, by the same functions, is then the same (`EntryStore.bind`).

They are kept in the entries file (`entries-<output>.pickle`): a header (the format, the
bipub and Python versions, the configuration, the keys' status records and what their
`around` came from — each language's posts in order, each series, each tag — and an index:
each entry's documents and status records as paired, and where its values are) and then each
entry's values as a byte string of its own, pickled with its documents named, not copied. The
whole file is checked against its signature (cache.py: keyed BLAKE3 with this user's key; a
file planted, damaged or written by another user is never unpickled) once it is read; an
entry's values are unpickled only for an entry paired from what they were worked out from, so
an entry that changed or was removed is never unpickled. A file of another output folder or
project is harmless: an entry's values are taken only by what they are made of. A save pickles
again only the entries whose values are not those it read (an edited entry, or one whose key
moved), and writes only those, as what changed since a base file (entries_delta.py: a small
file naming its base, written last and atomically: a kill at any moment leaves the old files
or the new ones), after the build cache and the state.

What cannot be restored (no file, another bipub, another configuration, a bad signature, an
entry whose documents changed, values that cannot be unpickled) is worked out again by the
same functions as in a build without it; `-v` says why and how many entries' values were
taken.
"""

from __future__ import annotations

import io
import pickle
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bipub import __version__, buildstate, entries_delta, uptodate
from bipub.buildstate import BuildState
from bipub.cache import (
    UNREADABLE,
    BuildCache,
    ReadAhead,
    entries_file,
    kept_to_the_end,
)
from bipub.config import SiteConfig
from bipub.load.content import ContentMemo, Document
from bipub.pair.memo import Group, Paired, PairMemo, Read
from bipub.pair.status import StatusCache
from bipub.pair.taxonomy import EntryTaxa
from bipub.project import Project
from bipub.render.kept_pages import KeepMemo
from bipub.render.page_plan import KeyMade, PageMemo

FORMAT = 3  # 2: what the keys' `around` came from (EntryKeyMemo.order, members, tags);
# 3: a small file naming a base file, and what changed since (entries_delta.py)

# what the entries file keeps of an entry: its taxa and what its key was made of
# (EntryKeyMemo: facts, around, review, key), each without the entry itself
Values = tuple[EntryTaxa | None, tuple[object, object, object, str] | None]
# each entry's documents and status records as paired, and where its values are
Index = dict[Group, tuple[tuple[tuple[str, str, str], ...], Read, int, int]]


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
        return f"{note}; {self.entries.note()}" if self.entries is not None else note

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
        if ahead is not None:
            notes.append(ahead.note)
            ahead.release()  # (files read ahead but not asked for: not kept to the end)
    pairs = PairMemo(status=StatusCache(project.cache))
    pages = PageMemo(once=True)  # (a build in a new process plans once: its keys only)
    if store is not None:
        pairs.config = pages.config = store.config
        pairs.stored = store
        store.keys = pages.keys.known  # (each key is taken with the very entry it is of)
        pages.keys.status = store.status
        # (an unchanged entry whose neighbours, series and tags did not move keeps its key
        # without its `around` worked out again: EntryKeyMemo.take)
        pages.keys.order, pages.keys.members, pages.keys.tags = store.around
    return Kept(cache, state, pairs, pages, on_disk=True, entries=store)


def entries_path(project: Project, target: Path) -> Path:
    return entries_file(project.cache, target)


def _stamp() -> tuple[int, str, str]:
    return (FORMAT, __version__, sys.version)


class _Unpickler(pickle.Unpickler):
    """Unpickles an entry's values with its documents as this build loaded them."""

    def __init__(self, data: memoryview, docs: dict[str, Document]) -> None:
        super().__init__(io.BytesIO(data))
        self._docs = docs

    def persistent_load(self, pid: Any) -> Document:
        rel, digest = pid
        doc = self._docs.get(rel)
        if doc is None or doc.digest != digest:
            raise pickle.UnpicklingError(f"{rel}: not the document the entry was paired from")
        return doc


class _Pickler(pickle.Pickler):
    """Pickles an entry's values with its documents named (file and digest), not copied."""

    def persistent_id(self, obj: Any) -> tuple[str, str] | None:
        if type(obj) is Document:
            return (obj.rel, obj.digest)
        return None


def _dumps(values: Values) -> bytes:
    out = io.BytesIO()
    _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(values)
    return out.getvalue()


class EntryStore:
    """The entries file as read (the module's text): an entry's values are unpickled when the
    pairing has paired it from the documents and status records they were worked out from
    (pair/memo.py `Stored`), and bound to the new entry object."""

    def __init__(
        self,
        config: SiteConfig,
        index: Index,
        blobs: memoryview | entries_delta.Blobs,
        base: entries_delta.Base | None = None,
    ) -> None:
        self.config = config
        self.index = index
        self.blobs = blobs
        self.base = base  # the base file it was read with (entries_delta.py)
        # the entries whose values were taken, as read (`save` writes an entry's bytes again
        # as they were read while these are what the build used)
        self.bound: dict[Group, Values] = {}
        self.unpickled = 0  # entries unpickled (tests count them)
        self.refused = ""  # why an entry's values could not be read, if one's could not
        # where the other memos take what the entries bring them (`restore`)
        self.keys: dict[tuple[str, str], KeyMade] = {}
        # the status records the entries' keys were worked out with (EntryKeyMemo.status),
        # and what their `around` came from (EntryKeyMemo.order, members, tags)
        self.status: object = None
        self.around: tuple[Any, Any, Any] = ({}, {}, {})

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
            head, index, blobs, base = entries_delta.load(path, _stamp(), ahead)
            if head is None:
                return None, f"{path.name} ignored (made by another bipub or Python version)"
            _, config, status, around = head
            if not isinstance(config, SiteConfig) or not isinstance(index, dict):
                raise ValueError("not an entries file")
            if not isinstance(around, tuple) or len(around) != 3:
                raise ValueError("not an entries file")
        except UNREADABLE as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            return None, (
                f"{path.name} ignored ({why or type(exc).__name__}): every entry worked out again"
            )
        store = cls(config, index, blobs, base)
        store.status, store.around = status, around
        return store, ""

    def bind(
        self, group: Group, paired: Paired, read: Read, taxa: dict[tuple[str, str], Any]
    ) -> None:
        found = self.index.get(group)
        entry = paired.entry
        if found is None or entry is None or found[0] != paired.docs or found[1] != read:
            return
        _, _, start, end = found
        self.unpickled += 1
        try:
            docs = {d.rel: d for d in entry.docs.values()}
            values = _Unpickler(self.blobs[start:end], docs).load()
            kept_taxa, made = values
        except UNREADABLE as exc:  # (signed by us: another bipub's classes, or a bug)
            self.refused = f"{group[0]}/{group[1]}: {type(exc).__name__}: {exc}"
            return
        if kept_taxa is not None:
            taxa[group] = (entry, kept_taxa)
        if made is not None:
            self.keys[group] = (entry, *made)
        self.bound[group] = values

    def blob(self, group: Group) -> memoryview:
        _, _, start, end = self.index[group]
        return self.blobs[start:end]

    def note(self) -> str:
        """What the build took, for `-v`."""
        total = len(self.index)
        taken = len(self.bound)
        refused = f"; {self.refused}" if self.refused else ""
        return (
            f"taxa and entry keys of {taken} of {total} "
            f"entr{'y' if total == 1 else 'ies'} restored{refused}"
        )


def save(project: Project, target: Path, kept: Kept) -> int:
    """Save what the last build of `kept` worked out per entry for the next build into
    `target` (the module's text). Returns how many entries' values were pickled again (the
    others' bytes are written as they were read)."""
    memo = kept.pairs
    path = entries_path(project, target)
    if memo.config is None:
        entries_delta.forget(path)
        return 0
    store = kept.entries
    known_keys = kept.pages.keys.known
    # each entry's documents, status records, values, and the index item they were read with
    entries: dict[Group, tuple[Any, Read, bytes | memoryview, object]] = {}
    pickled = 0
    for group, (paired, read) in memo.paired.items():
        entry = paired.entry
        if entry is None:
            continue
        known = memo.taxa.get(group)
        taxa = known[1] if known is not None and known[0] is entry else None
        made = known_keys.get(group)
        if made is not None and made[0] is not entry:
            made = None
        old = store.bound.get(group) if store is not None else None
        if (
            store is not None
            and old is not None
            and _as_bound(old, taxa, made)
            and (item := store.index[group])[:2] == (paired.docs, read)
        ):
            entries[group] = (paired.docs, read, store.blob(group), item)
        else:
            blob = _dumps((taxa, made[1:] if made is not None else None))
            entries[group] = (paired.docs, read, blob, None)
            pickled += 1
    keys = kept.pages.keys
    head = (_stamp(), memo.config, keys.status, (keys.order, keys.members, keys.tags))
    base = entries_delta.save(path, head, entries, store.base if store is not None else None)
    if store is not None:
        store.base = base
    return pickled


def _as_bound(old: Values, taxa: EntryTaxa | None, made: KeyMade | None) -> bool:
    """Whether the build used what `EntryStore.bind` took of an entry's values as read: the
    taxa themselves, and its key, worked out from the facts it read (`made`: the
    EntryKeyMemo's; an equal key from the same facts is made of the same values)."""
    kept_taxa, was = old
    if kept_taxa is not taxa:
        return False
    if made is None or was is None:
        return made is None and was is None
    return made[1] is was[0] and made[4] == was[3]
