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
