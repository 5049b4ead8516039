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
* Ownership: bipub writes only into a folder it made. The first build writes a marker file
  (`.bipub-output`) into the output; a non-empty folder without it, the project folder, and any
  folder that is, holds or lies inside an input (content/, templates/, .git/, …) is refused
  before anything is written (`claim`), and a folder bipub does not own is never moved aside.
* An output that is a symbolic link (a web root) is published through the link: staged and
  swapped beside the folder it points to; the link itself stays as it is.
* Folders and files follow the umask, like any other tool's output.
* Two outputs where one needs a folder and the other a file of the same name are an error
  before anything is published (`publish`), never one silently replacing the other.
"""

from __future__ import annotations

import ctypes
import errno
import os
import secrets
import shutil
import stat
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from bipub.diagnostics import Diagnostic, DiagnosticError, Severity
from bipub.write.lock import output_lock
from bipub.write.ownership import MARKER as MARKER  # (re-exported: callers see one module)
from bipub.write.ownership import MARKER_TEXT, claim, owned, real_output
from bipub.write.ownership import published_files as published_files

Identity = tuple[int, int, int, int]  # (mtime_ns, ctime_ns, size, inode): `file_identity`


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
    warnings: list[Diagnostic] = field(default_factory=list)  # what the caller should report
    lock_fd: int = -1  # the output lock's file: closed in forked workers (they never hold it)
    _dirs: set[str] = field(default_factory=set)  # staging folders known to be real folders
    fresh: bool = False  # the staging folder started empty: nothing old to prune
    first: bool = False  # no site was published here yet: no published file to compare with

    @classmethod
    def create(cls, out: Path) -> OutputTree:
        """A tree staged beside `out` (a folder `claim` allowed), its marker already in it."""
        out = out.absolute()
        out.parent.mkdir(parents=True, exist_ok=True)
        prev = prev_folder(out)
        if owned(prev):  # the site before the current one: updated in place below
            staging = _staging_name(out)
            prev.rename(staging)
            os.chmod(staging, 0o777 & ~_umask())  # (made 0700 by an older bipub's mkdtemp)
            tree = cls(out, staging)
        else:
            tree = cls(out, _make_staging(out), fresh=True, first=not os.path.lexists(out))
        tree.add(MARKER, MARKER_TEXT, None, "bipub (output marker)")
        return tree

    def attach(self) -> OutputTree:
        """Another view on this tree's staging folder, with no files yet (a render worker's:
        the files it writes are merged into this tree afterwards)."""
        return OutputTree(
            self.out, self.staging, fresh=self.fresh, first=self.first, lock_fd=self.lock_fd
        )

    def release_in_child(self) -> None:
        """In a forked worker: close this process's copy of the output lock's file, so that
        only the build's own process holds the lock (closing a copy does not release it)."""
        if self.lock_fd >= 0:
            with suppress(OSError):
                os.close(self.lock_fd)

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
        (`file_identity`: same mtime, ctime, size and inode, as the up-to-date check compares).
        Returns False when it must be rendered again."""
        check_relative(path)
        live = os.path.join(self.out, path)  # plain strings: called for every page of the site
        try:
            st = os.lstat(live)
        except OSError:
            return False
        if not stat.S_ISREG(st.st_mode) or file_identity(st) != written:
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


def file_identity(st: os.stat_result) -> Identity:
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
def staged(
    out: Path,
    root: Path | None = None,
    recorded: Callable[[], Iterable[str] | None] | None = None,
) -> Iterator[OutputTree]:
    """An OutputTree that is discarded if anything goes wrong before publish (under the
    output lock). `root` (the project folder) and `recorded` are for `claim`, which runs
    first: nothing is written anywhere before it passes."""
    real = claim(out, root, recorded)
    with output_lock(real) as (lock, notes):
        _clean_leftovers(real)
        tree = OutputTree.create(real)
        tree.lock_fd = lock
        tree.warnings.extend(notes)
        prev = prev_folder(real)
        if os.path.lexists(prev) and not owned(prev):
            tree.warnings.append(
                Diagnostic(
                    None,
                    None,
                    "output-folder",
                    f"{prev} was not made by bipub (there is no {MARKER} in it), so bipub "
                    "leaves it alone and keeps no spare copy of the site there; an older "
                    "bipub may have moved a folder of yours there: check it, then move it "
                    "away or remove it",
                    Severity.WARNING,
                )
            )
        try:
            yield tree
        except BaseException:
            tree.discard()
            raise


def clean_leftovers(out: Path) -> None:
    """Remove what killed builds left beside `out` (staging folders), if no build is writing
    it now; called at the start of every build, even one that finds nothing to do."""
    real = real_output(out)
    if not real.parent.is_dir() or not any(real.parent.glob(f".{real.name}.tmp-*")):
        return
    try:
        with output_lock(real, take_over=False):
            _clean_leftovers(real)
    except DiagnosticError:
        pass  # another build is writing it (it cleans up itself), or the lock is stale (the
        # next build that writes takes it over, and says so)


def _clean_leftovers(out: Path) -> None:
    """A killed build leaves its staging folder: reuse one as the spare copy, remove the rest.
    If a kill landed between the two renames of a non-atomic swap, put the previous site back.
    Only folders bipub made (their marker is in them) or empty ones are touched."""
    prev = prev_folder(out)
    if not os.path.lexists(out) and owned(prev):
        prev.rename(out)
    for leftover in sorted(out.parent.glob(f".{out.name}.tmp-*")) + sorted(
        out.parent.glob(f".{out.name}.old-*")
    ):
        if leftover.is_symlink() or not leftover.is_dir():
            continue
        if not owned(leftover):
            with suppress(OSError):
                leftover.rmdir()  # empty: killed before its marker was written
            continue
        if not os.path.lexists(prev):
            leftover.rename(prev)
        else:
            shutil.rmtree(leftover, ignore_errors=True)


def _umask() -> int:
    """This process's umask, read without changing it (Linux), else by setting it back."""
    with suppress(OSError, ValueError, StopIteration):
        with open("/proc/self/status", encoding="ascii") as f:
            line = next(line for line in f if line.startswith("Umask:"))
        return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _staging_name(out: Path) -> Path:
    return out.parent / f".{out.name}.tmp-{secrets.token_hex(6)}"


def _make_staging(out: Path) -> Path:
    """A new, empty staging folder beside `out`, with the mode any folder made now would get
    (not mkdtemp's 0700: the published site would carry it to the web root)."""
    while True:
        staging = _staging_name(out)
        try:
            os.mkdir(staging)  # (mode 0777 less the umask)
        except FileExistsError:
            continue
        return staging


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
        if (
            len(parts) == 2
            and parts[0] == "pdf"
            and parts[1].startswith(
                (f"cv-{lang}.", f"cv-{lang}-short.")  # (the short CV PDF: issue 18)
            )
        ):
            return True
    return False


def publish(tree: OutputTree, only_langs: list[str] | None = None) -> int:
    """Swap the staged tree in as the output folder. Returns the number of new or changed files."""
    out, staging = tree.out, tree.staging
    try:
        _check_folders(tree.files)
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


def _check_folders(files: dict[str, OutputFile]) -> None:
    """No output is a file where another needs a folder (`ko/blog/index.html` written as a page
    and as the folder of a post whose slug is `index.html`): one would replace the other."""
    folders: dict[str, str] = {}  # folder → a file in it
    for path in files:
        parent = path.rpartition("/")[0]
        while parent and parent not in folders:
            folders[parent] = path
            parent = parent.rpartition("/")[0]
    clashes = sorted(set(folders) & set(files))
    if clashes:
        raise DiagnosticError(
            [
                Diagnostic(
                    None,
                    None,
                    "output-clash",
                    f"{path} is written as a file ({files[path].origin}) and is the folder of "
                    f"{folders[path]} ({files[folders[path]].origin})",
                )
                for path in clashes
            ]
        )


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
    keep = not os.path.lexists(prev) or owned(prev)  # never replace what bipub did not make
    if keep and os.path.lexists(prev):
        shutil.rmtree(prev)
    aside = prev if keep else out.parent / f".{out.name}.old-{secrets.token_hex(6)}"
    if _exchange(new, out):
        new.rename(aside)  # `new` now holds the replaced site
    else:
        out.rename(aside)
        try:
            new.rename(out)
        except BaseException:
            aside.rename(out)
            raise
    if not owned(aside):  # the empty folder the first build was published into (`claim`)
        (aside / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
    if not keep:
        shutil.rmtree(aside)


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
