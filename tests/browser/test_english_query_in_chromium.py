"""Session 34, in real headless Chromium on the shared built demo: the English search page reads
inflected words as Pagefind's English stemming promises (docs/outputs.md, *Search*), and what the
Korean lexicon's reading added to the search page (the table of particles in shards.json, the
words left out and named) changes nothing for an English query.

Pagefind stems the English index's words (caching, cached, caches → cach), and matched a query
word whose stem no indexed word starts with to the longest one its stem starts with (kubernetes
found the letter k, partition found part). Since session 34 the English index has a lexicon too
(its Latin words, `l`): a query word is asked if a word of the index starts with it, or if
Pagefind's exact search for it finds a page (its stem is a word of the index: quantize); else it is
left out and named (static/search.js `readStemmed`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.browser.search_page import index_sweep
from tests.browser.test_korean_query_in_chromium import _query, _unread
from tests.browser.test_reader_in_chromium import search

pytestmark = pytest.mark.browser

FP8 = "/en/blog/fp8-vs-awq/"  # says cache (the KV cache), never caching, cached or caches


@pytest.mark.parametrize(
    "forms",
    [
        ("cache", "caching", "cached", "caches"),
        ("scheduler", "schedulers", "scheduling"),
        ("quantization", "quantized", "quantize"),  # (no page says quantize)
        ("temperature", "temperatures"),  # (no page says temperatures)
    ],
)
def test_the_forms_of_an_english_word_find_the_same_posts(
    browser: Any, site_url: str, forms: tuple[str, ...]
) -> None:
    found = {form: _query(browser, site_url, "en", form) for form in forms}
    first = found[forms[0]]
    assert first[0] and first[1] == ""  # (found, and no word said left out)
    assert all(sorted(hrefs) == sorted(first[0]) and said == "" for hrefs, said in found.values())


def test_an_inflected_form_finds_a_post_that_says_another(browser: Any, site_url: str) -> None:
    assert FP8 in search(browser, site_url, "en", "caching")  # (by the stem, not a prefix)
    assert FP8 in search(browser, site_url, "en", "cached")


def test_several_inflected_words_are_each_found_and_none_is_left_out(
    browser: Any, site_url: str
) -> None:
    """The page asks each word of a query of several on its own, to name those Pagefind finds
    nothing for: an English form no page says (quantize) is found by its stem, and not named."""
    hrefs, said = _query(browser, site_url, "en", "quantize caching")
    assert FP8 in hrefs and said == ""
    hrefs, said = _query(browser, site_url, "en", '"prefix caching"')
    assert "/en/blog/prefix-caching/" in hrefs and said == ""
    phrase, said = _query(browser, site_url, "en", '"caching prefix"')  # (Pagefind's phrase)
    assert said == "" and 0 < len(phrase) < len(search(browser, site_url, "en", "caching prefix"))


@pytest.mark.parametrize(
    "query", ["kubernetes", "partition", "Kubernetes", "partitions", "quantizationx", "kxyzzy"]
)
def test_a_word_no_page_has_is_named_and_not_matched_to_a_shorter_one(
    browser: Any, site_url: str, query: str
) -> None:
    """Pagefind matched kubernetes (stem kubernet) to the letter k of the code samples, and
    partition (partit) to part: the page showed those posts as found. Asked as typed, Pagefind
    still finds them (the fallback this reading keeps the reader from)."""
    page = browser.new_page()
    page.goto(f"{site_url}/en/search/", wait_until="load")
    assert page.evaluate(FALLBACK, query) > 0  # (made-up words: quantiz, k)
    page.close()
    assert _query(browser, site_url, "en", query) == ([], query)
    caching = search(browser, site_url, "en", "caching")
    assert _query(browser, site_url, "en", f"caching {query}") == (caching, query)


FALLBACK = """async (query) => {
  const shards = await (await fetch('/en/pagefind/shards.json')).json();
  const pagefind = await import('/en/pagefind/' + shards.bundles[0] + 'pagefind.js');
  await pagefind.options({ baseUrl: '/' });
  return (await pagefind.search(query)).results.length;
}"""

ENGLISH_SWEEP = index_sweep(
    "en",
    """
  const exact = async (run) => (await pagefind.search(`"${run}"`)).results.length > 0;
  const runs = files.flatMap((f) => f.l), missed = [];
  for (const run of runs) {
    const asked = (await s.readQuery(run, lexiconOf, shards.table, exact)).text;
    if (asked !== run || !(await pagefind.search(asked)).results.length) missed.push([run, asked]);
  }
  return { runs: runs.length, stemmed: shards.stemmed, missed };
""",
)


def test_every_word_of_the_english_index_finds_a_post(browser: Any, site_url: str) -> None:
    """No false "no results": each Latin word the English lexicon lists (`l`, ~1,600 on the demo)
    typed as it is (in lower case: as Pagefind indexes it) is asked and finds a post."""
    page = browser.new_page()
    page.goto(f"{site_url}/en/search/", wait_until="load")
    found = page.evaluate(ENGLISH_SWEEP)
    page.close()
    assert found["runs"] > 1000 and found["stemmed"] is True and found["missed"] == []


def test_every_index_says_whether_pagefind_stems_it_and_has_a_lexicon(
    browser: Any, site_url: str, demo_site: Path
) -> None:
    """The English page reads a word by its lexicon and by Pagefind's exact search: a shards.json
    without them (a build from before) is said, not read as typed (Pagefind's fallback)."""
    for lang, stemmed in (("ko", False), ("en", True)):
        listing = json.loads((demo_site / lang / "pagefind" / "shards.json").read_text("utf-8"))
        assert listing["stemmed"] is stemmed and listing["words"]

    def without_words(route: Any) -> None:
        listing = json.loads(route.fetch().text())
        del listing["words"]
        route.fulfill(status=200, content_type="application/json", body=json.dumps(listing))

    page = browser.new_page()
    page.route("**/shards.json", without_words)
    page.goto(f"{site_url}/en/search/?q=kubernetes", wait_until="load")
    page.wait_for_function("document.querySelector('.search-status').textContent !== ''")
    status = page.locator(".search-status")
    assert status.inner_text() == status.get_attribute("data-failed")
    assert page.locator(".search-result").count() == 0
    page.close()


def _latin_note(browser: Any, site_url: str, lang: str, query: str) -> tuple[bool, bool]:
    """Whether the page shows its note on Latin words, and its link to the other language."""
    page = browser.new_page()
    page.goto(f"{site_url}/{lang}/search/?q=" + query, wait_until="load")
    page.wait_for_function("document.querySelector('.search-status').textContent !== ''")
    shown = page.locator(".search-latin").is_visible(), page.locator(".search-other").is_visible()
    _unread(page)
    page.close()
    return shown


def test_the_korean_page_says_it_matches_an_english_word_as_typed(
    browser: Any, site_url: str
) -> None:
    """The Korean index is not stemmed as English (Kiwi stems its Korean words): caching finds the
    Korean posts that say caching, cache those that say cache, caches or cached. The page says so
    when a Latin word is typed, and offers the English page, which finds every form."""
    caching, cache = (
        search(browser, site_url, "ko", "caching"),
        search(browser, site_url, "ko", "cache"),
    )
    assert caching and cache and sorted(caching) != sorted(cache)
    assert _latin_note(browser, site_url, "ko", "caching") == (True, True)
    assert _latin_note(browser, site_url, "ko", "GPU를 캐시") == (True, True)
    assert _latin_note(browser, site_url, "ko", "캐시를") == (False, False)
    assert _latin_note(browser, site_url, "en", "caching") == (False, False)
