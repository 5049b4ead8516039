"""Is a site tree still as its record says? Looked at where the kernel reports a change only.

Before an update trusts its record of the output folder and of the spare copy beside it
(docs/security.md, guarantee 2), every recorded folder and file is checked: ~80,000 lstat
calls on a 5,000-post site (write/tree_check.py), at every save in `bipub serve`. A server
that runs for hours can instead ask the kernel (Linux inotify) to report every change in both
trees from one moment on, and look only at what the reports name:

* `arm` puts a watch on every folder and file of both trees (a folder first, then what it
  holds), THEN checks both in full against the record, as tree_check does. A change made
  before its watch was in place is found by that check; every change after it is reported.
* `vouch`, before each update: the reports since the last one name paths; each is looked at
  (lstat) and compared with the record exactly as the full check compares it, and a folder or
  file that is new is watched first (a new folder with everything in it). Our own updates'
  changes are reported too and looked at like any other: the record an update leaves holds
  the identity of every path it touched, so nothing reported is ever taken for ours unseen.
* Anything it cannot vouch for — a path not as recorded, reports lost (the kernel's queue
  overflowed), a watch it could not place, a tree moved or unmounted — ends the watch and says
  why: the caller checks in full, then arms again.

Where reports cannot be complete it is never armed (`arm` says why): systems without inotify;
file systems that do not report changes made elsewhere (NFS, SMB, FUSE, overlays: only the
local ones of `LOCAL` are watched, read from /proc/self/mountinfo). The kernel does not report
writes through a shared memory mapping (mmap; inotify(7)): a served file changed that way is
not seen until the next full check (the server's next start, or a fall-back above).
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from bipub.write.tree_check import PACKED, unchanged

# inotify(7)
_MODIFY, _ATTRIB, _MOVED_FROM, _MOVED_TO = 0x2, 0x4, 0x40, 0x80
_CREATE, _DELETE, _DELETE_SELF, _MOVE_SELF = 0x100, 0x200, 0x400, 0x800
_UNMOUNT, _OVERFLOW, _IGNORED = 0x2000, 0x4000, 0x8000
_DONT_FOLLOW = 0x02000000
_MASK = _MODIFY | _ATTRIB | _MOVED_FROM | _MOVED_TO | _CREATE | _DELETE | _DELETE_SELF | _MOVE_SELF
_NONBLOCK, _CLOEXEC = os.O_NONBLOCK, os.O_CLOEXEC  # IN_NONBLOCK, IN_CLOEXEC (the same bits)
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len (then the name, NUL-padded)

# file systems whose changes all pass through this kernel, so that inotify reports each one
LOCAL = frozenset(
    {"ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "ramfs", "f2fs", "jfs", "bcachefs"}
)


@dataclass(frozen=True)
class Tables:
    """What the full check compares (uptodate.py `folders_intact`): every folder and file of
    the published site `out`, and the folders of its spare copy `prev` (None: not recorded,
    not checked)."""

    out: str
    prev: str
    files: Mapping[str, bytes]
    dirs: Mapping[str, bytes]
    spare: Mapping[str, bytes] | None


def file_system(path: str, mountinfo: str | None = None) -> str:
    """The type of the file system `path` lies on (/proc/self/mountinfo), or "" if unknown."""
    if mountinfo is None:
        try:
            with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as f:
                mountinfo = f.read()
        except OSError:
            return ""
    real = os.path.realpath(path)
    best, found = -1, ""
    for line in mountinfo.splitlines():
        fields = line.split()
        if "-" not in fields[6:]:
            continue
        point = _unescape(fields[4])
        kind = fields[fields.index("-", 6) + 1]
        inside = real == point or real.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= best:  # (the last of equal mount points covers the others)
            best, found = len(point), kind
    return found


def _unescape(field: str) -> str:
    r"""mountinfo writes a space, tab, newline and backslash in a path as \040 and the like."""
    if "\\" not in field:
        return field
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and field[i + 1 : i + 4].isdigit():
            out.append(chr(int(field[i + 1 : i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


class _Inotify:
    """One inotify instance (libc through ctypes: the standard library has none)."""

    def __init__(self) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        self._add = libc.inotify_add_watch
        self._add.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        init = libc.inotify_init1
        init.argtypes = [ctypes.c_int]
        self.fd = init(_NONBLOCK | _CLOEXEC)
        if self.fd < 0:
            raise _error("inotify_init1", "")

    def add(self, path: str) -> int:
        wd: int = self._add(self.fd, os.fsencode(path), _MASK | _DONT_FOLLOW)
        if wd < 0:
            raise _error("inotify_add_watch", path)
        return wd

    def read(self) -> bytes:
        """Every report queued now (none: b"")."""
        chunks = []
        while True:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _error(call: str, path: str) -> OSError:
    code = ctypes.get_errno()
    if code == errno.ENOSPC:
        return OSError(
            code,
            f"{call}: the system's limit of watched files and folders is reached "
            "(fs.inotify.max_user_watches)",
            path or None,
        )
    return OSError(code, f"{call}: {os.strerror(code)}", path or None)


def _join(rel: str, name: str) -> str:
    return f"{rel}/{name}" if rel else name


def _parent(rel: str) -> str:
    return rel.rpartition("/")[0]


class TreeWatch:
    """The watch on an output folder and its spare copy (module text). `armed`: reports are
    being collected since a full check found both trees as recorded; `note`: what the last
    `vouch` looked at, or why it is not armed."""

    def __init__(self) -> None:
        self._ino: _Inotify | None = None
        self._wds: dict[int, str] = {}  # watch → its path in either tree ("": the tree)
        self._roots: tuple[str, str] = ("", "")
        self.note = "not watched yet"
        # it cannot be armed here whatever the trees hold (the file system, no inotify, the
        # system's limit of watches): not tried again
        self.never = False

    @property
    def armed(self) -> bool:
        return self._ino is not None

    def arm(self, tables: Tables) -> bool:
        """Watch both trees, then check them in full against `tables`: True if armed (else
        `note` says why not)."""
        self.close()
        kind = file_system(tables.out)
        if kind not in LOCAL:
            self.never = True
            self.note = (
                f"the output folder is on a file system ({kind or 'unknown'}) that may not "
                "report changes made elsewhere"
            )
            return False
        try:
            ino = _Inotify()
        except (OSError, AttributeError) as exc:  # (no inotify: not Linux)
            self.never = True
            self.note = f"no file-change reports here ({exc})"
            return False
        self._ino, self._roots = ino, (tables.out, tables.prev)
        try:
            for root in self._roots:
                if os.path.lexists(root):
                    self._watch(root, "", set())
        except OSError as exc:
            self.never = exc.errno in (errno.ENOSPC, errno.EMFILE, errno.ENOSYS)
            self._stop(f"could not watch it ({exc})")
            return False
        if not _intact(tables):
            self._stop("it was not as recorded when the watch began")
            return False
        self.note = f"watched ({len(self._wds)} folders and files)"
        return True

    def vouch(self, tables: Tables) -> bool:
        """Whether both trees are as `tables` say, from what was reported since the watch began
        or since the last call (`note` says what was looked at, or why not: the watch ends)."""
        if self._ino is None:
            return False
        if (tables.out, tables.prev) != self._roots:
            self._stop("another output folder")
            return False
        look: set[str] = set()
        try:
            # each tree is one the watch began on, or the other one (they swap at each
            # update): a folder put in their place (a staging folder made anew) is not watched
            for root in self._roots:
                if os.path.lexists(root) and self._wds.get(self._ino.add(root)) != "":
                    self._stop(f"{os.path.basename(root)} is a folder the watch did not begin on")
                    return False
            data = self._ino.read()
        except OSError as exc:
            self._stop(f"its reports could not be read ({exc})")
            return False
        new: set[str] = set()
        why = self._reports(data, look, new)
        if why:
            self._stop(why)
            return False
        try:
            for rel in sorted(new, key=lambda r: r.count("/")):  # (a folder before its files)
                for root in self._roots:
                    self._watch(root, rel, look)
        except OSError as exc:
            self._stop(f"could not watch what was added ({exc})")
            return False
        why = _compare(tables, look)
        if why:
            self._stop(why)
            return False
        self.note = f"{len(look)} reported path{'s' if len(look) != 1 else ''} looked at"
        return True

    def _reports(self, data: bytes, look: set[str], new: set[str]) -> str:
        """Read the kernel's reports into `look` (the paths to look at) and `new` (those
        added); why the watch cannot go on, else ""."""
        at, size = 0, _EVENT.size
        while at < len(data):
            wd, mask, _cookie, length = _EVENT.unpack_from(data, at)
            name = data[at + size : at + size + length].rstrip(b"\0")
            at += size + length
            if mask & _OVERFLOW:
                return "reports were lost (the kernel's queue of them overflowed)"
            if mask & _UNMOUNT:
                return "its file system was unmounted"
            rel = self._wds.get(wd)
            if rel is None:
                continue  # (a watch already ended: IN_IGNORED came before)
            if mask & _IGNORED:
                del self._wds[wd]  # (deleted: what removed it was reported before)
                look.add(rel)
                continue
            if name:
                child = _join(rel, os.fsdecode(name))
                look.update((rel, child))
                if mask & (_CREATE | _MOVED_TO):
                    new.add(child)
            else:
                look.update((rel, _parent(rel)))
        return ""

    def _watch(self, root: str, rel: str, look: set[str]) -> None:
        """Watch `rel` in the tree `root` if it is there; a folder not watched before with
        everything in it (each path added to `look`)."""
        assert self._ino is not None
        path = os.path.join(root, rel) if rel else root
        try:
            wd = self._ino.add(path)
            folder = stat.S_ISDIR(os.lstat(path).st_mode)
        except (FileNotFoundError, NotADirectoryError):
            return  # (not in this tree, or gone since: its removal was reported)
        known = wd in self._wds
        self._wds[wd] = rel
        look.add(rel)
        if folder and not known:
            self._walk(path, rel, look)

    def _walk(self, path: str, rel: str, look: set[str]) -> None:
        """Watch what the folder `path` (`rel` in its tree) holds, a folder with what it holds.
        (The folder is watched already: what comes or goes meanwhile is reported, and a name
        whose kind changed since it was listed changed its folder, which the check compares.)"""
        assert self._ino is not None
        add, wds = self._ino.add, self._wds
        with os.scandir(path) as listing:
            entries = list(listing)
        for entry in entries:
            child = f"{rel}/{entry.name}" if rel else entry.name
            try:
                wd = add(entry.path)
            except (FileNotFoundError, NotADirectoryError):
                continue  # (removed since it was listed: reported)
            known = wd in wds
            wds[wd] = child
            look.add(child)
            if not known and entry.is_dir(follow_symlinks=False):
                self._walk(entry.path, child, look)

    def _stop(self, why: str) -> None:
        self.close()
        self.note = why

    def close(self) -> None:
        if self._ino is not None:
            self._ino.close()
            self._ino = None
            self.note = "not watched"
        self._wds = {}


def _intact(tables: Tables) -> bool:
    """The full check (uptodate.py `folders_intact`'s b"+"): every recorded folder and file of
    the site, every recorded folder of its spare copy."""
    dirs, files = tables.dirs, tables.files
    live = (*dirs, *files), (*dirs.values(), *files.values())
    if not unchanged(tables.out, *live):
        return False
    spare = tables.spare
    return spare is None or unchanged(tables.prev, spare, spare.values())


def _compare(tables: Tables, look: Iterable[str]) -> str:
    """Each path of `look`, and each tree itself, as the full check would find it, else why
    not: in the site, a recorded one with its identity, an unrecorded one absent; in the spare
    copy, a recorded folder with its identity. Looked up in the open tree (as tree_check)."""
    pack = PACKED.pack
    paths = sorted({"", *look})
    none: Mapping[str, bytes] = {}
    trees = ((tables.out, tables.dirs, tables.files), (tables.prev, tables.spare or none, none))
    for root, dirs, files in trees:
        spare = root == tables.prev
        if spare and not dirs:
            continue  # (no record of the spare copy: not checked)
        where = "the spare copy's " if spare else ""
        try:
            fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError:
            return f"{where}folder {os.path.basename(root)} is gone or not a folder"
        try:
            for rel in paths:
                want = dirs.get(rel) or files.get(rel)
                if want is None and spare:
                    continue  # (the spare copy's files: not checked, see folders_intact)
                try:
                    st = os.stat(rel or ".", dir_fd=fd, follow_symlinks=False)
                except (FileNotFoundError, NotADirectoryError):
                    st = None
                except OSError as exc:
                    return f"{where}{rel or '.'}: {exc.strerror}"
                if want is None:
                    if st is not None:
                        return f"{where}{rel} is not a file bipub published"
                    continue
                if st is None:
                    return f"{where}{rel or '.'} is gone"
                ident = pack(st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_mode)
                if ident != want:
                    return f"{where}{rel or '.'} was changed"
        finally:
            os.close(fd)
    return ""
