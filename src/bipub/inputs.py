"""The input files of a build as they are now: every file a build or check reads, each with
its identity (`scan_inputs`), or the same worked out from an earlier scan and the paths changed
since, as a file watcher reports them (`rescan_inputs`: `bipub serve`). The up-to-date check
(uptodate.py) compares them with the last build's record; the content load takes the posts'
and pages' listing from them (load/content.py).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import struct
from collections.abc import Iterable
from pathlib import Path

from bipub import mermaid_cli
from bipub.project import Project
from bipub.write.record import PACKED, Identity
from bipub.write.record import identity as _identity

THEME_DIR = Path(__file__).resolve().parent / "theme"
INPUT_FILES = ("bipub.yaml", "glossary.yaml")
INPUT_DIRS = ("content", "templates", "locales", "static", "status")


def file_identity(ident: Identity) -> tuple[int, int, int, int]:
    """(mtime_ns, ctime_ns, size, inode): write/output.py's `file_identity` of the same file."""
    mtime, ctime, size, ino, _mode = PACKED.unpack(ident)
    return (mtime, ctime, size, ino)


def mode(ident: Identity) -> int:
    """The file mode in an identity (stat.S_ISDIR and friends read it)."""
    return int(struct.unpack_from("<Q", ident, 32)[0])


def _walk(folder: str, prefix: str, out: dict[str, Identity], parent: int | None = None) -> None:
    """The identities of `folder` (a path, or a name in the open folder `parent`) and of
    everything in it. Each folder is opened once and its entries looked up in it (a short
    lookup, not the whole path again: ~20 % less work on 10,000 posts)."""
    flags = os.O_RDONLY | os.O_DIRECTORY | (os.O_NOFOLLOW if parent is not None else 0)
    try:
        fd = os.open(folder, flags, dir_fd=parent)
    except FileNotFoundError:
        return
    except OSError as exc:  # a file (or, replaced since it was listed, a symbolic link)
        if not isinstance(exc, NotADirectoryError) and exc.errno != errno.ELOOP:
            raise
        out[prefix.rstrip("/")] = _identity(os.lstat(folder, dir_fd=parent))
        return
    try:
        # the folder itself (entries added/removed); the top one as a link if it is one
        here = os.fstat(fd) if parent is not None else os.lstat(folder)
        out[prefix or "."] = _identity(here)
        with os.scandir(fd) as listing:
            entries = list(listing)
        for entry in entries:
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                _walk(entry.name, f"{prefix}{entry.name}/", out, fd)
            else:
                out[prefix + entry.name] = _identity(st)
    finally:
        os.close(fd)


def scan_inputs(project: Project, skip: str = "") -> dict[str, Identity]:
    """The identity of every file a build or check reads (missing ones simply do not appear);
    `skip`: one of INPUT_DIRS left out (`rescan_inputs` takes it from elsewhere)."""
    found: dict[str, Identity] = {}
    root = str(project.root)
    for name in INPUT_FILES:
        with contextlib.suppress(FileNotFoundError):
            found[name] = _identity(os.lstat(os.path.join(root, name)))
    for name in INPUT_DIRS:
        if name != skip:
            _walk(os.path.join(root, name), f"{name}/", found)
    _walk(str(THEME_DIR), "(theme)/", found)
    tool = mermaid_cli.tool_dir()  # which mermaid-cli draws the diagrams: an upgrade is a change
    for name in mermaid_cli.VERSION_FILES:
        with contextlib.suppress(OSError):
            found[f"(mermaid)/{name}"] = _identity(os.lstat(tool / name))
    return found


CHANGE_SET_DIR = "content"  # the input folder whose changes a change set may stand for


def rescan_inputs(
    project: Project, base: dict[str, Identity], changed: Iterable[str]
) -> tuple[dict[str, Identity] | None, str]:
    """What `scan_inputs` finds now, given `base` (what it found at some earlier moment) and
    `changed`: every path (absolute, as a file watcher reports them) changed since that moment
    — whose content/ files alone are looked at again; every other input is scanned as usual
    (a few hundred files: templates, catalogs, the theme). (None, why) where the change set
    cannot stand for a scan of content/: a change on a folder (its files may have come or gone
    unreported: a folder moved in, or out), in a folder the base did not hold as one, or on
    content/ itself; the caller then scans in full.

    The caller vouches that `changed` holds every path changed since `base` was scanned
    (`bipub serve`: what its watcher reported since; a rebuild that failed keeps its paths)."""
    root = os.path.abspath(project.root)
    top = os.path.join(root, CHANGE_SET_DIR)
    prefix = CHANGE_SET_DIR + "/"
    if prefix not in base or not stat.S_ISDIR(mode(base[prefix])):
        return None, "the last scan found no content/ folder"
    again: dict[str, Identity | None] = {}
    for path in changed:
        if not path.startswith(top + os.sep):
            if path == top:
                return None, "a change on content/ itself"
            if path.startswith(root + os.sep):
                continue  # (not in content/: scanned again below)
            return None, f"a change reported outside the project: {path}"
        rel = prefix + path[len(top) + 1 :].replace(os.sep, "/")
        folder = rel.rpartition("/")[0] + "/"
        if rel + "/" in base:
            return None, f"a change on the folder {rel}"
        known = base.get(folder)
        if known is None or not stat.S_ISDIR(mode(known)):
            return None, f"a change in {folder}, which the last scan did not find as a folder"
        try:
            st = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            again[rel] = None
        else:
            if stat.S_ISDIR(st.st_mode):
                return None, f"a change on the folder {rel}"
            again[rel] = _identity(st)
        if folder not in again:  # (a file added or removed changes its folder's identity)
            try:
                st = os.lstat(os.path.join(root, folder))
            except (FileNotFoundError, NotADirectoryError):
                return None, f"the folder {folder} is gone"
            if not stat.S_ISDIR(st.st_mode):
                return None, f"{folder} is no longer a folder"
            again[folder] = _identity(st)
    # the other inputs as they are now, then content/ as it was with the changes
    found = scan_inputs(project, skip=CHANGE_SET_DIR)
    found.update({path: ident for path, ident in base.items() if path.startswith(prefix)})
    for rel, ident in again.items():
        if ident is None:
            found.pop(rel, None)
        else:
            found[rel] = ident
    return (
        found,
        f"{len(again)} changed input{'s' if len(again) != 1 else ''} of content/ looked at",
    )
