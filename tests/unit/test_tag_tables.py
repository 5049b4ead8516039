"""pair/tables.py: the tables a join leaves for the next (`bipub serve`) hold the entries they
were moved to and those entries' taxa as given (`Tables.joined`, `Tables.taxa`), not a table of
each entry again (a full join of 5,000 posts a language made three, ~20,000 rows, that a `bipub
build` never read); a join after one that failed starts from empty tables."""

from __future__ import annotations

import shutil
from pathlib import Path

from bipub.diagnostics import Collector
from bipub.pair.memo import PairMemo
from bipub.pair.tables import LangTags, Tables, join_tables
from bipub.pair.taxonomy import entry_taxa
from bipub.pipeline import load, pair
from bipub.project import Project
from tests.conftest import PROJECTS


def _site(tmp_path: Path, memo: PairMemo | None = None):  # type: ignore[no-untyped-def]
    root = tmp_path / "p"
    if not root.exists():
        shutil.copytree(PROJECTS / "minimal", root)
    collector = Collector()
    project = Project(root)
    config, content = load(project, collector, None)
    return pair(project, config, content, collector, memo), collector


def _joined(site, tables: Tables | None):  # type: ignore[no-untyped-def]
    collector = Collector()
    site.tags.clear()
    site.tag_posts.clear()
    taxa = entry_taxa(site.entries, site.config)
    out = join_tables(site, taxa, collector, tables)
    said = [(d.code, d.message) for d in collector.items]
    members = {
        lang: {s: [id(e) for e in es] for s, es in d.items()} for lang, d in site.tag_posts.items()
    }
    return out, (repr(site.tags), members, said), taxa


def test_the_tables_hold_the_entries_joined_and_their_taxa_only(tmp_path: Path) -> None:
    memo = PairMemo()
    site, _ = _site(tmp_path, memo)
    tables = memo.tables
    assert tables is not None
    assert set(vars(LangTags())) == {"counts", "tags", "members", "errors"}
    assert "entries" not in vars(tables)
    assert tables.joined[""] == site.entries
    assert all(tables.joined[lang] == site.posts(lang) for lang in site.config.codes)
    assert set(tables.taxa) == {(e.kind, e.key) for e in site.entries}


def test_a_join_after_one_that_failed_starts_from_empty_tables(tmp_path: Path) -> None:
    site, _ = _site(tmp_path)
    tables, fresh, _ = _joined(site, None)
    tables.joined = {}  # (as a join that raised leaves them)
    tables.langs[site.config.codes[0]].counts.clear()  # (moved halfway)
    again, same, _ = _joined(site, tables)
    assert same == fresh and again is not tables and again.joined
