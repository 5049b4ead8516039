"""One search page per browser and language, reused by the query tests (test_reader_in_chromium
`search`, test_korean_query_in_chromium `_query`): a query is set and submitted in the page
itself — one run of search.js a query (typing runs it twice: on submit and 150 ms after the last
key), none left in flight when the next is asked — instead of the page opened anew for each
(~0.5–1 s of page load and index start each, hundreds of queries in the browser tests)."""

from __future__ import annotations

from typing import Any

_PAGES: dict[tuple[int, str], tuple[Any, list[str]]] = {}  # (browser, URL) → (page, its errors)

SUBMIT = """(query) => {
  document.querySelector('.search-status').textContent = '';
  const input = document.querySelector('#search-q');
  input.value = query;
  input.form.requestSubmit();
}"""


def ask(browser: Any, site_url: str, lang: str, query: str) -> Any:
    """The search page of `lang` once it shows the results of `query` (no page error so far)."""
    url = f"{site_url}/{lang}/search/"
    found = _PAGES.get((id(browser), url))
    if found is None or found[0].is_closed():  # (a browser of another module: closed with it)
        page = browser.new_page(viewport={"width": 900, "height": 700})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url, wait_until="load")
        found = _PAGES[id(browser), url] = (page, errors)
    page, errors = found
    page.evaluate(SUBMIT, query)
    page.wait_for_function("document.querySelector('.search-status').textContent !== ''")
    assert errors == []
    return page
