"""Ctrl-C held back while one unit of work is being saved (its files: bipub/user_files.py)."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from types import FrameType


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
