"""The watcher's batches on a thread of their own (serve_watch.Batches): what `bipub serve`
asks while it rebuilds (is a save waiting?) and what each rebuild is given next."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bipub.serve_watch import Batches

Batch = set[tuple[str, str]]


def test_the_changes_reported_during_a_rebuild_are_waiting_and_come_in_one_batch() -> None:
    go, queued = threading.Event(), threading.Event()

    def watcher() -> Iterator[Batch]:
        yield {("modified", "a.md")}
        assert go.wait(30)
        # (while the server builds a.md: nothing for a while, a save, nothing, a save)
        yield from (set(), {("added", "b.md")}, set(), {("modified", "c.md")})
        queued.set()  # (asked for the next: every batch above is gathered)
        yield from ()

    batches = Batches(watcher(), threading.Event())
    given = iter(batches)
    assert next(given) == [("modified", "a.md")]
    go.set()
    assert queued.wait(30)
    assert batches.waiting()
    assert sorted(next(given)) == [("added", "b.md"), ("modified", "c.md")]
    assert not batches.waiting()
    assert list(given) == []  # (the watcher ended: so does the iteration)


def test_a_quiet_moment_reported_during_a_rebuild_is_not_given_after_it() -> None:
    """A quiet moment the watcher reported before the rebuild ended is past: the next batch is
    the save made at the end of the rebuild (`Follower` scans at a quiet moment, and would
    otherwise find that save first and build it from a full scan), not that quiet moment."""
    go, queued, resumed = threading.Event(), threading.Event(), threading.Event()

    def watcher() -> Iterator[Batch]:
        yield {("modified", "a.md")}
        assert go.wait(30)
        yield set()  # (during the rebuild of a.md)
        queued.set()
        assert resumed.wait(30)
        yield {("modified", "b.md")}  # (saved at the rebuild's end, reported after it)

    batches = Batches(watcher(), threading.Event())
    given = iter(batches)
    assert next(given) == [("modified", "a.md")]
    go.set()
    assert queued.wait(30)
    assert not batches.waiting()  # (a quiet moment is no save)
    timer = threading.Timer(0.2, resumed.set)  # (once the next batch is asked for)
    timer.start()
    assert next(given) == [("modified", "b.md")]
    timer.join()


def test_the_watchers_error_is_raised_in_the_server() -> None:
    def watcher() -> Iterator[Batch]:
        yield {("modified", "a.md")}
        raise OSError("inotify watch limit reached")

    given = iter(Batches(watcher(), threading.Event()))
    assert next(given) == [("modified", "a.md")]
    with pytest.raises(OSError, match="inotify watch limit"):
        next(given)


def test_close_stops_the_watcher() -> None:
    stop = threading.Event()
    asked: list[Any] = []

    def watcher() -> Iterator[Batch]:
        while not stop.is_set():  # (as watchfiles.watch with its stop_event)
            asked.append(1)
            time.sleep(0.01)
            yield set()

    batches = Batches(watcher(), stop)
    batches.close()
    assert stop.is_set()
    assert list(batches) == []  # (ended: nothing left, no batch waited for)
    assert asked  # (it ran)


def test_the_real_watcher_on_its_thread_reports_a_save_made_during_a_rebuild(
    tmp_path: Path,
) -> None:
    """watchfiles.watch as `bipub serve` runs it (on the Batches thread, stopped by its
    stop_event): a save made while the server is busy is waiting at once, then given."""
    from watchfiles import watch

    stop = threading.Event()
    batches = Batches(
        watch(
            tmp_path, debounce=50, step=20, rust_timeout=300, yield_on_timeout=True, stop_event=stop
        ),
        stop,
    )
    given = iter(batches)
    try:
        (tmp_path / "a.md").write_text("a", encoding="utf-8")
        while not any(path.endswith("a.md") for _, path in next(given)):
            pass  # (quiet moments before the watcher saw it)
        (tmp_path / "b.md").write_text("b", encoding="utf-8")  # (the server busy meanwhile)
        deadline = time.monotonic() + 30
        while not batches.waiting():
            assert deadline > time.monotonic(), "the save was never reported"  # (hang guard)
            time.sleep(0.01)
        assert any(path.endswith("b.md") for _, path in next(given))
    finally:
        batches.close()
    assert list(given) == []  # (stopped)
