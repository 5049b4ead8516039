"""What `bipub serve` learns from its file watcher (watchfiles): which changes it reports
(`watch_filter`), its batches gathered on a thread of their own (`Batches`: an update can ask
whether a save is waiting, `waiting`, and leave what follows its first publish to the next
update), and what each rebuild is told (`Follower`: the paths changed since the last build that
succeeded, or a full scan where they cannot stand for one; `unreported`: what a scan finds that
the watcher did not report).
"""

from __future__ import annotations

import os
import re
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from bipub import uprecord, uptodate
from bipub.project import Project

# files in content/ a change of which is not reported: an editor's own, which the content load
# passes over without a word (a name starting with a dot, not .md), and never folders in practice
_QUIET = re.compile(r"^\..*\.sw[a-z]$|^\.DS_Store$")


def watch_filter(content: str, default: Callable[[Any, str], bool]) -> Callable[[Any, str], bool]:
    """The watcher's filter: in `content` (the content/ folder, absolute), every change but
    those of `_QUIET` files — a change set stands for a scan there (uptodate.rescan_inputs),
    so nothing the build reads may go unreported (watchfiles' default filter leaves out
    folders such as .git or node_modules and files such as `x.md~`); elsewhere, `default`
    (every other input is scanned at each build)."""
    inside = content + os.sep

    def report(change: Any, path: str) -> bool:
        if path.startswith(inside):
            return _QUIET.match(os.path.basename(path)) is None
        return default(change, path)

    return report


class Follower:
    """Rebuilds after each batch of changes the watcher reports (`__call__`), with the paths
    changed since the last build that succeeded: the build looks at those files of content/
    only (uptodate.rescan_inputs), or at every input where they cannot stand for a scan. None
    (every input scanned) for the first batch (a change between the first build's scan and
    the watcher's start is not reported); a rebuild whose pages' build fails keeps its paths
    for the next one (or until the scan at the first quiet moment found nothing changed since
    the first build). `rebuild` returns whether the pages' build succeeded.

    An empty batch is the watcher's word that nothing changed for a while (`QUIET_MS`). At
    the first such moment after a rebuild every input is scanned (`unreported`) — not at once
    after the rebuild: a save made while it ran is reported then and built first (a scan
    right after the rebuild took it for one the watcher missed, and built it twice). What the
    scan finds that the watcher did not report (a file system that sends no events, a file
    edited through a hard link elsewhere, an event lost) is said (`-v`) and built from a full
    scan with the next batch, or at the next quiet moment if none comes. `quiet` is also
    called at each quiet moment (`bipub serve`: the output folder's reports looked at, its
    watch armed again: ServeBuilds.idle). `due` says at a quiet moment whether the clock passed
    the date of a post the last build scheduled (bipub/schedule.py): then it rebuilds, though
    no file changed (ServeBuilds.due)."""

    def __init__(
        self,
        ui: Any,
        rebuild: Callable[[frozenset[str] | None], bool],
        unreported: Callable[[], list[str]],
        quiet: Callable[[], None] | None = None,
        due: Callable[[], bool] | None = None,
    ) -> None:
        self.ui, self.rebuild, self.unreported, self.on_quiet = ui, rebuild, unreported, quiet
        self.scheduled = due
        self.pending: set[str] | None = None
        self.due = False  # a rebuild succeeded since the last scan
        self.missed = False  # the last scan found what the watcher did not report
        # no batch yet: the scan at the first quiet moment (the watcher runs by then) finds
        # what changed since the first build's scan, and from then on batches stand for scans
        self.started = True

    def __call__(self, changes: Iterable[tuple[Any, str]]) -> None:
        batch = [path for _change, path in changes]
        if not batch:
            self.quiet()
            return
        self.started = False  # (the first batch: every input scanned)
        if self.missed:  # (what the scan found: the reports cannot stand for a scan)
            self.pending, self.missed = None, False
        if self.pending is not None:
            self.pending.update(batch)
        self._rebuild()

    def _rebuild(self) -> None:
        if self.rebuild(frozenset(self.pending) if self.pending is not None else None):
            self.pending, self.due = set(), True

    def quiet(self) -> None:
        if self.missed:  # (still not reported: built now)
            self.pending, self.missed = None, False
            self._rebuild()
            return
        if self.due or self.started:
            self.due = False
            missed = self.unreported()
            if missed:
                more = f" and {len(missed) - 3} more" if len(missed) > 3 else ""
                self.ui.debug(
                    f"inputs changed that the watcher did not report: {', '.join(missed[:3])}"
                    f"{more}; building again from a full scan"
                )
                self.missed, self.started = True, False
                return
            if self.started:  # (nothing changed since the first build: reported from now on)
                self.pending, self.started = set(), False
        if self.scheduled is not None and self.scheduled():
            self.ui.info("the clock passed the date of a scheduled post: rebuilding")
            self._rebuild()
            return
        if self.on_quiet is not None:
            self.on_quiet()


# milliseconds without a change after which the watcher says so (an empty batch): `Follower`
QUIET_MS = 300


class Batches:
    """The watcher's batches (`source`: watchfiles.watch, with `yield_on_timeout`), gathered
    by a thread of their own while the server rebuilds, so that an update can ask whether a
    save is waiting (`waiting`) before the work that follows its first publish.

    Iterating gives what was gathered since the last batch was given: every change reported
    meanwhile, in one batch, or an empty batch (the watcher's word that nothing changed for a
    while, `QUIET_MS`). The quiet moments reported while the caller was busy with the last
    batch are dropped when it asks for the next one (a save made at the end of a rebuild is
    reported a moment later: a quiet moment from before it must not let a scan find it first,
    `Follower`). The watcher's error, if it fails, is raised by the iteration; `close` stops
    it (`stop`: the event watchfiles.watch was given as its `stop_event`)."""

    def __init__(self, source: Iterable[Iterable[tuple[Any, str]]], stop: threading.Event) -> None:
        self._cond = threading.Condition()
        self._items: deque[list[tuple[Any, str]]] = deque()
        self._done = False
        self._error: BaseException | None = None
        self._stop = stop
        self._thread = threading.Thread(
            target=self._gather, args=(source,), name="bipub-watch", daemon=True
        )
        self._thread.start()

    def _gather(self, source: Iterable[Iterable[tuple[Any, str]]]) -> None:
        try:
            for changes in source:
                batch = list(changes)
                with self._cond:
                    self._items.append(batch)
                    self._cond.notify_all()
        except BaseException as exc:  # (raised in the server's thread: `__iter__`)
            with self._cond:
                self._error = exc
        finally:
            with self._cond:
                self._done = True
                self._cond.notify_all()

    def waiting(self) -> bool:
        """Whether a change was reported since the last batch was given."""
        with self._cond:
            return any(self._items)

    def __iter__(self) -> Iterator[list[tuple[Any, str]]]:
        while True:
            with self._cond:
                # (the quiet moments reported while the last batch was built: past)
                kept = [batch for batch in self._items if batch]
                self._items.clear()
                self._items.extend(kept)
                while not self._items and not self._done:
                    self._cond.wait(timeout=1.0)  # (a timeout: Ctrl-C is seen)
                taken = list(self._items)
                self._items.clear()
                if not taken:  # (the watcher ended)
                    if self._error is not None:
                        raise self._error
                    return
            yield [change for batch in taken for change in batch]

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def unreported(
    project: Project, records: dict[Path, uptodate.Record | None], target: Path
) -> list[str]:
    """The input paths whose identity now is not the one the last build into `target` took
    (its record, `records`), sorted; none if no build left a record (the next one scans).
    No build of this server published yet (a start that found the output up to date: no
    record in `records`): the record on disk, which that build found current, is the one."""
    record = records[target] if target in records else uprecord.load(project, target)
    if record is None:
        return []
    now = uptodate.scan_inputs(project)
    if now == record.inputs:
        return []
    return sorted(
        p for p in now.keys() | record.inputs.keys() if now.get(p) != record.inputs.get(p)
    )
