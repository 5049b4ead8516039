"""Session 29: a post's series box badges the parts the page's language does not have as
reviewed (not translated yet, machine draft, outdated) as the post cards do; before, a part not
translated yet was listed among the others with nothing to tell it apart but its title's
language.

The 'minimal' project: alpha is translated, beta (its series' part 2) exists in Korean only."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lxml import html as lxml_html

from tests.conftest import TESTS


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from bipub.pipeline import build

    project = tmp_path_factory.mktemp("series-box") / "minimal"
    shutil.copytree(TESTS / "projects" / "minimal", project)
    build(project, only={"html"})
    return project / "site"


def _parts(page: Path) -> list[tuple[str, list[str]]]:
    """(href, the badges' classes) of each part of the page's series box."""
    tree = lxml_html.fromstring(page.read_bytes())
    return [
        (str(li.xpath("./a/@href")[0]), [str(c) for c in li.xpath("./span[@class]/@class")])
        for li in tree.xpath("//nav[@class='series-box']//li")
    ]


def test_a_part_not_translated_yet_is_badged_in_the_series_box(site: Path) -> None:
    for page in ("alpha", "beta"):
        parts = _parts(site / "en" / "blog" / page / "index.html")
        assert parts == [
            ("/en/blog/alpha/", []),
            ("/en/blog/beta/", ["badge badge--missing"]),
        ], page
    text = (site / "en" / "blog" / "alpha" / "index.html").read_text(encoding="utf-8")
    assert "Not translated yet</span>" in text


def test_the_source_language_box_has_no_badge(site: Path) -> None:
    parts = _parts(site / "ko" / "blog" / "alpha" / "index.html")
    assert [badges for _, badges in parts] == [[], []]


@pytest.fixture(scope="module")
def joined(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """'minimal' plus delta, written in English only, in the series its English posts call
    "A series" (the Korean source calls it 연재)."""
    from bipub.pipeline import build

    project = tmp_path_factory.mktemp("series-joined") / "minimal"
    shutil.copytree(TESTS / "projects" / "minimal", project)
    (project / "content" / "en" / "posts" / "delta.md").write_text(
        "---\ntitle: Delta post\ndescription: English only\ndate: 2026-05-03\n"
        "source_lang: en\nseries: A series\nseries_order: 3\n---\n\nOnly in English.\n",
        encoding="utf-8",
    )
    build(project, only={"html"})
    return project / "site"


def test_a_post_in_one_language_joins_the_series_its_language_names_alike(joined: Path) -> None:
    """Before, delta made a second series "A series" whose page URL (en/series/a-series/) the
    first one's overwrote: delta's box said "Part 1 of 1" and linked a page without it, and the
    Korean side had a series page of its own whose language switch led to the English home."""
    hrefs = ["/en/blog/alpha/", "/en/blog/beta/", "/en/blog/delta/"]
    assert [href for href, _ in _parts(joined / "en" / "blog" / "delta" / "index.html")] == hrefs
    page = (joined / "en" / "series" / "a-series" / "index.html").read_text(encoding="utf-8")
    assert all(href in page for href in hrefs)
    assert [p.name for p in (joined / "ko" / "series").iterdir()] == ["연재"]
    ko = _parts(joined / "ko" / "blog" / "alpha" / "index.html")
    assert ko[-1] == ("/ko/blog/delta/", ["badge badge--missing"])


def test_two_series_on_one_url_get_two_pages_and_a_warning(tmp_path: Path) -> None:
    """gamma, in Korean only, names its own series "A series": on the English site it shows
    that name, which the minimal series' English name makes the same URL. Before, one series
    page silently replaced the other; now each has its page and the build says so (the
    property test of incremental builds met this: a warning, not an error, keeps every edit
    buildable)."""
    from bipub.pipeline import build

    project = tmp_path / "minimal"
    shutil.copytree(TESTS / "projects" / "minimal", project)
    (project / "content" / "ko" / "posts" / "gamma.md").write_text(
        "---\ntitle: 감마 글\ndescription: 다른 연재\ndate: 2026-05-02\nseries: A series\n---\n\n"
        "다른 연재의 글.\n",
        encoding="utf-8",
    )
    result = build(project, only={"html"})
    said = [d for d in result.warnings if d.code == "series-clash"]
    # the series begun first (alpha's, 2026-04-07) keeps its URL: a new series never moves
    # the page readers link to (before, the one whose key came first kept it: gamma's took
    # en/series/a-series/ from the series that had it)
    assert [(d.file, d.line) for d in said] == [("content/ko/posts/gamma.md", 5)]
    assert "(series/a-series/)" in said[0].message and "series/a-series-2/" in said[0].message
    site = project / "site" / "en" / "series"
    pages = {p.name: (p / "index.html").read_text(encoding="utf-8") for p in site.iterdir()}
    assert sorted(pages) == ["a-series", "a-series-2"]
    assert "/en/blog/alpha/" in pages["a-series"] and "/en/blog/gamma/" in pages["a-series-2"]
    # an older series, added later, takes the URL back: which page is whose follows the dates
    gamma = project / "content" / "ko" / "posts" / "gamma.md"
    gamma.write_text(gamma.read_text(encoding="utf-8").replace("2026-05-02", "2026-01-02"))
    again = build(project, only={"html"})
    said = [d for d in again.warnings if d.code == "series-clash"]
    assert [(d.file, d.line) for d in said] == [("content/en/posts/alpha.md", 4)]
    pages = {p.name: (p / "index.html").read_text(encoding="utf-8") for p in site.iterdir()}
    assert "/en/blog/gamma/" in pages["a-series"] and "/en/blog/alpha/" in pages["a-series-2"]


def test_a_part_naming_its_series_otherwise_is_said(tmp_path: Path) -> None:
    """beta's English translation (a machine draft, say) names the series otherwise than alpha,
    its first part in English: the series page shows alpha's name, and beta's was shown
    nowhere without a word."""
    from bipub.pipeline import build

    project = tmp_path / "minimal"
    shutil.copytree(TESTS / "projects" / "minimal", project)
    beta = project / "content" / "en" / "posts" / "beta.md"
    beta.write_text(
        "---\ntitle: Beta post\ndescription: Not translated\nseries: Serial\n---\n\nNot yet.\n",
        encoding="utf-8",
    )
    result = build(project, only={"html"})
    said = [d for d in result.warnings if d.code == "series-names"]
    assert [(d.file, d.line) for d in said] == [("content/en/posts/beta.md", 4)]
    assert "'Serial'" in said[0].message and "'A series'" in said[0].message
    assert "content/en/posts/alpha.md:4" in said[0].message
    again = build(project, only={"html"})  # nothing changed: still said
    assert [d.code for d in again.warnings if d.code == "series-names"] == ["series-names"]
    beta.write_text(beta.read_text(encoding="utf-8").replace("Serial", "A series"))
    fixed = build(project, only={"html"})
    assert not [d for d in fixed.warnings if d.code == "series-names"]
