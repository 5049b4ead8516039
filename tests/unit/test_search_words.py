"""Session 33: the Korean search lexicon (render/search_words.py) and how the search page reads a
query word with it (theme static/search.js `readWord`, run in Node: the functions the page uses).

The reader's query words are read as the index read the words of the pages: 올랐다 → 오르다,
재사용했습니다 → 재사용. A word that cannot be read is not asked of Pagefind, which matched the
longest indexed word it starts with: 재사용했습니다 found the posts with `직접 재 보다`.

Session 34: the particles and endings come from the build (`table()`, in shards.json), not from a
copy in the script; a Latin run with particles (GPU를) is read as its run; the words left out of
a query are named."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from bipub.render.search import SearchPage, Stemmer, search_index
from bipub.render.search_words import (
    ENDINGS,
    PARTICLES,
    alt_words,
    base,
    lexicon,
    shard_of,
    table,
    term,
    words_of,
)

SEARCH_JS = Path(__file__).parents[2] / "src" / "bipub" / "theme" / "static" / "search.js"

# the words of a blog as the index holds them (word → Kiwi's stems, as render/search.py finds them)
WORDS: dict[str, list[str]] = {
    "재사용합니다": ["재사용", "사용", "재사용하다", "사용하다"],
    "재사용되고": ["재사용", "사용", "재사용되다", "사용되다"],
    "재": [],  # (직접 재 보다: a one-syllable word)
    "보다": [],
    "올랐습니다": ["오르다"],
    "적중률이": ["적중률", "적중"],
    "캐시를": ["캐시"],
    "책을": ["책"],
    "사고": [],  # a noun, and 사다 a verb: the base 사 is both's
    "사다": [],
}


def _js(
    calls: list[tuple[str, list[Any]]], lexicon_file: dict[str, Any] | None = None
) -> list[Any]:
    """search.js's functions called in Node: [(name, args)] → their results (`lex` in args is
    replaced by `lexicon_file`, `lexiconOf` by a function that resolves to it, `table` by the
    table of particles and endings each build writes into shards.json: `table()`)."""
    script = (
        'import * as s from "./search.mjs";\n'
        f"const lex = {json.dumps(lexicon_file)};\n"
        f"const table = {json.dumps(table(), ensure_ascii=False)};\n"
        f"const calls = {json.dumps(calls, ensure_ascii=False)};\n"
        "const arg = (a) => a === 'lex' ? lex : a === 'lexiconOf' ? async () => lex :\n"
        "  a === 'table' ? table : a;\n"
        "const results = await Promise.all(calls.map(([f, args]) => s[f](...args.map(arg))));\n"
        "console.log(JSON.stringify(results));\n"
    )
    return _node(script)


def _node(script: str) -> list[Any]:
    """`script` run in Node as a module beside search.js (`./search.mjs`): what it printed, as
    JSON."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node is not installed: run scripts/bootstrap.sh (Debian package nodejs)")
    with tempfile.TemporaryDirectory(prefix="bipub-search-js-") as tmp:
        folder = Path(tmp)
        (folder / "search.mjs").write_text(SEARCH_JS.read_text("utf-8"), "utf-8")
        (folder / "run.mjs").write_text(script, "utf-8")
        proc = subprocess.run(
            [node, "run.mjs"], cwd=folder, capture_output=True, text=True, check=False, timeout=60
        )
    assert proc.returncode == 0, proc.stderr
    result: list[Any] = json.loads(proc.stdout)
    return result


def _one_file(words: dict[str, list[str]]) -> dict[str, Any]:
    files = lexicon([words])
    assert len(files) == 1  # (a small lexicon is one file)
    parsed: dict[str, Any] = json.loads(next(iter(files.values())))
    return parsed


def _read(words: list[str], lexicon_words: dict[str, list[str]] = WORDS) -> list[Any]:
    return _js([("readWord", [w, "lex", "table"]) for w in words], _one_file(lexicon_words))


def test_the_page_holds_no_table_of_its_own_and_reads_the_one_it_is_given() -> None:
    """Session 34: the particles and endings are written once (render/search_words.py) and given
    to the page in shards.json; the page had its own copy, kept equal only by a test."""
    script = SEARCH_JS.read_text("utf-8")
    assert not re.search(r"const (ENDINGS|PARTICLES)\b", script)
    assert not any(f'"{e}"' in script for e in ("했었습니다", "시켰습니다", "에서부터"))
    assert table() == {
        "particles": sorted(PARTICLES, key=len, reverse=True),
        "endings": sorted(ENDINGS, key=len, reverse=True),
    }
    # another table reads another way: the page's reading is the table's
    other = {"particles": ["까지"], "endings": ["습니다"]}
    assert _js([("base", ["먹었습니다", other]), ("base", ["먹었다", other])]) == ["먹었", ""]
    assert _js([("stripParticle", ["캐시를", other]), ("stripParticle", ["서울까지", other])]) == [
        "캐시를",
        "서울",
    ]


def test_without_the_table_a_word_is_not_read_but_the_page_says_so() -> None:
    """An index whose shards.json has no table (an older build, a damaged file): the page reads
    no word with a table of its own, it fails (and says the index could not be loaded)."""
    script = (
        'import * as s from "./search.mjs";\n'
        "const out = [];\n"
        "for (const t of [undefined, {}, {particles: [], endings: ['다']}, {particles: ['가'], "
        "endings: 'x'}]) {\n"
        "  try { s.base('올랐다', t); out.push('read'); } catch (e) { out.push(e.message); }\n"
        "}\n"
        "console.log(JSON.stringify(out));\n"
    )
    said = _node(script)
    assert said == ["shards.json: no table of particles and endings (build the site again)"] * 4


def test_base_and_shard_are_the_same_in_python_and_in_the_page() -> None:
    words = [*WORDS, "재사용했습니다", "올랐다", "갔어요", "한다", "가", "재사용", "오릅니다"]
    words += ["오른다", "먹었다", "먹었습니다", "간다", "합니까", "올랐다고"]
    calls = [("base", [w, "table"]) for w in [*words, "a", "p99는"]]
    calls += [("shardOf", [w, 8]) for w in words]
    want = [base(w) for w in [*words, "a", "p99는"]] + [shard_of(w, 8) for w in words]
    assert _js(calls) == want
    assert base("재사용했습니다") == base("재사용합니다") == base("재사용되고") == "재사용"
    assert base("올랐습니다") == base("올랐다") == "올랐"
    assert base("먹었습니다") == base("먹었다") == "먹었"
    assert base("오릅니다") == base("오른다") == base("오르고") == "오르"  # (ㅂ니다, ㄴ다)


def test_terms() -> None:
    assert term("적중률이", ["적중률", "적중"]) == "적중률"  # the leading noun run
    assert term("올랐습니다", ["오르다"]) == "오르다"  # the dictionary form
    assert term("재사용", ["사용"]) == ""  # not a noun inside it: the word itself
    assert term("재", []) == ""


def test_a_word_in_the_index_is_asked_by_its_stem() -> None:
    assert _read(["올랐습니다", "캐시를", "적중률이", "재사용합니다", "재"]) == [
        "오르다",
        "캐시",
        "적중률",
        "재사용",
        "재",
    ]


def test_another_form_of_a_word_is_read_as_the_index_read_it() -> None:
    assert _read(["올랐다", "재사용했습니다", "재사용됐다", "캐시가", "적중률을"]) == [
        "오르다",  # 올랐습니다's base
        "재사용",  # 재사용합니다's base
        "재사용",
        "캐시",  # (the particle taken off)
        "적중률",
    ]


def test_a_present_form_is_read_by_the_verb_stem() -> None:
    # 오릅니다 and 오른다: no post says them; the base 오르 is the stem 오르다's
    assert _read(["오릅니다", "오른다"]) == ["오르다", "오르다"]


def test_a_word_with_two_particles_is_read_without_both() -> None:
    """캐시로는, 캐시와의 could not be read (one particle was taken off): left out, the page said
    no page had them, where posts say 캐시를 (session 34)."""
    assert _read(["캐시로는", "캐시와의", "적중률에서도", "책과의"]) == [
        "캐시",
        "캐시",
        "적중률",
        '"책"',
    ]
    assert _read(["캐시를", "재가는"]) == ["캐시", None]  # (one first; 재 is no noun stem)


def test_a_verb_form_with_a_particle_after_it() -> None:
    assert _read(["올랐다고", "재사용된다는"]) == ["오르다", "재사용"]


def test_a_word_that_starts_indexed_words_is_asked_as_it_is() -> None:
    assert _read(["재사", "적중"]) == ["재사", "적중"]


def test_a_word_that_cannot_be_read_is_not_asked() -> None:
    """Asked, Pagefind would match the longest indexed word it starts with: 재, 사고."""
    words = {"재": [], "보다": [], "사고": [], "사다": []}
    assert _read(["재사용했습니다", "재밌었다", "사과했다", "바나나"], words) == [None] * 4
    assert _read(["사고했다"], words) == ["사고"]  # (사고 starts an indexed word: it is one)
    # a base whose words are read differently is left out (사고 → 사고, 사다 → 사다)
    assert "사" not in _one_file(words)["b"]


def test_a_one_syllable_form_is_read_only_as_a_noun() -> None:
    # 책이 → 책 (a noun stem: 책을 ⟦책⟧), asked as that word only, not as the start of 책임;
    # 재가 → 재: no noun stem, and 재 is only a word
    assert _read(["책이", "재가"]) == ['"책"', None]
    assert _read(["책을", "책", "재"]) == ['"책"', "책", "재"]  # (typed: the start of words)


def test_the_lexicon_is_split_by_first_syllable_and_the_same_for_the_same_words() -> None:
    words = {
        f"{chr(0xAC00 + 28 * i)}{chr(0xAC00 + j)}다": [] for i in range(300) for j in range(40)
    }
    files = lexicon([words])
    assert len(files) > 1 and lexicon([dict(reversed(list(words.items())))]) == files
    for n, (name, data) in enumerate(files.items()):
        assert name.startswith(f"words/{n}-")
        assert all(shard_of(w, len(files)) == n for w in json.loads(data)["w"])
    assert max(len(d) for d in files.values()) < 2 * 24_000


@pytest.mark.real_search
def test_the_words_are_read_from_the_index_pagefind_wrote() -> None:
    html = (
        '<html lang="ko"><body><div data-pagefind-body><p>적중률이 9%p 올랐습니다. 캐시-히트'
        "</p><pre><code># 캐시를 비운다</code></pre></div><nav>메뉴</nav></body></html>"
    )
    files = search_index([SearchPage("/ko/blog/a/", html)], "ko", Stemmer())
    words = words_of(files)
    assert words["적중률이"][:1] == ["적중률"] and words["올랐습니다"] == ["오르다"]
    assert {"캐시히트", "캐시", "히트", "비운다"} <= set(words)  # (the code's words too)
    read = json.loads(next(iter(lexicon([words]).values())))["w"]
    assert {"오르다", "적중률"} <= set(read)  # the stems are words of the index too
    assert "메뉴" not in words  # (not indexed: outside the page's data-pagefind-body)
    assert lexicon([words]) == lexicon([words_of(dict(reversed(list(files.items()))))])


def test_the_descriptions_of_the_images_of_the_body_are_words_of_the_index() -> None:
    """Pagefind indexes an image's alt (고리로 found the post whose only 고리로 is in one), but a
    fragment's text does not hold it: without them a query for such a word found nothing."""
    html = (
        '<header><img alt="머리그림"></header><main data-pagefind-body><p>x <img src="a.png" '
        'alt="링 all-reduce: GPU 4장이 고리로 이어져"><span class="math"><img alt="수식그림"></span>'
        '<a class="header-anchor"><img alt="앵커그림"></a><span data-pagefind-ignore><img alt="무시">'
        '</span><img alt="뒤&amp;그림"></p></main><footer><img alt="바닥그림"></footer>'
    )
    assert alt_words([html]) == [
        *["4장이", "GPU", "all", "allreduce", "reduce"],  # (led by a Latin run: session 34)
        *["고리로", "그림", "뒤", "뒤그림", "링", "이어져"],
    ]


def test_a_query_is_read_word_by_word_and_a_word_that_cannot_be_read_is_left_out() -> None:
    lexicon_file = _one_file(WORDS)
    queries = ["적중률이 올랐다", "적중률이 올랐다.", "KV 캐시를", "  "]
    queries += ["재사용했습니다 재밌었다", "재밌었다. (재밌었다) 바나나", "재밌었다"]
    read = _js([("readQuery", [q, "lexiconOf", "table"]) for q in queries], lexicon_file)
    found = [{"text": r["text"], "unread": r["unread"]} for r in read]
    # what the page asks Pagefind for, by the word typed (it asks each of several on its own)
    assert read[1]["asked"] == [["적중률이", "적중률"], ["올랐다.", "오르다"]]
    assert read[4]["asked"] == [["재사용했습니다", "재사용"]]
    # (the punctuation around a Korean word is left out: 올랐다. was asked as it was, and
    # Pagefind matched the longest indexed word it starts with)
    assert found == [
        {"text": "적중률 오르다", "unread": []},
        {"text": "적중률 오르다", "unread": []},
        {"text": "캐시", "unread": ["KV"]},  # (no word of this index starts with kv: session 34)
        {"text": "", "unread": []},
        # session 34: a word that cannot be read is left out and named (the page says it);
        # session 33 asked nothing for the whole query and said only "No results"
        {"text": "재사용", "unread": ["재밌었다"]},
        {"text": "", "unread": ["재밌었다", "바나나"]},  # (each once, as typed)
        {"text": "", "unread": ["재밌었다"]},
    ]


# a blog's words led by a Latin run, as the index holds them (GPU가 ⟦GPU⟧; k alone, from code)
LATIN_WORDS: dict[str, list[str]] = {
    **WORDS,
    "GPU가": ["GPU"],
    "Redis": [],
    "API에서": ["API"],
    "p99는": [],
    "k": [],
    "3월": [],
    "GPU메모리를": ["GPU", "메모리"],
}


def test_the_lexicon_holds_the_latin_runs_of_the_index() -> None:
    lexicon_file = _one_file(LATIN_WORDS)
    assert lexicon_file["l"] == ["3", "api", "gpu", "k", "p99", "redis"]  # (lower case: Pagefind)
    assert "GPU가" not in lexicon_file["w"]  # (the Korean words only: readWord's)
    assert lexicon_file["w"]["메모리"] == ""  # a Korean stem of such a word is an indexed word
    words = {
        f"{chr(0xAC00 + 28 * i)}{chr(0xAC00 + j)}다": [] for i in range(300) for j in range(40)
    }
    words |= {f"x{i}y": [] for i in range(50)} | {"Zeta가": ["Zeta"], "9시": []}
    files = lexicon([words])
    for n, data in enumerate(files.values()):
        assert all(shard_of(run, len(files)) == n for run in json.loads(data)["l"])
    runs = ["x1y", "zeta", "9", "a", "Z"]
    assert _js([("shardOf", [run, len(files)]) for run in runs]) == [
        shard_of(run, len(files)) for run in runs
    ]


def test_a_latin_word_with_particles_is_asked_as_its_run() -> None:
    """Session 34: GPU가 was asked as it is: Pagefind holds gpu가 whole, and found only the posts
    with that very particle (1 of the demo's 6 with GPU); Redis를 found none; k8s의 found the
    posts with the letter k (the longest indexed word it starts with)."""
    queries = ["GPU를", "Redis를", "API에서는", "P99가", "gpu의 캐시를", "k8s의", "k8s"]
    queries += ["GPU당", "3월에", "GPU메모리를", "(GPU가)", "GPU", "all-reduce", "Redi", "2024"]
    read = _js([("readQuery", [q, "lexiconOf", "table"]) for q in queries], _one_file(LATIN_WORDS))
    found = [r["text"] if not r["unread"] else None for r in read]
    assert read[queries.index("k8s의")] == {"text": "", "unread": ["k8s의"], "asked": []}
    assert found == [
        *["gpu", "redis", "api", "p99", "gpu 캐시"],
        None,  # k8s의: no indexed word starts with k8s (k is not read for it)
        None,  # k8s alone too (asked, Pagefind found the posts with the letter k)
        *["GPU당", "3월에", "GPU메모리를"],  # not particles after the run: asked as typed
        "gpu",  # (the punctuation around it left out)
        "gpu",  # (a Latin run alone: read as one with particles)
        "all-reduce",  # (not a run alone: as typed, Pagefind splits it)
        "redi",  # (the start of an indexed word: Pagefind matches words by prefix)
        None,  # (2024: Pagefind found 20 for it on the demo)
    ]
    calls = [("latinStem", [w, "table"]) for w in ["GPU가", "API에서는", "cache입니다", "GPU당"]]
    calls += [("latinStem", [w, "table"]) for w in ["가", "GPU", "3월에", "a-b가", "GPU메모리를"]]
    calls += [("normalize", ["GPU가 캐시를 Redis를", "table"])]
    assert _js(calls) == ["GPU", "API", "cache", *[""] * 6, "GPU 캐시 Redis"]


def test_the_words_pagefind_finds_nothing_for_are_named() -> None:
    """Session 34: Pagefind leaves a term it holds no word for out of a query, without a word
    (`caching zzqx` found what `caching` finds): each of several asked terms is asked on its own,
    and those that find nothing are said (by the word typed) and left out."""
    script = (
        'import * as s from "./search.mjs";\n'
        "const pages = {caching: 6, gpu: 8, '오르다': 3, zzqx: 0, qq: 0};\n"
        "const asked = [];\n"
        "const count = async (t) => { asked.push(t); return pages[t]; };\n"
        "const out = [];\n"
        "out.push(await s.unmatched([['caching', 'caching'], ['zzqx', 'zzqx']], count));\n"
        "out.push(await s.unmatched([['GPU를', 'gpu'], ['올랐다', '오르다']], count));\n"
        "out.push(await s.unmatched([['qq', 'qq'], ['qq', 'qq'], ['zzqx.', 'zzqx']], count));\n"
        "out.push(asked.length);\n"
        "out.push(await s.unmatched([['zzqx', 'zzqx']], count));  // (its search is the query's)\n"
        "out.push(asked.length);\n"
        "out.push(await s.unmatched([['caching', 'caching'], ['-', '-'], ['&', '&']], count));\n"
        "out.push(asked.length);  // (a word of no letter is not asked: Pagefind ignores it)\n"
        "console.log(JSON.stringify(out));\n"
    )
    assert _node(script) == [["zzqx"], [], ["qq", "zzqx."], 7, [], 7, [], 7]
    words = ["GPU가.", "캐시를", "API에서는", "caching", "3월에"]
    assert _js([("normalizeWord", [w, "table"]) for w in words]) == [
        *["GPU", "캐시", "API", "caching", "3월에"]
    ]


# the English index's words (its lexicon holds their Latin runs, `l`) and what Pagefind's exact
# search ("word": the word's stem, and no shorter word taken for it) finds for a typed word
ENGLISH_WORDS: dict[str, list[str]] = {
    w: [] for w in ["cache", "caching", "quantization", "part", "parts", "k", "p99"]
}
EXACT = {"quantize": 3, "caches": 8, "kubernetes": 0, "partition": 0, "zzqx": 0, "quantizing": 3}


def _read_english(queries: list[str], stemmed: bool = True) -> tuple[list[Any], list[str]]:
    """readQuery of each query with the English lexicon, and the runs Pagefind's exact search was
    asked for (`stemmed`: the page's index is stemmed, so the page passes `exact`)."""
    script = (
        'import * as s from "./search.mjs";\n'
        f"const lex = {json.dumps(_one_file(ENGLISH_WORDS))};\n"
        f"const table = {json.dumps(table(), ensure_ascii=False)};\n"
        f"const pages = {json.dumps(EXACT)};\n"
        "const asked = [];\n"
        "const exact = async (run) => { asked.push(run); return (pages[run] || 0) > 0; };\n"
        f"const queries = {json.dumps(queries, ensure_ascii=False)};\n"
        "const out = [];\n"
        "for (const q of queries) out.push(await s.readQuery(q, async () => lex, table, "
        f"{'exact' if stemmed else 'null'}));\n"
        "console.log(JSON.stringify([out, asked]));\n"
    )
    found, asked = _node(script)
    return found, asked


def test_an_english_word_is_asked_only_if_a_word_of_the_index_is_its_stem_or_starts_with_it() -> (
    None
):
    """Session 34: on the English page, Pagefind matched a word it holds no stem of to the
    longest indexed word its stem starts with (kubernetes → k, partition → part). A word no
    indexed word starts with is now asked only if Pagefind's exact search for it finds a page (its
    stem is a word of the index: quantize, which no page says); else it is left out and named."""
    queries = ["kubernetes", "partition", "zzqx", "quantize", "Caches", "caching", "cach", "K"]
    queries += ["Kubernetes를", "quantizing kubernetes", "P99가", "part", "all-reduce"]
    read, asked = _read_english(queries)
    said = [(r["text"], r["unread"]) for r in read]
    assert said == [
        ("", ["kubernetes"]),
        ("", ["partition"]),
        ("", ["zzqx"]),
        ("quantize", []),  # (its stem, quantiz, is a word of the index: Pagefind's exact search)
        ("caches", []),
        ("caching", []),  # (a word of the index: not asked again)
        ("cach", []),  # (the start of a word of the index: typed so far)
        ("k", []),
        ("", ["Kubernetes를"]),
        ("quantizing", ["kubernetes"]),
        ("p99", []),
        ("part", []),
        ("all-reduce", []),  # (not a run alone: as typed, Pagefind splits it)
    ]
    # the exact search is asked only for the runs no word of the index starts with
    assert asked == [
        *["kubernetes", "partition", "zzqx", "quantize", "caches"],
        *["kubernetes", "quantizing", "kubernetes"],
    ]
    # the Korean page (shards.json `stemmed`: false) asks Pagefind nothing to read a word: a run
    # no indexed word starts with is left out (its index holds the words as typed)
    read, asked = _read_english(["quantize", "caching", "kubernetes"], stemmed=False)
    assert [(r["text"], r["unread"]) for r in read] == [
        ("", ["quantize"]),
        ("caching", []),
        ("", ["kubernetes"]),
    ]
    assert asked == []


def test_a_latin_word_is_told_apart_for_the_korean_pages_note() -> None:
    words = ["caching", "GPU가", "(k8s)", "캐시를", "3월에", "all-reduce", "GPU메모리를", "-"]
    assert _js([("isLatin", [w, "table"]) for w in words]) == [
        *[True, True, True, False, False, False, False, False]
    ]


def test_a_query_in_quotes_is_asked_as_a_phrase() -> None:
    """A query in quotes is Pagefind's phrase: its words are read without the quotes (the English
    page read `"caching` as caching), and the quotes are kept around the terms asked."""
    calls: list[tuple[str, list[Any]]] = [
        ("phrase", ['"prefix caching"', ["prefix", "caching"]]),
        ("phrase", [' "GPU를 캐시를" ', ["gpu", "캐시"]]),
        ("phrase", ["prefix caching", ["prefix", "caching"]]),
        ("phrase", ['"책"', ['"책"']]),
        ("phrase", ['"zzqx"', []]),
    ]
    assert _js(calls) == ['"prefix caching"', '"gpu 캐시"', "prefix caching", '"책"', ""]
