"""`bipub serve` saves its state at quiet moments (serve_save.py): a server killed outright
restarts from its last save, never from a state of another output than the one published;
Ctrl-C or SIGTERM during its first build stops it with the signal's status."""

from __future__ import annotations

import filecmp
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from bipub.cli import main
from bipub.project import Project
from tests.conftest import BIPUB_PLACEHOLDER_PDFS, subprocess_env

# `bipub serve` writing placeholder PDFs (tests/conftest.py), as the clean builds these tests
# compare its output with (in this process, no test marked `pdf`): a placeholder follows its
# PDF's print HTML, so a PDF kept stale or missing shows as one; WeasyPrint's rendering of the
# same HTML is tested in tests/integration/test_pdf.py. (Real PDFs cost the three tests that
# compare ~8 CPU s of WeasyPrint in the servers and the clean builds.)
SERVE = BIPUB_PLACEHOLDER_PDFS


class Server:
    """`bipub -v serve` in a process of its own; its stderr read on a thread."""

    def __init__(self, project: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVE, "-v", "-C", str(project), "serve", "--port", "0"],
            stderr=subprocess.PIPE,
            text=True,
            env=subprocess_env(),
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)

    def text(self) -> str:
        return "".join(self.lines)

    def wait_for(self, pattern: str, after: int = 0) -> int:
        """The index of the first line from `after` on matching `pattern` (a hang guard, not a
        speed assertion)."""
        deadline = time.monotonic() + 120
        while deadline > time.monotonic():  # (hang guard)
            for i in range(after, len(self.lines)):
                if re.search(pattern, self.lines[i]):
                    return i
            if self.proc.poll() is not None and not self._reader.is_alive():
                break
            time.sleep(0.02)
        raise AssertionError(f"never said {pattern!r}:\n{self.text()}")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=60)
        self._reader.join(timeout=10)


def _same_tree(a: Path, b: Path) -> list[str]:
    """The files that differ between `a` and `b` (their names, or the file only one has)."""
    out: list[str] = []

    def walk(cmp: filecmp.dircmp[str], rel: str) -> None:
        out.extend(f"{rel}{n}" for n in cmp.left_only + cmp.right_only + cmp.diff_files)
        out.extend(f"{rel}{n}" for n in cmp.funny_files)
        for name, sub in cmp.subdirs.items():
            walk(sub, f"{rel}{name}/")

    walk(filecmp.dircmp(a, b, ignore=[]), "")
    return sorted(p for p in out if not p.startswith(".bipub"))


def _clean_build(project: Path, out: Path) -> None:
    """`bipub build --no-cache --out OUT`, in this process (placeholder PDFs, as the server's;
    a subprocess cost a start and bipub's imports more, ~1 CPU s each)."""
    result = CliRunner().invoke(
        main, ["-q", "-C", str(project), "build", "--no-cache", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output


def test_a_killed_server_starts_again_from_its_last_save(make_project, tmp_path) -> None:
    """SIGKILL at random moments after an edit (during its update, its save, or after): the
    next start finds the state a quiet moment saved (before, only a stop saved it: the next
    start fingerprinted and rendered every page) and serves exactly what a clean build of the
    content makes, whatever moment the kill came at."""
    project = make_project("minimal")
    started: list[Server] = []
    try:
        _kill_at_random_moments(project, tmp_path, started)
    finally:
        for server in started:  # (a failure leaves none running)
            server.kill()


def _kill_at_random_moments(project: Path, tmp_path: Path, started: list[Server]) -> None:
    site = project / ".bipub-cache" / "serve"
    post = project / "content" / "ko" / "posts" / "beta.md"
    server = Server(project)
    started.append(server)
    server.wait_for(r"http://127\.0\.0\.1:\d+/")
    server.wait_for("saved for the next start")  # (the first build's, before serving)
    server.kill()
    rng = random.Random(18)
    for i in range(4):
        server = Server(project)
        started.append(server)
        served = server.wait_for(r"http://127\.0\.0\.1:\d+/")
        assert "no state of the last build" not in server.text(), server.text()
        reference = tmp_path / f"clean-{i}"
        _clean_build(project, reference)
        assert _same_tree(site, reference) == [], server.text()
        post.write_text(post.read_text(encoding="utf-8") + f"\n\nkill {i}\n", encoding="utf-8")
        if i == 0:  # (once after the update and its save, the others at random moments)
            server.wait_for("saved for the next start", served + 1)
        else:
            time.sleep(rng.uniform(0.0, 1.5))
        server.kill()
    server = Server(project)
    started.append(server)
    server.wait_for(r"http://127\.0\.0\.1:\d+/")
    reference = tmp_path / "clean-last"
    _clean_build(project, reference)
    server.kill()
    assert _same_tree(site, reference) == [], server.text()


@pytest.mark.parametrize("when", ["before publishing", "after publishing"])
def test_a_stop_during_the_first_build_says_so_and_saves_nothing(
    make_project, monkeypatch, when: str
) -> None:
    """SIGTERM (as Ctrl-C) while the first build runs: the command ends with 143 and says that
    it stopped before serving (before: 'Aborted!' and status 1 for Ctrl-C, killed by SIGTERM);
    the state of a build stopped midway is not saved, and the output folder is the last one
    published whole (none here, or the one the build swapped in before the stop)."""
    import bipub.pipeline
    from bipub import buildstate, uptodate
    from bipub.serve_save import Terminated

    project = make_project("minimal")
    real = bipub.pipeline.build

    def stopped(*args, **kw):  # (the signal's handler raises where the build is)
        if when == "after publishing":
            real(*args, **kw)
        raise Terminated

    monkeypatch.setattr(bipub.pipeline, "build", stopped)
    result = CliRunner().invoke(main, ["-v", "-C", str(project), "serve", "--port", "0"])
    assert result.exit_code == 128 + signal.SIGTERM, result.output
    site = project / ".bipub-cache" / "serve"
    assert site.is_dir() == (when == "after publishing")
    target = site.absolute()
    assert buildstate.load(Project(project), target) is None  # (nothing saved)
    assert uptodate.load(Project(project), target) is None
    assert not list((project / ".bipub-cache").glob(".serve.tmp-*"))  # (no half-staged site)
    assert "stopped before serving: stopped while a build ran" in result.output
    assert "Aborted" not in result.output


def test_the_first_update_after_a_start_in_a_new_folder_checks_only_what_it_changed(
    make_project,
) -> None:
    """A first build into a new folder renders every page and keeps none, so the kept-pages
    memo (render/kept_pages.py) is empty: `ServeBuilds.warm` builds the pages once more before
    serving, and the first update then checks only the pages whose values changed (before,
    every page's kept file: ~24,000 at 5,000 posts a language)."""
    from bipub.cache import BuildCache
    from bipub.pipeline import Kept, build
    from bipub.serve import ServeBuilds

    project = make_project("minimal")
    kept = Kept(BuildCache())
    builds = ServeBuilds(project, project / ".bipub-cache" / "serve", kept, build, None)
    builds({"html"}, None)  # (the first build, as serve.Rebuilds: the pages, then the others)
    builds({"feeds", "json", "llms"}, frozenset())
    assert not kept.keep.out, "the first build kept pages: the test shows nothing"
    assert "pages built again before serving" in builds.warm()
    assert builds.warm() == ""  # (made: once)
    post = project / "content" / "ko" / "posts" / "beta.md"
    post.write_text(post.read_text(encoding="utf-8") + "\n\n더 씁니다.\n", encoding="utf-8")
    builds({"html"}, None)
    assert "pages checked for their kept file" in kept.keep.note, kept.keep.note
    assert "every page" not in kept.keep.note


def test_a_stop_during_an_update_waits_for_its_build_and_saves_its_state(make_project) -> None:
    """While serving, SIGTERM (or Ctrl-C) during an update's build is held until the build
    ended (serve_save.StopHold): its state is then saved as at any stop (before this, the stop
    came in the middle of the build: nothing could be saved, and the next start compared every
    file of the output). A second stop meanwhile stops at once."""
    from bipub.cache import BuildCache
    from bipub.pipeline import Kept
    from bipub.serve import ServeBuilds
    from bipub.serve_save import StopHold, Terminated, put_back

    project = make_project("minimal")
    said: list[str] = []

    def build(*args, **kw):
        for _ in range(stops):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)  # (the handler runs between two bytecodes of this thread)
        said.append("built")
        return SimpleNamespace(up_to_date=False)  # (what ServeBuilds reads of a result)

    builds = ServeBuilds(project, project / "site", Kept(BuildCache()), build, None)
    builds.on_built = lambda: said.append("to save")
    hold = StopHold()
    handlers = hold.install()
    builds.hold = hold
    try:
        stops = 1
        with pytest.raises(Terminated):
            builds({"html"}, None)
        assert said == ["built", "to save"] and not builds.broken
        said.clear()
        stops = 2
        with pytest.raises(Terminated):
            builds({"html"}, None)
        assert said == [] and builds.broken  # (stopped in the middle: nothing to save)
    finally:
        put_back(handlers)


def test_a_server_killed_after_an_update_published_starts_from_its_journal(
    make_project, tmp_path
) -> None:
    """SIGKILL after an update published its pages and before the server saved its state (a
    quiet moment later): the saved record is of the output before the update, so the next
    start used to compare every file of the output (74 s at 5,000 posts a language). The
    update's journal (uprecord.save_journal: the record of the output as each build left
    it) lets the start check the folders against it instead; the site served is then exactly
    a clean build's."""
    project = make_project("minimal")
    site = project / ".bipub-cache" / "serve"
    post = project / "content" / "ko" / "posts" / "beta.md"
    started: list[Server] = []
    try:
        server = Server(project)
        started.append(server)
        served = server.wait_for(r"http://127\.0\.0\.1:\d+/")
        post.write_text(post.read_text(encoding="utf-8") + "\n\n저널\n", encoding="utf-8")
        server.wait_for(r"rebuilt \d+ of \d+ pages", served + 1)  # (published, not saved)
        server.kill()
        before = server.text()
        assert "saved for the next start" not in "".join(server.lines[served + 1 :])
        server = Server(project)
        started.append(server)
        server.wait_for(r"http://127\.0\.0\.1:\d+/")
        text = before + server.text()
        assert "output folder recorded by the journal of the last update" in text, text
        assert "every file of it compared" not in text, text
        reference = tmp_path / "clean"
        _clean_build(project, reference)
        assert _same_tree(site, reference) == [], text
    finally:
        for server in started:
            server.kill()


def test_a_start_after_a_clean_stop_with_no_edit_has_nothing_to_do(make_project, tmp_path) -> None:
    """The record a stop saves is of the server's last build (the outputs other than the
    pages); it also says the output is current for the pages' build of the same inputs before
    it (uprecord.Record.also), so the next start with nothing edited finds both builds up to
    date and says so (before, it built every page again: fingerprinted and kept, seconds at
    5,000 posts a language, and the other outputs after them)."""
    project = make_project("minimal")
    started: list[Server] = []
    try:
        server = Server(project)
        started.append(server)
        server.wait_for(r"http://127\.0\.0\.1:\d+/")
        server.proc.send_signal(signal.SIGTERM)  # (a clean stop: saves, exits 0)
        assert server.proc.wait(timeout=120) == 0, server.text()
        server = Server(project)
        started.append(server)
        served = server.wait_for(r"http://127\.0\.0\.1:\d+/")
        text = "".join(server.lines[: served + 1])
        assert "nothing to rebuild: the 24 pages are as the last build left them" in text, text
        assert "rebuilt" not in text, text  # (neither the pages nor the other outputs)
        assert "pages not built again before serving: nothing changed" in text, text
        # ... and builds them at its first quiet moment (ServeBuilds.warm_when_quiet), so that
        # the first update looks at what it changed only (before, it checked every page's
        # kept file and paired every entry again: ~2 s at 5,000 posts a language)
        warmed = server.wait_for(r"pages built again at the first quiet moment", served)
        server.wait_for(r"output folder watched", warmed)
        post = project / "content/ko/posts/alpha.md"
        post.write_text(post.read_text(encoding="utf-8") + "\n\n첫 수정\n", encoding="utf-8")
        at = server.wait_for(r"rebuilt \d+ of \d+ pages", warmed + 1)
        update = server.lines[at + 1]
        assert "output folder watched since the last update" in update, server.text()
        assert "1 of 3 entries paired again" in update, server.text()
        server.wait_for(r"feeds, JSON, llms\.txt", at)
        server.kill()
        reference = tmp_path / "clean"
        _clean_build(project, reference)
        assert _same_tree(project / ".bipub-cache" / "serve", reference) == [], text
    finally:
        for server in started:
            server.kill()


@pytest.mark.parametrize("between", ["an edit", "a page changed by hand"])
def test_the_pages_build_is_not_current_after_a_build_that_did_not_start_from_its_output(
    make_project, between: str
) -> None:
    """`ServeBuilds._also` says the output is current for the pages' build too only if the
    build after it saw the same inputs and found the output as recorded: after an edit seen
    by the other outputs' build, or a page changed by hand before it, the next pages' build is
    not up to date (it rebuilds, and the page is a build's again)."""
    from bipub.cache import BuildCache
    from bipub.pipeline import OUTPUT_KINDS, Kept, build
    from bipub.serve import ServeBuilds

    project = make_project("minimal")
    site = project / ".bipub-cache" / "serve"
    later = {kind for kind in OUTPUT_KINDS if kind != "html"}
    builds = ServeBuilds(project, site, Kept(BuildCache()), build, None)
    builds({"html"}, None)
    builds(later, frozenset())
    assert builds({"html"}, None).up_to_date  # (the output is current for both)
    page = site / "ko" / "index.html"
    if between == "an edit":
        post = project / "content" / "ko" / "posts" / "beta.md"
        post.write_text(post.read_text(encoding="utf-8") + "\n\n더\n", encoding="utf-8")
    else:
        page.write_text("changed by hand", encoding="utf-8")
    builds(later, None)  # (the inputs scanned again: the edit seen)
    result = builds({"html"}, None)
    assert not result.up_to_date
    assert page.read_text(encoding="utf-8") != "changed by hand"


def test_after_a_start_with_nothing_to_rebuild_the_pages_are_built_at_a_quiet_moment(
    make_project,
) -> None:
    """A start that finds the output current builds nothing before it serves
    (`ServeBuilds.warm`); the pages' build that makes what updates keep runs at the first
    quiet moment with no save waiting (`warm_when_quiet`: a waiting save's update makes it),
    once."""
    from bipub import buildstate
    from bipub.cache import BuildCache
    from bipub.pipeline import OUTPUT_KINDS, Kept, build
    from bipub.serve import ServeBuilds
    from bipub.serve_save import Saves

    project = make_project("minimal")
    site = project / ".bipub-cache" / "serve"
    kept = Kept(BuildCache())
    first = ServeBuilds(project, site, kept, build, None)
    saves = Saves(Project(project), site, kept)
    first.on_built = saves.built  # (as serve.serve: saved at a quiet moment or the stop)
    first({"html"}, None)
    later = set(OUTPUT_KINDS) - {"html"}  # (the server's second build: serve.Rebuilds)
    first(later, frozenset())
    assert "pages built again before serving" in first.warm()  # (a new folder: every page)
    saves.stop(broken=False)  # (a clean stop)

    kept = Kept(BuildCache.load(Project(project).cache), buildstate.load(Project(project), site))
    builds = ServeBuilds(project, site, kept, build, None)  # (the next start, as serve's)
    started = builds({"html"}, None)
    assert started.up_to_date, started.cache_note
    assert builds(later, frozenset()).up_to_date
    assert "pages not built again before serving" in builds.warm()
    assert not kept.keep.out
    assert builds.warm_when_quiet(lambda: True) == ""  # (a save waits: its update makes it)
    assert not kept.keep.out
    said = builds.warm_when_quiet(lambda: False)
    assert "pages built again at the first quiet moment" in said, said
    assert kept.keep.out
    assert builds.warm_when_quiet(lambda: False) == ""  # (once)


def test_the_cycles_updates_leave_are_collected_at_a_quiet_moment(make_project) -> None:
    """Each build leaves objects in reference cycles (its Jinja environments), which the next
    build froze with the server's state (pipeline._few_collections): a server's memory grew
    with every update. `Sweeps` collects them at a quiet moment every `every` builds (failed
    ones count), never while a save is waiting; between two sweeps the count of objects comes
    back to where the last one left it."""
    import gc

    from bipub.cache import BuildCache
    from bipub.diagnostics import DiagnosticError
    from bipub.pipeline import Kept, build
    from bipub.serve import ServeBuilds
    from bipub.serve_save import Sweeps

    project = make_project("minimal")
    site = project / ".bipub-cache" / "serve"
    builds = ServeBuilds(project, site, Kept(BuildCache()), build, None)
    sweeps = Sweeps(lambda: builds.builds, every=4)
    post = project / "content" / "ko" / "posts" / "beta.md"
    text = post.read_text(encoding="utf-8")
    edits = iter(range(1000))

    def update() -> None:
        post.write_text(f"{text}\n\n편집 {next(edits)}\n", encoding="utf-8")
        assert not builds({"html"}, None).up_to_date

    builds({"html"}, None)
    assert sweeps.idle(lambda: False) == ""  # (one build: not yet)
    for _ in range(3):
        update()
    assert sweeps.idle(lambda: True) == ""  # (a save is waiting: not now)
    said = sweeps.idle(lambda: False)
    assert "objects left in reference cycles by the last 4 builds collected" in said, said
    after = len(gc.get_objects())
    counts = []
    for _ in range(3):
        for _ in range(4):
            update()
        counts.append(len(gc.get_objects()))  # (the cycles of the last 4 builds held)
        assert sweeps.idle(lambda: False)
        counts.append(len(gc.get_objects()))
    assert sweeps.sweeps == 4
    # without a sweep, each build left ~600 objects more (measured: 4 builds, +2,550); each
    # round is compared with where the sweep before it left the count (a sweep may also free
    # what earlier tests of the same process left: the count can fall below `after`)
    bases = [after, *counts[1::2]]
    for base, held, swept in zip(bases, counts[0::2], counts[1::2], strict=False):
        assert held > base + 1_500, (after, counts)
        assert swept < base + 500, (after, counts)
    post.write_text("---\ntitle: [\n---\n", encoding="utf-8")  # (a build that fails counts)
    for _ in range(4):
        with pytest.raises(DiagnosticError):
            builds({"html"}, None)
    assert "by the last 4 builds" in sweeps.idle(lambda: False)
