"""Session 33, in real headless Chromium on the shared built demo: a Korean reader's query word is
read as the index read the words of the posts (the lexicon beside the index, render/search_words.py;
static/search.js `readWord`), whatever ending the reader typed.

Before: 재사용했습니다 found the two posts that say `직접 재 보다` (Pagefind matched the indexed
word 재, the longest it starts with) and not the one that says 재사용합니다; 적중률이 올랐다 found
nothing although prefix-caching says `적중률이 9%p 올랐습니다` (indexed with ⟦오르다⟧).

Session 34: GPU를 found the one post of eight that says GPU를 (now: what GPU finds); k8s의 and
kubernetes found the posts with the letter k (now: nothing, and named); a word left out of a
query is named under the count; the particles and endings come in shards.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bipub.render.search_words import table
from tests.browser.search_page import ask, index_sweep
from tests.browser.test_reader_in_chromium import search

pytestmark = pytest.mark.browser

PREFIX = "/ko/blog/prefix-caching/"
MEASURED = ("/ko/blog/tensor-parallel-allreduce/", "/ko/blog/speculative-decoding/")  # 재 보다


def test_another_ending_finds_the_word_and_not_a_fragment(browser: Any, site_url: str) -> None:
    hrefs = search(browser, site_url, "ko", "재사용했습니다")  # the post: 재사용합니다, 재사용되고
    assert hrefs == [PREFIX]
    assert not set(hrefs) & set(MEASURED)


def test_a_verb_in_another_tense_finds_its_post(browser: Any, site_url: str) -> None:
    assert search(browser, site_url, "ko", "적중률이 올랐다") == [PREFIX]  # (올랐습니다 there)


def test_a_word_of_an_image_description_finds_its_post(browser: Any, site_url: str) -> None:
    # the tensor-parallel post says 고리로 only in an image's alt, which Pagefind indexes
    assert search(browser, site_url, "ko", "고리로 이어져") == [MEASURED[0]]


def test_what_was_found_before_still_is(browser: Any, site_url: str) -> None:
    assert PREFIX in search(browser, site_url, "ko", "오르다")
    assert len(search(browser, site_url, "ko", "오르다")) == 3  # 올랐습니다, 올랐다, 오른
    assert search(browser, site_url, "ko", "재사용") == [PREFIX]
    assert PREFIX in search(browser, site_url, "ko", "캐시를")
    assert search(browser, site_url, "en", "prefix caching")[:1] == ["/en/blog/prefix-caching/"]


def test_a_word_no_post_has_finds_nothing_and_offers_the_other_language(
    browser: Any, site_url: str
) -> None:
    """재밌었습니다 starts with 재 too: asked of Pagefind, it found the `재 보다` posts."""
    page = browser.new_page()
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    page.goto(f"{site_url}/ko/search/?q=" + "재밌었습니다", wait_until="load")
    page.wait_for_function("document.querySelector('.search-status').textContent !== ''")
    status = page.locator(".search-status")
    assert status.inner_text() == status.get_attribute("data-none")
    assert page.locator(".search-result").count() == 0
    assert page.locator(".search-other").is_visible()
    assert _unread(page) == "재밌었습니다"  # (said: session 34)
    # one lexicon file (the first syllable's), and no Pagefind word index was read
    assert len([u for u in asked if "/pagefind/words/" in u]) == 1
    assert not [u for u in asked if "/index/" in u and u.endswith(".pf_index")]
    page.close()


def _unread(page: Any) -> str:
    """The words the page says it left out (its .search-unread note), "" if it says none."""
    note = page.locator(".search-unread")
    if not note.is_visible():
        assert note.inner_text() == ""
        return ""
    text = note.inner_text()
    template = note.get_attribute("data-text")
    head, tail = template.split("{words}")
    assert text.startswith(head) and text.endswith(tail), (text, template)
    return text[len(head) : len(text) - len(tail)]


def _query(browser: Any, site_url: str, lang: str, query: str) -> tuple[list[str], str]:
    """The results' hrefs and the words the page says it left out."""
    page = ask(browser, site_url, lang, query)
    hrefs = [a.get_attribute("href") for a in page.locator(".search-result__title").all()]
    said = _unread(page)
    return hrefs, said


def test_a_word_left_out_is_said_and_the_others_are_searched(browser: Any, site_url: str) -> None:
    """Session 34: a word the lexicon cannot read (올랐었다: the posts say 올랐다, 올랐습니다)
    made the whole search find nothing, with only "No results"; now it is left out, and the
    page says so under the count."""
    hrefs, said = _query(browser, site_url, "ko", "적중률이 올랐었다")
    assert hrefs == search(browser, site_url, "ko", "적중률이") and PREFIX in hrefs
    assert said == "올랐었다"
    # a Latin run no word of the index starts with (task 2's words), and one Pagefind finds
    # nothing for: Pagefind left such a term out of the query without a word
    gpu = search(browser, site_url, "ko", "GPU")
    assert _query(browser, site_url, "ko", "GPU를 k8s의") == (gpu, "k8s의")
    assert _query(browser, site_url, "ko", "캐시를 & zzqx")[1] == "zzqx"  # (not &: no word)
    assert _query(browser, site_url, "ko", "올랐었다 k8s의") == ([], "올랐었다, k8s의")
    # none said when every word is read and found, even if no page has them all
    assert _query(browser, site_url, "ko", "GPU를 적중률이")[1] == ""
    assert _query(browser, site_url, "en", "prefix temperatures") == ([], "")


def test_a_word_with_two_particles_finds_its_posts(browser: Any, site_url: str) -> None:
    """캐시로는 and 캐시와의 could not be read (one particle was taken off), and the page said no
    page had them, where posts say 캐시를 and 캐시가."""
    cache = search(browser, site_url, "ko", "캐시")
    assert cache and _query(browser, site_url, "ko", "캐시로는") == (cache, "")
    assert _query(browser, site_url, "ko", "캐시와의") == (cache, "")


def test_an_english_word_pagefind_has_nothing_for_is_said(browser: Any, site_url: str) -> None:
    """Pagefind's own: `caching zzqx` found what `caching` finds, and said nothing of zzqx."""
    caching = search(browser, site_url, "en", "caching")
    assert caching and _query(browser, site_url, "en", "caching zzqx") == (caching, "zzqx")
    assert _query(browser, site_url, "en", "zzqx") == ([], "zzqx")
    assert _query(browser, site_url, "en", "caching")[1] == ""


SWEEP = index_sweep(
    "ko",
    """
  const words = [], missed = [];
  for (const file of files) {
    for (const word of Object.keys(file.w)) {
      words.push(word);
      const asked = s.readWord(word, files[s.shardOf(word, files.length)], shards.table);
      if (asked === null || !(await pagefind.search(asked)).results.length) missed.push([word, asked]);
    }
  }
  return { words: words.length, missed };
""",
)


def test_every_word_of_the_index_typed_as_it_is_finds_a_post(browser: Any, site_url: str) -> None:
    """No false "no results": each Korean word and stem the lexicon lists (2,444 on the demo) is
    read and asked so that Pagefind finds a page (the one it came from, at least)."""
    page = browser.new_page()
    page.goto(f"{site_url}/ko/search/", wait_until="load")
    found = page.evaluate(SWEEP)
    page.close()
    assert found["words"] > 2000 and found["missed"] == []


GPU_POSTS = 8  # the demo's Korean posts that say GPU (with one particle or another)


def test_a_latin_word_with_a_particle_is_asked_as_its_word(browser: Any, site_url: str) -> None:
    """Session 34: GPU를 went to Pagefind as typed, which holds gpu를 whole: it found the one post
    that says GPU를 of the eight that say GPU, and GPU를 적중률이 found nothing although the
    prefix-caching post says GPU가 and 적중률이."""
    gpu = search(browser, site_url, "ko", "GPU")
    posts = [h for h in gpu if h.startswith("/ko/blog/")]
    assert len(posts) == GPU_POSTS and PREFIX in posts
    assert search(browser, site_url, "ko", "GPU를") == gpu
    assert search(browser, site_url, "ko", "GPU를 적중률이")[:1] == [PREFIX]
    assert search(browser, site_url, "ko", "FP8을") == search(browser, site_url, "ko", "FP8")
    # on the English page (its lexicon: the English words): the particle is taken off too
    english = search(browser, site_url, "en", "GPU")
    assert english and search(browser, site_url, "en", "GPU가") == english


@pytest.mark.parametrize("query", ["k8s의", "kubernetes", "Kubernetes를", "2024"])
def test_a_latin_run_no_page_starts_is_not_asked(browser: Any, site_url: str, query: str) -> None:
    """k8s의 and kubernetes went to Pagefind as typed, which matched the longest indexed word
    they start with: the letter k of the code samples (2024: 20)."""
    page = browser.new_page()
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    page.goto(f"{site_url}/ko/search/?q=" + query, wait_until="load")
    page.wait_for_function("document.querySelector('.search-status').textContent !== ''")
    assert page.locator(".search-result").count() == 0
    assert not [u for u in asked if "/index/" in u and u.endswith(".pf_index")]
    assert _unread(page) == query
    page.close()


LATIN_SWEEP = index_sweep(
    "ko",
    """
  const runs = files.flatMap((f) => f.l), missed = [];
  for (const run of runs) {
    for (const typed of [run + '를', run]) {
      const asked = (await s.readQuery(typed, lexiconOf, shards.table)).text;
      if (asked !== run || !(await pagefind.search(asked)).results.length) missed.push([typed, asked]);
    }
  }
  return { runs: runs.length, missed };
""",
)


def test_every_latin_run_of_the_index_with_a_particle_finds_a_post(
    browser: Any, site_url: str
) -> None:
    """No false "no results" for a Latin word with a particle: each run the lexicon lists (`l`,
    ~680 on the demo: GPU, fp8, p99, …) typed with 를 is read as itself and finds a post."""
    page = browser.new_page()
    page.goto(f"{site_url}/ko/search/", wait_until="load")
    found = page.evaluate(LATIN_SWEEP)
    page.close()
    assert found["runs"] > 500 and found["missed"] == []


def test_the_table_of_endings_comes_with_the_index(
    browser: Any, site_url: str, demo_site: Path
) -> None:
    """Session 34: the particles and endings are the build's (render/search_words.py), given to
    the page in shards.json; a shards.json without them (an older build's) is said, not read
    with a table the page would keep of its own."""
    for lang in ("ko", "en"):
        listing = json.loads((demo_site / lang / "pagefind" / "shards.json").read_text("utf-8"))
        assert listing["table"] == table()

    def without_table(route: Any) -> None:
        listing = json.loads(route.fetch().text())
        del listing["table"]
        route.fulfill(status=200, content_type="application/json", body=json.dumps(listing))

    page = browser.new_page()
    page.route("**/shards.json", without_table)
    page.goto(f"{site_url}/ko/search/?q=" + "적중률이 올랐다", wait_until="load")
    page.wait_for_function("document.querySelector('.search-status').textContent !== ''")
    status = page.locator(".search-status")
    assert status.inner_text() == status.get_attribute("data-failed")
    assert page.locator(".search-result").count() == 0
    page.close()
