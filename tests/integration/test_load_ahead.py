"""load/ahead.py: a build without the cache loads bipub.yaml and content/ in a child forked
while the command imports the stages. What the child sends back is what the load stage makes
(the same site, byte for byte, and the same problems); where it gives nothing (its error, its
death) the build loads the files itself and meets any error the usual way; `-v` says which
way the content was loaded; a big site is loaded by the build and its helpers instead."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bipub import pipeline
from bipub.diagnostics import Collector, ConfigError
from bipub.load import ahead
from bipub.load.ahead import LoadAhead
from bipub.project import Project
from tests.conftest import PROJECTS, subprocess_env, tree_snapshot

KINDS = {"html", "json", "feeds", "llms"}
LOADED_AHEAD = "content loaded by a child process while the build's modules were imported"


@pytest.fixture(autouse=True)
def _forking(monkeypatch: pytest.MonkeyPatch) -> None:
    # (another test's thread left running would make the command load the files itself)
    monkeypatch.setattr(ahead, "can_fork", lambda: True)


def _project(tmp_path: Path, name: str = "side_by_side") -> Path:
    root = tmp_path / name
    shutil.copytree(PROJECTS / name, root)
    return root


def test_the_site_built_from_the_childs_content_is_the_same(tmp_path: Path) -> None:
    root = _project(tmp_path)
    loaded = LoadAhead.start(root)
    assert loaded is not None
    pipeline.build(root, tmp_path / "ahead", only=KINDS, use_cache=False, ahead=loaded)
    assert loaded.note == LOADED_AHEAD
    pipeline.build(root, tmp_path / "here", only=KINDS, use_cache=False)
    assert tree_snapshot(tmp_path / "ahead") == tree_snapshot(tmp_path / "here")


def test_the_childs_problems_are_the_load_stages(tmp_path: Path) -> None:
    root = _project(tmp_path, "minimal")
    post = next((root / "content").rglob("*.md"))
    post.write_text("---\ntitle: [unclosed\n---\n\nbody\n", encoding="utf-8")
    collector = Collector()
    loaded = LoadAhead.start(root)
    assert loaded is not None
    with loaded:
        loaded.result(collector)
    expected = Collector()
    pipeline.load(Project(root), expected)
    assert collector.items and collector.items == expected.items
    assert loaded.note == LOADED_AHEAD


def test_an_error_in_the_child_is_met_here_the_usual_way(tmp_path: Path) -> None:
    root = _project(tmp_path, "minimal")
    (root / "bipub.yaml").write_text("languages: 3\n", encoding="utf-8")
    with pytest.raises(ConfigError) as here:
        pipeline.load(Project(root), Collector())
    loaded = LoadAhead.start(root)
    assert loaded is not None
    with loaded, pytest.raises(ConfigError) as raised:
        loaded.result(Collector())
    assert raised.value.diagnostics == here.value.diagnostics
    assert loaded.note.startswith("content loaded here: the child process failed (ConfigError")


def test_a_child_that_dies_leaves_the_load_to_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path)
    parent = os.getpid()
    real = ahead._load

    def dying(at: Path) -> object:
        if os.getpid() != parent:
            os._exit(3)  # (as if killed: nothing sent)
        return real(at)

    monkeypatch.setattr(ahead, "_load", dying)
    loaded = LoadAhead.start(root)
    assert loaded is not None
    pipeline.build(root, tmp_path / "ahead", only=KINDS, use_cache=False, ahead=loaded)
    assert (
        loaded.note == "content loaded here: the child process ended without its result "
        "(exit status 3)"
    )
    monkeypatch.setattr(ahead, "_load", real)
    pipeline.build(root, tmp_path / "here", only=KINDS, use_cache=False)
    assert tree_snapshot(tmp_path / "ahead") == tree_snapshot(tmp_path / "here")


def test_a_site_of_many_files_is_loaded_by_the_build_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path)
    files = sum(1 for p in (root / "content").rglob("*") if p.is_file())
    monkeypatch.setattr(ahead, "MAX_FILES", files)
    started = LoadAhead.start(root)
    assert started is not None
    started.close()
    monkeypatch.setattr(ahead, "MAX_FILES", files - 1)
    assert LoadAhead.start(root) is None


def test_a_build_with_the_cache_loads_its_own(tmp_path: Path) -> None:
    loaded = LoadAhead.start(_project(tmp_path))
    assert loaded is not None
    with loaded, pytest.raises(ValueError, match="only for a build without the cache"):
        pipeline.build(tmp_path / "side_by_side", ahead=loaded)


def test_verbose_says_the_content_was_loaded_ahead(tmp_path: Path) -> None:
    """`bipub build --no-cache` as a program of its own (the child works while it imports the
    stages); with the cache the build loads its own way; a process that imported the stages
    already (the tests' in-process `cli`) loads the files itself (build_cmd
    `_stages_to_import`)."""
    root = _project(tmp_path, "minimal")

    def bipub(*args: str) -> str:
        run = subprocess.run(
            [sys.executable, "-m", "bipub", "-C", str(root), "-v", "build", *args],
            env=subprocess_env(),
            capture_output=True,
            text=True,
            check=False,
        )
        assert run.returncode == 0, run.stderr
        return run.stdout + run.stderr

    assert LOADED_AHEAD in bipub("--no-cache", "--only", "html")
    assert LOADED_AHEAD not in bipub("--only", "html")  # (with the cache: its own)


def test_a_process_that_imported_the_stages_loads_the_files_itself(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = _project(tmp_path, "minimal")
    result = cli("-C", str(root), "-v", "build", "--no-cache", "--only", "html")
    assert result.exit_code == 0, result.stderr
    assert "content loaded" not in result.stdout + result.stderr


def test_prepare_runs_here_with_this_process_reading_of_the_config(tmp_path: Path) -> None:
    root = _project(tmp_path)
    seen: list[object] = []
    loaded = LoadAhead.start(root)
    assert loaded is not None
    with loaded:
        config, _content = loaded.result(Collector(), seen.append)
    assert seen == [config] and seen[0] is not config  # (its own reading, the same values)


def test_a_problem_in_the_config_is_met_by_prepare_as_the_load_stage_meets_it(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path, "minimal")
    (root / "bipub.yaml").write_text("languages: 3\n", encoding="utf-8")
    with pytest.raises(ConfigError) as here:
        pipeline.load(Project(root), Collector())
    loaded = LoadAhead.start(root)
    assert loaded is not None
    with loaded, pytest.raises(ConfigError) as raised:
        loaded.result(Collector(), lambda config: None)
    assert raised.value.diagnostics == here.value.diagnostics
