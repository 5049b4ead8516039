"""After each of a run of edits — a body in the middle of the posts, the oldest post (the end of
llms-full.txt, which the file's strip reaches), a post added, one removed, one re-dated —, an
update's aggregate outputs (posts.json, status.json, the feeds, the sitemap, llms.txt,
llms-full.txt written as pieces of the published one: render/llms_full.py `join`) are byte for
byte a clean build's: none stale, none spliced wrong."""

from __future__ import annotations

from pathlib import Path

from bipub.pipeline import build
from tests.conftest import PAGES_AND_AGGREGATES, built_copy, tree_snapshot

KINDS = PAGES_AND_AGGREGATES
POST = """---
title: 글 {n}
description: 설명 {n}
date: 2026-03-{day:02d}
tags: [t{n}]
---

## 제목 {n}

본문 {n}. [링크](other.md) 끝.{end}
"""


def _post(root: Path, n: int, day: int, end: str = "") -> Path:
    path = root / f"content/ko/posts/p{n}.md"
    path.write_text(POST.format(n=n, day=day, end=end), encoding="utf-8")
    return path


def _same_as_clean(root: Path, tmp_path: Path, step: str) -> None:
    result = build(root, only=KINDS)
    assert "texts made again" not in result.cache_note, (step, result.cache_note)
    clean = tmp_path / f"clean-{step}"
    build(root, clean, use_cache=False, only=KINDS)
    assert tree_snapshot(root / "site") == tree_snapshot(clean), step


def test_every_aggregate_after_each_edit_is_a_clean_builds(tmp_path: Path) -> None:
    root = built_copy(tmp_path)
    posts = [_post(root, n, 2 + 2 * n) for n in range(6)]
    build(root, only=KINDS)
    middle = posts[3]
    middle.write_text(middle.read_text(encoding="utf-8") + "\n한 문단 더.\n", encoding="utf-8")
    _same_as_clean(root, tmp_path, "middle")
    _post(root, 0, 2, end="  \u3000\n\n")  # the oldest: its text ends the file (stripped)
    _same_as_clean(root, tmp_path, "oldest")
    _post(root, 9, 7)  # added between two
    _same_as_clean(root, tmp_path, "added")
    posts[4].unlink()
    _same_as_clean(root, tmp_path, "removed")
    _post(root, 1, 28)  # re-dated: the newest now
    _same_as_clean(root, tmp_path, "re-dated")
