"""A resident build (`bipub serve`) keeps most pages of an update by what changed since its
last update only (render/kept_pages.py KeepMemo): the pages it keeps that way must be the
ones a full check keeps, so the site stays byte-identical to a clean build, and a build that
stops while it keeps pages leaves nothing half-updated for the next one."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from bipub import buildstate
from bipub.cache import BuildCache
from bipub.pipeline import Kept, build
from bipub.render import kept_pages
from bipub.write.output import OutputTree
from tests.conftest import PROJECTS, tree_snapshot

KINDS = {"html"}
POST = """---
title: 새 글 {n}
date: 2026-0{n}-15
tags: [move]
---

## 소개

이웃이 바뀝니다 {n}.
"""


def _clean(project: Path, tmp: Path) -> dict[str, bytes]:
    out = tmp / "clean"
    shutil.rmtree(out, ignore_errors=True)
    build(project, out, use_cache=False, only=KINDS)
    return tree_snapshot(out)


def _same_as_clean(project: Path, tmp: Path) -> None:
    got, want = tree_snapshot(project / "site"), _clean(project, tmp)
    assert sorted(got) == sorted(want)
    assert [p for p in want if got[p] != want[p]] == []


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", project)
    return project


def test_pages_whose_neighbour_moved_are_not_kept_stale(project: Path, tmp_path: Path) -> None:
    kept = Kept(BuildCache())
    posts = project / "content/ko/posts"
    beta = posts / "beta.md"
    build(project, only=KINDS, kept=kept)
    quick = 0
    for n in range(1, 5):  # a body edited, then a post added between others (its neighbours'
        beta.write_text(beta.read_text(encoding="utf-8") + f"\n더 씁니다 {n}.\n", "utf-8")
        build(project, only=KINDS, kept=kept)  # links and the listings move), and so on
        quick += "checked for their kept file" in kept.keep.note
        _same_as_clean(project, tmp_path)
        (posts / f"new-{n}.md").write_text(POST.format(n=n), encoding="utf-8")
        result = build(project, only=KINDS, kept=kept)
        assert result.reused > 0, "no page kept: the test shows nothing"
        quick += "checked for their kept file" in kept.keep.note
        _same_as_clean(project, tmp_path)
        # a title: the listings showing it are planned as they were (the same PageSpec),
        # their fingerprint is no longer known (buildstate.carry)
        beta.write_text(
            beta.read_text(encoding="utf-8").replace("\ntitle: ", f"\ntitle: ({n}) ", 1), "utf-8"
        )
        build(project, only=KINDS, kept=kept)
        quick += "checked for their kept file" in kept.keep.note
        _same_as_clean(project, tmp_path)
    (posts / "new-2.md").unlink()  # (a post removed: its neighbours move back)
    result = build(project, only=KINDS, kept=kept)
    assert kept.keep.note in result.cache_note  # (said with -v)
    quick += "checked for their kept file" in kept.keep.note
    _same_as_clean(project, tmp_path)
    assert quick >= 9, "the memo was hardly used: the test shows nothing"


def test_a_build_stopped_while_keeping_pages_leaves_the_memo_empty(
    project: Path, tmp_path: Path
) -> None:
    kept = Kept(BuildCache())
    beta = project / "content/ko/posts/beta.md"
    for n in range(3):
        beta.write_text(beta.read_text(encoding="utf-8") + f"\n더 씁니다 {n}.\n", "utf-8")
        build(project, only=KINDS, kept=kept)
    assert kept.keep.out, "nothing remembered: the test shows nothing"
    (project / "content/ko/posts/new-1.md").write_text(POST.format(n=1), encoding="utf-8")
    with (
        mock.patch.object(OutputTree, "record_kept_all", side_effect=KeyboardInterrupt),
        pytest.raises(KeyboardInterrupt),
    ):
        build(project, only=KINDS, kept=kept)
    assert not kept.keep.out and not kept.keep.kept.pages
    build(project, only=KINDS, kept=kept)
    assert "every page's kept file checked (the last build stopped" in kept.keep.note
    _same_as_clean(project, tmp_path)


def test_a_build_in_a_new_process_keeps_no_memo(project: Path, tmp_path: Path) -> None:
    """`bipub build` (the state read back from .bipub-cache/) checks every page, as before:
    nothing of it lives on to be used again."""
    build(project, only=KINDS)
    beta = project / "content/ko/posts/beta.md"
    beta.write_text(beta.read_text(encoding="utf-8") + "\n더 씁니다.\n", "utf-8")
    with mock.patch.object(kept_pages, "_remember") as remember:
        build(project, only=KINDS)
    remember.assert_not_called()
    _same_as_clean(project, tmp_path)


def test_a_page_kept_last_time_whose_known_fingerprint_changed_is_checked_again(
    project: Path,
) -> None:
    """The same page (the same PageSpec, its file unchanged) with another known fingerprint
    (buildstate.carry's): not kept as the memo kept it, but decided again (here: rendered,
    with that fingerprint)."""
    kept = Kept(BuildCache())
    beta = project / "content/ko/posts/beta.md"
    real = buildstate.carry
    moved: list[str] = []

    def carry(previous: Any, renderer: Any, plan: Any, *args: Any) -> str:
        note = real(previous, renderer, plan, *args)
        if kept.keep.out:  # (the memo is used: a page it kept gets another fingerprint)
            path = next(
                p for p in sorted(renderer.known) if plan.paths[p].file in kept.keep.kept.pages
            )
            renderer.known[path] = "another"
            moved.append(plan.paths[path].file)
        return note

    for n in range(4):
        beta.write_text(beta.read_text(encoding="utf-8") + f"\n더 씁니다 {n}.\n", "utf-8")
        with mock.patch.object(buildstate, "carry", carry):
            build(project, only=KINDS, kept=kept)
    assert moved, "the memo was not used: the test shows nothing"
    assert kept.state is not None
    assert kept.state.fingerprints[moved[-1]] == "another"


def test_a_page_kept_last_time_whose_published_fingerprint_changed_is_checked_again(
    project: Path,
) -> None:
    """The same page whose published file's recorded fingerprint (the build cache's) is not
    its known one: not kept as the memo kept it, but rendered again."""
    kept = Kept(BuildCache())
    beta = project / "content/ko/posts/beta.md"
    moved = ""
    for n in range(4):
        beta.write_text(beta.read_text(encoding="utf-8") + f"\n더 씁니다 {n}.\n", "utf-8")
        if kept.keep.out:
            pages = kept.cache.pages[kept.keep.out]
            moved = sorted(kept.keep.kept.pages)[0]
            pages[moved] = ("other", pages[moved][1])
        build(project, only=KINDS, kept=kept)
    assert moved, "the memo was not used: the test shows nothing"
    assert kept.cache.pages[kept.keep.out][moved][0] != "other"
