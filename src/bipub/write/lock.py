"""The output lock: one build at a time writes an output folder (write/output.py).

A lock file beside the output (`.site.lock`) is locked (flock) by the build's own process for as
long as it writes. Forked render workers close their copy (write/output.py
OutputTree.release_in_child) and die with the build (parallel.die_with_parent), so a build
killed outright leaves no process holding it. The lock file names its holder; a lock still held
for a process that is gone is taken over, with a warning.
"""

from __future__ import annotations

import fcntl
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from bipub.diagnostics import Diagnostic, DiagnosticError, Severity


def _lock_owner() -> str:
    """What the lock file says about its holder: this process, in this PID namespace."""
    try:
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        namespace = "-"
    return f"{os.getpid()} {namespace}\n"


def _owner_gone(text: str) -> int | None:
    """The PID named in a lock file, if that process is gone (same PID namespace only: a
    process in another container cannot be seen, and is not taken for dead)."""
    parts = text.split()
    if len(parts) != 2 or not parts[0].isdigit() or parts[1] != _lock_owner().split()[1]:
        return None
    pid = int(parts[0])
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return pid
    except OSError:
        return None  # (alive, another user's)
    return None


def lock_file(out: Path) -> Path:
    """The lock file of the output folder `out` (beside it)."""
    return out.parent / f".{out.name}.lock"


def is_held(out: Path) -> bool:
    """Whether a process holds the lock on `out` now (a build is writing it). Only tested,
    never kept: a lock file that is not there is not held (nor made)."""
    try:
        fd = os.open(lock_file(out), os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


@contextmanager
def output_lock(out: Path, take_over: bool = True) -> Iterator[tuple[int, list[Diagnostic]]]:
    """A lock file beside the output keeps two builds from writing one output at once; holding
    it also proves that staging folders left by a killed build are stale. Yields the lock
    file's descriptor (forked workers close their copy: OutputTree.release_in_child) and the
    warnings to report.

    The lock file names the process holding it. If the lock is held but that process is gone
    (a build killed while a worker it forked still ran), the lock is taken over, with a
    warning. The steps are made under a short lock on the output's parent folder, so two
    builds never both take a lock over."""
    out.parent.mkdir(parents=True, exist_ok=True)
    lock_path = lock_file(out)
    notes: list[Diagnostic] = []
    guard = os.open(out.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(guard, fcntl.LOCK_EX)
        lock = _take_lock(lock_path, out, notes, take_over)
    finally:
        os.close(guard)  # (releases the guard)
    try:
        yield lock, notes
    finally:
        with suppress(OSError):
            os.ftruncate(lock, 0)  # no holder any more
        os.close(lock)


def _take_lock(lock_path: Path, out: Path, notes: list[Diagnostic], take_over: bool) -> int:
    for _attempt in range(2):
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace")
            os.close(fd)
            gone = _owner_gone(holder)
            if gone is None or not take_over:
                pid = holder.split()[0] if holder.split() else ""
                who = f" (process {pid})" if pid.isdigit() else ""
                raise DiagnosticError(
                    [
                        Diagnostic(
                            None,
                            None,
                            "busy",
                            f"another bipub process{who} is writing {out}; try again when it "
                            "is done",
                        )
                    ]
                ) from None
            # held by what a killed build left running: a fresh lock file replaces it
            fresh = lock_path.with_name(f"{lock_path.name}.{secrets.token_hex(4)}")
            fresh.touch()
            os.replace(fresh, lock_path)
            notes.append(
                Diagnostic(
                    None,
                    None,
                    "lock-taken-over",
                    f"the lock on {out} was held for bipub process {gone}, which is gone "
                    "(killed?); it was taken over",
                    Severity.WARNING,
                )
            )
            continue
        os.ftruncate(fd, 0)
        os.pwrite(fd, _lock_owner().encode(), 0)
        return fd
    raise DiagnosticError(  # (only if the fresh lock was taken at once by something else)
        [Diagnostic(None, None, "busy", f"another process holds the lock on {out}")]
    )
