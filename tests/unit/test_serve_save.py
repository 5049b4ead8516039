"""serve_save.Saves: when `bipub serve` saves its state, and what it leaves for later."""

from __future__ import annotations

from pathlib import Path

from bipub.project import Project
from bipub.serve_save import QUIET_MOMENTS, Saves


class _Cache:
    def __init__(self, log: list[str]) -> None:
        self.log = log

    def save(self, folder: Path) -> None:
        self.log.append("cache")


class _Kept:
    """What Saves writes of restore.Kept: the cache, the state (None here), the records."""

    def __init__(self, log: list[str]) -> None:
        self.cache, self.state, self.log = _Cache(log), None, log

    def save_records(self, project: Project) -> None:
        self.log.append("records")


def _saves(tmp_path: Path) -> tuple[Saves, list[str]]:
    log: list[str] = []
    return Saves(Project(tmp_path), tmp_path / "site", _Kept(log)), log  # type: ignore[arg-type]


def test_a_save_waits_for_quiet_moments_after_a_build(tmp_path: Path) -> None:
    saves, log = _saves(tmp_path)
    assert saves.idle(lambda: False) == ""  # (nothing built: nothing to save)
    saves.built()
    for _ in range(QUIET_MOMENTS - 1):
        assert saves.idle(lambda: False) == "" and log == []
    assert "saved for the next start" in saves.idle(lambda: False)
    assert log == ["cache", "records"] and saves.saves == 1
    assert saves.idle(lambda: False) == ""  # (saved: nothing more until the next build)


def test_a_save_leaves_its_other_files_when_a_save_of_the_user_waits(tmp_path: Path) -> None:
    """A file at a time: an update waiting is kept waiting by one file at most; the rest is
    saved at the next quiet moment, or from the first file again after another build (the
    files of one save are of one moment)."""
    saves, log = _saves(tmp_path)
    saves.built()
    answers = iter([False, True])
    for _ in range(QUIET_MOMENTS - 1):
        saves.idle(lambda: False)
    assert "a save is waiting" in saves.idle(lambda: next(answers))
    assert log == ["cache"]
    for _ in range(QUIET_MOMENTS):
        saves.idle(lambda: False)
    assert log == ["cache", "records"] and saves.saves == 1  # (the state: None here)
    saves.built()
    answers = iter([False, True])
    for _ in range(QUIET_MOMENTS - 1):
        saves.idle(lambda: False)
    saves.idle(lambda: next(answers))
    saves.built()  # (another build before the rest was saved: from the first file again)
    for _ in range(QUIET_MOMENTS):
        saves.idle(lambda: False)
    assert log == ["cache", "records", "cache", "cache", "records"]


def test_a_stop_during_a_build_saves_nothing(tmp_path: Path) -> None:
    saves, log = _saves(tmp_path)
    saves.built()
    assert "not saved" in saves.stop(broken=True) and log == []
    saves.built()
    assert "saved for the next start" in saves.stop(broken=False)
    assert log == ["cache", "records"]


def test_a_save_that_fails_is_a_warning_and_the_server_goes_on(tmp_path: Path) -> None:
    """A full or unwritable disk at a quiet moment: the save's OSError is kept as a
    `cache-not-saved` warning for the server to print (it used to end the server), and the
    next build's save is tried again."""
    saves, log = _saves(tmp_path)

    def full(folder: Path) -> None:
        raise OSError(28, "No space left on device", str(folder / "build.pickle"))

    saves.kept.cache.save = full  # type: ignore[attr-defined]
    saves.built()
    assert "could not be saved" in saves.now()
    failed = saves.take_failed()
    assert [d.code for d in failed] == ["cache-not-saved"]
    assert "No space left on device" in failed[0].format()
    assert saves.take_failed() == [] and saves.now() == ""  # (said once; nothing due)
    saves.kept.cache.save = _Cache(log).save  # type: ignore[attr-defined]
    saves.built()
    assert "saved for the next start" in saves.now() and log == ["cache", "records"]
