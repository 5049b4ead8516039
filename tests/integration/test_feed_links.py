"""Session 34: every feed link of every page the build writes leads to a feed the build wrote,
and every tag's and series' feed written is linked from its page. A series page linked its
feeds when a member was shown in its language (`Entry.shown_in`) while render/feeds.py wrote
them when a member was in the language's list of posts (`Site.posts`), and pair/site_pages.py
read a link to them by a third spelling of the rule: one rule now,
pair/site_pages.py `series_feed_posts`, read by all three.

The members tried: one shown only untranslated (a fallback), a translation that is a draft, a
source that is a draft, scheduled posts (dated after the tests' "now", 2027-01-01), with
bipub.yaml `untranslated: omit` and `publish_drafts: false`; and edits made and undone between
builds (read back from .bipub-cache/, and kept in memory as `bipub serve` keeps them)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from urllib.parse import unquote

import pytest

from bipub.cache import BuildCache
from bipub.pipeline import Kept, build
from tests.conftest import PROJECTS, replace_in

KINDS = {"html", "json", "feeds", "llms"}
FEED_HREF = re.compile(r'href="(/[^"]*feed\.(?:xml|json))"')


def feed_links_nowhere(site: Path) -> list[tuple[str, str]]:
    """(page, href) of each feed link of a page that is no file of the site."""
    out = []
    for page in sorted(site.rglob("*.html")):
        for href in FEED_HREF.findall(page.read_text(encoding="utf-8")):
            if not (site / unquote(href).lstrip("/")).is_file():
                out.append((page.relative_to(site).as_posix(), href))
    return out


def feeds_not_linked(site: Path) -> list[str]:
    """Each tag's or series' feed the build wrote that its page does not link."""
    out = []
    for feed in sorted(site.glob("*/*/*/feed.*")):
        page = (feed.parent / "index.html").read_text(encoding="utf-8")
        if f'/{feed.name}"' not in page:
            out.append(feed.relative_to(site).as_posix())
    return out


def _post(root: Path, rel: str, front: str) -> None:
    path = root / "content" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{front}---\n\n본문.\n", encoding="utf-8")


SCENARIOS = {
    "fallback": [("ko/posts/only-ko.md", "title: 한국어만\ndate: 2026-03-01\nseries: 혼자\n")],
    "draft-translation": [
        ("ko/posts/d.md", "title: 초안\ndate: 2026-03-01\nseries: 초안 연재\n"),
        ("en/posts/d.md", "title: Draft\ndraft: true\nseries: Draft series\n"),
    ],
    "draft-source": [
        ("ko/posts/d.md", "title: 초안\ndate: 2026-03-01\nseries: 초안 연재\ndraft: true\n"),
        ("ko/posts/e.md", "title: 초안 2\ndate: 2026-03-02\nseries: 연재\ndraft: true\n"),
    ],
    "scheduled": [
        ("ko/posts/s.md", "title: 예약\ndate: 2027-06-01\nseries: 예약 연재\n"),
        ("ko/posts/s2.md", "title: 예약 2\ndate: 2027-06-01\nseries: 연재\nseries_order: 3\n"),
    ],
}
CONFIGS = ["", "outputs:\n  untranslated: omit\n", "outputs:\n  publish_drafts: false\n"]


def _project(tmp_path: Path, config: str = "") -> Path:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    path = root / "bipub.yaml"
    path.write_text(path.read_text(encoding="utf-8") + config, encoding="utf-8")
    return root


def _linked_as_written(site: Path) -> None:
    assert feed_links_nowhere(site) == []
    assert feeds_not_linked(site) == []


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_every_feed_link_is_a_feed_the_build_wrote(
    tmp_path: Path, scenario: str, config: str
) -> None:
    root = _project(tmp_path, config)
    for rel, front in SCENARIOS[scenario]:
        _post(root, rel, front)
    build(root, only=KINDS, use_cache=False)
    site = root / "site"
    _linked_as_written(site)
    assert list(site.glob("*/series/*/feed.xml"))  # (not vacuous: the series' feeds are there)


EDITS = [
    ("ko/posts/alpha.md", "date: 2026-04-07\n", "date: 2026-04-07\ndraft: true\n"),
    ("ko/posts/beta.md", "date: 2026-05-01\n", "date: 2026-05-01\ndraft: true\n"),
    ("en/posts/alpha.md", "series: A series\n", "series: A series\ndraft: true\n"),
    ("ko/posts/beta.md", "date: 2026-05-01\n", "date: 2027-05-01\n"),  # (scheduled)
    ("ko/posts/alpha.md", "series: 연재\n", "series: 다른 연재\n"),
]


@pytest.mark.parametrize("resident", [False, True])
@pytest.mark.parametrize("edit", range(len(EDITS)), ids=[e[0] + ":" + e[2] for e in EDITS])
def test_after_an_edit_and_its_undoing(tmp_path: Path, edit: int, resident: bool) -> None:
    kept = Kept(BuildCache()) if resident else None  # (`bipub serve`'s; else read back)
    root = _project(tmp_path)
    rel, old, new = EDITS[edit]
    build(root, only=KINDS, kept=kept)
    _linked_as_written(root / "site")
    for _ in range(2):
        replace_in(root, "content/" + rel, old, new)
        build(root, only=KINDS, kept=kept)
        _linked_as_written(root / "site")
        replace_in(root, "content/" + rel, new, old)
        build(root, only=KINDS, kept=kept)
        _linked_as_written(root / "site")
