"""What `bipub serve` saves of the state it keeps in memory (restore.py `Kept`), and how it
stops.

The build cache, the BuildState and the up-to-date record of the output folder (`Saves`) are
saved at a quiet moment after each update, not only when the server stops: a server killed
outright (SIGKILL, a crash, the machine going down) then leaves what the next start needs to
render only what changed since (before, it rendered every page again: ~13 s at 5,000 posts a
language). A save runs on the thread that builds, between two updates, so what it writes is
what the published output was made from; it writes each file whole and atomically, in the
order `bipub build` does (the cache, the state, then the record of the output: a kill between
two leaves the record of an older output, which the next build finds not to match the folder
and checks in full), and it leaves the files it has not written yet to the next quiet moment
when a save is waiting (`waiting`), so that an update never waits for more than one file.

A stop (Ctrl-C, or SIGTERM: `stop_on_sigterm`) saves the same way. While the server serves, a
stop that comes while an update builds waits for that build to end (`StopHold`); one that
stops a build midway (the first build, or a second stop) saves nothing (`ServeBuilds.broken`):
what is in memory then may describe neither the published output nor the one that was being
made (the last save stands). A stop
during the first build, before the server served anything, ends the command with the exit
status of that signal (`Stopped`: 130 for Ctrl-C, 143 for SIGTERM); what that build had
published (the swap is atomic) is found by the next start as any output not as recorded.
"""

from __future__ import annotations

import gc
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bipub import buildstate
from bipub.cache import not_saved
from bipub.diagnostics import Diagnostic
from bipub.project import Project

if TYPE_CHECKING:
    from bipub.restore import Kept


# quiet moments in a row (serve_watch.QUIET_MS each: 0.6 s without a change after a build)
# before a save: a writer saving again right after an update is not kept waiting by it
QUIET_MOMENTS = 2
# builds between two collections of what they left in reference cycles (`Sweeps`)
SWEEP_EVERY = 20


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C raises KeyboardInterrupt: the server stops the same way."""


class Stopped(Exception):
    """The server was stopped (Ctrl-C or SIGTERM) before it served: `status` is the exit
    status that says so (128 + the signal's number)."""

    def __init__(self, signum: int, message: str) -> None:
        super().__init__(message)
        self.status = 128 + signum
        self.message = message


def signal_of(exc: KeyboardInterrupt) -> int:
    """The signal that stopped the server: SIGTERM (`Terminated`) or SIGINT (Ctrl-C)."""
    return int(signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT)


def stop_on_sigterm() -> Any:
    """`kill`, a service manager's or a container's stop (SIGTERM) ends the server as Ctrl-C
    does: the build cache and the build state are saved, so the next start renders only what
    changed. Returns the handler it replaced, for `signal.signal` to put back; None when the
    server does not run on the main thread (nothing replaced) or when the handler it replaced
    was not set from Python (`signal.signal` cannot put such a one back: ours then stays)."""

    def stop(signum: int, frame: object) -> None:
        raise Terminated

    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, stop)


class StopHold:
    """While the server serves, a stop (Ctrl-C, SIGTERM) that comes while an update builds
    waits for that build to end (`held`, then `end` raises it): the state the build leaves is
    then saved as at any stop, where a stop in the middle of it could save nothing and the next
    start compared every file of the output. A second stop meanwhile stops at once (nothing
    saved). `install` sets both signals' handlers and returns what it replaced."""

    def __init__(self) -> None:
        self.building = False
        self.held: KeyboardInterrupt | None = None

    def _handler(self, kind: type[KeyboardInterrupt]) -> Callable[[int, object], None]:
        def stop(signum: int, frame: object) -> None:
            if self.building and self.held is None:
                self.held = kind()
                return
            raise kind

        return stop

    def install(self) -> list[tuple[int, Any]]:
        if threading.current_thread() is not threading.main_thread():
            return []
        return [
            (signal.SIGINT, signal.signal(signal.SIGINT, self._handler(KeyboardInterrupt))),
            (signal.SIGTERM, signal.signal(signal.SIGTERM, self._handler(Terminated))),
        ]

    def begin(self) -> None:
        self.building = True

    def end(self) -> None:
        """The build ended: a stop that came meanwhile is raised now."""
        self.building = False
        held, self.held = self.held, None
        if held is not None:
            raise held


def put_back(handlers: list[tuple[int, Any]]) -> None:
    for signum, handler in handlers:
        if handler is not None:
            signal.signal(signum, handler)


class Saves:
    """Saves `kept` (the server's state in memory) for the output folder `site`: `due` after
    each build that succeeded (`built`), `idle` at a quiet moment, `stop` when the server
    stops (the module's text)."""

    def __init__(self, project: Project, site: Path, kept: Kept) -> None:
        self.project, self.site, self.kept = project, site, kept
        self.due = False  # a build succeeded since the last save
        self.step = 0  # the files of the save under way written so far (0: none)
        self.saves = 0  # saves done whole (tests count them)
        self.quiet = 0  # quiet moments in a row since the last build (`QUIET_MOMENTS`)
        self.failed: list[Diagnostic] = []  # saves that failed, not yet said (`take_failed`)

    def take_failed(self) -> list[Diagnostic]:
        """The warnings of the saves that failed since the last call (the server prints them)."""
        failed, self.failed = self.failed, []
        return failed

    def built(self) -> None:
        """A build succeeded: what it left is saved at the next quiet moment (a save under way
        starts again from its first file: each file is of the same moment)."""
        self.due, self.step, self.quiet = True, 0, 0

    def _steps(self) -> list[Callable[[], None]]:
        project, kept, site = self.project, self.kept, self.site
        state = kept.state
        return [
            lambda: kept.cache.save(project.cache),
            (lambda: buildstate.save(project, site, state)) if state is not None else _nothing,
            lambda: kept.save_records(project),
        ]

    def idle(self, waiting: Callable[[], bool]) -> str:
        """At a quiet moment: once nothing was built for `QUIET_MOMENTS` of them in a row, save
        what the last builds left, a file at a time while no save is `waiting` (the others at
        the next quiet moment). What to say (-v), or ""."""
        if not self.due:
            return ""
        self.quiet += 1
        if self.quiet < QUIET_MOMENTS:
            return ""
        return self._save(waiting)

    def now(self) -> str:
        """Save at once what is not saved yet (after the first build). What to say, or ""."""
        return self._save(_never) if self.due else ""

    def _save(self, waiting: Callable[[], bool]) -> str:
        steps = self._steps()
        took: list[str] = []
        while self.step < len(steps):
            if waiting():
                return "a save is waiting: the server's state is saved at a quiet moment after it"
            started = time.perf_counter()
            try:
                steps[self.step]()
            except OSError as exc:  # (a full or unwritable disk: the site served is fine)
                self.due, self.step, self.quiet = False, 0, 0  # (tried again after a build)
                self.failed.append(not_saved(self.project.cache, exc))
                return "the server's state could not be saved (said as a warning)"
            took.append(f"{time.perf_counter() - started:.2f}")
            self.step += 1
        self.due, self.step, self.quiet = False, 0, 0
        self.saves += 1
        return (
            "build cache, build state and up-to-date record saved for the next start "
            f"(in {' + '.join(took)} s)"
        )

    def stop(self, broken: bool) -> str:
        """When the server stops: save what is not saved yet, unless a build was stopped while
        it ran (`broken`: what is in memory may not be what is published). What to say."""
        if broken:
            self.due = False
            return (
                "stopped while a build ran: the server's state is not saved (the last save "
                "stands; the next start checks the output folder against it)"
            )
        return self.now()


class Sweeps:
    """What the builds leave in reference cycles, collected at a quiet moment every `every`
    builds (`builds`: how many the server ran, whether they succeeded or not).

    Each build makes objects that only a cyclic collection frees (its Jinja environments and
    their templates: ~400-1,000 objects a build: 7,847 in 20 at 5,000 posts a language). A build
    freezes what exists when it starts (pipeline.py `_few_collections`: its collections never
    walk the server's state), the last builds' cycles with it, and thaws it into the oldest
    generation when it ends, which Python collects only after it grew by a quarter: in a
    server that builds again before that, each update's cycles stayed in memory for the
    server's life. A full collection walks the whole state (~0.7 s at 5,000 posts a language,
    ~20 ms for the demo): it runs when the state is saved and no save is waiting."""

    def __init__(self, builds: Callable[[], int], every: int = SWEEP_EVERY) -> None:
        self.builds, self.every = builds, every
        self._last = 0  # (the number of builds at the last collection)
        self.sweeps = 0  # collections done (tests count them)

    def idle(self, waiting: Callable[[], bool]) -> str:
        """At a quiet moment: collect once `every` builds ran since the last collection,
        unless a save is `waiting`. What to say (-v), or ""."""
        builds = self.builds()
        if builds - self._last < self.every or waiting():
            return ""
        started = time.perf_counter()
        found = gc.collect()
        since, self._last = builds - self._last, builds
        self.sweeps += 1
        return (
            f"{found} objects left in reference cycles by the last {since} builds collected "
            f"(in {time.perf_counter() - started:.2f} s)"
        )


def _never() -> bool:
    return False


def _nothing() -> None:
    pass
