"""Work spread over the cores by forked worker processes (the load and render stages).

Forked workers inherit the parent's memory, so the work to do is never pickled on the way in;
only each chunk's results come back. Results keep the order of the items, whichever worker did
them, so the output does not depend on how the work was split. An exception in a worker is
raised again in the parent (nothing is swallowed).

Workers die with the process that forked them (`die_with_parent`): a build killed outright
(SIGKILL, the OOM killer) leaves no worker behind, still writing into its staging folder.

Two ways to share: `fork_map` (a pool: each worker is handed chunks through a queue, ahead of
time) and `share_chunks` (forked helpers and this process claim chunks one at a time, from
either end of a shared counter: nothing is queued ahead, so when the last chunk is claimed
nobody holds work the others could have done; what a helper made comes back chunk by chunk,
read by this process between its own chunks: little is left to send and unpickle at the end).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import gc
import mmap
import os
import pickle
import signal
import struct
import threading
import traceback
from collections.abc import Callable, Sequence
from typing import Any, Generic, NoReturn, TypeVar

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


class _Claims:
    """Chunks 0 .. n-1, each claimed once: by helpers from the first on (`front`), by the
    process that forked them from the last one back (`back`), until they meet. A counter pair
    in memory shared with the forked helpers (an anonymous shared mapping), under a lock (a
    pipe holding one token: whoever has read it holds the lock): no multiprocessing, whose
    modules cost ~3 ms to import before the first fork of a build."""

    def __init__(self, n: int) -> None:
        self._ends = mmap.mmap(-1, _ENDS.size)  # (shared with the processes forked after)
        _ENDS.pack_into(self._ends, 0, 0, n)  # the next from the front, the end (excl.)
        self._lock = os.pipe()
        os.write(self._lock[1], b"x")

    def _claim(self, front: bool) -> int | None:
        os.read(self._lock[0], 1)  # (the token: the lock held)
        try:
            start, end = _ENDS.unpack_from(self._ends)
            if start >= end:
                return None
            if front:
                _ENDS.pack_into(self._ends, 0, start + 1, end)
                return int(start)
            _ENDS.pack_into(self._ends, 0, start, end - 1)
            return int(end - 1)
        finally:
            os.write(self._lock[1], b"x")

    def front(self) -> int | None:
        return self._claim(front=True)

    def back(self) -> int | None:
        return self._claim(front=False)

    def close(self) -> None:
        for fd in self._lock:
            os.close(fd)
        self._ends.close()


_ENDS = struct.Struct("qq")


def _helper(
    claims: _Claims,
    theirs: Callable[[int], R],
    setup: Callable[[], None] | None,
    parent: int,
    write: int,
) -> NoReturn:
    """A forked helper's life: the chunks it claims, each one's result sent to the parent as
    soon as it is made (`_Results` reads it there between the parent's own chunks), then an
    end mark, or the error that stopped it. Never returns (os._exit)."""
    status = 0
    try:
        die_with_parent(parent)
        out = _Sender(write)
        try:
            if setup is not None:
                setup()
            while (i := claims.front()) is not None:
                out.send(pickle.dumps(("part", i, theirs(i)), pickle.HIGHEST_PROTOCOL))
            out.send(pickle.dumps(("end",), pickle.HIGHEST_PROTOCOL))
        except BaseException as exc:  # (sent to the parent, which raises it again)
            out.send(_error_message(exc))
        out.close()
    except BaseException:  # (the parent finds the end mark missing and says so)
        status = 1
    finally:
        os._exit(status)


_FRAME = struct.Struct("<Q")  # (the length of each message a helper sends)


class _Sender:
    """A helper's messages to its parent by the pipe `fd`, each written as far as the pipe
    takes it without waiting (the rest kept here, tried again with the next one), the
    remainder waited for by `close`: a helper never waits for its parent while it has work
    (the parent reads between its own chunks, and not while it runs its `meanwhile`)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._pending = bytearray()
        self._sent = 0  # (bytes of `_pending` written)
        os.set_blocking(fd, False)

    def send(self, message: bytes) -> None:
        self._pending += _FRAME.pack(len(message))
        self._pending += message
        self._write()

    def _write(self) -> None:
        view = memoryview(self._pending)
        try:
            while self._sent < len(view):
                self._sent += os.write(self.fd, view[self._sent :])
        except BlockingIOError:  # (the pipe is full: the rest goes with the next message)
            pass
        finally:
            view.release()
        if self._sent == len(self._pending):
            self._pending.clear()
            self._sent = 0

    def close(self) -> None:
        """Write what is left, waiting for the parent to read it, and close the pipe."""
        os.set_blocking(self.fd, True)
        self._write()
        os.close(self.fd)


class _Results(Generic[R]):
    """What one helper sends by its pipe `read`: `(i, theirs(i))` for each chunk it did, read
    as it comes (`take`: without waiting, between this process's own chunks, so that little
    is left to read and unpickle once the last chunk is done), then its end mark (`finish`).
    Its error is raised here; a helper that ends without its end mark is an error too."""

    def __init__(self, pid: int, read: int) -> None:
        self.pid = pid
        self.read = read
        self.parts: list[tuple[int, R]] = []
        self._data = bytearray()
        self._ended = False
        os.set_blocking(read, False)
        _bigger_pipe(read)  # (the helper seldom waits for this process to read)

    def take(self) -> None:
        """Read and unpickle what has come so far, without waiting."""
        while True:
            try:
                data = os.read(self.read, 1 << 20)
            except BlockingIOError:
                break
            if not data:
                break
            self._data += data
        self._messages()

    def finish(self) -> list[tuple[int, R]]:
        """Everything the helper sent, once it has sent its end mark (waiting for it). A
        helper that sent it is ending: the end of its process (its memory given back, a few
        ms at 100 posts a language, more for a big site) is waited for by a thread of its own
        (`_reap`), not before the caller goes on; one that did not send it is waited for now
        (how it ended: the error)."""
        os.set_blocking(self.read, True)
        while data := os.read(self.read, 1 << 20):
            self._data += data
        self._messages()
        os.close(self.read)
        self.read = -1
        pid, self.pid = self.pid, 0
        if not self._ended:
            _, status = os.waitpid(pid, 0)
            raise RuntimeError(
                f"a helper process ended without sending what it made ({_how_it_ended(status)})"
            )
        threading.Thread(target=_reap, args=(pid,), name="bipub-reap", daemon=True).start()
        return self.parts

    def _messages(self) -> None:
        data, at = self._data, 0
        while len(data) - at >= _FRAME.size:
            (size,) = _FRAME.unpack_from(data, at)
            if len(data) - at - _FRAME.size < size:
                break
            start = at + _FRAME.size
            message = bytes(memoryview(data)[start : start + size])
            at = start + size
            kind, *rest = pickle.loads(message)  # noqa: S301 - our own child's, by a pipe
            if kind == "error":
                exc, text = rest
                raise exc from RuntimeError(f"in a helper process:\n{text}")
            if kind == "end":
                self._ended = True
            else:
                self.parts.append((rest[0], rest[1]))
        del data[:at]

    def end(self) -> None:
        """(An error here, or in another helper) End the helper if it runs."""
        if self.read != -1:
            os.close(self.read)
            self.read = -1
        if self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.pid = 0


def _reap(pid: int) -> None:
    """Wait for the end of a helper that sent everything (`_Results.finish`), on a thread of
    its own: it has ended or is ending by itself (os._exit after its last message), so how it
    ended says nothing more, and the build goes on meanwhile (waitpid holds no lock)."""
    with contextlib.suppress(ChildProcessError):  # (reaped already by someone else)
        os.waitpid(pid, 0)


_PIPE_SIZE = 1 << 20  # (Linux's default most for an unprivileged process)


def _bigger_pipe(fd: int) -> None:
    """The pipe of `fd` holding `_PIPE_SIZE` bytes unread (64 KiB by default), where the
    system allows it (Linux; else it stays as it is)."""
    with contextlib.suppress(OSError, AttributeError):
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_SIZE)


def _child(work: Callable[[], object], parent: int, write: int) -> NoReturn:
    """A forked child's life: `work()`, then what it returned (or the error that stopped it)
    in one message to the parent by the pipe `write`. Never returns (os._exit)."""
    status = 0
    try:
        die_with_parent(parent)
        try:
            message = pickle.dumps(("done", work()), pickle.HIGHEST_PROTOCOL)
        except BaseException as exc:  # (sent to the parent, which raises it again)
            message = _error_message(exc)
        with os.fdopen(write, "wb") as out:
            out.write(message)
    except BaseException:  # (the parent finds the message missing and says so)
        status = 1
    finally:
        os._exit(status)


def _error_message(exc: BaseException) -> bytes:
    """`exc` for the parent: itself if it comes back from a pickle (an exception class whose
    arguments are not its constructor's does not), else its traceback as text."""
    text = "".join(traceback.format_exception(exc))
    try:
        message = pickle.dumps(("error", exc, text), pickle.HIGHEST_PROTOCOL)
        pickle.loads(message)  # noqa: S301 - (our own, just made)
        return message
    except Exception:  # (any pickling failure: the text says what happened)
        return pickle.dumps(("error", RuntimeError(text), text), pickle.HIGHEST_PROTOCOL)


def _read_all(read: int) -> bytes:
    parts = []
    while chunk := os.read(read, 1 << 20):
        parts.append(chunk)
    return b"".join(parts)


def share_chunks(
    n: int,
    mine: Callable[[int], None],
    theirs: Callable[[int], R],
    helpers: int,
    meanwhile: Callable[[], None] | None = None,
    setup: Callable[[], None] | None = None,
) -> list[tuple[int, R]]:
    """Chunks 0 .. n-1 done once each, by `helpers` forked processes and this one; returns
    what the helpers made, `(i, theirs(i))` in the order of `i` (the caller checks
    `can_fork()` first).

    Each helper runs `setup`, then claims chunks from the first on and does `theirs(i)`.
    This process runs `meanwhile` (what it changes is not seen by the helpers: they were
    forked before), then claims chunks from the last one back and does `mine(i)`, until the
    two meet. A chunk is claimed when it is started, so at the end nobody waits for work
    another could have done. What a helper made comes back as each chunk is done, read here
    after each of this process's chunks (`_Results`): at the end only the last chunks' are
    left to send and unpickle (all of it at once took ~10 ms at 100 posts a language). An
    error in a helper is raised again here; a helper that ends without its results (killed)
    is an error too; an error here ends the helpers."""
    claims = _Claims(n)
    parent = os.getpid()
    helpers_: list[_Results[R]] = []
    try:
        for _ in range(helpers):
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - (the helper; coverage is not collected there)
                os.close(read)
                _helper(claims, theirs, setup, parent, write)
            os.close(write)
            helpers_.append(_Results(pid, read))
        if meanwhile is not None:
            meanwhile()
        while (i := claims.back()) is not None:
            mine(i)
            for results in helpers_:
                results.take()
        out = [done for results in helpers_ for done in results.finish()]
        return sorted(out, key=lambda done: done[0])
    finally:
        for results in helpers_:  # (an error: the helpers still running are ended)
            results.end()
        claims.close()


def _how_it_ended(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


class Ahead(Generic[R]):
    """`fn()` worked out by a forked child from now on, while this process goes on with other
    work (the caller checks `can_fork()` first); `result()` is what it returned, pickled back.

    The child runs `fn` with the collector frozen (what it inherits is never walked) and
    without helpers of its own (`BIPUB_WORKERS=1` in it: it is the second core's work). Where
    the child could not give a value (its error, or it died), `result()` is None and `why`
    says what happened: the caller then does the work itself (and meets an error the usual
    way, as a build without the child does). `close()` ends a child whose result is not
    wanted any more (the caller failed first)."""

    def __init__(self, fn: Callable[[], R]) -> None:
        self.why = ""
        parent = os.getpid()
        read, write = os.pipe()
        _bigger_pipe(read)  # (the child sends its result whole while this process works)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - (the child; coverage is not collected there)
            os.close(read)
            gc.freeze()
            os.environ["BIPUB_WORKERS"] = "1"
            _child(fn, parent, write)
        os.close(write)
        self._child: tuple[int, int] | None = (pid, read)
        self._exiting = 0  # (the child that gave its result, until `close` waits for it)

    def result(self) -> R | None:
        """What `fn()` returned in the child (waiting for it), or None (`why` says why)."""
        if self._child is None:
            raise RuntimeError("the result of a child process asked for twice")
        pid, read = self._child
        self._child = None
        try:
            message = _read_all(read)
        finally:
            os.close(read)
        try:
            kind, *rest = pickle.loads(message) if message else ("none",)  # noqa: S301 - (ours)
        except (pickle.UnpicklingError, EOFError, ValueError):  # (cut short: it died sending it)
            kind, rest = "none", []
        if kind == "done":
            self._exiting = pid  # (its exit takes a few ms: waited for by `close`)
            value: R = rest[0]
            return value
        _, status = os.waitpid(pid, 0)
        if kind == "error":
            self.why = f"the child process failed ({type(rest[0]).__name__}: {rest[0]})"
        else:
            self.why = f"the child process ended without its result ({_how_it_ended(status)})"
        return None

    def close(self) -> None:
        """End the child if its result was not taken; wait for the end of one that gave it."""
        if self._exiting:
            os.waitpid(self._exiting, 0)
            self._exiting = 0
        if self._child is None:
            return
        pid, read = self._child
        self._child = None
        os.close(read)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)

    def __enter__(self) -> Ahead[R]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
