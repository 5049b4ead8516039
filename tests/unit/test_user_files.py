"""bipub/user_files.py: a file of the user's written atomically, a link kept a link, a special
file (/dev/null, a pipe) written into and never replaced, its permissions kept. (/dev/null itself
is not written here: should the bug come back, the test would break the machine as root; a
named pipe is the same kind of file and breaks nothing.)"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bipub.user_files import write_atomic


def test_a_new_file_and_its_folders_are_made(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "x.md"
    write_atomic(path, "한글\r\n")
    assert path.read_bytes() == "한글\r\n".encode()  # (as it is: no newline translation)
    assert sorted(p.name for p in path.parent.iterdir()) == ["x.md"]


def test_a_replaced_file_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "x.po"
    path.write_text("old", encoding="utf-8")
    path.chmod(0o600)
    write_atomic(path, b"new", sync=False)
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize("dangling", [False, True])
def test_a_link_stays_a_link_and_its_target_is_written(tmp_path: Path, dangling: bool) -> None:
    other = tmp_path / "other-checkout" / "post.md"
    other.parent.mkdir()
    if not dangling:
        other.write_text("old", encoding="utf-8")
    link = tmp_path / "content" / "post.md"
    link.parent.mkdir()
    link.symlink_to(os.path.relpath(other, link.parent))
    write_atomic(link, "new")
    assert link.is_symlink()
    assert other.read_text(encoding="utf-8") == "new"
    assert sorted(p.name for p in other.parent.iterdir()) == ["post.md"]


@contextmanager
def pipe_read(fifo: Path) -> Iterator[list[bytes]]:
    """A named pipe made at `fifo` and read whole on a thread while the block writes into it:
    the list holds what was read once the block is done (nothing if nothing opened it to
    write, or if it was replaced by a file: then the reader is unblocked and gives up)."""
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    try:
        yield got
    finally:
        if reader.is_alive() and stat.S_ISFIFO(fifo.lstat().st_mode):
            # (never opened for writing: unblock the reader.) Non-blocking: a reader that read
            # the block's write and is only finishing has closed its end or is about to, and a
            # blocking open would then wait forever for a reader (it hung a test process)
            with contextlib.suppress(OSError):  # ENXIO: no reader any more
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(timeout=30)
        assert not reader.is_alive(), "the pipe's reader never finished"


def test_a_pipe_is_written_into_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    with pipe_read(fifo) as got:
        write_atomic(fifo, "report")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert got == [b"report"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "status.yaml"
    path.write_text("reviewed", encoding="utf-8")

    def full_disk(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError, match="No space"):
        write_atomic(path, "half")
    assert path.read_text(encoding="utf-8") == "reviewed"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["status.yaml"]
