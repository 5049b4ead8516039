"""Quick rebuilds of a post whose tags or dates changed (src/bipub/quick.py `_relist`): its tag
pages, re-paginated; new tags' pages made, vanished ones removed; the home, blog and tag pages
whose posts moved; the tag clouds, the other language's pages that link to them, the sitemap,
the feeds, posts.json and the llms files. Each build's output, folders, page counts and
warnings must equal a clean build's."""

from __future__ import annotations

from pathlib import Path

import pytest

from bipub.pipeline import build
from tests.conftest import tree_snapshot
from tests.integration.test_quick import _assert_clean, _edit, _folders, _post


@pytest.fixture
def tagged(make_project) -> Path:  # type: ignore[no-untyped-def]
    """'minimal' with 'beta' out of its series and seven more posts: 'vllm' on p1, p3, p5, p7
    (two pages of two), 'serving' on all. English: p1 with tags of its own (one, 'rust', only
    in English), p2 translated without tags (it shows the Korean ones)."""
    project: Path = make_project("minimal")
    _edit(_post(project, "ko", "beta"), "series: 연재\nseries_order: 2\n", "")
    for i in range(1, 8):
        tags = "vllm, serving" if i % 2 else "serving"
        _post(project, name=f"p{i}").write_text(
            f"---\ntitle: 글 {i}\ndate: 2026-03-{10 + i:02d}\ntags: [{tags}]\n---\n\n본문 {i}.\n",
            encoding="utf-8",
        )
    _post(project, "en", "p1").write_text(
        "---\ntitle: Post 1\ntags: [serving, rust]\n---\n\nBody 1.\n", encoding="utf-8"
    )
    _post(project, "en", "p2").write_text("---\ntitle: Post 2\n---\n\nBody 2.\n", encoding="utf-8")
    assert build(project).quick is None
    return project


EDITS = {
    # (file, old, new)
    "join": ("ko/p2", "tags: [serving]", "tags: [serving, vllm]"),  # en p2 shows it too
    "leave": ("ko/p1", "tags: [vllm, serving]", "tags: [serving]"),  # vllm: 2 pages → 2
    "leave-page": ("ko/p7", "tags: [vllm, serving]", "tags: [serving]"),
    "new-tag": ("ko/p4", "tags: [serving]", "tags: [serving, 새-태그]"),
    "vanish": ("en/p1", "tags: [serving, rust]", "tags: [serving]"),  # en/tags/rust/ goes
    "order": ("ko/p3", "tags: [vllm, serving]", "tags: [serving, vllm]"),  # the card only
    "none": ("ko/p5", "date: 2026-03-15\ntags: [vllm, serving]\n", "date: 2026-03-15\n"),
    "later": ("ko/p2", "date: 2026-03-12", "date: 2026-12-01"),  # newest: every page moves
    "earlier": ("ko/p7", "date: 2026-03-17", "date: 2026-03-11"),
    "translated-later": ("ko/p1", "date: 2026-03-11", "date: 2026-03-16"),  # en p1's feed entry
    "same-place": ("ko/p1", "date: 2026-03-11", "date: 2026-03-01"),  # still the oldest
    "updated": ("ko/p3", "date: 2026-03-13", "date: 2026-03-13\nupdated: 2026-04-02"),
    "date-and-tags": (
        "ko/p4",
        "date: 2026-03-14\ntags: [serving]",
        "date: 2026-01-01\ntags: [vllm]",
    ),
    "with-title": (
        "ko/p6",
        "title: 글 6\ndate: 2026-03-16\ntags: [serving]",
        "title: 새 글\ndate: 2026-03-16\ntags: [rust]",
    ),
}


def _file(project: Path, which: str) -> Path:
    lang, name = which.split("/")
    return _post(project, lang, name)


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_tags_or_dates_edit_is_quick_and_equals_a_clean_build(
    tagged: Path, tmp_path: Path, edit: str
) -> None:
    which, old, new = EDITS[edit]
    _edit(_file(tagged, which), old, new)
    result = build(tagged)
    assert result.quick == [f"content/{which.split('/')[0]}/posts/{which.split('/')[1]}.md"]
    _assert_clean(tagged, result, tmp_path)
    # undone: back to the kit's pages (a new tag's pages go again, a vanished one's come back)
    _edit(_file(tagged, which), new, old)
    result = build(tagged)
    assert result.quick is not None
    _assert_clean(tagged, result, tmp_path)


def _quick_steps(project: Path, tmp: Path, steps: list[tuple[str, str, str]]) -> None:
    """Each edit in turn, each a quick rebuild equal to a clean build; then nothing to do."""
    for which, old, new in steps:
        _edit(_file(project, which), old, new)
        result = build(project)
        assert result.quick is not None, result.cache_note
        _assert_clean(project, result, tmp)
    assert build(project).up_to_date


def test_tag_edits_add_up_and_undo(tagged: Path, tmp_path: Path) -> None:
    """Edits since the last full build add up: a tag made by one quick rebuild and dropped by
    the next leaves no page; page counts that grew and shrank put the other language back."""
    steps = [
        ("ko/p2", "tags: [serving]", "tags: [serving, vllm, 새-태그]"),
        ("ko/p4", "tags: [serving]", "tags: [serving, vllm]"),  # vllm: 3 pages
        ("ko/p2", "tags: [serving, vllm, 새-태그]", "tags: [serving]"),  # 새-태그 gone
        ("en/p1", "tags: [serving, rust]", "tags: [rust, vllm]"),
        ("ko/p4", "tags: [serving, vllm]", "tags: [serving]"),
        ("en/p1", "tags: [rust, vllm]", "tags: [serving, rust]"),
    ]
    _quick_steps(tagged, tmp_path, steps)


@pytest.mark.parametrize("only", [{"html"}, {"feeds"}, {"json", "llms"}])
def test_a_tags_edit_with_some_outputs(make_project, tmp_path: Path, only: set[str]) -> None:  # type: ignore[no-untyped-def]
    project: Path = make_project("minimal")
    _edit(_post(project, "ko", "beta"), "series: 연재\nseries_order: 2\n", "")
    assert build(project, only=only).quick is None
    _edit(_post(project, "ko", "beta"), "tags: [kv-cache]", "tags: [kv-cache, 새-태그]")
    result = build(project, only=only)
    assert result.quick == ["content/ko/posts/beta.md"]
    clean = tmp_path / "clean"
    expected = build(project, clean, use_cache=False, only=only)
    assert result.warnings == expected.warnings
    assert tree_snapshot(project / "site") == tree_snapshot(clean)
    assert _folders(project / "site") == _folders(clean)


def test_a_tag_spelling_change_builds_in_full(tagged: Path, tmp_path: Path) -> None:
    """The tag's name (its most used spelling) shows on every card that has it, and two
    spellings are a warning: only the full build can say."""
    _edit(_post(tagged, name="p2"), "tags: [serving]", "tags: [serving, VLLM]")
    result = build(tagged)
    assert result.quick is None
    assert "the spellings of tag 'vllm' change" in result.cache_note  # (issue 18's check)
    _assert_clean(tagged, result, tmp_path)


@pytest.mark.parametrize(
    ("which", "old", "new", "quick"),
    [
        ("p1", "date: 2026-03-11", "date: 2026-12-01", True),  # joins the feed: its own entry
        ("p7", "date: 2026-03-17", "date: 2026-01-01", False),  # the 4th post joins the feed
    ],
)
def test_a_post_that_moves_through_the_feed(
    tagged: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    which: str,
    old: str,
    new: str,
    quick: bool,
) -> None:
    """The kit keeps the entries of the posts in the feed only: a post that leaves it lets in
    one the kit has no entry of, and only the full build can make that."""
    from bipub.render import feeds

    monkeypatch.setattr(feeds, "FEED_SIZE", 3)
    config = tagged / "bipub.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "# feed of 3\n", encoding="utf-8")
    result = build(tagged)
    assert result.quick is None and not result.up_to_date  # a full build with the smaller feed
    _edit(_post(tagged, name=which), old, new)
    result = build(tagged)
    if quick:
        assert result.quick == [f"content/ko/posts/{which}.md"]
    else:
        assert result.quick is None
        assert "a post the feed did not show joins it" in result.cache_note
    _assert_clean(tagged, result, tmp_path)


def test_date_edits_add_up_and_undo(tagged: Path, tmp_path: Path) -> None:
    """Posts moved and moved back: the listings an earlier quick rebuild changed are put back."""
    steps = [
        ("ko/p2", "date: 2026-03-12", "date: 2026-12-01"),
        ("ko/p5", "date: 2026-03-15\ntags: [vllm, serving]", "date: 2026-01-01\ntags: [serving]"),
        ("ko/p2", "date: 2026-12-01", "date: 2026-03-12"),
        ("ko/p5", "date: 2026-01-01\ntags: [serving]", "date: 2026-03-15\ntags: [vllm, serving]"),
    ]
    _quick_steps(tagged, tmp_path, steps)


def test_a_date_edit_renders_only_the_pages_that_show_the_post(tagged: Path) -> None:
    """p1 stays the oldest post: its two pages and the last page of each listing that shows its
    card (ko: blog, vllm, serving; en: blog, serving, rust) are rendered, no other page of its
    tags (they list the same posts in the same order)."""
    _edit(_post(tagged, name="p1"), "date: 2026-03-11", "date: 2026-03-01")
    result = build(tagged)
    assert result.quick == ["content/ko/posts/p1.md"]
    assert sum(result.pages.values()) - result.reused == 8


def test_cards_kept_in_blocks(
    tagged: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kit's cards are pickled CARD_BLOCK to a block, and a rebuild unpickles the blocks it
    needs: with blocks of two, a post moved to the top shifts cards across every block."""
    from bipub import quick

    monkeypatch.setattr(quick, "CARD_BLOCK", 2)
    config = tagged / "bipub.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "# blocks of 2\n", encoding="utf-8")
    assert build(tagged).quick is None
    _edit(_post(tagged, name="p1"), "date: 2026-03-11", "date: 2026-12-01")
    result = build(tagged)
    assert result.quick == ["content/ko/posts/p1.md"]
    _assert_clean(tagged, result, tmp_path)


def test_a_source_date_edit_and_the_translations_own_date(tagged: Path, tmp_path: Path) -> None:
    """A translation that repeats the date is warned about when the source's differs
    ("shared-differs", on the translation's file): a date edit of the source alone adds or
    removes that warning, as a clean build does."""
    _edit(_post(tagged, "en", "p1"), "title: Post 1\n", "title: Post 1\ndate: 2026-03-11\n")
    config = tagged / "bipub.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "# a full build\n", encoding="utf-8")
    assert build(tagged).quick is None  # a kit with the translation's date
    steps = [
        ("ko/p1", "date: 2026-03-11", "date: 2026-03-12"),  # the warning comes
        ("ko/p1", "date: 2026-03-12", "date: 2026-03-11"),  # and goes
    ]
    _quick_steps(tagged, tmp_path, steps)
