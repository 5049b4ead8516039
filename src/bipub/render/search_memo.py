"""A memo of the search index's work that builds share: `BIPUB_SEARCH_MEMO=<folder>`.

Made for bipub's own test suite (tests/conftest.py sets it for a test run: hundreds of builds of
the same few projects in several processes), usable by anyone who builds the same pages many
times. Two things are kept in the folder, each under a key that holds everything it is made of:

- `stems-<key>.json`: Korean words and their stems (Kiwi's analysis of each word on its own; the
  key: the stemming rules' source and the versions of Kiwi and its model). A build that meets
  only words found before does not load Kiwi (its model: ~1.4 s of CPU and ~320 MB a process).
- `bundle-<key>.bin`: a Pagefind bundle, under a digest of the language, the pages (URL and
  HTML, before the stems are added), the stemming key and the Pagefind binary (its package's
  version, path, size and modification time). Only a whole bundle (`search.incomplete` finds
  nothing wrong, every page counted) is kept.

A memo entry is written whole or not at all (a temporary file renamed into place). One that
cannot be read, or whose digest does not match its contents (cut short, changed), is ignored
and made again, and the build says so with -v (`notes`); an entry is never published unless it
is whole. A folder that cannot be written is said with -v too: the build goes on without it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import struct
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Final

ENV: Final = "BIPUB_SEARCH_MEMO"
_MAGIC: Final = b"bipub-search-bundle 1\n"
_LEN = struct.Struct(">Q")


class SearchMemo:
    """The memo folder of a build, or none (`folder` None: every method does nothing)."""

    def __init__(self, folder: Path | None, stamp: Iterable[object]) -> None:
        self.folder = folder
        self.stamp = hashlib.sha256(repr(tuple(stamp)).encode("utf-8")).hexdigest()[:24]
        self.notes: list[str] = []  # what went wrong with the memo (build -v)
        self.hits = 0  # bundles taken from the memo

    @classmethod
    def from_env(cls, stamp: Iterable[object], env: Mapping[str, str] | None = None) -> SearchMemo:
        value = (os.environ if env is None else env).get(ENV, "")
        return cls(Path(value) if value else None, stamp)

    # ------------------------------------------------------------------ stems

    def _stems_path(self) -> Path | None:
        return None if self.folder is None else self.folder / f"stems-{self.stamp}.json"

    def stems(self) -> dict[str, list[str]]:
        """The stems found by earlier builds ({} without a memo, or if it cannot be read); read
        under a shared lock (a build or seeding that is adding stems is waited for)."""
        path = self._stems_path()
        if path is None or not path.exists():
            return {}
        try:
            with open(path.with_name(path.name + ".lock"), "a+b") as lock:
                fcntl.flock(lock, fcntl.LOCK_SH)  # (released when the file closes)
                return self._read_stems(path)
        except OSError as exc:
            self.notes.append(f"search memo: {path} ignored ({_why(exc)})")
            return {}

    @contextmanager
    def locked(self) -> Iterator[None]:
        """The stems locked for this process (others wait to read or add them): for adding
        many (`add_stems(..., locked=True)` inside)."""
        path = self._stems_path()
        if path is None:
            yield
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.with_name(path.name + ".lock"), "a+b") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def _read_stems(self, path: Path) -> dict[str, list[str]]:
        try:
            data = json.loads(path.read_bytes())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            self.notes.append(f"search memo: {path} ignored ({_why(exc)})")
            return {}
        if not isinstance(data, dict) or not all(
            isinstance(v, list) and all(isinstance(s, str) for s in v) for v in data.values()
        ):
            self.notes.append(f"search memo: {path} ignored (not a table of stems)")
            return {}
        return data

    def add_stems(self, found: Mapping[str, list[str]], *, locked: bool = False) -> None:
        """Add words and their stems (under the lock: other builds add theirs at the same time;
        `locked`: this process holds it already, `locked()`)."""
        path = self._stems_path()
        if path is None or not found:
            return
        try:
            with contextlib.nullcontext() if locked else self.locked():
                merged = {**self._read_stems(path), **found}
                text = json.dumps(merged, ensure_ascii=False, sort_keys=True)
                _write_whole(path, text.encode("utf-8"))
        except OSError as exc:
            self.notes.append(f"search memo: the stems could not be saved in {path} ({_why(exc)})")

    # ------------------------------------------------------------------ bundles

    def bundle_key(self, lang: str, pages: Iterable[tuple[str, str]], binary: str) -> str:
        h = hashlib.sha256()
        h.update(repr((self.stamp, lang, binary)).encode("utf-8"))
        for url, html in pages:
            h.update(b"\0" + url.encode("utf-8") + b"\0" + html.encode("utf-8"))
        return h.hexdigest()

    def bundle(self, key: str) -> dict[str, bytes] | None:
        """The bundle kept under `key`, or None (none kept, or not whole: said in `notes`)."""
        if self.folder is None:
            return None
        path = self.folder / f"bundle-{key}.bin"
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            self.notes.append(f"search memo: {path} ignored ({_why(exc)})")
            return None
        files = _unpack(data)
        if files is None:
            self.notes.append(f"search memo: {path} ignored (damaged: its digest does not match)")
            return None
        return files

    def keep_bundle(self, key: str, files: Mapping[str, bytes]) -> None:
        if self.folder is None:
            return
        path = self.folder / f"bundle-{key}.bin"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            _write_whole(path, _pack(files))
        except OSError as exc:
            self.notes.append(f"search memo: {path} could not be saved ({_why(exc)})")


def _why(exc: BaseException) -> str:
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc) or type(exc).__name__


def _write_whole(path: Path, data: bytes) -> None:
    """Write `path` whole or not at all (a temporary file beside it, renamed into place)."""
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):  # (the error raised is the one to tell)
            os.unlink(tmp)
        raise


def _pack(files: Mapping[str, bytes]) -> bytes:
    body = bytearray()
    for name in sorted(files):
        raw = name.encode("utf-8")
        body += _LEN.pack(len(raw)) + raw + _LEN.pack(len(files[name])) + files[name]
    return _MAGIC + hashlib.sha256(body).digest() + bytes(body)


def _unpack(data: bytes) -> dict[str, bytes] | None:
    """The files of a packed bundle, or None if it is not whole (its digest does not match)."""
    head = len(_MAGIC) + 32
    if not data.startswith(_MAGIC) or len(data) < head:
        return None
    body = memoryview(data)[head:]
    if hashlib.sha256(body).digest() != data[len(_MAGIC) : head]:
        return None
    files: dict[str, bytes] = {}
    at = 0
    try:
        while at < len(body):
            (n,) = _LEN.unpack_from(body, at)
            name = bytes(body[at + 8 : at + 8 + n]).decode("utf-8")
            at += 8 + n
            (n,) = _LEN.unpack_from(body, at)
            files[name] = bytes(body[at + 8 : at + 8 + n])
            at += 8 + n
    except (struct.error, UnicodeDecodeError):
        return None
    return files if at == len(body) else None
