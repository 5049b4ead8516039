"""The cache files a `bipub build` reads back, read and checked against their signatures on a
thread while the stages are imported (cache.py `ReadAhead`): what is unpickled is always bytes
whose signature was checked, of the very file that is there when it is read back; a file
replaced since is read again, and an unsigned one is never taken."""

from __future__ import annotations

import pickle
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from bipub import pipeline, restore
from bipub.cache import (
    BuildCache,
    ReadAhead,
    UnsignedCache,
    load_signed,
    read_signed,
    restore_files,
    save_signed,
)
from bipub.pipeline import build
from bipub.project import Project
from tests.conftest import PROJECTS, tree_snapshot

KINDS = {"html", "json", "feeds", "llms"}


def test_a_file_read_ahead_is_taken_once_checked(tmp_path: Path) -> None:
    path = tmp_path / "a.pickle"
    save_signed(path, ("a", 1))
    with ReadAhead([path]) as ahead:
        assert load_signed(path, ahead=ahead) == ("a", 1)
        assert (ahead.taken, ahead.again, ahead.note) == (1, 0, "")
        # taken once: asked again, the file is read again (its bytes are not kept twice)
        assert load_signed(path, ahead=ahead) == ("a", 1)
        assert ahead.taken == 1


def test_a_file_replaced_since_it_was_read_ahead_is_read_again(tmp_path: Path) -> None:
    """The bytes read ahead are of the file as it was: once another file is in its place
    (a cache file is only ever replaced whole), it is read again, and `-v` says so."""
    path = tmp_path / "a.pickle"
    save_signed(path, "old")
    with ReadAhead([path]) as ahead:
        ahead.wait()
        save_signed(path, "new")
        assert load_signed(path, ahead=ahead) == "new"
        assert (ahead.taken, ahead.again) == (0, 1)
        assert ahead.note == "1 cache file read again (replaced since read ahead)"


@pytest.mark.parametrize("how", ["damaged", "planted"])
def test_a_file_not_signed_by_this_user_is_never_taken(
    tmp_path: Path, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A damaged file, or one signed with another user's key, is not kept by the read ahead:
    read again, it is refused as without it (never unpickled)."""
    path = tmp_path / "a.pickle"
    if how == "planted":
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "other-user"))
        save_signed(path, "planted")
        monkeypatch.undo()
    else:
        save_signed(path, "ours")
        data = bytearray(path.read_bytes())
        data[-3] ^= 1
        path.write_bytes(bytes(data))
    with ReadAhead([path]) as ahead:
        with pytest.raises(UnsignedCache):
            read_signed(path, ahead=ahead)
        assert ahead.taken == 0


def test_a_file_named_by_its_signature_is_that_very_file(tmp_path: Path) -> None:
    """A file another one names by its signature (the BuildState's parts) is taken only if it
    is the file signed so: another one, even signed by this user, is refused as without the
    read-ahead."""
    path = tmp_path / "parts.pickle"
    expected = save_signed(path, "the parts the state names")
    save_signed(path, "other parts")
    with (
        ReadAhead([path]) as ahead,
        pytest.raises(UnsignedCache, match="not the file expected"),
    ):
        load_signed(path, signature=expected, ahead=ahead)
    expected = save_signed(path, "the parts the state names")
    with ReadAhead([path]) as ahead:
        assert load_signed(path, signature=expected, ahead=ahead) == "the parts the state names"
        assert ahead.taken == 1


def test_a_missing_file_is_said_as_without_it(tmp_path: Path) -> None:
    with ReadAhead([tmp_path / "none.pickle"]) as ahead, pytest.raises(FileNotFoundError):
        read_signed(tmp_path / "none.pickle", ahead=ahead)


def test_a_build_takes_the_files_read_ahead_as_they_come_and_forks_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build after an edit takes every file of the build cache and the entries file as read
    ahead, each as soon as it is read (the restore does not wait for the rest), and the
    thread has ended before anything after the restore runs (nothing may fork while it runs:
    parallel.can_fork); the site is a clean build's."""
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    build(root, only=KINDS)
    post = root / "content/ko/posts/alpha.md"
    post.write_text(post.read_text(encoding="utf-8") + "\n한 문단 더.\n", encoding="utf-8")
    folder = Project(root).cache
    files = [p for p in restore_files(folder, root / "site") if p.is_file()]
    # the build cache, its documents' files, the BuildState and its parts, the entries
    assert {*folder.glob("state-*"), *folder.glob("parts-*"), *folder.glob("entries-*")} <= {*files}
    order: list[str] = []
    real_restore, real_load, real_wait, real_open = (
        restore.restore,
        pipeline.load,
        ReadAhead.wait,
        Path.open,
    )
    # a last file the build does not ask for, whose reading is held until the build waits
    # for the thread (at most 30 s, not to hang): the thread runs until then
    last, waited = tmp_path / "not-asked-for.pickle", threading.Event()
    save_signed(last, "not asked for")

    def restored(*args: object, **kwargs: object) -> object:
        order.append("restore")
        return real_restore(*args, **kwargs)  # type: ignore[arg-type]

    def loaded(*args: object, **kwargs: object) -> object:
        reading = any(t.name == "bipub-read-ahead" for t in threading.enumerate())
        order.append("load while reading ahead" if reading else "load")
        return real_load(*args, **kwargs)  # type: ignore[arg-type]

    def wait(self: ReadAhead) -> None:
        waited.set()
        real_wait(self)

    def opened(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self == last:
            waited.wait(30)
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(restore, "restore", restored)
    monkeypatch.setattr(pipeline, "load", loaded)
    monkeypatch.setattr(ReadAhead, "wait", wait)
    monkeypatch.setattr(Path, "open", opened)
    with ReadAhead([*restore_files(Project(root).cache, root / "site"), last]) as ahead:
        build(root, only=KINDS, read_ahead=ahead)
    assert order == ["restore", "load"]
    assert ahead.taken == len(files) and ahead.again == 0
    monkeypatch.undo()
    build(root, tmp_path / "clean", use_cache=False, only=KINDS)
    assert tree_snapshot(root / "site") == tree_snapshot(tmp_path / "clean")


def test_a_file_is_taken_once_read_while_the_next_ones_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`take` waits for the file asked for only: the first file is taken (and could be
    unpickled) while the thread still reads the second one."""
    first, second = tmp_path / "a.pickle", tmp_path / "b.pickle"
    save_signed(first, "first")
    save_signed(second, "second")
    go_on, read_on = threading.Event(), threading.Event()
    real_open = Path.open

    def opened(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self == second:  # (held until the first is taken; at most 30 s, not to hang)
            go_on.wait(30)
            read_on.set()
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", opened)
    with ReadAhead([first, second]) as ahead:
        assert load_signed(first, ahead=ahead) == "first"
        second_read = read_on.is_set()  # (not yet: the thread is held before it)
        go_on.set()
        assert not second_read
        assert load_signed(second, ahead=ahead) == "second"
        assert ahead.taken == 2


def test_the_build_cache_reads_what_it_says(tmp_path: Path) -> None:
    """`BuildCache.files` names every file `BuildCache.load` reads (the read ahead's list)."""
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    build(root, only=KINDS)
    folder = Project(root).cache
    listed = set(BuildCache.files(folder))
    read: list[Path] = []
    real = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.parent == folder:  # (not the user's key)
            read.append(self)
        return real(self)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Path, "read_bytes", read_bytes)
        cache = BuildCache.load(folder)
    assert read and set(read) <= listed
    assert pickle.dumps(cache.docs)  # (loaded)
