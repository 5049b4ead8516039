"""An update joins llms.txt, llms-full.txt and posts.json from each post's parts kept by their
values (render/outputs.py Parts.llms_post and Parts.post_record: render/llms_parts.py and
json_api.py post_key), and works the pages' fingerprints out from the entries' keys
(buildstate.py): these pin that nothing of the last build stays in place that an edit changed —
a post's line and text, the listings that show its title, the name the site shows for a tag
another post spells, a deleted post, the tags a translation takes from its source.

Byte equality with clean builds after any sequence of edits is test_incremental.py's job;
these look at the very lines an edit changes, in a build (state read back from disk) and in
`bipub serve` (state kept in memory).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bipub.cache import BuildCache
from bipub.pipeline import Kept, build
from tests.conftest import PROJECTS, tree_snapshot

KINDS = {"html", "json", "feeds", "llms"}


@pytest.fixture(params=["build", "serve"])
def kept(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, Kept | None]:
    """The minimal project built once; with the state a server keeps in memory (`serve`)."""
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


def _text(root: Path, rel: str) -> str:
    return (root / "site" / rel).read_text(encoding="utf-8")


def _clean(root: Path, tmp_path: Path) -> dict[str, bytes]:
    build(root, tmp_path / "clean", use_cache=False, only=KINDS)
    return tree_snapshot(tmp_path / "clean")


def test_a_title_edit_changes_its_llms_line_and_every_page_listing_it(
    kept: tuple[Path, Kept | None], tmp_path: Path
) -> None:
    root, memory = kept
    listing = ["ko/index.html", "ko/blog/index.html", "ko/tags/vllm/index.html"]
    listing += ["ko/tags/kv-cache/index.html", "ko/series/연재/index.html"]
    listing += ["ko/blog/alpha/index.html", "ko/blog/beta/index.html"]  # beta: its series box
    for rel in listing:
        assert "알파 글" in _text(root, rel), rel
    _edit(root, "content/ko/posts/alpha.md", "title: 알파 글", "title: 고친 알파")
    build(root, only=KINDS, kept=memory)
    assert "- [고친 알파](https://test.example.org/ko/blog/alpha/)" in _text(root, "ko/llms.txt")
    assert "### [고친 알파](" in _text(root, "ko/llms-full.txt")
    assert _text(root, "llms.txt") == _text(root, "ko/llms.txt")  # the default language's copy
    for rel in ["ko/llms.txt", "ko/llms-full.txt", "llms-full.txt", *listing]:
        assert "알파 글" not in _text(root, rel), rel
        assert "고친 알파" in _text(root, rel), rel
    assert tree_snapshot(root / "site") == _clean(root, tmp_path)


def test_a_tag_spelled_anew_by_one_post_shows_in_another_posts_text(
    kept: tuple[Path, Kept | None], tmp_path: Path
) -> None:
    """beta's document does not change, but the name the site shows for its tag does (alpha
    spells the same slug another way, and the site shows the first spelling): its text in
    llms-full.txt lists the new name."""
    root, memory = kept
    assert "태그: KV cache" in _beta(root)
    _edit(root, "content/ko/posts/alpha.md", "KV cache]", "Kv-Cache]")
    build(root, only=KINDS, kept=memory)
    assert "태그: Kv-Cache" in _beta(root)
    assert tree_snapshot(root / "site") == _clean(root, tmp_path)


def _beta(root: Path) -> str:
    """beta's text in the Korean llms-full.txt."""
    return _text(root, "ko/llms-full.txt").split("### [베타 글]")[1].split("### [")[0]


def test_a_deleted_post_vanishes_from_the_llms_files(
    kept: tuple[Path, Kept | None], tmp_path: Path
) -> None:
    root, memory = kept
    for rel in ["ko/llms.txt", "ko/llms-full.txt", "en/llms.txt", "en/llms-full.txt"]:
        assert "/blog/beta/" in _text(root, rel), rel
    (root / "content/ko/posts/beta.md").unlink()
    build(root, only=KINDS, kept=memory)
    for rel in ["llms.txt", "llms-full.txt", "ko/llms.txt", "ko/llms-full.txt", "en/llms.txt"]:
        assert "/blog/beta/" not in _text(root, rel), rel
        assert "베타 글" not in _text(root, rel), rel
    assert "/blog/beta/" not in _text(root, "en/llms-full.txt")
    assert tree_snapshot(root / "site") == _clean(root, tmp_path)


def test_a_source_tag_edit_changes_the_translations_posts_json_record(
    kept: tuple[Path, Kept | None], tmp_path: Path
) -> None:
    """alpha's English document sets no tags: its record shows the Korean source's. Its own
    file does not change; its record in posts.json does (json_api.post_key: the post's tags)."""
    root, memory = kept
    _edit(root, "content/ko/posts/alpha.md", "tags: [vllm,", "tags: [sglang,")
    build(root, only=KINDS, kept=memory)
    [alpha] = [r for r in json.loads(_text(root, "api/en/posts.json")) if r["slug"] == "alpha"]
    assert alpha["tags"] == ["sglang", "KV cache"]
    assert tree_snapshot(root / "site") == _clean(root, tmp_path)


def test_a_tag_added_to_a_post_puts_it_in_that_tags_feed_and_out_of_the_old_ones(
    kept: tuple[Path, Kept | None], tmp_path: Path
) -> None:
    """A tag's feed lists the posts pairing listed for the tag (Site.tag_posts: in `bipub
    serve`, tables moved by each edit): a post given a tag is in its feed, a tag no post has
    any more has no feed, and the feeds equal a clean build's."""
    root, memory = kept
    assert "/blog/beta/" not in _text(root, "ko/tags/vllm/feed.xml")
    _edit(root, "content/ko/posts/beta.md", "tags: [kv-cache]", "tags: [kv-cache, vllm]")
    build(root, only=KINDS, kept=memory)
    assert "/blog/beta/" in _text(root, "ko/tags/vllm/feed.xml")
    assert "/blog/beta/" in _text(root, "ko/tags/vllm/feed.json")
    assert tree_snapshot(root / "site") == _clean(root, tmp_path)
    _edit(root, "content/ko/posts/alpha.md", "tags: [vllm,", "tags: [sglang,")
    _edit(root, "content/ko/posts/beta.md", "tags: [kv-cache, vllm]", "tags: [kv-cache]")
    build(root, only=KINDS, kept=memory)
    assert not (root / "site/ko/tags/vllm/feed.xml").exists()
    assert "/blog/alpha/" in _text(root, "ko/tags/sglang/feed.xml")
    assert tree_snapshot(root / "site") == _clean(root, tmp_path)


def test_a_post_edited_back_and_forth_shows_each_text_in_its_parts(
    kept: tuple[Path, Kept | None], tmp_path: Path
) -> None:
    """A post's digest (Parts.version) is reused only for the very entry object it was worked
    out from: an edit, then the edit undone, then made again, shows each time the text of the
    file as it is in posts.json and the llms files."""
    root, memory = kept
    for title in ("고친 알파", "알파 글", "고친 알파"):
        old = "알파 글" if title == "고친 알파" else "고친 알파"
        _edit(root, "content/ko/posts/alpha.md", f"title: {old}", f"title: {title}")
        build(root, only=KINDS, kept=memory)
        [alpha] = [r for r in json.loads(_text(root, "api/ko/posts.json")) if r["slug"] == "alpha"]
        assert alpha["title"] == title
        assert f"- [{title}](" in _text(root, "ko/llms.txt")
        assert f"### [{title}](" in _text(root, "ko/llms-full.txt")
    assert tree_snapshot(root / "site") == _clean(root, tmp_path)


def test_a_tag_renamed_in_one_language_shows_in_that_languages_texts_only(
    kept: tuple[Path, Kept | None], tmp_path: Path
) -> None:
    """beta is not translated: both languages show its Korean document with the same tags,
    each under the name its own site gives the tag (Parts.names, by language). The English
    alpha spells the tag anew: beta's English text shows the new name, its Korean one not."""
    root, memory = kept
    _edit(
        root,
        "content/en/posts/alpha.md",
        "series: A series\n",
        "series: A series\ntags: [Kv Cache]\n",
    )
    build(root, only=KINDS, kept=memory)
    assert "태그: KV cache" in _beta(root)
    assert "Tags: Kv Cache" in _text(root, "en/llms-full.txt").split("/en/blog/beta/")[1]
    _edit(root, "content/en/posts/alpha.md", "tags: [Kv Cache]", "tags: [KV-CACHE]")
    build(root, only=KINDS, kept=memory)
    assert "태그: KV cache" in _beta(root)
    assert "Tags: KV-CACHE" in _text(root, "en/llms-full.txt").split("/en/blog/beta/")[1]
    assert tree_snapshot(root / "site") == _clean(root, tmp_path)


def test_verbose_says_how_many_parts_an_edit_made(kept: tuple[Path, Kept | None]) -> None:
    """`-v` says how many of the aggregates' parts the build kept and made: a title edit
    makes one posts.json record, one llms part and one feed entry of the edited post, and
    the 8 feeds that show it (its own language's and the other's: the language's feed, its
    two tags' and its series'), its routes' URLs in the sitemap (its post and its
    side-by-side page: one part, Parts.routes) and the edited language's llms-full.txt mark (Parts.file_mark; the
    other's is taken from the published file, whose bytes the output's record has, although
    this second build of the folder has no spare copy yet); the others are found by their
    entries' keys."""
    root, memory = kept
    _edit(root, "content/ko/posts/alpha.md", "title: 알파 글", "title: 고친 알파")
    note = build(root, only=KINDS, kept=memory).cache_note
    [said] = [n for n in note.split("; ") if n.startswith("aggregate parts")]
    assert ", 13 made" in said, said
    assert said.endswith(" found by their entry's key"), said
