"""The search memo (render/search_memo.py, BIPUB_SEARCH_MEMO): a bundle or a word's stems made
once are taken from the memo by the next build; what is taken is what Pagefind and Kiwi make;
an entry that is not whole is never published, and the build says it with -v."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from bipub.pipeline import build
from bipub.render import search
from bipub.render.search import SearchPage, Stemmer, search_index
from bipub.render.search_memo import ENV, SearchMemo

pytestmark = pytest.mark.real_search  # each test makes its own memo


def _page(url: str, body: str) -> SearchPage:
    return SearchPage(
        url, f'<html lang="ko"><body><div data-pagefind-body>{body}</div></body></html>'
    )


PAGES = [_page("/ko/a/", "캐시를 비웠다"), _page("/ko/b/", "처리량이 평평해진다")]


def _no_pagefind(*args: object) -> dict[str, bytes]:
    raise AssertionError("Pagefind ran for a bundle the memo holds")


def test_a_bundle_is_made_once_and_taken_from_the_memo_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = search_index(PAGES, "ko", Stemmer())  # no memo: Pagefind and Kiwi themselves
    memo = SearchMemo(tmp_path / "memo", ("stamp",))
    assert search_index(PAGES, "ko", Stemmer(memo=memo), memo) == made
    assert memo.hits == 0 and memo.notes == []
    monkeypatch.setattr(search, "_pagefind", _no_pagefind)
    again = SearchMemo(tmp_path / "memo", ("stamp",))
    assert search_index(PAGES, "ko", Stemmer(memo=again), again) == made
    assert again.hits == 1
    # another key (stemming rules, Pagefind's binary, the pages): not taken
    other = SearchMemo(tmp_path / "memo", ("other stamp",))
    with pytest.raises(AssertionError, match="Pagefind ran"):
        search_index(PAGES, "ko", Stemmer(memo=other), other)
    monkeypatch.setattr(search, "_binary_identity", lambda: "another pagefind")
    with pytest.raises(AssertionError, match="Pagefind ran"):
        search_index(PAGES, "ko", Stemmer(memo=again), again)


@pytest.mark.parametrize("damage", ["cut", "byte", "empty"])
def test_a_damaged_bundle_entry_is_said_and_made_again(tmp_path: Path, damage: str) -> None:
    memo = SearchMemo(tmp_path, ("stamp",))
    made = search_index(PAGES[:1], "ko", Stemmer(memo=memo), memo)
    (entry,) = tmp_path.glob("bundle-*.bin")
    data = entry.read_bytes()
    if damage == "cut":
        entry.write_bytes(data[: len(data) // 2])
    elif damage == "byte":
        entry.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    else:
        entry.write_bytes(b"")
    again = SearchMemo(tmp_path, ("stamp",))
    assert search_index(PAGES[:1], "ko", Stemmer(memo=again), again) == made
    assert again.hits == 0
    assert [n for n in again.notes if "ignored (damaged" in n and entry.name in n]
    assert entry.read_bytes() == data  # made again, whole


def test_a_whole_entry_of_an_incomplete_bundle_is_not_published(tmp_path: Path) -> None:
    memo = SearchMemo(tmp_path, ("stamp",))
    made = search_index(PAGES[:1], "ko", Stemmer(memo=memo), memo)
    (entry,) = tmp_path.glob("bundle-*.bin")
    key = entry.name.removeprefix("bundle-").removesuffix(".bin")
    memo.keep_bundle(key, {**made, "pagefind-entry.json": b""})  # planted, its digest right
    again = SearchMemo(tmp_path, ("stamp",))
    assert search_index(PAGES[:1], "ko", Stemmer(memo=again), again) == made
    assert again.notes == ["search memo: a bundle for ko ignored (empty pagefind-entry.json)"]


def test_known_stems_do_not_load_kiwi_and_are_kiwis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    words = ["캐시를", "비웠다", "평평해진다"]
    real = Stemmer()(words)
    memo = SearchMemo(tmp_path, ("stamp",))
    assert Stemmer(memo=memo)(words) == real  # found by Kiwi, added to the memo
    search._kiwi.cache_clear()

    def no_kiwi() -> object:
        raise AssertionError("Kiwi loaded for words the memo holds")

    monkeypatch.setattr(search, "_kiwi", no_kiwi)
    assert Stemmer(memo=SearchMemo(tmp_path, ("stamp",)))(words) == real
    with pytest.raises(AssertionError, match="Kiwi loaded"):
        Stemmer(memo=SearchMemo(tmp_path, ("other stamp",)))(words)
    (stems,) = tmp_path.glob("stems-*.json")
    stems.write_text('{"캐시를": "not a list"}', encoding="utf-8")
    damaged = SearchMemo(tmp_path, ("stamp",))
    with pytest.raises(AssertionError, match="Kiwi loaded"):
        Stemmer(memo=damaged)(words)
    assert damaged.notes == [f"search memo: {stems} ignored (not a table of stems)"]


def test_a_build_says_what_it_took_from_the_memo_and_what_it_ignored(
    make_project: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, str(tmp_path / "memo"))
    first = make_project("minimal")
    assert "of them from" not in build(first, use_cache=False).cache_note
    result = build(first, use_cache=False)
    assert re.search(r"search index \(ko\): .* 1 made, 0 kept \(1 of them from", result.cache_note)
    for entry in (tmp_path / "memo").glob("bundle-*.bin"):
        entry.write_bytes(entry.read_bytes()[:100])
    result = build(first, use_cache=False)
    assert "ignored (damaged: its digest does not match)" in result.cache_note
    assert "of them from" not in result.cache_note
