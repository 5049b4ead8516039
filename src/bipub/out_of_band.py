"""Pickles whose big byte strings are kept out of the pickle (protocol 5's out-of-band buffers),
after it in the same file, and read back as views of the file's bytes, not copies.

The build cache's documents (cache.py `build-docs-NN.pickle`) are most of what a build in a new
process reads back (~68 MB at 5,000 posts per language, ~57 MB of it the bodies), yet a build
after an edit reads the bodies of only the documents it parses again. A class says how its
objects are pickled so (`_out_of_band`: a reduce value whose arguments may hold
`pickle.PickleBuffer`s; load/content.py `Document`: its body's UTF-8 bytes, decoded when first
read). The file holds the pickle's length, the pickle, the number of buffers and each one's
length, then the buffers.
"""

from __future__ import annotations

import gc
import io
import pickle
from typing import Any

_LENGTH = 8  # bytes of a length (little-endian)


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        reduce = getattr(type(obj), "_out_of_band", None)
        return NotImplemented if reduce is None else reduce(obj)


def dumps(value: object) -> list[bytes | memoryview]:
    """`value` pickled with the buffers its objects' `_out_of_band` give kept after it: the
    pieces of the file (`loads` reads them back)."""
    buffers: list[pickle.PickleBuffer] = []
    out = io.BytesIO()
    _Pickler(out, protocol=5, buffer_callback=buffers.append).dump(value)
    stream = out.getvalue()
    views = [b.raw() for b in buffers]
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
    lengths = [_length(payload, at + _LENGTH * i) for i in range(count)]
    at += _LENGTH * count
    views = []
    for length in lengths:
        views.append(payload[at : at + length])
        at += length
    if at != size or stream_end > size:
        raise ValueError("not a file of out-of-band pickles (cut or longer)")
    enabled = gc.isenabled()  # (as cache.py `_unpickled`: no garbage, nothing to walk)
    gc.disable()
    try:
        return pickle.loads(payload[_LENGTH:stream_end], buffers=views)  # noqa: S301 - signed
    finally:
        if enabled:
            gc.enable()


def _length(payload: memoryview, at: int) -> int:
    if at + _LENGTH > len(payload):
        raise ValueError("not a file of out-of-band pickles (cut)")
    return int.from_bytes(payload[at : at + _LENGTH], "little")
