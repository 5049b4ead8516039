"""Pairing and planning run with Python's cyclic garbage collector off and what they make is
frozen until the build ends (pipeline.py, cache.py `kept_to_the_end`): that is only right
while they make no reference cycles (a cycle made then would be garbage nobody collects until
the build ends). These check both, in a build without a cache, a first build and an update
that reads the last build's state back, of a project with posts, pages, tags, a series and a
CV."""

from __future__ import annotations

import gc
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bipub import pipeline
from tests.conftest import PROJECTS

KINDS = {"html", "json", "feeds", "llms"}
STAGES = ("pair", "plan", "html_pages")
MARKDOWN_IT = 10


def _watch(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool, int]]:
    """Each stage's name, whether the collector was on while it ran, and how many objects
    it left in reference cycles (collected right after it: the collector's own count)."""
    seen: list[tuple[str, bool, int]] = []

    def watched(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def stage(*args: Any, **kwargs: Any) -> Any:
            gc.collect()  # (what the stages before it left)
            on = gc.isenabled()
            result = real(*args, **kwargs)
            seen.append((name, on, gc.collect()))
            return result

        return stage

    for name in STAGES:
        monkeypatch.setattr(pipeline, name, watched(name, getattr(pipeline, name)))
    return seen


@pytest.mark.parametrize("use_cache", [True, False])
def test_pairing_and_planning_make_no_reference_cycles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, use_cache: bool
) -> None:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    seen = _watch(monkeypatch)
    pipeline.build(root, only=KINDS, use_cache=use_cache)
    if use_cache:  # an update, with the state read back
        post = root / "content/ko/posts/alpha.md"
        post.write_text(post.read_text(encoding="utf-8") + "\n한 문단 더.\n", encoding="utf-8")
        pipeline.build(root, only=KINDS)
    assert [name for name, _, _ in seen] == list(STAGES) * (2 if use_cache else 1)
    assert not any(on for _, on, _ in seen)
    # none, but for the few objects of markdown-it's parser made once per build without a
    # cache (its FreezableDefaultDicts hold a lambda that holds them: 10 objects): nothing
    # that grows with the site (a cycle per entry or page would be hundreds here)
    assert [(name, cycles <= MARKDOWN_IT) for name, _, cycles in seen] == [
        (name, True) for name, _, _ in seen
    ]
    if use_cache:
        assert all(cycles == 0 for _, _, cycles in seen)
    assert gc.isenabled() and gc.get_freeze_count() == 0  # (thawed when the build ended)
