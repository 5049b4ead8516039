"""What a reader sees: the built demo in real headless Chromium."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser

PAGES = [
    "/",
    "/ko/",
    "/en/",
    "/ko/blog/",
    "/en/blog/",
    "/ko/blog/paged-attention/",
    "/en/blog/paged-attention/",
    "/en/blog/tensor-parallel-allreduce/",
    "/ko/tags/",
    "/en/work/",
]


def open_page(browser: Any, url: str) -> tuple[Any, list[str]]:
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on(
        "requestfailed",
        lambda r: errors.append(f"request failed: {r.url}") if "__bipub" not in r.url else None,
    )
    response = page.goto(url, wait_until="load")
    assert response is not None and response.status == 200, url
    return page, errors


@pytest.mark.parametrize("path", PAGES)
def test_pages_load_without_console_errors(browser: Any, site_url: str, path: str) -> None:
    page, errors = open_page(browser, site_url + path)
    assert errors == []
    assert page.locator("html").get_attribute("lang") in ("ko", "en")
    page.close()


def test_language_switcher_on_a_post_goes_to_its_counterpart(browser: Any, site_url: str) -> None:
    page, _ = open_page(browser, site_url + "/ko/blog/paged-attention/")
    page.locator('a[hreflang="en"]').first.click()
    page.wait_for_load_state("load")
    assert page.url == site_url + "/en/blog/paged-attention/"
    assert page.locator("html").get_attribute("lang") == "en"
    page.locator('a[hreflang="ko"]').first.click()
    page.wait_for_load_state("load")
    assert page.url == site_url + "/ko/blog/paged-attention/"
    page.close()


def test_switcher_says_plainly_when_there_is_no_counterpart(browser: Any, site_url: str) -> None:
    page, _ = open_page(browser, site_url + "/en/blog/benchmarking-methodology/")
    # the English-only post has a Korean page that shows the English original with a notice
    page.goto(site_url + "/ko/blog/benchmarking-methodology/")
    article = page.locator("article").first
    assert article.get_attribute("lang") == "en"
    page.close()


def test_korean_text_is_drawn_with_a_korean_font(browser: Any, site_url: str) -> None:
    page, _ = open_page(browser, site_url + "/ko/blog/paged-attention/")
    session = page.context.new_cdp_session(page)
    doc = session.send("DOM.getDocument", {"depth": -1})
    node = session.send(
        "DOM.querySelector", {"nodeId": doc["root"]["nodeId"], "selector": "article p"}
    )
    session.send("CSS.enable")
    fonts = session.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})["fonts"]
    families = {f["familyName"] for f in fonts}
    korean = [f for f in families if "CJK" in f or "Nanum" in f or "KR" in f]
    assert korean, f"Korean text drawn with {families}"
    text = page.locator("article p").first.inner_text()
    assert any("\uac00" <= ch <= "\ud7a3" for ch in text)
    page.close()


def test_untranslated_post_is_marked_on_the_english_side(browser: Any, site_url: str) -> None:
    page, _ = open_page(browser, site_url + "/en/blog/tensor-parallel-allreduce/")
    assert page.locator('article[lang="ko"]').count() == 1
    canonical = page.locator('link[rel="canonical"]').get_attribute("href")
    assert canonical is not None and canonical.endswith("/ko/blog/tensor-parallel-allreduce/")
    assert "not been translated" in page.content() or "not translated" in page.content()
    page.close()


def test_screenshots_for_humans(browser: Any, site_url: str, tmp_path: Any) -> None:
    """Screenshots land in the pytest tmp folder; they must be non-empty PNGs."""
    for path, width in (("/ko/", 1280), ("/en/blog/paged-attention/", 390)):
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.goto(site_url + path)
        shot = page.screenshot(full_page=False)
        assert shot[:8] == b"\x89PNG\r\n\x1a\n" and len(shot) > 5000
        page.close()
