"""The file operations of the output writer (write/output.py): each one makes, replaces or
removes one file or folder, never truncating a file in place (staged files share inodes with
the live site). They are module functions called through the module (`files.replace_with_bytes`)
so that the tests that kill a build at every write can wrap each of them.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path


def made_folder(folder: str) -> bool:
    """mkdir; False if something is there already (render workers share the staging folder:
    two of them can find a folder missing and make it at the same time)."""
    try:
        os.mkdir(folder)
    except FileExistsError:
        return False
    return True


def same_bytes(live: str | Path, data: bytes) -> bool:
    try:
        st = os.lstat(live)
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode) or st.st_size != len(data):
        return False
    with open(live, "rb") as f:
        return f.read() == data


def remove(target: str | Path) -> None:
    """Remove whatever is at `target` (never truncate a file: its inode may be the live site's)."""
    try:
        os.unlink(target)
    except FileNotFoundError:
        pass
    except IsADirectoryError:
        shutil.rmtree(target)


def replace_with_bytes(target: str, data: bytes, fresh: bool = False) -> None:
    """Write `data` as a new file at `target` (its folder exists: OutputTree._make_parents).
    `fresh`: the staging folder started empty, so there is usually nothing to remove first."""
    if fresh:
        try:
            with open(target, "xb") as f:
                f.write(data)
            return
        except FileExistsError:
            pass
    remove(target)
    with open(target, "xb") as f:
        f.write(data)


def replace_with_link(src: str | Path, target: str | Path, src_ino: int | None = None) -> None:
    """Make `target` the same file as `src` (a hard link; a copy where links are refused).
    The target's folder exists (OutputTree._make_parents)."""
    try:
        if os.lstat(target).st_ino == (src_ino if src_ino is not None else os.lstat(src).st_ino):
            return
    except OSError:
        pass
    remove(target)
    link_or_copy(src, target)


def unlink(path: str) -> None:
    os.unlink(path)


def rmdir(path: str) -> None:
    os.rmdir(path)


def link_or_copy(src: str | Path, target: str | Path) -> None:
    try:
        os.link(src, target)
    except OSError:
        shutil.copy2(src, target)
