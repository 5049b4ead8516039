"""A warm build with nothing changed does nothing — and notices every change that matters.

bipub records what the last build read and wrote (src/bipub/uptodate.py). These tests change
one thing at a time (an input's bytes, only its date, an output file, an extra file in the
output, the options, --strict) and check that exactly the unchanged case skips the build.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from bipub import uptodate
from bipub.diagnostics import DiagnosticError
from bipub.pipeline import build
from bipub.project import Project
from tests.conftest import tree_snapshot

KINDS = {"html", "json", "feeds", "llms"}


def _mtimes(root: Path) -> dict[str, int]:
    return {p.relative_to(root).as_posix(): p.stat().st_mtime_ns for p in root.rglob("*")}


@pytest.fixture
def built(make_project) -> Path:  # type: ignore[no-untyped-def]
    project: Path = make_project("minimal")
    first = build(project, only=KINDS)
    assert not first.up_to_date
    return project


def test_second_build_is_up_to_date_and_touches_nothing(built: Path) -> None:
    before = _mtimes(built / "site")
    again = build(built, only=KINDS)
    assert again.up_to_date
    assert again.changed == 0
    assert again.files == len([p for p in (built / "site").rglob("*") if p.is_file()])
    assert _mtimes(built / "site") == before


def test_edited_post_is_rebuilt(built: Path) -> None:
    post = built / "content" / "ko" / "posts" / "alpha.md"
    post.write_text(post.read_text(encoding="utf-8") + "\n새 문단.\n", encoding="utf-8")
    result = build(built, only=KINDS)
    assert not result.up_to_date
    assert result.changed > 0
    assert "새 문단." in (built / "site" / "ko" / "blog" / "alpha" / "index.html").read_text()


def test_touched_input_runs_the_build_but_changes_nothing(built: Path) -> None:
    post = built / "content" / "ko" / "posts" / "alpha.md"
    st = post.stat()
    os.utime(post, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    result = build(built, only=KINDS)
    assert not result.up_to_date
    assert result.changed == 0


def test_new_input_file_is_noticed(built: Path) -> None:
    (built / "static").mkdir()
    (built / "static" / "extra.txt").write_text("hello\n", encoding="utf-8")
    result = build(built, only=KINDS)
    assert not result.up_to_date
    assert (built / "site" / "extra.txt").read_text() == "hello\n"


def test_project_template_is_an_input(built: Path) -> None:
    (built / "templates").mkdir()
    (built / "templates" / "post.html").write_text(
        '{% extends "base.html" %}{% block content %}<p>MARK</p>{% endblock %}\n',
        encoding="utf-8",
    )
    assert not build(built, only=KINDS).up_to_date
    assert "MARK" in (built / "site" / "ko" / "blog" / "alpha" / "index.html").read_text()


@pytest.mark.parametrize("damage", ["delete", "overwrite", "extra-file", "extra-folder"])
def test_damaged_output_is_repaired(built: Path, damage: str) -> None:
    site = built / "site"
    expected = tree_snapshot(site)
    page = site / "ko" / "blog" / "alpha" / "index.html"
    if damage == "delete":
        page.unlink()
    elif damage == "overwrite":
        page.write_text("vandalized", encoding="utf-8")
    elif damage == "extra-file":
        (site / "ko" / "blog" / "planted.html").write_text("x", encoding="utf-8")
    else:
        (site / "ko" / "planted").mkdir()
    result = build(built, only=KINDS)
    assert not result.up_to_date
    assert tree_snapshot(site) == expected
    assert not (site / "ko" / "planted").exists()


def test_other_options_do_not_use_the_record(built: Path) -> None:
    assert not build(built, only={"html"}).up_to_date  # another set of output kinds
    assert not build(built, langs=["ko"], only=KINDS).up_to_date  # one language
    assert build(built, langs=["ko"], only=KINDS).up_to_date  # ... which has its own record
    assert not build(built, only=KINDS, use_cache=False).up_to_date  # --no-cache: always builds


def test_other_output_folder_is_built(built: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    assert not build(built, other, only=KINDS).up_to_date
    assert (other / "ko" / "index.html").is_file()


def test_warnings_are_repeated_and_strict_still_fails(make_project) -> None:  # type: ignore[no-untyped-def]
    project: Path = make_project("demo")
    first = build(project, only={"html"})
    assert first.warnings, "the demo has untranslated content: the build warns"
    again = build(project, only={"html"})
    assert again.up_to_date
    assert again.warnings == first.warnings
    with pytest.raises(DiagnosticError) as caught:
        build(project, only={"html"}, strict=True)
    assert any("(--strict)" in d.message for d in caught.value.diagnostics)


def test_unreadable_record_is_ignored(built: Path) -> None:
    records = list((built / ".bipub-cache").glob("uptodate-*.pickle"))
    assert records
    for record in records:
        record.write_bytes(b"\0" * 32 + b"not a pickle")
    assert not build(built, only=KINDS).up_to_date
    assert build(built, only=KINDS).up_to_date


def _prescan(project: Path) -> uptodate.Prescan:
    target, key = uptodate.build_key(Project(project), None, None, KINDS)
    return uptodate.Prescan(project, target, key)


def _in_process(project: Path) -> tuple[uptodate.Scan, bool]:
    """What the prescan's child must answer, computed here."""
    target, _ = uptodate.build_key(Project(project), None, None, KINDS)
    scan = uptodate.Scan(
        uptodate.scan_inputs(Project(project)), uptodate.load(Project(project), target)
    )
    assert scan.record is not None
    return scan, uptodate.output_intact(target, scan.record)


@pytest.fixture
def forking(monkeypatch: pytest.MonkeyPatch) -> None:
    """The prescan forks even if another test left a thread running (a fake server)."""
    monkeypatch.setattr(uptodate, "can_fork", lambda: True)


@pytest.mark.parametrize("damage", ["none", "output", "input"])
def test_prescan_child_answers_as_the_process_would(
    built: Path, damage: str, forking: None
) -> None:
    """The forked child's scan, record and output check equal the same calls made here."""
    if damage == "output":
        (built / "site" / "ko" / "index.html").write_text("by hand", encoding="utf-8")
    elif damage == "input":
        post = built / "content" / "ko" / "posts" / "alpha.md"
        post.write_text(post.read_text(encoding="utf-8") + "\n더.\n", encoding="utf-8")
    expected, intact = _in_process(built)
    with _prescan(built) as prescan:
        assert prescan._pid  # a child was forked
        assert prescan.scan() == expected
        assert prescan.intact() is intact is (damage != "output")
        assert (prescan.unchanged() is not None) is (damage == "none")
        pid = prescan._pid
    assert pid == 0  # intact() reaped it


def test_prescan_without_a_child_answers_here(built: Path) -> None:
    """With other threads running (`bipub serve`), nothing is forked: the same answers."""
    expected, intact = _in_process(built)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        with _prescan(built) as prescan:
            assert prescan._pid == 0
            assert prescan.scan() == expected and prescan.intact() is intact is True
    finally:
        stop.set()
        other.join()


def test_prescan_child_that_dies_is_replaced_by_the_process(
    built: Path, monkeypatch: pytest.MonkeyPatch, forking: None
) -> None:
    """A child that gives no answer (killed, or failing) costs only time: the scan and the
    output check run here, and an error they raise reaches the build."""
    expected, intact = _in_process(built)

    def dies(self: uptodate.Prescan, *args: object) -> None:
        raise RuntimeError("the child fails")

    monkeypatch.setattr(uptodate.Prescan, "_child", dies)
    with _prescan(built) as prescan:
        assert prescan._pid
        assert prescan.scan() == expected
        assert prescan.intact() is intact is True
        assert prescan.note == "inputs scanned in-process (the prescan gave no answer)"
    with _prescan(built) as prescan:  # and the build says so (`-v`)
        result = build(built, only=KINDS, prescan=prescan)
    assert result.up_to_date and "the prescan gave no answer" in result.cache_note

    def unreadable(project: Project) -> dict[str, bytes]:
        raise PermissionError("content/ko: permission denied")

    with _prescan(built) as prescan:  # the child dies; the scan here raises, as a build would
        monkeypatch.setattr(uptodate, "scan_inputs", unreadable)
        with pytest.raises(PermissionError, match="content/ko"):
            prescan.scan()


def test_prescan_ends_its_child(built: Path, forking: None) -> None:
    """Leaving the prescan kills a child still checking the output, and reaps it."""
    with _prescan(built) as prescan:
        pid = prescan._pid
        assert pid
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def test_prescan_for_other_options_is_refused(built: Path) -> None:
    with _prescan(built) as prescan, pytest.raises(ValueError, match="other options"):
        build(built, prescan=prescan)  # (its options are KINDS; these are all kinds)
    with _prescan(built) as prescan:
        assert build(built, only=KINDS, prescan=prescan).up_to_date


def test_prescan_that_cannot_start_says_so(
    built: Path, monkeypatch: pytest.MonkeyPatch, forking: None
) -> None:
    """No temporary file (a full /tmp) or no process: the scan runs here, and `-v` says why."""

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(uptodate.tempfile, "TemporaryFile", full)
    expected, _ = _in_process(built)
    with _prescan(built) as prescan:
        assert prescan._pid == 0 and "No space left on device" in prescan.note
        assert prescan.scan() == expected
        result = build(built, only=KINDS, prescan=prescan)
    assert result.up_to_date
    assert "could not start the prescan: [Errno 28] No space left" in result.cache_note


def test_a_resident_record_stays_in_memory_and_a_stale_file_is_not_trusted(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`bipub serve` keeps the up-to-date record in memory (pipeline.Kept.records): its
    builds neither read nor write the file, which then describes an older output; a `bipub
    build` meanwhile finds the output changed and builds (never "nothing changed"), and the
    record saved when the server stops makes the next build up to date."""
    from bipub.cache import BuildCache
    from bipub.pipeline import Kept

    project = Project(built)
    target, _ = uptodate.build_key(project, None, None, KINDS)
    (record_file,) = (built / ".bipub-cache").glob("uptodate-*.pickle")
    stale = record_file.read_bytes()
    kept = Kept(BuildCache.load(project.cache))
    post = built / "content" / "ko" / "posts" / "alpha.md"
    post.write_text(post.read_text(encoding="utf-8") + "\n더.\n", encoding="utf-8")
    assert not build(built, only=KINDS, kept=kept).up_to_date  # (read from the file: first)
    assert kept.records[target] is not None
    loads: list[Path] = []
    real_load = uptodate.load_noted
    monkeypatch.setattr(
        uptodate, "load_noted", lambda p, out: loads.append(out) or real_load(p, out)
    )
    assert build(built, only=KINDS, kept=kept).up_to_date  # from memory
    post.write_text(post.read_text(encoding="utf-8") + "\n또.\n", encoding="utf-8")
    result = build(built, only=KINDS, kept=kept)
    assert not result.up_to_date and "checked in full" not in result.cache_note
    assert loads == [] and record_file.read_bytes() == stale
    # a build meanwhile reads the stale file: not up to date, and the site is right
    other = build(built, only=KINDS)
    assert not other.up_to_date
    assert tree_snapshot(built / "site") == _clean(built, tmp_path)
    kept.records[target] = uptodate.load(project, target)  # (as the server would go on)
    kept.save_records(project)
    assert build(built, only=KINDS).up_to_date


def _clean(root: Path, tmp_path: Path) -> dict[str, bytes]:
    build(root, tmp_path / "clean", use_cache=False, only=KINDS)
    return tree_snapshot(tmp_path / "clean")


PRESCAN_FORK = """
import sys
from bipub import uptodate
real = uptodate.Prescan.__init__
def init(self, *args, **kwargs):
    print("fork", kwargs.get("fork", True), file=sys.stderr)
    real(self, *args, **kwargs)
uptodate.Prescan.__init__ = init
if sys.argv.pop(1) == "imported":
    import bipub.pipeline
from bipub.cli import main
main()
"""


@pytest.mark.parametrize("stages", ["fresh", "imported"])
def test_the_command_forks_its_prescan_only_while_it_has_the_stages_to_import(
    built: Path, stages: str
) -> None:
    """`bipub build` forks the prescan to scan while it imports the build's stages; a process
    that imported them already (a script, the tests calling `main`) scans itself (forking
    copies its address space) — and builds the same."""
    import subprocess
    import sys

    from tests.conftest import subprocess_env

    (built / "content/ko/posts/alpha.md").touch()  # (not up to date: the build runs)
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            PRESCAN_FORK,
            stages,
            "-C",
            str(built),
            "-q",
            "build",
            "--only",
            "html",
        ],
        env=subprocess_env(SOURCE_DATE_EPOCH="1798761600"),
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert f"fork {stages == 'fresh'}" in run.stderr.splitlines(), run.stderr
