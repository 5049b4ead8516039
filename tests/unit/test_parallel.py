"""parallel.fork_map: results in the items' order, whoever computed them; with `meanwhile`,
this process runs it and then takes over the chunks no worker has started."""

from __future__ import annotations

import os
import select

import pytest

from bipub.parallel import fork_map


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
