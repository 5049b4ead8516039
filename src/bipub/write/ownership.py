"""Which output folders bipub may replace (write/output.py writes only those).

bipub replaces everything in its output folder, so it writes only into a folder it made: the
first build leaves a marker file in it (`MARKER`). `claim` refuses, before anything is written,
the project folder, a folder that is, holds or lies inside an input, and a non-empty folder
without the marker (one made by a bipub from before the marker is recognised by its build
record).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from contextlib import suppress
from pathlib import Path

from bipub.diagnostics import ConfigError, Diagnostic

MARKER = ".bipub-output"  # in every output folder bipub made: what proves it may replace it
MARKER_TEXT = (
    "This folder is made by bipub: every build replaces all of its contents.\n"
    "bipub writes here only while this file is here.\n"
)
# what a project reads: an output folder may not be, hold or lie inside any of them
INPUT_NAMES = (
    "bipub.yaml",
    "glossary.yaml",
    "content",
    "templates",
    "locales",
    "static",
    "status",
    ".git",
    ".bipub-cache",
)
SERVE_FOLDER = (".bipub-cache", "serve")  # `bipub serve`'s output: bipub's own, inside its cache


def _refuse(message: str) -> ConfigError:
    return ConfigError([Diagnostic(None, None, "output-folder", message)])


def _shown(path: Path, root: Path | None) -> str:
    if root is not None:
        with suppress(ValueError):
            return path.relative_to(root.resolve()).as_posix() or "."
    return str(path)


def _empty(folder: Path) -> bool:
    with os.scandir(folder) as entries:
        return next(entries, None) is None


def owned(folder: Path) -> bool:
    """A folder bipub made (its marker is in it)."""
    try:
        return stat.S_ISDIR(os.lstat(folder).st_mode) and stat.S_ISREG(
            os.lstat(folder / MARKER).st_mode
        )
    except OSError:
        return False


def claim(
    out: Path,
    root: Path | None = None,
    recorded: Callable[[], Iterable[str] | None] | None = None,
) -> Path:
    """Check, before anything is written, that bipub may replace `out`; returns the folder to
    write (`out`, or the folder it points to if it is a symbolic link). Raises ConfigError:

    * `out` is the project folder, or is, holds or lies inside an input (INPUT_NAMES) —
      except `bipub serve`'s own folder in .bipub-cache/;
    * `out` is a file, or a symbolic link to nothing or to a file;
    * `out` is a folder with something in it but no marker: not made by bipub. A folder made by
      a bipub from before the marker is recognised by `recorded` (the files the last build
      recorded as published there): if it holds only those, it is bipub's.

    A folder bipub did not make where it keeps the previous site (`.site.prev`: an older bipub
    moved folders it did not own there) is left alone, with a warning (`staged`).
    """
    out = Path(os.path.abspath(out))
    shown = f"the output folder {_shown(out, root)}"
    if out.is_symlink():
        try:
            real = out.resolve(strict=True)
        except (OSError, RuntimeError):
            raise _refuse(
                f"{shown} is a symbolic link to {os.readlink(out)}, which does not "
                "exist: make that folder, or remove the link"
            ) from None
    else:
        real = out.resolve()
    if root is not None:
        base = root.resolve()
        if real == base:
            raise _refuse(
                f"{shown} is the project folder itself; bipub replaces "
                "everything in its output folder: choose a folder of its own (default: site/)"
            )
        for name in INPUT_NAMES:
            source = (base / name).resolve()
            if real == base.joinpath(*SERVE_FOLDER) and name == SERVE_FOLDER[0]:
                continue
            if real == source or source.is_relative_to(real) or real.is_relative_to(source):
                where = (
                    "is"
                    if real == source
                    else "holds"
                    if source.is_relative_to(real)
                    else "is inside"
                )
                raise _refuse(
                    f"{shown} {where} the project's {name} (an input); bipub "
                    "replaces everything in its output folder: choose a folder outside "
                    "content/, templates/, locales/, static/, status/, .git/ and .bipub-cache/"
                )
    if os.path.lexists(real):
        if not real.is_dir():
            raise _refuse(f"{shown} is a file, not a folder")
        if not owned(real) and not _empty(real):
            files = recorded() if recorded is not None else None
            if files is None or not set(published_files(real)) <= set(files):
                raise _refuse(
                    f"{shown} holds files bipub did not make (there is no "
                    f"{MARKER} in it), and bipub replaces everything in its output folder: "
                    "choose an empty or new folder; or, if all of it may be replaced, add the "
                    f"marker (touch {_shown(out, root)}/{MARKER})"
                )
            (real / MARKER).write_text(MARKER_TEXT, encoding="utf-8")  # made by an older bipub
    return real


def real_output(out: Path) -> Path:
    """The folder written for `out`: the one it points to if it is a symbolic link."""
    out = Path(os.path.abspath(out))
    return out.resolve() if out.is_symlink() else out


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
