"""`bipub build` in a new process pairs from the last build's pairing, read back from the
entries file (restore.py `EntryStore.resident`, pair/memo.py `PairMemo.restored`), by the
functions `bipub serve` pairs with: after any sequence of edits of every kind — a body, a
title, tags, a date, a series, a post added or removed, a draft toggled, a status file and
bipub.yaml edited, a key or slug moved (an error: that build saves nothing) — a pairing from a
fresh restore must give what pairing the files anew gives (entries, units, posts in order,
tags, series, images, diagnostics), and each build's site must be, byte for byte, what
`bipub build --no-cache` makes. Each step also checks that the restored pairing took the
unchanged entries as they were, so that a restore that keeps nothing cannot pass for one that
keeps the right things."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tests.property.test_resident_pairing as resident
from bipub import restore
from bipub.diagnostics import Collector, DiagnosticError
from bipub.inputs import scan_inputs
from bipub.pair.tables import join_tables
from bipub.pipeline import build, load, pair
from bipub.project import Project
from tests.conftest import tree_snapshot
from tests.integration.test_restored_tables import tables_view

KINDS = {"html", "json", "feeds", "llms"}

# the status records an edit of status/en.yaml cycles through: none, a draft (the version is
# not shown), a reviewed one of another source (stale)
STATUS = (
    None,
    "posts/alpha:title:\n  source_hash: {hash}\n  state: draft\n",
    "posts/alpha:title:\n  source_hash: 000000000000\n  state: reviewed\n",
)

Op = tuple[str, str, int]
OPS = st.one_of(
    resident.OPS,
    st.tuples(
        st.sampled_from(["title", "series", "status", "config"]),
        st.sampled_from(resident.NAMES),
        st.integers(0, 4),
    ),
)


def _apply(root: Path, op: Op) -> None:
    what, name, n = op
    if what == "status":
        from bipub.pair.units import text_hash

        path = root / "status" / "en.yaml"
        text = STATUS[n % len(STATUS)]
        if text is None:
            path.unlink(missing_ok=True)
        else:
            path.parent.mkdir(exist_ok=True)
            path.write_text(text.format(hash=text_hash("알파 글")), encoding="utf-8")
        return
    if what == "config":  # (untranslated versions shown or left out, and the page size)
        path = root / "bipub.yaml"
        text = path.read_text(encoding="utf-8")
        omit = "\noutputs:\n  untranslated: omit\n"
        text = text.replace(omit, "\n") if omit in text else text + omit.lstrip("\n")
        text = text.replace("posts_per_page: 2", "posts_per_page: 3") if n % 2 else text
        path.write_text(text, encoding="utf-8")
        return
    ko = root / "content" / "ko" / "posts" / f"{name}.md"
    if what in ("title", "series") and ko.exists():
        text = ko.read_text(encoding="utf-8")
        if what == "title":
            text = text.replace('title: "', f'title: "{n} ', 1)
        else:
            series = f"\nseries: 연재 {n % 2}\n"
            text = (
                text.replace(series, "\n", 1) if series in text else text.replace("\n", series, 1)
            )
        ko.write_text(text, encoding="utf-8")
        return
    resident._apply(root, op)


def _restored_pairing(root: Path, target: Path):
    """Load and pair as a `bipub build` in a new process does: from a fresh restore."""
    project = Project(root)
    kept = restore.restore(project, target, [])
    kept.tables_read_back = kept.pairs.tables is not None  # type: ignore[attr-defined]
    collector = Collector()
    config, content = load(project, collector, kept.cache, scan_inputs(project), kept.content)
    site = pair(project, config, content, collector, kept.pairs)
    said = [f"{d.severity}:{d.file}:{d.line}:{d.code}:{d.message}" for d in collector.items]
    return kept, site, said


def _build(root: Path, out: Path, use_cache: bool) -> str:
    try:
        build(root, out, only=KINDS, use_cache=use_cache)
    except DiagnosticError as exc:
        return "; ".join(sorted(d.message for d in exc.diagnostics))
    return ""


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(OPS, min_size=1, max_size=6))
def test_a_restored_pairing_equals_pairing_anew(ops: list[Op]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = resident.seeded(Path(tmp) / "p")
        target, clean_out = root / "site", Path(tmp) / "clean"
        failed = _build(root, target, True)
        assert not failed
        for op in ops:
            _apply(root, op)
            kept, got, said = _restored_pairing(root, target)
            _, clean, clean_said = resident._pair(root, None, None, None)
            assert resident._shown(got) == resident._shown(clean), op
            assert said == clean_said, op
            if kept.tables_read_back:  # (the tag tables read back, moved: a join from nothing's)
                assert kept.pairs.tables is not None, op
                taxa = {ident: own for ident, (_, own) in kept.pairs.taxa.items()}
                fresh = join_tables(got, taxa, Collector(), None)
                assert tables_view(kept.pairs.tables) == tables_view(fresh), op
            if not failed and op[0] != "config" and not any(s.startswith("error") for s in said):
                # (the last build's pairing taken but for what changed)
                assert kept.entries is not None and not kept.entries.refused, op
                assert len(got.entries) - kept.pairs.reused <= 2, op
                assert kept.tables_read_back, op
            failed = _build(root, target, True)
            assert failed == _build(root, clean_out, False), op
            if not failed:
                assert tree_snapshot(target) == tree_snapshot(clean_out), op
