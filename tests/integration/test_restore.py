"""`bipub build` restores what `bipub serve` keeps in memory (src/bipub/restore.py): what
the memos keyed on each entry worked out of it (its taxa and what its key is made of),
from a signed file whose entries are unpickled one by one, only for an entry paired from the
documents and status records they were worked out from.

Byte equality with clean builds after any sequence of edits and kills is the state machine's
job (test_incremental.py); these pin the restore itself: the same output as without it, the
entries it unpickles and pickles again, and a file that is not ours refused and said.
"""

from __future__ import annotations

import pickle
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from bipub import entry_rows, restore
from bipub.cache import read_signed, write_signed
from bipub.pair.units import text_hash
from bipub.pipeline import build
from bipub.project import Project
from bipub.render.html import HtmlRenderer
from tests.conftest import (
    PAGES_AND_AGGREGATES,
    PROJECTS,
    built_copy,
    replace_in,
    tree_snapshot,
)

KINDS = PAGES_AND_AGGREGATES
ALPHA = "content/ko/posts/alpha.md"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return built_copy(tmp_path)


def _edit(root: Path, rel: str = ALPHA) -> None:
    path = root / rel
    path.write_text(path.read_text(encoding="utf-8") + "\n한 문단 더.\n", encoding="utf-8")


def _clean(root: Path, tmp_path: Path) -> dict[str, bytes]:
    build(root, tmp_path / "clean", use_cache=False, only=KINDS)
    return tree_snapshot(tmp_path / "clean")


def _restored(note: str) -> tuple[int, int]:
    found = re.search(r"taxa and entry keys of (\d+) of (\d+) entr(?:y|ies) restored", note)
    assert found, note
    return int(found[1]), int(found[2])


def _entries_file(root: Path) -> Path:
    return restore.entries_path(Project(root), root / "site")


def _kept(root: Path) -> tuple[restore.Kept, list[str]]:
    notes: list[str] = []
    return restore.restore(Project(root), root / "site", notes), notes


def test_a_restored_pairing_gives_the_output_of_a_clean_build(
    project: Path, tmp_path: Path
) -> None:
    """After an edit, the build takes every other entry's values, works out again only the
    edited entry's key, and writes what a build without any cache writes."""
    _edit(project)
    result = build(project, only=KINDS)
    taken, total = _restored(result.cache_note)
    assert taken == total - 1 and total > 1
    assert f"1 of {total} entry keys worked out;" in result.cache_note  # (status as it was)
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)
    # and the same again, from the file this build saved
    _edit(project, "content/en/posts/alpha.md")
    result = build(project, only=KINDS)
    assert _restored(result.cache_note) == (total - 1, total)
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)


def test_every_entry_is_unpickled_once_and_only_changed_pieces_pickled(
    project: Path,
) -> None:
    """Every entry's row is unpickled once (the edited one's too: the pairing takes it out of
    its place, as `bipub serve` does), but the edited entry is paired again, not taken; the
    save pickles again only the piece the edited entry is in, and nothing when nothing
    changed."""
    kept, _ = _kept(project)
    assert kept.entries is not None
    total = len(kept.entries.index)
    piece = kept.entries.index[("posts", "alpha")]
    in_piece = sum(1 for chunk in kept.entries.index.values() if chunk == piece)
    _edit(project)
    pickled: list[int] = []
    save = restore.save

    def counted(*args: object) -> int:
        n = save(*args)  # type: ignore[arg-type]
        pickled.append(n)
        return n

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(restore, "save", counted)
        result = build(project, only=KINDS, kept=kept)
    assert kept.entries.unpickled == total
    assert _restored(result.cache_note) == (total - 1, total)
    assert pickled == [in_piece]
    # nothing changed: every entry unpickled, none pickled again
    kept, _ = _kept(project)
    assert kept.entries is not None
    (project / ALPHA).touch()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(restore, "save", counted)
        build(project, only=KINDS, kept=kept)
    assert kept.entries.unpickled == total
    assert pickled == [in_piece, 0]


def test_a_save_makes_the_rows_of_the_changed_entries_pieces_only(project: Path) -> None:
    """The save makes and compares only the rows of the piece the edited entry is in (the
    other pieces' entries are the very ones read: taken as read, not compared row by row),
    none when nothing changed, and the file it writes is read back as a whole one."""
    kept, _ = _kept(project)
    assert kept.entries is not None
    total = len(kept.entries.index)
    piece = kept.entries.index[("posts", "alpha")]
    in_piece = sum(1 for chunk in kept.entries.index.values() if chunk == piece)
    assert in_piece < total
    _edit(project)
    build(project, only=KINDS, kept=kept)
    assert kept.entries.compared == in_piece
    kept, _ = _kept(project)
    assert kept.entries is not None and not kept.entries.refused
    assert kept.entries.unpickled == total and len(kept.entries.index) == total
    (project / ALPHA).touch()
    build(project, only=KINDS, kept=kept)
    assert kept.entries.compared == 0
    kept, _ = _kept(project)
    assert kept.entries is not None and kept.entries.unpickled == total


def test_equal_tuples_of_strings_in_a_piece_are_read_back_as_one(project: Path) -> None:
    """A piece pickles each equal tuple of strings of its rows' status reads, taxa and key
    parts once (restore.py `_shared`): read back, the rows equal those pickled, and equal
    such tuples, made apart, are one object (fewer objects to make at every build)."""
    kept, _ = _kept(project)
    assert kept.entries is not None
    rows = [row for rows in kept.entries.rows.values() for row in rows]
    assert len(rows) > 1
    apart = [  # (each status read and tag list made on its own, equal to the others)
        (group, paired, tuple(list(read)), taxa, made) for group, paired, read, taxa, made in rows
    ]
    first, second = next(  # (two rows whose status reads are equal)
        (i, j) for i in range(len(rows)) for j in range(i) if rows[i][2] == rows[j][2]
    )
    assert apart[first][2] is not apart[second][2]
    docs = kept.cache.docs
    back = entry_rows.ResidentUnpickler(memoryview(entry_rows.dumps_rows(apart)), docs).load()
    assert [row[2:] for row in back] == [row[2:] for row in rows]
    assert [row[1].units for row in back] == [row[1].units for row in rows]
    assert back[first][2] is back[second][2]  # (one object)
    taxa = [row[3] for row in back if row[3] is not None and row[3].tags]
    assert taxa and all(t.tags[lang] is t.spelled[lang] for t in taxa for lang in t.tags)


@pytest.mark.parametrize("how", ["damaged", "planted", "truncated", "foreign"])
def test_an_entries_file_not_ours_is_refused_and_said(
    project: Path, tmp_path: Path, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A damaged entries file, one signed with another key, cut short or made by another
    project (signed by this user: its entries are of other documents) is never unpickled
    as ours: `-v` says why, every entry's values are worked out again, the output is right,
    and a good file is saved."""
    path = _entries_file(project)
    data = path.read_bytes()
    if how == "damaged":
        path.write_bytes(data[:100] + bytes([data[100] ^ 1]) + data[101:])
    elif how == "truncated":
        path.write_bytes(data[:-10])
    elif how == "planted":  # a valid file in form, signed with a key not this user's
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "other-user"))
        write_signed(path, [memoryview(data)[32:]])
        monkeypatch.undo()
    else:  # another project's entries file, ours in form and signature
        other = tmp_path / "other"
        shutil.copytree(PROJECTS / "minimal", other)
        for rel in (ALPHA, "content/en/posts/alpha.md"):
            _edit(other, rel)
        build(other, only=KINDS)
        shutil.copyfile(_entries_file(other), path)
        for base in _entries_file(other).parent.glob(f"{_entries_file(other).stem}-*"):
            shutil.copyfile(base, path.parent / base.name)  # (the base file it names)
    _edit(project)
    result = build(project, only=KINDS)
    if how == "foreign":  # read, but alpha's values are of other documents: never taken
        taken, total = _restored(result.cache_note)
        assert taken == total - 1
    else:
        assert f"{path.name} ignored (" in result.cache_note
        assert "entry keys of" not in result.cache_note
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)
    kept, notes = _kept(project)
    assert kept.entries is not None and not any(notes)


def test_a_piece_whose_entries_cannot_be_read_is_paired_again(
    project: Path, tmp_path: Path
) -> None:
    """A piece of the entries file that cannot be unpickled (another bipub's classes, in a
    file signed by this user) gives none of its entries: they are paired again (every entry
    is: the pairing is not whole), the others' values are taken, and `-v` says why."""
    kept, _ = _kept(project)
    store = kept.entries
    assert store is not None
    piece = store.index[("posts", "beta")]
    segment, start, end = store.chunks[piece]
    path = _entries_file(project)
    name = store.pieces.segments[segment][0]
    payload = bytearray(read_signed(path.parent / name))
    payload[start:end] = b"\x80\x05N." + b"\0" * (end - start - 4)  # (None, …)
    signature = write_signed(path.parent / name, [bytes(payload)])
    # (the head names the segment with its new signature: signed by this user, as the head)
    head = bytes(read_signed(path))
    size = int.from_bytes(head[:8], "little")
    found = pickle.loads(head[8 : 8 + size])
    segments = list(found[-2])
    segments[segment] = (name, signature)
    again = pickle.dumps((*found[:-2], tuple(segments), found[-1]))
    write_signed(path, [len(again).to_bytes(8, "little"), again])
    in_piece = sum(1 for chunk in store.index.values() if chunk == piece)
    _edit(project)
    result = build(project, only=KINDS)
    taken, total = _restored(result.cache_note)
    assert taken == total - in_piece - (store.index[("posts", "alpha")] != piece)
    assert f"piece {piece}: ValueError: not a piece of entries" in result.cache_note
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)


def test_a_configuration_change_takes_no_entry(project: Path, tmp_path: Path) -> None:
    config = project / "bipub.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("posts_per_page: 2", "posts_per_page: 3"), "utf-8")
    result = build(project, only=KINDS)
    assert _restored(result.cache_note)[0] == 0
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)


def test_what_is_read_back_is_frozen_until_the_build_ends(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build cache, state and entries file read back are out of the cyclic collector's
    reach while the build pairs and plans (cache.py `kept_to_the_end`: no collection walks
    them), and all is thawed, the collector on again, when the build ends."""
    import gc

    from bipub import pipeline

    seen: list[tuple[int, bool]] = []
    real = pipeline.pair

    def pair(*args: object, **kwargs: object) -> object:
        seen.append((gc.get_freeze_count(), gc.isenabled()))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "pair", pair)
    _edit(project)
    assert gc.get_freeze_count() == 0
    build(project, only=KINDS)
    ((frozen, _),) = seen  # (pairing itself runs with the collector off: test_collector.py)
    assert frozen > 0
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)


def test_an_unchanged_entry_keeps_its_key_without_what_it_takes_from_the_site(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The entries file keeps what the keys' `around` came from (each language's posts in
    order, the series, the tags): after an edit of one post, a build in a new process works
    out `around` (HtmlRenderer.entry_around: the tags' names, series, neighbours of each
    entry) for the edited post and those with images or diagrams only, as `bipub serve`
    does, and writes what a clean build writes. A new post moves its neighbours: theirs are
    worked out again."""
    seen: list[str] = []
    real = HtmlRenderer.entry_around

    def counted(self: HtmlRenderer, entry: Any, facts: Any) -> tuple[object, ...]:
        seen.append(entry.key)
        return real(self, entry, facts)

    monkeypatch.setattr(HtmlRenderer, "entry_around", counted)
    _edit(project)
    result = build(project, only=KINDS)
    total = _restored(result.cache_note)[1]
    looked = set(seen) - {"alpha"}
    assert "alpha" in seen and len(looked) < total // 2, (sorted(looked), total)
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)
    seen.clear()
    new = project / "content/ko/posts/zeta-new.md"
    new.write_text((project / ALPHA).read_text(encoding="utf-8"), encoding="utf-8")
    build(project, only=KINDS)
    assert "zeta-new" in seen
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)


def test_a_review_state_change_of_an_unchanged_entry_is_not_taken_as_it_was(
    project: Path, tmp_path: Path
) -> None:
    """An entry's documents unchanged but a status record its units read changed (a draft of
    its title, then that draft reviewed): its values in the entries file were worked out from
    other records, so they are not taken (`EntryStore.bind` keys on what it read), and the
    build in a new process writes what a clean build writes (its English page and status.json
    move with the review state)."""
    status = project / "status/en.yaml"
    status.parent.mkdir()
    record = (
        f"posts/alpha:title:\n  source_hash: {text_hash('알파 글')}\n  source: 알파 글\n"
        "  origin: machine\n  engine: deepl\n  state: {state}\n"
    )
    page = project / "site/en/blog/alpha/index.html"
    before = page.read_bytes()
    status.write_text(record.replace("{state}", "draft"), encoding="utf-8")
    result = build(project, only=KINDS)
    taken, total = _restored(result.cache_note)
    assert taken < total
    assert page.read_bytes() != before  # (the machine draft is not shown: the source is)
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)
    status.write_text(record.replace("{state}", "reviewed"), encoding="utf-8")
    build(project, only=KINDS)
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)
    assert b'"state": "reviewed"' in (project / "site/api/en/status.json").read_bytes()


def test_a_tag_renamed_by_another_post_shows_on_an_unchanged_post(
    project: Path, tmp_path: Path
) -> None:
    """A new post writes the tag `kv-cache` as most posts then do: the tag's shown name moves
    (pair/tables.py) on the page of an unchanged post that has it (alpha), whose key is
    otherwise taken from the entries file without its `around` (EntryKeyMemo.take): the
    build in a new process writes what a clean build writes."""
    alpha = project / "site/ko/blog/alpha/index.html"
    assert ">#KV cache<" in alpha.read_text(encoding="utf-8")
    for name in ("gamma", "delta"):
        (project / f"content/ko/posts/{name}.md").write_text(
            f"---\ntitle: {name}\ndate: 2026-03-01\ntags: [kv-cache]\n---\n\n{name}.\n",
            encoding="utf-8",
        )
    build(project, only=KINDS)
    assert ">#kv-cache<" in alpha.read_text(encoding="utf-8")
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)


def test_a_restored_memo_plans_once_and_keeps_the_keys_only(project: Path, tmp_path: Path) -> None:
    """A build in a new process plans once: the pages memo read back from disk gives it the
    entries' keys (restore.py), and keeps no page for a later plan (none comes in that
    process); the output is a clean build's."""
    kept, _ = _kept(project)
    assert kept.pages.once
    _edit(project)
    build(project, only=KINDS, kept=kept)
    assert kept.pages.pages == {} and kept.pages.runs == {}
    assert len(kept.pages.keys.known) == len(kept.pairs.paired) > 1
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)


def test_an_entries_file_older_than_the_build_cache_takes_no_entry_of_other_documents(
    project: Path, tmp_path: Path
) -> None:
    """The entries file names each entry's documents by file and digest and is read back with
    the documents of the build cache: an entries file left by an older build (a build killed
    between its saves) whose alpha was paired from another text of content/ko/posts/alpha.md
    gives none of alpha's piece (`-v` says why); they are paired again and the output is a
    clean build's (alpha's date moved: an entry taken with the new document would keep the
    old date)."""
    path = _entries_file(project)
    older = {f: f.read_bytes() for f in [path, *path.parent.glob(f"{path.stem}-*.pickle")]}
    text = (
        (project / ALPHA)
        .read_text(encoding="utf-8")
        .replace("date: 2026-04-07", "date: 2026-03-01", 1)
    )
    (project / ALPHA).write_text(text, encoding="utf-8")
    build(project, only=KINDS)
    for f, data in older.items():  # (signed by this user: the last build's but one)
        f.write_bytes(data)
    (project / "content/en/posts/alpha.md").touch()
    result = build(project, only=KINDS)
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)
    assert "content/ko/posts/alpha.md: not a document of the build cache" in result.cache_note


def test_each_languages_posts_are_read_back_in_order_not_sorted_again(
    project: Path, tmp_path: Path
) -> None:
    """The entries file keeps each language's posts in order as the pairing carried them
    (PairMemo.posts_order): a build in a new process moves only the edited post (a date
    edit: it moves in the order) instead of sorting every language's posts again, and
    writes what a clean build writes."""
    import bipub.pair.model as model

    kept, _ = _kept(project)
    assert set(kept.pairs._posts) == {"ko", "en"}
    assert kept.pairs.posts_order() is None  # (of no pairing yet)
    replace_in(project, ALPHA, "date: 2026-04-07", "date: 2001-02-03")
    sorts: list[object] = []
    order_key = model.post_order_key

    def counted(entry: model.Entry) -> object:
        sorts.append(entry)
        return order_key(entry)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(model, "post_order_key", counted)
        result = build(project, only=KINDS, kept=kept)
    assert sorts == []  # (nothing sorted: the posts read back, the edited one moved)
    assert "posts sorted again" not in result.cache_note
    order = kept.pairs.posts_order()
    assert order is not None and order["ko"][-1] == "alpha" != order["ko"][0]  # (the oldest)
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)
    # a file whose posts do not name the entries read back: sorted, as without them
    kept, _ = _kept(project)
    assert kept.pairs._posts
    assert kept.entries is not None and kept.entries.posts is not None
    memo = restore.PairMemo()
    memo.restored(
        kept.pairs.config,  # type: ignore[arg-type]
        kept.pairs.paired,
        kept.pairs.taxa,
        None,
        True,
        {lang: ("no-such-post", *keys) for lang, keys in kept.entries.posts.items()},
    )
    assert memo._posts == {}
    assert memo.posts_why == "a ko post of the entries file's order was not read back"


def test_a_restored_last_pairing_takes_its_groups_documents_as_they_are(
    project: Path, tmp_path: Path
) -> None:
    """The last pairing read back (pair/memo.py `last_of`) takes each group's documents as
    its entry's very dict, and the documents in the order of the groups: not sorted again as
    loading sorts them (which read every document read back, ~10 ms at 5,000 posts a
    language). A post whose key is not its file's name (beta, keyed `aaa`: first of the
    posts' groups, last of their files) is where its group is; the pairing after an edit still finds
    the edited document alone (by identity, in any order), pairs its entry only, and the
    build writes what a clean build writes."""
    beta = "content/ko/posts/beta.md"
    replace_in(project, beta, "title: 베타 글", "key: aaa\ntitle: 베타 글")
    build(project, only=KINDS)
    kept, _ = _kept(project)
    last = kept.pairs.last
    assert last is not None
    assert all(docs is entry.docs for docs, entry in zip(last.docs, last.entries, strict=True))
    documents = [doc for docs in last.docs for doc in docs.values()]
    assert len(last.documents) == len(documents)
    assert all(doc is found for doc, found in zip(last.documents, documents, strict=True))
    posts = [doc.rel for doc in last.documents if doc.kind == "posts"]
    assert posts[0] == beta  # (loading puts it last)
    _edit(project)
    result = build(project, only=KINDS, kept=kept)
    total = len(last.keys)
    assert f"1 of {total} entries paired again" in result.cache_note
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)
