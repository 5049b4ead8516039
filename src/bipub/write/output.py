"""The output tree: staged in a folder beside the output, then swapped in atomically.

* Files are written into the staging folder as they are rendered (memory stays flat however big
  the site), by this process or by render workers attached to the same folder.
* Two sources never write one path (the second `add` is an error naming both).
* Paths are checked to stay inside the output folder (resolved, not string-prefix compared).
* `publish` swaps the staging folder in with two renames: an error or a kill at any point leaves
  the previous site as it was.
* Double buffering: the site replaced by a publish is kept beside it (`.site.prev`) and becomes
  the next build's staging folder, which is brought up to date file by file. Deleting and
  re-creating a whole tree on every build is what makes big sites slow (on disks mounted with
  `discard`, removing 15,000 folders takes longer than rendering them), so nothing is deleted
  but files that really went away.
* A file whose bytes equal the published one is linked to it instead of written, so unchanged
  files keep their mtime (rsync uploads only what changed); files are always replaced by unlink
  + create, never truncated in place, because staged files share inodes with the live site.
* A partial build (`--lang ko`, `--only pdf`) links the previous site's files that it does not
  rebuild.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from bipub.diagnostics import Diagnostic, DiagnosticError

Identity = tuple[int, int, int]  # (mtime_ns, size, inode)


@dataclass(frozen=True)
class OutputFile:
    lang: str | None  # the language that owns it; None = shared by all languages
    origin: str  # what produced it (for clash messages)


def prev_folder(out: Path) -> Path:
    return out.parent / f".{out.name}.prev"


@dataclass
class OutputTree:
    out: Path
    staging: Path
    files: dict[str, OutputFile] = field(default_factory=dict)
    kept: set[str] = field(default_factory=set)  # previous files reused as they were
    reused_pages: int = 0  # pages kept because their fingerprint did not change
    on_publish: list[Callable[[Path], None]] = field(default_factory=list)  # run after the swap
    _dirs: set[str] = field(default_factory=set)  # staging folders known to be real folders
    fresh: bool = False  # the staging folder started empty: nothing old to prune
    first: bool = False  # no site was published here yet: no published file to compare with

    @classmethod
    def create(cls, out: Path) -> OutputTree:
        out = out.absolute()
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
        prev = prev_folder(out)
        if prev.is_dir() and not prev.is_symlink():
            staging.rmdir()
            prev.rename(staging)  # the site before the current one: updated in place below
            return cls(out, staging)
        return cls(out, staging, fresh=True, first=not os.path.lexists(out))

    def attach(self) -> OutputTree:
        """Another view on this tree's staging folder, with no files yet (a render worker's:
        the files it writes are merged into this tree afterwards)."""
        return OutputTree(self.out, self.staging, fresh=self.fresh, first=self.first)

    def add(self, path: str, data: bytes | str, lang: str | None, origin: str) -> None:
        check_relative(path)
        existing = self.files.get(path)
        if existing is not None:
            raise _clash(path, existing.origin, origin)
        target = os.path.join(self.staging, path)
        self._make_parents(path)
        raw = data.encode("utf-8") if isinstance(data, str) else data
        live = os.path.join(self.out, path)
        if not self.first and _same_bytes(live, raw):
            # unchanged: keep the published file and its mtime (its folder was made above)
            _replace_with_link(Path(live), Path(target))
        else:
            _replace_with_bytes(target, raw, self.fresh)
        self.files[path] = OutputFile(lang, origin)

    def _make_parents(self, path: str) -> None:
        """Create the folders above `path` in the staging folder, refusing symbolic links (one
        planted in the output could otherwise redirect a write outside it). Cheaper than
        resolving every path: each folder is checked once per tree."""
        parts = path.split("/")[:-1]
        rel = ""
        for part in parts:
            rel = f"{rel}/{part}" if rel else part
            if rel in self._dirs:
                continue
            folder = os.path.join(self.staging, rel)
            try:
                st = os.lstat(folder)
            except FileNotFoundError:
                if _made_folder(folder):
                    self._dirs.add(rel)
                    continue
                st = os.lstat(folder)  # another render worker made it since the lstat
            if stat.S_ISLNK(st.st_mode):
                raise ValueError(f"output path {path!r} escapes the output folder")
            if not stat.S_ISDIR(st.st_mode):  # a file of an older build where a folder goes
                with suppress(FileNotFoundError):  # (or another render worker removed it)
                    os.unlink(folder)
                if not _made_folder(folder) and not stat.S_ISDIR(os.lstat(folder).st_mode):
                    raise ValueError(f"output path {path!r}: {rel} is not a folder")
            self._dirs.add(rel)

    def keep(self, path: str, written: Identity) -> bool:
        """Reuse the published file for `path` if it is still exactly the file bipub wrote
        (same mtime, size and inode). Returns False when it must be rendered again."""
        check_relative(path)
        live = os.path.join(self.out, path)  # plain strings: called for every page of the site
        try:
            st = os.lstat(live)
        except OSError:
            return False
        if not stat.S_ISREG(st.st_mode) or (st.st_mtime_ns, st.st_size, st.st_ino) != written:
            return False
        self._make_parents(path)
        _replace_with_link(live, os.path.join(self.staging, path), st.st_ino)
        self.kept.add(path)
        return True

    def record_kept(self, path: str, info: OutputFile) -> None:
        """Record a file that `keep` kept (in this process, or in a worker attached to the
        same staging folder: render/workers.py)."""
        existing = self.files.get(path)
        if existing is not None:
            raise _clash(path, existing.origin, info.origin)
        self.files[path] = info
        self.kept.add(path)

    def carry_over(self, path: str, info: OutputFile) -> None:
        """Keep a published file that this (partial) build does not rebuild."""
        if path in self.files:
            return
        self._make_parents(path)
        _replace_with_link(self.out / path, self.staging / path)
        self.files[path] = info
        self.kept.add(path)

    def merge(self, files: dict[str, OutputFile]) -> None:
        """Record files a worker wrote into the same staging folder."""
        for path, info in files.items():
            existing = self.files.get(path)
            if existing is not None:
                raise _clash(path, existing.origin, info.origin)
            self.files[path] = info

    def paths(self) -> list[str]:
        return sorted(self.files)

    def discard(self) -> None:
        """Give up this build: the staging folder becomes the spare copy again (nothing is
        published; its contents are brought up to date by the next build)."""
        prev = prev_folder(self.out)
        if self.staging.is_dir() and not prev.exists():
            self.staging.rename(prev)
        else:
            shutil.rmtree(self.staging, ignore_errors=True)


def _clash(path: str, first: str, second: str) -> DiagnosticError:
    return DiagnosticError(
        [Diagnostic(None, None, "output-clash", f"two sources write {path}: {first} and {second}")]
    )


def _made_folder(folder: str) -> bool:
    """mkdir; False if something is there already (render workers share the staging folder:
    two of them can find a folder missing and make it at the same time)."""
    try:
        os.mkdir(folder)
    except FileExistsError:
        return False
    return True


def _same_bytes(live: str | Path, data: bytes) -> bool:
    try:
        st = os.lstat(live)
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode) or st.st_size != len(data):
        return False
    with open(live, "rb") as f:
        return f.read() == data


def _remove(target: str | Path) -> None:
    """Remove whatever is at `target` (never truncate a file: its inode may be the live site's)."""
    try:
        os.unlink(target)
    except FileNotFoundError:
        pass
    except IsADirectoryError:
        shutil.rmtree(target)


def _replace_with_bytes(target: str, data: bytes, fresh: bool = False) -> None:
    """Write `data` as a new file at `target` (its folder exists: OutputTree._make_parents).
    `fresh`: the staging folder started empty, so there is usually nothing to remove first."""
    if fresh:
        try:
            with open(target, "xb") as f:
                f.write(data)
            return
        except FileExistsError:
            pass
    _remove(target)
    with open(target, "xb") as f:
        f.write(data)


def _replace_with_link(src: str | Path, target: str | Path, src_ino: int | None = None) -> None:
    """Make `target` the same file as `src` (a hard link; a copy where links are refused).
    The target's folder exists (OutputTree._make_parents)."""
    try:
        if os.lstat(target).st_ino == (src_ino if src_ino is not None else os.lstat(src).st_ino):
            return
    except OSError:
        pass
    _remove(target)
    try:
        os.link(src, target)
    except OSError:
        shutil.copy2(src, target)


@contextmanager
def output_lock(out: Path) -> Iterator[None]:
    """A lock file beside the output keeps two builds from writing one output at once; holding
    it also proves that staging folders left by a killed build are stale."""
    out.parent.mkdir(parents=True, exist_ok=True)
    lock_path = out.parent / f".{out.name}.lock"
    with lock_path.open("a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise DiagnosticError(
                [
                    Diagnostic(
                        None,
                        None,
                        "busy",
                        f"another bipub process is writing {out}; try again when it is done",
                    )
                ]
            ) from None
        yield


@contextmanager
def staged(out: Path) -> Iterator[OutputTree]:
    """An OutputTree that is discarded if anything goes wrong before publish (under the
    output lock)."""
    out = out.absolute()
    with output_lock(out):
        _clean_leftovers(out)
        tree = OutputTree.create(out)
        try:
            yield tree
        except BaseException:
            tree.discard()
            raise


def _clean_leftovers(out: Path) -> None:
    """A killed build leaves its staging folder: reuse one as the spare copy, remove the rest.
    If a kill landed between the two renames of a non-atomic swap, put the previous site back."""
    prev = prev_folder(out)
    if not out.exists() and prev.is_dir() and not prev.is_symlink():
        prev.rename(out)
    for leftover in sorted(out.parent.glob(f".{out.name}.tmp-*")) + sorted(
        out.parent.glob(f".{out.name}.old-*")
    ):
        if not prev.exists() and leftover.is_dir() and not leftover.is_symlink():
            leftover.rename(prev)
        else:
            shutil.rmtree(leftover, ignore_errors=True)


def check_relative(path: str) -> None:
    parts = path.split("/")
    if (
        not path
        or path.startswith("/")
        or ".." in parts
        or not any(p not in ("", ".") for p in parts)
        or "\\" in path
        or "\x00" in path
    ):
        raise ValueError(f"output path {path!r} is not a plain relative path")


def inside(root: Path, candidate: Path) -> bool:
    """True if `candidate` resolves inside `root` (component-wise, not a string prefix)."""
    try:
        candidate.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def owned_by(path: str, langs: Iterable[str]) -> bool:
    """Whether an existing output file belongs to one of `langs` (replaced by a partial build)."""
    parts = PurePosixPath(path).parts
    for lang in langs:
        if parts and parts[0] == lang:
            return True
        if len(parts) >= 2 and parts[0] == "api" and parts[1] == lang:
            return True
        if len(parts) == 2 and parts[0] == "pdf" and parts[1].startswith(f"cv-{lang}."):
            return True
    return False


def published_files(out: Path) -> list[str]:
    """Every file (and symbolic link) in the output folder, as sorted relative paths."""
    found: list[str] = []

    def visit(folder: str, prefix: str) -> None:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    visit(entry.path, f"{prefix}{entry.name}/")
                else:
                    found.append(prefix + entry.name)

    if out.is_dir():
        visit(str(out), "")
    return sorted(found)


def publish(tree: OutputTree, only_langs: list[str] | None = None) -> int:
    """Swap the staged tree in as the output folder. Returns the number of new or changed files."""
    out, staging = tree.out, tree.staging
    try:
        if only_langs is not None:
            for rel in published_files(out):
                if rel not in tree.files and not owned_by(rel, only_langs):
                    tree.carry_over(rel, OutputFile(None, f"previous build ({rel})"))
        if not tree.fresh:
            _prune(staging, set(tree.files))
        changed = 0
        new_base, out_base = str(staging), str(out)
        for path in tree.files:
            if path in tree.kept:
                continue
            try:
                same = (
                    os.lstat(os.path.join(new_base, path)).st_ino
                    == os.lstat(os.path.join(out_base, path)).st_ino
                )
            except OSError:
                same = False
            changed += not same
        _swap(staging, out)
    except BaseException:
        tree.discard()
        raise
    for callback in tree.on_publish:
        callback(out)
    return changed


def _prune(staging: Path, wanted: set[str]) -> None:
    """Remove what the staging folder still has from an older build but this build did not
    write (posts deleted or renamed since); then empty folders. Plain strings and scandir: this
    visits every file of the site."""
    base = str(staging)

    def visit(folder: str, prefix: str) -> bool:  # True if the folder is left empty
        empty = True
        with os.scandir(folder) as entries:
            for entry in entries:
                rel = prefix + entry.name
                if entry.is_dir(follow_symlinks=False):
                    if visit(entry.path, rel + "/"):
                        os.rmdir(entry.path)
                    else:
                        empty = False
                elif rel in wanted:
                    empty = False
                else:
                    os.unlink(entry.path)  # a file or a symbolic link left from an older build
        return empty

    visit(base, "")


def _swap(new: Path, out: Path) -> None:
    """Publish `new` as `out`; the replaced site becomes the spare copy (`.site.prev`).

    On Linux the two folders are exchanged in one atomic step (renameat2 RENAME_EXCHANGE), so
    at every instant `out` is either the complete previous site or the complete new one. Where
    that is not supported, two renames are used and `staged()` restores the previous site if a
    kill lands between them.
    """
    if not out.exists():
        new.rename(out)
        return
    prev = prev_folder(out)
    if prev.exists():
        shutil.rmtree(prev)
    if _exchange(new, out):
        new.rename(prev)  # `new` now holds the replaced site
        return
    out.rename(prev)
    try:
        new.rename(out)
    except BaseException:
        prev.rename(out)
        raise


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
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
