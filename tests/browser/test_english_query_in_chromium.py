"""Session 34, in real headless Chromium on the shared built demo: the English search page reads
inflected words as Pagefind's English stemming promises (docs/outputs.md, *Search*), and what the
Korean lexicon's reading added to the search page (the table of particles in shards.json, the
words left out and named) changes nothing for an English query.

The English index has no lexicon: its words go to Pagefind as typed (a Latin run with Korean
particles loses them: GPU가 → GPU), and Pagefind stems them (caching, cached, caches → cach)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.test_korean_query_in_chromium import _query
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
