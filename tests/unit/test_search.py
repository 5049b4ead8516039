"""Issue 19: the search index (render/search.py): Kiwi's stems in the indexing copy, Pagefind's
bundle deterministic and per language."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from bipub.render.search import SearchPage, Stemmer, indexing_copies, search_index

pytestmark = pytest.mark.real_search  # Kiwi and Pagefind themselves, not the run's memo


@pytest.fixture(scope="module")
def stemmer() -> Stemmer:
    return Stemmer()  # Kiwi loads once for the module (a few seconds)


class CountingStemmer(Stemmer):
    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    def __call__(self, words: Iterable[str]) -> dict[str, list[str]]:
        self.asked += words
        return {}


def page(body: str, url: str = "/ko/blog/a/") -> SearchPage:
    return SearchPage(
        url, f'<html lang="ko"><body><div data-pagefind-body>{body}</div></body></html>'
    )


def test_korean_words_get_their_stems_after_them(stemmer: Stemmer) -> None:
    [copy] = indexing_copies([page("<p>KV 캐시를 비웠다. 처리량이 늘었다</p>")], stemmer)
    assert "캐시를 ⟦캐시⟧" in copy
    assert "비웠다. ⟦비우다⟧" in copy  # verbs: the dictionary form
    assert "처리량이 ⟦처리량" in copy  # a compound noun: the whole noun before the particle
    assert "KV ⟦" not in copy  # a word that is its own stem gets nothing


def test_no_stem_is_one_letter(stemmer: Stemmer) -> None:
    """Session 30: Kiwi reads p99는 as p + 99 + 는 and S를 as S + 를; a one-letter stem is noise
    that Pagefind's fallback (a query word no indexed word starts with matches the longest
    indexed prefix of it) met: a Korean search for "Series part 3" marked every "p" and "s"."""
    words = ["p99는", "S를", "x축", "A100에서", "C언어로", "GPU를"]
    stems = stemmer(words)
    assert not [(w, s) for w, found in stems.items() for s in found if len(s) < 2]
    assert stemmer(["책을"]) == {"책을": ["책"]}  # (a Korean noun of one syllable stays)
    assert stems["GPU를"] == ["GPU"] and "C언어" in stems["C언어로"]  # (longer ones stay)
    [copy] = indexing_copies([page("<p>ITL p99는 52ms로 돌아왔다</p>")], stemmer)
    assert "⟦p⟧" not in copy and "p99는 52ms로" in copy


def test_code_and_tags_are_left_alone() -> None:
    counting = CountingStemmer()
    html = '<p title="캐시를">캐시를</p><pre><code class="x">캐시를 a</code></pre><script>"캐시를"</script>'
    [copy] = indexing_copies([page(html)], counting)
    assert counting.asked == ["캐시를"]  # the paragraph's words only: not attributes, code, scripts
    assert copy == page(html).html


def test_the_index_is_deterministic_and_holds_only_what_the_page_needs(stemmer: Stemmer) -> None:
    pages = [page("<p>캐시를 비웠다</p>"), page("<p>스케줄러의 큐</p>", "/ko/blog/b/")]
    first = search_index(pages, "ko", stemmer)
    again = search_index(list(reversed(pages)), "ko", stemmer)
    assert first == again
    assert "pagefind.js" in first and "pagefind-entry.json" in first
    assert not any("-ui." in name or "highlight" in name for name in first)
    assert any(name.startswith("index/ko_") for name in first)


def test_english_pages_do_not_load_kiwi() -> None:
    counting = CountingStemmer()
    files = search_index(
        [SearchPage("/en/blog/a/", "<html lang=en><body>cache</body></html>")], "en", counting
    )
    assert counting.asked == []
    assert any(name.startswith("index/en_") for name in files)


def test_an_incomplete_pagefind_bundle_is_made_again_then_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under load Pagefind's service has left files empty with no error (a 0-byte
    pagefind-entry.json: a search page that finds nothing). An incomplete bundle is asked for
    again, and after three tries the build stops with a message instead of publishing it."""
    from bipub.render import search

    good = {"pagefind.js": b"js", "pagefind-entry.json": b'{"languages": {"en": {}}}'}
    answers = [{**good, "pagefind-entry.json": b""}, good]

    def flaky(pages: object, lang: str) -> dict[str, bytes]:
        return answers.pop(0) if answers else {**good, "wasm.en.pagefind": b""}

    monkeypatch.setattr(search, "_pagefind", flaky)
    page = SearchPage("/en/blog/a/", "<html lang=en><body>cache</body></html>")
    assert search_index([page], "en", CountingStemmer()) == good  # the second answer
    with pytest.raises(search.SearchIndexError, match=r"empty wasm\.en\.pagefind\) 3 times"):
        search_index([page], "en", CountingStemmer())
    assert search.incomplete({"pagefind.js": b"x"}) == "no pagefind-entry.json"


async def _bundle_by_the_python_api(pages: list[tuple[str, str]], lang: str) -> dict[str, bytes]:
    """What Pagefind's own Python API (its service) makes of the same pages and options."""
    import tempfile
    from pathlib import Path

    from pagefind.index import IndexConfig, PagefindIndex

    from bipub.render import search

    with tempfile.TemporaryDirectory() as tmp:
        site, out = Path(tmp) / "site", Path(tmp) / "bundle"
        for url, html in pages:
            path = site / url.strip("/") / "index.html"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(html, encoding="utf-8")
        config = IndexConfig(
            output_path=str(out), force_language=lang, exclude_selectors=list(search.EXCLUDED)
        )
        async with PagefindIndex(config) as index:
            await index.add_directory(str(site))
        return {
            p.relative_to(out).as_posix(): p.read_bytes()
            for p in sorted(out.rglob("*"))
            if p.is_file() and not search._UNUSED.match(p.relative_to(out).as_posix())
        }


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_command_makes_the_bundle_pagefinds_python_api_makes(lang: str) -> None:
    """render/search.py runs Pagefind's command (one process, no waiting on its service's
    polling): its bundle is byte for byte the one Pagefind's Python API makes with the same
    options (the language forced, formulas left out)."""
    import asyncio

    from bipub.render import search

    pages = [
        (
            f"/{lang}/blog/p{i}/",
            f'<html lang="{lang}"><body><div data-pagefind-body><h1>Post {i} 캐시를</h1>'
            f'<p>words of post {i}, 비웠다 <span class="math">xyzzy{i}</span></p></div>'
            "</body></html>",
        )
        for i in range(4)
    ]
    made = search._pagefind(pages, lang)
    assert made == asyncio.run(_bundle_by_the_python_api(pages, lang))


def test_a_bundle_pagefind_cannot_make_stops_with_its_message() -> None:
    from bipub.render import search

    with pytest.raises(search.SearchIndexError, match=r"Pagefind could not index the 0 pages"):
        search._pagefind([], "en")


def test_a_prefix_and_a_suffix_stay_with_their_noun(stemmer: Stemmer) -> None:
    """Session 33: Kiwi reads 재사용합니다 as 재 (a prefix) + 사용 + 하 + ᆸ니다 and 적중률이 as
    적중 + 률 (a suffix) + 이: the stems were 사용/사용하다 and 적중, so a search for 재사용 could
    only match the surface words by their prefix, and the search page read the word as 사용."""
    stems = stemmer(["재사용합니다", "재사용되고", "적중률이", "자동화된", "요청들이", "재사용"])
    assert stems["재사용합니다"][:1] == ["재사용"] and "재사용하다" in stems["재사용합니다"]
    assert "사용하다" in stems["재사용합니다"]  # (the noun's own verb stays)
    assert stems["재사용되고"][:1] == ["재사용"] and "재사용되다" in stems["재사용되고"]
    assert stems["적중률이"][:1] == ["적중률"]
    assert stems["자동화된"][:1] == ["자동화"] and "자동화되다" in stems["자동화된"]
    assert stems["요청들이"] == ["요청"]  # (not the plural 들)
    assert "재사용" not in stems.get("재사용", [])  # (a word is not its own stem)
