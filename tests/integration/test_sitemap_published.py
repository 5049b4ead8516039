"""Session 29: sitemap.xml against what is published. Every page a search engine should index
(not `noindex`, its canonical URL its own) is in the sitemap, the language entry page `/`
included (it was missing); nothing else is (drafts, pages shown untranslated, side-by-side
pages, 404); each URL's alternates are the page's own `hreflang` links, x-default included, and
the homes' x-default is `/` on the pages and in the sitemap alike (the homes said /ko/ while `/`
said itself: two x-defaults for one set of pages)."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import quote

import pytest
from lxml import html as lxml_html

from tests.conftest import TESTS

SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
XHTML = "{http://www.w3.org/1999/xhtml}"
BASE = "https://test.example.org"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from bipub.pipeline import build

    project = tmp_path_factory.mktemp("sitemap") / "minimal"
    shutil.copytree(TESTS / "projects" / "minimal", project)
    (project / "content" / "ko" / "posts" / "draft.md").write_text(
        "---\ntitle: 초안\ndate: 2026-05-09\ndraft: true\n---\n\n아직 쓰는 중.\n", encoding="utf-8"
    )
    build(project, only={"html", "feeds"})
    return project / "site"


def _sitemap(site: Path) -> dict[str, set[tuple[str, str]]]:
    root = ET.parse(site / "sitemap.xml").getroot()
    out = {}
    for url in root.iter(f"{SM}url"):
        loc = url.findtext(f"{SM}loc") or ""
        alternates = {(a.get("hreflang", ""), a.get("href", "")) for a in url.iter(f"{XHTML}link")}
        assert loc not in out, f"{loc} twice"
        out[loc] = alternates
    return out


def _published(site: Path) -> dict[str, set[tuple[str, str]]]:
    """Each indexable page's URL → its hreflang alternates, as its <head> says."""
    out = {}
    for page in sorted(site.rglob("*.html")):
        tree = lxml_html.fromstring(page.read_bytes())
        rel = page.relative_to(site).as_posix()
        url = f"{BASE}/" + quote(re.sub(r"(^|/)index\.html$", r"\1", rel), safe="/-._~")
        robots = " ".join(tree.xpath("//meta[@name='robots']/@content"))
        canonical = tree.xpath("//link[@rel='canonical']/@href")
        if "noindex" in robots or (canonical and canonical[0] != url):
            continue
        alternates = {
            (str(a.get("hreflang")), str(a.get("href")))
            for a in tree.xpath("//link[@rel='alternate'][@hreflang][not(@type)]")
        }
        out[url] = alternates if len(alternates) > 2 else set()  # (one language + x-default)
    return out


def test_the_sitemap_lists_what_is_published_with_its_alternates(site: Path) -> None:
    listed, published = _sitemap(site), _published(site)
    assert f"{BASE}/" in listed
    assert sorted(listed) == sorted(published)
    for url, alternates in listed.items():
        assert alternates == published[url], url
    assert not [u for u in listed if "/draft/" in u or "/both/" in u or u.endswith("404.html")]


def test_the_homes_and_the_entry_page_share_one_x_default(site: Path) -> None:
    homes = {f"{BASE}/", f"{BASE}/ko/", f"{BASE}/en/"}
    published = _published(site)
    for url in homes:
        assert ("x-default", f"{BASE}/") in published[url], url
    blog = published[f"{BASE}/en/blog/"]
    assert ("x-default", f"{BASE}/ko/blog/") in blog  # (other pages: the default language's)
