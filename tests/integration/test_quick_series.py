"""Quick rebuilds of a post in a series (src/bipub/quick.py `_same_series`, `_pages`,
`_series_pages`): a member's new title shows in the series box of every member's page and on
the series page; its description, reading time, tags and dates on the series page (its card).

In 'minimal', the Korean series '연재' has alpha (1, translated: the English series 'A series'
shows its English title) and beta (2, untranslated: the English series shows its Korean title).
Each build's output, folders, page counts and warnings must equal a clean build's, and each
edit undone must put back every page it changed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bipub.pipeline import build
from tests.conftest import tree_snapshot
from tests.integration.test_quick import _assert_clean, _edit, _folders, _post, _warnings
from tests.integration.test_quick_lists import _file, _quick_steps

KO_SERIES = "ko/series/연재/index.html"
EN_SERIES = "en/series/a-series/index.html"


@pytest.fixture
def built(make_project) -> Path:  # type: ignore[no-untyped-def]
    project: Path = make_project("minimal")
    assert build(project).quick is None
    return project


LONG = "번역이 아직 없습니다. " + "긴 문장이 이어집니다. " * 400

EDITS = {
    # (file, old, new, pages that must change, pages that must not)
    "title": (
        "ko/alpha",
        "title: 알파 글",
        'title: "알파 글 <&> [고침]"',
        {"ko/blog/alpha/index.html", "ko/blog/beta/index.html", KO_SERIES},  # beta: its box
        {"en/blog/beta/index.html", EN_SERIES},  # English shows alpha's English title
    ),
    "title-untranslated": (
        "ko/beta",
        "title: 베타 글",
        "title: 베타 글 (고침)",
        {"ko/blog/alpha/index.html", "en/blog/alpha/index.html", KO_SERIES, EN_SERIES},
        set(),
    ),
    "title-translation": (
        "en/alpha",
        "title: Alpha post",
        "title: Alpha post, fixed",
        {"en/blog/alpha/index.html", "en/blog/beta/index.html", EN_SERIES},
        {"ko/blog/beta/index.html", KO_SERIES},
    ),
    "description": (
        "ko/beta",
        "description: 번역되지 않은 글",
        "description: 설명을 고쳤습니다",
        {"ko/blog/beta/index.html", "en/blog/beta/index.html", KO_SERIES, EN_SERIES},
        {"ko/blog/alpha/index.html", "en/blog/alpha/index.html"},  # the boxes show no description
    ),
    "reading-time": (
        "ko/beta",
        "번역이 아직 없습니다.",
        LONG,
        {"ko/blog/beta/index.html", KO_SERIES, EN_SERIES},
        {"ko/blog/alpha/index.html"},
    ),
    "tags": (
        "ko/alpha",
        "tags: [vllm, KV cache]",
        "tags: [vllm, KV cache, 새-태그]",
        # (English alpha has no tags of its own: it shows the Korean ones)
        {"ko/blog/alpha/index.html", KO_SERIES, "ko/tags/새-태그/index.html", EN_SERIES},
        {"ko/blog/beta/index.html", "en/blog/beta/index.html"},
    ),
    "date": (
        "ko/beta",
        "date: 2026-05-01",
        "date: 2026-06-01",  # series_order keeps its place
        {"ko/blog/beta/index.html", KO_SERIES, EN_SERIES},
        {"ko/blog/alpha/index.html"},
    ),
    "updated": (
        "ko/alpha",
        "date: 2026-04-07",
        "date: 2026-04-07\nupdated: 2026-07-01",
        {"ko/blog/alpha/index.html", "en/blog/alpha/index.html"},
        {"ko/blog/beta/index.html", KO_SERIES, EN_SERIES},  # (the theme's cards show no update)
    ),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_series_member_edit_is_quick_and_equals_a_clean_build(
    built: Path, tmp_path: Path, edit: str
) -> None:
    which, old, new, changes, stays = EDITS[edit]
    before = tree_snapshot(built / "site")
    _edit(_file(built, which), old, new)
    result = build(built)
    lang, name = which.split("/")
    assert result.quick == [f"content/{lang}/posts/{name}.md"], result.cache_note
    _assert_clean(built, result, tmp_path)
    after = tree_snapshot(built / "site")
    changed = {p for p, data in after.items() if before.get(p) != data}
    assert changes <= changed
    assert not stays & changed
    # undone: every page the edit changed is the kit's again (the series page, the boxes)
    _edit(_file(built, which), new, old)
    result = build(built)
    assert result.quick == [f"content/{lang}/posts/{name}.md"], result.cache_note
    _assert_clean(built, result, tmp_path)
    assert tree_snapshot(built / "site") == before


def test_a_title_edit_renders_the_series_pages_that_show_it(built: Path) -> None:
    """alpha's Korean title: its page, beta's (the series box), the series page and the ko
    listings of its card (home, blog, its two tags) — and nothing in English."""
    _edit(_post(built), "title: 알파 글", "title: 알파 글 (고침)")
    result = build(built)
    assert result.quick == ["content/ko/posts/alpha.md"]
    assert sum(result.pages.values()) - result.reused == 7


def test_series_edits_add_up_and_undo(built: Path, tmp_path: Path) -> None:
    """Edits of one member, then the other, then back, each computed from the last full
    build's kit: the boxes and series pages an earlier quick rebuild changed are put back."""
    steps = [
        ("ko/alpha", "title: 알파 글", "title: 알파 (1)"),
        ("ko/beta", "title: 베타 글", "title: 베타 (2)"),  # both titles in both boxes
        ("ko/alpha", "title: 알파 (1)", "title: 알파 글"),  # beta's box shows alpha's again
        ("ko/beta", "description: 번역되지 않은 글", "description: 새 설명"),
        ("en/alpha", "title: Alpha post", "title: Alpha (en)"),
        ("ko/beta", "title: 베타 (2)", "title: 베타 글"),
        ("ko/alpha", "본문입니다.", "본문을 고쳤습니다."),  # a body edit of the other member
        ("en/alpha", "title: Alpha (en)", "title: Alpha post"),
        ("ko/beta", "description: 새 설명", "description: 번역되지 않은 글"),
    ]
    _quick_steps(built, tmp_path, steps)


def test_a_series_title_edit_with_only_html(make_project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    project: Path = make_project("minimal")
    assert build(project, only={"html"}).quick is None
    for old, new in (
        ("title: 베타 글", "title: 베타 (고침)"),
        ("title: 베타 (고침)", "title: 베타 글"),
    ):
        _edit(_post(project, "ko", "beta"), old, new)
        result = build(project, only={"html"})
        assert result.quick == ["content/ko/posts/beta.md"], result.cache_note
        clean = tmp_path / "clean"
        shutil.rmtree(clean, ignore_errors=True)
        expected = build(project, clean, use_cache=False, only={"html"})
        assert _warnings(result) == _warnings(expected)
        assert tree_snapshot(project / "site") == tree_snapshot(clean)
        assert _folders(project / "site") == _folders(clean)


def test_a_date_that_reorders_a_series_builds_in_full(built: Path, tmp_path: Path) -> None:
    """Without series_order, a series is in date order: beta dated before alpha comes first
    (every box and the series page in another order, and the series page's route)."""
    _edit(_post(built, "ko", "alpha"), "series_order: 1\n", "")
    _edit(_post(built, "ko", "beta"), "series_order: 2\n", "")
    assert build(built).quick is None
    _edit(_post(built, "ko", "beta"), "date: 2026-05-01", "date: 2026-04-08")  # still after
    result = build(built)
    assert result.quick == ["content/ko/posts/beta.md"], result.cache_note
    _assert_clean(built, result, tmp_path)
    _edit(_post(built, "ko", "beta"), "date: 2026-04-08", "date: 2026-01-01")
    result = build(built)
    assert result.quick is None
    assert "content/ko/posts/beta.md: a new date moves a post in series" in result.cache_note
    _assert_clean(built, result, tmp_path)


def test_a_title_prefix_warning_change_builds_in_full(built: Path, tmp_path: Path) -> None:
    """Title prefixes that differ only in spelling are a warning about the series (no file):
    a title edit that would add or remove it builds in full."""
    _edit(_post(built, "ko", "alpha"), "title: 알파 글", 'title: "[KV] 알파 글"')
    result = build(built)
    assert result.quick == ["content/ko/posts/alpha.md"], result.cache_note  # one prefix: fine
    _assert_clean(built, result, tmp_path)
    _edit(_post(built, "ko", "beta"), "title: 베타 글", 'title: "[kv] 베타 글"')
    result = build(built)
    assert result.quick is None
    # issue 18: title prefixes are checked across all posts of a language, not per series
    assert "[ko] the warning about title prefixes changes" in result.cache_note
    assert any(d.code == "title-prefix" for d in result.warnings)
    _assert_clean(built, result, tmp_path)


def test_only_a_card_edit_reads_the_series_kit(built: Path, tmp_path: Path) -> None:
    """The series kit is read when a member's card changes, not for a body edit (and a title
    edit falls back if it is gone)."""
    (series,) = (built / ".bipub-cache").glob("quick-*-series.pickle")
    series.unlink()
    _edit(_post(built, "ko", "beta"), "번역이 아직 없습니다.", "번역이 아직 없습니다. 고침.")
    result = build(built)
    assert result.quick == ["content/ko/posts/beta.md"]
    _assert_clean(built, result, tmp_path)
    _edit(_post(built, "ko", "beta"), "title: 베타 글", "title: 새 제목")
    result = build(built)
    assert result.quick is None and "missing or unreadable" in result.cache_note
    _assert_clean(built, result, tmp_path)
