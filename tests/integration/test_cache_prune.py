"""The cache keeps the files of the output folders still built, and drops the others
(cache_files.py): those of an output folder moved or deleted, of the original of a project
copied, and those beyond the last `MAX_OUTPUTS` built; never those of a folder a build is
writing now, nor the tables of another build saved meanwhile, nor the files a build killed while
saving left its next build to use."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bipub import buildstate, cache, cache_files, restore
from bipub.cache import BuildCache, output_name
from bipub.pipeline import build
from bipub.write.lock import output_lock
from tests.conftest import built_copy, clean_snapshot, tree_snapshot

KINDS = {"html", "json", "feeds", "llms"}


def _own(root: Path, out: Path) -> list[str]:
    """The cache files kept for the output folder `out` of the project `root`."""
    name = output_name(out)
    return sorted(p.name for p in (root / ".bipub-cache").glob(f"*-{name}*.pickle"))


def _tables(root: Path) -> set[str]:
    loaded = BuildCache.load(root / ".bipub-cache")
    return set(loaded.pages) | set(loaded.cards)


def test_a_moved_output_folders_cache_is_dropped(tmp_path: Path) -> None:
    root = built_copy(tmp_path, only=KINDS)
    first, moved = tmp_path / "out1", tmp_path / "out2"
    build(root, first, only=KINDS)
    assert _own(root, first) and str(first.resolve()) in _tables(root)
    first.rename(moved)
    result = build(root, moved, only=KINDS)
    assert f"{first.resolve()} (no longer there)" in result.cache_note
    assert "of output folders no longer used" in result.cache_note
    assert _own(root, first) == []
    assert str(first.resolve()) not in _tables(root)
    # the live ones are whole: the project's site/ and the moved folder are up to date
    assert _own(root, root / "site") and _own(root, moved)
    assert build(root, moved, only=KINDS).up_to_date
    assert build(root, only=KINDS).up_to_date


def test_a_copied_project_drops_the_originals_cache_and_leaves_the_original(
    tmp_path: Path,
) -> None:
    root = built_copy(tmp_path, only=KINDS)
    before = sorted(p.name for p in (root / ".bipub-cache").iterdir())
    copy = tmp_path / "copy"
    shutil.copytree(root, copy, symlinks=True)
    result = build(copy, only=KINDS)
    assert f"of the project in {root.resolve()}" in result.cache_note
    assert _own(copy, root / "site") == []
    assert str((root / "site").resolve()) not in _tables(copy)
    assert _own(copy, copy / "site")
    assert sorted(p.name for p in (root / ".bipub-cache").iterdir()) == before
    assert build(root, only=KINDS).up_to_date
    assert build(copy, only=KINDS).up_to_date


def test_only_the_output_folders_built_last_are_kept(tmp_path: Path) -> None:
    root = built_copy(tmp_path, only={"json"})
    outs = [tmp_path / f"out{n}" for n in range(cache_files.MAX_OUTPUTS)]
    for out in outs:
        build(root, out, only={"json"})
    kept = _tables(root)
    assert len(kept) == cache_files.MAX_OUTPUTS
    assert str((root / "site").resolve()) not in kept  # (built first: the oldest)
    assert _own(root, root / "site") == []
    assert all(_own(root, out) for out in outs)


def test_a_dead_output_folder_a_build_is_writing_is_left(tmp_path: Path) -> None:
    root = built_copy(tmp_path, only=KINDS)
    gone = tmp_path / "gone"
    build(root, gone, only=KINDS)
    files = _own(root, gone)
    shutil.rmtree(gone)
    with output_lock(gone):  # (a build of it has just started)
        result = build(root, tmp_path / "other", only=KINDS)
    assert "a build is writing it now" in result.cache_note
    assert _own(root, gone) == files
    assert str(gone.resolve()) in _tables(root)
    result = build(root, tmp_path / "third", only=KINDS)
    assert f"{gone.resolve()} (no longer there)" in result.cache_note
    assert _own(root, gone) == []


def test_the_tables_another_build_saved_meanwhile_are_kept(tmp_path: Path) -> None:
    """A build (here: a build cache read before the other build ran, saved after) that read
    build.pickle before another build into another output folder saved it keeps that build's
    tables, and so its files."""
    root = built_copy(tmp_path, only=KINDS)
    folder = root / ".bipub-cache"
    early = BuildCache.load(folder)
    other = tmp_path / "other"
    build(root, other, only=KINDS)
    early.save(folder, root / "site")
    assert str(other.resolve()) in _tables(root)
    assert _own(root, other)
    assert build(root, other, only=KINDS).up_to_date


@pytest.mark.parametrize("killed", ["state-", "entries-", "build.pickle"])
def test_a_build_killed_after_a_new_file_before_the_one_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, killed: str
) -> None:
    """Killed after writing a new parts, tables or base file, before the file naming it (or
    after the build cache's save, before the entries file): the old files stay usable, the
    next build publishes what a clean build does, and the one after is up to date."""
    root = built_copy(tmp_path, only=KINDS)
    other = tmp_path / "other"
    build(root, other, only=KINDS)
    post = root / "content" / "ko" / "posts" / "alpha.md"
    post.write_text(post.read_text(encoding="utf-8") + "\n편집.\n", encoding="utf-8")
    real_signed, real_write = cache.save_signed, restore.write_signed

    def kill_signed(path: Path, value: object, prefix: bytes = b"") -> bytes:
        if path.name.startswith(killed):
            raise KeyboardInterrupt
        return real_signed(path, value, prefix)

    def kill_write(path: Path, pieces: list[bytes | memoryview], prefix: bytes = b"") -> bytes:
        if path.name.startswith(killed):
            raise KeyboardInterrupt
        return real_write(path, pieces, prefix)

    monkeypatch.setattr(cache, "save_signed", kill_signed)
    monkeypatch.setattr(buildstate, "save_signed", kill_signed)
    monkeypatch.setattr(restore, "write_signed", kill_write)
    with pytest.raises(KeyboardInterrupt):
        build(root, only=KINDS)
    monkeypatch.undo()
    again = build(root, only=KINDS)
    assert "no longer used" not in again.cache_note  # (nothing of a live folder removed)
    assert "build state ignored" not in again.cache_note
    assert tree_snapshot(root / "site") == clean_snapshot(root, tmp_path, KINDS)
    assert build(root, only=KINDS).up_to_date
    note = build(root, other, only=KINDS).cache_note  # (its cache was left whole)
    assert "no state of the last build" not in note
    assert "no entries file" not in note


def test_a_build_killed_before_it_removed_the_files_it_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed after saving build.pickle without the tables of a folder gone, before removing
    its files: the next build that saves removes them (no table names them any more)."""
    root = built_copy(tmp_path, only=KINDS)
    gone = tmp_path / "gone"
    build(root, gone, only=KINDS)
    shutil.rmtree(gone)

    def kill(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cache_files, "remove_files", kill)
    with pytest.raises(KeyboardInterrupt):
        build(root, tmp_path / "other", only=KINDS)
    monkeypatch.undo()
    assert str(gone.resolve()) not in _tables(root)
    assert _own(root, gone)
    result = build(root, tmp_path / "third", only=KINDS)
    assert "of output folders no longer used" in result.cache_note
    assert _own(root, gone) == []
    last = build(root, only=KINDS).cache_note  # (the live folders' files are left)
    assert "no state of the last build" not in last
    assert "no entries file" not in last
