"""Is the output already up to date? The check a warm build does before anything else.

After a successful build, bipub records (in .bipub-cache/, one file per output folder):

* the identity of every input file — (mtime, ctime, size, inode) of each file under content/,
  templates/, locales/, static/, status/, bipub.yaml, glossary.yaml and the bundled theme — and
  the build's options (languages, output kinds, bipub and Python version, SOURCE_DATE_EPOCH);
* the identity of every output file it published and of every folder of the output (a file
  added to or removed from a folder changes the folder's mtime);
* the build's warnings and page counts.

The next build with the same options compares: if no input file was added, removed or touched
and the output is exactly as published, there is nothing to do. It says so, repeats the
previous build's warnings (so `--strict` fails as it did), and exits — no document is read and
nothing is written. Any difference, however small, runs the real build, which itself keeps
every page whose inputs did not change. ctime cannot be set back by tools like `touch -d`, so a
file edited and re-dated still counts as changed.

The record is pickled and signed like every cache file (cache.py: HMAC with a key kept outside
the project), so a planted file is never unpickled — nor trusted to claim an output is up to
date.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import stat
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from bipub import __version__
from bipub.diagnostics import Diagnostic, Severity
from bipub.project import Project

FORMAT = 2
THEME_DIR = Path(__file__).resolve().parent / "theme"
INPUT_FILES = ("bipub.yaml", "glossary.yaml")
INPUT_DIRS = ("content", "templates", "locales", "static", "status")

Identity = list[int]


def _identity(st: os.stat_result) -> Identity:
    return [st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_mode]


def _walk(folder: str, prefix: str, out: dict[str, Identity]) -> None:
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return
    except NotADirectoryError:
        out[prefix.rstrip("/")] = _identity(os.lstat(folder))
        return
    out[prefix or "."] = _identity(os.lstat(folder))  # the folder itself: entries added/removed
    for entry in entries:
        st = entry.stat(follow_symlinks=False)
        if stat.S_ISDIR(st.st_mode):
            _walk(entry.path, f"{prefix}{entry.name}/", out)
        else:
            out[prefix + entry.name] = _identity(st)


def scan_inputs(project: Project) -> dict[str, Identity]:
    """The identity of every file a build or check reads (missing ones simply do not appear)."""
    found: dict[str, Identity] = {}
    root = str(project.root)
    for name in INPUT_FILES:
        with contextlib.suppress(FileNotFoundError):
            found[name] = _identity(os.lstat(os.path.join(root, name)))
    for name in INPUT_DIRS:
        _walk(os.path.join(root, name), f"{name}/", found)
    _walk(str(THEME_DIR), "(theme)/", found)
    return found


def options_key(*parts: object) -> str:
    """What else decides the output: bipub and Python version, the environment that changes
    bytes (SOURCE_DATE_EPOCH) and the caller's options."""
    data = repr((FORMAT, __version__, sys.version, os.environ.get("SOURCE_DATE_EPOCH"), parts))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def output_state(
    out: Path, files: Iterable[str]
) -> tuple[dict[str, Identity], dict[str, Identity]]:
    """Identities of the published files and of every folder that holds them (and `out`)."""
    base = str(out)
    file_ids: dict[str, Identity] = {}
    dirs: set[str] = {""}
    for rel in files:
        st = os.lstat(os.path.join(base, rel))
        file_ids[rel] = _identity(st)
        parent = rel.rpartition("/")[0]
        while parent and parent not in dirs:
            dirs.add(parent)
            parent = parent.rpartition("/")[0]
    dir_ids = {d: _identity(os.lstat(os.path.join(base, d) if d else base)) for d in sorted(dirs)}
    return file_ids, dir_ids


def _output_unchanged(out: Path, files: dict[str, Identity], dirs: dict[str, Identity]) -> bool:
    """Every recorded folder (first: a folder swapped for a symbolic link fails here) and file
    has its recorded identity. Paths are looked up relative to the open output folder, which
    is cheaper than joining and resolving 28,000 absolute paths."""
    try:
        fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return False
    lstat = os.stat
    try:
        for table in (dirs, files):
            for rel, ident in table.items():
                st = lstat(rel or ".", dir_fd=fd, follow_symlinks=False)
                if [st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_mode] != ident:
                    return False
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


@dataclass
class Record:
    """What the last successful build of one output folder saw and wrote."""

    key: str
    inputs: dict[str, Identity]
    files: dict[str, Identity]
    dirs: dict[str, Identity]
    warnings: list[Diagnostic]
    pages: dict[str, int]


def _path(project: Project, out: Path) -> Path:
    name = hashlib.sha256(str(out.absolute()).encode("utf-8")).hexdigest()[:16]
    return project.cache / f"uptodate-{name}.pickle"


def load(project: Project, out: Path) -> Record | None:
    from bipub.cache import UnsignedCache, load_signed

    try:
        data = load_signed(_path(project, out))
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        return Record(
            data["key"],
            data["inputs"],
            data["files"],
            data["dirs"],
            [
                Diagnostic(d[0], d[1], d[2], d[3], Severity(d[4]), d[5], d[6])
                for d in data["warnings"]
            ],
            data["pages"],
        )
    except (
        OSError,
        UnsignedCache,
        pickle.UnpicklingError,
        EOFError,
        ValueError,
        KeyError,
        TypeError,
        IndexError,
        AttributeError,
    ):
        return None  # no record, or one we cannot read (or not signed by us): the build runs


def save(project: Project, out: Path, record: Record) -> None:
    """Kept signed like every cache file (cache.py), pickled: on a 5,000-post site it holds
    ~40,000 identities, which JSON took 0.06 s to read and as long to write."""
    from bipub.cache import save_signed

    data = {
        "format": FORMAT,
        "key": record.key,
        "inputs": record.inputs,
        "files": record.files,
        "dirs": record.dirs,
        "warnings": [
            [d.file, d.line, d.code, d.message, d.severity.value, d.key, d.lang]
            for d in record.warnings
        ],
        "pages": record.pages,
    }
    save_signed(_path(project, out), data)


def unchanged(
    record: Record | None, key: str, inputs: dict[str, Identity], out: Path
) -> Record | None:
    """The record, if the output it describes is still current for these inputs and options."""
    if record is None or record.key != key or record.inputs != inputs:
        return None
    if not _output_unchanged(out, record.files, record.dirs):
        return None
    return record


def output_intact(out: Path, record: Record) -> bool:
    """Whether the output folder is exactly as the build that saved `record` left it."""
    return _output_unchanged(out, record.files, record.dirs)


def after_writes(
    record: Record, out: Path, written: Iterable[str]
) -> tuple[dict[str, Identity], dict[str, Identity]]:
    """The record's output identities, with the files written since (src/bipub/quick.py) and
    their folders measured again."""
    base = str(out)
    files = dict(record.files)
    dirs = dict(record.dirs)
    for rel in written:
        files[rel] = _identity(os.lstat(os.path.join(base, rel)))
        parent = rel.rpartition("/")[0]
        dirs[parent] = _identity(os.lstat(os.path.join(base, parent) if parent else base))
    return files, dirs
