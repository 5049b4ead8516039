"""The output tree: staged in a temporary folder beside the output, then swapped in atomically.

* Files are written into the staging folder as they are rendered (memory stays flat however big
  the site), by this process or by render workers attached to the same folder.
* Two sources never write one path (the second `add` is an error naming both).
* Paths are checked to stay inside the output folder (resolved, not string-prefix compared).
* `publish` swaps the staging folder in at the end: an error or a kill at any point leaves the
  previous site as it was, and `discard` (or the context manager) removes the staging folder.
* A partial build (`--lang ko`) also copies the previous site's files that the built languages
  do not own, so everything else stays as it was.
* Unchanged files are not rewritten: the previous file (and its mtime) is kept, so incremental
  deploys (rsync) stay small.
"""

from __future__ import annotations

import fcntl
import filecmp
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from bipub.diagnostics import Diagnostic, DiagnosticError


@dataclass(frozen=True)
class OutputFile:
    lang: str | None  # the language that owns it; None = shared by all languages
    origin: str  # what produced it (for clash messages)


@dataclass
class OutputTree:
    out: Path
    staging: Path
    files: dict[str, OutputFile] = field(default_factory=dict)
    kept: set[str] = field(default_factory=set)  # previous files reused as they were
    on_publish: list[Callable[[Path], None]] = field(default_factory=list)  # run after the swap

    @classmethod
    def create(cls, out: Path) -> OutputTree:
        out = out.absolute()
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
        return cls(out, staging)

    @classmethod
    def attach(cls, out: Path, staging: Path) -> OutputTree:
        """A view on an existing staging folder (used by render workers)."""
        return cls(out, staging)

    def add(self, path: str, data: bytes | str, lang: str | None, origin: str) -> None:
        check_relative(path)
        existing = self.files.get(path)
        if existing is not None:
            raise DiagnosticError(
                [
                    Diagnostic(
                        None,
                        None,
                        "output-clash",
                        f"two sources write {path}: {existing.origin} and {origin}",
                    )
                ]
            )
        target = self.staging / path
        if not inside(self.staging, target):
            raise ValueError(f"output path {path!r} escapes the output folder")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        self.files[path] = OutputFile(lang, origin)

    def merge(self, files: dict[str, OutputFile]) -> None:
        """Record files a worker wrote into the same staging folder."""
        for path, info in files.items():
            existing = self.files.get(path)
            if existing is not None:
                raise DiagnosticError(
                    [
                        Diagnostic(
                            None,
                            None,
                            "output-clash",
                            f"two sources write {path}: {existing.origin} and {info.origin}",
                        )
                    ]
                )
            self.files[path] = info

    def keep(self, path: str, written: tuple[int, int, int]) -> bool:
        """Reuse the previous output file for `path` if it is still exactly the file bipub
        wrote (same mtime, size and inode). Returns False when it must be rendered again."""
        check_relative(path)
        previous = self.out / path
        try:
            st = previous.lstat()
        except OSError:
            return False
        if previous.is_symlink() or (st.st_mtime_ns, st.st_size, st.st_ino) != written:
            return False
        target = self.staging / path
        target.parent.mkdir(parents=True, exist_ok=True)
        _link_or_copy(previous, target)
        self.kept.add(path)
        return True

    def read(self, path: str) -> bytes:
        return (self.staging / path).read_bytes()

    def paths(self) -> list[str]:
        return sorted(self.files)

    def discard(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)


@contextmanager
def staged(out: Path) -> Iterator[OutputTree]:
    """An OutputTree whose staging folder is removed if anything goes wrong before publish.

    A lock file beside the output keeps two builds from writing one output at once; holding it
    also proves that staging folders left by a killed build are stale, so they are removed.
    """
    out = out.absolute()
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
        for leftover in sorted(out.parent.glob(f".{out.name}.tmp-*")) + sorted(
            out.parent.glob(f".{out.name}.old-*")
        ):
            shutil.rmtree(leftover, ignore_errors=True)
        tree = OutputTree.create(out)
        try:
            yield tree
        except BaseException:
            tree.discard()
            raise


def check_relative(path: str) -> None:
    p = PurePosixPath(path)
    if p.is_absolute() or ".." in p.parts or not p.parts or "\\" in path or "\x00" in path:
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


def publish(tree: OutputTree, only_langs: list[str] | None = None) -> int:
    """Swap the staged tree in as the output folder. Returns the number of new or changed files."""
    out, staging = tree.out, tree.staging
    try:
        if only_langs is not None and out.is_dir():
            for previous in sorted(out.rglob("*")):
                rel = previous.relative_to(out).as_posix()
                if previous.is_dir() or rel in tree.files or owned_by(rel, only_langs):
                    continue
                target = staging / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                _link_or_copy(previous, target)
        changed = 0
        for path in tree.paths():
            if path in tree.kept:
                continue
            previous = out / path
            target = staging / path
            if (
                previous.is_file()
                and not previous.is_symlink()
                and previous.stat().st_size == target.stat().st_size
                and filecmp.cmp(previous, target, shallow=False)
            ):
                target.unlink()
                _link_or_copy(previous, target)  # keep the unchanged file and its mtime
            else:
                changed += 1
        _swap(staging, out)
    except BaseException:
        tree.discard()
        raise
    for callback in tree.on_publish:
        callback(out)
    return changed


def _link_or_copy(src: Path, dest: Path) -> None:
    try:
        os.link(src, dest)
    except OSError:
        shutil.copy2(src, dest)


def _swap(new: Path, out: Path) -> None:
    if not out.exists():
        new.rename(out)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
    old.rmdir()
    out.rename(old)
    try:
        new.rename(out)
    except BaseException:
        old.rename(out)
        raise
    shutil.rmtree(old, ignore_errors=True)
