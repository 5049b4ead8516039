"""Shared fixtures: sample projects copied to a temporary folder, the CLI, golden files.

Golden files: run `pytest --update-golden` to rewrite every golden file from the current output
(then review the diff with `git diff tests/`).
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.deepl_fake.fixtures import deepl_fake  # noqa: F401 - fixture

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
PROJECTS = TESTS / "projects"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="Rewrite golden files from the current output instead of comparing.",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture(autouse=True)
def _fixed_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1775520000")  # 2026-04-07
    # the cache signing key and compiled templates live in the user's cache: keep tests out of ~
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "xdg-cache"))
    monkeypatch.delenv("DEEPL_AUTH_KEY", raising=False)
    monkeypatch.delenv("DEEPL_SERVER_URL", raising=False)


DEMO_PARTS = ("bipub.yaml", "glossary.yaml", "content", "templates", "locales", "static", "status")


def copy_demo(target: Path) -> Path:
    """Copy the repository's demo project (what `bipub build` in the checkout builds)."""
    target.mkdir(parents=True, exist_ok=True)
    for part in DEMO_PARTS:
        src = REPO / part
        if src.is_dir():
            shutil.copytree(src, target / part)
        elif src.is_file():
            shutil.copy2(src, target / part)
    return target


@pytest.fixture
def make_project(tmp_path: Path) -> Callable[[str], Path]:
    """Copy tests/projects/<name> (or the repository's demo, name='demo') into tmp_path."""

    def make(name: str) -> Path:
        target = tmp_path / name
        if name == "demo":
            copy_demo(target)
        else:
            shutil.copytree(PROJECTS / name, target)
        return target

    return make


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str


@pytest.fixture
def cli() -> Callable[..., CliResult]:
    from bipub.cli import main

    def run(*args: str) -> CliResult:
        runner = CliRunner()
        result = runner.invoke(main, list(args), catch_exceptions=False)
        return CliResult(result.exit_code, result.stdout, result.stderr)

    return run


def check_golden(path: Path, actual: str, update: bool) -> None:
    if update or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        if not update:
            pytest.fail(f"golden file {path} did not exist; written now — review and commit it")
        return
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, f"output differs from {path} (run pytest --update-golden)"


def tree_snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module", autouse=True)
def _no_thread_left() -> Iterator[None]:
    """Each test module leaves no thread running (fixtures stop their servers): with another
    thread alive, bipub does not fork (parallel.can_fork), and every later test would run the
    in-process paths only instead of the prescan, load and render workers a build uses."""
    yield
    for thread in threading.enumerate():
        if thread is not threading.main_thread():
            thread.join(timeout=5)
    left = [t.name for t in threading.enumerate() if t is not threading.main_thread()]
    assert not left, f"threads left running by this module: {left}"
