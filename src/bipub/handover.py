"""What one build takes over from the last one's output and leaves for the next (pipeline.py).

* `known_output`: the last build's record of the output folder and its spare copy, for the
  writer, with what the prescan found not to be as recorded (uptodate.py);
* `carry_other_kinds`: `build --only` keeps the published files of the kinds it does not
  rebuild;
* `remember`: stage 7, after publishing — the pages' fingerprints with their published files,
  the build cache and the BuildState.

An update's work here is what changed (issue 17): the files to carry over are the names the
record has and the build did not write (a set difference, no loop over the site), and the
pages whose published file is the one the last build recorded are not looked at again (the
writer's record says which files it looked at: `OutputRecord.looked`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from itertools import compress
from operator import not_
from pathlib import Path

from bipub import buildstate, restore, uptodate
from bipub.buildstate import BuildState
from bipub.cache import BuildCache
from bipub.project import Project
from bipub.render.outputs import Output
from bipub.restore import Kept
from bipub.write.carry import carry_all
from bipub.write.output import Identity, OutputTree, published_files
from bipub.write.record import OutputRecord


def recorded_files(
    project: Project, target: Path, prescan: uptodate.Prescan | None
) -> list[str] | None:
    """The files the last build recorded publishing into `target` (an output folder made by a
    bipub from before the ownership marker, or whose marker was removed: write/output.py
    claim): the prescan's record — `bipub serve`'s, in memory, is newer than the file's."""
    record = prescan.scan().record if prescan is not None else uptodate.load(project, target)
    return list(record.files) if record is not None else None


def known_output(prescan: uptodate.Prescan, notes: list[str]) -> uptodate.Record | None:
    """What the last build left in the output folder and its spare copy (for the writer), if
    their folders are as it recorded: the prescan's child looked at them while this build
    loaded and planned (uptodate.Prescan.known_output)."""
    before = prescan.note
    known = prescan.known_output()
    if prescan.note != before:  # (the output checked here after all: uptodate.Checker)
        notes.append(prescan.note)
    if known is not None and known.changed:
        notes.append(f"{known.changed} since the last build: every file of it compared")
    return known


class Built(Mapping[str, int]):
    """build --only: how many of `files` (those this build made) each of `kinds` owns, counted
    when first asked (a call per file and kind: ~0.05 s on a 5,000-post site, which `bipub
    serve`'s rebuilds never show)."""

    def __init__(self, kinds: list[Output], files: list[str]) -> None:
        self._kinds, self._files = kinds, files
        self._counts: dict[str, int] | None = None

    def _counted(self) -> dict[str, int]:
        if self._counts is None:
            self._counts = {k.kind: sum(map(k.owns, self._files)) for k in self._kinds}
        return self._counts

    def __getitem__(self, kind: str) -> int:
        return self._counted()[kind]

    def __iter__(self) -> Iterator[str]:
        return iter(self._counted())

    def __len__(self) -> int:
        return len(self._kinds)  # (one count per kind: not counted to be told how many)


def carry_other_kinds(
    tree: OutputTree,
    kinds: list[Output],
    published: Mapping[str, object] | None,
    owned: dict[tuple[str, ...], dict[str, bool]] | None = None,
) -> None:
    """build --only: carry over the previous output's files of the kinds not rebuilt.
    `published`: the files the last build published (its up-to-date record), else every file
    in the output folder (walking a big site's folders costs seconds; a file not published by
    bipub is not carried over, as a full build would not keep it either). A file removed by
    hand since is not carried over: the next build of its kind makes it again. `owned`: whether
    one of these kinds owns a file, by the kinds' names, as a caller that builds again and
    again (`bipub serve`: Kept.owned) keeps it (a call per file and kind otherwise)."""
    names = published.keys() if published is not None else set(published_files(tree.out))
    left = names - tree.files.keys()  # (not the rebuilt ones: most of them)
    known = owned.setdefault(tuple(kind.kind for kind in kinds), {}) if owned is not None else {}
    for rel in left - known.keys():
        known[rel] = any(kind.owns(rel) for kind in kinds)
    order = list(left)  # (those no rebuilt kind owns, carried over in C loops: write/carry.py)
    carry_all(tree, compress(order, map(not_, map(known.__getitem__, order))))


def remember(
    project: Project,
    target: Path,
    tree: OutputTree,
    kept: Kept,
    fingerprints: dict[str, str],
    output: OutputRecord,
    state: BuildState | None,
) -> None:
    """Stage 7 (after publishing): what the next build starts from — the pages' fingerprints
    with their published files (build cache), then, if `kept` was read from .bipub-cache/
    (not `bipub serve`'s, kept in memory), the cache, the BuildState and the entries
    (restore.py), each file written whole and atomically: a kill leaves each old or new."""
    cache = kept.cache
    remember_pages(cache, str(tree.out), fingerprints, output, tree.kept)
    if not kept.on_disk:
        return
    cache.save(project.cache, target)  # (and drops what no output folder uses: cache_files.py)
    if state is not None:
        buildstate.save(project, target, state)
    restore.save(project, target, kept)
    for old in project.cache.glob("quick-*.pickle"):  # the kits of bipub before the BuildState
        old.unlink(missing_ok=True)  # (tens of MB on a big site; nothing reads them now)


def remember_pages(
    cache: BuildCache,
    out_key: str,
    fingerprints: dict[str, str],
    output: OutputRecord,
    kept: set[str],
) -> None:
    """Each page's fingerprint with its published file's identity (from the record of the
    output the writer made: OutputTree.next_record), for the next build's `keep`. A page kept
    whose file the writer did not look at again has both as the cache has them already: only
    the pages rendered and the files looked at are updated (`output.looked`; None: all)."""
    published = output.files
    merged = cache.pages.get(out_key, {})
    looked = output.looked
    if looked is None:
        paths: Mapping[str, object] | set[str] = fingerprints
    else:  # (set operations: an update renders and links a few pages)
        paths = (fingerprints.keys() - kept) | (looked & fingerprints.keys())
    pages = {
        path: (fingerprints[path], uptodate.file_identity(ident))
        for path in paths
        if (ident := published.get(path)) is not None
    }
    # no pages this build (--only json; serve's second build, of all but the pages): they were
    # carried over, as hard links: only their ctime moved
    if not fingerprints:
        _relinked(merged, published, looked)
    merged.update(pages)
    cache.pages[out_key] = merged


def _relinked(
    pages: dict[str, tuple[str, Identity]],
    published: dict[str, uptodate.Identity],
    looked: frozenset[str] | None,
) -> None:
    """Pages a build carried over by hard link keep their inode, mtime and size; the link
    moved their ctime. Record the new ctime (from the writer's record of the output: no file
    looked at), so that the next build keeps them; a page whose inode, mtime or size changed
    (written by hand since) is left to be rendered again. `looked`: the only files whose
    identity may have changed (None: any)."""
    for path in list(pages) if looked is None else looked & pages.keys():
        fp, (mtime, _ctime, size, ino) = pages[path]
        ident = published.get(path)
        if ident is None:
            continue
        now = uptodate.file_identity(ident)
        if (now[0], now[2], now[3]) == (mtime, size, ino):
            pages[path] = (fp, now)
