"""The build cache (.bipub-cache/, gitignored): work a previous build already did.

* Parsed documents, keyed by path and file identity (mtime, ctime, size, inode: what the
  up-to-date check compares, uptodate.py) and checked by content digest, so an unchanged file
  is neither read nor parsed again. They are spread over `build-docs-NN.pickle` files by path,
  and only the files whose documents changed are written again (an edit on a 10,000-post site
  rewrites one 1/128 of them: ~80 documents).
* A fingerprint per output page: a hash of everything the page is made from (its documents,
  the cards it lists, its counterparts, templates, catalogs, config and the bipub version).
  A page whose fingerprint is unchanged and whose previous output still exists is not rendered:
  the previous file is kept.
* What rendering each document's body warned about (so a kept page still reports them). A
  document's reading time is kept with the document itself (load/content.py).

The cache is only an optimization: output with and without it is byte-identical (tested), and an
unreadable or incompatible cache file is ignored and rebuilt (said at -v).

The cache files are pickled, and unpickling runs code, so a cache planted in a cloned repository
must never be loaded: every cache file is signed (keyed BLAKE3, a MAC) with a key kept outside
the project, in the user's cache folder (`$XDG_CACHE_HOME/bipub/cache-key`, mode 0600). A file
without a valid signature is ignored. (BLAKE3 rather than HMAC-SHA256: an update signs and
checks ~40 MB of cache per 1,000 posts, which BLAKE3 hashes at ~6 GB/s on one core, SHA-256 at
~1.7 GB/s even with the processor's SHA instructions.)
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import hmac
import secrets
import sys
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import compress
from operator import is_not
from pathlib import Path
from typing import Any

from bipub import cache_files, out_of_band
from bipub.cache_files import entries_file as entries_file
from bipub.cache_files import output_name as output_name
from bipub.cache_signed import UNREADABLE as UNREADABLE
from bipub.cache_signed import FileKey as FileKey
from bipub.cache_signed import ReadAhead as ReadAhead
from bipub.cache_signed import UnsignedCache as UnsignedCache
from bipub.cache_signed import _unpickled
from bipub.cache_signed import load_signed as load_signed
from bipub.cache_signed import read_signed as read_signed
from bipub.cache_signed import save_signed as save_signed
from bipub.cache_signed import stat_key as stat_key
from bipub.cache_signed import write_cache_file as write_cache_file
from bipub.cache_signed import write_signed as write_signed
from bipub.code_stamp import CODE
from bipub.compiled_code import user_cache_dir as user_cache_dir  # (its home: start-up)
from bipub.diagnostics import Diagnostic, Severity
from bipub.table_diff import changes as _changes
from bipub.table_diff import sample_differs as _sample_differs

CACHE_FORMAT = 11  # 6: front matter `image` (issue 19); 7: deltas; 8: bodies out of band;
# 9: a document's parsed front matter pickled apart (load/doc_state.py `yaml_apart`);
# 10: its validated front matter in its shard's batch (doc_state.py `body_apart`); 11: with its
# section spans and its parsed front matter (pickled)
FILE = "build.pickle"  # the pages' fingerprints, cards, notes: what changed since its base,
TABLES = "build-tables"  # a file `build-tables-<random>.pickle` (`save_delta`)
DOC_SHARDS = 128  # parsed documents are kept in this many files: an edit rewrites one of them


def _shard(rel: str) -> int:
    return zlib.crc32(rel.encode("utf-8")) % DOC_SHARDS


def _docs_file(shard: int) -> str:
    return f"build-docs-{shard:02d}.pickle"


def _same_shard(before: dict[str, Any], now: dict[str, Any]) -> bool:
    """A shard holds what it held when it was read or written: the same paths, each with the
    very entry it had (the loader keeps the entry of a file it did not read again, and makes
    a new one for each file it read), so an unchanged shard is not written again."""
    return len(before) == len(now) and all(before.get(rel) is entry for rel, entry in now.items())


def digest_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


@dataclass
class BuildCache:
    docs: dict[str, tuple[FileKey, str, Any]] = field(default_factory=dict)
    # output folder → output path → (fingerprint, identity of the file written: write/output.py)
    pages: dict[str, dict[str, tuple[str, FileKey]]] = field(default_factory=dict)
    # output folder → social card path → (card key, identity of the file published: cards.py)
    cards: dict[str, dict[str, tuple[str, FileKey]]] = field(default_factory=dict)
    # what rendering a document's body warned about (render/markdown.py MarkdownCache.notes)
    notes: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    note: str = ""  # why a previous cache was not used (for -v)
    # output folder (as in `pages`) → the name its files carry (cache_files.py `output_name`)
    names: dict[str, str] = field(default_factory=dict)
    pruned: str = ""  # what the last save dropped and removed (cache_files.py; for -v)
    # the identity of build.pickle as read or saved (another build replaced it if it differs)
    _seen: FileKey | None = field(default=None, repr=False)
    _tables_read: bool = field(default=False, repr=False)  # the tables of build.pickle read
    _dropped: set[str] = field(default_factory=set, repr=False)  # output folders dropped
    # each shard's documents as read or written (`_same_shard`; empty: known absent), and
    # all of them by path (`_write` finds the documents that are not those by identity)
    _shards: dict[int, dict[str, Any]] = field(default_factory=dict, repr=False)
    _written: dict[str, Any] = field(default_factory=dict, repr=False)
    # the base file of build.pickle as read or saved (`save_delta`)
    _base: Base | None = field(default=None, repr=False)

    @property
    def stamp(self) -> tuple[int, str, str]:
        return (CACHE_FORMAT, CODE, sys.version)

    @staticmethod
    def files(folder: Path) -> list[Path]:
        """The files `load` reads (for `ReadAhead`)."""
        docs = (folder / _docs_file(shard) for shard in range(DOC_SHARDS))
        return [folder / FILE, *sorted(folder.glob(f"{TABLES}-*.pickle")), *docs]

    @classmethod
    def load(cls, folder: Path | None, ahead: ReadAhead | None = None) -> BuildCache:
        """The build cache in `folder` (`ahead`: its files as read and checked ahead)."""
        if folder is None:
            return cls()
        path = folder / FILE
        try:
            seen = stat_key(path)  # (before it is read: a file replaced since is merged)
        except OSError:
            return cls(note="no build cache yet")
        try:
            stamp, tables, base = load_delta(path, ahead=ahead)
        except UNREADABLE as exc:  # any unreadable cache is rebuilt, never trusted
            return cls(note=f"build cache ignored ({type(exc).__name__}: {exc})")
        cache = cls(_seen=seen, _tables_read=True)
        if stamp != cache.stamp:
            return cls(note="build cache ignored (made by another bipub or Python version)")
        cache._take(tables)
        cache._base = base
        for shard in range(DOC_SHARDS):
            shard_path = folder / _docs_file(shard)
            if not shard_path.is_file():
                cache._shards[shard] = {}  # (known absent: not removed again at each save)
                continue
            try:  # (bodies kept after the pickle, decoded when read: out_of_band.py)
                shard_stamp, docs = out_of_band.loads(read_signed(shard_path, ahead=ahead))
            except UNREADABLE as exc:  # its documents are parsed again, and saved again
                cache.note = f"{_docs_file(shard)} ignored ({type(exc).__name__}: {exc})"
                continue
            if shard_stamp == cache.stamp and isinstance(docs, dict):
                cache.docs.update(docs)
                cache._shards[shard] = docs
        cache._written = dict(cache.docs)
        return cache

    def _take(self, tables: Tables, merge: bool = False) -> None:
        """The tables of build.pickle, as read; `merge`: only the output folders this cache
        has not (another build's, saved since this one read the file) nor dropped."""
        for table, items in tables.items():
            kind, _, out = table.partition(" ")
            if kind == "notes":
                if not merge:
                    self.notes = items
                continue
            if kind == "names":
                items = {out: name for out, name in items.items() if out not in self._dropped}
                self.names.update(items if not merge else items | self.names)
                continue
            mine = self.pages if kind == "pages" else self.cards if kind == "cards" else None
            if mine is not None and not (merge and (out in mine or out in self._dropped)):
                mine[out] = items

    def save(self, folder: Path | None, target: Path | None = None) -> None:
        """Save the cache to `folder` (what changed: the module's text), under
        cache_files.py `save_lock`, with the tables of the output folders another build saved
        since this cache was read. `target`: the output folder just built; then the tables and
        files of the output folders no longer used are dropped (cache_files.py, `pruned`)."""
        if folder is None:
            return
        self.pruned = ""
        with cache_files.save_lock(folder):
            merged = self._merged(folder)
            if target is None:
                self._write(folder)
                self.pruned = merged
                return
            pruned = cache_files.Pruned()
            current = str(target.resolve())
            self.names[current] = output_name(target)
            files = cache_files.scan(folder)
            outs = self.pages.keys() | self.cards.keys()
            found = cache_files.dropped(outs, self.names, folder, current, files)
            gone = cache_files.not_busy(found, pruned)
            names = {out: self.names.get(out) or output_name(Path(out)) for out in gone}
            for out in gone:
                self.pages.pop(out, None)
                self.cards.pop(out, None)
                self._dropped.add(out)
            pruned.dropped = gone
            outs = self.pages.keys() | self.cards.keys() | {current}
            self.names = {out: name for out, name in self.names.items() if out in outs}
            unnamed = self._tables_read and self.names.keys() >= outs
            self._write(folder)
            live = {self.names.get(out) or output_name(Path(out)) for out in outs}
            cache_files.remove_files(folder, files, live, set(names.values()), unnamed, pruned)
            self.pruned = "; ".join(n for n in (merged, pruned.note) if n)

    def _merged(self, folder: Path) -> str:
        """Take the tables of the output folders this cache has not from build.pickle, if
        another build replaced it since it was read or saved here (`save`). Returns what to
        say at -v if it could not be read."""
        path = folder / FILE
        try:
            seen = stat_key(path)
        except FileNotFoundError:
            return ""
        if seen == self._seen:
            return ""
        try:
            stamp, tables, _ = load_delta(path)
        except UNREADABLE as exc:  # (its tables are not kept: said)
            return f"build cache of another build not merged ({type(exc).__name__}: {exc})"
        if stamp == self.stamp:
            self._take(tables, merge=True)
            self._tables_read = True
        return ""

    def _write(self, folder: Path) -> None:
        now, written = self.docs, self._written
        # the paths whose document is not the very one of its shard as read or written (new,
        # parsed again, gone), found in C: only their shards' documents are gathered again
        # (every path's, if a shard is not known: not read, or none written yet)
        if len(self._shards) == DOC_SHARDS:
            moved = set(compress(now, map(is_not, now.values(), map(written.get, now))))
        else:
            moved = set(now)
        moved.update(written.keys() - now.keys())
        by_shard: dict[int, list[str]] = {}
        for rel in moved:
            by_shard.setdefault(_shard(rel), []).append(rel)
        for shard in range(DOC_SHARDS):
            shard_path = folder / _docs_file(shard)
            before = self._shards.get(shard)
            docs: dict[str, tuple[FileKey, str, Any]]
            if before is not None and shard not in by_shard:
                docs = before  # (each of its documents the very one it holds)
            else:  # (its documents as read, then the others of its paths, in the cache now)
                rels = [*(before or ()), *by_shard.get(shard, ())]
                docs = {rel: now[rel] for rel in rels if rel in now}
            same = before is not None and (docs is before or _same_shard(before, docs))
            if same and (not docs or shard_path.is_file()):
                continue  # unchanged since it was read (an empty one: known absent)
            if docs:
                write_signed(shard_path, out_of_band.dumps((self.stamp, docs)))
            else:
                shard_path.unlink(missing_ok=True)
            self._shards[shard] = docs
        for rel in moved:
            if rel in now:
                written[rel] = now[rel]
            else:
                written.pop(rel, None)
        tables: Tables = {"notes": self.notes}
        tables.update((f"pages {out}", pages) for out, pages in self.pages.items())
        tables.update((f"cards {out}", cards) for out, cards in self.cards.items())
        if self.names:
            tables["names"] = self.names
        # what changed since its base file (an edit: a few pages' fingerprints and files)
        self._base = save_delta(folder / FILE, self.stamp, tables, self._base, TABLES)
        self._seen = stat_key(folder / FILE)
        self._tables_read = True


Tables = dict[str, dict[Any, Any]]  # a file's tables saved as what changed since a base file


@dataclass(frozen=True)
class Base:
    """The base file a file saved as a delta names (`save_delta`): its name and signature,
    and the tables it holds, as read or written (a save writes what changed since); `made`:
    the table each of them is read from in the file (itself if held whole; else the one it is
    held as what differs from: `_base_payload`)."""

    name: str
    signature: bytes
    tables: Tables = field(compare=False, repr=False)
    made: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)


def load_delta(path: Path, ahead: ReadAhead | None = None) -> tuple[Any, Tables, Base]:
    """What `save_delta` saved to `path`: its head, its tables (its base's with what changed)
    and its base. Raises UNREADABLE (either file bad, or not the very base it names)."""
    return delta_from(*read_delta(path, ahead))


def read_delta(path: Path, ahead: ReadAhead | None = None) -> tuple[memoryview, memoryview]:
    """The bytes of a file saved by `save_delta` and of the base file it names, once their
    signatures are checked (`read_signed`; `delta_from` makes them its head and tables)."""
    payload = read_signed(path, ahead=ahead)
    _, (name, signature), _ = _delta_data(payload)
    return payload, read_signed(path.parent / name, signature=signature, ahead=ahead)


def delta_from(
    payload: memoryview | bytes, base_payload: memoryview | bytes
) -> tuple[Any, Tables, Base]:
    """`load_delta`'s head, tables and base, from what `read_delta` read."""
    head, (name, signature), (names, changes) = _delta_data(payload)
    held = _unpickled(base_payload)
    base = _resolved(held, name)
    tables: Tables = {}
    for table in names:
        source, changed, gone = changes.get(table, (table, {}, ()))
        now = dict(base.get(source, {}))
        now.update(changed)
        for key in gone:
            now.pop(key, None)
        tables[table] = now
    return head, tables, Base(name, signature, base, _made(held))


def _resolved(held: Any, name: str) -> Tables:
    """The tables of a base file as `_base_payload` wrote them: each one whole (a table held
    as what differs from another one of the file is made from that one)."""
    if not isinstance(held, dict):
        raise ValueError(f"{name}: not a base file")
    tables: Tables = {}
    for table, found in held.items():
        if isinstance(found, tuple):
            source, changed, gone = found
            whole = held.get(source)
            if not isinstance(whole, dict):
                raise ValueError(f"{name}: {table} made from a table it does not hold")
            found = dict(whole)
            found.update(changed)
            for key in gone:
                del found[key]
        elif not isinstance(found, dict):
            raise ValueError(f"{name}: not a base file")
        tables[table] = found
    return tables


def delta_head(payload: memoryview | bytes) -> Any:
    """The head of a file saved by `save_delta`, from its bytes as `read_delta` read them."""
    return _delta_data(payload)[0]


def _delta_data(payload: memoryview | bytes) -> Any:
    data = _unpickled(payload)
    if not isinstance(data, tuple) or len(data) != 3 or not isinstance(data[1], tuple):
        raise ValueError("not a file saved as a delta")
    name, changes = data[1][0], data[2][1]
    if not isinstance(name, str) or "/" in name or not isinstance(changes, dict):
        raise ValueError("not a file saved as a delta")
    return data


def save_delta(
    path: Path,
    head: object,
    tables: Tables,
    base: Base | None,
    prefix: str,
    alike: Mapping[str, str] | None = None,
    shared: bool = False,
) -> Base:
    """Save `head` and `tables` to `path` as what changed in the tables since the base file
    `base` (the one they were loaded with, or last saved with), if it is still there and
    that is at most a quarter of it; else a new base file (`<prefix>-<random>.pickle`, in
    the same folder) holds the tables, and `path` names it. `alike`: a table that may be
    closer to another one of the base than to its own (the output's folders and its spare
    copy's swap places at every build: uptodate.py), whichever differs less. The base file
    is written first, `path` last and atomically (a kill at any point leaves the old file
    with its base, or the new one), then the base files `path` no longer names are removed.
    `shared`: a file read at every build (the up-to-date record): a new base file is written
    as `_base_payload` says, and as soon as a table is not in its own base (else it would be
    read and compared whole at every build: the spare copy's, after a build that had none,
    until a quarter of the record changed). Returns the base."""
    folder = path.parent
    delta: dict[str, tuple[str, dict[Any, Any], tuple[Any, ...]]] = {}
    if base is not None and not _still_signed(folder / base.name, base.signature):
        base = None  # (replaced since: another build's)
    if base is not None:
        size = 0
        for table, now in tables.items():
            other = alike.get(table) if alike is not None else None
            first = table
            if other is not None and _sample_differs(
                base.tables.get(other, {}), now
            ) < _sample_differs(base.tables.get(table, {}), now):
                first, other = other, table  # (the one closer first: swapped since)
            source, changed, gone = first, *_changes(base.tables.get(first, {}), now)
            if other is not None and (len(changed) + len(gone)) * 4 > len(now):
                found = _changes(base.tables.get(other, {}), now)
                if len(found[0]) + len(found[1]) < len(changed) + len(gone):
                    source, (changed, gone) = other, found
            if changed or gone or source != table:
                delta[table] = (source, changed, gone)
                size += len(changed) + len(gone)
        own = shared and base.name.startswith(f"{prefix}-")  # (not the journal's: uprecord.py)
        if (own and _stale(base, tables, delta)) or size * 4 > max(
            sum(map(len, base.tables.values())), 1
        ):
            base, delta = None, {}
    if base is None:
        name = f"{prefix}-{secrets.token_hex(8)}.pickle"
        if shared:
            kept, held = _base_payload(tables, alike)
        else:
            kept = held = {table: dict(now) for table, now in tables.items()}  # (as on disk)
        base = Base(name, save_signed(folder / name, held), kept, _made(held))
    save_signed(path, (head, (base.name, base.signature), (tuple(tables), delta)))
    for old in folder.glob(f"{prefix}-*.pickle"):
        if old.name != base.name:
            old.unlink(missing_ok=True)
    return base


def _stale(
    base: Base, tables: Tables, delta: dict[str, tuple[str, dict[Any, Any], tuple[Any, ...]]]
) -> bool:
    """Whether a file read at every build (`save_delta`'s `shared`) is better saved with a new
    base than as what changed since `base`: a table is not in the base (it would be read and
    compared whole at every build: the spare copy's, after a build that had none, until a
    quarter of the record changed), or the base holds a table whole that nothing is read
    from any more (no table is made from it: it is unpickled at every build for nothing, as
    the spare copy's files held whole by a base written before its record had the files it
    shares with the output as they are now, ~6 ms a build at 5,000 posts a language, until a
    quarter of the record changed)."""
    read = {delta[table][0] if table in delta else table for table in tables}
    if not read <= base.made.keys():
        return True
    return set(base.made.values()) != set(map(base.made.__getitem__, read))


def _made(held: Mapping[str, Any]) -> dict[str, str]:
    """`Base.made`, from what a base file holds (`_resolved`: checked)."""
    return {table: found[0] if isinstance(found, tuple) else table for table, found in held.items()}


def _base_payload(tables: Tables, alike: Mapping[str, str] | None) -> tuple[Tables, Any]:
    """The tables a new base file holds (copies), and what it pickles of them: each key one
    object in all of them (pickled once: the tables read back share their keys, fewer
    strings are made, and a key of one looked up in another compares no characters), and a
    table `alike` one written whole before it as what differs from it (the output's files and
    its spare copy's: the same but for what the last build changed), if that is at most a
    quarter of it. In C loops but for the differences."""
    one: dict[Any, Any] = {}
    for now in reversed(tables.values()):  # (the first table's key objects: `one`'s values)
        one.update(zip(now, now, strict=True))
    kept: Tables = {}
    held: dict[str, Any] = {}
    for table, now in tables.items():
        kept[table] = whole = dict(zip(map(one.__getitem__, now), now.values(), strict=True))
        other = alike.get(table) if alike is not None else None
        if other is not None and isinstance(held.get(other), dict):
            changed, gone = _changes(kept[other], whole)
            if (len(changed) + len(gone)) * 4 <= len(whole):
                held[table] = (other, changed, gone)
                continue
        held[table] = whole
    return kept, held


def delta_size(path: Path, prefix: str) -> int:
    """The size in bytes of a file saved as a delta with its base files (0: none)."""
    try:
        size = path.stat().st_size
    except OSError:
        return 0
    for base in path.parent.glob(f"{prefix}-*.pickle"):
        with contextlib.suppress(OSError):
            size += base.stat().st_size
    return size


def _still_signed(path: Path, signature: bytes) -> bool:
    """Whether `path` is still the file signed `signature` (another build may have replaced
    it since)."""
    try:
        with path.open("rb") as f:
            return hmac.compare_digest(f.read(32), signature)
    except OSError:
        return False


def restore_files(folder: Path, target: Path) -> list[Path]:
    """The files restore.py `restore` reads for a build into `target` that `ReadAhead` can
    read ahead: the build cache's, the BuildState's (buildstate.py: the state, its tables and parts,
    tens of MB at 5,000 posts a language) and the entries file."""
    name = output_name(target)
    state = [
        folder / f"state-{name}.pickle",
        *sorted(folder.glob(f"tables-{name}-*.pickle")),
        *sorted(folder.glob(f"parts-{name}-*.pickle")),
    ]
    entries = entries_file(folder, target)
    return [*BuildCache.files(folder), *state, entries, *folder.glob(f"{entries.stem}-*.pickle")]


def not_saved(folder: Path, exc: OSError) -> Diagnostic:
    """The warning for a cache or build record that could not be saved after the site was
    published (an unwritable or full disk): the site is fine, the next build does more work."""
    reason = exc.strerror or type(exc).__name__
    where = exc.filename if exc.filename is not None else folder
    return Diagnostic(
        None,
        None,
        "cache-not-saved",
        f"the site is published, but the build cache could not be saved in {folder} "
        f"({reason}: {where}); the next build will not know what this one did, and does "
        "all of its work again",
        Severity.WARNING,
    )


@contextmanager
def kept_to_the_end() -> Iterator[None]:
    """What is made inside lives until the build ends and makes no reference cycles: the
    build cache, BuildState and entries file `bipub build` reads back (restore.py), what
    pairing and planning make (pipeline.py; test_collector.py checks they make no cycles). It
    is made with the cyclic garbage collector off, then frozen (`gc.freeze`: out of its reach,
    as the render stage freezes the planned site), so that no collection walks it: each
    collection of the young objects walked all that was made since the last one (~0.1-0.15 s
    after the reading back and ~0.2 s in pairing and planning, of a build after an edit at
    5,000 posts a language, measured with gc.callbacks). The build thaws it when it ends
    (pipeline.py `_few_collections`); what is no longer referenced meanwhile is freed by its
    reference count. On an error the collector is on again and nothing is frozen."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
        gc.freeze()
    finally:
        if enabled:
            gc.enable()
