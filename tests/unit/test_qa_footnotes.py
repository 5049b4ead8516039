"""QA reads a unit's footnote definitions, and finds paragraphs left as the source has them.

A post's footnotes are mostly defined in its last section and referenced from earlier ones, and
each section is a unit of its own: the reading dialect (bipub.text.markdown) dropped every
definition its unit did not reference, so neither the drafter nor QA saw that prose — the
English post was published with the Korean footnote, its numbers never compared."""

from __future__ import annotations

from bipub.check import qa
from bipub.check.qa_numbers import check_numbers

SOURCE = "## 결론\n\n요약입니다.\n\n[^1]: vLLM 0.6.3 기준입니다.\n    0.7.0부터는 기본값이 바뀌었습니다.\n"


def test_a_number_changed_in_a_footnote_defined_for_another_section_is_found() -> None:
    good = (
        "## Conclusion\n\nIn short.\n\n[^1]: As of vLLM 0.6.3.\n    The default changed in 0.7.0.\n"
    )
    bad = good.replace("0.7.0", "0.8.0")
    assert check_numbers(SOURCE, good) == []
    assert check_numbers(SOURCE, bad) != []


def test_a_footnote_left_in_korean_is_untranslated() -> None:
    left = "## Conclusion\n\nIn short.\n\n[^1]: vLLM 0.6.3 기준입니다.\n    0.7.0부터는 기본값이 바뀌었습니다.\n"
    found = qa.check_untranslated(SOURCE, left, "en")
    assert len(found) == 1 and "left as the source has it" in found[0], found
    assert "vLLM 0.6.3" in found[0]
    done = (
        "## Conclusion\n\nIn short.\n\n[^1]: As of vLLM 0.6.3.\n    The default changed in 0.7.0.\n"
    )
    assert qa.check_untranslated(SOURCE, done, "en") == []


def test_paragraphs_left_in_the_source_language_either_way() -> None:
    src = "Intro.\n\nThe scheduler decides what runs next.\n\nAnother paragraph here."
    tr = "소개.\n\nThe scheduler decides what runs next.\n\n또 다른 문단."
    assert qa.check_untranslated(src, tr, "ko") == [
        "a paragraph is left as the source has it: «The scheduler decides what runs next.»"
    ]
    ko = "첫 문단입니다.\n\n둘째 문단입니다.\n\n셋째."
    en = "첫 문단입니다.\n\n둘째 문단입니다.\n\nThird."
    assert qa.check_untranslated(ko, en, "en") == [
        "2 paragraphs are left as the source has it: «첫 문단입니다.»"
    ]


def test_what_may_stay_as_it_is_is_not_said() -> None:
    # a table cell (a Korean term in a glossary table), a name, code, a paragraph of acronyms
    src = (
        "| 용어 | 뜻 |\n|---|---|\n| 캐시 | 저장소 |\n\nTriton Inference Server\n\n`코드 안의 한글`"
    )
    tr = "| 용어 | Meaning |\n|---|---|\n| 캐시 | storage |\n\nTriton Inference Server\n\n`코드 안의 한글`"
    assert qa.check_untranslated(src, tr, "en") == []
    assert qa.check_untranslated("GPU, CPU, TPU", "GPU, CPU, TPU", "ko") == []
