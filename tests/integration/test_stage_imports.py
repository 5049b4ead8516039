"""`bipub build` imports its stages on a thread while the prescan's child is slow to say
whether the inputs are the last build's (commands/build_cmd.py `StageImports`): it stops once
they are (the build is probably up to date: it imports no more), and has ended before the
build runs (which may fork, and imports the stages itself); the site is a clean build's."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from bipub import pipeline, uptodate
from bipub.commands import build_cmd
from bipub.commands.build_cmd import STAGE_MODULES, StageImports
from tests.conftest import PROJECTS, CliResult, tree_snapshot


def _imports_recorded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    names: list[str] = []
    monkeypatch.setattr(build_cmd.importlib, "import_module", names.append)
    return names


def test_the_stages_are_imported_until_the_inputs_are_the_last_builds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    names = _imports_recorded(monkeypatch)
    with StageImports(lambda: False) as imports:
        imports._thread.join()  # (to its end: nothing stops it)
    assert names == list(STAGE_MODULES) and imports.imported == len(STAGE_MODULES)
    names.clear()
    same = iter([False, True])  # the answer comes after the first module
    with StageImports(lambda: next(same)) as imports:
        imports._thread.join()
    assert names == [STAGE_MODULES[0]]


def test_a_module_that_fails_here_is_left_to_the_build(monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(name: str) -> None:
        raise ImportError(name)

    monkeypatch.setattr(build_cmd.importlib, "import_module", failing)
    with StageImports(lambda: False) as imports:
        imports._thread.join()
    assert imports.imported == 0  # (no error here: the build's own import raises it)


def _blocked_until_closed(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Each import waits until the imports are told to stop (`close`)."""
    closing = threading.Event()
    close = StageImports.close

    def closed(self: StageImports) -> None:
        closing.set()
        close(self)

    monkeypatch.setattr(StageImports, "close", closed)
    monkeypatch.setattr(build_cmd.importlib, "import_module", lambda name: closing.wait())
    return closing


@pytest.mark.parametrize("edited", [True, False])
def test_the_imports_have_ended_before_the_build_runs(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    cli: Callable[..., CliResult],
    edited: bool,
) -> None:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    assert cli("-q", "-C", str(root), "build").exit_code == 0
    if edited:
        post = root / "content/ko/posts/alpha.md"
        post.write_text(post.read_text(encoding="utf-8") + "\n한 문단 더.\n", encoding="utf-8")
    monkeypatch.setattr(uptodate.Prescan, "answers_within", lambda self, seconds: False)
    monkeypatch.setattr(build_cmd, "SPECULATE_FROM", 0)  # (as a big site)
    _blocked_until_closed(monkeypatch)
    threads: list[list[str]] = []
    real = pipeline.build

    def build(*args: object, **kwargs: object) -> object:
        threads.append(sorted(t.name for t in threading.enumerate() if t.name.startswith("bipub-")))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "build", build)
    result = cli("-C", str(root), "build")
    assert result.exit_code == 0, result.stderr
    if edited:  # (the thread, blocked in an import, stopped before the build ran)
        assert "Built" in result.stderr
        # (the read-ahead's thread may have ended already or not: timing)
        assert [[n for n in names if n != "bipub-read-ahead"] for names in threads] == [[]]
    else:  # up to date: no build, and no thread left behind
        assert "Up to date" in result.stderr and threads == []
    assert threading.active_count() == 1
    monkeypatch.undo()
    assert (
        cli("-q", "-C", str(root), "build", "--no-cache", "--out", str(tmp_path / "c")).exit_code
        == 0
    )
    assert _no_pdfs(tree_snapshot(root / "site")) == _no_pdfs(tree_snapshot(tmp_path / "c"))


def _no_pdfs(tree: dict[str, bytes]) -> dict[str, bytes]:
    """(the tests' PDFs are placeholders naming where they were made)"""
    return {path: data for path, data in tree.items() if not path.startswith("pdf/")}


def _count_starts(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """A list that gets one item each time a build starts importing its stages."""
    started: list[bool] = []
    real = StageImports.__init__

    def init(self: StageImports, *args: object, **kwargs: object) -> None:
        started.append(True)
        real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(StageImports, "__init__", init)
    return started


@pytest.mark.parametrize("speculate_from", [None, 0])
def test_a_small_site_never_imports_while_it_waits(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    cli: Callable[..., CliResult],
    speculate_from: int | None,
) -> None:
    """However slow the prescan's answer (a busy machine), a site whose up-to-date record is
    small (`SPECULATE_FROM`) imports no stage while it waits: a build with nothing to do then
    imports none of them (test_cli_startup). With the threshold at 0 it does (the rule on)."""
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    assert cli("-q", "-C", str(root), "build").exit_code == 0
    monkeypatch.setattr(uptodate.Prescan, "answers_within", lambda self, seconds: False)
    if speculate_from is not None:
        monkeypatch.setattr(build_cmd, "SPECULATE_FROM", speculate_from)
    started = _count_starts(monkeypatch)
    result = cli("-C", str(root), "build")
    assert result.exit_code == 0 and "Up to date" in result.stderr, result.stderr
    assert started == ([] if speculate_from is None else [True])


@pytest.mark.parametrize("at_once", [False, True])
def test_a_very_big_sites_imports_start_without_waiting(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    cli: Callable[..., CliResult],
    at_once: bool,
) -> None:
    """A site whose up-to-date record is very big (`SPECULATE_AT_ONCE`: its scan is longer
    than the wait) starts its imports without first waiting for the prescan's answer; a
    smaller big one waits `SPECULATE_AFTER` first. Either build is a clean build's."""
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    assert cli("-q", "-C", str(root), "build").exit_code == 0
    post = root / "content/ko/posts/alpha.md"
    post.write_text(post.read_text(encoding="utf-8") + "\n한 문단 더.\n", encoding="utf-8")
    waits: list[float] = []
    monkeypatch.setattr(
        uptodate.Prescan, "answers_within", lambda self, seconds: waits.append(seconds)
    )
    monkeypatch.setattr(build_cmd, "SPECULATE_FROM", 0)  # (as a big site)
    if at_once:
        monkeypatch.setattr(build_cmd, "SPECULATE_AT_ONCE", 0)
    started = _count_starts(monkeypatch)
    result = cli("-C", str(root), "build")
    assert result.exit_code == 0 and "Built" in result.stderr, result.stderr
    assert waits == ([] if at_once else [build_cmd.SPECULATE_AFTER]) and started == [True]
    monkeypatch.undo()
    assert (
        cli("-q", "-C", str(root), "build", "--no-cache", "--out", str(tmp_path / "c")).exit_code
        == 0
    )
    assert _no_pdfs(tree_snapshot(root / "site")) == _no_pdfs(tree_snapshot(tmp_path / "c"))
