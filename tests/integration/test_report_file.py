"""`bipub check -o FILE` (and `check --links -o FILE`): the report file a user names.

A regular file is replaced atomically (never seen half written, its permissions kept, a symbolic
link still a link); a file that is not a regular one (/dev/null, a named pipe) is written into,
never replaced — as root, replacing /dev/null with a file breaks the machine; a file that cannot
be written is an error naming it (exit 2), with no traceback and no temporary file left."""

from __future__ import annotations

import shutil
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CliResult
from tests.unit.test_user_files import pipe_read

MINIMAL = Path(__file__).resolve().parent.parent / "projects" / "minimal"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("report") / "p"
    shutil.copytree(MINIMAL, root)
    return root


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A built site for `check --links`: one page with a broken link (a report to write)."""
    site = tmp_path_factory.mktemp("links") / "site"
    (site / "en").mkdir(parents=True)
    (site / "en" / "index.html").write_text(
        '<a href="/en/">home</a> <a href="/en/gone/">gone</a>', encoding="utf-8"
    )
    return site


def _check(
    cli: Callable[..., CliResult], root: Path, site: Path, links: bool, out: Path
) -> CliResult:
    if links:
        return cli("-C", str(root), "check", "--links", "--out", str(site), "-o", str(out))
    return cli("-C", str(root), "check", "--format", "json", "-o", str(out))


@pytest.mark.parametrize("links", [False, True], ids=["check", "links"])
def test_a_named_pipe_is_written_into_not_replaced(
    cli: Callable[..., CliResult], root: Path, site: Path, tmp_path: Path, links: bool
) -> None:
    fifo = tmp_path / "pipe"
    with pipe_read(fifo) as got:
        result = _check(cli, root, site, links, fifo)
    assert result.exit_code == (1 if links else 0), result.stderr  # (links: the broken one)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # still the pipe, not a regular file
    assert got and got[0].strip(), "the report went through the pipe"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]  # no temporary file


@pytest.mark.parametrize("links", [False, True], ids=["check", "links"])
def test_a_report_that_cannot_be_written_is_an_error_naming_the_file(
    cli: Callable[..., CliResult], root: Path, site: Path, tmp_path: Path, links: bool
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    out = blocker / "report.json"  # (a folder that is a file: fails as root too)
    result = _check(cli, root, site, links, out)
    assert result.exit_code == 2, result.stderr
    assert f"could not write the report to {out}" in result.stderr
    assert "Traceback" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_a_report_replaces_the_file_a_link_points_to_and_keeps_its_mode(
    cli: Callable[..., CliResult], root: Path, site: Path, tmp_path: Path
) -> None:
    real = tmp_path / "reports" / "check.json"
    real.parent.mkdir()
    real.write_text("old", encoding="utf-8")
    real.chmod(0o640)
    link = tmp_path / "latest.json"
    link.symlink_to(real)
    result = _check(cli, root, site, False, link)
    assert result.exit_code == 0, result.stderr
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert real.read_text(encoding="utf-8").lstrip().startswith("{")
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(p.name for p in real.parent.iterdir()) == ["check.json"]
