from __future__ import annotations

from bipub.diagnostics import Collector
from bipub.load.yaml_strict import load_yaml
from bipub.pair.cv_merge import merge_cv

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
