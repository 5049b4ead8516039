"""The output tree: collected in memory, checked, then published atomically.

* Two sources never write one path (the second `add` is an error naming both).
* Paths are checked to stay inside the output folder (resolved, not string-prefix compared).
* `publish` builds the new tree in a temporary folder beside the output and swaps it in at the end:
  an error or a kill at any point leaves the previous site as it was.
* A partial build (`--lang ko`) starts from a copy of the previous site, replaces only the files
  owned by the built languages and keeps everything else.
* Unchanged files are not rewritten (their mtime stays), so incremental deploys stay small.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from bipub.diagnostics import Diagnostic, DiagnosticError


@dataclass(frozen=True)
class OutputFile:
    path: str  # POSIX, relative to the output folder
    data: bytes
    lang: str | None  # the language that owns it; None = shared by all languages
    origin: str  # what produced it (for clash messages)


@dataclass
class OutputTree:
    files: dict[str, OutputFile] = field(default_factory=dict)

    def add(self, path: str, data: bytes | str, lang: str | None, origin: str) -> None:
        check_relative(path)
        if isinstance(data, str):
            data = data.encode("utf-8")
        key = path
        existing = self.files.get(key)
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
        self.files[key] = OutputFile(path, data, lang, origin)

    def paths(self) -> list[str]:
        return sorted(self.files)


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


def publish(tree: OutputTree, out: Path, only_langs: list[str] | None = None) -> int:
    """Write the tree to `out` atomically. Returns the number of files written or changed."""
    out = out.absolute()
    parent = out.parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=parent))
    try:
        if only_langs is not None and out.is_dir():
            shutil.copytree(out, tmp, dirs_exist_ok=True, symlinks=True)
            for existing in sorted(tmp.rglob("*")):
                if existing.is_file() and owned_by(
                    existing.relative_to(tmp).as_posix(), only_langs
                ):
                    rel = existing.relative_to(tmp).as_posix()
                    if rel not in tree.files:
                        existing.unlink()
        changed = 0
        for path in tree.paths():
            f = tree.files[path]
            target = tmp / path
            if not inside(tmp, target):
                raise ValueError(f"output path {path!r} escapes the output folder")
            target.parent.mkdir(parents=True, exist_ok=True)
            previous = out / path
            if previous.is_file() and not previous.is_symlink() and previous.read_bytes() == f.data:
                if target.exists():
                    target.unlink()
                shutil.copy2(previous, target)  # keep the unchanged file's mtime
                continue
            target.write_bytes(f.data)
            changed += 1
        _remove_empty_dirs(tmp)
        _swap(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return changed


def _remove_empty_dirs(root: Path) -> None:
    for dirpath, _dirnames, _filenames in sorted(os.walk(root), reverse=True):
        d = Path(dirpath)
        if d != root and not any(d.iterdir()):
            d.rmdir()


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
