"""Reproducible builds: the same inputs and SOURCE_DATE_EPOCH give a byte-identical site (HTML,
JSON, feeds, sitemap, llms.txt, PDFs) whatever TZ, LANG, PYTHONHASHSEED, the project's folder and
the order in which the file system lists files; compiled catalogs (.mo) likewise.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import DEMO_PARTS, REPO, draw_diagrams, tree_snapshot

PARTS = DEMO_PARTS

# Runs bipub with every directory listing reversed (os.scandir, os.listdir, Path.iterdir and what
# is built on them: glob, rglob, os.walk), so any output that follows listing order changes.
REVERSED_LISTINGS = """
import os, pathlib, sys
_scandir, _listdir, _iterdir = os.scandir, os.listdir, pathlib.Path.iterdir

class _Reversed:
    def __init__(self, entries):
        self._it = iter(sorted(entries, key=lambda e: e.name, reverse=True))
    def __iter__(self):
        return self
    def __next__(self):
        return next(self._it)
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        return False
    def close(self):
        pass

def scandir(path="."):
    with _scandir(path) as it:
        return _Reversed(list(it))

os.scandir = scandir
os.listdir = lambda path=".": sorted(_listdir(path), reverse=True)
pathlib.Path.iterdir = lambda self: iter(sorted(_iterdir(self), key=lambda p: p.name, reverse=True))
from bipub.cli import main
sys.argv[0] = "bipub"
main()
"""


def _copy_demo(target: Path, reverse: bool) -> None:
    """Copy the demo, creating files and folders in sorted or reverse-sorted order."""
    target.mkdir(parents=True)
    sources: list[Path] = []
    for part in PARTS:
        src = REPO / part
        if src.is_file():
            sources.append(src)
        elif src.is_dir():
            sources.extend(sorted(src.rglob("*")))
    for src in sorted(sources, key=lambda p: p.relative_to(REPO).as_posix(), reverse=reverse):
        dest = target / src.relative_to(REPO)
        if src.is_dir():
            dest.mkdir(parents=True, exist_ok=True)
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest)


def _env(**changes: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "BIPUB_"))}
    env.update({"SOURCE_DATE_EPOCH": "1798761600", "PYTHONPATH": str(REPO / "src"), **changes})
    return env


def _build_env(folder: Path, **changes: str) -> dict[str, str]:
    """A build's environment, with a user cache of its own: no PDF, card or image of one build
    comes from the other's cache (they run at once; with the tests' cache shared, a PDF the
    first had rendered could reach the second from it, and be compared with itself). The drawn
    diagrams stay the tests' (conftest
    `_user_cache_env`: drawn once per run, by mermaid-cli's node and Chromium)."""
    cache = folder / "user-cache"
    diagrams = Path(os.environ["XDG_CACHE_HOME"]) / "bipub" / "diagrams"
    diagrams.mkdir(parents=True, exist_ok=True)
    (cache / "bipub").mkdir(parents=True)
    (cache / "bipub" / "diagrams").symlink_to(diagrams, target_is_directory=True)
    return _env(XDG_CACHE_HOME=str(cache), **changes)


def test_the_demo_builds_byte_identical_in_any_environment(tmp_path: Path) -> None:
    # Two builds that differ in everything at once (each a demo build with its PDFs, ~15 s of
    # CPU: a third would add cost, not a new kind of difference): a time zone behind UTC and
    # one ahead of it, a non-UTF-8 locale and a Korean one, two hash seeds, and the files
    # created and listed in sorted and in reverse order.
    runs = {
        "a": (
            ["-m", "bipub"],
            False,
            _build_env(
                tmp_path / "a",
                TZ="America/Los_Angeles",
                LANG="en_US.ISO-8859-1",
                PYTHONHASHSEED="0",
            ),
        ),
        "b": (
            ["-c", REVERSED_LISTINGS],
            True,
            _build_env(
                tmp_path / "b",
                TZ="Asia/Seoul",
                LANG="ko_KR.UTF-8",
                LC_ALL="ko_KR.UTF-8",
                PYTHONHASHSEED="random",
            ),
        ),
    }
    for name, (_, reverse, _) in runs.items():
        _copy_demo(tmp_path / name / "project", reverse)
    # the demo's diagrams, drawn into the tests' diagrams (which both builds' user caches link
    # to) unless a build of the demo drew them there already: both builds, started at once,
    # found none there and each drew them (the same SVG, ~3.5 CPU s of node and Chromium)
    draw_diagrams(tmp_path / "a" / "project", Path(os.environ["XDG_CACHE_HOME"]))
    procs = {}
    for name, (cmd, _, env) in runs.items():
        project = tmp_path / name / "project"
        procs[name] = subprocess.Popen(
            [sys.executable, *cmd, "-C", str(project), "-q", "build"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    for name, proc in procs.items():
        _, err = proc.communicate(timeout=1800)
        assert proc.returncode == 0, f"build {name}: {err.decode()}"
    sites = {name: tree_snapshot(tmp_path / name / "project" / "site") for name in runs}
    assert any(p.endswith(".pdf") for p in sites["a"]), "the demo should build PDFs"
    assert sorted(sites["b"]) == sorted(sites["a"]), "build b wrote other files"
    differ = [p for p in sites["a"] if sites["b"][p] != sites["a"][p]]
    assert differ == [], f"build b differs from build a in {differ}"


def test_compiled_catalogs_are_byte_identical_in_any_environment(tmp_path: Path) -> None:
    theme_po = REPO / "src/bipub/theme/locales/ko/LC_MESSAGES/messages.po"
    outputs = []
    for i, env in enumerate(
        [
            _env(TZ="UTC", LANG="C.UTF-8", PYTHONHASHSEED="0"),
            _env(TZ="Pacific/Auckland", LANG="ko_KR.UTF-8", PYTHONHASHSEED="77"),
        ]
    ):
        project = tmp_path / f"p{i}"
        init = subprocess.run(
            [sys.executable, "-m", "bipub", "init", str(project)],
            env=env,
            capture_output=True,
            check=False,
        )
        assert init.returncode == 0, init.stderr
        po = project / "locales/ko/LC_MESSAGES/messages.po"
        po.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(theme_po, po)
        run = subprocess.run(
            [sys.executable, "-m", "bipub", "-C", str(project), "i18n", "compile"],
            env=env,
            capture_output=True,
            check=False,
        )
        assert run.returncode == 0, run.stderr
        outputs.append(po.with_suffix(".mo").read_bytes())
    assert outputs[0] == outputs[1]
