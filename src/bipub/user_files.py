"""Writing a file of the user's: a content file or status record `translate` and `review` write,
a catalog `bipub i18n update` writes or `i18n compile` compiles, a report `check -o` writes.

Every such write goes through a temporary file in the same folder and a rename: readers (and a
crash) see the old file or the new one, never half of it, and a failed write leaves no temporary
file behind. Two things a bare rename would get silently wrong are kept as the user made them:

* a symbolic link stays a link: the file it points to is replaced, beside itself (a post kept
  in another checkout and linked into content/ is updated there, not cut loose from it);
* a file that is not a regular one — /dev/null, a named pipe, a terminal — is written into,
  never replaced (as root, replacing /dev/null with a file breaks the whole machine).

A file replaced keeps its permission bits.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def write_atomic(path: Path, data: str | bytes, *, sync: bool = True) -> None:
    """Write `data` (text as UTF-8, as it is: no newline translation) to `path`, atomically
    (module text). `sync`: flushed to the disk before the rename. Raises OSError."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        mode: int | None = path.stat().st_mode  # (of the link's target, for a link)
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        with open(path, "wb") as fh:
            fh.write(payload)
        return
    real = path.resolve() if path.is_symlink() else path
    real.parent.mkdir(parents=True, exist_ok=True)
    tmp = real.with_name(f".{real.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(payload)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, stat.S_IMODE(mode))
        os.replace(tmp, real)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
