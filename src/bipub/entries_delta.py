"""The entries file (restore.py) on disk as a small file naming a base file, and what changed
since: a build after an edit pickles and writes the few entries it changed, not all of them.

* The base file, `entries-<output>-<id>.pickle`: its index (each entry's documents and status
  records as paired, and where its values are: restore.py `Index`) and then each entry's values
  as a byte string of its own.
* The small file, `entries-<output>.pickle`, written last and atomically: the configuration,
  the keys' status records and what their `around` came from (small: ~90 KB at 5,000 posts a
  language), the name and signature of its base, the index items set since the base (their
  values after the index, in this file) and the entries gone.

Both files start with their header's length (8 bytes, after the signature) and are signed like
every cache file; the small file names its base by its signature, so a base damaged, removed,
or replaced by another one (even one signed with this user's key) is refused, never unpickled.
A save writes a new base when what changed since is more than a quarter of it (or the base it
read is no longer on disk: another build's), then the small file, then removes the base files
it does not name: a kill at any point leaves the old small file with its base, or the new one
with its own.
"""

from __future__ import annotations

import pickle
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bipub.cache import ReadAhead, read_signed, write_signed
from bipub.cache import _still_signed as _still_signed

_HEAD = 8  # bytes of the header's length, after the signature
NEW_BASE = 4  # a new base file when what changed since is more than 1/NEW_BASE of it

# a group → (its documents, its status records, start, end of its values) (restore.py `Index`)
Index = dict[Any, tuple[Any, Any, int, int]]


class Blobs:
    """The entries' values of a base file and of the small file after it, sliced as one: an
    item of the small file is at its offset past the base's values."""

    def __init__(self, base: memoryview, more: memoryview) -> None:
        self.base = base
        self.more = more
        self._n = len(base)

    def __getitem__(self, where: slice) -> memoryview:
        start, stop = where.start, where.stop
        if stop <= self._n:
            return self.base[start:stop]
        return self.more[start - self._n : stop - self._n]


@dataclass(frozen=True)
class Base:
    """The base file an entries file was read with, or saved with (`save`)."""

    name: str
    signature: bytes
    index: Index = field(compare=False, repr=False)


def _parts(payload: memoryview) -> tuple[Any, memoryview]:
    size = int.from_bytes(payload[:_HEAD], "little")
    if size > len(payload) - _HEAD:
        raise ValueError("cut short")
    head = pickle.loads(payload[_HEAD : _HEAD + size])  # noqa: S301 - signed by us
    return head, payload[_HEAD + size :]


def load(
    path: Path, stamp: object, ahead: ReadAhead | None = None
) -> tuple[tuple[Any, ...] | None, Index, Blobs | memoryview, Base | None]:
    """The entries file at `path` with its base: its head (None: of another `stamp`), its
    index (the base's with what changed since), the values it indexes and its base. Raises
    cache.UNREADABLE (either file bad, or not the very base it names)."""
    head, more = _parts(read_signed(path, ahead=ahead))
    if not isinstance(head, tuple) or not head or head[0] != stamp:
        return None, {}, more, None
    if len(head) != 7 or not isinstance(head[4], tuple):
        raise ValueError("not an entries file")
    _, config, status, around, (name, signature), changed, gone = head
    if not isinstance(name, str) or "/" in name or not isinstance(changed, dict):
        raise ValueError("not an entries file")
    base_head, blobs = _parts(read_signed(path.parent / name, signature=signature, ahead=ahead))
    if not isinstance(base_head, tuple) or len(base_head) != 2 or base_head[0] != stamp:
        raise ValueError(f"{name}: not its base file")
    base_index = base_head[1]
    if not isinstance(base_index, dict):
        raise ValueError(f"{name}: not its base file")
    base = Base(name, signature, base_index)
    if not changed and not gone:
        return (stamp, config, status, around), base_index, blobs, base
    index = dict(base_index)  # (the base's items: the very tuples of `base.index`)
    n = len(blobs)
    for group, (docs, read, start, end) in changed.items():
        index[group] = (docs, read, start + n, end + n)
    for group in gone:
        index.pop(group, None)
    return (stamp, config, status, around), index, Blobs(blobs, more), base


def save(
    path: Path,
    head: tuple[Any, ...],
    entries: Mapping[Any, tuple[Any, Any, bytes | memoryview, object]],
    base: Base | None,
) -> Base:
    """Save the entries file: `head` (stamp, configuration, status records, `around`), and
    each group's documents, status records, values and the index item it was read with
    (None: pickled again), as what changed since `base` (the module's text). Returns the
    base it names."""
    folder = path.parent
    stamp = head[0]
    changed: dict[Any, tuple[Any, Any, bytes | memoryview]] = {}
    gone: tuple[Any, ...] = ()
    if base is not None and not _still_signed(folder / base.name, base.signature):
        base = None  # (replaced since: another build's)
    if base is not None:
        was = base.index
        for group, (docs, read, blob, old) in entries.items():
            if old is None or old is not was.get(group):
                changed[group] = (docs, read, blob)
        gone = tuple(was.keys() - entries.keys())
        if (len(changed) + len(gone)) * NEW_BASE > max(len(was), 1):
            base = None
    if base is None:
        index: Index = {}
        pieces: list[bytes | memoryview] = []
        offset = 0
        for group, (docs, read, blob, _) in entries.items():
            index[group] = (docs, read, offset, offset + len(blob))
            pieces.append(blob)
            offset += len(blob)
        name = f"{path.stem}-{secrets.token_hex(8)}.pickle"
        base_head = pickle.dumps((stamp, index), protocol=pickle.HIGHEST_PROTOCOL)
        signature = write_signed(
            folder / name, [len(base_head).to_bytes(_HEAD, "little"), base_head, *pieces]
        )
        base, changed, gone = Base(name, signature, index), {}, ()
    small: Index = {}
    pieces = []
    offset = 0
    for group, (docs, read, blob) in changed.items():
        small[group] = (docs, read, offset, offset + len(blob))
        pieces.append(blob)
        offset += len(blob)
    data = pickle.dumps(
        (*head, (base.name, base.signature), small, gone), protocol=pickle.HIGHEST_PROTOCOL
    )
    write_signed(path, [len(data).to_bytes(_HEAD, "little"), data, *pieces])
    forget(path, keep=base.name)
    return base


def forget(path: Path, keep: str = "") -> None:
    """Remove the base files of the entries file `path` but `keep` (all: with the file)."""
    for old in path.parent.glob(f"{path.stem}-*.pickle"):
        if old.name != keep:
            old.unlink(missing_ok=True)
    if not keep:
        path.unlink(missing_ok=True)
