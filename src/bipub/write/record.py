"""What the last build left in the output folder and in its spare copy (write/output.py).

An update stages the new site in the spare copy beside the output (`.site.prev`, the site of
the build before last) and swaps it in. To bring that copy up to date without walking it, the
build needs to know exactly what it holds and what the published site holds: this record,
saved with the up-to-date record after every build (uptodate.py) and handed to the next one.

* `files`, `dirs`: the identity of every file and folder of the published site ("" is the
  folder itself), as it was when the build that made it ended;
* `digests`: a hash of each published file's bytes, so that a file rendered again with the
  same bytes is recognised without reading the published one;
* `spare`: the same for the spare copy (the site the last build replaced); its "" entry is
  the identity of the spare copy's folder after it was moved aside. None when the build did
  not know what that site held (it was not described by a record it trusted).

A record is only a claim: the build checks it against the two folders it is about (their
identity changes when anything is added to or removed from them, when they are moved or
replaced) and against every path it writes, and walks both trees in full when anything does
not match (write/output.py `OutputTree.create`).
"""

from __future__ import annotations

import bisect
import os
import stat
import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import compress, repeat
from operator import itemgetter, ne
from pathlib import Path
from typing import Protocol

from blake3 import blake3

from bipub.write import files
from bipub.write.folders import ancestors, under_file
from bipub.write.ownership import owned

Identity = bytes  # (mtime_ns, ctime_ns, size, inode, mode), packed: `PACKED`
PACKED = struct.Struct("<qqqQQ")  # (inode numbers can use all 64 bits)
_INODE = struct.Struct("<Q")
INODE_AT = slice(24, 32)  # where an identity keeps the inode number
_FOUR = struct.Struct("<qqqQ")  # (the first four: all but the mode)
unpack_four = _FOUR.unpack_from  # `four` without a call of its own (once per kept page)
_pack = PACKED.pack


def identity(st: os.stat_result) -> Identity:
    """A file's or folder's identity: what changes when it is written, replaced, moved, or
    (a folder) when anything is added to or removed from it. ctime is in it: no tool sets it
    back (a same-size edit with its mtime restored by `touch -r` changes it)."""
    return _pack(st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_mode)


def inode(ident: Identity) -> int:
    return int(_INODE.unpack_from(ident, 24)[0])


def four(ident: Identity) -> tuple[int, int, int, int]:
    """(mtime_ns, ctime_ns, size, inode): write/output.py's `file_identity` of the same file."""
    found: tuple[int, int, int, int] = _FOUR.unpack_from(ident)
    return found


def same_inode(a: Identity, b: Identity) -> bool:
    return a[INODE_AT] == b[INODE_AT]


def digest(data: bytes | memoryview | files.Pieces) -> bytes:
    """The hash a record keeps of a published file's bytes (BLAKE3: ~6 GB/s on one core,
    SHA-256 ~1.7 GB/s; an update hashes every file it writes: ~35 MB on a 1,000-post site,
    the llms-full.txt files most of it); of `files.Pieces`, of their bytes one after the other."""
    if isinstance(data, files.Pieces):
        hasher = blake3()
        for piece in data.parts:
            hasher.update(piece)
        return hasher.digest(16)
    return blake3(data).digest(16)


@dataclass
class TreeRecord:
    """The files and folders of one site tree (the published site or the spare copy)."""

    files: dict[str, Identity]
    dirs: dict[str, Identity]


@dataclass
class OutputRecord:
    """What the last build left: the published site, its files' hashes, the spare copy."""

    files: dict[str, Identity]
    dirs: dict[str, Identity]
    digests: dict[str, bytes]
    spare: TreeRecord | None = None
    spare_note: str = ""  # why `spare` is None though the last build recorded it
    changed: str = ""  # how the published site was found changed since (then only `digests`
    # of files whose identity did not change are used)
    # the files whose identity was read again when this record was made (the others are the
    # last record's, unchanged); None: every file may have changed (not saved)
    looked: frozenset[str] | None = None


def folders_of(paths: Iterable[str]) -> set[str]:
    """Every folder that holds one of `paths` (relative file paths), and "" (the root)."""
    found: set[str] = {""}
    for rel in paths:
        parent = rel.rpartition("/")[0]
        while parent and parent not in found:
            found.add(parent)
            parent = parent.rpartition("/")[0]
    return found


def next_folders(files: Mapping[str, object], live: OutputRecord) -> set[str]:
    """`folders_of(files)`, worked out from the record of a site that differs from `files` by a
    few paths (`live`: its `dirs` are the folders of its `files`): the folders of the paths
    that are new, less those of the paths that went away that hold nothing now. Set
    operations on the names, no loop over every path (an update on a big site)."""
    keys = live.files.keys()
    added = folders_of(files.keys() - keys)
    folders = set(live.dirs)
    folders.update(added)
    maybe = {d for rel in keys - files.keys() for d in _ancestors(rel)} - added
    if maybe:  # (a deleted or renamed post: its folders, if nothing else is in them)
        parents = set(map(itemgetter(0), map(str.rpartition, files, repeat("/"))))
        ordered = sorted(parents)
        for folder in maybe:
            if folder not in parents and not _holds(ordered, folder):
                folders.discard(folder)
    return folders


def _ancestors(rel: str) -> Iterable[str]:
    parent = rel.rpartition("/")[0]
    while parent:
        yield parent
        parent = parent.rpartition("/")[0]


def _holds(ordered: list[str], folder: str) -> bool:
    """Whether a folder in `ordered` (sorted) lies inside `folder`."""
    prefix = folder + "/"
    i = bisect.bisect_left(ordered, prefix)
    return i < len(ordered) and ordered[i].startswith(prefix)


def tree_state(out: str, files: Iterable[str]) -> TreeRecord:
    """The identities of `files` in the folder `out` and of every folder that holds them,
    read from the disk (one lstat each, relative to the open folder)."""
    found, dirs = {}, {}
    fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        listed = list(files)
        for rel in listed:
            found[rel] = identity(os.stat(rel, dir_fd=fd, follow_symlinks=False))
        for folder in sorted(folders_of(listed)):
            dirs[folder] = identity(os.stat(folder or ".", dir_fd=fd, follow_symlinks=False))
    finally:
        os.close(fd)
    return TreeRecord(found, dirs)


def describe(st: os.stat_result | None) -> str:
    """What is at a path, for a note (a record that does not match the folder)."""
    if st is None:
        return "nothing"
    if stat.S_ISDIR(st.st_mode):
        return "a folder"
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link"
    return "another file" if stat.S_ISREG(st.st_mode) else "a special file"


class Done(Protocol):
    @property
    def digest(self) -> bytes | None: ...  # the hash of the bytes written, if known
    @property
    def done(self) -> str: ...  # "written", "linked" or "" (nothing done to the file)


def next_record(
    out: Path,
    prev: Path,
    files: Mapping[str, Done],
    known: OutputRecord | None,
    live: OutputRecord | None,
    spare: TreeRecord | None,
    removed: Iterable[str],
    added: Iterable[str] = (),
    folders: set[str] | None = None,
) -> OutputRecord:
    """After a build published `files` into `out`: the record for the next build. `known`:
    the last build's record; `live`: the same, if the site it describes (now in `prev`) was as
    recorded; `spare`: the record of the folder the build staged in, if that was as recorded
    (then only the files and folders this build touched, or `removed`, are looked at, and
    the record is made from the last one by what changed: `_changed_record`; else every one).
    `added`: the files the build wrote or hashed (`OutputTree.add`), the others are kept,
    linked or carried over; `folders`: the folders of `files`, if worked out already."""
    if spare is not None and live is not None:
        done = _changed_record(str(out), files, live, spare, removed, added, folders)
    else:
        done = _full_record(str(out), files, known)
    aside = None
    if live is not None and owned(prev):  # the site this build replaced, as recorded
        aside = TreeRecord(
            _shared_now(live.files, done), {**live.dirs, "": identity(os.lstat(prev))}
        )
    done.spare = aside
    return done


def _shared_now(was: dict[str, Identity], done: OutputRecord) -> dict[str, Identity]:
    """The spare copy's files (the site this build replaced: `was`, its record), each one
    that is the very file published now (the same inode: this build kept or linked it) with
    the identity read now: a new link to a file moves its ctime, so the last record's is no
    longer that file's. (Else the spare copy's record differed from the output's in every
    file the build linked: after a build that linked every one, its base file held the spare
    copy's files whole, read at every build since, and the next update looked at each file
    again.) Only the files whose identity was read again (`looked`) are compared."""
    now = done.files
    looked = now.keys() if done.looked is None else done.looked
    moved = compress(looked, map(ne, map(was.get, looked), map(now.__getitem__, looked)))
    shared = {rel: now[rel] for rel in moved if rel in was and same_inode(was[rel], now[rel])}
    return {**was, **shared} if shared else was


def _full_record(out: str, files: Mapping[str, Done], known: OutputRecord | None) -> OutputRecord:
    """The record of `out` read from the disk, every file and folder of it."""
    state = tree_state(out, files)
    digests = {rel: info.digest for rel, info in files.items() if info.digest}
    if known is not None:  # kept: the published file's, if it is it
        known_files, known_digests, now = known.files, known.digests, state.files
        for rel, info in files.items():
            if info.digest:
                continue
            recorded = known_digests.get(rel)
            old = known_files.get(rel)
            if recorded is None or old is None:
                continue
            new = now[rel]
            if old is new or _same_file(old, new):  # (the same object: not looked at again)
                digests[rel] = recorded
    return OutputRecord(state.files, state.dirs, digests)


def _changed_record(
    out: str,
    files: Mapping[str, Done],
    live: OutputRecord,
    spare: TreeRecord,
    removed: Iterable[str],
    added: Iterable[str],
    folders: set[str] | None,
) -> OutputRecord:
    """The record of `out` where a build staged in a folder that was as `spare` says, and
    replaced a site that was as `live` says: `live`'s, but for what this build changed. The
    files it did not write, link or add are the published ones when the spare copy held the
    published file (the same identity in both records: the last build did not change it), and
    the folders where nothing was made or removed are the spare copy's; only the others are
    looked at. Set operations on the names, a loop over what changed only."""
    live_files, spare_files = live.files, spare.files
    written = set(added)
    done = {rel for rel in written if files[rel].done}
    keys = files.keys()
    gone = live_files.keys() - keys
    # the files this build made, linked or found changed since the spare copy was published
    # (compared in a C loop: the two records' items hashed as a set took ~20-40 ms a build)
    moved = compress(live_files, map(ne, live_files.values(), map(spare_files.get, live_files)))
    look = done | (keys - live_files.keys()) | (keys & set(moved))
    found = dict(live_files)
    for rel in gone:
        del found[rel]
    if folders is None:
        folders = next_folders(files, live)
    changed = {d for rel in (*look, *removed) for d in ancestors(rel)}
    changed.add("")
    dirs = dict(spare.dirs)
    for folder in spare.dirs.keys() - folders:
        del dirs[folder]
    fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for rel in look:
            found[rel] = identity(os.stat(rel, dir_fd=fd, follow_symlinks=False))
        for folder in (folders - spare.dirs.keys()) | (changed & folders):
            dirs[folder] = identity(os.stat(folder or ".", dir_fd=fd, follow_symlinks=False))
    finally:
        os.close(fd)
    digests = dict(live.digests)
    for rel in gone:
        digests.pop(rel, None)
    for rel in look:  # kept: the published file's hash, if it is the same file
        old = live_files.get(rel)
        if old is None or not _same_file(old, found[rel]):
            digests.pop(rel, None)
    for rel in written:
        digest = files[rel].digest
        if digest:
            digests[rel] = digest
    return OutputRecord(found, dirs, digests, looked=frozenset(look))


def prune_known(
    base: str,
    spare: TreeRecord,
    wanted: Mapping[str, object],
    folders: set[str],
    removed: list[str],
    trash: files.Trash | None = None,
) -> list[str]:
    """Remove what the staging folder `base` holds by its record (`spare`) that this build did
    not write (`wanted`, whose folders are `folders`), then the folders left empty; each path
    removed is added to `removed`. Returns what was not as recorded (then nothing more is
    removed: write/output.py `_repair` walks the folder). `trash`: each is moved into it
    (files.Trash), not removed."""
    for rel in sorted(spare.files.keys() - wanted.keys()):  # (set operations: few are left)
        if rel in folders or under_file(rel, wanted):
            continue  # a file where this build made a folder (or the reverse): gone with it
        try:
            files.unlink(os.path.join(base, rel), trash)
        except FileNotFoundError:
            return [f"{rel}: nothing"]
        except IsADirectoryError:
            return [f"{rel}: a folder"]
        removed.append(rel)
    gone = spare.dirs.keys() - folders - wanted.keys()
    for folder in sorted(gone, key=lambda d: d.count("/"), reverse=True):
        if under_file(folder, wanted):
            continue
        try:
            files.rmdir(os.path.join(base, folder), trash)
        except FileNotFoundError:
            return [f"{folder}/: nothing"]
        except OSError:
            return [f"{folder}/: files that were not recorded"]
        removed.append(folder)
    return []


def _same_file(a: bytes, b: bytes) -> bool:
    """The same file, its ctime aside (a hard link to it moves its ctime)."""
    x, y = four(a), four(b)
    return (x[0], x[2], x[3]) == (y[0], y[2], y[3])


def trusted_live(out: Path, known: OutputRecord | None) -> tuple[OutputRecord | None, str]:
    """The last build's record of the published site, if the output folder is as it left
    it (its identity changes when anything is added to or removed from it, when it is moved
    or replaced: another build, a kill after the swap, a file added by hand); else why not."""
    if known is None:
        return None, "no record of the last build's output"
    if known.changed:
        return None, f"{known.changed} since the last build"
    try:
        now = identity(os.lstat(out))
    except OSError:
        return None, "no output folder"
    if known.dirs.get("") != now:
        return None, "the output folder was changed since the last build"
    return known, ""


def trusted_spare(prev: Path, live: OutputRecord | None, why: str) -> tuple[TreeRecord | None, str]:
    """The record of the spare copy, if the folder is as the last build left it."""
    if live is None:
        return None, why
    if live.spare is None:
        return None, live.spare_note or "the last build did not record what it holds"
    if live.spare.dirs.get("") != identity(os.lstat(prev)):
        return None, "it was changed since the last build"
    return live.spare, ""


def relinked(
    out: str,
    files: Mapping[str, Identity],
    dirs: Mapping[str, Identity],
    digests: Mapping[str, bytes],
) -> dict[str, Identity] | None:
    """The files of the tree `out` whose identity moved since it was recorded only as a new
    hard link moves it (its ctime alone: a build killed while it linked published files into
    its staging folder), each vouched for by its bytes, hashed again and found to be those
    recorded (`digests`): their identities now. None if anything else is not as recorded: a
    folder (a file added, removed or replaced), a file's mtime, size, inode or mode, a file
    with no recorded hash, or other bytes (an edit in place, its mtime set back)."""
    moved: dict[str, Identity] = {}
    try:
        fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return None
    try:
        for rel, ident in dirs.items():
            if identity(os.stat(rel or ".", dir_fd=fd, follow_symlinks=False)) != ident:
                return None
        for rel, ident in files.items():
            now = identity(os.stat(rel, dir_fd=fd, follow_symlinks=False))
            if now == ident:
                continue
            was, new = PACKED.unpack(ident), PACKED.unpack(now)
            if (was[0], *was[2:]) != (new[0], *new[2:]) or rel not in digests:
                return None
            if not stat.S_ISREG(new[4]) or _hashed(fd, rel) != digests[rel]:
                return None
            moved[rel] = now
    except OSError:
        return None
    finally:
        os.close(fd)
    return moved


def _hashed(fd: int, rel: str) -> bytes:
    """`digest` of the bytes of the file `rel` in the open folder `fd` (no link followed)."""
    handle = os.open(rel, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=fd)
    with os.fdopen(handle, "rb") as file:
        return digest(file.read())
