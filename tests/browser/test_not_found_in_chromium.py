"""Session 29: the 404 page (one file for every missing URL, both languages) helps the reader
in real Chromium: the language of the missing URL comes first, and each language's search form
holds the words of the URL's last segment (a mistyped slug is one search away)."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser


def _open(browser: Any, url: str) -> tuple[Any, list[str]]:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    response = page.goto(url, wait_until="load")
    assert response is not None and response.status == 404
    return page, errors


def test_an_english_url_shows_english_first_with_its_words_to_search(
    browser: Any, site_url: str
) -> None:
    page, errors = _open(browser, f"{site_url}/en/blog/continous-batching/")
    langs = page.eval_on_selector_all(".error-page__block", "bs => bs.map(b => b.lang)")
    assert langs == ["en", "ko"]
    assert page.evaluate("document.documentElement.lang") == "en"
    assert page.locator(".error-page__title-line").first.inner_text() == "Page not found"
    box = page.locator("#search-404-en")
    assert box.input_value() == "continous batching"
    box.press("Enter")
    page.wait_for_url("**/en/search/?q=continous+batching")
    page.close()
    # the console's own "404 (Not Found)" for the page itself is the one error allowed
    assert [e for e in errors if "404" not in e] == []


def test_a_korean_url_keeps_korean_first(browser: Any, site_url: str) -> None:
    page, errors = _open(browser, f"{site_url}/ko/tags/%EC%97%86%EB%8A%94-%ED%83%9C%EA%B7%B8/")
    langs = page.eval_on_selector_all(".error-page__block", "bs => bs.map(b => b.lang)")
    assert langs == ["ko", "en"]
    assert page.locator("#search-404-ko").input_value() == "없는 태그"
    page.close()
    assert [e for e in errors if "404" not in e] == []


def test_the_site_root_fills_nothing(browser: Any, site_url: str) -> None:
    page, _ = _open(browser, f"{site_url}/nothing-here")
    assert page.locator("#search-404-ko").input_value() == ""  # one segment: not a slug
    page.close()
