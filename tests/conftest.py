"""Shared fixtures: sample projects copied to a temporary folder, the CLI, golden files.

Golden files: run `pytest --update-golden` to rewrite every golden file from the current output
(then review the diff with `git diff tests/`).

PDFs: a build run inside the test process writes placeholder PDFs (`placeholder_pdf`: no
WeasyPrint, no worker processes) unless the test, its class or its module is marked
`@pytest.mark.pdf`; a test that reads a PDF, or WeasyPrint's warnings, must carry the mark (a
placeholder is no PDF: pypdf and pdftotext fail on it loudly). Everything around the render
runs as usual: the PDF jobs, font coverage, the PDF cache (placeholders in a folder of their
own), writing and ownership of the files.
Builds in a subprocess (`python -m bipub`) always render real PDFs.
"""

from __future__ import annotations

import fcntl
import gc
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from click.testing import CliRunner
from hypothesis import settings

from bipub import pipeline, uptodate
from bipub.render import feeds
from bipub.render.pdf import documents as pdf_documents
from bipub.render.pdf.cache import RenderCache
from bipub.render.pdf.fonts import Fonts
from bipub.render.pdf.jobs import PdfJob, PdfResult
from bipub.render.search_memo import ENV as SEARCH_MEMO_ENV
from tests.deepl_fake.fixtures import deepl_fake  # noqa: F401 - fixture
from tests.run_order import Measure, load_costs, run_order

if TYPE_CHECKING:
    from bipub.render.diagrams import Diagrams

# No test fails on time (speed is measured in bench/): Hypothesis's default 200 ms deadline per
# example is a timed assertion, and an example that waited for a busy core under `-n 3` failed a
# full run (test_llms_headings) that passed alone. Budgets stay in each test's max_examples.
settings.register_profile("bipub", deadline=None)
settings.load_profile("bipub")

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
    parser.addoption(
        "--update-run-order",
        action="store_true",
        default=False,
        help="Measure each test file's CPU seconds and, if the run passes, rewrite "
        "tests/run_order.json (the order the files run in: costliest first).",
    )


# Where the tests' temporary folders go (pytest's basetemp; each xdist worker its own folder in
# it): a tmpfs (/dev/shm) when it has room, unless --basetemp names one. The tests build
# hundreds of sites and throw them away; on a disk they cost a third more CPU (on an ext4
# without a journal, as on the benchmark machine, creating a file after many were deleted
# scans past them: tests/integration/test_output_record.py took 29 CPU s on it, 21.5 here).
# Removed at the end of a run that passed; kept (and named) after a failure, for a look.
SHM = Path("/dev/shm")
SHM_ROOM = 4 << 30  # bytes free that /dev/shm must have (a container's 64 MB one is not used)
_SHM_KEY = pytest.StashKey[Path]()  # the folder made for this run
_SHM_KEPT = pytest.StashKey[Path]()  # ... kept after a failure
_SEED_SAID = pytest.StashKey[str]()  # what went wrong with the search memo's seeding


def _shm_has_room() -> bool:
    try:
        stat = os.statvfs(SHM)
    except OSError:
        return False
    return stat.f_bavail * stat.f_frsize >= SHM_ROOM and os.access(SHM, os.W_OK)


def _shm_basetemp() -> Path | None:
    if not _shm_has_room():
        return None
    return Path(tempfile.mkdtemp(prefix="bipub-tests-", dir=SHM))


@pytest.hookimpl(tryfirst=True)  # (before pytest's own tmp_path set-up reads the option)
def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--update-run-order"):
        config.pluginmanager.register(Measure(config), "bipub-run-order")
    if config.option.basetemp is None and not hasattr(config, "workerinput"):
        folder = _shm_basetemp()
        if folder is not None:
            config.option.basetemp = str(folder)
            config.stash[_SHM_KEY] = folder
    if (
        not hasattr(config, "workerinput")
        and config.getoption("numprocesses", None)
        and not os.environ.get(SEARCH_MEMO_ENV)
    ):
        _seed_search_memo(config)


# The search memo of an xdist run (`_search_memo`), seeded by a process of its own while the
# test processes start (tests/search_seed.py): Kiwi runs there once, and the test processes,
# which fork at every build, stay small. Removed at the end of the run.
_SEED_KEY = pytest.StashKey[tuple["subprocess.Popen[bytes]", Path]]()


def _seed_search_memo(config: pytest.Config) -> None:
    """(In the controlling process of an xdist run with no BIPUB_SEARCH_MEMO of its own.)"""
    folder = Path(
        tempfile.mkdtemp(prefix="bipub-search-memo-", dir=SHM if _shm_has_room() else None)
    )
    os.environ[SEARCH_MEMO_ENV] = str(folder)  # (the test processes, started later, inherit it)
    log = open(folder / "seed.log", "wb")  # noqa: SIM115 - the seeding process writes it
    with log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.search_seed", str(folder)],
            env=subprocess_env(),
            stdout=subprocess.PIPE,
            stderr=log,
        )
    assert proc.stdout is not None
    proc.stdout.readline()  # "locked" (or nothing: it failed; said at the end)
    proc.stdout.close()
    config.stash[_SEED_KEY] = (proc, folder)


def _end_search_memo(config: pytest.Config) -> str:
    """Wait for the seeding, remove the memo; what went wrong with the seeding, or ""."""
    seeding = config.stash.get(_SEED_KEY, None)
    if seeding is None:
        return ""
    del config.stash[_SEED_KEY]
    proc, folder = seeding
    status = proc.wait()
    said = (folder / "seed.log").read_text(encoding="utf-8", errors="replace").strip()
    shutil.rmtree(folder, ignore_errors=True)
    os.environ.pop(SEARCH_MEMO_ENV, None)
    if status != 0:
        return f"the search memo's seeding failed (exit status {status}): {said[-600:]}"
    return ""


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    session.config.stash[_SEED_SAID] = _end_search_memo(session.config)
    folder = session.config.stash.get(_SHM_KEY, None)
    if folder is None:
        return
    if exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        shutil.rmtree(folder, ignore_errors=True)
    else:
        session.config.stash[_SHM_KEPT] = folder


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    said = config.stash.get(_SEED_SAID, "")
    if said:
        terminalreporter.write_line(said)
    kept = config.stash.get(_SHM_KEPT, None)
    if kept is not None:
        terminalreporter.write_line(
            f"the tests' temporary folders are kept in {kept} (in memory): remove it when done"
        )


def _is_tree(value: object) -> bool:
    """A `tree_snapshot` (path → bytes; empty: a folder with no file)."""
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, bytes) for k, v in value.items()
    )


def pytest_assertrepr_compare(op: str, left: object, right: object) -> list[str] | None:
    """Two `tree_snapshot`s compared: which files one side lacks and which differ (the first
    differing line of each), not pytest's print of every file's bytes (a failed site
    comparison in CI printed a whole site, and the test's name was cut off above it)."""
    # (both trees, one at least with files: any other dicts keep pytest's own report)
    if op != "==" or not (_is_tree(left) and _is_tree(right)) or not (left or right):
        return None
    assert isinstance(left, dict) and isinstance(right, dict)
    only_left = sorted(set(left) - set(right))
    only_right = sorted(set(right) - set(left))
    differ = sorted(k for k in set(left) & set(right) if left[k] != right[k])
    out = [f"two file trees differ: left {len(left)} files, right {len(right)} files"]
    if only_left:
        out.append(f"only left ({len(only_left)}): {', '.join(only_left[:12])}")
    if only_right:
        out.append(f"only right ({len(only_right)}): {', '.join(only_right[:12])}")
    for key in differ[:12]:
        x, y = left[key], right[key]
        if b"\0" in x[:4096] or b"\0" in y[:4096]:  # (an image, a PDF, a search bundle)
            out.append(f"differs: {key} ({len(x)} bytes against {len(y)}, binary)")
            continue
        a, b = x.splitlines(), y.splitlines()
        pairs = enumerate(zip(a, b, strict=False))
        line = next((i for i, (p, q) in pairs if p != q), min(len(a), len(b)))
        here = a[line][:160] if line < len(a) else b"(no more lines)"
        there = b[line][:160] if line < len(b) else b"(no more lines)"
        out += [f"differs: {key} at line {line + 1}:", f"  left:  {here!r}", f"  right: {there!r}"]
    if len(differ) > 12:
        out.append(f"... and {len(differ) - 12} more differing files")
    return out


# the hang guard of a `slow` test (pyproject.toml's `timeout` for the others)
SLOW_TIMEOUT = 4 * 3600


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked `slow` (the long, nightly-style runs) are skipped unless the `-m`
    expression names them: `pytest -m slow` runs them alone, `-m "slow or not slow"` all.
    The costliest files run first (tests/run_order.py)."""
    items[:] = run_order(items, load_costs())
    if "slow" in (config.getoption("markexpr") or ""):
        for item in items:  # (the nightly-style runs last longer than pyproject's hang guard)
            if item.get_closest_marker("slow") is not None:
                item.add_marker(pytest.mark.timeout(SLOW_TIMEOUT))
        return
    skip = pytest.mark.skip(reason="a long run: select it with pytest -m slow")
    for item in items:
        if item.get_closest_marker("slow") is not None:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _thawed() -> Iterator[None]:
    """Nothing a test left frozen out of the collector's reach reaches the next test: a test
    that reads back a build's state outside a build (restore.restore: cache.kept_to_the_end
    freezes what it read, and only a build thaws it) left the next ones in its worker with
    ~1,000,000 frozen objects (test_startup asserts a build starts with none)."""
    yield
    if gc.get_freeze_count():
        gc.unfreeze()


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def _user_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tests' user cache folder ($XDG_CACHE_HOME): one per test process."""
    return tmp_path_factory.getbasetemp() / "xdg-cache"


@pytest.fixture(scope="session", autouse=True)
def _user_cache_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """$XDG_CACHE_HOME is the process's own folder for the whole session, so that the builds of
    module and session fixtures keep out of ~/.cache too (`_fixed_environment` sets it again
    for each test).

    Under pytest-xdist the test processes of a run share one thing of their user caches: the
    drawn mermaid diagrams ($XDG_CACHE_HOME/bipub/diagrams is a link to one folder of the
    run). A drawn SVG is stored under a digest of its source, mermaid-cli's version and the
    configuration (render/diagrams.py), so what one process drew is what another would draw;
    the demo's diagrams are drawn once per run (~3.5 CPU s of node and Chromium), not once per
    process. A test that needs an empty cache sets XDG_CACHE_HOME to a folder of its own."""
    cache = _user_cache(tmp_path_factory)
    if os.environ.get("PYTEST_XDIST_WORKER") is not None:
        shared = tmp_path_factory.getbasetemp().parent / "shared-diagrams"  # (the run's folder)
        shared.mkdir(exist_ok=True)
        link = cache / "bipub" / "diagrams"
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(shared, target_is_directory=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(cache))
        yield


# ------------------------------------------------------------------ the search memo


@pytest.fixture(scope="session", autouse=True)
def _search_memo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The run's search memo (render/search_memo.py, `BIPUB_SEARCH_MEMO`), shared by every test
    process and the builds they start: Korean stems and Pagefind bundles, each under a key of
    everything it is made of, so the stems of a word are found by Kiwi once per run (not once
    per process: a test process that loads Kiwi holds ~320 MB more, and each of its forks
    costs more) and a bundle of the same pages is made by Pagefind once.
    A test, class or module marked `real_search` runs Kiwi and Pagefind themselves (the tests
    of the search index: what they do, their failures, retries and counts).
    A memo folder named in the environment already is used as it is."""
    given = os.environ.get(SEARCH_MEMO_ENV)  # (a memo made before the run: scripts/bootstrap.sh)
    folder = Path(given) if given else run_folder(tmp_path_factory) / "search-memo"
    folder.mkdir(parents=True, exist_ok=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(SEARCH_MEMO_ENV, str(folder))
        yield


@pytest.fixture(scope="module", autouse=True)
def _search_memo_module(request: pytest.FixtureRequest, _search_memo: None) -> Iterator[None]:
    """(Module-scoped: a marked module's own module-scoped fixtures build without it too.)"""
    with pytest.MonkeyPatch.context() as mp:
        if request.node.get_closest_marker("real_search") is not None:
            mp.delenv(SEARCH_MEMO_ENV, raising=False)
        yield


@pytest.fixture(autouse=True)
def _search_memo_test(request: pytest.FixtureRequest, _search_memo_module: None) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        if request.node.get_closest_marker("real_search") is not None:
            mp.delenv(SEARCH_MEMO_ENV, raising=False)
        yield


@pytest.fixture(autouse=True)
def _fixed_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1798761600")  # 2027-01-01T00:00:00Z
    # the cache signing key and compiled templates live in the user's cache: keep tests out of ~
    monkeypatch.setenv("XDG_CACHE_HOME", str(_user_cache(tmp_path_factory)))
    monkeypatch.delenv("DEEPL_AUTH_KEY", raising=False)
    monkeypatch.delenv("DEEPL_SERVER_URL", raising=False)


# ------------------------------------------------------------------ PDFs: real or placeholder

PLACEHOLDER_PDF = b"%PDF-placeholder (tests/conftest.py: mark the test pdf for a real one)\n"
_REAL_RUN_JOBS = pdf_documents.run_jobs


def placeholder_pdf(job: PdfJob) -> PdfResult:
    """What a test build writes for a PDF: not a PDF, but its bytes follow the print HTML
    (an edit that changes the PDF changes the placeholder), with no diagnostics."""
    digest = hashlib.sha256(job.html.encode("utf-8")).hexdigest()
    return PdfResult(job.document, PLACEHOLDER_PDF + digest.encode() + b"\n")


class _PdfSwitch:
    """Whether builds in this process render real PDFs now (set per module and per test)."""

    real = True

    @classmethod
    def run_jobs(cls, jobs: list[PdfJob], *args: Any, **kwargs: Any) -> list[PdfResult]:
        if cls.real:
            return _REAL_RUN_JOBS(jobs, *args, **kwargs)
        return [placeholder_pdf(job) for job in jobs]


class _PdfCache(RenderCache):
    """The PDF cache, with placeholders kept apart from real PDFs (in pdf-placeholders/ beside
    pdf/ in the user's cache): a subprocess build of the same project (real PDFs, same
    XDG_CACHE_HOME) never finds a placeholder, an in-process build never a real PDF."""

    def __init__(self, folder: Path | None, project_root: Path, fonts: Fonts) -> None:
        if folder is not None and not _PdfSwitch.real:
            folder = folder.with_name(folder.name + "-placeholders")
        super().__init__(folder, project_root, fonts)


@pytest.fixture(scope="session", autouse=True)
def _pdf_switch() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pdf_documents, "run_jobs", _PdfSwitch.run_jobs)
        mp.setattr(pdf_documents, "RenderCache", _PdfCache)
        yield


@pytest.fixture(scope="module", autouse=True)
def _pdf_switch_module(request: pytest.FixtureRequest, _pdf_switch: None) -> Iterator[None]:
    """(Module-scoped: a module's own module-scoped fixtures build under its mark too.)"""
    _PdfSwitch.real = request.node.get_closest_marker("pdf") is not None
    yield
    _PdfSwitch.real = True


@pytest.fixture(autouse=True)
def _pdf_switch_test(request: pytest.FixtureRequest, _pdf_switch_module: None) -> Iterator[None]:
    before = _PdfSwitch.real
    _PdfSwitch.real = request.node.get_closest_marker("pdf") is not None
    yield
    _PdfSwitch.real = before


@contextmanager
def real_pdfs(real: bool = True) -> Iterator[None]:
    """Real PDFs inside the block (a session fixture building a project for everyone), or
    placeholders (`real=False`: `placeholder_pdfs()`)."""
    before = _PdfSwitch.real
    _PdfSwitch.real = real
    try:
        yield
    finally:
        _PdfSwitch.real = before


def placeholder_pdfs() -> AbstractContextManager[None]:
    """Placeholder PDFs inside the block, whatever the mark of the test that asked: for a
    session fixture, which pytest sets up before any module's or test's switch (a session
    fixture's build otherwise rendered real PDFs, the default outside a module)."""
    return real_pdfs(False)


# Python that a test's subprocess runs before bipub's CLI (with the repository on its
# PYTHONPATH: `subprocess_env`) so that its builds write placeholder PDFs, as the in-process
# builds of a test not marked `pdf` do (no WeasyPrint; placeholders in their own cache folder):
# for a test that compares what a subprocess published with in-process builds and reads no PDF.
SUBPROCESS_PLACEHOLDER_PDFS = """
from bipub.render.pdf import documents as _documents
from tests import conftest as _conftest
_conftest._PdfSwitch.real = False
_documents.run_jobs = _conftest._PdfSwitch.run_jobs
_documents.RenderCache = _conftest._PdfCache
"""
# `python -c BIPUB_PLACEHOLDER_PDFS ARGS...`: bipub's command line, writing placeholder PDFs
# (a `bipub serve` whose test reads no PDF: real ones cost seconds of WeasyPrint at each start).
BIPUB_PLACEHOLDER_PDFS = SUBPROCESS_PLACEHOLDER_PDFS + "from bipub.cli import main\nmain()\n"


def subprocess_env(**changes: str) -> dict[str, str]:
    """The environment of a `python -m bipub` (or `-c`) subprocess: this one's, with bipub's
    sources and the repository (for `tests`, SUBPROCESS_PLACEHOLDER_PDFS) on PYTHONPATH."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO)]), **changes}


DEMO_PARTS = ("bipub.yaml", "glossary.yaml", "content", "templates", "locales", "static", "status")


def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of this run that every test process shares: the parent of the process's own
    basetemp under pytest-xdist (where `shared-diagrams/` is), else the basetemp itself."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") is not None else base


def made_once_per_run(
    tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]
) -> Path:
    """A folder `name` in the run's shared folder, made by `make(folder)` once per test run, in
    the first test process that asks for it (under an exclusive file lock); the other processes
    wait for it and then use what it made. For work every process would otherwise repeat (the
    built demo site the browser tests serve, ~10 CPU s a build): what is made must be what any
    process would make, and its users only read it.

    A `make` that raises leaves no folder (a half-made one is removed) and fails the test that
    asked; the next process to ask tries again (and fails the same way, naming its own test)."""
    folder = run_folder(tmp_path_factory) / name
    done = folder.with_name(name + ".done")
    with open(folder.with_name(name + ".lock"), "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # (released when the file closes)
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            try:
                make(folder)
            except BaseException:
                shutil.rmtree(folder, ignore_errors=True)
                raise
            done.touch()
    return folder


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


def draw_diagrams(project: Path, user_cache: Path) -> int:
    """Draw the ```mermaid diagrams of `project`'s posts and pages into the user cache
    `user_cache` ($XDG_CACHE_HOME: its bipub/diagrams/) as a build of the project draws them
    (the same sources, configuration and fonts: the same keys), in one mermaid-cli run, unless
    they are there already; returns the number of renderer runs (0 or 1). For a test that
    starts several builds of the project at once: each would find the cache empty and draw
    them itself (~3.5 CPU s of node and Chromium a run, the same SVG each time)."""
    from bipub.config import load_config
    from bipub.render.diagrams import Diagrams
    from bipub.render.markdown import diagram_sources

    config = load_config(project)
    diagrams = Diagrams(user_cache / "bipub", config.pdf.fonts)
    diagrams.prepare(
        source
        for path in sorted((project / "content").rglob("*.md"))
        for source in diagram_sources(path.read_text(encoding="utf-8"), config.outputs.raw_html)
    )
    return diagrams.runs


@contextmanager
def diagrams_in_the_tests_cache(diagrams: Diagrams) -> Iterator[None]:
    """A module's own `Diagrams` (render/diagrams.py) keeps what it draws in the tests' user
    cache ($XDG_CACHE_HOME/bipub/diagrams: under pytest-xdist the run's shared folder,
    `_user_cache_env`) and takes from it what a build or another module drew (keyed by source,
    mermaid-cli's version and the configuration: the same SVG), inside the block; no cache
    after it. (A module that drew the demo's diagrams with no cache ran mermaid-cli once more
    per run: ~2-3.5 CPU s of node and Chromium.)"""
    diagrams.cache_dir = Path(os.environ["XDG_CACHE_HOME"]) / "bipub"
    try:
        yield
    finally:
        diagrams.cache_dir = None


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
    """Every file under `root` (a symlink to a file too; no symlinked folder is entered), by
    its relative POSIX path, in path order. (os.walk: half the CPU of Path.rglob, and the state
    machines of tests/integration/test_incremental.py take hundreds of snapshots.)"""
    top = str(root)
    found: list[list[str]] = []
    for folder, _folders, files in os.walk(top):
        rel = os.path.relpath(folder, top).replace(os.sep, "/")
        for name in files:
            if os.path.isfile(os.path.join(folder, name)):
                found.append([name] if rel == "." else [*rel.split("/"), name])
    found.sort()  # as sorted(Path): part by part
    snapshot = {}
    for parts in found:
        with open(os.path.join(top, *parts), "rb") as f:
            snapshot["/".join(parts)] = f.read()
    return snapshot


def inputs_digest(project: Path) -> str:
    """Every file of a project but what bipub writes into it (site/, .bipub-cache/, .site.*),
    path and bytes: a key for a clean build's output, which is a function of the inputs."""
    h = hashlib.sha256()
    for rel in sorted(_input_names(project)):
        h.update(rel.encode("utf-8") + b"\0" + (project / rel).read_bytes() + b"\0")
    return h.hexdigest()


def spawned_checkers(monkeypatch: pytest.MonkeyPatch, *, fork: bool = True) -> list[str]:
    """Every output checked in full is checked in another process (uptodate.Checker), as
    `bipub serve` checks a big one; the list gets the program of each process started.
    `fork=False`: the prescan does not fork either (the check is left to the Checker)."""
    started: list[str] = []
    real = os.posix_spawn

    def spawn(path: Any, argv: Any, *args: Any, **kwargs: Any) -> int:
        started.append(str(argv[-1]))
        return real(path, argv, *args, **kwargs)

    monkeypatch.setattr(uptodate, "CHECK_APART", 0)
    if not fork:
        monkeypatch.setattr(uptodate, "can_fork", lambda: False)
    monkeypatch.setattr(os, "posix_spawn", spawn)
    return started


# The clean build of each state of the inputs met in a test process, by output kinds (a
# function of the inputs: test_reproducible.py): the tests that make the same edits find the
# reference the first one built.
_CLEAN: dict[tuple[str, frozenset[str], bool], dict[str, bytes]] = {}


def clean_snapshot(project: Path, tmp_path: Path, kinds: set[str]) -> dict[str, bytes]:
    """`tree_snapshot` of a clean build (no cache) of `project`'s inputs as they are now, with
    the output `kinds`; built in `tmp_path`/clean the first time these inputs are met (and PDFs
    made the same way: real, or placeholders)."""
    key = (inputs_digest(project), frozenset(kinds), _PdfSwitch.real)
    if key not in _CLEAN:
        clean = tmp_path / "clean"
        pipeline.build(project, clean, use_cache=False, only=kinds)
        _CLEAN[key] = tree_snapshot(clean)
    return _CLEAN[key]


def _input_names(project: Path) -> list[str]:
    """The relative paths of a project's input files (as `inputs_digest` reads them)."""
    top = str(project)
    names = []
    for folder, folders, files in os.walk(top):
        rel = os.path.relpath(folder, top).replace(os.sep, "/")
        if rel == ".":
            folders[:] = [d for d in folders if d not in ("site", ".bipub-cache")]
            folders[:] = [d for d in folders if not d.startswith(".site.")]
            files = [f for f in files if not f.startswith(".site.")]
        for name in files:
            if os.path.isfile(os.path.join(folder, name)):
                names.append(name if rel == "." else f"{rel}/{name}")
    return names


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


PAGES_AND_AGGREGATES = {"html", "json", "feeds", "llms"}  # (no PDFs, cards or search)


def built_copy(tmp_path: Path, name: str = "minimal", only: set[str] | None = None) -> Path:
    """A copy of the sample project `name` in `tmp_path / "p"`, built once (by default its
    pages and aggregate outputs only: PAGES_AND_AGGREGATES)."""
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / name, root)
    pipeline.build(root, only=PAGES_AND_AGGREGATES if only is None else only)
    return root


def replace_in(root: Path, rel: str, old: str, new: str) -> None:
    """Edit a project's file: the first `old` (which must be there) made `new`."""
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {rel}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def feeds_made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the feeds the builds of this test make (not those kept), in order."""
    made: list[str] = []
    real = feeds.feed_of

    def feed_of(*args: object) -> feeds.FeedParts:
        found = real(*args)  # type: ignore[arg-type]
        made.append(found.path)
        return found

    monkeypatch.setattr(feeds, "feed_of", feed_of)
    return made


#: a post of its own date and tag (test_plan_reuse, test_plan_made_of: posts whose order and
#: neighbours an edit moves)
DATED_POST = """---
title: 글 {n}
description: 글
date: 2025-{month:02d}-{day:02d}
tags: [{tag}]
---

## 소개

글 {n}입니다.
"""


def dated_project(tmp_path: Path, n: int) -> tuple[Path, Path]:
    """The minimal project with `n` more posts (`more-NN.md`, DATED_POST: a date and a tag
    each); returns the project and its Korean posts folder."""
    project = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", project)
    posts = project / "content/ko/posts"
    for i in range(n):
        text = DATED_POST.format(
            n=i, month=i % 12 + 1, day=i + 1, tag="shared" if i % 2 else "other"
        )
        (posts / f"more-{i:02d}.md").write_text(text, encoding="utf-8")
    return project, posts


def body_warnings(body: str, code: str, rel: str = "content/ko/posts/p.md") -> list[Any]:
    """The diagnostics of `code` that rendering `body` (a post's body starting at line 6 of
    `rel`) gives, as the build reports them (MarkdownCache, at the file's lines)."""
    from types import SimpleNamespace

    from bipub.diagnostics import Collector
    from bipub.render.markdown import MarkdownCache

    lang = rel.split("/")[1]  # (content/<lang>/…)
    doc = SimpleNamespace(rel=rel, lang=lang, digest="", body=body, body_line=6, sections=())
    collector = Collector()
    MarkdownCache(False, collector)(doc)  # type: ignore[arg-type] - the fields it reads
    return [d for d in collector.items if d.code == code]
