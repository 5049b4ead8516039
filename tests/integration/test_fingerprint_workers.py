"""A full build of a big site fingerprints its pages (and keeps the unchanged ones) in forked
workers while it makes the other outputs (render/workers.py). Forced here on the demo: the
result must be what the same build does in one process, and what a clean build makes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bipub import buildstate
from bipub.cache import BuildCache
from bipub.pipeline import build
from bipub.project import Project
from bipub.render import workers
from tests.conftest import tree_snapshot

POST = Path("content/ko/posts/continuous-batching.md")
KINDS = {"html", "json", "feeds", "llms"}  # PDFs have their own tests


def _edit_tags(project: Path, tag: str) -> None:
    """A new tag and a `draft: false` line."""
    path = project / POST
    text = path.read_text(encoding="utf-8")
    assert "  - scheduler\n" in text and "date: 2025-04-03\n" in text
    text = text.replace("  - scheduler\n", f"  - scheduler\n  - {tag}\n", 1)
    path.write_text(text.replace("date: 2025-04-03\n", "date: 2025-04-03\ndraft: false\n"), "utf-8")


def _fingerprints(project: Path) -> dict[str, str]:
    cache = BuildCache.load(project / ".bipub-cache")
    (pages,) = cache.pages.values()
    return {path: fp for path, (fp, _) in pages.items()}


def _card_keys(project: Path) -> dict[tuple[str, str, str], str]:
    state = buildstate.load(Project(project), project / "site")
    assert state is not None
    return state.cards


def _warnings(result) -> list[tuple[str | None, int | None, str]]:  # type: ignore[no-untyped-def]
    return [(d.file, d.line, d.message) for d in result.warnings]


@pytest.mark.parametrize("cores", ["2", "3"])
def test_fingerprints_in_workers_equal_those_made_here(
    make_project, monkeypatch, tmp_path: Path, cores: str
) -> None:  # type: ignore[no-untyped-def]
    here: Path = make_project("demo")
    there = tmp_path / "there"
    shutil.copytree(here, there)
    calls: list[int] = []
    real = workers.fork_map

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(args[3])  # the number of workers
        return real(*args, **kwargs)

    monkeypatch.setattr(workers, "MIN_PAGES_FOR_WORKERS", 0)
    monkeypatch.setattr(workers, "DECIDE_CHUNK", 3)
    monkeypatch.setattr(workers, "can_fork", lambda: True)
    monkeypatch.setattr(workers, "fork_map", spy)
    results = {}
    for project, n in ((here, "1"), (there, cores)):
        monkeypatch.setenv("BIPUB_WORKERS", n)
        build(project, only=KINDS)
        _edit_tags(project, "extra-tag")
        results[n] = build(project, only=KINDS)
    # in both builds of `there` (the first has an empty cache: every page fingerprinted, none
    # kept), by all cores but the one making the other outputs
    assert calls == [int(cores) - 1] * 2, "the pages were not fingerprinted by workers"
    one, many = results["1"], results[cores]
    assert many.reused > 0
    assert (many.pages, many.files, many.changed, many.reused) == (
        one.pages,
        one.files,
        one.changed,
        one.reused,
    )
    assert _warnings(many) == _warnings(one)
    assert _fingerprints(there) == _fingerprints(here)
    # the card keys the workers made are kept for the next build, as those made here are
    assert _card_keys(there) == _card_keys(here)
    assert tree_snapshot(there / "site") == tree_snapshot(here / "site")
    monkeypatch.setenv("BIPUB_WORKERS", "1")
    clean = build(there, tmp_path / "clean", only=KINDS, use_cache=False)
    assert tree_snapshot(there / "site") == tree_snapshot(tmp_path / "clean")
    assert _warnings(clean) == _warnings(many)
