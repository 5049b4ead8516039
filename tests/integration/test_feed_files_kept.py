"""A feed whose posts' entry keys did not change is kept as published (render/outputs.py
Feeds, `_published`): the build state keeps the hashes of its two files' bytes, not their
texts (tens of MB on a big site, read back by every build), and the output's record says
whether the published files are those bytes; a feed file changed by hand is made again."""

from __future__ import annotations

from pathlib import Path

import pytest

from bipub import buildstate
from bipub.pipeline import build
from bipub.project import Project
from tests.conftest import clean_snapshot, feeds_made, replace_in, tree_snapshot

KINDS = {"html", "json", "feeds", "llms"}


def test_kept_feeds_are_the_published_files_and_the_state_keeps_no_feed_text(
    make_project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root: Path = make_project("minimal")
    build(root, only=KINDS)
    replace_in(root, "content/ko/posts/beta.md", "title: 베타 글", "title: 고친 베타")
    made = feeds_made(monkeypatch)
    build(root, only=KINDS)
    every = [p for p in tree_snapshot(root / "site") if p.endswith("feed.xml")]
    assert made and len(made) < len(every)  # (the feeds that show beta only)
    assert tree_snapshot(root / "site") == clean_snapshot(root, tmp_path, KINDS)
    state = buildstate.load(Project(root), (root / "site").absolute())
    assert state is not None
    texts = [
        part
        for part in state.parts.earlier.values()
        if isinstance(part, tuple) and any(b"<feed" in p for p in part if isinstance(p, bytes))
    ]
    assert texts == []


def test_a_feed_file_changed_by_hand_is_made_again(
    make_project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root: Path = make_project("minimal")
    build(root, only=KINDS)
    replace_in(root, "content/ko/posts/beta.md", "title: 베타 글", "title: 고친 베타")
    build(root, only=KINDS)
    feed = root / "site" / "ko" / "tags" / "vllm" / "feed.xml"
    feed.write_text("by hand", encoding="utf-8")
    replace_in(root, "content/ko/posts/beta.md", "title: 고친 베타", "title: 또 고친 베타")
    made = feeds_made(monkeypatch)
    build(root, only=KINDS)
    assert "/ko/tags/vllm/feed.xml" in made
    assert tree_snapshot(root / "site") == clean_snapshot(root, tmp_path, KINDS)
