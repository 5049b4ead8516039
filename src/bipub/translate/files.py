"""Atomic file writes, and Ctrl-C held back while one unit of work is being saved."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from types import FrameType


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write via a temporary file in the same folder and a rename: readers (and a crash) see the
    old file or the new one, never half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        with tmp.open("wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def interrupts_deferred() -> AbstractContextManager[None]:
    """Hold SIGINT (Ctrl-C) until the block ends, then raise KeyboardInterrupt: files that
    belong together (a status record and its content file) are written both or neither."""
    return _interrupts(second_raises=False)


def interrupts_held(notice: str | None = None) -> AbstractContextManager[None]:
    """Hold a first Ctrl-C until the block ends (a request in flight is answered and saved),
    then raise KeyboardInterrupt; a second Ctrl-C raises at once."""
    return _interrupts(second_raises=True, notice=notice)


@contextmanager
def _interrupts(second_raises: bool, notice: str | None = None) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        received.append(signum)
        if second_raises and len(received) > 1:
            raise KeyboardInterrupt
        if notice:
            os.write(2, notice.encode("utf-8", "replace"))

    previous = signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if received:
        raise KeyboardInterrupt
