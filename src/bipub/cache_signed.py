"""Cache files signed with this user's key, and read back only once their signature is checked.

The cache files are pickled, and unpickling runs code, so a cache planted in a cloned repository
must never be loaded: every cache file is signed (keyed BLAKE3, a MAC) with a key kept outside
the project, in the user's cache folder (`$XDG_CACHE_HOME/bipub/cache-key`, mode 0600). A file
without a valid signature is ignored (cache.py says more).
"""

from __future__ import annotations

import gc
import hmac
import os
import pickle
import secrets
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from blake3 import blake3

from bipub.compiled_code import user_cache_dir

FileKey = tuple[int, int, int, int]  # (mtime_ns, ctime_ns, size, inode)


def stat_key(path: Path) -> FileKey:
    """A file's identity, as the up-to-date check has it (uptodate.py): with its ctime, which
    no tool sets back, so a same-size edit whose mtime was restored (`touch -r`) is seen."""
    st = path.stat()
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


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

    The files are read in the order given, which is the order they are read back in: `take`
    waits for the file asked for only, not for the rest, so the reading of the next files
    goes on while the first ones are unpickled (the build cache's documents, ~0.12 s at 5,000
    posts a language, against the BuildState's and the entries file's ~40 MB still read).

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
        self._place = {path: n for n, path in enumerate(self._paths)}  # (its last place)
        # path → its identity, its signature and its bytes after it, once checked
        self._read: dict[Path, tuple[FileKey, bytes, memoryview]] = {}
        self._done = 0  # how many of the files (in their order) the thread is done with
        self._ready = threading.Condition()
        self.taken = 0  # files taken as read ahead
        self.again = 0  # files read again: replaced since they were read ahead
        self._thread = threading.Thread(target=self._run, name="bipub-read-ahead", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            for path in self._paths:
                try:
                    with path.open("rb") as f:
                        st = os.fstat(f.fileno())
                        blob = memoryview(f.read())
                    payload = _checked(blob)
                except (OSError, UnsignedCache):  # (read again by read_signed, which says why)
                    payload = None
                if payload is not None:
                    key = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
                    self._read[path] = (key, bytes(blob[:32]), payload)
                with self._ready:
                    self._done += 1
                    self._ready.notify_all()
        finally:  # (done with every file, whatever happened: no `take` waits for ever)
            with self._ready:
                self._done = len(self._paths)
                self._ready.notify_all()

    def wait(self) -> None:
        """Until every file is read and checked (the thread has ended)."""
        self._thread.join()

    def _wait_for(self, path: Path) -> None:
        """Until the thread is done with `path` (read and checked, or not kept)."""
        place = self._place.get(path)
        if place is None:
            return
        with self._ready:
            self._ready.wait_for(lambda: self._done > place)

    def take(self, path: Path, signature: bytes | None = None) -> memoryview | None:
        """The checked bytes of `path` after its signature, if it was read ahead and is still
        the same file (with `signature`, if given: `read_signed`); else None (read it)."""
        self._wait_for(path)
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
