"""Cached files are keyed by the code that made them (code_stamp.py), not by the version alone:
a source checkout keeps one `__version__` across commits."""

from __future__ import annotations

import ast
import compileall
import os
import shutil
import subprocess
import sys
from pathlib import Path

from bipub.code_stamp import digest
from tests.conftest import REPO, subprocess_env

# what may say the plain version: what a user reads (`bipub --version`, a PDF's producer)
SAYS_THE_VERSION = {"cli.py", "render/pdf/documents.py", "code_stamp.py"}


def _touch_later(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_the_digest_follows_the_modules_and_nothing_else(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub" / "__pycache__").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "sub" / "b.py").write_text("y = 2\n")
    first = digest(str(pkg))
    assert digest(str(pkg)) == first
    (pkg / "sub" / "__pycache__" / "b.cpython-311.pyc").write_bytes(b"compiled")
    (pkg / "notes.txt").write_text("not code")
    assert digest(str(pkg)) == first  # compiled files and other files are not the code
    _touch_later(pkg / "sub" / "b.py")
    second = digest(str(pkg))
    assert second != first  # an edit, even one that keeps the size
    (pkg / "sub" / "c.py").write_text("")
    assert digest(str(pkg)) != second  # a new module
    (pkg / "sub" / "c.py").unlink()
    (pkg / "sub" / "b.py").rename(pkg / "b.py")
    assert digest(str(pkg)) not in (first, second)  # a module moved


def test_no_cache_is_keyed_by_the_version_alone() -> None:
    """Every module that names "the bipub that made it" uses CODE: one that imports
    `__version__` from bipub keys a file by a version a checkout keeps across commits."""
    src = REPO / "src" / "bipub"
    found = []
    for path in sorted(src.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module == "bipub"
                and any(alias.name == "__version__" for alias in node.names)
            ):
                found.append(path.relative_to(src).as_posix())
    assert found and set(found) <= SAYS_THE_VERSION, sorted(set(found) - SAYS_THE_VERSION)


def test_a_build_after_the_code_changed_keeps_nothing_of_the_earlier_code(
    make_project, tmp_path: Path
) -> None:
    """A copy of bipub builds a project twice (the second has nothing to do); a module of the
    copy is edited, its version unchanged: the next build renders every page again."""
    code = tmp_path / "code"
    shutil.copytree(
        REPO / "src" / "bipub", code / "bipub", ignore=shutil.ignore_patterns("__pycache__")
    )
    compileall.compile_dir(code, quiet=1)  # (each build would compile every module again)
    project = make_project("minimal")
    env = subprocess_env(PYTHONPATH=os.pathsep.join([str(code), str(REPO)]))

    def build() -> str:
        done = subprocess.run(
            [sys.executable, "-m", "bipub", "-C", str(project), "build", "--only", "html"],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        return done.stdout + done.stderr

    build()
    assert "up to date" in build().lower()
    _touch_later(code / "bipub" / "render" / "markdown.py")
    again = build()
    assert "up to date" not in again.lower() and " 0 unchanged" in again, again
