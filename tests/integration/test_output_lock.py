"""The output lock outlives no build (issue 16 item 5).

A build killed outright (SIGKILL, the OOM killer) used to leave its render workers running, and
they held `.site.lock` (inherited when they were forked): every later build said another process
was writing. Workers now die with the build's process and never hold the lock; a lock still
held for a process that is gone is taken over, with a warning.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import REPO, CliResult

Cli = Callable[..., CliResult]

# `bipub build` with render workers for the smallest site, each worker saying it started (its
# PID in a file) and then taking its time: the test kills the main process meanwhile. The build's
# process renders one page before forking (not the warm-up pages: some chunks must be left), and
# waits for both workers to have started before it takes a chunk (else it could take them all).
SLOW_WORKERS = """
import os, sys, time
from pathlib import Path
from bipub.render import workers
workers.MIN_PAGES_TO_RENDER_IN_WORKERS = 0
workers.CHUNK = 1
workers.MIN_CHUNK = 1
workers.warm_up_first = lambda specs: 1
real = workers._render_chunk
def slow_chunk(start):
    Path(os.environ["STARTED"], str(os.getpid())).touch()
    time.sleep(600)
    return real(start)
workers._render_chunk = slow_chunk
here = workers._render_here
def after_workers(job, bounds, *args):
    deadline = time.monotonic() + 100
    while bounds[0] > 0 and len(os.listdir(os.environ["STARTED"])) < 2:
        if time.monotonic() > deadline:
            sys.exit("the workers did not start")
        time.sleep(0.02)
    return here(job, bounds, *args)
workers._render_here = after_workers
from bipub.cli import main
main()
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")  # (a zombie nobody reaped yet is gone too)


def _wait(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 120  # a hang guard, not a timed assertion
    while not condition():
        if time.monotonic() >= deadline:
            pytest.fail(f"gave up waiting: {what}")
        time.sleep(0.02)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_killing_the_build_process_leaves_no_worker_and_no_lock(
    make_project: Callable[[str], Path], cli: Cli, tmp_path: Path
) -> None:
    project = make_project("minimal")
    started = tmp_path / "started"
    started.mkdir()
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO / "src"),
        "BIPUB_WORKERS": "3",  # two forked helpers (the build's own process renders too)
        "STARTED": str(started),
    }
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW_WORKERS, "-C", str(project), "-q", "build", "--no-cache"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        _wait(lambda: len(list(started.iterdir())) >= 2 or proc.poll() is not None, "workers")
        assert proc.poll() is None, proc.communicate()
        worker_pids = [int(p.name) for p in started.iterdir()]
        proc.send_signal(signal.SIGKILL)  # the main process only, as the OOM killer does
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    _wait(lambda: not any(_alive(pid) for pid in worker_pids), "the workers to die")
    result = cli("-C", str(project), "build")
    assert result.exit_code == 0, result.stderr
    assert "another bipub process" not in result.stderr
    assert (project / "site" / "en" / "index.html").is_file()
    assert not [p.name for p in project.iterdir() if p.name.startswith(".site.tmp")]


# A process holding the lock as a worker of a killed build did: the lock file names a build
# process that is gone.
HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.flock(fd, fcntl.LOCK_EX)
os.ftruncate(fd, 0)
os.pwrite(fd, f"{sys.argv[2]} {os.readlink('/proc/self/ns/pid')}\\n".encode(), 0)
print("held", flush=True)
time.sleep(600)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
def test_a_lock_held_for_a_process_that_is_gone_is_taken_over_with_a_warning(
    make_project: Callable[[str], Path], cli: Cli
) -> None:
    project = make_project("minimal")
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(project / ".site.lock"), str(gone.pid)],
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == b"held\n"
        result = cli("-C", str(project), "build")
        assert result.exit_code == 0, result.stderr
        assert f"held for bipub process {gone.pid}, which is gone" in result.stderr
        assert "it was taken over" in result.stderr
        again = cli("-C", str(project), "build", "--no-cache")  # and the new lock works
        assert again.exit_code == 0, again.stderr
        assert "taken over" not in again.stderr
    finally:
        holder.kill()
        holder.wait()


def test_a_lock_held_by_a_live_process_is_respected(
    make_project: Callable[[str], Path], cli: Cli
) -> None:
    project = make_project("minimal")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(project / ".site.lock"), str(os.getpid())],
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == b"held\n"
        result = cli("-C", str(project), "build")
        assert result.exit_code == 1
        assert f"another bipub process (process {os.getpid()}) is writing" in result.stderr
        assert not (project / "site").exists()
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
def test_a_taken_over_lock_is_not_repeated_by_up_to_date_builds(
    make_project: Callable[[str], Path], cli: Cli
) -> None:
    project = make_project("minimal")
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(project / ".site.lock"), str(gone.pid)],
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == b"held\n"
        assert "taken over" in cli("-C", str(project), "build").stderr
    finally:
        holder.kill()
        holder.wait()
    again = cli("-C", str(project), "build")
    assert "Up to date" in again.stderr
    assert "taken over" not in again.stderr
