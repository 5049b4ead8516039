"""The PDF worker pool: jobs render in worker processes, results come back in job order.

With fork available (the CLI, no other thread alive), every job runs in a worker process with
a memory bound, and the batch has a time bound; a job that exceeds either fails the build
cleanly. Otherwise (threads alive: a progress bar, `bipub serve`) a forkserver that preloads
WeasyPrint serves several documents, and one document renders in this process.
"""

from __future__ import annotations

import mmap
import multiprocessing
import os
import resource
import signal
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FuturesTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from functools import partial
from multiprocessing.context import BaseContext

from bipub.diagnostics import Diagnostic, DiagnosticError, Severity
from bipub.parallel import die_with_parent
from bipub.render.pdf.engine import render_job, warm_up
from bipub.render.pdf.jobs import PdfJob, PdfResult

WORKERS = 2
FORKSERVER_MIN_JOBS = 4

# Bounds on the PDF step (pathological input must fail cleanly, not hang or exhaust memory):
# wall time for the whole batch, and address space per worker process. Override with the
# environment (BIPUB_PDF_TIMEOUT seconds, BIPUB_PDF_MEMORY_MB).
PDF_TIMEOUT_S = 300.0
PDF_MEMORY_MB = 4096


def _limit_memory(megabytes: int) -> None:
    """Bound what a job may ADD to this (forked) process's address space: a worker starts with
    the build's whole address space (a large site's can be several GB), so a bound on the total
    would stop every job of a large build before it starts, as if each PDF were too big. The
    soft limit only (the hard one stays, so the next job of the same worker can set its own)."""
    extra = megabytes * 1024 * 1024
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            current = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):  # no /proc (not Linux): a bound on the total
        current = 0
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = current + extra
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _bounded_job(job: PdfJob, megabytes: int) -> PdfResult:
    """`render_job` under the memory bound. A job that reaches the bound does not always
    stop with a MemoryError: an allocation that fails inside fontconfig or Pango leaves a font
    unloaded, and WeasyPrint draws boxes for every character (`.notdef` errors, and nothing
    about memory). A job that failed with no room left under its bound says so."""
    _limit_memory(megabytes)
    result = render_job(job)
    if any(d.severity is Severity.ERROR for d in result.diagnostics) and not _room(
        min(megabytes, 64)
    ):
        bound = Diagnostic(
            job.document,
            None,
            "pdf-bound",
            f"PDF rendering reached its {megabytes} MB memory bound (BIPUB_PDF_MEMORY_MB): "
            "the errors said with it may come from memory it could not get (a font not "
            "loaded draws every character as a box); nothing was written",
        )
        result = replace(result, data=None, diagnostics=(*result.diagnostics, bound))
    return result


# a bounded worker's jobs, inherited when it forks (`_start_worker`; empty in the build's process)
_WORKER_JOBS: list[PdfJob] = []


def _start_worker(parent: int, jobs: list[PdfJob]) -> None:
    die_with_parent(parent)
    _WORKER_JOBS[:] = jobs


def _numbered_job(number: int, megabytes: int) -> PdfResult:
    return _bounded_job(_WORKER_JOBS[number], megabytes)


def _how_it_ended(pool: ProcessPoolExecutor) -> str:
    """How the first worker of a broken `pool` that was not stopped by the pool itself ended
    (its processes are still listed when the break is raised: CPython 3.11's `_processes`)."""
    processes = getattr(pool, "_processes", None) or {}
    # the pool's own thread ends a broken pool by stopping and reaping every worker
    # (`terminate_broken`): once it has ended, each worker's exit code is set, and no reap of
    # that thread's can race the ones below (a SIGSEGV was said as "it did not say how" twice
    # in hundreds of suite runs, never reproduced alone); it is waited for a few seconds only
    # (a thread blocked feeding a dead worker once hung there: the loop below reads anyway)
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None:
        manager.join(5.0)
    for process in list(processes.values()):
        code = None
        for _ in range(40):  # (up to ~2 s: a worker still dumping its core has not ended yet)
            process.join(0.05)
            # (the pool's own thread reaps its workers too: while it does, this thread's
            # waitpid finds no child and `exitcode` is None until that thread has set it)
            code = process.exitcode
            if code is not None:
                break
        if code is None or code == -signal.SIGTERM:  # (the pool stops the others so)
            continue
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exit status {code}"
    return "it did not say how"


def _room(megabytes: int) -> bool:
    """Whether `megabytes` more of address space can still be had (reserved, not touched)."""
    try:
        probe = mmap.mmap(-1, megabytes * 1024 * 1024)
    except (OSError, MemoryError):
        return False
    probe.close()
    return True


def run_jobs(jobs: list[PdfJob], workers: int = WORKERS) -> list[PdfResult]:
    """Render jobs in `workers` processes; results in job order (deterministic).

    With fork available (the CLI), every job runs in a worker process with a memory bound, and
    the batch has a time bound; a job that exceeds either fails the build cleanly."""

    timeout = float(os.environ.get("BIPUB_PDF_TIMEOUT", PDF_TIMEOUT_S))
    megabytes = int(os.environ.get("BIPUB_PDF_MEMORY_MB", PDF_MEMORY_MB))
    if jobs and "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return _run_bounded(jobs, max(1, workers), timeout, megabytes)
    if len(jobs) <= 1 or workers <= 1:
        return [render_job(job) for job in jobs]

    # fork is cheapest: the workers inherit WeasyPrint imported and fontconfig, Pango and the
    # fonts warmed up by one tiny render here (a cold first render costs ~1 s more per process).
    # It is unsafe with threads alive (a progress bar, `bipub serve`): then a forkserver that
    # preloads WeasyPrint, worth its start-up (~1 s) only for several documents.
    methods = multiprocessing.get_all_start_methods()
    context: BaseContext
    if "fork" in methods and threading.active_count() == 1:
        warm_up(jobs[0])
        context = multiprocessing.get_context("fork")
    elif "forkserver" in methods and len(jobs) >= FORKSERVER_MIN_JOBS:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["__main__", "bipub.render.pdf.engine", "weasyprint"])
    else:
        return [render_job(job) for job in jobs]
    # Biggest first so the two workers finish together; results are put back in job order.
    order = sorted(range(len(jobs)), key=lambda i: -len(jobs[i].html))
    # forked workers die with this process (a SIGKILLed build leaves none behind holding the
    # output lock it forked them with); a forkserver's workers never had the lock (the
    # forkserver starts from a clean process)
    parent = os.getpid()
    fork = context.get_start_method() == "fork"
    with ProcessPoolExecutor(
        max_workers=min(workers, len(jobs)),
        mp_context=context,
        initializer=partial(die_with_parent, parent) if fork else None,
    ) as pool:
        done = list(pool.map(render_job, [jobs[i] for i in order]))
    results: list[PdfResult | None] = [None] * len(jobs)
    for i, result in zip(order, done, strict=True):
        results[i] = result
    return [r for r in results if r is not None]


def _run_bounded(
    jobs: list[PdfJob], workers: int, timeout: float, megabytes: int
) -> list[PdfResult]:

    warm_up(jobs[0])
    order = sorted(range(len(jobs)), key=lambda i: -len(jobs[i].html))
    # (each worker has the jobs from its fork and is sent their numbers only: a job's HTML
    # sent through the pool's pipe — hundreds of KB — kept the thread feeding it blocked for
    # ever once the worker that was to read it had died under its bound, and the build hung
    # in the pool's shutdown)
    pool = ProcessPoolExecutor(
        max_workers=min(workers, len(jobs)),
        mp_context=multiprocessing.get_context("fork"),
        initializer=_start_worker,
        initargs=(os.getpid(), jobs),
    )
    try:
        done = list(pool.map(partial(_numbered_job, megabytes=megabytes), order, timeout=timeout))
    except MemoryError:
        raise DiagnosticError(
            [
                Diagnostic(
                    None,
                    None,
                    "pdf-bound",
                    f"PDF rendering exceeded its {megabytes} MB memory bound "
                    "(BIPUB_PDF_MEMORY_MB) and was stopped; nothing was written",
                )
            ]
        ) from None
    except BrokenProcessPool:
        # a worker died: under its bound, an allocation that fails in C code aborts it; but a
        # crash or a kill from outside ends it the same way, so what ended it is said
        raise DiagnosticError(
            [
                Diagnostic(
                    None,
                    None,
                    "pdf-bound",
                    f"a PDF worker process died ({_how_it_ended(pool)}) and the build was "
                    f"stopped; nothing was written. Workers run with a {megabytes} MB memory "
                    "bound (BIPUB_PDF_MEMORY_MB): a document that needs more ends its worker "
                    "this way (raise the bound for it)",
                )
            ]
        ) from None
    except FuturesTimeout:
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        raise DiagnosticError(
            [
                Diagnostic(
                    None,
                    None,
                    "pdf-bound",
                    f"PDF rendering took longer than {timeout:g} s and was stopped "
                    "(BIPUB_PDF_TIMEOUT); nothing was written",
                )
            ]
        ) from None
    except DiagnosticError:
        raise
    except Exception as exc:  # a worker under its memory bound fails in many ways
        raise DiagnosticError(
            [
                Diagnostic(
                    None,
                    None,
                    "pdf-bound",
                    f"PDF rendering failed in its worker process ({type(exc).__name__}: {exc}); "
                    f"workers run with a {megabytes} MB memory bound (BIPUB_PDF_MEMORY_MB); "
                    "nothing was written",
                )
            ]
        ) from exc
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    results: list[PdfResult | None] = [None] * len(jobs)
    for i, result in zip(order, done, strict=True):
        results[i] = result
    return [r for r in results if r is not None]
