"""The file operations of the output writer (write/output.py): each one makes, replaces or
removes one file or folder, never truncating a file in place (staged files share inodes with
the live site). They are module functions called through the module (`files.replace_with_bytes`)
so that the tests that kill a build at every write can wrap each of them. Also: the atomic
exchange of two folders (`exchange`), what identifies a written file (`file_identity`) and the
error of a build the system stopped while it wrote (`write_failed`).
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import stat
import sys
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path

from bipub.diagnostics import Diagnostic
from bipub.write.ownership import MARKER, MARKER_TEXT


def made_folder(folder: str) -> bool:
    """mkdir; False if something is there already (render workers share the staging folder:
    two of them can find a folder missing and make it at the same time)."""
    try:
        os.mkdir(folder)
    except FileExistsError:
        return False
    return True


class Pieces:
    """A file's bytes as pieces (bytes, or slices of a mapped file), hashed (write/record.py
    `digest`) and written (`replace_with_bytes`) one after the other, never joined: a big
    file an update changed in a few places (llms-full.txt, tens of MB: render/llms_full.py
    `join`) is not copied into a new buffer first. `len`: its size in bytes."""

    __slots__ = ("parts", "size")

    def __init__(self, parts: Iterable[bytes | memoryview]) -> None:
        self.parts = tuple(part for part in parts if len(part))
        self.size = sum(map(len, self.parts))

    def __len__(self) -> int:
        return self.size

    def __bytes__(self) -> bytes:
        return b"".join(self.parts)


def same_bytes(live: str | Path, data: bytes | Pieces) -> bool:
    try:
        st = os.lstat(live)
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode) or st.st_size != len(data):
        return False
    with open(live, "rb") as f:
        return f.read() == bytes(data)


class Trash:
    """Where a build moves what it removes from its staging folder before the swap: a folder
    beside the output (`.<name>.trash-<hex>`, write/folders.py `trash_name`), made with the
    build's output tree, bipub's marker in it first (`make`), and removed whole after the swap
    (`empty`).

    A rename changes only the folders' entries. Removing a file frees its blocks, and on a
    disk mounted with `discard` that costs ~0.4 ms a file and ~2 ms a folder, at times tens
    of ms (measured on the benchmark machine: bench/RESULTS.md, session 27); an update of a
    big site removes tens of the spare copy's files (the last build's pages and feeds)
    before its swap, which the reader of `bipub serve` waited for. A build killed before the
    swap leaves the folder: the next build removes it (folders.py `clean_leftovers_locked`).
    Render workers share it (forked): each names what it moves by its process id."""

    __slots__ = ("_moved", "folder")

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self._moved = 0

    def make(self) -> None:
        """Make the folder with the marker in it, before anything is moved in (a folder
        without it is removed by the next build only if it is empty)."""
        os.mkdir(self.folder)
        with open(os.path.join(self.folder, MARKER), "x", encoding="utf-8") as f:
            f.write(MARKER_TEXT)

    def name(self) -> str:
        """A new name in the folder (of this process: render workers share the folder)."""
        self._moved += 1
        return os.path.join(self.folder, f"{os.getpid()}-{self._moved}")

    def empty(self) -> None:
        """Remove the folder and what was moved into it."""
        if os.path.lexists(self.folder):
            shutil.rmtree(self.folder)
        self._moved = 0

    def emptied(self) -> str:
        """`empty`: what went wrong, said for the build's notes (else "")."""
        try:
            self.empty()
        except OSError as exc:
            return (
                f"could not remove {self.folder} (what the build removed from the site: "
                f"{exc.strerror or exc}); the next build removes it"
            )
        return ""

    def handed_over(self) -> tuple[str, str]:
        """`emptied`, without waiting for the disk when the folder holds more than `AWAY`
        entries (a new, deleted or draft post at 5,000 posts a language: ~1,800 pages
        replaced). What shares its file with another name (a hard link: a file of the
        published site or of the spare copy, whose link count and ctime the record of the
        output reads next) is removed here; the files that nothing else names, whose removal
        changes no other file, are removed with the folder by a process of its own
        (`remove_apart`), which this one does not wait for: removing a file frees its
        blocks, and on a disk mounted with `discard` the ~1,800 files of a new post's pages,
        written a minute before, took 2.5-6.5 s (wall; ~0.03-0.09 s of CPU). Returns what
        went wrong (`emptied`) and, if the folder was removed here after all (no process
        could be started), why, for `-v`."""
        try:
            with os.scandir(self.folder) as found:
                entries = sum(1 for _ in found)
        except OSError:
            entries = 0
        if entries <= AWAY:
            return self.emptied(), ""
        try:
            for root, _, names in os.walk(self.folder):
                for name in names:
                    path = os.path.join(root, name)
                    if os.lstat(path).st_nlink > 1:  # (a hard link: see above)
                        os.unlink(path)
        except OSError as exc:
            return self.emptied(), f"{self.folder} removed here ({exc.strerror or exc})"
        why = remove_apart(self.folder)
        if why:
            return self.emptied(), f"{self.folder} removed here ({why})"
        self._moved = 0
        return "", ""


AWAY = 256  # entries of a trash folder removed by a process of its own (`Trash.handed_over`)
# what that process runs (by this Python, isolated: `-I -S`, ~10 ms to start)
_REMOVE = "import shutil, sys; shutil.rmtree(sys.argv[1], ignore_errors=True)"
_REMOVERS: list[int] = []  # (started by this process, not yet waited for: `remove_apart`)


def remove_apart(folder: str) -> str:
    """Remove `folder` and what is in it in a process of its own (this Python, by
    posix_spawn: no copy of this process; its standard streams /dev/null, so that nothing
    reading this process's output waits for it), without waiting for it. The ones started
    before and ended are waited for here (a long-lived `bipub serve` keeps no zombie).
    Returns why it could not be started (else "")."""
    for pid in list(_REMOVERS):
        with suppress(ChildProcessError):
            if os.waitpid(pid, os.WNOHANG)[0] == 0:
                continue  # (still removing)
        _REMOVERS.remove(pid)
    if not sys.executable:
        return "no Python executable to start a process removing it"
    try:
        null = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
        argv = [sys.executable, "-I", "-S", "-c", _REMOVE, folder]
        pid = os.posix_spawn(sys.executable, argv, os.environ, file_actions=null, setsid=True)
    except (OSError, AttributeError) as exc:  # (no posix_spawn here)
        return f"could not start a process removing it ({exc})"
    _REMOVERS.append(pid)
    return ""


def set_aside(trash: Trash, target: str | Path) -> None:
    """Move the file or folder at `target` into `trash` (FileNotFoundError: nothing there)."""
    os.rename(target, trash.name())


def remove(target: str | Path, trash: Trash | None = None) -> None:
    """Remove whatever is at `target` (never truncate a file: its inode may be the live site's);
    `trash`: moved into it instead (`Trash`)."""
    if trash is not None:
        with suppress(FileNotFoundError):
            set_aside(trash, target)
        return
    try:
        os.unlink(target)
    except FileNotFoundError:
        pass
    except IsADirectoryError:
        shutil.rmtree(target)


# a new file, never one already there (staged files share inodes with the live site); the bytes
# as they are (O_BINARY: Windows would otherwise write "\r\n" for every "\n")
_NEW_FILE = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
)


# the most bytes one write call hands the kernel: on the benchmark VM's ext4 (Linux 6.18) a
# call of 2 MB or more mostly cost 5-10 times the system time of the same bytes in calls of
# 1 MB (a 30 MB llms-full.txt: 35-65 ms against ~6 ms); why is not known (docs/outputs.md,
# what an update writes)
WRITE_AT_ONCE = 1 << 20


def _write_call(fd: int, data: bytes | memoryview, at: int) -> int:
    """os.write of `data` from `at`, at most WRITE_AT_ONCE bytes of it: how many were written."""
    if at == 0 and len(data) <= WRITE_AT_ONCE:
        return os.write(fd, data)
    return os.write(fd, memoryview(data)[at : at + WRITE_AT_ONCE])


def replace_with_bytes(
    target: str, data: bytes | Pieces, fresh: bool = False, trash: Trash | None = None
) -> None:
    """Write `data` as a new file at `target` (its folder exists: OutputTree._make_parents).
    `fresh`: the staging folder started empty, so there is usually nothing to remove first.
    `trash`: what is there is moved into it (`remove`)."""
    if fresh:
        try:
            _write_new(target, data)
            return
        except FileExistsError:
            pass
    remove(target, trash)
    _write_new(target, data)


def _write_new(target: str, data: bytes | Pieces) -> None:
    """What `open(target, "xb").write(data)` does, in three system calls instead of six (no
    buffered file object: it also asks for the file's size, whether it is a terminal and its
    position), for every page of a build. A short write (a full disk) raises, as `write` does.
    `Pieces`: each piece written in turn. At most `WRITE_AT_ONCE` bytes a call (`_write_call`)."""
    fd = os.open(target, _NEW_FILE, 0o666)  # (the umask applies, as with `open`)
    try:
        for piece in data.parts if isinstance(data, Pieces) else (data,):
            done = _write_call(fd, piece, 0) if piece else 0
            while done < len(piece):  # (the rest; a short write: the error that stopped it)
                wrote = _write_call(fd, piece, done)
                if not wrote:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), target)
                done += wrote
    finally:
        os.close(fd)


def replace_with_link(
    src: str | Path, target: str | Path, src_ino: int | None = None, trash: Trash | None = None
) -> None:
    """Make `target` the same file as `src` (a hard link; a copy where links are refused).
    The target's folder exists (OutputTree._make_parents). `trash`: as `remove`'s."""
    try:
        if os.lstat(target).st_ino == (src_ino if src_ino is not None else os.lstat(src).st_ino):
            return
    except OSError:
        pass
    remove(target, trash)
    link_or_copy(src, target)


def unlink(path: str, trash: Trash | None = None) -> None:
    """Remove the file at `path` (IsADirectoryError: a folder is there); `trash`: moved into
    it (`Trash`)."""
    if trash is None:
        os.unlink(path)
        return
    if stat.S_ISDIR(os.lstat(path).st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    set_aside(trash, path)


def rmdir(path: str, trash: Trash | None = None) -> None:
    """Remove the empty folder at `path` (OSError: not empty, or not a folder); `trash`: moved
    into it (`Trash`)."""
    if trash is None:
        os.rmdir(path)
        return
    if not stat.S_ISDIR(os.lstat(path).st_mode):  # (a link to a folder too, as rmdir says)
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), path)
    with os.scandir(path) as entries:
        if next(entries, None) is not None:
            raise OSError(errno.ENOTEMPTY, os.strerror(errno.ENOTEMPTY), path)
    set_aside(trash, path)


def link_or_copy(src: str | Path, target: str | Path) -> None:
    try:
        os.link(src, target)
    except OSError:
        shutil.copy2(src, target)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def exchange(a: Path, b: Path) -> bool:
    """Atomically exchange two paths (Linux renameat2). False when the system cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    result = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if result == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False  # kernel or file system without RENAME_EXCHANGE: two renames instead
    raise OSError(err, f"cannot exchange {a} and {b}: {os.strerror(err)}")


def file_identity(st: os.stat_result) -> tuple[int, int, int, int]:
    """What proves a published file is still the one bipub wrote: ctime included, which no
    tool sets back (a same-size edit with its mtime restored by `touch -r` changes it)."""
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


def write_failed(exc: OSError) -> Diagnostic:
    """The error for a build the system stopped while it wrote its output (a full disk, a
    folder it may not write): the output folder is as it was (`staged` discards the tree)."""
    where = f" ({exc.filename})" if exc.filename is not None else ""
    return Diagnostic(
        None,
        None,
        "write-failed",
        f"could not write the output: {exc.strerror or exc}{where}; the output folder is as it was",
    )
