from __future__ import annotations

from bipub.diagnostics import Collector
from bipub.load.yaml_strict import load_yaml
from bipub.pair.cv_merge import merge_cv
from bipub.pair.status import StatusRecord
from bipub.pair.units import text_hash

SOURCE = """\
name: A
title: Engineer
stats:
  - number: "2.4×"
    label: Faster
    url: https://e.org/1
experience:
  - company: Acme
    position: Engineer
    achievements: [One, Two]
  - company: Beta
    position: Intern
    internship: true
"""


def merge(translation: str | None, source: str = SOURCE):
    collector = Collector()
    src = load_yaml(source, "content/en/cv.yaml")
    tr = load_yaml(translation, "content/ko/cv.yaml") if translation is not None else None
    merged = merge_cv(
        "en", "content/en/cv.yaml", src, "ko", "content/ko/cv.yaml" if tr else None, tr, collector
    )
    return merged, collector


def test_shared_fields_come_from_the_source_and_order_is_kept() -> None:
    merged, collector = merge(
        "experience:\n  - company: Beta\n    position: 인턴\n  - company: Acme\n    position: 엔지니어\n"
    )
    assert list(merged.data) == ["name", "title", "stats", "experience"]
    assert merged.data["experience"][0]["position"] == "엔지니어"  # paired by company, not position
    assert merged.data["experience"][1]["position"] == "인턴"
    assert merged.data["experience"][1]["internship"] is True
    assert merged.data["stats"][0]["number"] == "2.4×"
    assert ("title",) in merged.fallbacks
    assert not collector.errors


def test_units_have_keys_and_lines() -> None:
    merged, _ = merge("title: 엔지니어\n")
    keys = {u.key: u for u in merged.units}
    assert keys["cv:title"].translation == "엔지니어"
    assert keys["cv:title"].translation_line == 1
    assert keys["cv:title"].source_line == 2
    assert "cv:experience[company=Acme].achievements[1]" in keys
    assert "cv:stats[url=https://e.org/1].label" in keys


def test_inserting_a_source_item_keeps_translations_paired() -> None:
    inserted = SOURCE.replace(
        "experience:\n", "experience:\n  - company: New\n    position: Lead\n"
    )
    merged, _collector = merge(
        "experience:\n  - company: Acme\n    position: 엔지니어\n", source=inserted
    )
    positions = [e["position"] for e in merged.data["experience"]]
    assert positions == ["Lead", "엔지니어", "Intern"]


def test_positional_pairing_is_reported_when_identity_is_missing() -> None:
    _, collector = merge("experience:\n  - position: 엔지니어\n")
    assert [d.code for d in collector.warnings] == ["pairing"]


def test_unknown_field_and_wrong_type_are_errors_with_lines() -> None:
    _, collector = merge("titel: x\nsummary: 12\n")
    messages = sorted((d.line, d.message) for d in collector.errors)
    assert messages[0][0] == 1 and "titel: unknown field" in messages[0][1]


def test_shared_field_that_differs_is_reported() -> None:
    _, collector = merge("stats:\n  - url: https://e.org/1\n    number: '3×'\n")
    assert [d.code for d in collector.warnings] == ["shared-differs"]


def test_orphan_translation_item_is_reported() -> None:
    _, collector = merge("experience:\n  - company: Gone\n    position: 없음\n")
    assert any(d.code == "orphan" for d in collector.warnings)


# -- a list paired by position (issue 16 item 12) -------------------------------------------

CERTS = "name: A\ncertifications:\n  - CKA (Certified Kubernetes Administrator)\n  - NVIDIA DLI\n"
CERTS_KO = "certifications:\n  - CKA (쿠버네티스 관리자)\n  - NVIDIA DLI 수료증\n"


def recorded(*sources: str) -> dict[str, StatusRecord]:
    """Status records as `bipub review approve` writes them for certifications[0], [1], …"""
    return {
        f"cv:certifications[{i}]": StatusRecord(source_hash=text_hash(s), source=s)
        for i, s in enumerate(sources)
    }


def merge_recorded(source: str, translation: str, records: dict[str, StatusRecord]):
    collector = Collector()
    merged = merge_cv(
        "en",
        "content/en/cv.yaml",
        load_yaml(source, "content/en/cv.yaml"),
        "ko",
        "content/ko/cv.yaml",
        load_yaml(translation, "content/ko/cv.yaml"),
        collector,
        records,
    )
    return merged, collector


def test_an_insert_at_the_top_of_a_string_list_never_shows_another_items_translation() -> None:
    records = recorded("CKA (Certified Kubernetes Administrator)", "NVIDIA DLI")
    unchanged, collector = merge_recorded(CERTS, CERTS_KO, records)
    assert unchanged.data["certifications"] == ["CKA (쿠버네티스 관리자)", "NVIDIA DLI 수료증"]
    assert not collector.items

    inserted = CERTS.replace("certifications:\n", "certifications:\n  - AWS Solutions Architect\n")
    merged, collector = merge_recorded(inserted, CERTS_KO, records)
    # Each position's translation was recorded for another source text: the source text is
    # shown, marked untranslated (a fallback), never the neighbour's translation.
    assert merged.data["certifications"] == [
        "AWS Solutions Architect",
        "CKA (Certified Kubernetes Administrator)",
        "NVIDIA DLI",
    ]
    assert {("certifications", 0), ("certifications", 1), ("certifications", 2)} <= (
        merged.fallbacks
    )
    # The translation is kept on the unit (check reports it stale, translate never overwrites it)
    units = {u.key: u for u in merged.units}
    assert units["cv:certifications[0]"].translation == "CKA (쿠버네티스 관리자)"
    # The warnings name the right indices: the text each translation was made for moved down.
    pairing = [d for d in collector.warnings if d.code == "pairing"]
    assert [d.key for d in pairing] == ["cv:certifications[0]", "cv:certifications[1]"]
    assert "now at [1]" in pairing[0].message and pairing[0].line == 2
    assert "now at [2]" in pairing[1].message and pairing[1].line == 3


def test_an_unrecorded_translation_is_shown_and_an_edit_hides_only_its_item() -> None:
    inserted = CERTS.replace("certifications:\n", "certifications:\n  - AWS Solutions Architect\n")
    merged, _ = merge_recorded(inserted, CERTS_KO, {})  # never recorded: bipub cannot tell
    assert merged.data["certifications"][0] == "CKA (쿠버네티스 관리자)"
    # An edited source item hides its own (now stale) translation; its unchanged neighbour,
    # recorded for the text still at its position, is shown.
    edited = CERTS.replace("NVIDIA DLI", "NVIDIA DLI (2025)")
    records = recorded("CKA (Certified Kubernetes Administrator)", "NVIDIA DLI")
    merged, _ = merge_recorded(edited, CERTS_KO, records)
    assert merged.data["certifications"] == ["CKA (쿠버네티스 관리자)", "NVIDIA DLI (2025)"]


def test_a_positional_model_list_hides_a_field_recorded_for_another_text() -> None:
    source = "name: A\nexperience:\n  - position: Lead\n  - position: Engineer\n"
    translation = "experience:\n  - position: 엔지니어\n"
    records = {
        "cv:experience[0].position": StatusRecord(
            source_hash=text_hash("Engineer"), source="Engineer"
        )
    }
    merged, _ = merge_recorded(source, translation, records)
    assert [e["position"] for e in merged.data["experience"]] == ["Lead", "Engineer"]


def test_a_field_nested_in_an_item_paired_by_position_is_checked_too() -> None:
    source = (
        "name: A\nexperience:\n  - position: Lead\n    details:\n      - title: New\n"
        "        breakdown:\n          problem: Slow.\n"
    )
    translation = (
        "experience:\n  - position: 리드\n    details:\n      - title: 새\n"
        "        breakdown:\n          problem: 느림이 아니라 다른 문제.\n"
    )
    key = "cv:experience[0].details[0].breakdown.problem"
    records = {key: StatusRecord(source_hash=text_hash("Crashes."), source="Crashes.")}
    merged, collector = merge_recorded(source, translation, records)
    assert merged.data["experience"][0]["details"][0]["breakdown"]["problem"] == "Slow."
    assert merged.data["experience"][0]["position"] == "리드"  # no record: shown
    (warning,) = [d for d in collector.warnings if d.key == key]
    assert "made for 'Crashes.';" in warning.message
