"""The short CV edition's selection (render/pdf/short.py), the `short` mark's validation and its
pairing across languages (issue 18). No PDF is rendered here: tests/integration/test_cv_short.py
renders them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from bipub.config import ShortCv
from bipub.diagnostics import Collector
from bipub.load.yaml_strict import load_yaml
from bipub.model.cv import CV
from bipub.pair.cv_merge import merge_cv
from bipub.render.json_api import schemas, strip_ids
from bipub.render.pdf.short import count_marked, has_marks, short_cv
from bipub.render.views import View, cv_view

SOURCE = """\
name: A
title: Engineer
summary: Builds things.
stats:
  - number: 2
    label: Faster
    url: https://e.org/1
  - number: 3
    label: Smaller
    url: https://e.org/2
    short: true
experience:
  - company: Acme
    position: Engineer
    achievements: [One, Two]
    details:
      - title: Case one
        short: true
      - title: Case two
  - company: Beta
    position: Intern
    short: false
    details:
      - title: Case three
        short: true
  - company: Gamma
    position: Lead
openSource:
  - project: P
    contributions:
      - title: Contribution
        links:
          - label: PR
            url: https://e.org/pr
        short: true
      - title: Other contribution
projects:
  - name: Q
    links:
      - label: Source
        url: https://e.org/q
certifications: [CKA]
contact:
  email: a@e.org
"""


def _view(text: str = SOURCE, fallbacks: Any = frozenset()) -> View:
    data = load_yaml(text, "content/en/cv.yaml").data
    CV.model_validate(data)
    return cv_view(CV, data, set(fallbacks), "en")


def _titles(items: list[View], field: str) -> list[str]:
    return [item[field] for item in items]


def test_listed_sections_in_full_marked_items_anywhere() -> None:
    brief = short_cv(_view(), ["summary", "experience"])
    assert brief.name == "A" and brief.title == "Engineer" and brief.contact.email == "a@e.org"
    assert brief.summary == "Builds things."
    # experience is listed: every job but the one marked short: false ...
    assert _titles(brief.experience, "company") == ["Acme", "Gamma"]
    # ... and the case studies only where marked (they are not listed)
    assert _titles(brief.experience[0].details, "title") == ["Case one"]
    assert brief.experience[0].achievements == ["One", "Two"]  # an item's own text is whole
    # stats is not listed: only the marked stat
    assert _titles(brief.stats, "label") == ["Smaller"]
    # a marked contribution brings its project, without the unmarked contribution; the marked
    # contribution's own links come with it
    assert _titles(brief.openSource, "project") == ["P"]
    assert _titles(brief.openSource[0].contributions, "title") == ["Contribution"]
    assert _titles(brief.openSource[0].contributions[0].links, "label") == ["PR"]
    # unlisted, unmarked sections are out
    assert brief.projects == [] and brief.certifications == [] and brief.highlights == []


def test_short_false_wins_over_a_marked_item_inside() -> None:
    brief = short_cv(_view(), ["experience", "experience.details"])
    assert _titles(brief.experience, "company") == ["Acme", "Gamma"]  # Beta (short: false) out
    assert _titles(brief.experience[0].details, "title") == ["Case one", "Case two"]


def test_nothing_listed_nothing_marked_is_the_header_only() -> None:
    plain = SOURCE.replace("short: true", "short: null").replace("short: false", "short: null")
    brief = short_cv(_view(plain), [])
    assert brief.name == "A" and brief.contact is not None
    assert brief.summary is None and brief.experience == [] and brief.stats == []
    assert brief.openSource == [] and brief.openSourceSpotlight is None
    assert not has_marks(load_yaml(plain, "cv.yaml").data)
    assert has_marks(load_yaml(SOURCE, "cv.yaml").data)


def test_a_listed_item_keeps_its_links() -> None:
    brief = short_cv(_view(), ["projects", "certifications"])
    assert _titles(brief.projects[0].links, "label") == ["Source"]
    assert brief.certifications == ["CKA"]


def test_untranslated_marks_are_counted_in_what_is_kept() -> None:
    fallbacks = {("summary",), ("experience", 1, "position"), ("experience", 2, "position")}
    brief = short_cv(_view(fallbacks=fallbacks), ["summary"])
    assert count_marked(brief) == (1, 0)  # the jobs are out: their fallbacks are not counted
    brief = short_cv(_view(fallbacks=fallbacks), ["summary", "experience"])
    assert count_marked(brief) == (2, 0)  # Beta (short: false) is out


def test_short_must_be_true_or_false() -> None:
    with pytest.raises(ValidationError) as info:
        CV.model_validate(load_yaml(SOURCE.replace("short: false", "short: 'no'"), "x").data)
    assert info.value.errors()[0]["loc"][:3] == ("experience", 1, "short")


def test_the_json_api_leaves_the_mark_out() -> None:
    data = load_yaml(SOURCE, "content/en/cv.yaml").data
    assert "short" not in repr(strip_ids(data))
    assert '"short"' not in schemas()["cv.schema.json"]
    assert '"short"' in json.dumps(CV.model_json_schema(mode="serialization"))  # (dropped)


def test_config_sections_are_checked() -> None:
    assert ShortCv().sections == ["summary"] and ShortCv().pages == 2
    assert ShortCv(sections=["experience.details", "openSourceSpotlight"]).sections
    with pytest.raises(ValidationError, match="did you mean 'experience'"):
        ShortCv(sections=["experiance"])
    with pytest.raises(ValidationError, match="always in the short CV"):
        ShortCv(sections=["contact"])
    with pytest.raises(ValidationError, match="listed twice: skills"):
        ShortCv(sections=["skills", "skills"])
    with pytest.raises(ValidationError):
        ShortCv(pages=0)


def test_when_the_short_edition_is_built() -> None:
    assert not ShortCv().wanted(marked=False)
    assert ShortCv().wanted(marked=True)
    assert ShortCv(sections=["experience"]).wanted(marked=False)
    assert not ShortCv(enabled=False, sections=["experience"]).wanted(marked=True)
    assert ShortCv(enabled=True).wanted(marked=False)


# ---------------------------------------------------------------- the mark across languages
def _merge(translation: str) -> tuple[Any, Collector]:
    collector = Collector()
    src = load_yaml(SOURCE, "content/en/cv.yaml")
    tr = load_yaml(translation, "content/ko/cv.yaml")
    merged = merge_cv("en", "content/en/cv.yaml", src, "ko", "content/ko/cv.yaml", tr, collector)
    return merged, collector


def test_the_mark_is_shared_the_translation_inherits_it() -> None:
    merged, collector = _merge("experience:\n  - company: Acme\n    position: 엔지니어\n")
    assert merged.data["experience"][0]["details"][0]["short"] is True
    assert merged.data["experience"][1]["short"] is False
    assert not collector.items


def test_a_mark_only_in_the_translation_is_a_warning_not_dropped_silently() -> None:
    merged, collector = _merge(
        "experience:\n  - company: Gamma\n    position: 리드\n    short: true\n"
    )
    assert "short" not in merged.data["experience"][2]  # the source decides
    (warning,) = collector.warnings
    assert warning.code == "shared-differs" and warning.line == 4
    assert warning.file == "content/ko/cv.yaml"
    assert "cv:experience[company=Gamma].short" in warning.message
    assert "content/en/cv.yaml has none" in warning.message


def test_a_different_mark_in_the_translation_is_a_warning() -> None:
    _, collector = _merge("experience:\n  - company: Beta\n    short: true\n")
    (warning,) = collector.warnings
    assert warning.code == "shared-differs" and warning.line == 3
