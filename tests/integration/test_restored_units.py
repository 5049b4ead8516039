"""A body unit read back from the entries file (src/bipub/entry_rows.py `_paired`) holds what
a build reads of an unchanged entry's units — its key, target language, hashes and whether it
is translated (pairing's status checks, status.json: render/json_api.py `status_texts_of`) —
and is made whole from its row when another field is first read (`_Rows.expand`): it is then
the unit pairing anew makes, field for field and in the same order. A build after an edit makes
none whole; a unit read back, pickled, is the whole unit with its texts.

Byte equality with clean builds after any edits is test_incremental.py's and
tests/property/test_restored_pairing.py's (which compares every unit with pairing anew)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from bipub import entry_rows, restore
from bipub.cache import BuildCache
from bipub.diagnostics import Collector
from bipub.inputs import scan_inputs
from bipub.pair.units import Unit, text_hash
from bipub.pipeline import build, load, pair
from bipub.project import Project
from tests.conftest import PAGES_AND_AGGREGATES, built_copy, tree_snapshot

KINDS = PAGES_AND_AGGREGATES
BETA = "content/ko/posts/beta.md"
# what a body unit read back holds (and "translation": None, or its "translation_hash")
LEAN = {"key", "target_lang", "source_hash", "_at"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = built_copy(tmp_path)
    # a reviewed record of alpha's title, and one of its section whose translation changed
    # since (status.json says "edited": it reads both hashes of the section's unit read back)
    fresh = _anew(root)
    title, body = fresh[("posts/alpha:title", "en")], fresh[("posts/alpha:body#0", "en")]
    (root / "status").mkdir()
    (root / "status" / "en.yaml").write_text(
        f"posts/alpha:title:\n  source_hash: {title.source_hash}\n  state: reviewed\n"
        f"  translation_hash: {title.translation_hash}\n"
        f"posts/alpha:body#0:\n  source_hash: {body.source_hash}\n  state: reviewed\n"
        f"  translation_hash: {text_hash('another')}\n",
        encoding="utf-8",
    )
    build(root, only=KINDS)
    return root


def _restored(root: Path) -> tuple[restore.Kept, dict[tuple[str, str], Unit]]:
    kept = restore.restore(Project(root), root / "site", [])
    units = {
        (unit.key, unit.target_lang): unit
        for paired, _ in kept.pairs.paired.values()
        for unit in paired.units
    }
    return kept, units


def _anew(root: Path) -> dict[tuple[str, str], Unit]:
    """The units of the posts and pages of a pairing of the files anew (with the build
    cache's documents)."""
    project = Project(root)
    collector = Collector()
    cache = BuildCache.load(project.cache)
    config, content = load(project, collector, cache, scan_inputs(project), None)
    site = pair(project, config, content, collector, None)
    return {(u.key, u.target_lang): u for u in site.units if not u.key.startswith("cv:")}


def test_a_body_unit_read_back_holds_what_a_build_reads_then_is_made_whole(
    project: Path,
) -> None:
    _, units = _restored(project)
    fresh = _anew(project)
    assert units.keys() == fresh.keys()
    body = {at: unit for at, unit in units.items() if ":body#" in at[0]}
    translated = {at for at, unit in body.items() if "translation" not in vars(unit)}
    assert translated and body.keys() - translated  # (alpha's in English; beta's not)
    for at, unit in body.items():
        found = vars(unit)
        if at in translated:
            assert found.keys() == LEAN | {"translation_hash"}, at
        else:
            assert found.keys() == LEAN | {"translation"} and found["translation"] is None, at
        again = fresh[at]
        # what a build reads: from the fields it holds, nothing made whole
        assert unit.key == again.key and unit.target_lang == again.target_lang
        assert unit.translated is again.translated
        assert unit.source_hash == again.source_hash
        assert unit.translation_hash == again.translation_hash
        assert "_at" in vars(unit)
        # another field: the unit made whole, the one pairing makes
        assert unit.source_line == again.source_line
        assert "_at" not in vars(unit)
        assert unit == again
        assert list(vars(unit)) == list(vars(again)), at  # (in the order it always had)
        assert unit.source == again.source and unit.translation == again.translation


def test_a_body_unit_read_back_pickles_whole_with_its_texts(project: Path) -> None:
    _, units = _restored(project)
    fresh = _anew(project)
    at = ("posts/alpha:body#0", "en")
    unit = units[at]
    assert "_at" in vars(unit)
    state = unit.__getstate__()
    assert "_at" not in state and "_body" not in state
    assert state["source"] == fresh[at].source and state["translation"] == fresh[at].translation
    assert pickle.loads(pickle.dumps(unit)) == fresh[at]


def test_a_build_after_an_edit_makes_no_unit_read_back_whole(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """status.json (with records read: both hashes), pairing and the save of the edited
    entry's piece (its other entries' units as their rows) read no other field."""
    kept, _ = _restored(project)
    made: list[str] = []
    expand = entry_rows._Rows.expand

    def counted(self: entry_rows._Rows, unit: Unit) -> None:
        made.append(unit.key)
        expand(self, unit)

    monkeypatch.setattr(entry_rows._Rows, "expand", counted)
    path = project / BETA
    path.write_text(path.read_text(encoding="utf-8") + "\n한 문단 더.\n", encoding="utf-8")
    result = build(project, only=KINDS, kept=kept)
    assert "1 of 3 entries paired again" in result.cache_note
    assert made == []
    status = (project / "site" / "api" / "en" / "status.json").read_text(encoding="utf-8")
    assert '"edited"' in status and '"reviewed"' in status
    build(project, tmp_path / "clean", use_cache=False, only=KINDS)
    assert tree_snapshot(project / "site") == tree_snapshot(tmp_path / "clean")
    # the piece saved again reads back as it was: its units as pairing makes them
    _, units = _restored(project)
    fresh = _anew(project)
    assert units == fresh


def test_a_row_whose_section_is_not_the_documents_is_said_when_made_whole(
    project: Path,
) -> None:
    """(Cannot happen: a document read back is the build cache's of the very file and digest,
    whose sections are where its units' rows say; a bug would not go unsaid.)"""
    _, units = _restored(project)
    unit = units[("posts/alpha:body#0", "en")]
    rows_of = vars(unit)["_at"]
    rows_of.rows = tuple(
        (*row[:2], row[2] + 1, *row[3:]) if type(row) is tuple else row for row in rows_of.rows
    )
    with pytest.raises(RuntimeError, match="posts/alpha:body#0: not the section it was made of"):
        _ = unit.source_line
