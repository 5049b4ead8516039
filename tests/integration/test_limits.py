"""Unbounded work is bounded (issue 16 item 8).

A post with 3,000 tags wrote a 1.3 GB site: every tag page listed the post's card with all of
its tags. Now a post may have `limits.tags_per_post` tags (an error at the front matter's line
beyond), a card shows a few of its tags, and what a killed build left is removed at the start
of every build, even one that finds nothing to do.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bipub.write.output import MARKER
from tests.conftest import CliResult

Cli = Callable[..., CliResult]
TAGS = 3000
# allowed, a site of one tag page per tag: 500 are enough to tell linear from quadratic (a card
# with all 500 tags, as before the fix, makes a tag page of ~40 KB, over the bound below) at a
# sixth of the build of 3,000
ALLOWED_TAGS = 500


def _post_with_tags(project: Path, n: int) -> None:
    tags = ", ".join(f"tag-{i}" for i in range(n))
    (project / "content/ko/posts/many.md").write_text(
        f"---\ntitle: 태그 많은 글\ndate: 2026-05-02\ntags: [{tags}]\n---\n\n본문\n",
        encoding="utf-8",
    )


def test_3000_tags_are_an_error_at_the_front_matter_line(
    make_project: Callable[[str], Path], cli: Cli
) -> None:
    project = make_project("minimal")
    _post_with_tags(project, TAGS)
    result = cli("-C", str(project), "build")
    assert result.exit_code == 1
    assert (
        f"content/ko/posts/many.md:4: tags: {TAGS} tags, more than the 30 a post may have "
        "(limits.tags_per_post in bipub.yaml)" in result.stderr
    )
    assert not (project / "site").exists()
    assert not [
        p for p in project.iterdir() if p.name.startswith(".site.") and p.name != ".site.lock"
    ]


def test_500_tags_allowed_make_a_site_linear_in_size(
    make_project: Callable[[str], Path], cli: Cli
) -> None:
    project = make_project("minimal")
    config = project / "bipub.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + f"limits:\n  tags_per_post: {ALLOWED_TAGS}\n", "utf-8"
    )
    _post_with_tags(project, ALLOWED_TAGS)
    result = cli("-C", str(project), "-q", "build")
    assert result.exit_code == 0, result.stderr
    site = project / "site"
    pages = sorted((site / "ko" / "tags").glob("tag-*/index.html"))
    assert len(pages) == ALLOWED_TAGS
    # a tag page shows the card with 8 of the post's tags, not all 500 (then ~40 KB each)
    biggest = max(page.stat().st_size for page in pages)
    assert biggest < 16_000, biggest
    assert f"+{ALLOWED_TAGS - 8}" in pages[0].read_text(encoding="utf-8")
    total = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    assert total < ALLOWED_TAGS * 2 * 16_000, total  # linear: pages × a bounded page size
    # the post's own page still shows every tag
    post = (site / "ko/blog/many/index.html").read_text(encoding="utf-8")
    assert post.count('rel="tag"') == ALLOWED_TAGS


def test_a_killed_builds_staging_folder_is_removed_by_an_up_to_date_build(
    make_project: Callable[[str], Path], cli: Cli
) -> None:
    project = make_project("minimal")
    assert cli("-C", str(project), "-q", "build").exit_code == 0
    leftover = project / ".site.tmp-killed"
    (leftover / "ko").mkdir(parents=True)
    (leftover / MARKER).write_text("", encoding="utf-8")
    (leftover / "ko" / "big.html").write_bytes(b"x" * 100_000)
    result = cli("-C", str(project), "build")
    assert result.exit_code == 0, result.stderr
    assert "Up to date" in result.stderr
    assert not leftover.exists()
    # a folder of that name bipub did not make is not bipub's to remove
    mine = project / ".site.tmp-mine"
    mine.mkdir()
    (mine / "notes.md").write_text("notes\n", encoding="utf-8")
    assert cli("-C", str(project), "-q", "build").exit_code == 0
    assert (mine / "notes.md").is_file()
