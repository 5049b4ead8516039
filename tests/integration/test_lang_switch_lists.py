"""Session 30: the language switcher of a list page (the blog, a tag) the other language has
no page of the same number of (fewer posts there) goes to the last page that list has in that
language, not to that language's home with a "no version of this page" notice.

The 'minimal' project with `outputs.untranslated: omit` (each language lists only its own
posts) and two posts to a page: five Korean posts (three blog pages), three English (two)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lxml import html as lxml_html

from tests.conftest import TESTS


def _project(project: Path) -> Path:
    shutil.copytree(TESTS / "projects" / "minimal", project)
    with (project / "bipub.yaml").open("a", encoding="utf-8") as f:
        f.write("outputs:\n  untranslated: omit\n")
    content = project / "content"
    for n, slug in enumerate(["gamma", "delta", "epsilon"]):
        (content / "ko" / "posts" / f"{slug}.md").write_text(
            f"---\ntitle: {slug} 글\ndescription: 한국어만\ndate: 2026-04-0{n + 1}\n"
            "tags: [kv-cache]\n---\n\n한국어로만 있습니다.\n",
            encoding="utf-8",
        )
    for n, slug in enumerate(["zeta", "eta"]):
        (content / "en" / "posts" / f"{slug}.md").write_text(
            f"---\ntitle: {slug} post\ndescription: English only\ndate: 2026-03-0{n + 1}\n"
            "source_lang: en\n---\n\nOnly in English.\n",
            encoding="utf-8",
        )
    return project


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from bipub.pipeline import build

    project = _project(tmp_path_factory.mktemp("switch") / "minimal")
    build(project, only={"html"})
    return project / "site"


def _switch(site: Path, rel: str) -> dict[str, tuple[str, str | None]]:
    """The switcher's links of a page: language → (href, rel)."""
    tree = lxml_html.fromstring((site / rel).read_bytes())
    return {
        a.get("hreflang"): (a.get("href"), a.get("rel"))
        for a in tree.xpath('//nav[contains(@class, "lang-switch")]//a')
    }


def test_the_lists_have_the_pages_the_test_needs(site: Path) -> None:
    assert (site / "ko/blog/page/3/index.html").is_file()
    assert (site / "en/blog/page/2/index.html").is_file()
    assert not (site / "en/blog/page/3").exists()


def test_a_page_past_the_other_languages_last_goes_to_that_last_page(site: Path) -> None:
    links = _switch(site, "ko/blog/page/3/index.html")
    assert links["en"] == ("/en/blog/page/2/", None)  # not a counterpart: no rel=alternate
    html = (site / "ko/blog/page/3/index.html").read_text(encoding="utf-8")
    assert "lang-switch__missing" not in html
    assert 'hreflang="en" href=' not in html.split("</head>")[0]


def test_a_tag_page_past_the_other_languages_last_goes_to_its_first(site: Path) -> None:
    # the tag has five Korean posts (three pages), one English (one)
    assert (site / "ko/tags/kv-cache/page/3/index.html").is_file()
    assert not (site / "en/tags/kv-cache/page").exists()
    assert _switch(site, "ko/tags/kv-cache/page/3/index.html")["en"] == ("/en/tags/kv-cache/", None)


def test_pages_that_have_a_counterpart_keep_it(site: Path) -> None:
    assert _switch(site, "ko/blog/page/2/index.html")["en"] == ("/en/blog/page/2/", "alternate")
    assert _switch(site, "en/blog/page/2/index.html")["ko"] == ("/ko/blog/page/2/", "alternate")


def test_a_resident_build_follows_the_other_language_losing_a_page(tmp_path: Path) -> None:
    """`bipub serve` keeps a page whose fingerprint did not change: the page its switcher goes
    to is part of it (page_plan._summary), so the Korean page 3 is made again when the English
    blog loses its page 2."""
    from bipub.cache import BuildCache
    from bipub.pipeline import Kept, build

    project = _project(tmp_path / "minimal")
    kept = Kept(BuildCache())
    build(project, only={"html"}, kept=kept)
    site = project / "site"
    assert _switch(site, "ko/blog/page/3/index.html")["en"][0] == "/en/blog/page/2/"
    (project / "content/en/posts/zeta.md").unlink()  # English: two posts, one page
    build(project, only={"html"}, kept=kept)
    assert not (site / "en/blog/page/2/index.html").exists()
    assert _switch(site, "ko/blog/page/3/index.html")["en"][0] == "/en/blog/"


def test_a_build_in_a_new_process_follows_the_other_language_losing_a_page(
    tmp_path: Path,
) -> None:
    """The same without a resident memo: the build state's listing values (page_plan._summary)
    hold the page the switcher goes to."""
    from bipub.pipeline import build

    project = _project(tmp_path / "minimal")
    build(project, only={"html"})
    (project / "content/en/posts/zeta.md").unlink()
    build(project, only={"html"})
    assert _switch(project / "site", "ko/blog/page/3/index.html")["en"][0] == "/en/blog/"
