"""status.json's records are written by json_api.status_text: byte for byte dump_record's text
of each unit_record, whatever the key holds and whatever its state."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bipub.pair.status import StatusFile, StatusRecord
from bipub.pair.units import Unit, text_hash
from bipub.render.json_api import (
    StatusApiEntry,
    dump_record,
    status_text,
    status_texts,
    status_texts_of,
    unit_record,
)

# a record's translation_hash: none recorded, the translation's own, or another (edited since)
THASH = [None, "same", "other"]


def _record(unit: Unit, source_hash: str, state: str, thash: str | None) -> StatusRecord:
    recorded = {None: None, "same": unit.translation_hash, "other": "f" * 12}[thash]
    return StatusRecord(source_hash=source_hash, state=state, translation_hash=recorded)


@settings(max_examples=300, deadline=None)
@given(
    st.text(max_size=20),
    st.booleans(),
    st.sampled_from([None, "draft", "reviewed"]),
    st.booleans(),
    st.sampled_from(THASH),
)
def test_a_status_record_is_written_as_dump_record_writes_it(
    key: str, translated: bool, recorded: str | None, same_source: bool, thash: str | None
) -> None:
    unit = Unit(
        key, "ko", "en", "원문", "content/ko/x.md", 1, "t" if translated else None, None, None
    )
    records = {}
    if recorded is not None:
        hashed = unit.source_hash if same_source else "0" * 12
        records[key] = _record(unit, hashed, recorded, thash)
    status = StatusFile("en", "status/en.yaml", records, {})
    record = unit_record(unit, status)
    assert list(record) == list(StatusApiEntry.model_fields)  # (the shape status_text writes)
    assert status_text(record) == dump_record(record)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(max_size=12),
            st.booleans(),
            st.sampled_from([None, "draft", "reviewed"]),
            st.booleans(),
            st.sampled_from(THASH),
        ),
        max_size=8,
    ),
    st.booleans(),
)
def test_status_texts_are_the_records_status_text_writes(
    units: list[tuple[str, bool, str | None, bool, str | None]], has_file: bool
) -> None:
    """json_api.status_texts (one pass, the build's) writes each unit as status_text writes
    its unit_record: every state, a stale source, a unit without a record or a file."""
    made, records = [], {}
    for key, translated, recorded, same_source, thash in units:
        unit = Unit(key, "ko", "en", "원문", "x.md", 1, "t" if translated else None, None, None)
        made.append(unit)
        if recorded is not None:
            hashed = unit.source_hash if same_source else "0" * 12
            records[key] = _record(unit, hashed, recorded, thash)
    status = StatusFile("en", "status/en.yaml", records, {}) if has_file else None
    expected = [status_text(unit_record(unit, status)) for unit in made]
    assert status_texts(made, status) == expected


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b:title", "b:body#1", "b:body#10", "c", "가"]),
            st.sampled_from(["en", "ja", "ko"]),
            st.booleans(),
            st.sampled_from([None, "draft", "reviewed"]),
            st.booleans(),
            st.sampled_from(THASH),
        ),
        max_size=10,
    ),
    st.sampled_from([None, {}, {"en": frozenset({"b"})}, {"ja": frozenset({"b", "c"})}]),
)
def test_status_texts_of_every_language_in_one_pass_are_each_languages_status_texts(
    units: list[tuple[str, str, bool, str | None, bool, str | None]],
    hidden: dict[str, frozenset[str]] | None,
) -> None:
    """json_api.status_texts_of (the build's: one pass over the site's units) gives each
    language what status_texts gives of its units sorted by key (status_units: a stable sort,
    keys repeated too); a language without a status file, or without units, too."""
    made: list[Unit] = []
    records: dict[str, dict[str, StatusRecord]] = {"en": {}, "ja": {}}
    for key, lang, translated, recorded, same_source, thash in units:
        unit = Unit(
            key, "xx", lang, f"원문 {len(made)}", "x.md", 1, "t" if translated else None, None, None
        )
        made.append(unit)
        if recorded is not None and lang in records:
            hashed = unit.source_hash if same_source else "0" * 12
            records[lang][key] = _record(unit, hashed, recorded, thash)
    files = {
        lang: StatusFile(lang, f"status/{lang}.yaml", found, {}) for lang, found in records.items()
    }
    found = status_texts_of(made, files, ["en", "ja", "ko", "fr"], hidden)
    for lang in ("en", "ja", "ko", "fr"):
        left_out = (hidden or {}).get(lang, frozenset())  # (a draft's units: not named)
        mine = sorted(
            (u for u in made if u.target_lang == lang and u.key.rpartition(":")[0] not in left_out),
            key=lambda u: u.key,
        )
        assert found[lang] == status_texts(mine, files.get(lang)), lang


def test_a_reviewed_translation_changed_since_its_review_is_edited() -> None:
    """status.json says `edited` where `bipub check` does: a reviewed record whose translation
    hash is not the text's now (a draft stays a draft, a changed source is stale first)."""
    unit = Unit("k", "ko", "en", "원문", "x.md", 1, "the text now", None, None)
    assert unit.translation_hash == text_hash("the text now")

    def state(rec: StatusRecord) -> str:
        status = StatusFile("en", "status/en.yaml", {"k": rec}, {})
        found = unit_record(unit, status)["state"]
        assert status_texts([unit], status) == [status_text(unit_record(unit, status))]
        return str(found)

    reviewed = StatusRecord(source_hash=unit.source_hash, translation_hash="f" * 12)
    assert state(reviewed) == "edited"
    assert state(reviewed.model_copy(update={"translation_hash": unit.translation_hash})) == (
        "reviewed"
    )
    assert state(reviewed.model_copy(update={"translation_hash": None})) == "reviewed"
    assert state(reviewed.model_copy(update={"state": "draft"})) == "draft"
    assert state(reviewed.model_copy(update={"source_hash": "0" * 12})) == "stale"
