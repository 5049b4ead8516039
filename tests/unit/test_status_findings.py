"""Each machine text of a status record carries what its own drafting said: `findings` the
draft in the content file, `draft_findings` a draft waiting beside it; and a record written
before `draft_findings` (one `findings`, the waiting draft's while one waited) still loads,
read as it was meant."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from bipub.check.findings import drafting_approved
from bipub.diagnostics import Collector
from bipub.pair.status import (
    StatusRecord,
    dump_status,
    load_status,
    rejected_again,
    rejection_of,
)
from bipub.pair.units import text_hash

OWN = "markup: segment 0 (line 1): lost '`a`' (put back at the end of the segment)"
WAITING = "markup: segment 0 (line 1): lost '`b`' (put back at the end of the segment)"


def _load(tmp_path: Path, text: str) -> dict[str, StatusRecord]:
    (tmp_path / "status").mkdir(exist_ok=True)
    (tmp_path / "status/en.yaml").write_text(text, encoding="utf-8")
    collector = Collector()
    records = load_status(tmp_path, "en", collector).records
    assert not collector.items, collector.items
    return records


def test_an_old_record_with_a_waiting_draft_reads_its_findings_as_the_drafts(
    tmp_path: Path,
) -> None:
    old = f"""\
posts/x:body#0:
  source_hash: aaaaaaaaaaaa
  origin: machine
  state: draft
  translation_hash: bbbbbbbbbbbb
  draft: "The new draft."
  draft_source_hash: cccccccccccc
  draft_engine: deepl
  findings:
    - "{WAITING}"
posts/x:body#1:
  source_hash: aaaaaaaaaaaa
  origin: machine
  state: draft
  translation_hash: bbbbbbbbbbbb
  findings:
    - "{OWN}"
posts/x:body#2:
  source_hash: aaaaaaaaaaaa
  state: reviewed
  draft: "Another draft."
"""
    recs = _load(tmp_path, old)
    assert (recs["posts/x:body#0"].findings, recs["posts/x:body#0"].draft_findings) == (
        None,
        [WAITING],
    )
    assert (recs["posts/x:body#1"].findings, recs["posts/x:body#1"].draft_findings) == (
        [OWN],
        None,
    )
    assert recs["posts/x:body#2"].draft_findings == []  # its drafting said nothing
    # written back in the new form, and read again as the same
    again = _load(tmp_path, dump_status(recs))
    assert again == recs
    assert "draft_findings: []" in dump_status(recs)


def test_both_drafts_keep_their_own(tmp_path: Path) -> None:
    rec = StatusRecord(
        source_hash="a" * 12,
        origin="machine",
        state="draft",
        translation_hash=text_hash("drafted"),
        draft="waiting",
        draft_source_hash="c" * 12,
        findings=[OWN],
        draft_findings=[WAITING],
    )
    assert _load(tmp_path, dump_status({"k": rec}))["k"] == rec
    code, message = OWN.split(": ", 1)
    waiting = tuple(WAITING.split(": ", 1))
    # adopting the waiting draft accepts its own; the edit in the file is approved with a
    # note naming the edited draft's (--keep-current); the text as drafted is refused by its
    assert drafting_approved(rec, "waiting", adopt=True) == ([waiting], [])
    assert drafting_approved(rec, "edited", adopt=False) == ([], [(code, message)])
    assert drafting_approved(rec, "drafted", adopt=False) == ([(code, message)], [])
    reviewed = rec.model_copy(update={"state": "reviewed", "findings": None})
    assert drafting_approved(reviewed, "drafted", adopt=False) == ([], [])


def test_a_status_file_without_rejections_loads_and_is_written_as_it_was(
    tmp_path: Path,
) -> None:
    """`rejected` (what reviewers rejected, translate/rejected.py) is new: a file without it
    loads with none, and is written back without the key."""
    old = dump_status({"posts/x:title": StatusRecord(source_hash="aaaaaaaaaaaa")})
    (tmp_path / "status").mkdir()
    (tmp_path / "status/en.yaml").write_text(old, encoding="utf-8")
    collector = Collector()
    loaded = load_status(tmp_path, "en", collector)
    assert not collector.items and loaded.rejected == {}
    assert list(loaded.records) == ["posts/x:title"]
    assert dump_status(loaded.records, loaded.rejected) == old


def test_rejections_load_apart_from_the_records_and_a_bad_one_is_named(tmp_path: Path) -> None:
    text = """\
posts/x:title:
  source_hash: aaaaaaaaaaaa
rejected:
  posts/x:body#0:
  - source_hash: bbbbbbbbbbbb
    drafts: [cccccccccccc]
    reviewer: jiwon
    date: 2026-12-04
  - source_hash: dddddddddddd
    drafts: [eeeeeeeeeeee, ffffffffffff]
"""
    (tmp_path / "status").mkdir()
    (tmp_path / "status/en.yaml").write_text(text, encoding="utf-8")
    collector = Collector()
    loaded = load_status(tmp_path, "en", collector)
    assert not collector.items
    assert list(loaded.records) == ["posts/x:title"]
    rejection, other = loaded.rejected["posts/x:body#0"]  # (one per source)
    assert (rejection.drafts, rejection.reviewer, str(rejection.date)) == (
        ["cccccccccccc"],
        "jiwon",
        "2026-12-04",
    )
    assert (other.source_hash, other.drafts, other.reviewer) == (
        "dddddddddddd",
        ["eeeeeeeeeeee", "ffffffffffff"],
        None,
    )
    assert rejection_of(loaded.rejected, "posts/x:body#0", "dddddddddddd") == other
    assert rejection_of(loaded.rejected, "posts/x:body#0", "aaaaaaaaaaaa") is None
    (tmp_path / "status/en.yaml").write_text(
        dump_status(loaded.records, loaded.rejected), encoding="utf-8"
    )
    back = load_status(tmp_path, "en", Collector())
    assert (back.records, back.rejected) == (loaded.records, loaded.rejected)
    (tmp_path / "status/en.yaml").write_text(
        text.replace("drafts: [cccccccccccc]", "drafts: 3"), encoding="utf-8"
    )
    bad = Collector()
    load_status(tmp_path, "en", bad)
    assert [d.line for d in bad.errors] == [6]
    assert "rejected: posts/x:body#0:" in bad.errors[0].message
    mapping = "rejected:\n  posts/x:body#0:\n    source_hash: bbbbbbbbbbbb\n    drafts: []\n"
    (tmp_path / "status/en.yaml").write_text(mapping, encoding="utf-8")
    single = Collector()  # (a mapping where a list of rejections is due: named, not guessed)
    assert load_status(tmp_path, "en", single).rejected == {}
    assert "rejected: posts/x:body#0: must be a list" in single.errors[0].message


def test_a_rejection_is_added_to_its_sources_and_the_others_are_kept() -> None:
    """A unit's rejections are kept per source: a draft rejected for another source is a new
    one (the first is kept, should the source come back to it); one more for the same source
    joins it, with the latest reviewer and day."""
    first = rejected_again((), "s1", "d1", "jiwon", date(2026, 12, 1))
    both = rejected_again(first, "s2", "d2", None, None)
    assert [(r.source_hash, r.drafts) for r in both] == [("s1", ["d1"]), ("s2", ["d2"])]
    again = rejected_again(both, "s1", "d3", "min", date(2026, 12, 4))
    assert [(r.source_hash, r.drafts, r.reviewer) for r in again] == [
        ("s1", ["d1", "d3"], "min"),
        ("s2", ["d2"], None),
    ]
    assert rejected_again(again, "s1", "d1", "min", date(2026, 12, 4)) == again
