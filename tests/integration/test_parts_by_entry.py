"""An update finds the aggregates' parts of the entries whose key did not change by that key
(render/parts.py Parts.each, Parts.feed_mark): it reads the values of the changed entries
only and makes again only the feeds that show them. Byte equality with a clean build is
test_kept_parts.py's and test_incremental.py's job; these pin that the skip happens, and
only where it may."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bipub.cache import BuildCache
from bipub.pair.model import Entry
from bipub.pipeline import Kept, build
from bipub.render import feeds, parts
from tests.conftest import PROJECTS, tree_snapshot

KINDS = {"html", "json", "feeds", "llms"}


@pytest.fixture(params=["build", "serve"])
def kept(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, Kept | None]:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    memory = Kept(BuildCache()) if request.param == "serve" else None
    build(root, only=KINDS, kept=memory)
    return root, memory


def _edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_an_update_reads_the_values_of_the_changed_entry_only(
    kept: tuple[Path, Kept | None], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root, memory = kept
    read: list[str] = []
    real = parts.version_key

    def version_key(entry: Entry, lang: str) -> tuple[object, ...]:
        read.append(entry.key)
        return real(entry, lang)

    monkeypatch.setattr(parts, "version_key", version_key)
    _edit(root, "content/ko/posts/alpha.md", "title: 알파 글", "title: 고친 알파")
    build(root, only=KINDS, kept=memory)
    assert set(read) == {"alpha"}, read
    build(root, tmp_path / "clean", use_cache=False, only=KINDS)
    assert tree_snapshot(root / "site") == tree_snapshot(tmp_path / "clean")


def test_an_update_makes_again_only_the_feeds_that_show_a_changed_post(
    kept: tuple[Path, Kept | None], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root, memory = kept
    made: list[str] = []
    real = feeds.feed_of

    def feed_of(*args: object) -> feeds.FeedParts:
        found = real(*args)  # type: ignore[arg-type]
        made.append(found.path)
        return found

    monkeypatch.setattr(feeds, "feed_of", feed_of)
    build(root, only=KINDS, kept=memory)  # nothing changed: every feed kept
    assert made == []
    _edit(root, "content/ko/posts/beta.md", "title: 베타 글", "title: 고친 베타")
    build(root, only=KINDS, kept=memory)
    shown = {
        path
        for path in made
        if "/blog/beta/" in (root / "site" / path.lstrip("/")).read_text(encoding="utf-8")
    }
    assert made and set(made) == shown, made  # each feed made shows beta
    every = [p for p in tree_snapshot(root / "site") if p.endswith("feed.xml")]
    assert len(made) < len(every)
    build(root, tmp_path / "clean", use_cache=False, only=KINDS)
    assert tree_snapshot(root / "site") == tree_snapshot(tmp_path / "clean")
