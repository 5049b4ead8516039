"""Start-up: a command imports its own module only (cli.py imports each command when it is
run), and a light command none of the pipeline's heavy libraries."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bipub.cli import exit_status, flushed
from tests.conftest import REPO

PROBE = """
import sys
from bipub.cli import main
try:
    main(["explain", "config"])
except SystemExit:
    pass
heavy = ("pydantic", "jinja2", "markdown_it", "babel", "yaml", "pygments")
print(" ".join(sorted(m for m in sys.modules
                      if m.startswith("bipub.commands.") or m.split(".")[0] in heavy)))
"""


def test_a_command_imports_no_other_command_nor_the_pipeline() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=REPO,
        env={"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = result.stdout.split("\n")[-2].split()
    assert loaded == ["bipub.commands.explain_cmd", "bipub.commands.ui"], result.stdout


def test_the_program_flushes_what_its_streams_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    """cli.run ends with os._exit, which drops what Python still buffers: `flushed` writes it
    out first (stdout into a pipe holds whole blocks)."""
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="utf-8")  # block-buffered, as into a pipe
    monkeypatch.setattr(sys, "stdout", stream)
    stream.write("result\n")
    assert raw.getvalue() == b""
    assert flushed(0) == 0
    assert raw.getvalue() == b"result\n"


def test_output_that_cannot_be_flushed_is_not_a_success(monkeypatch: pytest.MonkeyPatch) -> None:
    class ClosedPipe(io.StringIO):
        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert flushed(0) == 120  # (Python's own status for a failed flush at exit)
    assert flushed(1) == 1  # the command's failure stays what it was


def test_exit_status_is_pythons(capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_status(None) == 0
    assert exit_status(2) == 2
    assert exit_status("bipub: gave up") == 1
    assert capsys.readouterr().err == "bipub: gave up\n"


def test_a_profiled_run_ends_the_usual_way(tmp_path: Path) -> None:
    """`python -m cProfile -o X -m bipub ...` (how bipub's speed is profiled): the profiler
    writes X at the normal exit, which os._exit would skip."""
    out = tmp_path / "bipub.prof"
    result = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "bipub", "--version"],
        env={"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert out.is_file() and out.stat().st_size > 0


def test_serve_collects_garbage_as_python_usually_does(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """cli.run makes the collector run rarely (a command's objects are long-lived); the
    server, which runs for hours, goes back to Python's usual thresholds before it starts."""
    import gc

    from click.testing import CliRunner

    from bipub import serve
    from bipub.cli import FEW_COLLECTIONS, main

    seen: list[tuple[int, ...]] = []
    monkeypatch.setattr(serve, "serve", lambda *args: seen.append(gc.get_threshold()))
    before = gc.get_threshold()
    gc.set_threshold(*FEW_COLLECTIONS)  # (as cli.run leaves it)
    try:
        result = CliRunner().invoke(main, ["-C", str(tmp_path), "serve"])
    finally:
        gc.set_threshold(*before)
    assert result.exit_code == 0, result.output
    assert seen == [(700, 10, 10)]


def test_python_m_bipub_sets_the_collectors_thresholds_before_its_imports() -> None:
    probe = (
        "import gc, runpy, sys; sys.argv = ['bipub', '--version']\n"
        "import builtins; real = builtins.__import__\n"
        "def spy(name, *a, **k):\n"
        "    if name == 'bipub.cli': print(gc.get_threshold(), flush=True)\n"
        "    return real(name, *a, **k)\n"
        "builtins.__import__ = spy\n"
        "runpy.run_module('bipub', run_name='__main__')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=REPO,
        env={"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )
    from bipub.cli import FEW_COLLECTIONS

    assert result.stdout.splitlines()[0] == str(FEW_COLLECTIONS), result.stdout + result.stderr


def test_a_build_does_not_walk_what_was_made_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What exists before a build (the modules imported: ~100,000 objects) is frozen while it
    runs: the build's first collection walked all of it (~25 ms at 5,000 posts a language);
    nothing is left frozen after (`bipub serve` builds again and again in one process)."""
    import gc
    import shutil

    from bipub import pipeline
    from tests.conftest import PROJECTS

    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    frozen: list[int] = []
    real = pipeline.load

    def load(*args: Any, **kwargs: Any) -> Any:
        frozen.append(gc.get_freeze_count())
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "load", load)
    assert gc.get_freeze_count() == 0
    pipeline.build(root, use_cache=False, only={"html"})
    assert frozen and frozen[0] > 10_000, frozen
    assert gc.get_freeze_count() == 0
