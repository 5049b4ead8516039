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


def index_sweep(lang: str, body: str) -> str:
    """An async function for `page.evaluate` that loads `lang`'s whole search index as the
    search page does — search.js as `s`, `shards`, every bundle merged into `pagefind`, the
    lexicon's `files` and `lexiconOf(word)` — and then runs `body` (which returns the result)."""
    at = f"/{lang}/pagefind/"
    return (
        "async () => {\n"
        "  const s = await import('/assets/search.js');\n"
        f"  const at = '{at}';\n"
        "  const shards = await (await fetch(at + 'shards.json')).json();\n"
        "  const pagefind = await import(at + shards.bundles[0] + 'pagefind.js');\n"
        "  await pagefind.options({ baseUrl: '/' });\n"
        "  for (const other of shards.bundles.slice(1))\n"
        "    await pagefind.mergeIndex(at + other, { baseUrl: '/' });\n"
        "  const files = await Promise.all(shards.words.map(async (f) => (await fetch(at + f)).json()));\n"
        "  const lexiconOf = async (w) => files[s.shardOf(w, files.length)];\n"
        f"{body}}}"
    )
