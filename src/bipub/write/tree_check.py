"""Is a site tree exactly as its record says? One lstat per recorded folder and file.

The check an update runs before it trusts the record of the output and of its spare copy
(uptodate.py `folders_intact`): a file added to, removed from or replaced in a folder shows in
the folder's identity, a file edited in place only in its own. On a big site that is ~80,000
lstat calls (~0.25 s), so `bipub serve` runs it in another process while it loads and plans:
this file is also that process's program (`python -I -S tree_check.py`, the tables on its
standard input, the answer on its standard output). It imports nothing but the standard
library, so that process starts in ~10 ms.
"""

from __future__ import annotations

import os
import struct
import sys
from collections.abc import Iterable

PACKED = struct.Struct("<qqqQQ")  # write/record.py's identity: (mtime, ctime, size, inode, mode)
_HEADER = struct.Struct("<QQq")  # the request: the names' length, the two tables' lengths
_SIZE = PACKED.size


def unchanged(folder: str, names: Iterable[str], idents: Iterable[bytes]) -> bool:
    """Every name (relative to `folder`; "" is the folder itself) has its identity. Paths are
    looked up relative to the open folder: cheaper than joining and resolving each one."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return False
    stat, pack = os.stat, PACKED.pack
    try:
        for rel, ident in zip(names, idents, strict=True):
            st = stat(rel or ".", dir_fd=fd, follow_symlinks=False)
            if pack(st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_mode) != ident:
                return False
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def request(
    out: str,
    tables: tuple[dict[str, bytes], ...],
    prev: str | None,
    spare: dict[str, bytes] | None,
) -> bytes:
    """What the checking process reads: the output folder and its tables (folders first: a
    folder swapped for a symbolic link fails there), the spare copy and its folders (None: the
    record has none)."""
    names = [out, prev or "", *(n for table in tables for n in table), *(spare or {})]
    blob = "\0".join(names).encode("utf-8", "surrogateescape")
    idents = b"".join(i for table in (*tables, spare or {}) for i in table.values())
    count = sum(len(table) for table in tables)
    return _HEADER.pack(len(blob), count, -1 if spare is None else len(spare)) + blob + idents


def answer(data: bytes) -> bytes:
    """b"+": both trees are as recorded; b"s": the output is, the spare copy is not; b"-":
    the output is not (uptodate.py `folders_intact`)."""
    size, count, spare = _HEADER.unpack_from(data)
    start = _HEADER.size
    names = data[start : start + size].decode("utf-8", "surrogateescape").split("\0")
    idents = memoryview(data)[start + size :]
    out, prev = names[0], names[1]
    split = [bytes(idents[i : i + _SIZE]) for i in range(0, len(idents), _SIZE)]
    if not unchanged(out, names[2 : 2 + count], split[:count]):
        return b"-"
    if spare < 0:  # (no record of the spare copy)
        return b"+"
    return b"+" if unchanged(prev, names[2 + count :], split[count:]) else b"s"


if __name__ == "__main__":  # the checking process (uptodate.py `Prescan`)
    sys.stdout.buffer.write(answer(sys.stdin.buffer.read()))
    sys.stdout.buffer.flush()
