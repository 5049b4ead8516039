"""One QA function for one unit (bipub.check.qa.unit_problems), used by `bipub check` on a
translation (check/run.py) and by `bipub translate` on each draft (translate/writers.py): the
checks run per kind of unit, and both callers say the same of the same text."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from bipub.check import qa
from bipub.check.glossary import Glossary, GlossaryTerm
from bipub.check.run import _qa
from bipub.translate.plan import make_plan
from bipub.translate.writers import Answers, _Draft, _draft

GLOSSARY = Glossary(terms=[GlossaryTerm.model_validate({"ko": "처리량", "en": "throughput"})])
KO_EN = ("ko", "en")


def codes(found: list[tuple[str, str]]) -> list[str]:
    return [code for code, _ in found]


def test_the_checks_of_each_kind_of_unit() -> None:
    # a UI string: placeholders and numbers only (its code spans and markup are not checked)
    ui = qa.unit_problems("%(n)s items in `x` 3", "items in y 4", "ui", ("en", "ko"), Glossary())
    assert codes(ui) == ["placeholders", "numbers"]
    # a title: the text checks and its bracketed prefix
    title = qa.unit_problems("[vLLM] 제목 3", "Title 4", "title", KO_EN, Glossary())
    assert codes(title) == ["numbers", "prefix"]
    # any other text: numbers, links, code, refs, markup; no prefix
    text = qa.unit_problems(
        "[vLLM] 157 `a` #12 [b](https://x.example/)", "[vLLM] 158 #13", "text", KO_EN, Glossary()
    )
    assert codes(text) == ["numbers", "links", "code", "refs", "refs"]  # (#12 lost, #13 new)
    # the glossary, when it has terms
    assert qa.unit_problems("처리량", "speed", "text", KO_EN, Glossary()) == []
    assert codes(qa.unit_problems("처리량", "speed", "text", KO_EN, GLOSSARY)) == ["glossary"]
    assert qa.unit_kind("ui:Home") == "ui"
    assert qa.unit_kind("posts/x:title") == "title"
    assert qa.unit_kind("posts/x:body#0") == qa.unit_kind("cv:name") == "text"


def test_translate_and_check_say_the_same_of_a_draft(tmp_path: Path) -> None:
    """A draft whose answers changed a number and lost the glossary's rendering: `bipub
    translate` reports exactly what `bipub check` then finds in that text (the title's prefix
    is never sent: kept in both)."""
    root = tmp_path / "p"
    files = {
        "bipub.yaml": (
            "languages:\n  - {code: ko, name: 한국어, title: 테스트}\n"
            "  - {code: en, name: English, title: Test}\n"
            "default_language: ko\nbase_url: https://t.example.org/\nauthor: {name: T}\n"
        ),
        "glossary.yaml": "terms:\n  - {ko: 처리량, en: throughput}\n",
        "content/ko/posts/a.md": (
            "---\ntitle: '[vLLM] 처리량 157'\ndate: 2026-01-01\n---\n\n"
            "처리량은 157 tokens/s. `block_size`를 보자.\n"
        ),
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    plan = make_plan(root, "en")
    answers: dict[str, str] = {}
    for job in plan.jobs:
        for seg in job.to_send():
            wrong = seg.encoded.xml.replace("157", "158").replace("처리량", "Speed")
            answers[plan.request_key(job, seg)] = wrong
    seen = 0
    for job in plan.jobs:
        draft = _draft(plan, job, Answers(answers, {}))
        assert isinstance(draft, _Draft)
        unit = dataclasses.replace(job.unit, translation=draft.text)
        checked = [(f.code, f.message) for f in _qa(unit, True, plan.glossary)]
        kind = qa.unit_kind(job.key)
        own = qa.unit_problems(unit.source, draft.text, kind, KO_EN, plan.glossary, plan.pages.base)
        assert checked == own
        assert [p for p in draft.problems if p in own] == own  # (all of them, in order)
        assert "numbers" in codes(own) and "glossary" in codes(own)
        assert "prefix" not in codes(own) and draft.text.startswith("[vLLM]") == (kind == "title")
        seen += 1
    assert seen == 2
