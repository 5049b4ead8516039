"""`bipub check` end to end on small inline two-language projects (and on the demo)."""

from __future__ import annotations

import json
import re
import shutil
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bipub.pair.status import StatusRecord, dump_status
from bipub.pair.units import text_hash

SCHEMA = Path(__file__).resolve().parents[2] / "src" / "bipub" / "check" / "findings.schema.json"

CONFIG = """\
languages:
  - {code: ko, name: 한국어, title: 테스트}
  - {code: en, name: English, title: Test}
default_language: ko
base_url: https://t.example.org/
author: {name: T}
"""

KO_POST = """\
---
title: "[vLLM] 스케줄러 분석"
description: 스케줄러가 배치를 고르는 과정을 정리합니다
date: 2026-01-01
---

처리량은 157 → 382 tokens/s로 2.4배가 됐습니다. `max_num_seqs`를 보세요. [노트](https://e.org/n)와 #1234 참고.

## 둘째

- 하나
- 둘

```python
x = 1
```
"""

EN_POST = """\
---
title: "[vLLM] Scheduler analysis"
description: How the scheduler picks a batch
---

Throughput went from 157 → 382 tokens/s, a 2.4× gain. See `max_num_seqs`. See [notes](https://e.org/n) and #1234.

## Second

- one
- two

```python
x = 1
```
"""

PO_HEADER = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'


def po(*entries: str) -> str:
    return PO_HEADER + "\n".join(entries)


BASE: dict[str, str] = {
    "bipub.yaml": CONFIG,
    "content/ko/posts/p.md": KO_POST,
    "content/en/posts/p.md": EN_POST,
    "locales/ko/LC_MESSAGES/messages.po": po('msgid "%(count)s posts"\nmsgstr "글 %(count)s개"\n'),
}


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def project(tmp_path: Path) -> Callable[..., Path]:
    def make(files: dict[str, str] | None = None, **replace: str) -> Path:
        root = tmp_path / "p"
        return write(root, {**BASE, **(files or {}), **replace})

    return make


def check_json(cli: Callable[..., Any], root: Path, *args: str) -> tuple[int, dict[str, Any]]:
    result = cli("-C", str(root), "check", "--format", "json", *args)
    doc = json.loads(result.stdout)
    validate(doc, json.loads(SCHEMA.read_text(encoding="utf-8")))
    return result.exit_code, doc


def own(doc: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    """(code, severity, key) of findings, without the bipub theme's own catalogs."""
    return sorted(
        (f["code"], f["severity"], f["key"])
        for f in doc["findings"]
        if not (f["file"] or "").startswith("(bipub theme)")
    )


def record(source: str, translation: str, **kw: Any) -> StatusRecord:
    fields: dict[str, Any] = {
        "source_hash": text_hash(source),
        "source": source,
        "reviewer": "r",
        "reviewed": "2026-04-07",
        "translation_hash": text_hash(translation),
    }
    fields.update(kw)
    return StatusRecord.model_validate(fields)


# --------------------------------------------------------------------------- a minimal JSON Schema validator
# (the subset findings.schema.json uses; no jsonschema dependency)


def validate(
    value: Any, schema: dict[str, Any], root: dict[str, Any] | None = None, path: str = "$"
) -> None:
    root = root or schema
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return validate(value, root["$defs"][name], root, path)
    types = schema.get("type")
    if types is not None:
        names = types if isinstance(types, list) else [types]
        py = {
            "object": dict,
            "array": list,
            "string": str,
            "integer": int,
            "null": type(None),
            "boolean": bool,
        }
        assert any(
            isinstance(value, py[n]) and not (n == "integer" and isinstance(value, bool))
            for n in names
        ), f"{path}: {value!r} is not {names}"
    if "const" in schema:
        assert value == schema["const"], path
    if "enum" in schema:
        assert value in schema["enum"], f"{path}: {value!r} not in {schema['enum']}"
    if isinstance(value, str):
        assert len(value) >= schema.get("minLength", 0), path
        if "pattern" in schema:
            assert re.search(schema["pattern"], value), f"{path}: {value!r}"
    if isinstance(value, int) and "minimum" in schema:
        assert value >= schema["minimum"], path
    if isinstance(value, dict):
        for name in schema.get("required", []):
            assert name in value, f"{path}: missing {name}"
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for k, v in value.items():
            if "propertyNames" in schema:
                validate(k, schema["propertyNames"], root, f"{path}.<{k}>")
            if k in props:
                validate(v, props[k], root, f"{path}.{k}")
            elif extra is False:
                raise AssertionError(f"{path}: unexpected property {k}")
            elif isinstance(extra, dict):
                validate(v, extra, root, f"{path}.{k}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            validate(item, schema["items"], root, f"{path}[{i}]")
    return None


def test_the_validator_rejects_bad_documents() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    good = {
        "version": 1,
        "findings": [],
        "summary": {"errors": 0, "warnings": 0, "ignored": 0, "counts": {}, "coverage": {}},
    }
    validate(good, schema)
    bad_finding = {
        "code": "numbers",
        "severity": "fatal",
        "lang": "en",
        "key": None,
        "file": None,
        "line": None,
        "message": "m",
    }
    with pytest.raises(AssertionError):
        validate({**good, "findings": [bad_finding]}, schema)
    with pytest.raises(AssertionError):
        validate({**good, "extra": 1}, schema)


# --------------------------------------------------------------------------- every finding code


def test_the_base_project_is_clean(project: Callable[..., Path], cli: Callable[..., Any]) -> None:
    code, doc = check_json(cli, project())
    assert own(doc) == []
    assert code == 0
    assert doc["summary"]["coverage"]["en"]["posts"] == {
        "units": 4,
        "current": 4,
        "reviewed": 0,
        "unreviewed": 4,  # written by hand, no review record
        "untranslated": 0,
        "failing_qa": 0,
        "draft": 0,
        "stale": 0,
        "missing": 0,
    }


EN = "content/en/posts/p.md"
KO = "content/ko/posts/p.md"


@pytest.mark.parametrize(
    ("code", "severity", "change"),
    [
        (
            "missing",
            "warning",
            {EN: EN_POST.replace("description: How the scheduler picks a batch\n", "")},
        ),
        (
            "orphan",
            "warning",
            {"content/en/posts/gone.md": "---\ntitle: Gone\ndate: 2026-01-01\n---\n\nText.\n"},
        ),
        (
            "untranslated",
            "warning",
            {
                EN: EN_POST.replace(
                    "How the scheduler picks a batch", "스케줄러가 배치를 고르는 과정을 정리합니다"
                )
            },
        ),
        ("numbers", "error", {EN: EN_POST.replace("157 → 382", "157 → 328")}),
        ("links", "error", {EN: EN_POST.replace("https://e.org/n", "https://e.org/m")}),
        ("code", "error", {EN: EN_POST.replace("`max_num_seqs`", "`max_num_seq`")}),
        ("code", "error", {EN: EN_POST.replace("x = 1", "x = 2")}),
        ("refs", "error", {EN: EN_POST.replace(" and #1234", "")}),
        ("markup", "error", {EN: EN_POST.replace("- two\n", "")}),
        ("prefix", "error", {EN: EN_POST.replace("[vLLM] Scheduler", "Scheduler")}),
        (
            "glossary",
            "error",
            {
                "glossary.yaml": "terms:\n  - ko: 스케줄러\n    en: scheduler\n",
                EN: EN_POST.replace("[vLLM] Scheduler analysis", "[vLLM] Planner analysis"),
            },
        ),
        (
            "placeholders",
            "error",
            {
                "locales/ko/LC_MESSAGES/messages.po": po(
                    'msgid "%(count)s posts"\nmsgstr "글 %(n)s개"\n'
                )
            },
        ),
        (
            "draft",
            "warning",
            {
                "locales/ko/LC_MESSAGES/messages.po": po(
                    '#, fuzzy\nmsgid "%(count)s posts"\nmsgstr "글 %(count)s개"\n'
                )
            },
        ),
        (
            "missing",
            "warning",
            {"locales/ko/LC_MESSAGES/messages.po": po('msgid "%(count)s posts"\nmsgstr ""\n')},
        ),
        (
            "orphan",
            "warning",
            {
                "locales/ko/LC_MESSAGES/messages.po": po(
                    'msgid "%(count)s posts"\nmsgstr "글 %(count)s개"\n',
                    '#~ msgid "Old"\n#~ msgstr "옛"\n',
                )
            },
        ),
    ],
)
def test_each_finding_code(
    project: Callable[..., Path],
    cli: Callable[..., Any],
    code: str,
    severity: str,
    change: dict[str, str],
) -> None:
    exit_code, doc = check_json(cli, project(change))
    found = [f for f in own(doc) if f[0] == code]
    assert found, own(doc)
    assert all(f[1] == severity for f in found)
    assert exit_code == (1 if severity == "error" else 0)


def _status(root: Path, lang: str, records: dict[str, StatusRecord]) -> None:
    write(root, {f"status/{lang}.yaml": dump_status(records)})


def _body0(text: str) -> str:
    from bipub.pair.units import split_sections

    return split_sections(text.split("---\n", 2)[2], 1)[0].text


def test_stale_draft_edited_and_orphan_record(
    project: Callable[..., Path], cli: Callable[..., Any]
) -> None:
    root = project()
    old_ko = _body0(KO_POST).replace("처리량은", "처리 성능은")
    en0 = _body0(EN_POST)
    _status(
        root,
        "en",
        {
            "posts/p:body#0": record(old_ko, en0),
            "posts/p:title": record(
                "[vLLM] 스케줄러 분석",
                "[vLLM] Scheduler analysis",
                origin="machine",
                engine="deepl",
                state="draft",
                reviewer=None,
                reviewed=None,
            ),
            "posts/p:description": record(
                "스케줄러가 배치를 고르는 과정을 정리합니다", "An older translation"
            ),
            "posts/deleted:title": record("지운 글", "Deleted"),
        },
    )
    exit_code, doc = check_json(cli, root)
    assert own(doc) == [
        ("draft", "warning", "posts/p:title"),
        ("edited", "warning", "posts/p:description"),
        ("orphan", "warning", "posts/deleted:title"),
        ("stale", "warning", "posts/p:body#0"),
    ]
    stale = next(f for f in doc["findings"] if f["code"] == "stale")
    assert (stale["file"], stale["line"]) == (EN, 6)
    assert "+처리량은 157 → 382 tokens/s로 2.4배가" in stale["diff"]
    orphan = next(f for f in doc["findings"] if f["code"] == "orphan")
    assert (orphan["file"], orphan["line"]) == ("status/en.yaml", 2)
    assert exit_code == 0
    assert cli("-C", str(root), "check", "--strict").exit_code == 1


def test_a_source_that_does_not_load_leaves_no_orphans(
    project: Callable[..., Path], cli: Callable[..., Any]
) -> None:
    """A source post with a bad date is an error at its line; its translation and its status
    records are not orphans (that told the user to delete the translation, and `bipub review
    prune` to remove its records)."""
    root = project()
    approve = ("review", "approve", "--all", "--lang", "en", "--reviewer", "r")
    assert cli("-C", str(root), *approve).exit_code == 0
    write(root, {KO: KO_POST.replace("date: 2026-01-01", "date: 01.01.2026")})
    exit_code, doc = check_json(cli, root)
    assert exit_code == 1
    assert [(f["code"], f["file"], f["line"]) for f in doc["findings"] if f["file"] == KO] == [
        ("schema", KO, 4)
    ]
    assert not [f for f in doc["findings"] if f["code"] == "orphan"]


def test_a_changed_number_code_span_or_link_in_a_reviewed_translation_is_exit_1(
    project: Callable[..., Path], cli: Callable[..., Any]
) -> None:
    root = project()
    assert (
        cli(
            "-C", str(root), "review", "approve", "--all", "--lang", "en", "--reviewer", "r"
        ).exit_code
        == 0
    )
    assert cli("-C", str(root), "check").exit_code == 0
    for old, new in (
        ("157 → 382", "157 → 382.5"),
        ("`max_num_seqs`", "`max_seqs`"),
        ("https://e.org/n", "https://e.org/x"),
    ):
        write(root, {EN: EN_POST.replace(old, new)})
        result = cli("-C", str(root), "check")
        assert result.exit_code == 1, (old, result.stdout)
        assert "error" in result.stdout


def test_a_reviewed_link_to_the_translations_own_language_page_is_no_qa_error(
    project: Callable[..., Path], cli: Callable[..., Any]
) -> None:
    """The Korean post links to the Korean page of another post; its English translation links
    to that post's English page: the same target for its readers, not a `links` error."""
    ko = KO_POST.replace("(https://e.org/n)", "(/ko/blog/other/)")
    en = EN_POST.replace("(https://e.org/n)", "(/en/blog/other/)")
    root = project({KO: ko, EN: en})
    approved = cli("-C", str(root), "review", "approve", "--all", "--lang", "en", "--reviewer", "r")
    assert approved.exit_code == 0, approved.stderr
    result = cli("-C", str(root), "check")
    assert result.exit_code == 0, result.stdout
    assert "links" not in result.stdout


def test_qa_on_a_machine_draft_is_a_warning(
    project: Callable[..., Path], cli: Callable[..., Any]
) -> None:
    root = project({EN: EN_POST.replace("157 → 382", "157 → 328")})
    en0 = _body0(EN_POST.replace("157 → 382", "157 → 328"))
    _status(
        root,
        "en",
        {
            "posts/p:body#0": record(
                _body0(KO_POST),
                en0,
                origin="machine",
                engine="deepl",
                state="draft",
                reviewer=None,
                reviewed=None,
            )
        },
    )
    exit_code, doc = check_json(cli, root)
    assert ("numbers", "warning", "posts/p:body#0") in own(doc)
    assert exit_code == 0


# --------------------------------------------------------------------------- formats


def test_json_summary_counts_per_code_and_language(
    project: Callable[..., Path], cli: Callable[..., Any]
) -> None:
    root = project({EN: EN_POST.replace("157 → 382", "157 → 328").replace("- two\n", "")})
    _, doc = check_json(cli, root)
    assert doc["summary"]["counts"]["numbers"] == {"en": 1}
    assert doc["summary"]["counts"]["markup"] == {"en": 1}
    assert doc["summary"]["errors"] == 2
    assert doc["version"] == 1


def test_github_annotations(project: Callable[..., Path], cli: Callable[..., Any]) -> None:
    root = project({EN: EN_POST.replace("157 → 382", "157 → 328")})
    result = cli("-C", str(root), "check", "--format", "github")
    assert result.exit_code == 1
    lines = [ln for ln in result.stdout.splitlines() if "numbers" in ln]
    assert lines == [
        "::error file=content/en/posts/p.md,line=6,title=bipub numbers [en]::posts/p:body#0: "
        "numbers differ: the source has 382 but the translation has 328"
    ]


def test_text_report_groups_by_file_and_ends_with_coverage(
    project: Callable[..., Path], cli: Callable[..., Any]
) -> None:
    root = project({EN: EN_POST.replace("157 → 382", "157 → 328")})
    result = cli("-C", str(root), "check")
    out = result.stdout
    assert "content/en/posts/p.md\n" in out
    assert re.search(r"6\s+error\s+numbers\s+\[en\] posts/p:body#0", out)
    assert "Coverage" in out and "posts" in out
    assert out.rstrip().endswith("1 error, 0 warnings")
    assert "\x1b[" not in out  # no colour when not a terminal


def test_html_report_is_standalone_and_structured(
    project: Callable[..., Path], cli: Callable[..., Any], tmp_path: Path
) -> None:
    from lxml import html as lxml_html

    root = project({EN: EN_POST.replace("157 → 382", "157 → 328")})
    _status(
        root, "en", {"posts/p:description": record("옛 설명", "How the scheduler picks a batch")}
    )
    out = tmp_path / "report" / "check.html"
    result = cli("-C", str(root), "check", "--format", "html", "--output", str(out))
    assert result.exit_code == 1
    assert result.stdout == ""
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!doctype html>")
    tree = lxml_html.fromstring(text)
    # no external assets
    assert not tree.xpath("//link[@href] | //script[@src] | //img[@src]")
    rows = tree.xpath('//section[@id="coverage"]//tr[@data-lang]')
    assert {(r.get("data-lang"), r.get("data-kind")) for r in rows} >= {
        ("en", "posts"),
        ("ko", "ui"),
    }
    assert tree.xpath('//tr[@data-lang="en"][@data-kind="posts"]//div[@class="bar"]/span')
    units = tree.xpath('//article[@class="unit"]')
    by_codes = {u.get("data-codes"): u for u in units}
    numbers = by_codes["numbers"]
    assert "posts/p:body#0" in numbers.xpath("string(h3)")
    src, tr = numbers.xpath('.//div[@class="pair"]/div')
    assert "157 → 382" in src.xpath('string(.//div[@class="text"])')
    assert "157 → 328" in tr.xpath('string(.//div[@class="text"])')
    assert tr.xpath('.//div[@class="text"]/code')[0].text == "`max_num_seqs`"  # code: monospace
    stale = by_codes["stale"]
    assert stale.xpath(
        './/details[@class="stale-diff"]//div[@class="text diff"]/span[@class="add"]'
    )
    form = tree.xpath('//form[@id="filters"]')[0]
    assert form.get("hidden") is not None  # shown by the script; without JS everything is visible
    assert {i.get("value") for i in form.xpath(".//input")} == {"numbers", "stale"}
    assert tree.xpath("//script") and "querySelectorAll" in tree.xpath("string(//script)")


# --------------------------------------------------------------------------- filters, config, exit codes


def test_lang_and_only_filters(project: Callable[..., Path], cli: Callable[..., Any]) -> None:
    root = project(
        {
            EN: EN_POST.replace("157 → 382", "157 → 328"),
            "content/ko/posts/q.md": KO_POST.replace("[vLLM] ", ""),
        }
    )
    _, everything = check_json(cli, root)
    assert {f[2] for f in own(everything)} == {"posts/p:body#0", "posts/q"}
    _, only_q = check_json(cli, root, "--only", "posts/q")
    assert {f[2] for f in own(only_q)} == {"posts/q"}
    _, by_glob = check_json(cli, root, "--only", "content/en/posts/p.*")
    assert {f[2] for f in own(by_glob)} == {"posts/p:body#0"}
    _, ko = check_json(cli, root, "--lang", "ko")
    assert own(ko) == []
    assert list(ko["summary"]["coverage"]) == ["ko"]
    bad = cli("-C", str(root), "check", "--lang", "ja")
    assert bad.exit_code == 2 and "ja" in bad.stderr
    # a pattern that names nothing (a typo) checked nothing and said "0 errors", exit 0
    typo = cli("-C", str(root), "check", "--only", "posts/qq")
    assert typo.exit_code == 2, typo.stdout + typo.stderr
    assert "--only posts/qq: matches no unit, file or finding" in typo.stderr
    assert "0 errors" not in typo.stdout


def test_config_severity_ignore_and_allowlist(
    project: Callable[..., Path], cli: Callable[..., Any]
) -> None:
    broken = EN_POST.replace("157 → 382", "157 → 328").replace(
        "How the scheduler picks a batch", "스케줄러가 배치를 고르는 과정을 정리합니다"
    )
    config = CONFIG + (
        "check:\n"
        "  severity: {numbers: warning}\n"
        "  ignore:\n"
        "    - {code: untranslated, key: 'posts/p:desc*', reason: kept in Korean on purpose}\n"
    )
    exit_code, doc = check_json(cli, project({"bipub.yaml": config, EN: broken}))
    assert own(doc) == [("numbers", "warning", "posts/p:body#0")]
    assert doc["summary"]["ignored"] == 1
    assert exit_code == 0
    off = (
        CONFIG
        + "check:\n  severity: {numbers: 'off'}\n  allow_untranslated: ['스케줄러가 배치를 고르는 과정을 정리합니다']\n"
    )
    exit_code, doc = check_json(cli, project({"bipub.yaml": off, EN: broken}))
    assert own(doc) == []


def test_bad_check_config_is_exit_2_with_a_line(
    project: Callable[..., Path], cli: Callable[..., Any]
) -> None:
    root = project({"bipub.yaml": CONFIG + "check:\n  severity: {nubmers: error}\n"})
    result = cli("-C", str(root), "check")
    assert result.exit_code == 2
    assert "bipub.yaml:8: check: unknown finding code 'nubmers'" in result.stderr
    root = project({"bipub.yaml": CONFIG + "check:\n  ignore:\n    - {code: numbers, reason: x}\n"})
    result = cli("-C", str(root), "check")
    assert result.exit_code == 2 and "bipub.yaml:9" in result.stderr


def test_inline_ignores_in_markdown_and_yaml(
    project: Callable[..., Path], cli: Callable[..., Any]
) -> None:
    body = EN_POST.replace("157 → 382", "157 → 328").replace(
        "\n\n## Second",
        "\n\n[//]: # (bipub-ignore: numbers the figure was corrected in English)\n\n## Second",
    )
    exit_code, doc = check_json(cli, project({EN: body}))
    assert own(doc) == []
    assert doc["summary"]["ignored"] == 1 and exit_code == 0
    no_reason = body.replace(" the figure was corrected in English", "")
    exit_code, doc = check_json(cli, project({EN: no_reason}))
    assert [f[0] for f in own(doc)] == ["ignore", "numbers"]
    assert exit_code == 1
    cv_en = "name: A\nsummary: Serves 1.2 billion tokens a day.\n"
    cv_ko = "summary: 하루 15억 토큰을 처리합니다.  # bipub-ignore: numbers updated figure, source follows\n"
    _, doc = check_json(cli, project({"content/en/cv.yaml": cv_en, "content/ko/cv.yaml": cv_ko}))
    assert own(doc) == []


def test_corrupt_status_file_is_an_error_with_its_line_and_is_not_rewritten(
    project: Callable[..., Path], cli: Callable[..., Any]
) -> None:
    root = project({"status/en.yaml": "posts/p:title:\n  source_hash: abc\n  state: reviewd\n"})
    before = (root / "status/en.yaml").read_bytes()
    result = cli("-C", str(root), "check")
    assert result.exit_code == 1
    assert re.search(r"status/en\.yaml\s*\n\s+3\s+error\s+status", result.stdout), result.stdout
    # the record is named, not only its field (a status file holds hundreds of `state:`)
    assert "[en] posts/p:title: state: Input should be 'draft' or 'reviewed'" in result.stdout
    built = cli("-C", str(root), "build")
    assert built.exit_code != 0
    assert "status/en.yaml:3: posts/p:title: state: Input should be" in built.stderr, built.stderr
    broken_yaml = "posts/p:title:\n  source_hash: [abc\n"
    write(root, {"status/en.yaml": broken_yaml})
    _, doc = check_json(cli, root)
    errors = [f for f in doc["findings"] if f["severity"] == "error"]
    assert errors and errors[0]["file"] == "status/en.yaml" and errors[0]["line"]
    assert (root / "status/en.yaml").read_text(encoding="utf-8") == broken_yaml
    write(root, {"status/en.yaml": before.decode()})
    assert (root / "status/en.yaml").read_bytes() == before


def test_keys_colliding_after_normalization_are_an_error_naming_both(
    project: Callable[..., Path], cli: Callable[..., Any]
) -> None:
    nfc = "posts/카페:title"
    nfd = unicodedata.normalize("NFD", nfc)
    text = (
        dump_status({nfc: record("카페", "Cafe")})
        + dump_status({nfd: record("카페", "Cafe")}).split("\n", 1)[1]
    )
    root = project({"status/en.yaml": text})
    _, doc = check_json(cli, root)
    (err,) = [f for f in doc["findings"] if f["severity"] == "error"]
    assert err["file"] == "status/en.yaml"
    assert re.search(r"line \d+", err["message"]) and err["line"]


def test_nfd_file_names_pair_with_their_nfc_twins(
    project: Callable[..., Path], cli: Callable[..., Any]
) -> None:
    root = project()
    name = "카페-이야기"
    (root / "content/ko/posts" / f"{unicodedata.normalize('NFD', name)}.md").write_text(
        KO_POST, encoding="utf-8"
    )
    (root / "content/en/posts" / f"{unicodedata.normalize('NFC', name)}.md").write_text(
        EN_POST, encoding="utf-8"
    )
    exit_code, doc = check_json(cli, root)
    assert own(doc) == []
    assert exit_code == 0


def test_check_renders_nothing(project: Callable[..., Path], cli: Callable[..., Any]) -> None:
    root = project()

    def files() -> list[str]:
        return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))

    before = files()
    assert cli("-C", str(root), "check").exit_code == 0
    # only its caches are written (a warm check parses and checks only what changed, and with
    # nothing changed reuses its result, check-<options>.pickle, and its report in that format)
    after = files()
    results = [f for f in after if re.fullmatch(r"\.bipub-cache/check-[0-9a-f]{16}\.pickle", f)]
    assert len(results) == 1
    reports = [
        f for f in after if re.fullmatch(r"\.bipub-cache/check-[0-9a-f]{16}-text\.report", f)
    ]
    assert len(reports) == 1
    results += reports
    docs = [f for f in after if re.fullmatch(r"\.bipub-cache/build-docs-\d{2,3}\.pickle", f)]
    assert docs, "parsed documents are cached"
    docs += [
        f for f in after if re.fullmatch(r"\.bipub-cache/build-tables-[0-9a-f]{16}\.pickle", f)
    ]
    assert sorted(set(after) - set(results) - set(docs)) == sorted(
        [
            *before,
            ".bipub-cache",
            ".bipub-cache/.gitignore",
            ".bipub-cache/.save.lock",  # (build.pickle is saved under it: cache_files.py)
            ".bipub-cache/build.pickle",
            ".bipub-cache/check-qa.json",
        ]
    )
    assert cli("-C", str(root), "check").exit_code == 0


# --------------------------------------------------------------------------- the demo


def test_the_demo_reports_exactly_its_seeded_gaps(
    make_project: Callable[[str], Path], cli: Callable[..., Any]
) -> None:
    root = make_project("demo")
    if not (root / "status" / "en.yaml").is_file():
        pytest.skip("the demo has no status/en.yaml")
    exit_code, doc = check_json(cli, root)
    assert own(doc) == [
        ("draft", "warning", "posts/continuous-batching:body#0"),
        ("missing", "warning", "cv:highlights[2].text"),
        ("missing", "warning", "posts/benchmarking-methodology"),
        ("missing", "warning", "posts/tensor-parallel-allreduce"),
        ("stale", "warning", "posts/prefix-caching:body#4"),
    ]
    stale = next(f for f in doc["findings"] if f["code"] == "stale")
    assert stale["file"] == "content/en/posts/prefix-caching.md"
    assert "+**2026년 1월 추가:**" in stale["diff"]
    untranslated = next(f for f in doc["findings"] if f["key"] == "posts/tensor-parallel-allreduce")
    assert (untranslated["file"], untranslated["line"]) == (
        "content/ko/posts/tensor-parallel-allreduce.md",
        1,
    )
    assert exit_code == 0


def test_approving_the_demo_draft_clears_its_finding(
    make_project: Callable[[str], Path], cli: Callable[..., Any]
) -> None:
    root = make_project("demo")
    if not (root / "status" / "en.yaml").is_file():
        pytest.skip("the demo has no status/en.yaml")
    key = "posts/continuous-batching:body#0"
    result = cli("-C", str(root), "review", "approve", key, "--reviewer", "jiwon")
    assert result.exit_code == 0, result.stderr
    _, doc = check_json(cli, root)
    assert not [f for f in doc["findings"] if f["key"] == key]
    shutil.rmtree(root)


def test_qa_of_a_stale_unit_counts_only_problems_it_had_before(
    project: Callable[..., Path], cli: Callable[..., Any]
) -> None:
    root = project()
    assert (
        cli(
            "-C", str(root), "review", "approve", "--all", "--lang", "en", "--reviewer", "r"
        ).exit_code
        == 0
    )
    # the source gains a number: stale, and the number is not a QA error (the change is `stale`)
    write(root, {KO: KO_POST.replace("참고.", "참고. 새 측정은 512입니다.")})
    _, doc = check_json(cli, root)
    assert own(doc) == [("stale", "warning", "posts/p:body#0")]
    # the translator followed the change: still only stale (approve it)
    write(root, {EN: EN_POST.replace("and #1234.", "and #1234. The new figure is 512.")})
    _, doc = check_json(cli, root)
    assert own(doc) == [("stale", "warning", "posts/p:body#0")]
    # a problem the translation has against both the old and the new source is reported
    write(root, {EN: EN_POST.replace("157 → 382", "157 → 328")})
    exit_code, doc = check_json(cli, root)
    assert ("numbers", "error", "posts/p:body#0") in own(doc)
    assert exit_code == 1


def test_a_qa_cache_that_cannot_be_saved_is_a_warning_not_silence(
    project: Callable[..., Path], cli: Callable[..., Any]
) -> None:
    root = project()
    # a folder where the cache file goes: the rename that saves it fails (as on a full disk)
    (root / ".bipub-cache" / "check-qa.json").mkdir(parents=True)
    result = cli("-C", str(root), "check")
    assert result.exit_code == 0, result.stdout  # a warning: the check itself is complete
    out = result.stdout + (result.stderr or "")
    assert "check-qa.json could not be saved" in out, out
    assert "cache-not-saved" in out, out
    assert not list((root / ".bipub-cache").glob(".check-qa.json.tmp"))


def test_a_file_left_out_of_the_coverage_by_its_errors_is_named(
    project: Callable[..., Path], cli: Callable[..., Any], tmp_path: Path
) -> None:
    """A CV with a schema error has no units: the coverage table has no `cv` row, and the report
    says which file it does not count (user21: the row was just missing)."""
    cv = "basics: {name: T}\neducation: [{institution: X, degree: Y, no_such_field: 1}]\n"
    root = project({"content/en/cv.yaml": cv, "content/ko/cv.yaml": "basics: {name: T}\n"})
    result = cli("-C", str(root), "check")
    assert result.exit_code == 1
    assert "schema" in result.stdout + result.stderr
    assert "Not counted: content/en/cv.yaml (its errors above kept it from loading)" in (
        result.stdout
    )
    out = tmp_path / "report.html"
    cli("-C", str(root), "check", "--format", "html", "--output", str(out))
    assert "Not counted: <code>content/en/cv.yaml</code>" in out.read_text(encoding="utf-8")
