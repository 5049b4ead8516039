"""The files .bipub-cache/ keeps for each output folder, and what a build removes of them.

Each output folder a build wrote has its own files in the cache, named with a hash of its
absolute path (`output_name`): the BuildState (`state-<output>`, `tables-<output>-<id>`,
`parts-<output>-<id>`: buildstate.py), the entries file (`entries-<output>`: restore.py) and the
up-to-date record (`uptodate-<output>`, `uprecord-<output>-<id>`: uprecord.py), and it has its
tables in the build cache (`pages <output>`, `cards <output>` in build.pickle: cache.py). Each of
them removes its own files that its new file no longer names when it saves; nothing removed the
files of an output folder that is not built any more: a project copied or moved (the hash is of
the old path), an output folder renamed or deleted. So after it saves the build cache, a build
(`BuildCache.save` with the output folder it built, under `save_lock`) drops the tables of an
output folder, and removes all of its files, when

* the output folder no longer exists (moved, renamed, deleted);
* it lies inside another bipub project (a folder with a `bipub.yaml` that is not this project:
  the project was copied, e.g. with `cp -a`, and that output is the original's, which keeps
  its own cache);
* it is not among the `MAX_OUTPUTS` output folders built last (by when their files were last
  written), counting the one just built;

never the output folder just built, and not one a build is writing now (its output lock is
held: write/lock.py), which is said at `-v` and left for the next build. A file named for an
output folder that no table names (its tables were dropped by a build killed before it removed
the files, or by a bipub before session 19) is removed too, once every output folder the
tables name is known by the name its files carry (the `names` table: a path with a symbolic
link hashes differently resolved; an output built before session 19 is not known by it until
it is built again, so until then nothing unnamed is removed). `-v` says what was removed, and
how many bytes.

A concurrent build of another output folder is never left without its tables: every save of
the build cache is made under `save_lock`, and a save whose `build.pickle` was replaced since
it was read (by another build) first takes the tables of the output folders it does not have
from the one on disk (`BuildCache.save`). A file is removed only by the build that decided so
under the lock; one that another build was about to read is then missing, or refused, and that
build does the work it does without it (every cache file is signed and checked when read).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bipub.write.lock import is_held

MAX_OUTPUTS = 8  # output folders whose files the cache keeps at most (the last built)
LOCK = ".save.lock"  # beside the cache's files: held while the build cache is saved and pruned
# the files kept per output folder, named with its hash (and a random id for base files)
_OWN = re.compile(
    r"(?:state|tables|parts|entries|uptodate|uprecord)-([0-9a-f]{16})(?:-[0-9a-f]{16})?\.pickle"
)


def output_name(target: Path) -> str:
    """The name the files kept for an output folder carry (its absolute path, hashed)."""
    return hashlib.sha256(str(target.absolute()).encode("utf-8")).hexdigest()[:16]


def entries_file(folder: Path, target: Path) -> Path:
    """The entries file of the output folder `target` in the cache `folder` (restore.py)."""
    return folder / f"entries-{output_name(target)}.pickle"


@contextmanager
def save_lock(folder: Path) -> Iterator[None]:
    """Held while the build cache is saved and pruned (`BuildCache.save`): one build at a
    time reads, merges and writes `build.pickle` and removes the files of the output folders
    it dropped. Released when the process dies (flock)."""
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # (releases it)


@dataclass
class Pruned:
    """What a save dropped and removed, for `-v`."""

    dropped: dict[str, str] = field(default_factory=dict)  # output folder → why
    busy: list[str] = field(default_factory=list)  # dead, but a build is writing it: left
    files: int = 0
    size: int = 0

    @property
    def note(self) -> str:
        said = [f"{out} ({why})" for out, why in sorted(self.dropped.items())]
        notes = []
        if said:
            n = len(said)
            notes.append(
                f"build cache: dropped the tables of {n} output folder{'s' if n != 1 else ''}: "
                + ", ".join(said)
            )
        if self.files:
            n = self.files
            notes.append(
                f"removed {n} cache file{'s' if n != 1 else ''} of output folders no longer used "
                f"({self.size:,} bytes)"
            )
        if self.busy:
            notes.append(
                "left the cache of "
                + ", ".join(sorted(self.busy))
                + " (no longer used, but a build is writing it now)"
            )
        return "; ".join(notes)


def scan(folder: Path) -> dict[str, list[tuple[str, int, float]]]:
    """The files kept per output folder: its name → each file's name, size and mtime."""
    found: dict[str, list[tuple[str, int, float]]] = {}
    with os.scandir(folder) as it:
        for item in it:
            match = _OWN.fullmatch(item.name)
            if match is None:
                continue
            try:
                st = item.stat(follow_symlinks=False)
            except OSError:
                continue  # (removed meanwhile)
            found.setdefault(match[1], []).append((item.name, st.st_size, st.st_mtime))
    return found


def _other_project(out: Path, root: Path) -> Path | None:
    """The bipub project `out` lies inside, if that is not `root` (None: this project's, or
    no project's)."""
    for parent in out.parents:
        if parent == root:
            return None
        if (parent / "bipub.yaml").is_file():
            return parent
    return None


def dropped(
    outs: Collection[str],
    names: Mapping[str, str],
    folder: Path,
    current: str,
    files: Mapping[str, list[tuple[str, int, float]]],
) -> dict[str, str]:
    """The output folders (as the tables name them: resolved paths) whose tables and files go,
    each with why (the module's rules); never `current`, the one just built."""
    root = folder.parent.resolve()
    out: dict[str, str] = {}
    for key in outs:
        if key == current:
            continue
        path = Path(key)
        if not path.is_dir():
            out[key] = "no longer there"
        elif (other := _other_project(path, root)) is not None:
            out[key] = f"of the project in {other}"
    alive = [key for key in outs if key != current and key not in out]
    if len(alive) >= MAX_OUTPUTS:

        def built(key: str) -> float:
            kept = files.get(names.get(key) or output_name(Path(key)), [])
            return max((mtime for _, _, mtime in kept), default=0.0)

        alive.sort(key=built, reverse=True)
        for key in alive[MAX_OUTPUTS - 1 :]:
            out[key] = f"not among the {MAX_OUTPUTS} output folders built last"
    return out


def not_busy(outs: dict[str, str], pruned: Pruned) -> dict[str, str]:
    """`outs` without those a build is writing now (their output lock is held), which are
    said in `pruned.busy` and left as they are."""
    free = {}
    for key, why in outs.items():
        if is_held(Path(key)):
            pruned.busy.append(key)
        else:
            free[key] = why
    return free


def remove_files(
    folder: Path,
    files: Mapping[str, list[tuple[str, int, float]]],
    live: Collection[str],
    gone: Collection[str],
    unnamed_too: bool,
    pruned: Pruned,
) -> None:
    """Remove the files of the output folders named `gone`, and, with `unnamed_too`, of those
    not named `live` either (no table names them)."""
    for name, kept in files.items():
        if name in live or (name not in gone and not unnamed_too):
            continue
        for file, size, _ in kept:
            try:
                (folder / file).unlink()
            except FileNotFoundError:
                continue  # (removed meanwhile)
            pruned.files += 1
            pruned.size += size
