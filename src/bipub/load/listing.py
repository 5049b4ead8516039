"""The posts and pages folders under content/ as listed (load/content.py): from the scan of the
inputs (`Listing`) or by walking them (`walk_md`), and paths relative to the project."""

from __future__ import annotations

import os
import stat
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from bipub.cache import FileKey
from bipub.diagnostics import Collector
from bipub.model.post import Kind
from bipub.uptodate import Identity, file_identity, mode

CONTENT_DIR = "content"


def project_rel(root: Path, path: Path) -> str:
    text, base = str(path), str(root)
    if text.startswith(base + os.sep):  # the usual case, without pathlib's parsing
        rel = text[len(base) + 1 :].replace(os.sep, "/")
    else:
        rel = path.relative_to(root).as_posix()
    return unicodedata.normalize("NFC", rel)


def is_cv(path: str) -> bool:
    """content/<lang>/cv.yaml (read by every load)."""
    return path.count("/") == 2 and path.endswith("/cv.yaml")


class Listing:
    """The folders under content/ as the build's scan of the inputs found them (`inputs` of
    `load_content`): each folder's entries, by name, with their file mode and identity."""

    def __init__(self, inputs: Mapping[str, Identity]) -> None:
        self.entries: dict[str, list[tuple[str, Identity]]] = {}
        prefix = CONTENT_DIR + "/"
        for path, ident in inputs.items():
            if not path.startswith(prefix):
                continue
            folder, _, name = path.rstrip("/").rpartition("/")
            self.entries.setdefault(folder, []).append((name, ident))

    def md_files(
        self, folder: str, collector: Collector
    ) -> list[tuple[str, FileKey | None]] | None:
        """The .md files under `folder` (as on the disk, relative to the project) with their
        identities, in the order `sorted(walk_md(...))` gives them, saying what `walk_md` says about
        the other entries; None if the scan did not see `folder` as a folder (it is missing,
        or a symbolic link, which `_walk` follows)."""
        parent, _, name = folder.rpartition("/")
        own = next((ident for n, ident in self.entries.get(parent, ()) if n == name), None)
        if own is None or not stat.S_ISDIR(mode(own)):
            return None
        found: list[tuple[str, FileKey | None]] = []
        self._walk(folder, collector, found)  # (depth first, by name: as Paths sort)
        return found

    def _walk(
        self, folder: str, collector: Collector, found: list[tuple[str, FileKey | None]]
    ) -> None:
        for name, ident in sorted(self.entries.get(folder, ())):
            path = f"{folder}/{name}"
            kind = mode(ident)
            if stat.S_ISLNK(kind):
                collector.error(
                    unicodedata.normalize("NFC", path),
                    None,
                    "symlink",
                    "symbolic links are not followed",
                )
            elif stat.S_ISDIR(kind):
                self._walk(path, collector, found)
            elif suffix_of(name) == ".md":
                found.append((path, file_identity(ident)))
            elif not name.startswith("."):
                collector.warning(
                    unicodedata.normalize("NFC", path),
                    None,
                    "ignored-file",
                    "not a .md file: ignored",
                )


def suffix_of(name: str) -> str:
    """A file name's suffix, as pathlib's PurePath.suffix gives it."""
    i = name.rfind(".")
    return name[i:] if 0 < i < len(name) - 1 else ""


def walk_md(folder: Path, root: Path, collector: Collector) -> list[Path]:
    # scandir: a folder's entries say whether they are links or folders without a system call
    # each (thousands of posts)
    found: list[Path] = []
    with os.scandir(folder) as scan:
        entries = sorted(scan, key=lambda e: e.name)
    for entry in entries:
        path = folder / entry.name
        if entry.is_symlink():
            collector.error(
                project_rel(root, path), None, "symlink", "symbolic links are not followed"
            )
        elif entry.is_dir():
            found.extend(walk_md(path, root, collector))
        elif path.suffix == ".md":
            found.append(path)
        elif not entry.name.startswith("."):
            collector.warning(
                project_rel(root, path), None, "ignored-file", "not a .md file: ignored"
            )
    return found


def passed_over(path: str, inputs: Mapping[str, Identity]) -> bool:
    """Whether the listing passes over `path` without a word: a file (not a link) whose name
    starts with a dot and does not end in .md."""
    name = path.rpartition("/")[2]
    return (
        name.startswith(".")
        and suffix_of(name) != ".md"
        and not stat.S_ISLNK(mode(inputs[path]))
        and not stat.S_ISDIR(mode(inputs[path]))
    )


class Job(NamedTuple):
    """One post or page file to load (load/content.py; a named tuple: one is made for each file
    listed, ~6x faster than a frozen dataclass)."""

    root: Path
    disk: str  # its path relative to the project, as on the disk
    rel: str  # the same, NFC
    lang: str
    kind: Kind
    kind_disk: str  # content/<lang>/<kind>, relative to the project
    key: FileKey | None  # its identity as the scan of the inputs found it

    @property
    def path(self) -> Path:
        return self.root / self.disk

    @property
    def name(self) -> str:
        """Its path inside content/<lang>/<kind>/ without .md, NFC."""
        return unicodedata.normalize("NFC", self.disk[len(self.kind_disk) + 1 : -len(".md")])
