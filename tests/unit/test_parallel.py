"""parallel.fork_map: results in the items' order, whoever computed them; with `meanwhile`,
this process runs it and then takes over the chunks no worker has started.

parallel.share_chunks: each chunk done once, helpers from the first on and this process from
the last one back; what the helpers made comes back in order; their errors (and their death)
are raised here, and an error here ends them.

parallel.Ahead: a value worked out by a child forked at once, taken when wanted; where the
child gives none (its error, its death) the caller is told why and does the work itself."""

from __future__ import annotations

import gc
import os
import pickle
import select
import threading

import pytest

from bipub import parallel
from bipub.diagnostics import Diagnostic, DiagnosticError
from bipub.parallel import Ahead, fork_map, share_chunks


def _square(n: int) -> tuple[int, int]:
    return n * n, os.getpid()


def test_results_keep_the_order_of_the_items() -> None:
    got = fork_map(_square, list(range(50)), 4, 2)
    assert [value for value, _ in got] == [n * n for n in range(50)]
    assert os.getpid() not in {pid for _, pid in got}  # without meanwhile: all by workers


_PIPE: tuple[int, int] = (-1, -1)
_PARENT = os.getpid()


def _square_when_told(n: int) -> tuple[int, int]:
    """The worker waits in its first item until this process has done item 3, the last one it
    can take (the worker holds chunk 0, and its queue chunks 1 and 2). Without the wait, the
    worker would race this process for the chunks in between. If this process stops earlier,
    the worker goes on after 20 s, and the count below fails instead of the test hanging."""
    read, write = _PIPE
    if os.getpid() == _PARENT:
        if n == 3:
            os.write(write, b"x")
    elif n == 0:
        ready, _, _ = select.select([read], [], [], 20)
        if ready:
            assert os.read(read, 1) == b"x"
    return n * n, os.getpid()


def test_after_meanwhile_this_process_takes_the_chunks_not_started() -> None:
    global _PIPE
    _PIPE = os.pipe()
    ran: list[int] = []
    try:
        got = fork_map(_square_when_told, list(range(40)), 1, 1, meanwhile=lambda: ran.append(1))
    finally:
        os.close(_PIPE[0])
        os.close(_PIPE[1])
    assert ran == [1]
    assert [value for value, _ in got] == [n * n for n in range(40)]
    assert got[0][1] != os.getpid()  # the worker's
    # a worker holds at most two chunks besides the one it works on (its queue): this process
    # took the others, from the last one back
    here = [n for n, (_, pid) in enumerate(got) if pid == os.getpid()]
    assert len(here) >= 37
    assert here == list(range(40 - len(here), 40))


def _fail(n: int) -> int:
    if n == 3:
        raise ValueError("three")
    return n


@pytest.mark.parametrize("meanwhile", [None, lambda: None])
def test_an_error_is_raised_here(meanwhile) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="three"):
        fork_map(_fail, list(range(8)), 2, 2, meanwhile=meanwhile)


def _wait_for(fd: int, what: bytes) -> None:
    """Read `what` from `fd`, or fail after 20 s (instead of the test hanging)."""
    ready, _, _ = select.select([fd], [], [], 20)
    assert ready, f"nothing came in 20 s (waiting for {what!r})"
    assert os.read(fd, len(what)) == what


def test_each_chunk_is_done_once_helpers_from_the_front_this_process_from_the_back() -> None:
    """The helper does chunks 0-2, then waits in chunk 3 until this process (which waited for
    it to get there) has done its first, the last chunk; then both go on until they meet."""
    told_read, told_write = os.pipe()
    go_read, go_write = os.pipe()
    here: list[int] = []

    def theirs(i: int) -> tuple[int, int]:
        if i == 3:
            os.write(told_write, b"w")
            _wait_for(go_read, b"y")
        os.write(told_write, b"x")
        return i * i, os.getpid()

    def mine(i: int) -> None:
        if not here:
            os.write(go_write, b"y")
        here.append(i)

    def meanwhile() -> None:
        for _ in range(3):
            _wait_for(told_read, b"x")
        _wait_for(told_read, b"w")

    try:
        made = share_chunks(30, mine, theirs, 1, meanwhile)
    finally:
        for fd in (told_read, told_write, go_read, go_write):
            os.close(fd)
    theirs_done = [i for i, _ in made]
    assert [value for _, (value, _) in made] == [i * i for i in theirs_done]
    assert {pid for _, (_, pid) in made} == {pid for _, (_, pid) in made} - {os.getpid()}
    assert len(theirs_done) >= 4 and here  # both did some
    assert theirs_done == list(range(len(theirs_done)))  # the first ones, in order
    assert here == list(range(29, len(theirs_done) - 1, -1))  # the others, from the last back


def test_several_helpers_share_the_front() -> None:
    here: list[int] = []
    made = share_chunks(40, here.append, lambda i: (i, os.getpid()), 3)
    done = sorted([i for i, _ in made] + here)
    assert done == list(range(40))  # each once


def test_a_helper_that_sent_everything_is_waited_for_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The end of a helper's process (its memory given back: a few ms) is not waited for
    before share_chunks returns (the build goes on to its feeds meanwhile): `_reap` waits for
    it on a thread of its own."""
    handed: list[int] = []
    monkeypatch.setattr(parallel, "_reap", handed.append)
    made = share_chunks(20, lambda i: None, lambda i: os.getpid(), 1, _until_claimed)
    helpers = {pid for _, pid in made}
    assert len(helpers) == 1 and os.getpid() not in helpers
    assert set(handed) == helpers
    for pid in helpers:  # not waited for by share_chunks: still there to wait for
        assert os.waitpid(pid, 0)[0] == pid


def test_the_reaping_thread_waits_for_the_helper() -> None:
    made = share_chunks(20, lambda i: None, lambda i: os.getpid(), 1, _until_claimed)
    for thread in threading.enumerate():
        if thread.name == "bipub-reap":
            thread.join(timeout=60)
    for pid in {pid for _, pid in made}:
        with pytest.raises(ChildProcessError):  # ended and reaped: no such child any more
            os.waitpid(pid, os.WNOHANG)


class _Unpicklable(Exception):
    def __reduce__(self) -> str | tuple[object, ...]:
        raise TypeError("no pickling")


class _NotBack(Exception):
    """Pickled, but not unpickled: its constructor does not take its `args`."""

    def __init__(self, n: int) -> None:
        super().__init__(f"{n + 0} items")  # (a str: TypeError)


@pytest.mark.parametrize(
    ("error", "raised", "match"),
    [
        (ValueError("three"), ValueError, "three"),
        (_Unpicklable("four"), RuntimeError, "_Unpicklable: four"),  # its traceback, as text
        (_NotBack(5), RuntimeError, "_NotBack: 5 items"),
        (DiagnosticError([Diagnostic("a.md", 3, "template", "six")]), DiagnosticError, "six"),
    ],
)
def test_an_error_in_a_helper_is_raised_here(
    error: Exception, raised: type[Exception], match: str
) -> None:
    def theirs(i: int) -> int:
        raise error

    with pytest.raises(raised, match=match):
        share_chunks(20, lambda i: None, theirs, 1, _until_claimed)


def _until_claimed() -> None:
    """(meanwhile: the helper has had time to claim its first chunk)"""
    import time

    time.sleep(0.5)


def test_a_helper_that_dies_is_an_error_here() -> None:
    def theirs(i: int) -> int:
        os._exit(3)  # (as if killed: nothing sent)

    with pytest.raises(RuntimeError, match=r"ended without sending what it made \(exit status 3\)"):
        share_chunks(20, lambda i: None, theirs, 1, _until_claimed)


def test_an_error_here_ends_the_helpers() -> None:
    pid_read, pid_write = os.pipe()
    block_read, block_write = os.pipe()

    def theirs(i: int) -> int:
        os.write(pid_write, f"{os.getpid():>10}".encode())
        select.select([block_read], [], [], 60)  # (until this process ends it)
        return i

    def meanwhile() -> None:
        ready, _, _ = select.select([pid_read], [], [], 20)
        assert ready
        helper.append(int(os.read(pid_read, 10)))
        raise KeyError("here")

    helper: list[int] = []
    try:
        with pytest.raises(KeyError, match="here"):
            share_chunks(4, lambda i: None, theirs, 1, meanwhile)
    finally:
        for fd in (pid_read, pid_write, block_read, block_write):
            os.close(fd)
    assert helper
    with pytest.raises(ChildProcessError):  # ended and reaped: no such child any more
        os.waitpid(helper[0], os.WNOHANG)


def test_a_diagnostic_error_comes_back_from_a_helper_with_its_diagnostics() -> None:
    found = [
        Diagnostic("content/ko/posts/a.md", 3, "template", "six"),
        Diagnostic(None, None, "x", "y"),
    ]

    def theirs(i: int) -> int:
        raise DiagnosticError(found)

    with pytest.raises(DiagnosticError) as raised:
        share_chunks(4, lambda i: None, theirs, 1, _until_claimed)
    assert raised.value.diagnostics == DiagnosticError(found).diagnostics


def _in_child() -> tuple[int, str | None, int]:
    return os.getpid(), os.environ.get("BIPUB_WORKERS"), gc.get_freeze_count()


def test_ahead_a_child_works_the_value_out_while_this_process_goes_on() -> None:
    before = os.environ.get("BIPUB_WORKERS")
    with Ahead(_in_child) as ahead:
        pid, workers, frozen = ahead.result() or (0, None, 0)
    assert pid not in (0, os.getpid())
    assert workers == "1"  # (the child forks no helpers of its own: it is the second core)
    assert frozen > 0  # (nor does its collector walk what it inherited)
    assert ahead.why == ""
    assert os.environ.get("BIPUB_WORKERS") == before  # (this process's own: as it was)
    assert gc.get_freeze_count() == 0


def test_ahead_an_error_in_the_child_gives_no_value_and_says_why() -> None:
    def fail() -> int:
        raise ValueError("no such post")

    ahead = Ahead(fail)
    assert ahead.result() is None
    assert ahead.why == "the child process failed (ValueError: no such post)"


def test_ahead_a_child_that_dies_gives_no_value_and_says_why() -> None:
    ahead = Ahead(lambda: os._exit(3))
    assert ahead.result() is None
    assert ahead.why == "the child process ended without its result (exit status 3)"


def test_ahead_closing_ends_a_child_whose_value_is_not_wanted() -> None:
    pid_read, pid_write = os.pipe()

    def wait() -> int:
        os.write(pid_write, f"{os.getpid():>10}".encode())
        select.select([], [], [], 60)  # (until this process ends it)
        return 1

    try:
        with Ahead(wait):
            ready, _, _ = select.select([pid_read], [], [], 20)
            assert ready
            pid = int(os.read(pid_read, 10))
    finally:
        os.close(pid_read)
        os.close(pid_write)
    with pytest.raises(ChildProcessError):  # ended and reaped: no such child any more
        os.waitpid(pid, 0)


def _child_sending(
    frames: list[bytes], wait_before: int, go: int, status: int = 0
) -> tuple[int, int]:
    """Fork a child that writes `frames` (raw bytes) to a pipe, waiting for a byte on `go`
    before the frame `wait_before`; returns (pid, read end)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - (the child)
        os.close(read)
        with os.fdopen(write, "wb") as out:
            for n, frame in enumerate(frames):
                if n == wait_before:
                    os.read(go, 1)
                out.write(frame)
                out.flush()
        os._exit(status)
    os.close(write)
    return pid, read


def _frame(message: object) -> bytes:
    data = pickle.dumps(message)
    return parallel._FRAME.pack(len(data)) + data


def _until(results: parallel._Results[str], parts: int) -> None:
    for _ in range(2000):  # (20 s at most, instead of the test hanging)
        results.take()
        if len(results.parts) >= parts:
            return
        select.select([], [], [], 0.01)


def test_a_helpers_results_are_read_as_they_come_a_message_once_it_is_whole() -> None:
    go_read, go_write = os.pipe()
    second = _frame(("part", 1, "one"))
    frames = [_frame(("part", 0, "zero")), second[:7], second[7:], _frame(("end",))]
    pid, read = _child_sending(frames, 2, go_read)
    results: parallel._Results[str] = parallel._Results(pid, read)
    try:
        _until(results, 1)
        assert results.parts == [(0, "zero")]  # (the helper still at work: waiting for go)
        results.take()
        assert results.parts == [(0, "zero")]  # (half of the next message: not yet)
        os.write(go_write, b"x")
        assert results.finish() == [(0, "zero"), (1, "one")]
    finally:
        results.end()
        os.close(go_read)
        os.close(go_write)


def test_a_helper_that_ends_without_its_end_mark_is_an_error_here() -> None:
    go_read, go_write = os.pipe()
    pid, read = _child_sending([_frame(("part", 0, "zero"))], 5, go_read, status=3)
    results: parallel._Results[str] = parallel._Results(pid, read)
    try:
        with pytest.raises(RuntimeError, match=r"without sending what it made \(exit status 3\)"):
            results.finish()
    finally:
        results.end()
        os.close(go_read)
        os.close(go_write)


def test_ahead_a_result_cut_short_gives_no_value_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def cut(work: object, parent: int, write: int) -> None:  # (in the child)
        os.write(write, pickle.dumps(("done", "x" * 1000))[:100])
        os._exit(0)

    monkeypatch.setattr(parallel, "_child", cut)
    ahead = Ahead(lambda: 1)
    assert ahead.result() is None
    assert ahead.why == "the child process ended without its result (exit status 0)"
    ahead.close()


def test_ahead_the_child_that_gave_its_result_is_waited_for_by_close() -> None:
    with Ahead(os.getpid) as ahead:
        pid = ahead.result()
        assert pid is not None
    with pytest.raises(ChildProcessError):  # (reaped: no such child any more)
        os.waitpid(pid, 0)


def test_a_helper_never_waits_for_this_process_while_it_has_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """This process reads what a helper made between its own chunks, not while it runs its
    `meanwhile`: a helper whose results fill the pipe keeps them and goes on working (its
    last chunk is reached while this process still waits in `meanwhile`)."""
    monkeypatch.setattr(parallel, "_PIPE_SIZE", 4096)  # (a pipe of one page)
    told_read, told_write = os.pipe()

    def theirs(i: int) -> str:
        if i == 9:
            os.write(told_write, b"x")
        return str(i) * 100_000

    try:
        made = share_chunks(10, lambda i: None, theirs, 1, lambda: _wait_for(told_read, b"x"))
    finally:
        os.close(told_read)
        os.close(told_write)
    assert made == [(i, str(i) * 100_000) for i in range(10)]
