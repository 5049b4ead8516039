"""The search index in shards (render/search_shards.py): a build makes again only the shards whose
pages changed, the result equals a clean build's, a shard changed by hand is made again, and
known Korean words do not load Kiwi."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from bipub.pipeline import build
from bipub.render import search
from bipub.render.search_shards import shard_count, shard_of
from bipub.render.search_words import table
from tests.conftest import tree_snapshot

pytestmark = pytest.mark.real_search  # Kiwi and Pagefind themselves, not the run's memo


def _index(site: Path) -> dict[str, bytes]:
    return {rel: data for rel, data in tree_snapshot(site).items() if "/pagefind/" in rel}


def _made(note: str, lang: str) -> tuple[int, int, int]:
    m = re.search(
        rf"search index \({lang}\): \d+ pages in (\d+) shards, (\d+) made, (\d+) kept", note
    )
    assert m, note
    shards, made, kept = (int(g) for g in m.groups())
    return shards, made, kept


@pytest.fixture
def sharded(make_project: Callable[[str], Path]) -> Path:
    project = make_project("minimal")
    config = project / "bipub.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "outputs:\n  search_shard_pages: 1\n",
        encoding="utf-8",
    )
    return project


def test_shards_grow_by_powers_of_two_and_keep_their_pages() -> None:
    assert [shard_count(n, 400) for n in (0, 1, 400, 401, 800, 801, 5000)] == [1, 1, 1, 2, 2, 4, 16]
    urls = [f"/ko/blog/p{i}/" for i in range(200)]
    four = {u: shard_of(u, 4) for u in urls}
    eight = {u: shard_of(u, 8) for u in urls}
    assert set(four.values()) == {0, 1, 2, 3}
    assert all(eight[u] % 4 == four[u] for u in urls)  # doubling splits each shard in two


def test_an_edit_makes_one_shard_again_and_equals_a_clean_build(sharded: Path) -> None:
    kept = (
        sharded / "content" / "ko" / "posts" / "beta.md"
    )  # (an image Pagefind indexes the alt of)
    kept.write_text(
        kept.read_text(encoding="utf-8")
        + "\n![고리로 이어진 그림](https://example.com/ring.png)\n",
        encoding="utf-8",
    )
    first = build(sharded)
    shards, made, kept = _made(first.cache_note, "ko")
    assert shards >= 2 and made == shards and kept == 0
    site = sharded / "site"
    manifest = json.loads((site / "ko" / "pagefind" / "shards.json").read_text("utf-8"))
    assert len(manifest["bundles"]) == shards
    assert all(
        (site / "ko" / "pagefind" / b / "pagefind.js").is_file() for b in manifest["bundles"]
    )

    post = sharded / "content" / "ko" / "posts" / "alpha.md"
    post.write_text(post.read_text(encoding="utf-8") + "\n추가 문단입니다.\n", encoding="utf-8")
    second = build(sharded)
    assert _made(second.cache_note, "ko")[1:] == (1, shards - 1)
    assert _made(second.cache_note, "en")[1] == 0  # the English pages did not change
    incremental = _index(site)

    clean = build(sharded, sharded / "clean", use_cache=False)
    assert "search index" in clean.cache_note
    assert _index(sharded / "clean") == incremental  # (the Korean lexicon too: session 33)
    # the lexicon holds the words of the shard made again and of those kept
    listing = json.loads((site / "ko" / "pagefind" / "shards.json").read_text("utf-8"))
    english = json.loads((site / "en" / "pagefind" / "shards.json").read_text("utf-8"))
    # every index has a lexicon and says whether Pagefind stems it (session 34: the English
    # page reads a Latin word by its own index's words, `l`, and Pagefind's exact search)
    assert listing["stemmed"] is False and english["stemmed"] is True and english["words"]
    latin: list[str] = []
    for name in english["words"]:
        latin += json.loads((site / "en" / "pagefind" / name).read_text("utf-8"))["l"]
    assert latin and latin == [w.lower() for w in latin]
    # the particles and endings the page reads a query word with, in every language's listing
    # (their one source: static/search.js holds no copy; session 34)
    assert listing["table"] == english["table"] == table()
    lexicon: dict[str, str] = {}
    for name in listing["words"]:
        lexicon.update(json.loads((site / "ko" / "pagefind" / name).read_text("utf-8"))["w"])
    assert "추가" in lexicon and lexicon["문단입니다"] == "문단"  # (alpha: made again)
    assert {"번역이", "아직", "없습니다"} <= set(lexicon)  # (beta's words: its shard was kept)
    assert {"고리로", "이어진", "그림"} <= set(lexicon)  # (and its image's, from the record)


def test_a_shard_changed_by_hand_is_made_again(sharded: Path) -> None:
    build(sharded)
    site = sharded / "site"
    entry = next((site / "en" / "pagefind").glob("*/pagefind-entry.json"))
    good = entry.read_bytes()
    entry.write_bytes(b"{}")
    post = sharded / "content" / "ko" / "posts" / "beta.md"  # any change: a build that indexes
    post.write_text(post.read_text(encoding="utf-8") + "\n또 다른 문단.\n", encoding="utf-8")
    result = build(sharded)
    assert _made(result.cache_note, "en")[1] == 1
    assert entry.read_bytes() == good


def test_known_korean_words_do_not_load_kiwi(
    sharded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(sharded)
    search._kiwi.cache_clear()

    def no_kiwi() -> object:
        raise AssertionError("Kiwi loaded for words the last build analysed")

    monkeypatch.setattr(search, "_kiwi", no_kiwi)
    post = sharded / "content" / "ko" / "posts" / "alpha.md"
    text = post.read_text(encoding="utf-8")
    words = [w for w in text.split() if re.fullmatch(r"[가-힣]+", w)]
    post.write_text(text + "\n" + " ".join(words[:3]) + "\n", encoding="utf-8")
    result = build(sharded)
    assert _made(result.cache_note, "ko")[1] == 1


def test_no_cache_makes_every_shard(sharded: Path) -> None:
    build(sharded)
    result = build(sharded, use_cache=False)
    shards, made, _ = _made(result.cache_note, "ko")
    assert made == shards


def test_an_index_pagefind_cannot_make_whole_stops_the_build(
    sharded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bipub.diagnostics import DiagnosticError
    from bipub.render import search_shards

    def broken(*args: object) -> dict[str, bytes]:
        raise search.SearchIndexError("Pagefind wrote an incomplete search index for ko")

    monkeypatch.setattr(search_shards, "search_index", broken)
    with pytest.raises(DiagnosticError) as caught:
        build(sharded)
    [diagnostic] = caught.value.diagnostics
    assert diagnostic.code == "search-index" and "incomplete search index" in diagnostic.message
    assert not (sharded / "site").exists()  # nothing published


def test_a_record_that_cannot_be_saved_is_a_warning_and_the_next_build_makes_every_shard(
    sharded: Path,
) -> None:
    """The record is what lets the next build keep shards: when it cannot be saved the user
    is told (a warning, not a -v note), and the next build indeed makes every shard."""
    from bipub.render.search_shards import SearchRecord

    record = SearchRecord.path(sharded / ".bipub-cache", sharded / "site")
    (record / "in-the-way").mkdir(parents=True)  # a folder where the file goes: it cannot be
    first = build(sharded)
    [warning] = [d for d in first.warnings if d.code == "search-record"]
    assert str(record) in warning.message
    assert "the next build will make every search shard again" in warning.message
    assert (sharded / "site" / "ko" / "pagefind" / "shards.json").is_file()  # the site is whole
    post = sharded / "content" / "ko" / "posts" / "alpha.md"
    post.write_text(post.read_text(encoding="utf-8") + "\n추가 문장.\n", encoding="utf-8")
    second = build(sharded)
    shards, made, _ = _made(second.cache_note, "ko")
    assert made == shards  # as the warning said
    assert any(d.code == "search-record" for d in second.warnings)
