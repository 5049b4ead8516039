"""Issue 19 in real headless Chromium, on the shared built demo: Korean-aware search, MathML,
the light/dark toggle, the copy button, and what is left without JavaScript."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.search_page import ask

pytestmark = pytest.mark.browser

MATH_POST = "/blog/attention-math/"


def search(
    browser: Any, site_url: str, lang: str, query: str, excerpts: list[str] | None = None
) -> list[str]:
    """`query` asked on the search page of `lang` (tests/browser/search_page.py); the hrefs of the results, best first
    (their excerpts' texts added to `excerpts`, if given)."""
    page = ask(browser, site_url, lang, query)
    hrefs = [a.get_attribute("href") for a in page.locator(".search-result__title").all()]
    texts = page.locator(".search-result__excerpt").all_inner_texts()
    assert not any("⟦" in text or "⟧" in text for text in texts)  # the stems stay hidden
    if excerpts is not None:
        excerpts.extend(texts)
    return hrefs


def test_a_korean_query_with_a_particle_finds_the_word_with_another(
    browser: Any, site_url: str
) -> None:
    # the post writes 소프트맥스를/소프트맥스의 and never 소프트맥스가
    hrefs = search(browser, site_url, "ko", "소프트맥스가")
    assert hrefs and hrefs[0] == "/ko" + MATH_POST


def test_an_excerpt_shows_no_heading_permalink(browser: Any, site_url: str) -> None:
    """Each heading's `¶` permalink was indexed as text: the excerpt of a match next to a
    heading read "… 점수에서 확률로 ¶ 쿼리 행렬 …"."""
    for lang, query in (("ko", "확률로"), ("en", "drawn")):
        excerpts: list[str] = []
        hrefs = search(browser, site_url, lang, query, excerpts)
        assert hrefs and excerpts
        assert not any("¶" in text for text in excerpts), excerpts


def test_a_korean_dictionary_form_finds_its_conjugated_form(browser: Any, site_url: str) -> None:
    # the post writes only 식혀 (식히- + -어): found through Kiwi's stem in the index
    hrefs = search(browser, site_url, "ko", "식히다")
    assert hrefs and hrefs[0] == "/ko" + MATH_POST


def test_an_english_query_is_stemmed(browser: Any, site_url: str) -> None:
    hrefs = search(browser, site_url, "en", "temperatures")
    assert hrefs and hrefs[0] == "/en" + MATH_POST


def test_the_header_box_goes_to_the_search_page(browser: Any, site_url: str) -> None:
    page = browser.new_page()
    page.goto(f"{site_url}/en/", wait_until="load")
    page.locator("#site-search-q").fill("softmax")
    page.locator("#site-search-q").press("Enter")
    page.wait_for_url("**/en/search/?q=softmax")
    page.wait_for_selector(".search-result__title")
    assert page.locator(".search-result__title").first.get_attribute("href") == "/en" + MATH_POST
    page.close()


def test_math_is_mathml_drawn_without_scripts(browser: Any, site_url: str) -> None:
    page = browser.new_page()
    page.goto(f"{site_url}/ko{MATH_POST}", wait_until="load")
    blocks = page.locator(".math.block math")
    assert blocks.count() == 2
    box = blocks.first.bounding_box()
    assert box is not None and box["height"] > 30  # a fraction: taller than a line of text
    assert page.locator(".math.inline math").count() >= 5
    scripts = page.locator("script[src]").evaluate_all("s => s.map(x => x.src)")
    assert all(src.endswith("/assets/reader.js") for src in scripts)
    page.close()


def background(page: Any) -> str:
    return str(page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--bg')"))


def test_the_toggle_keeps_the_os_default_until_chosen(browser: Any, site_url: str) -> None:
    context = browser.new_context(color_scheme="dark")
    page = context.new_page()
    page.goto(f"{site_url}/en/", wait_until="load")
    dark = background(page)
    assert page.locator("html").get_attribute("data-theme") is None  # the OS decides
    toggle = page.locator(".theme-toggle")
    assert toggle.is_visible()
    toggle.click()
    assert page.locator("html").get_attribute("data-theme") == "light"
    light = background(page)
    assert light != dark
    page.goto(f"{site_url}/ko/", wait_until="load")  # the choice is kept across pages
    assert page.locator("html").get_attribute("data-theme") == "light"
    assert background(page) == light
    toggle = page.locator(".theme-toggle")
    toggle.click()
    assert background(page) == dark
    context.close()
    # a fresh reader with a light OS gets light, and the toggle offers dark
    context = browser.new_context(color_scheme="light")
    page = context.new_page()
    page.goto(f"{site_url}/en/", wait_until="load")
    assert background(page) == light
    page.locator(".theme-toggle").click()
    assert background(page) == dark
    context.close()


def test_the_copy_button_copies_the_code(browser: Any, site_url: str) -> None:
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(f"{site_url}/en/blog/prefix-caching/", wait_until="load")
    block = page.locator(".prose .has-copy").first
    # what a reader selecting the code by hand copies (not `inner_text`: a highlighted line is
    # a block, which innerText follows with a line of its own; a selection does not)
    expected = page.evaluate(
        """() => { const range = document.createRange();
          range.selectNodeContents(document.querySelector('.prose .has-copy pre'));
          const selection = getSelection(); selection.removeAllRanges(); selection.addRange(range);
          const text = selection.toString(); selection.removeAllRanges(); return text; }"""
    ).rstrip("\n")
    block.hover()
    button = block.locator(".copy-button")
    button.click()
    page.wait_for_function("document.querySelector('.copy-button').textContent === 'Copied'")
    assert page.evaluate("navigator.clipboard.readText()") == expected
    assert expected.startswith("def block_hash")
    assert block.locator(".hll").count() == 2  # (the demo's {3-4}: copied as one line each)
    assert "\n\n" not in expected
    # the block's language label ("PYTHON", a ::before) is not under the button: it moved left
    label = page.evaluate(
        "(() => { const code = document.querySelector('.prose .has-copy pre > code[data-lang]');"
        " const s = getComputedStyle(code, '::before');"
        " return [s.content, parseFloat(s.left), code.parentElement.getBoundingClientRect().width]"
        " })()"
    )
    assert label[0] == '"python"' and label[1] < label[2] / 2, label
    context.close()


def test_without_javascript_the_page_still_works(browser: Any, site_url: str) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{site_url}/ko{MATH_POST}", wait_until="load")
    assert page.locator(".copy-button").count() == 0
    assert not page.locator(".theme-toggle").is_visible()  # it needs JavaScript: not shown
    assert page.locator(".math.block math").first.is_visible()
    assert page.locator("#site-search-q").is_visible()  # a plain form to the search page
    page.goto(f"{site_url}/ko/search/?q=x", wait_until="load")
    assert "JavaScript" in page.locator("main").inner_text()
    context.close()


def test_heading_anchors_show_on_hover_and_posts_show_reading_time(
    browser: Any, site_url: str
) -> None:
    page = browser.new_page()
    page.goto(f"{site_url}/en{MATH_POST}", wait_until="load")
    heading = page.locator(".prose h2").first
    anchor = heading.locator(".header-anchor")
    page.mouse.move(0, 0)
    assert anchor.evaluate("a => getComputedStyle(a).opacity") == "0"
    heading.hover()
    page.wait_for_function("a => getComputedStyle(a).opacity === '1'", arg=anchor.element_handle())
    assert "min read" in page.locator(".post-header .meta").inner_text()
    page.close()


def test_a_display_formula_shows_no_scrollbar(browser: Any, site_url: str) -> None:
    """A display formula that fits its column shows no scrollbar (with `overflow-x: auto` alone
    the box also scrolled vertically by a fraction's last pixels: a scrollbar beside it)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{site_url}/ko{MATH_POST}", wait_until="load")
    boxes = page.eval_on_selector_all(
        ".math.block",
        "els => els.map(e => [getComputedStyle(e).overflowY, e.scrollHeight - e.clientHeight,"
        " e.scrollWidth - e.clientWidth])",
    )
    page.close()
    assert boxes
    for overflow_y, taller, wider in boxes:
        assert wider <= 0  # it fits its column: nothing to scroll sideways
        # (a browser with classic scrollbars, Debian's Chromium, draws one for any overflow of
        # an `auto` box; the test's browser may overlay them, so the style is what is checked)
        assert not (overflow_y in ("auto", "scroll") and taller > 0), (overflow_y, taller)


def test_a_search_with_no_results_offers_the_other_language(browser: Any, site_url: str) -> None:
    """Session 30: "식히다" is only in the Korean post (an untranslated post shown on the English
    side is not indexed there): the English search finds nothing and links to the same query on
    the Korean search page, which finds it; a search with results offers no such link."""
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{site_url}/en/search/?q=식히다", wait_until="load")
    page.wait_for_function("document.querySelector('.search-status').textContent !== ''")
    assert page.locator(".search-result").count() == 0
    other = page.locator(".search-other a")
    assert other.is_visible()
    assert other.get_attribute("href") == "/ko/search/?q=%EC%8B%9D%ED%9E%88%EB%8B%A4"
    assert other.inner_text() == "Search in 한국어"
    assert other.locator("span").get_attribute("lang") == "ko"
    other.click()
    page.wait_for_url("**/ko/search/?q=*")
    page.wait_for_selector(".search-result__title")
    assert page.locator(".search-result__title").first.get_attribute("href") == "/ko" + MATH_POST
    assert not page.locator(".search-other").is_visible()  # results: no link
    page.locator("#search-q").fill("zzzqqq")
    page.locator("#search-q").press("Enter")
    page.wait_for_selector(".search-other a", state="visible")
    link = page.locator(".search-other a")
    assert link.get_attribute("href") == "/en/search/?q=zzzqqq"
    assert link.inner_text() == "English 페이지에서 검색"
    page.close()
    assert errors == []


def test_switching_language_keeps_the_readers_heading(browser: Any, site_url: str) -> None:
    """The switcher goes to the heading at the same place in the other language's text: the one
    the address names (a contents or shared link), or the one scrolled to; from the top of the
    page, to the top. The link says the place (#section-N-of-M); the page it opens goes to its
    N-th heading if it has M, else to its top, and its address then names the heading."""
    page = browser.new_page(viewport={"width": 1000, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    post = f"{site_url}/ko/blog/prefix-caching/"
    page.goto(post + "#h-적중률을-올리는-프롬프트-설계", wait_until="load")
    page.locator(".lang-switch a[hreflang=en]").click()
    page.wait_for_function("location.hash === '#h-designing-prompts-for-a-higher-hit-rate'")
    assert page.url.startswith(f"{site_url}/en/blog/prefix-caching/")
    top = page.evaluate(
        "document.getElementById('h-designing-prompts-for-a-higher-hit-rate')"
        ".getBoundingClientRect().top"
    )
    assert 0 <= top < 100  # (the page went to it)
    # scrolled to a heading: its place (the link as the browser would follow it)
    page.goto(post, wait_until="load")
    page.evaluate("document.getElementById('h-블록-해시로-접두사-찾기').scrollIntoView()")
    link = page.locator(".lang-switch a[hreflang=en]")
    link.dispatch_event("contextmenu")
    assert link.get_attribute("href") == "/en/blog/prefix-caching/#section-1-of-5"
    # at the top: the top
    page.evaluate("window.scrollTo(0, 0)")
    link.dispatch_event("contextmenu")
    assert link.get_attribute("href") == "/en/blog/prefix-caching/"
    # a place the page does not have (another number of headings): its top, the address clean
    page.goto(f"{site_url}/en/blog/prefix-caching/#section-2-of-9", wait_until="load")
    assert page.evaluate("location.hash") == ""
    assert page.evaluate("window.scrollY") == 0
    page.close()
    assert errors == []
