"""A reader who switches language lands at the same heading (render/section_map.py): a post
page carries, for each other language showing the post, that page's heading ids in order when
it has as many headings; none when the counts differ. What it carries is part of the page's
fingerprint: an edit of the translation's heading alone renders the original's page again."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from pathlib import Path

from bipub.pipeline import build
from bipub.text.headings import heading_ids

SECTIONS = re.compile(r"<article class=\"post\"[^>]*? data-sections='([^']*)'")


def _sections(page: Path) -> dict[str, object] | None:
    found = SECTIONS.search(page.read_text(encoding="utf-8"))
    return json.loads(html.unescape(found.group(1))) if found else None


def test_each_post_page_names_the_other_languages_headings(
    make_project: Callable[[str], Path],
) -> None:
    root = make_project("minimal")
    build(root, only={"html"})
    site = root / "site"
    assert _sections(site / "ko/blog/alpha/index.html") == {
        "ids": ["h-소개"],
        "to": {"en": ["h-intro"]},
    }
    assert _sections(site / "en/blog/alpha/index.html") == {
        "ids": ["h-intro"],
        "to": {"ko": ["h-소개"]},
    }
    # beta has no heading: nothing to carry
    assert _sections(site / "ko/blog/beta/index.html") is None
    # the ids are the rendered page's (the same rule as the renderer's: text/headings.py)
    rendered = re.findall(
        r'<h2 id="([^"]+)">', (site / "en/blog/alpha/index.html").read_text("utf-8")
    )
    body = (root / "content/en/posts/alpha.md").read_text("utf-8").split("---\n", 2)[2]
    assert rendered == heading_ids(body) == ["h-intro"]


def test_a_translation_with_other_headings_carries_none(
    make_project: Callable[[str], Path],
) -> None:
    root = make_project("minimal")
    en = root / "content/en/posts/alpha.md"
    en.write_text(en.read_text(encoding="utf-8") + "\n## More\n\nText.\n", encoding="utf-8")
    build(root, only={"html"})
    assert _sections(root / "site/ko/blog/alpha/index.html") is None
    assert _sections(root / "site/en/blog/alpha/index.html") is None


def test_a_heading_edit_of_the_translation_renders_the_original_again(
    make_project: Callable[[str], Path],
) -> None:
    root = make_project("minimal")
    build(root)
    en = root / "content/en/posts/alpha.md"
    en.write_text(en.read_text(encoding="utf-8").replace("## Intro", "## Introduction"), "utf-8")
    build(root)
    assert _sections(root / "site/ko/blog/alpha/index.html") == {
        "ids": ["h-소개"],
        "to": {"en": ["h-introduction"]},
    }
