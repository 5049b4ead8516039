"""What `bipub serve` keeps in memory between builds (`Kept`), and `bipub build` reads back
from .bipub-cache/ and saves again: one build path for both (pipeline.py).

A `bipub build` restores

* the build cache (cache.py) and the BuildState of the output folder (buildstate.py);
* what pairing worked out per entry (pair/memo.py `PairMemo`), with, for the same entry,
  what each entry brings to the tags and series (pair/taxonomy.py), each of its post
  versions' digests for the aggregates (render/outputs.py `Parts.version`) and its entry key
  (render/page_plan.py `EntryKeyMemo`): the memos `bipub serve` keys on the very entry
  object, which are true again only for the entry restored with them.

The last two are the entries file (`entries-<output>.pickle`): a header (the format, the
bipub and Python versions, the configuration the entries were paired with and an index: each
entry's documents, by file and digest of their bytes, and where its values are) and then each
entry's values as a byte string of its own, pickled with its documents named, not copied (the
build cache has them). The whole file is checked against its signature (cache.py: keyed
BLAKE3 with this user's key; a file planted, damaged or written by another user is never
unpickled) once it is read; an entry's values are unpickled only when the pairing asks for
them and its documents are the ones they were made from (`EntryStore.take`), so an entry
whose file changed or was removed is never unpickled. A save pickles again only the entries
whose values are not those it read (an edited entry, or one whose key moved); the others'
byte strings are written as they were read. The file is written whole, atomically (a kill
at any moment leaves the old file or the new one), after the build cache and the state.

What cannot be restored (no file, another bipub, another configuration, a bad signature, an
entry whose documents changed) is worked out again by the same functions as in a build
without it; `-v` says why and how many entries were paired again.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import pickle
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bipub import __version__, buildstate, uptodate
from bipub.buildstate import BuildState
from bipub.cache import UNREADABLE, BuildCache, read_signed, write_signed
from bipub.config import SiteConfig
from bipub.load.content import Document
from bipub.pair.memo import Group, Paired, PairMemo, Read, doc_ids
from bipub.pair.status import StatusCache
from bipub.pair.taxonomy import EntryTaxa
from bipub.project import Project
from bipub.render.page_plan import KeyMade, PageMemo

FORMAT = 1
_HEAD = 8  # bytes of the header's length, after the signature

# what the entries file keeps of an entry: its pairing, what it read of the status files, its
# taxa, its post versions' aggregate digests by language (Parts.version) and its key's makings
Values = tuple[Paired, Read, EntryTaxa | None, dict[str, Any], KeyMade | None]


@dataclass
class Kept:
    """What a long-running caller (`bipub serve`) keeps in memory between builds; a `bipub
    build` reads it back from .bipub-cache/ (`restore`) and saves it again (`on_disk`)."""

    cache: BuildCache
    state: BuildState | None = None
    pairs: PairMemo = field(default_factory=PairMemo)  # what pairing worked out per entry
    pages: PageMemo = field(default_factory=PageMemo)  # what planning made per entry
    # the up-to-date record of each output folder, once a build made it here (uptodate.py;
    # saved by the caller when it stops: `save_records`)
    records: dict[Path, uptodate.Record | None] = field(default_factory=dict)
    on_disk: bool = False  # read back from .bipub-cache/ by `restore`: the build saves it
    entries: EntryStore | None = None  # the entries file it was restored from

    def save_records(self, project: Project) -> None:
        for target, record in self.records.items():
            if record is not None:
                uptodate.save(project, target, record)


def restore(project: Project, target: Path, notes: list[str]) -> Kept:
    """What the last build into `target` left in .bipub-cache/, as `bipub serve` keeps it
    (the module's text); why a part of it was not used is added to `notes` (`-v`)."""
    cache = BuildCache.load(project.cache)
    state, why = buildstate.load_noted(project, target)
    notes.append(why)
    pairs = PairMemo(status=StatusCache(project.cache))
    pages = PageMemo()
    store, why = EntryStore.load(project, target)
    notes.append(why)
    if store is not None:
        pairs.config = pages.config = store.config
        pairs.stored = store
        store.keys = pages.keys.known  # (each key is taken with the very entry it is of)
        if state is not None:  # (Parts.again takes them on with the state's parts)
            store.helds = state.parts.versions_before
    return Kept(cache, state, pairs, pages, on_disk=True, entries=store)


def _name(target: Path) -> str:
    return hashlib.sha256(str(target.absolute()).encode("utf-8")).hexdigest()[:16]


def entries_path(project: Project, target: Path) -> Path:
    return project.cache / f"entries-{_name(target)}.pickle"


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
    """The entries file as read (the module's text): its entries are unpickled one by one,
    when the pairing asks for one whose documents are as they were (pair/memo.py `Stored`)."""

    def __init__(
        self,
        config: SiteConfig,
        index: dict[Group, tuple[tuple[tuple[str, str, str], ...], int, int]],
        blobs: memoryview,
    ) -> None:
        self.config = config
        self.index = index
        self.blobs = blobs
        self.taken: dict[Group, Values] = {}  # the entries unpickled, as they were
        self.unpickled = 0  # entries unpickled (tests count them)
        self.refused = ""  # why an entry's values could not be read, if one's could not
        # where the other memos take what the entries bring them (`restore`)
        self.keys: dict[tuple[str, str], KeyMade] = {}
        self.helds: dict[tuple[str, str, str], Any] = {}

    @classmethod
    def load(cls, project: Project, target: Path) -> tuple[EntryStore | None, str]:
        """The entries file of `target`, checked, or None and why not (for `-v`)."""
        path = entries_path(project, target)
        if not path.is_file():
            return None, "no entries file of the last build: every entry paired again"
        try:
            payload = read_signed(path)
            size = int.from_bytes(payload[:_HEAD], "little")
            stamp, config, index = pickle.loads(payload[_HEAD : _HEAD + size])  # noqa: S301 - signed by us
            if stamp != _stamp() or not isinstance(config, SiteConfig):
                return None, f"{path.name} ignored (made by another bipub or Python version)"
            if not isinstance(index, dict):
                raise ValueError("no index")
        except UNREADABLE as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            return None, (
                f"{path.name} ignored ({why or type(exc).__name__}): every entry paired again"
            )
        return cls(config, index, payload[_HEAD + size :]), ""

    def take(
        self, group: Group, docs: dict[str, Document]
    ) -> tuple[Paired, Read, EntryTaxa | None] | None:
        found = self.index.get(group)
        if found is None or found[0] != doc_ids(docs):
            return None
        _, start, end = found
        self.unpickled += 1
        try:
            values = _Unpickler(self.blobs[start:end], {d.rel: d for d in docs.values()}).load()
            paired, read, taxa, helds, made = values
            if not isinstance(paired, Paired) or paired.docs != found[0]:
                raise ValueError(f"{group[0]}/{group[1]}: not the entry indexed")
        except UNREADABLE as exc:  # (signed by us: another bipub's classes, or a bug)
            self.refused = f"{group[0]}/{group[1]}: {type(exc).__name__}: {exc}"
            return None
        self.taken[group] = values
        entry = paired.entry
        if entry is not None:
            for lang, held in helds.items():
                self.helds.setdefault((entry.kind, entry.key, lang), held)
            if made is not None:
                self.keys.setdefault((entry.kind, entry.key), made)
        return paired, read, taxa

    def blob(self, group: Group) -> memoryview:
        _, start, end = self.index[group]
        return self.blobs[start:end]


def save(project: Project, target: Path, kept: Kept, state: BuildState | None) -> int:
    """Save the entries of the last pairing of `kept` for the next build into `target` (the
    module's text). Returns how many were pickled again (the others' bytes are as read)."""
    memo = kept.pairs
    path = entries_path(project, target)
    if memo.config is None:
        path.unlink(missing_ok=True)
        return 0
    store = kept.entries
    known_keys = kept.pages.keys.known
    helds: dict[tuple[str, str], dict[str, Any]] = {}
    if state is not None:
        for (kind, key, lang), held in state.parts.versions_before.items():
            helds.setdefault((kind, key), {})[lang] = held
    pieces: list[bytes | memoryview] = []
    index: dict[Group, tuple[tuple[tuple[str, str, str], ...], int, int]] = {}
    offset = pickled = 0
    for group, (paired, read) in memo.paired.items():
        entry = paired.entry
        taxa = made = None
        mine: dict[str, Any] = {}
        if entry is not None:
            known = memo.taxa.get(group)
            taxa = known[1] if known is not None and known[0] is entry else None
            mine = {lang: h for lang, h in helds.get(group, {}).items() if h.entry is entry}
            made = known_keys.get(group)
            made = made if made is not None and made[0] is entry else None
        values: Values = (paired, read, taxa, mine, made)
        old = store.taken.get(group) if store is not None else None
        blob: bytes | memoryview
        if store is not None and old is not None and old[0] is paired and old[1:] == values[1:]:
            blob = store.blob(group)
        else:
            blob = _dumps(values)
            pickled += 1
        index[group] = (paired.docs, offset, offset + len(blob))
        pieces.append(blob)
        offset += len(blob)
    head = pickle.dumps((_stamp(), memo.config, index), protocol=pickle.HIGHEST_PROTOCOL)
    write_signed(path, [len(head).to_bytes(_HEAD, "little"), head, *pieces])
    return pickled


def forget(project: Project, target: Path) -> None:
    """Remove the entries file (a build that could not save a true one)."""
    with contextlib.suppress(OSError):
        entries_path(project, target).unlink(missing_ok=True)
