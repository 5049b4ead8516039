"""Issue 19 item 6: an Atom feed and a JSON Feed 1.1 per language, per tag and per series, with
full content and each entry's translation state (one HTML + feeds build shared by the module).

The sample: the minimal project, its missing English translation of `beta` drafted by the fake
engine (a machine draft, published with its notice), and a Korean post `gamma` written after the
drafting (not translated: shown in Korean on the English side).
"""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.conftest import TESTS
from tests.review_engine import FakeEngine, draft

ATOM = "{http://www.w3.org/2005/Atom}"
BIPUB = "{https://bipub.invalid/ns/feed}"
BASE = "https://test.example.org"
GAMMA = """\
---
title: 감마 글
date: 2026-05-10
tags: [vllm]
---

감마 본문입니다.

- [x] 끝낸 일
- [ ] 남은 일

A box written as code stays: `<input class="task-list-item-checkbox" type="checkbox" disabled>`.
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from bipub.pipeline import build

    root = tmp_path_factory.mktemp("feeds") / "minimal"
    shutil.copytree(TESTS / "projects" / "minimal", root)
    result = draft(root, "en", FakeEngine())
    assert result.drafted and not result.stopped
    (root / "content/ko/posts/gamma.md").write_text(GAMMA, encoding="utf-8")
    build(root, only={"html", "feeds"})
    return root / "site"


def atom(site: Path, rel: str) -> ET.Element:
    return ET.parse(site / rel).getroot()


def entries(feed: ET.Element) -> dict[str, ET.Element]:
    return {e.findtext(f"{ATOM}id") or "": e for e in feed.iter(f"{ATOM}entry")}


def absolute(url: str | None) -> bool:
    parts = urlsplit(url or "")
    return parts.scheme == "https" and bool(parts.netloc)


FEEDS = [
    ("ko/feed.xml", "/ko/"),
    ("en/feed.xml", "/en/"),
    ("ko/tags/vllm/feed.xml", "/ko/tags/vllm/"),
    ("en/tags/kv-cache/feed.xml", "/en/tags/kv-cache/"),
    ("en/series/a-series/feed.xml", "/en/series/a-series/"),
    ("ko/series/연재/feed.xml", "/ko/series/%EC%97%B0%EC%9E%AC/"),
]


@pytest.mark.parametrize(("rel", "page"), FEEDS)
def test_atom_feeds_follow_rfc_4287(site: Path, rel: str, page: str) -> None:
    """The rules of RFC 4287 that matter: one id (the page the feed follows: stable while its
    slug is), an updated instant, one author (entries inherit it), absolute links, and per
    entry an id, a title, an updated instant and an absolute alternate link."""
    feed = atom(site, rel)
    assert feed.tag == f"{ATOM}feed"
    assert feed.findtext(f"{ATOM}id") == BASE + page
    assert len(feed.findall(f"{ATOM}id")) == 1 and len(feed.findall(f"{ATOM}updated")) == 1
    assert feed.findtext(f"{ATOM}title")
    authors = feed.findall(f"{ATOM}author")
    assert len(authors) == 1 and authors[0].findtext(f"{ATOM}name") == "Min Test"
    links = {link.get("rel"): link.get("href") for link in feed.findall(f"{ATOM}link")}
    assert links["self"] == BASE + page + "feed.xml"
    assert all(absolute(href) for href in links.values())
    found = feed.findall(f"{ATOM}entry")
    assert found
    ids = [e.findtext(f"{ATOM}id") for e in found]
    assert len(set(ids)) == len(ids)
    for entry in found:
        for name in ("title", "id", "updated", "published"):
            assert entry.findtext(f"{ATOM}{name}"), name
        assert absolute(entry.findtext(f"{ATOM}id"))
        assert absolute(entry.find(f"{ATOM}link").get("href"))  # type: ignore[union-attr]
        content = entry.find(f"{ATOM}content")
        assert content is not None and content.get("type") == "html" and content.text


def test_a_tag_feed_holds_the_tags_posts_only(site: Path) -> None:
    vllm = entries(atom(site, "ko/tags/vllm/feed.xml"))
    assert set(vllm) == {f"{BASE}/ko/blog/alpha/", f"{BASE}/ko/blog/gamma/"}
    series = entries(atom(site, "en/series/a-series/feed.xml"))
    assert set(series) == {f"{BASE}/en/blog/alpha/", f"{BASE}/en/blog/beta/"}


def test_an_entry_is_the_same_in_every_feed_that_shows_it(site: Path) -> None:
    """Same id, same content: a reader subscribed to the language and a tag sees one post."""
    main = entries(atom(site, "ko/feed.xml"))
    tag = entries(atom(site, "ko/tags/vllm/feed.xml"))
    for entry_id, entry in tag.items():
        assert ET.tostring(entry) == ET.tostring(main[entry_id])


def state(entry: ET.Element) -> tuple[str | None, str | None]:
    ext = entry.find(f"{BIPUB}translation")
    assert ext is not None
    return ext.get("state"), ext.get("reviewed")


def test_atom_entries_carry_their_translation_state(site: Path) -> None:
    en = entries(atom(site, "en/feed.xml"))
    alpha, beta, gamma = (en[f"{BASE}/en/blog/{slug}/"] for slug in ("alpha", "beta", "gamma"))
    assert state(alpha) == ("translated", "true")
    assert state(beta) == ("draft", "false")
    assert state(gamma) == ("missing", "false")
    content = {k: e.findtext(f"{ATOM}content") or "" for k, e in en.items()}
    # a machine draft is never shown as reviewed: its content starts with the notice
    assert content[f"{BASE}/en/blog/beta/"].startswith(
        '<p lang="en"><strong>Machine translation, not reviewed</strong>'
    )
    assert content[f"{BASE}/en/blog/gamma/"].startswith(
        '<p lang="en"><strong>Not translated yet</strong>'
    )  # (in the feed's language: the entry is in the original's)
    assert "<strong>" not in content[f"{BASE}/en/blog/alpha/"]  # reviewed: no note
    assert gamma.get("{http://www.w3.org/XML/1998/namespace}lang") == "ko"
    ko = entries(atom(site, "ko/feed.xml"))
    assert {state(e) for e in ko.values()} == {("source", "true")}


def test_feed_content_is_the_full_body(site: Path) -> None:
    entry = entries(atom(site, "ko/feed.xml"))[f"{BASE}/ko/blog/alpha/"]
    content = entry.findtext(f"{ATOM}content") or ""
    assert '<pre><code class="highlight language-python"' in content  # the body, not a summary
    assert entry.find(f"{ATOM}content").get("{http://www.w3.org/XML/1998/namespace}base") == (  # type: ignore[union-attr]
        f"{BASE}/ko/blog/alpha/"
    )


def test_task_list_checkboxes_are_text_in_feeds_only(site: Path) -> None:
    """Session 30: many feed readers strip <input>; in a feed a task item's box is ☑ or ☐."""
    entry = entries(atom(site, "ko/feed.xml"))[f"{BASE}/ko/blog/gamma/"]
    content = entry.findtext(f"{ATOM}content") or ""
    assert '<li class="task-list-item">☑ 끝낸 일</li>' in content
    assert '<li class="task-list-item">☐ 남은 일</li>' in content
    assert "<input" not in content
    assert content.count("☐") == 1  # (not the box in the code span, escaped as written)
    assert "<code>&lt;input class=&quot;task-list-item-checkbox&quot;" in content
    items = {i["id"]: i for i in json_feed(site, "ko/feed.json")["items"]}
    assert items[f"{BASE}/ko/blog/gamma/"]["content_html"] == content
    page = (site / "ko/blog/gamma/index.html").read_text(encoding="utf-8")
    assert 'type="checkbox" disabled checked> 끝낸 일' in page  # the page keeps the checkbox
    assert "☑" not in page


def json_feed(site: Path, rel: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((site / rel).read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize(("rel", "page"), FEEDS)
def test_json_feeds_have_the_required_fields(site: Path, rel: str, page: str) -> None:
    """JSON Feed 1.1: version, title and items; each item an id (a string) and content_html;
    feed_url is where the file is; dates in RFC 3339 as in the Atom feed."""
    rel = rel.removesuffix(".xml") + ".json"
    data = json_feed(site, rel)
    assert data["version"] == "https://jsonfeed.org/version/1.1"
    assert data["title"] and isinstance(data["items"], list) and data["items"]
    assert data["feed_url"] == BASE + page + "feed.json"
    assert data["home_page_url"].startswith(BASE)
    assert data["authors"] == [{"name": "Min Test"}]
    feed = entries(atom(site, rel.removesuffix(".json") + ".xml"))
    for item in data["items"]:
        assert isinstance(item["id"], str) and item["url"] == item["id"]
        assert item["content_html"]
        assert set(item) <= {
            "id", "url", "title", "content_html", "summary", "date_published",
            "date_modified", "tags", "language", "_bipub",
        }  # fmt: skip
        entry = feed[item["id"]]  # the same entries as the Atom feed
        assert item["date_published"] == entry.findtext(f"{ATOM}published")
        assert item["content_html"] == entry.findtext(f"{ATOM}content")


def test_json_feed_items_carry_their_translation_state(site: Path) -> None:
    items = {i["id"]: i for i in json_feed(site, "en/feed.json")["items"]}
    beta = items[f"{BASE}/en/blog/beta/"]["_bipub"]
    assert (beta["translation_state"], beta["reviewed"]) == ("draft", False)
    assert beta["source_language"] == "ko"
    assert items[f"{BASE}/en/blog/alpha/"]["_bipub"]["reviewed"] is True
    assert items[f"{BASE}/en/blog/gamma/"]["language"] == "ko"


def test_pages_link_their_feeds(site: Path) -> None:
    def head(rel: str) -> str:
        return (site / rel).read_text(encoding="utf-8").split("</head>")[0]

    home = head("en/index.html")
    assert (
        '<link rel="alternate" type="application/atom+xml" title="Test site" href="/en/feed.xml">'
        in home
    )
    assert 'type="application/feed+json" title="Test site" href="/en/feed.json"' in home
    tag = head("en/tags/kv-cache/index.html")
    assert (
        'type="application/atom+xml" title="#KV cache · Test site" href="/en/tags/kv-cache/feed.xml"'
        in tag
    )
    assert (
        'type="application/feed+json" title="#KV cache · Test site" href="/en/tags/kv-cache/feed.json"'
        in tag
    )
    series = head("ko/series/연재/index.html")
    assert 'href="/ko/series/%EC%97%B0%EC%9E%AC/feed.xml"' in series
    assert 'href="/ko/series/%EC%97%B0%EC%9E%AC/feed.json"' in series
