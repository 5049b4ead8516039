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

from tests.conftest import DEMO_PARTS, PLACEHOLDER_PDF, REPO, tree_snapshot

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

MAIN = """
import sys
from bipub.cli import main
sys.argv[0] = "bipub"
main()
"""

# The PDFs rendered by WeasyPrint in both builds: one of each kind (a post, a post in both
# languages side by side, the CV in both languages, a short CV; Korean and English). The others
# are placeholders (tests/conftest.py: the SHA-256 of their print HTML, so whatever the
# environment changes in what WeasyPrint is given still shows); the same templates, fonts and
# renderer make them (rendering them too costs ~1 CPU s a build: WeasyPrint's start, fonts and
# worker pool are most of a build's PDF cost, and every build pays them once).
REAL_PDFS = (
    "ko/blog/fp8-vs-awq/fp8-vs-awq.pdf",
    "pdf/blog/fp8-vs-awq-ko-en.pdf",
    "pdf/cv-ko-en.pdf",
    "pdf/cv-en-short.pdf",
)
SOME_REAL_PDFS = f"""
from bipub.render.pdf import documents as _documents
from tests import conftest as _conftest
_render = _documents.run_jobs
def _run_jobs(jobs, *args, **kwargs):
    real = [job for job in jobs if job.document in {REAL_PDFS!r}]
    results = _render(real, *args, **kwargs) if real else []
    done = dict(zip([job.document for job in real], results, strict=True))
    return [done.get(job.document) or _conftest.placeholder_pdf(job) for job in jobs]
_documents.run_jobs = _run_jobs
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
    env.update({"SOURCE_DATE_EPOCH": "1775520000", "PYTHONPATH": str(REPO / "src"), **changes})
    return env


def _build_env(folder: Path, **changes: str) -> dict[str, str]:
    """A build's environment: its own user cache (no PDF comes from the other build's cache;
    the placeholders go into no cache a later build reads) but for the drawn diagrams, which
    stay the tests' (tests/conftest.py `_user_cache_env`), and the repository on the path."""
    cache = folder / "user-cache"
    diagrams = Path(os.environ["XDG_CACHE_HOME"]) / "bipub" / "diagrams"
    diagrams.mkdir(parents=True, exist_ok=True)
    (cache / "bipub").mkdir(parents=True)
    (cache / "bipub" / "diagrams").symlink_to(diagrams, target_is_directory=True)
    return _env(
        XDG_CACHE_HOME=str(cache),
        PYTHONPATH=os.pathsep.join([str(REPO / "src"), str(REPO)]),
        **changes,
    )


def test_the_demo_builds_byte_identical_in_any_environment(tmp_path: Path) -> None:
    # Two builds that differ in everything at once (each a demo build with PDFs, ~10 s of
    # CPU: a third would add cost, not a new kind of difference): a time zone behind UTC and
    # one ahead of it, a non-UTF-8 locale and a Korean one, two hash seeds, and the files
    # created and listed in sorted and in reverse order. Each renders REAL_PDFS with WeasyPrint.
    runs = {
        "a": (
            ["-c", SOME_REAL_PDFS + MAIN],
            False,
            _build_env(
                tmp_path / "a",
                TZ="America/Los_Angeles",
                LANG="en_US.ISO-8859-1",
                PYTHONHASHSEED="0",
            ),
        ),
        "b": (
            ["-c", SOME_REAL_PDFS + REVERSED_LISTINGS],
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
    procs = {}
    for name, (cmd, reverse, env) in runs.items():
        project = tmp_path / name / "project"
        _copy_demo(project, reverse)
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
    pdfs = sorted(p for p in sites["a"] if p.endswith(".pdf"))
    assert set(REAL_PDFS) < set(pdfs), pdfs  # (the names above are the demo's)
    for path in REAL_PDFS:
        assert not sites["a"][path].startswith(PLACEHOLDER_PDF), path  # rendered by WeasyPrint
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
