"""The PDF workers' memory bound (render/pdf/pool.py) limits what a job adds to the forked
process, not its total: a worker inherits the whole build's address space (a large site's, or
a test process's, is far above the bound), and a bound on the total stopped every PDF job of
such a build at once, reported as "exceeded its memory bound" (seen in a CI run)."""

from __future__ import annotations

import multiprocessing
import resource

import pytest

from bipub.render.pdf import pool


def _in_child(megabytes: int, allocate_mb: int) -> str:
    pool._limit_memory(megabytes)
    try:
        data = bytearray(allocate_mb * 1024 * 1024)
    except MemoryError:
        return "MemoryError"
    return f"ok {len(data)}"


def _run(megabytes: int, allocate_mb: int, padding_mb: int) -> str:
    padding = bytearray(padding_mb * 1024 * 1024)  # this process: bigger than the bound
    context = multiprocessing.get_context("fork")
    with context.Pool(1) as workers:
        result = workers.apply(_in_child, (megabytes, allocate_mb))
    del padding
    return result


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="needs fork (Linux)"
)
def test_a_job_may_add_its_bound_to_a_process_already_bigger_than_it() -> None:
    assert _run(megabytes=64, allocate_mb=16, padding_mb=256) == f"ok {16 * 1024 * 1024}"


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="needs fork (Linux)"
)
def test_a_job_that_adds_more_than_its_bound_is_stopped() -> None:
    assert _run(megabytes=64, allocate_mb=256, padding_mb=0) == "MemoryError"


def test_the_hard_limit_is_left_as_it_was() -> None:
    context = multiprocessing.get_context("fork")
    with context.Pool(1) as workers:
        hard = workers.apply(_limit_then_hard, (64,))
    assert hard == resource.getrlimit(resource.RLIMIT_AS)[1]


def _limit_then_hard(megabytes: int) -> int:
    pool._limit_memory(megabytes)
    pool._limit_memory(megabytes * 2)  # a second job in the same worker sets its own bound
    return resource.getrlimit(resource.RLIMIT_AS)[1]
