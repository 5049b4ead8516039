"""The tag tables a `bipub build` reads back with the pairing (restore.py, pair/tables.py
`tables_state` / `tables_read_back`): moved by the same join to the entries after an edit,
they are the tables a join from nothing makes (one build path), and a build writes what a
clean build writes (test_incremental.py's state machine checks the bytes after any edits)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bipub import restore
from bipub.diagnostics import Collector
from bipub.pair.tables import Tables, join_tables
from bipub.pipeline import build, load, pair
from bipub.project import Project
from tests.conftest import PAGES_AND_AGGREGATES, built_copy, replace_in, tree_snapshot

ALPHA = "content/ko/posts/alpha.md"
BETA = "content/ko/posts/beta.md"


def tables_view(tables: Tables) -> tuple[Any, ...]:
    """What the tables hold, comparable: entries and documents by identity."""
    langs = {
        lang: (
            lt.counts,
            {slug: repr(tag) for slug, tag in lt.tags.items()},
            {slug: [id(e) for e in es] for slug, es in lt.members.items()},
            lt.errors,
        )
        for lang, lt in tables.langs.items()
    }
    prefixes = {
        lang: {f: {rel: (p, id(d)) for rel, (p, d) in g.items()} for f, g in groups.items()}
        for lang, groups in tables.prefixes.items()
    }
    return (langs, tables.spellings, tables.spelling, prefixes, tables.prefix_warnings)


def _patched_and_fresh(root: Path) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The tables read back from the last build's entries file and moved to the project as it
    is now by the pairing, and those a join from nothing makes of the same entries."""
    project = Project(root)
    kept = restore.restore(project, root / "site", [])
    assert kept.pairs.tables is not None  # (read back, not joined from nothing)
    collector = Collector()
    config, content = load(project, collector, kept.cache, None, kept.content)
    site = pair(project, config, content, collector, kept.pairs)
    patched = kept.pairs.tables
    assert patched is not None and patched.joined
    taxa = {ident: own for ident, (_, own) in kept.pairs.taxa.items()}
    fresh = join_tables(site, taxa, Collector(), None)
    return tables_view(patched), tables_view(fresh)


def _add_tag(root: Path) -> None:
    replace_in(root, ALPHA, "tags: [vllm, KV cache]", "tags: [vllm, KV cache, 새 태그]")


def _respell(root: Path) -> None:
    replace_in(root, ALPHA, "tags: [vllm, KV cache", "tags: [VLLM, kv cache")


def _prefix(root: Path) -> None:
    replace_in(root, ALPHA, "title: 알파 글", 'title: "[vLLM] 알파 글"')


def _body(root: Path) -> None:
    path = root / ALPHA
    path.write_text(path.read_text(encoding="utf-8") + "\n한 문단 더.\n", encoding="utf-8")


def _new_post(root: Path) -> None:
    text = (
        (root / ALPHA).read_text(encoding="utf-8").replace("date: 2026-04-07", "date: 2020-01-02")
    )
    (root / "content/ko/posts/gamma.md").write_text(
        text.replace("title: 알파 글", 'title: "[VLLM] 감마"'), encoding="utf-8"
    )


def _draft(root: Path) -> None:
    replace_in(root, ALPHA, "series: 연재", "draft: true\nseries: 연재")


def _delete(root: Path) -> None:
    (root / BETA).unlink()


EDITS: list[Callable[[Path], None]] = [
    _body,
    _add_tag,
    _prefix,
    _new_post,
    _respell,
    _draft,
    _delete,
]


def test_the_tables_read_back_and_moved_are_those_a_join_from_nothing_makes(
    tmp_path: Path,
) -> None:
    root = built_copy(tmp_path)
    for edit in EDITS:
        edit(root)
        patched, fresh = _patched_and_fresh(root)
        assert patched == fresh, edit.__name__
        build(root, only=PAGES_AND_AGGREGATES)  # (saves the entries file the next one reads)
    clean = tmp_path / "clean"
    build(root, clean, use_cache=False, only=PAGES_AND_AGGREGATES)
    assert tree_snapshot(root / "site") == tree_snapshot(clean)


@pytest.mark.parametrize("edit", EDITS, ids=lambda e: e.__name__)
def test_a_build_with_the_tables_read_back_writes_what_a_clean_build_writes(
    tmp_path: Path, edit: Callable[[Path], None]
) -> None:
    root = built_copy(tmp_path)
    edit(root)
    build(root, only=PAGES_AND_AGGREGATES)
    clean = tmp_path / "clean"
    build(root, clean, use_cache=False, only=PAGES_AND_AGGREGATES)
    assert tree_snapshot(root / "site") == tree_snapshot(clean)


def test_tables_joined_again_say_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tag tables that are not read back (here: the posts' order missing from the entries
    file) are joined from nothing, and `-v`'s pairing note says why; read back, it says
    nothing of them."""
    root = built_copy(tmp_path)
    project = Project(root)
    kept = restore.restore(project, root / "site", [])
    assert kept.pairs.tables is not None and kept.pairs.tables_why == ""
    assert "tag tables" not in kept.paired_note(len(kept.pairs.paired))
    loaded = restore.EntryStore.load.__func__  # type: ignore[attr-defined]

    def without_posts(cls: type, *args: Any) -> Any:
        store, why = loaded(cls, *args)
        if store is not None:
            store.posts = None
        return store, why

    monkeypatch.setattr(restore.EntryStore, "load", classmethod(without_posts))
    kept = restore.restore(project, root / "site", [])
    assert kept.pairs.tables is None
    note = kept.paired_note(len(kept.pairs.paired))
    assert "tag tables joined again (the posts were not read back in order)" in note, note
