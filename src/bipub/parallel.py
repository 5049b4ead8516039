"""Work spread over the cores by forked worker processes (the load and render stages).

Forked workers inherit the parent's memory, so the work to do is never pickled on the way in;
only each chunk's results come back. Results keep the order of the items, whichever worker did
them, so the output does not depend on how the work was split. An exception in a worker is
raised again in the parent (nothing is swallowed).

Workers die with the process that forked them (`die_with_parent`): a build killed outright
(SIGKILL, the OOM killer) leaves no worker behind, still writing into its staging folder.
"""

from __future__ import annotations

import ctypes
import os
import signal
import threading
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def worker_count() -> int:
    """Worker processes to use: `BIPUB_WORKERS` if set, else the cores this process may use."""
    env = os.environ.get("BIPUB_WORKERS")
    if env:
        return max(1, int(env))
    return max(1, len(os.sched_getaffinity(0)))


def can_fork() -> bool:
    """Forking is only safe while this process runs no other thread (`bipub serve` does)."""
    return hasattr(os, "fork") and threading.active_count() == 1


_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """In a forked worker: be killed when the process `parent` (which forked it) ends, however
    it ends (Linux prctl PR_SET_PDEATHSIG); if it has already ended, end now. Where the call is
    not available the worker ends when it next finds its parent gone (multiprocessing)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: see above
    if os.getppid() != parent:  # the parent died before the call: nobody would kill us
        os._exit(1)


class _Task(Generic[T, R]):
    def __init__(
        self,
        fn: Callable[[T], R],
        items: Sequence[T],
        chunk: int,
        parent: int,
        setup: Callable[[], None] | None,
    ) -> None:
        self.fn = fn
        self.items = items
        self.chunk = chunk
        self.parent = parent
        self.setup = setup


_TASK: _Task[Any, Any] | None = None  # set in forked workers only (by _init), never in the parent


def _init(task: _Task[Any, Any]) -> None:
    global _TASK
    die_with_parent(task.parent)
    if task.setup is not None:
        task.setup()
    _TASK = task


def _run_chunk(start: int) -> list[Any]:
    assert _TASK is not None
    task = _TASK
    return [task.fn(item) for item in task.items[start : start + task.chunk]]


def fork_map(
    fn: Callable[[T], R],
    items: Sequence[T],
    chunk: int,
    workers: int,
    meanwhile: Callable[[], None] | None = None,
    setup: Callable[[], None] | None = None,
) -> list[R]:
    """`[fn(item) for item in items]`, computed by `workers` forked processes, `chunk` items at
    a time (the caller checks `can_fork()` first). `fn` and `items` reach the workers by fork;
    the results come back pickled.

    `meanwhile` is run in this process while the workers work (what it changes is not seen by
    them: they were forked before); then this process takes the chunks no worker has started
    yet, from the last one back, until it meets the workers. `setup` is run first in each
    worker (OutputTree.release_in_child)."""
    import multiprocessing  # (imported when used: a small update forks no pool)
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("fork")
    out: list[R] = []
    task: _Task[T, R] = _Task(fn, items, chunk, os.getpid(), setup)
    starts = range(0, len(items), chunk)
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=_init, initargs=(task,)
    ) as pool:
        futures = [pool.submit(_run_chunk, start) for start in starts]  # forks the workers
        done_here: dict[int, list[R]] = {}
        if meanwhile is not None:
            meanwhile()
            for i in reversed(range(len(futures))):
                if not futures[i].cancel():  # a worker has it (and every chunk before it)
                    break
                done_here[i] = [fn(item) for item in items[starts[i] : starts[i] + chunk]]
        for i, future in enumerate(futures):
            part = done_here.get(i)
            out.extend(part if part is not None else future.result())
    return out
