"""Issue 18: the header on one row at 1,280 px, the 404 page's navigation, the CV's PDF control
and the latest posts within the first screen — the built demo in real headless Chromium."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser

ROW = """() => {
  const tops = [...document.querySelectorAll(
    '.site-header .site-title, .site-header .site-nav a, .site-header .lang-switch a')]
    .map(el => el.getBoundingClientRect());
  return {count: tops.length, top: Math.min(...tops.map(r => r.top)),
          bottom: Math.max(...tops.map(r => r.bottom)),
          tallest: Math.max(...tops.map(r => r.height))};
}"""


def _page(browser: Any, url: str, width: int = 1280) -> Any:
    page = browser.new_page(viewport={"width": width, "height": 800})
    response = page.goto(url, wait_until="load")
    assert response is not None
    return page


@pytest.mark.parametrize("path", ["/en/", "/ko/", "/en/blog/", "/en/work/"])
def test_the_header_is_one_row_at_1280px(browser: Any, site_url: str, path: str) -> None:
    page = _page(browser, site_url + path)
    row = page.evaluate(ROW)
    page.close()
    assert row["count"] >= 5
    # one row: every item of the header within the height of its tallest item
    assert row["bottom"] - row["top"] <= row["tallest"] + 4, row


def test_the_404_page_has_the_site_navigation(browser: Any, site_url: str) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(site_url + "/404.html", wait_until="load")
    links = page.eval_on_selector_all(".site-nav a", "els => els.map(a => a.textContent.trim())")
    langs = page.eval_on_selector_all(".lang-switch a", "els => els.map(a => a.textContent)")
    row = page.evaluate(ROW)
    page.close()
    assert links[:3] == ["홈", "블로그", "태그"]
    assert langs == ["한국어", "English"]
    assert row["bottom"] - row["top"] <= row["tallest"] + 4, row


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_pdf_beside_the_name_and_latest_posts_in_the_first_screen(
    browser: Any, site_url: str, lang: str
) -> None:
    page = _page(browser, f"{site_url}/{lang}/")
    name = page.eval_on_selector(".cv-name", "el => el.getBoundingClientRect().toJSON()")
    pdf = page.eval_on_selector(
        ".cv-pdf__link--primary", "el => el.getBoundingClientRect().toJSON()"
    )
    latest = page.eval_on_selector(".latest-compact", "el => el.getBoundingClientRect().toJSON()")
    page.close()
    assert pdf["left"] > name["right"] and pdf["top"] < name["bottom"]  # beside the name
    assert latest["top"] < 800  # the latest posts start within the first screen
