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
import os
import pickle
import secrets
import sys
import tempfile
import threading
import zlib
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blake3 import blake3

from bipub import __version__, out_of_band
from bipub.compiled_code import user_cache_dir as user_cache_dir  # (its home: start-up)
from bipub.diagnostics import Diagnostic, Severity
from bipub.table_diff import changes as _changes
from bipub.table_diff import sample_differs as _sample_differs

CACHE_FORMAT = 8  # 6: front matter `image` (issue 19); 7: deltas; 8: bodies out of band
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


FileKey = tuple[int, int, int, int]  # (mtime_ns, ctime_ns, size, inode)


def stat_key(path: Path) -> FileKey:
    """A file's identity, as the up-to-date check has it (uptodate.py): with its ctime, which
    no tool sets back, so a same-size edit whose mtime was restored (`touch -r`) is seen."""
    st = path.stat()
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


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
    # each shard's documents as read or written (`_same_shard`)
    _shards: dict[int, dict[str, Any]] = field(default_factory=dict, repr=False)
    # the base file of build.pickle as read or saved (`save_delta`)
    _base: Base | None = field(default=None, repr=False)

    @property
    def stamp(self) -> tuple[int, str, str]:
        return (CACHE_FORMAT, __version__, sys.version)

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
        if not path.is_file():
            return cls(note="no build cache yet")
        try:
            stamp, tables, base = load_delta(path, ahead=ahead)
        except UNREADABLE as exc:  # any unreadable cache is rebuilt, never trusted
            return cls(note=f"build cache ignored ({type(exc).__name__}: {exc})")
        cache = cls()
        if stamp != cache.stamp:
            return cls(note="build cache ignored (made by another bipub or Python version)")
        for table, items in tables.items():
            kind, _, out = table.partition(" ")
            if kind == "pages":
                cache.pages[out] = items
            elif kind == "cards":
                cache.cards[out] = items
            elif kind == "notes":
                cache.notes = items
        cache._base = base
        for shard in range(DOC_SHARDS):
            shard_path = folder / _docs_file(shard)
            if not shard_path.is_file():
                continue
            try:  # (bodies kept after the pickle, decoded when read: out_of_band.py)
                shard_stamp, docs = out_of_band.loads(read_signed(shard_path, ahead=ahead))
            except UNREADABLE as exc:  # its documents are parsed again, and saved again
                cache.note = f"{_docs_file(shard)} ignored ({type(exc).__name__}: {exc})"
                continue
            if shard_stamp == cache.stamp and isinstance(docs, dict):
                cache.docs.update(docs)
                cache._shards[shard] = docs
        return cache

    def save(self, folder: Path | None) -> None:
        if folder is None:
            return
        groups: dict[int, dict[str, tuple[FileKey, str, Any]]] = {
            shard: {} for shard in range(DOC_SHARDS)
        }
        for rel, entry in self.docs.items():
            groups[_shard(rel)][rel] = entry
        for shard, docs in groups.items():
            shard_path = folder / _docs_file(shard)
            before = self._shards.get(shard)
            if before is not None and _same_shard(before, docs) and shard_path.is_file():
                continue  # unchanged since it was read
            if docs:
                write_signed(shard_path, out_of_band.dumps((self.stamp, docs)))
            else:
                shard_path.unlink(missing_ok=True)
            self._shards[shard] = docs
        tables: Tables = {"notes": self.notes}
        tables.update((f"pages {out}", pages) for out, pages in self.pages.items())
        tables.update((f"cards {out}", cards) for out, cards in self.cards.items())
        # what changed since its base file (an edit: a few pages' fingerprints and files)
        self._base = save_delta(folder / FILE, self.stamp, tables, self._base, TABLES)


Tables = dict[str, dict[Any, Any]]  # a file's tables saved as what changed since a base file


@dataclass(frozen=True)
class Base:
    """The base file a file saved as a delta names (`save_delta`): its name and signature,
    and the tables it holds, as read or written (a save writes what changed since)."""

    name: str
    signature: bytes
    tables: Tables = field(compare=False, repr=False)


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
    base = _unpickled(base_payload)
    if not isinstance(base, dict):
        raise ValueError(f"{name}: not a base file")
    tables: Tables = {}
    for table in names:
        source, changed, gone = changes.get(table, (table, {}, ()))
        now = dict(base.get(source, {}))
        now.update(changed)
        for key in gone:
            now.pop(key, None)
        tables[table] = now
    return head, tables, Base(name, signature, base)


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
) -> Base:
    """Save `head` and `tables` to `path` as what changed in the tables since the base file
    `base` (the one they were loaded with, or last saved with), if it is still there and
    that is at most a quarter of it; else a new base file (`<prefix>-<random>.pickle`, in
    the same folder) holds the tables, and `path` names it. `alike`: a table that may be
    closer to another one of the base than to its own (the output's folders and its spare
    copy's swap places at every build: uptodate.py), whichever differs less. The base file
    is written first, `path` last and atomically (a kill at any point leaves the old file
    with its base, or the new one), then the base files `path` no longer names are removed.
    Returns the base."""
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
        if size * 4 > max(sum(map(len, base.tables.values())), 1):
            base, delta = None, {}
    if base is None:
        name = f"{prefix}-{secrets.token_hex(8)}.pickle"
        kept = {table: dict(now) for table, now in tables.items()}  # (as on disk)
        base = Base(name, save_signed(folder / name, kept), kept)
    save_signed(path, (head, (base.name, base.signature), (tuple(tables), delta)))
    for old in folder.glob(f"{prefix}-*.pickle"):
        if old.name != base.name:
            old.unlink(missing_ok=True)
    return base


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


def output_name(target: Path) -> str:
    """The name the files kept for an output folder carry (its absolute path, hashed)."""
    return hashlib.sha256(str(target.absolute()).encode("utf-8")).hexdigest()[:16]


def entries_file(folder: Path, target: Path) -> Path:
    """The entries file of the output folder `target` in the cache `folder` (restore.py)."""
    return folder / f"entries-{output_name(target)}.pickle"


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
    return [*BuildCache.files(folder), *state, entries_file(folder, target)]


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


class UnsignedCache(Exception):
    """A cache file not signed with this user's key (planted, copied or corrupt)."""


# what reading a cache file can raise when the file is missing, damaged, planted or written by
# another bipub (its classes changed); anything else is a bug, and is not taken for a bad file
UNREADABLE: tuple[type[Exception], ...] = (
    OSError,
    UnsignedCache,
    pickle.UnpicklingError,
    EOFError,
    ValueError,
    KeyError,
    TypeError,
    IndexError,
    AttributeError,
    ImportError,
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


def load_signed(
    path: Path, skip: int = 0, signature: bytes | None = None, ahead: ReadAhead | None = None
) -> Any:
    """Unpickle a file written by save_signed, after checking its signature. `skip`: the
    length of the plain `prefix` it was saved with; `signature`: the one the file must have
    (as `save_signed` returned it: a file that names this one expects this very file, not
    another one signed with the same key); `ahead`: read_signed's."""
    return _unpickled(read_signed(path, skip, signature, ahead))


def _unpickled(payload: memoryview | bytes) -> Any:
    """`payload` unpickled (bytes whose signature was checked: `read_signed`)."""
    # unpickling makes hundreds of thousands of objects and no garbage: without the cyclic
    # collector, which would otherwise walk them all in vain (~⅓ of reading the build cache)
    enabled = gc.isenabled()
    gc.disable()
    try:
        return pickle.loads(payload)  # noqa: S301 - signed by us (see module docstring)
    finally:
        if enabled:
            gc.enable()


def read_signed(
    path: Path, skip: int = 0, signature: bytes | None = None, ahead: ReadAhead | None = None
) -> memoryview:
    """The bytes a file written by `write_signed` (or save_signed) holds after its signature,
    once the signature is checked (UnsignedCache otherwise; `skip`, `signature`: load_signed).
    The file is read into memory whole before it is checked: a view of the file itself could
    change after the check. `ahead`: the file as read and checked ahead (`ReadAhead`), taken
    if it is still the same file (else read here)."""
    if ahead is not None and not skip:
        payload = ahead.take(path, signature)
        if payload is not None:
            return payload
    blob = memoryview(path.read_bytes())[skip:]  # (a view: a state file is tens of MB)
    return _checked(blob, signature)


def _checked(blob: memoryview, signature: bytes | None = None) -> memoryview:
    """What `blob` holds after its signature, once that is checked (`read_signed`)."""
    found, payload = blob[:32], blob[32:]
    if signature is not None and not hmac.compare_digest(found, signature):
        raise UnsignedCache("not the file expected (another build's, or one put in its place)")
    if not hmac.compare_digest(found, _sign(payload)):
        raise UnsignedCache("damaged, or not signed by this user's key")
    return payload


class ReadAhead:
    """Cache files read and checked against their signatures on a thread of their own, while
    the process goes on (`bipub build` imports its stages meanwhile: ~0.3 s, against ~0.08 s
    to read and check the ~175 MB of files `restore_files` names at 5,000 posts a language;
    reading a file and BLAKE3 release the interpreter's lock, so the two share the cores).

    `take` gives a file's checked bytes to `read_signed` if the path is still the very file
    that was read (its identity: mtime, ctime, size, inode, as `stat_key` has it; a cache
    file is only ever replaced whole, by a rename): the bytes unpickled are always bytes
    whose signature was checked, as when `read_signed` reads the file itself. A file that
    could not be read or whose signature is wrong is not kept: `read_signed` reads it again
    and says why, as without it. Nothing is unpickled on the thread.

    Use it as a context manager, and `wait` for it before forking: a process must not fork
    while the thread runs (parallel.can_fork)."""

    def __init__(self, paths: Iterable[Path]) -> None:
        self._paths = list(paths)
        # path → its identity, its signature and its bytes after it, once checked
        self._read: dict[Path, tuple[FileKey, bytes, memoryview]] = {}
        self.taken = 0  # files taken as read ahead
        self.again = 0  # files read again: replaced since they were read ahead
        self._thread = threading.Thread(target=self._run, name="bipub-read-ahead", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        for path in self._paths:
            try:
                with path.open("rb") as f:
                    st = os.fstat(f.fileno())
                    blob = memoryview(f.read())
                payload = _checked(blob)
            except (OSError, UnsignedCache):  # (read again by read_signed, which says why)
                continue
            key = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
            self._read[path] = (key, bytes(blob[:32]), payload)

    def wait(self) -> None:
        """Until every file is read and checked (the thread has ended)."""
        self._thread.join()

    def take(self, path: Path, signature: bytes | None = None) -> memoryview | None:
        """The checked bytes of `path` after its signature, if it was read ahead and is still
        the same file (with `signature`, if given: `read_signed`); else None (read it)."""
        self.wait()
        found = self._read.pop(path, None)
        if found is None:
            return None
        try:
            same = stat_key(path) == found[0]
        except OSError:
            same = False
        if not same:
            self.again += 1
            return None
        if signature is not None and not hmac.compare_digest(found[1], signature):
            return None  # (read_signed reads it and refuses it: not the file expected)
        self.taken += 1
        return found[2]

    def release(self) -> None:
        """Forget the files read ahead that were not taken (read when asked for, after)."""
        self.wait()
        self._read.clear()

    @property
    def note(self) -> str:
        """What was read again, for `-v` (nothing to say otherwise)."""
        if not self.again:
            return ""
        n = self.again
        return f"{n} cache file{'s' if n != 1 else ''} read again (replaced since read ahead)"

    def __enter__(self) -> ReadAhead:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def save_signed(path: Path, value: object, prefix: bytes = b"") -> bytes:
    """Pickle `value` to `path` atomically, signed with this user's key. A `prefix` (written
    first, in the clear) lets a reader reject the file without reading all of it. Returns the
    signature (`load_signed` can require it)."""
    return write_signed(path, [pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)], prefix)


def write_signed(path: Path, pieces: list[bytes | memoryview], prefix: bytes = b"") -> bytes:
    """Write `pieces`, one after the other, to `path` atomically, signed with this user's key
    (`read_signed` checks it). Returns the signature."""
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    gitignore = folder / ".gitignore"
    if not gitignore.exists():  # the cache folder is never committed
        gitignore.write_text("*\n", encoding="utf-8")
    signature = _sign_pieces(pieces)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(prefix)
            f.write(signature)
            f.writelines(pieces)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return signature


def write_cache_file(path: Path, data: bytes) -> None:
    """Write a file of a cache atomically: a temporary file in its folder (made if missing),
    then a rename, so a reader sees the old file or the whole new one; a failed write leaves no
    temporary file behind. Raises OSError (the caller says what not keeping it costs)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _key() -> bytes:
    path = user_cache_dir() / "cache-key"
    try:
        key = path.read_bytes()
        if len(key) >= 32:
            return key
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(32)
    fd, tmp = tempfile.mkstemp(dir=path.parent)
    with os.fdopen(fd, "wb") as f:
        f.write(key)
    os.chmod(tmp, 0o600)
    try:
        os.link(tmp, path)  # first writer wins; a concurrent bipub reads the same key
    except FileExistsError:
        pass
    finally:
        os.unlink(tmp)
    return path.read_bytes()


def _sign(payload: bytes | memoryview) -> bytes:
    return _sign_pieces([payload])


def _sign_pieces(pieces: list[bytes | memoryview]) -> bytes:
    key = _key()
    if len(key) != 32:  # (a key file of another length: BLAKE3 takes 32 bytes)
        key = blake3(key, derive_key_context="bipub 2026 cache-key").digest()
    hasher = blake3(key=key)
    for piece in pieces:
        hasher.update(piece)
    return hasher.digest()
