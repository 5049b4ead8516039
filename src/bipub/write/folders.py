"""The output's folders: the staging folder beside it, what killed builds left there, which
paths may be written, and what a staging folder still holds that a build did not write
(write/output.py writes the files and swaps the folders).
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import stat
from collections.abc import Container, Iterable, Mapping, Set
from contextlib import suppress
from pathlib import Path, PurePosixPath
from typing import Protocol

from bipub.diagnostics import Diagnostic, DiagnosticError
from bipub.write import files
from bipub.write.lock import output_lock
from bipub.write.ownership import owned, real_output


class Origin(Protocol):
    @property
    def origin(self) -> str: ...  # what produced a file (for clash messages)


def prev_folder(out: Path) -> Path:
    """Where the site a build replaced is kept (the spare copy the next build stages in)."""
    return out.parent / f".{out.name}.prev"


def trash_name(out: Path) -> Path:
    """A build's trash folder (write/files.py `Trash`): beside `out`, so on its disk."""
    return out.parent / f".{out.name}.trash-{secrets.token_hex(6)}"


def clean_leftovers(out: Path) -> None:
    """Remove what killed builds left beside `out` (staging and trash folders), if no build is
    writing it now; called at the start of every build, even one that finds nothing to do."""
    real = real_output(out)
    left = (f".{real.name}.tmp-", f".{real.name}.trash-")  # (one listing of the folder)
    try:
        names = os.listdir(real.parent)
    except OSError:  # (no folder there, or not readable: the build's own writes say why)
        return
    if not any(name.startswith(left) for name in names):
        return
    try:
        with output_lock(real, take_over=False):
            clean_leftovers_locked(real)
    except DiagnosticError:
        pass  # another build is writing it (it cleans up itself), or the lock is stale (the
        # next build that writes takes it over, and says so)


def clean_leftovers_locked(out: Path) -> None:
    """A killed build leaves its staging folder: reuse one as the spare copy, remove the rest,
    and its trash folder (write/files.py `Trash`): remove it. If a kill landed between the two
    renames of a non-atomic swap, put the previous site back. Only folders bipub made (their
    marker is in them) or empty ones are touched."""
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
    # what a build killed before its swap moved out of its staging folder (never a spare copy)
    for trash in sorted(out.parent.glob(f".{out.name}.trash-*")):
        if trash.is_symlink() or not trash.is_dir():
            continue
        if owned(trash):
            shutil.rmtree(trash, ignore_errors=True)
        else:
            with suppress(OSError):
                trash.rmdir()  # empty: killed before its marker was written


def umask() -> int:
    """This process's umask, read without changing it (Linux), else by setting it back."""
    with suppress(OSError, ValueError, StopIteration):
        with open("/proc/self/status", encoding="ascii") as f:
            line = next(line for line in f if line.startswith("Umask:"))
        return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def make_parents(staging: Path, path: str, dirs: set[str], fresh: bool) -> None:
    """Create the folders above `path` in the `staging` folder, refusing symbolic links (one
    planted in the output could otherwise redirect a write outside it). Cheaper than resolving
    every path: each folder is checked once per tree (`dirs`: those known to be real folders).
    `fresh`: the staging folder started empty (write/output.py OutputTree)."""
    parts = path.split("/")[:-1]
    rel = ""
    for part in parts:
        rel = f"{rel}/{part}" if rel else part
        if rel in dirs:
            continue
        folder = os.path.join(staging, rel)
        # a staging folder that started empty has few folders yet: make it first (one
        # system call; mkdir makes nothing where anything, a link too, is there already)
        if fresh and files.made_folder(folder):
            dirs.add(rel)
            continue
        try:
            st = os.lstat(folder)
        except FileNotFoundError:
            if files.made_folder(folder):
                dirs.add(rel)
                continue
            st = os.lstat(folder)  # another render worker made it since the lstat
        if stat.S_ISLNK(st.st_mode):
            raise ValueError(f"output path {path!r} escapes the output folder")
        if not stat.S_ISDIR(st.st_mode):  # a file of an older build where a folder goes
            with suppress(FileNotFoundError):  # (or another render worker removed it)
                os.unlink(folder)
            if not files.made_folder(folder) and not stat.S_ISDIR(os.lstat(folder).st_mode):
                raise ValueError(f"output path {path!r}: {rel} is not a folder")
        dirs.add(rel)


def staging_name(out: Path) -> Path:
    return out.parent / f".{out.name}.tmp-{secrets.token_hex(6)}"


def make_staging(out: Path) -> Path:
    """A new, empty staging folder beside `out`, with the mode any folder made now would get
    (not mkdtemp's 0700: the published site would carry it to the web root)."""
    while True:
        staging = staging_name(out)
        try:
            os.mkdir(staging)  # (mode 0777 less the umask)
        except FileExistsError:
            continue
        return staging


# a path of plain names (none empty, none starting with a dot, no backslash or NUL): what the
# build writes almost always, accepted by one match (`check_relative` runs for every file)
_PLAIN = re.compile(r"[^/\\\x00.][^/\\\x00]*(?:/[^/\\\x00.][^/\\\x00]*)*")


def check_relative(path: str) -> None:
    if not _PLAIN.fullmatch(path):
        check_relative_in_full(path)


def check_relative_in_full(path: str) -> None:
    """`check_relative` without its shortcut for plain paths."""
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


def clash(path: str, first: str, second: str) -> DiagnosticError:
    """Two sources write one path (write/output.py refuses the second)."""
    return DiagnosticError(
        [Diagnostic(None, None, "output-clash", f"two sources write {path}: {first} and {second}")]
    )


def check_folders(files: Mapping[str, Origin], known: Set[str] | None = None) -> None:
    """No output is a file where another needs a folder (`ko/blog/index.html` written as a page
    and as the folder of a post whose slug is `index.html`): one would replace the other.
    `known`: the folders of `files`, if worked out already (then the files are looked at one by
    one only to say which one clashes)."""
    if known is not None and known.isdisjoint(files.keys()):
        return
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


def prune(staging: Path, wanted: set[str], trash: files.Trash | None = None) -> None:
    """Remove what the staging folder still has from an older build but this build did not
    write (posts deleted or renamed since); then empty folders. Plain strings and scandir: this
    visits every file of the site. `trash`: each is moved into it (files.Trash)."""
    base = str(staging)

    def visit(folder: str, prefix: str) -> bool:  # True if the folder is left empty
        empty = True
        with os.scandir(folder) as entries:
            for entry in entries:
                rel = prefix + entry.name
                if entry.is_dir(follow_symlinks=False):
                    if visit(entry.path, rel + "/"):
                        files.rmdir(entry.path, trash)
                    else:
                        empty = False
                elif rel in wanted:
                    empty = False
                else:
                    files.unlink(entry.path, trash)  # a file or a link left from an older build
        return empty

    visit(base, "")


def under_file(rel: str, files: Container[str]) -> bool:
    """A folder above `rel` is one of `files` (so `rel` went with that folder)."""
    return any(folder in files for folder in ancestors(rel) if folder)


def ancestors(path: str) -> Iterable[str]:
    """The folders above `path`, nearest first, ending with "" (the root)."""
    while path:
        path = path.rpartition("/")[0]
        yield path
