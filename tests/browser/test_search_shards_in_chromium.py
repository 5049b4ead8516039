"""The search index in shards (render/search_shards.py), in real headless Chromium: the demo built
with two pages a shard, so the search page merges several Pagefind bundles (static/search.js)
and still finds what the one-bundle index finds, best first."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bipub.pipeline import build
from bipub.serve import ServeStatus, listen, make_handler
from tests.browser.test_reader_in_chromium import MATH_POST, search
from tests.conftest import copy_demo

pytestmark = [pytest.mark.browser, pytest.mark.real_search]  # (the real Pagefind)


@pytest.fixture(scope="module")
def sharded_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = copy_demo(tmp_path_factory.mktemp("sharded"))
    config = project / "bipub.yaml"
    text = config.read_text(encoding="utf-8")
    assert "search_shard_pages" not in text
    if "\noutputs:\n" in text:
        text = text.replace("\noutputs:\n", "\noutputs:\n  search_shard_pages: 2\n", 1)
    else:
        text += "outputs:\n  search_shard_pages: 2\n"
    config.write_text(text, encoding="utf-8")
    # (a new copy: no build cache of its own, every shard made; the user cache's drawn diagrams,
    # images and cards are taken as every demo build of the run takes them — with --no-cache
    # mermaid-cli drew the demo's diagrams again, ~3 CPU s, for pages whose search is tested)
    build(project, project / "site")
    return project / "site"


@pytest.fixture(scope="module")
def site_url(sharded_site: Path) -> Iterator[str]:  # (overrides conftest's: the sharded demo)
    status = ServeStatus()
    server = listen("127.0.0.1", 0, make_handler(sharded_site, status))  # (as serve: a browser
    # that leaves a page before its answer is sent prints no traceback)
    server.daemon_threads = False
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    status.close()  # the pages' live-reload streams end now (as conftest's site_url does)
    server.shutdown()
    server.server_close()
    thread.join()


def test_the_index_is_in_several_shards(sharded_site: Path) -> None:
    for lang in ("ko", "en"):
        shards = json.loads((sharded_site / lang / "pagefind" / "shards.json").read_text("utf-8"))
        assert len(shards["bundles"]) >= 4


def test_queries_find_their_post_across_shards(browser: Any, site_url: str) -> None:
    assert search(browser, site_url, "ko", "소프트맥스가")[:1] == ["/ko" + MATH_POST]
    assert search(browser, site_url, "ko", "식히다")[:1] == ["/ko" + MATH_POST]
    assert search(browser, site_url, "en", "temperatures")[:1] == ["/en" + MATH_POST]


def test_a_word_in_many_posts_finds_them_in_every_shard(
    browser: Any, site_url: str, sharded_site: Path
) -> None:
    # every English post page carries its title and body; "the" is in nearly all of them
    hrefs = search(browser, site_url, "en", "the")
    bundles = json.loads((sharded_site / "en" / "pagefind" / "shards.json").read_text("utf-8"))
    largest = max(
        len(list((sharded_site / "en" / "pagefind" / b / "fragment").iterdir()))
        for b in bundles["bundles"]
    )
    assert len(hrefs) > largest  # more results than any one shard holds pages


def test_an_index_that_cannot_load_is_said_and_enter_does_not_reload(
    browser: Any, site_url: str
) -> None:
    """Enter pressed before (or without) the index: the page stays, and says the index could
    not be loaded (static/search.js attaches the form at once and waits for the index)."""
    page = browser.new_page()
    page.route("**/shards.json", lambda route: route.fulfill(status=404, body="gone"))
    page.goto(f"{site_url}/en/search/", wait_until="load")
    page.locator("#search-q").fill("temperatures")
    page.locator("#search-q").press("Enter")
    page.wait_for_function("document.querySelector('.search-status').textContent !== ''")
    status = page.locator(".search-status")
    assert status.inner_text() == status.get_attribute("data-failed")
    assert page.url.endswith("/en/search/?q=temperatures")  # (history, not a new request)
    page.close()
