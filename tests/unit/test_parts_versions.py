"""render/outputs.py Parts.version: a post version's digest is worked out once per build and,
in `bipub serve`, taken from the last build only for the very entry object it was worked out
from (pairing keeps an unchanged entry's object): an entry paired again, with the same key and
another text, gets the digest of its own values — never the one kept for its key."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bipub import pipeline
from bipub.diagnostics import Collector
from bipub.pair.model import Entry
from bipub.project import Project
from bipub.render import parts as outputs
from bipub.render.parts import Parts


def _alpha(root: Path) -> Entry:
    project = Project(root)
    collector = Collector()
    config, content = pipeline.load(project, collector)
    site = pipeline.pair(project, config, content, collector)
    [alpha] = [e for e in site.entries if e.key == "alpha"]
    return alpha


def test_a_digest_is_taken_from_the_last_build_only_for_the_same_entry_object(
    make_project: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project("minimal")
    before = _alpha(root)
    first = Parts()
    digest = first.version(before, "ko")
    assert first.version(before, "ko") == digest  # (once per build)
    post = root / "content/ko/posts/alpha.md"
    post.write_text(post.read_text("utf-8").replace("title: 알파 글", "title: 고친 알파"), "utf-8")
    after = _alpha(root)  # paired again: another object, with the same key
    second = first.next().again()
    changed = second.version(after, "ko")
    assert changed != digest
    assert changed == Parts().version(after, "ko")  # its own values' digest
    assert second.version(after, "en") == Parts().version(after, "en")
    # the very object of the last build: its digest as it was, the entry not read again
    third = first.next().again()
    monkeypatch.setattr(outputs, "version_key", lambda *_: pytest.fail("read again"))
    assert third.version(before, "ko") == digest


def test_each_list_of_entries_finds_the_parts_of_its_own_entries(
    make_project: Callable[[str], Path],
) -> None:
    """Parts.each looks the entries' keys up once per list of a build (`entries_bytes`: a
    language's posts.json and llms files share it): two lists of other entries, or another
    order, each get the parts of their own entries, found by their keys."""
    project = Project(make_project("minimal"))
    collector = Collector()
    config, content = pipeline.load(project, collector)
    site = pipeline.pair(project, config, content, collector)
    posts = [e for e in site.entries if e.kind == "posts"]
    assert len(posts) >= 2
    keys = {(e.kind, e.key): f"key-of-{e.key}" for e in site.entries}

    def run(parts: Parts, entries: list[Entry]) -> list[str]:
        return parts.each(("test",), entries, lambda e: e.key.encode(), lambda e: e.key)

    first = Parts()
    first.use_keys(keys, "global")
    both = [run(first, lst) for lst in (posts, posts[:1], posts[::-1], posts)]
    assert both == [[e.key for e in lst] for lst in (posts, posts[:1], posts[::-1], posts)]
    later = first.next().again()  # (another build: the parts found by the entries' keys)
    later.use_keys(keys, "global")
    assert run(later, posts[::-1]) == [e.key for e in posts[::-1]]
    assert run(later, posts[1:]) == [e.key for e in posts[1:]]
    assert later.found == len(posts) * 2 - 1 and later.made == 0


def test_the_latest_date_of_a_language_s_posts_is_kept_by_their_entries_keys(
    make_project: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parts.updated (llms.txt's "Updated" date): llms_updated.updated of the posts, worked out again
    only when a post's entry key or the list of posts changed."""
    project = Project(make_project("minimal"))
    collector = Collector()
    config, content = pipeline.load(project, collector)
    site = pipeline.pair(project, config, content, collector)
    posts = site.posts("ko")
    assert len(posts) >= 2
    keys = {(e.kind, e.key): f"key-of-{e.key}" for e in site.entries}
    first = Parts()
    first.use_keys(keys, "global")
    day = first.updated(posts)
    assert day is not None and day == outputs.llms_updated.updated(posts)
    later = first.next().again()
    later.use_keys(keys, "global")
    monkeypatch.setattr(outputs.llms_updated, "updated", lambda _: pytest.fail("worked out again"))
    assert later.updated(posts) == day
    monkeypatch.undo()
    moved = {**keys, (posts[0].kind, posts[0].key): "another key"}
    again = later.next().again()
    again.use_keys(moved, "global")
    made: list[int] = []
    monkeypatch.setattr(outputs.llms_updated, "updated", lambda p: made.append(len(p)) or day)
    assert again.updated(posts) == day and made == [len(posts)]
    assert again.updated(posts[1:]) == day and made == [len(posts), len(posts) - 1]
