"""Pickles whose big byte strings are kept out of the pickle (protocol 5's out-of-band buffers),
after it in the same file, and read back as views of the file's bytes, not copies.

The build cache's documents (cache.py `build-docs-NN.pickle`) are most of what a build in a new
process reads back (~68 MB at 5,000 posts per language, ~57 MB of it the bodies), yet a build
after an edit reads the bodies of only the documents it parses again. A class says how its
objects are pickled so (`_out_of_band`: a reduce value whose arguments may hold
`pickle.PickleBuffer`s; load/content.py `Document`: its body's UTF-8 bytes, decoded when first
read). The file holds the pickle's length, the pickle, the number of buffers and each one's
length, then the buffers.

A class's `_out_of_band` may also put a value in the file's `Batch` (its second argument,
`later`: the value's place there, to hold in the reduce value): the values of a file's batch are
pickled together, as its last buffer, and unpickled all at once when the first of them is read
(`Batch.get`): the build cache's documents keep their validated front matter, section spans and
pickled parsed front matter so (load/doc_state.py `body_apart`), which a build after an edit
reads of ~10 of 10,000 documents, and one that lists every post reads of all (one pickle a
shard, not one a document: as fast as in the pickle).
"""

from __future__ import annotations

import copyreg
import gc
import io
import pickle
import struct
import sys
from itertools import accumulate
from typing import Any

_LENGTH = 8  # bytes of a length (little-endian)
_PROTOCOL = 5  # (out-of-band buffers)
_DEFAULT_REDUCE_EX: Any = object.__reduce_ex__  # (a class's own reduce, if not these)
_DEFAULT_REDUCE: Any = object.__reduce__


_BATCH = "batch"  # (the persistent id of the file's `Batch`)


class Batch:
    """The values a file's objects put in its batch (`_Pickler.later`), pickled together and
    unpickled all at once when the first is read (`get`; from the file's bytes, checked)."""

    __slots__ = ("_data", "_values")

    def __init__(self, data: memoryview | bytes) -> None:
        self._data: memoryview | bytes | None = data
        self._values: list[Any] | None = None

    def get(self, index: int) -> Any:
        """The value at `index`. (No lock, which a process forked while another thread held
        it would never see released: two threads asking at once may each unpickle the
        batch, and get equal values; load/doc_state.py keeps the first a document got.)"""
        values = self._values
        if values is None:
            data = self._data
            if data is None:  # (unpickled by another thread meanwhile: `_values` set first)
                values = self._values
            else:
                values = self._values = _unpickled(data)
                self._data = None
        assert values is not None
        return values[index]


class _Later:
    """Where a value put in the file's batch is (`_Pickler.later`): the batch, by its
    persistent id, and the value's index in it."""


_LATER = _Later()


class _Pickler(pickle.Pickler):
    """Pickles each object of a class with `_out_of_band` as it says, and the string keys of
    the dicts in an object's state (of its `_out_of_band` or of the default reduce of a class
    of its own: a model's, a dataclass's) as one string each, so pickled once per file: made
    apart (each document parsed in a worker and sent back), each document's ~30 field names
    were so many strings more to make when read back (~280,000 at 10,000 documents)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.batch: list[Any] = []  # (the file's `Batch`: `later`)

    def later(self, value: Any) -> tuple[Any, int]:
        """`value` put in the file's batch: what to pickle in its place (read back as the
        file's `Batch` and the value's index in it)."""
        self.batch.append(value)
        return (_LATER, len(self.batch) - 1)

    def persistent_id(self, obj: Any) -> str | None:
        return _BATCH if obj is _LATER else None

    def reducer_override(self, obj: Any) -> Any:
        kind = type(obj)
        reduce = getattr(kind, "_out_of_band", None)
        if reduce is not None:
            found = reduce(obj, self.later)
            return (found[0], tuple(map(interned, found[1])), *found[2:])
        if (
            kind.__module__ == "builtins"  # (functions, types: pickled by their names)
            or isinstance(obj, type)  # (a class of another metaclass: a model's)
            or getattr(kind, "__reduce_ex__", None) is not _DEFAULT_REDUCE_EX
            or getattr(kind, "__reduce__", None) is not _DEFAULT_REDUCE
            or kind in copyreg.dispatch_table
        ):
            return NotImplemented
        found = obj.__reduce_ex__(_PROTOCOL)
        if type(found) is not tuple or len(found) < 3 or type(found[2]) is not dict:
            return NotImplemented
        return (*found[:2], interned(found[2]), *found[3:])


def interned(value: Any) -> Any:
    """`value` with the string keys of a dict, and of the dicts its values are, and the strings
    of such a set, interned (equal values: each pickled once, `_Pickler`)."""
    kind = type(value)
    if kind is dict:
        return {
            (sys.intern(key) if type(key) is str else key): interned(item)
            for key, item in value.items()
        }
    if kind is set and all(type(item) is str for item in value):
        return set(map(sys.intern, value))
    return value


def dumps(value: object) -> list[bytes | memoryview]:
    """`value` pickled with the buffers its objects' `_out_of_band` give kept after it: the
    pieces of the file (`loads` reads them back)."""
    buffers: list[pickle.PickleBuffer] = []
    out = io.BytesIO()
    pickler = _Pickler(out, protocol=_PROTOCOL, buffer_callback=buffers.append)
    pickler.dump(value)
    stream = out.getvalue()
    views = [b.raw() for b in buffers]
    if pickler.batch:  # (the last buffer: `loads` makes the `Batch` of it)
        out = io.BytesIO()
        _Pickler(out, protocol=_PROTOCOL).dump(pickler.batch)
        views.append(memoryview(out.getvalue()))
    lengths = b"".join(len(v).to_bytes(_LENGTH, "little") for v in views)
    head = len(stream).to_bytes(_LENGTH, "little") + stream + len(views).to_bytes(_LENGTH, "little")
    return [head, lengths, *views]


def loads(payload: memoryview) -> Any:
    """What `dumps` pickled, from the file's bytes (checked already: cache.py `read_signed`);
    its buffers are views of `payload`. Raises ValueError for bytes `dumps` did not write."""
    size = len(payload)
    n = _length(payload, 0)
    stream_end = _LENGTH + n
    count = _length(payload, stream_end)
    at = stream_end + _LENGTH
    if at + _LENGTH * count > size:
        raise ValueError("not a file of out-of-band pickles (cut)")
    # (the buffers' lengths, where each starts and its view: in C, ~80 buffers a file)
    starts = list(
        accumulate(struct.unpack_from(f"<{count}Q", payload, at), initial=at + _LENGTH * count)
    )
    views = list(map(payload.__getitem__, map(slice, starts, starts[1:])))
    if starts[-1] != size or stream_end > size:
        raise ValueError("not a file of out-of-band pickles (cut or longer)")
    batch: list[Batch] = []

    def persistent_load(pid: Any) -> Batch:  # (the file's batch: its last buffer, `dumps`)
        if pid != _BATCH or not views:
            raise pickle.UnpicklingError("not a file of out-of-band pickles (no batch)")
        if not batch:
            batch.append(Batch(views[-1]))
        return batch[0]

    stream = io.BytesIO(payload[_LENGTH:stream_end])
    unpickler = pickle.Unpickler(stream, buffers=views)  # noqa: S301 - signed: read_signed
    unpickler.persistent_load = persistent_load  # type: ignore[method-assign]
    enabled = gc.isenabled()  # (as cache.py `_unpickled`: no garbage, nothing to walk)
    gc.disable()
    try:
        return unpickler.load()  # (signed: read_signed)
    finally:
        if enabled:
            gc.enable()


def _unpickled(data: memoryview | bytes) -> Any:
    """A file's batch unpickled (its bytes checked with the file's: `loads`)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return pickle.loads(data)  # noqa: S301 - of a signed file
    finally:
        if enabled:
            gc.enable()


def _length(payload: memoryview, at: int) -> int:
    if at + _LENGTH > len(payload):
        raise ValueError("not a file of out-of-band pickles (cut)")
    return int.from_bytes(payload[at : at + _LENGTH], "little")
