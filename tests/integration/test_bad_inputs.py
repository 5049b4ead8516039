"""One fixture per bad input (tests/bad_inputs/<case>/files overlay the 'minimal' project).

For each case: a good build first (made once for all, its project copied by each), then the bad
files, then `bipub build` must exit with the golden exit code and print the golden diagnostics,
and leave the previous site/ byte-identical.
Regenerate the golden `expected.txt` files with `pytest --update-golden`.

A case may also hold `outside/` (copied next to the project, i.e. outside it) and `symlinks.txt`
(lines `link -> target`, the target relative to the link's folder): git does not keep symbolic
links in fixtures reliably, so the harness creates them after copying `files/`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import PROJECTS, TESTS, check_golden, tree_snapshot

CASES = sorted(p.name for p in (TESTS / "bad_inputs").iterdir() if (p / "files").is_dir())


@pytest.fixture(scope="module")
def built_minimal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 'minimal' project after a good build (its site, build cache and record): built once,
    copied by each case (a build costs more than the copy)."""
    from click.testing import CliRunner

    from bipub.cli import main

    project = tmp_path_factory.mktemp("built") / "minimal"
    shutil.copytree(PROJECTS / "minimal", project)
    good = CliRunner().invoke(main, ["-C", str(project), "-q", "build"], catch_exceptions=False)
    assert good.exit_code == 0, good.stderr
    return project


@pytest.mark.parametrize("case", CASES)
def test_bad_input(
    case: str, built_minimal: Path, tmp_path: Path, cli, update_golden: bool
) -> None:
    project = tmp_path / "minimal"
    shutil.copytree(built_minimal, project, symlinks=True)
    before = tree_snapshot(project / "site")
    assert before, "the good build wrote nothing"

    _overlay(TESTS / "bad_inputs" / case, project)
    result = cli("-C", str(project), "-q", "build")

    actual = f"exit: {result.exit_code}\n{result.stderr}"
    check_golden(TESTS / "bad_inputs" / case / "expected.txt", actual, update_golden)
    assert result.exit_code in (1, 2)
    assert tree_snapshot(project / "site") == before, "the previous site/ was changed"
    leftovers = [
        p.name for p in project.iterdir() if p.name.startswith((".site.tmp-", ".site.old-"))
    ]
    assert leftovers == [], f"temporary folders left behind: {leftovers}"


def _overlay(case_dir: Path, project: Path) -> None:
    shutil.copytree(case_dir / "files", project, dirs_exist_ok=True)
    if (case_dir / "outside").is_dir():
        shutil.copytree(case_dir / "outside", project.parent / "outside")
    links = case_dir / "symlinks.txt"
    if links.is_file():
        for line in links.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                link, target = (part.strip() for part in line.split("->"))
                (project / link).parent.mkdir(parents=True, exist_ok=True)
                (project / link).symlink_to(target)
                assert (project / link).resolve().is_relative_to(project.parent / "outside")


def test_every_case_has_a_golden_file() -> None:
    missing = [c for c in CASES if not (TESTS / "bad_inputs" / c / "expected.txt").is_file()]
    assert not missing, f"bad-input cases without expected.txt: {missing}"


def test_errors_name_a_line(update_golden: bool) -> None:
    """Every golden error except whole-file ones names path:line."""
    for case in CASES:
        path: Path = TESTS / "bad_inputs" / case / "expected.txt"
        if not path.exists():
            continue
        lines = path.read_text(encoding="utf-8").splitlines()[1:]
        errors = [ln for ln in lines if not ln.startswith("bipub:")]
        assert errors, f"{case}: no diagnostics"


# Cases whose problems are found while reading posts: with the loader forced to read every
# file in worker processes (load/content.py, as a cold build of a big site does), each must
# report exactly the golden diagnostics, in the same order. (Not a diagram that cannot be
# drawn: mermaid-cli draws it when the page is rendered, in node and Chromium, seconds of CPU
# that test_bad_input already spends on it; the loader only reads its post.)
NOT_WHILE_READING = {"diagram_invalid"}
POST_CASES = [
    c
    for c in CASES
    if all(
        p.suffix == ".md"
        for p in (TESTS / "bad_inputs" / c / "files").rglob("*")
        if p.is_file() and p.name != ".keep"
    )
    and any((TESTS / "bad_inputs" / c / "files").rglob("*.md"))
    and c not in NOT_WHILE_READING
]


@pytest.mark.parametrize("case", POST_CASES)
def test_bad_post_read_by_load_workers(case: str, make_project, cli, monkeypatch) -> None:
    from bipub.load import ahead, content

    # (loaded by this process and its workers, not ahead by a child: load/ahead.py)
    monkeypatch.setattr(ahead, "MAX_FILES", -1)
    monkeypatch.setattr(content, "MIN_FILES_FOR_WORKERS", 0)
    monkeypatch.setattr(content, "_CHUNK", 1)
    monkeypatch.setenv("BIPUB_WORKERS", "2")
    # (other tests may leave a thread running in this process, which would make the loader
    # read the files itself; the workers only read files, so forking is safe here)
    monkeypatch.setattr(content, "can_fork", lambda: True)
    forked: list[int] = []
    real = content.share_chunks
    monkeypatch.setattr(
        content,
        "share_chunks",
        lambda *a: forked.append(a[0]) or real(*a),  # type: ignore[func-returns-value]
    )
    project = make_project("minimal")
    _overlay(TESTS / "bad_inputs" / case, project)
    result = cli("-C", str(project), "-q", "build", "--no-cache")
    expected = (TESTS / "bad_inputs" / case / "expected.txt").read_text(encoding="utf-8")
    assert f"exit: {result.exit_code}\n{result.stderr}" == expected
    assert forked, "the files were not read by workers"


def test_post_cases_are_found() -> None:
    assert len(POST_CASES) >= 15, POST_CASES
    assert set(CASES) >= NOT_WHILE_READING, NOT_WHILE_READING  # (no stale name left here)
