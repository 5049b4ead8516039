"""The entries file saved as what changed since a base file (entries_delta.py): a build after
an edit writes the entries it changed, not all of them; the next build reads the base with
what changed and takes every entry it took before; a kill between the base and the small file,
or a base damaged, removed or replaced, leaves a next build that publishes what a clean build
does and says why at `-v`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bipub import entries_delta, restore
from bipub.pipeline import build
from bipub.project import Project
from tests.conftest import PAGES_AND_AGGREGATES, built_copy, clean_snapshot, tree_snapshot

KINDS = PAGES_AND_AGGREGATES
ALPHA = "content/ko/posts/alpha.md"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A sample project built (a base file written), with a delta written for any change
    (the sample has 3 entries: one edit is a third of them)."""
    root = built_copy(tmp_path)
    monkeypatch.setattr(entries_delta, "NEW_BASE", 1)
    return root


def _edit(root: Path, text: str = "\n한 문단 더.\n", rel: str = ALPHA) -> None:
    path = root / rel
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def _files(root: Path) -> tuple[Path, list[Path]]:
    path = restore.entries_path(Project(root), root / "site")
    return path, sorted(path.parent.glob(f"{path.stem}-*.pickle"))


def _restored(note: str) -> tuple[int, int]:
    found = re.search(r"taxa and entry keys of (\d+) of (\d+) entr(?:y|ies) restored", note)
    assert found, note
    return int(found[1]), int(found[2])


def test_an_edit_writes_what_changed_and_the_next_build_takes_the_rest(
    project: Path, tmp_path: Path
) -> None:
    _, (base,) = _files(project)
    written = base.stat().st_mtime_ns, base.stat().st_size
    _edit(project)
    result = build(project, only=KINDS)
    taken, total = _restored(result.cache_note)
    assert taken == total - 1
    _, bases = _files(project)
    assert bases == [base] and (base.stat().st_mtime_ns, base.stat().st_size) == written
    store, why = restore.EntryStore.load(Project(project), project / "site")
    assert store is not None and not why
    assert isinstance(store.blobs, entries_delta.Blobs)  # (the edited entry: in the small file)
    # an entry changed since the base and not since is written again (it is not in the base)
    for rel in ("content/ko/posts/beta.md", "content/ko/pages/about.md"):
        _edit(project, "\n두 번째.\n", rel)
        result = build(project, only=KINDS)
        assert _restored(result.cache_note) == (total - 1, total)
        assert tree_snapshot(project / "site") == clean_snapshot(project, tmp_path, KINDS)
    assert _files(project)[1] == [base]


@pytest.mark.parametrize("killed", ["base", "small"])
def test_a_build_killed_between_the_base_and_the_small_file(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, killed: str
) -> None:
    """Killed as it writes a new base (forced: the base read is taken for replaced) or the
    small file: the old small file and its base are used by the next build."""
    _edit(project)
    build(project, only=KINDS)  # (a small file naming the base, with the edited entry)
    small, (base,) = _files(project)
    real = entries_delta.write_signed

    def kill(path: Path, pieces: list[bytes | memoryview], prefix: bytes = b"") -> bytes:
        if (path == small) == (killed == "small"):
            raise KeyboardInterrupt
        return real(path, pieces, prefix)

    monkeypatch.setattr(entries_delta, "write_signed", kill)
    monkeypatch.setattr(entries_delta, "_still_signed", lambda path, signature: False)
    _edit(project, "\n두 번째.\n")
    with pytest.raises(KeyboardInterrupt):
        build(project, only=KINDS)
    monkeypatch.undo()
    monkeypatch.setattr(entries_delta, "NEW_BASE", 1)
    assert base in _files(project)[1]  # (the old base, named by the old small file)
    _edit(project, "\n세 번째.\n")
    result = build(project, only=KINDS)
    taken, total = _restored(result.cache_note)
    assert taken == total - 1
    assert tree_snapshot(project / "site") == clean_snapshot(project, tmp_path, KINDS)
    assert len(_files(project)[1]) == 1  # (the base the new small file does not name: gone)


@pytest.mark.parametrize("how", ["truncated", "removed", "another"])
def test_a_base_not_the_one_named_is_refused_and_said(
    project: Path, tmp_path: Path, how: str
) -> None:
    _edit(project)
    build(project, only=KINDS)
    small, (base,) = _files(project)
    if how == "truncated":
        base.write_bytes(base.read_bytes()[:-7])
    elif how == "removed":
        base.unlink()
    else:  # another base, signed by this user, put in the place of the one named
        named = small.read_bytes()
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(entries_delta, "NEW_BASE", 10**9)  # (a new base for any change)
            _edit(project, "\n다른 것.\n")
            build(project, only=KINDS)
        (other,) = _files(project)[1]
        other.rename(base)
        small.write_bytes(named)
    _edit(project, "\n세 번째.\n")
    result = build(project, only=KINDS)
    assert f"{small.name} ignored (" in result.cache_note
    assert "entry keys of" not in result.cache_note
    assert tree_snapshot(project / "site") == clean_snapshot(project, tmp_path, KINDS)
    store, why = restore.EntryStore.load(Project(project), project / "site")
    assert store is not None and not why
