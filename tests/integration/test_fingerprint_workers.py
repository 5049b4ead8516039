"""A full build of a big site fingerprints its pages (and keeps the unchanged ones) in forked
workers while it makes the other outputs (render/workers.py). Forced here on the demo: the
result must be what the same build does in one process, and what a clean build makes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from bipub import buildstate
from bipub.cache import BuildCache
from bipub.pipeline import BuildResult, build
from bipub.project import Project
from bipub.render import workers
from tests.conftest import copy_demo, tree_snapshot

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


def _forced(monkeypatch: pytest.MonkeyPatch, calls: list[int]) -> None:
    """Pages fingerprinted in workers on any site (the demo is small), the fork allowed, and
    every call of `fork_map` counted (its number of workers, into `calls`)."""
    real = workers.fork_map

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(args[3])  # the number of workers
        return real(*args, **kwargs)

    monkeypatch.setattr(workers, "MIN_PAGES_FOR_WORKERS", 0)
    monkeypatch.setattr(workers, "DECIDE_CHUNK", 3)
    monkeypatch.setattr(workers, "can_fork", lambda: True)
    monkeypatch.setattr(workers, "fork_map", spy)


@dataclass
class Here:
    """The demo built twice in one process (BIPUB_WORKERS=1): the second build, the page
    fingerprints and card keys it kept, its site; and a clean build of the same inputs."""

    second: BuildResult
    fingerprints: dict[str, str]
    card_keys: dict[tuple[str, str, str], str]
    site: dict[str, bytes]
    clean: dict[str, bytes]
    clean_result: BuildResult


@pytest.fixture(scope="module")
def here(tmp_path_factory: pytest.TempPathFactory) -> Here:
    """(Shared by both tests below: it does not depend on their number of cores.)"""
    root = tmp_path_factory.mktemp("here")
    project = copy_demo(root / "demo")
    calls: list[int] = []
    with pytest.MonkeyPatch.context() as monkeypatch:
        _forced(monkeypatch, calls)
        monkeypatch.setenv("BIPUB_WORKERS", "1")
        build(project, only=KINDS)
        _edit_tags(project, "extra-tag")
        second = build(project, only=KINDS)
        kept = (_fingerprints(project), _card_keys(project), tree_snapshot(project / "site"))
        clean = build(project, root / "clean", only=KINDS, use_cache=False)
    assert calls == [], "one process forked workers"
    return Here(second, *kept, tree_snapshot(root / "clean"), clean)


@pytest.mark.parametrize("cores", ["2", "3"])
def test_fingerprints_in_workers_equal_those_made_here(
    here: Here, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, cores: str
) -> None:
    there = copy_demo(tmp_path / "there")
    calls: list[int] = []
    _forced(monkeypatch, calls)
    monkeypatch.setenv("BIPUB_WORKERS", cores)
    build(there, only=KINDS)
    _edit_tags(there, "extra-tag")
    many = build(there, only=KINDS)
    # in both builds of `there` (the first has an empty cache: every page fingerprinted, none
    # kept), by all cores but the one making the other outputs
    assert calls == [int(cores) - 1] * 2, "the pages were not fingerprinted by workers"
    one = here.second
    assert many.reused > 0
    assert (many.pages, many.files, many.changed, many.reused) == (
        one.pages,
        one.files,
        one.changed,
        one.reused,
    )
    assert _warnings(many) == _warnings(one)
    assert _fingerprints(there) == here.fingerprints
    # the card keys the workers made are kept for the next build, as those made here are
    assert _card_keys(there) == here.card_keys
    assert tree_snapshot(there / "site") == here.site
    # (a clean build of the same inputs, made once for both: `here`)
    assert tree_snapshot(there / "site") == here.clean
    assert _warnings(here.clean_result) == _warnings(many)


@pytest.mark.parametrize(("unknown", "forked"), [(1_800, False), (24_000, True)])
def test_workers_fingerprint_only_many_pages(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, unknown: int, forked: bool
) -> None:
    """A new, deleted or draft post at 5,000 posts a language leaves ~1,800 pages to
    fingerprint (~30 ms here): fingerprinted in this process, not by a pool of workers forked
    for them (~0.1 s more CPU). A build without its state (24,000 pages, ~1 s) still forks
    them. (The demo's number of pages to fingerprint is made those.)"""
    project = copy_demo(tmp_path / "demo")
    build(project, only=KINDS)
    _edit_tags(project, "extra-tag")
    calls: list[int] = []
    real_unknown, real_fork_map = workers._unknown, workers.fork_map

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(args[3])
        return real_fork_map(*args, **kwargs)

    def many(*args, **kwargs):  # type: ignore[no-untyped-def]
        return unknown if real_unknown(*args, **kwargs) else 0

    monkeypatch.setattr(workers, "_unknown", many)
    monkeypatch.setattr(workers, "can_fork", lambda: True)
    monkeypatch.setattr(workers, "fork_map", spy)
    monkeypatch.setenv("BIPUB_WORKERS", "2")
    result = build(project, only=KINDS)
    assert calls == ([1] if forked else [])
    assert result.changed > 0
    clean = build(project, tmp_path / "clean", only=KINDS, use_cache=False)
    assert tree_snapshot(project / "site") == tree_snapshot(tmp_path / "clean")
    assert _warnings(result) == _warnings(clean)
