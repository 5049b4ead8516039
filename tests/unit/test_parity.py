"""State checks (missing, orphan, untranslated, stale, draft, edited), severity and list pairing."""

from __future__ import annotations

import random
import tempfile
import unicodedata
from collections import Counter
from datetime import date
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bipub.check.findings import Finding
from bipub.check.parity import StatusView, check_units, key_parity, normalize_status, stale_diff
from bipub.check.run import analyze
from bipub.check.severity import apply_policy
from bipub.config import CheckIgnore, CheckOptions
from bipub.diagnostics import Severity
from bipub.pair.status import StatusFile, StatusRecord, dump_status
from bipub.pair.units import Unit, text_hash

CONFIG = """\
languages:
  - {code: ko, name: 한국어, title: 테스트}
  - {code: en, name: English, title: Test}
default_language: ko
base_url: https://t.example.org/
author: {name: T}
"""


def write(root: Path, files: dict[str, str]) -> Path:
    files = {"bipub.yaml": CONFIG, **files}
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def unit(key: str, source: str, translation: str | None, lang: str = "en") -> Unit:
    src_lang = "ko" if lang == "en" else "en"
    return Unit(
        key,
        src_lang,
        lang,
        source,
        f"content/{src_lang}/x.md",
        3,
        translation,
        f"content/{lang}/x.md" if translation is not None else None,
        4 if translation is not None else None,
    )


def view(records: dict[str, StatusRecord], lang: str = "en") -> dict[str, StatusView]:
    return {lang: StatusView(lang, f"status/{lang}.yaml", records, dict.fromkeys(records, 2))}


def reviewed(source: str, translation: str) -> StatusRecord:
    return StatusRecord(
        source_hash=text_hash(source),
        source=source,
        reviewer="r",
        reviewed=date(2026, 4, 7),
        translation_hash=text_hash(translation),
    )


def codes(findings: list[Finding]) -> list[tuple[str, str | None]]:
    return sorted((f.code, f.key) for f in findings)


# --------------------------------------------------------------------------- unit states


def test_missing_and_clean() -> None:
    result = check_units(
        [unit("posts/a:title", "제목", None), unit("posts/a:body#0", "본문", "Body")], {}
    )
    assert codes(result.findings) == [("missing", "posts/a:title")]
    assert result.states[("en", "posts/a:title")] == "missing"
    assert result.states[("en", "posts/a:body#0")] == "translated"


def test_stale_has_an_old_vs_new_diff() -> None:
    old, new = "첫 줄\n둘째 줄", "첫 줄\n둘째 줄\n셋째 줄 157"
    result = check_units(
        [unit("posts/a:body#0", new, "Line one\nline two")],
        view({"posts/a:body#0": reviewed(old, "Line one\nline two")}),
    )
    (f,) = result.findings
    assert f.code == "stale" and f.file == "content/en/x.md" and f.line == 4
    assert f.diff is not None and "+셋째 줄 157" in f.diff
    assert result.states[("en", "posts/a:body#0")] == "stale"


def test_stale_diff_lines_are_file_lines() -> None:
    diff = stale_diff("a\nb", "a\nb\nc", "content/ko/x.md", 10)
    assert "--- content/ko/x.md (as translated)" in diff
    assert "@@ -11 +11,2 @@" in diff


def test_draft_and_edited() -> None:
    draft = StatusRecord(
        source_hash=text_hash("본문"),
        source="본문",
        origin="machine",
        engine="deepl",
        state="draft",
    )
    result = check_units([unit("posts/a:body#0", "본문", "Body")], view({"posts/a:body#0": draft}))
    assert codes(result.findings) == [("draft", "posts/a:body#0")]
    assert result.findings[0].on_draft
    assert ("en", "posts/a:body#0") in result.drafts
    edited = check_units(
        [unit("posts/a:body#0", "본문", "Body, edited")],
        view({"posts/a:body#0": reviewed("본문", "Body")}),
    )
    assert codes(edited.findings) == [("edited", "posts/a:body#0")]
    clean = check_units(
        [unit("posts/a:body#0", "본문", "Body")], view({"posts/a:body#0": reviewed("본문", "Body")})
    )
    assert clean.findings == [] and ("en", "posts/a:body#0") in clean.reviewed


def test_orphan_status_record_and_untranslated() -> None:
    result = check_units(
        [unit("posts/a:title", "제목", "제목")],
        view({"posts/gone:title": reviewed("옛 제목", "Old title")}),
    )
    assert codes(result.findings) == [
        ("orphan", "posts/gone:title"),
        ("untranslated", "posts/a:title"),
    ]
    orphan = next(f for f in result.findings if f.code == "orphan")
    assert (orphan.file, orphan.line) == ("status/en.yaml", 2)


def test_nfd_keys_pair_with_nfc_twins() -> None:
    nfd = unicodedata.normalize("NFD", "posts/카페:title")
    nfc = unicodedata.normalize("NFC", "posts/카페:title")
    assert nfd != nfc
    sf = StatusFile("en", "status/en.yaml", {nfd: reviewed("카페", "Cafe")}, {nfd: 2})
    status, problems = normalize_status(sf)
    assert problems == []
    result = check_units([unit(nfc, "카페", "Cafe")], {"en": status})
    assert result.findings == [] and ("en", nfc) in result.reviewed
    twins = StatusFile(
        "en",
        "status/en.yaml",
        {nfd: reviewed("카페", "Cafe"), nfc: reviewed("카페", "Cafe")},
        {nfd: 2, nfc: 9},
    )
    _, problems = normalize_status(twins)
    assert len(problems) == 1 and problems[0].severity is Severity.ERROR
    assert "line 2" in problems[0].message and "line 9" in problems[0].message


# --------------------------------------------------------------------------- properties

keys = st.lists(
    st.sampled_from([f"posts/p{i}:{f}" for i in range(4) for f in ("title", "body#0", "body#1")]),
    unique=True,
)


@given(keys, keys)
def test_key_parity_is_symmetric(a: list[str], b: list[str]) -> None:
    sa, sb = dict.fromkeys(a, "x"), dict.fromkeys(b, "y")
    missing, orphan = key_parity(sa, sb)
    assert key_parity(sb, sa) == (orphan, missing)
    assert set(missing) | set(orphan) == set(a) ^ set(b)


@given(keys, keys, st.randoms())
def test_key_parity_ignores_order(a: list[str], b: list[str], rnd: random.Random) -> None:
    shuffled_a, shuffled_b = a[:], b[:]
    rnd.shuffle(shuffled_a)
    rnd.shuffle(shuffled_b)
    assert key_parity(dict.fromkeys(a), dict.fromkeys(b)) == key_parity(
        dict.fromkeys(shuffled_a), dict.fromkeys(shuffled_b)
    )


def _post(title: str, body: str, date_: str | None = "2026-01-01") -> str:
    head = f"title: {title}\n" + (f"date: {date_}\n" if date_ else "")
    return f"---\n{head}---\n\n{body}\n"


posts = st.dictionaries(
    st.sampled_from(["a", "b", "c", "d"]),
    st.tuples(st.booleans(), st.booleans(), st.sampled_from(["본문 1", "본문 2\n\n## 둘\n\n셋"])),
    max_size=4,
)


@settings(max_examples=25, deadline=None)
@given(posts, st.randoms())
def test_project_check_is_independent_of_file_order(
    spec: dict[str, tuple[bool, bool, str]], rnd: random.Random
) -> None:
    files: dict[str, str] = {}
    for name, (has_ko, has_en, body) in spec.items():
        if has_ko:
            files[f"content/ko/posts/{name}.md"] = _post(f"{name} 제목", body)
        if has_en:
            files[f"content/en/posts/{name}.md"] = _post(f"{name} title", "Body", None)
    results = []
    for _ in range(2):
        items = list(files.items())
        rnd.shuffle(items)
        with tempfile.TemporaryDirectory() as tmp:
            root = write(Path(tmp), dict(items))
            (root / "content" / "ko" / "posts").mkdir(parents=True, exist_ok=True)
            found = analyze(root).result.findings
            results.append([(f.code, f.lang, f.key, f.file, f.line, f.message) for f in found])
    assert results[0] == results[1]
    # symmetric: a post present in one language only is exactly one finding (missing or orphan)
    whole = [f[2] for f in results[0] if f[0] in ("missing", "orphan") and f[2] and ":" not in f[2]]
    counted = Counter(whole)
    for name, (has_ko, has_en, _) in spec.items():
        expected = 1 if has_ko != has_en else 0
        assert counted.get(f"posts/{name}", 0) == expected, (name, results[0])


# --------------------------------------------------------------------------- severity


def f(code: str, **kw: object) -> Finding:
    base: dict[str, object] = {
        "lang": "en",
        "key": "posts/a:body#0",
        "file": "content/en/posts/a.md",
        "line": 3,
        "message": "m",
    }
    base.update(kw)
    return Finding(code, **base)  # type: ignore[arg-type]


def test_default_severities() -> None:
    out = apply_policy(
        [
            f("numbers"),
            f("numbers", on_draft=True),
            f("stale"),
            f("missing"),
            f("yaml", severity=Severity.ERROR),
        ],
        CheckOptions(),
    )
    assert [x.severity for x in out.findings] == [
        Severity.ERROR,
        Severity.WARNING,
        Severity.WARNING,
        Severity.WARNING,
        Severity.ERROR,
    ]
    strict = apply_policy([f("stale")], CheckOptions(), strict=True)
    assert strict.findings[0].severity is Severity.ERROR


def test_config_severity_and_ignores() -> None:
    options = CheckOptions(
        severity={"stale": "error", "markup": "off", "numbers": "error"},
        ignore=[
            CheckIgnore(code="links", key="posts/a:*", reason="moved"),
            CheckIgnore(file="content/en/pages/*.md", reason="legal"),
        ],
    )
    out = apply_policy(
        [
            f("stale"),
            f("markup"),
            f("links"),
            f("links", key="posts/b:body#0"),
            f("missing", file="content/en/pages/legal.md"),
            f("numbers", on_draft=True),
        ],
        options,
    )
    assert [(x.code, x.key, x.severity.value) for x in out.findings] == [
        ("stale", "posts/a:body#0", "error"),
        ("links", "posts/b:body#0", "error"),
        ("numbers", "posts/a:body#0", "warning"),  # drafts stay warnings
    ]
    assert sorted(reason for _, reason in out.ignored) == [
        "legal",
        "moved",
        "severity: off in bipub.yaml",
    ]


def test_inline_ignore_applies_to_its_unit_and_code() -> None:
    inline = {("en", "posts/a:body#0"): {"numbers": "rounded"}}
    out = apply_policy(
        [f("numbers"), f("links"), f("numbers", key="posts/b:body#0")],
        CheckOptions(),
        inline=inline,
    )
    assert [(x.code, x.key) for x in out.findings] == [
        ("links", "posts/a:body#0"),
        ("numbers", "posts/b:body#0"),
    ]
    assert out.ignored[0][1] == "rounded"


# --------------------------------------------------------------------------- list insertion

CV_EN = """\
name: A
highlights:
  - label: Focus
    text: Serving performance.
  - label: Now
    text: Leading a team.
experience:
  - company: Acme
    position: Engineer
  - company: Beta
    position: Intern
"""
CV_KO = """\
highlights:
  - label: 관심
    text: 서빙 성능.
  - label: 현재
    text: 팀을 이끕니다.
experience:
  - company: Acme
    position: 엔지니어
  - company: Beta
    position: 인턴
"""


def _approve_all(root: Path) -> None:
    analysis = analyze(root)
    records = {
        key: reviewed(u.source, u.translation)
        for (lang, key), u in analysis.units.items()
        if lang == "ko" and u.translation is not None
    }
    (root / "status").mkdir(exist_ok=True)
    (root / "status" / "ko.yaml").write_text(dump_status(records), encoding="utf-8")


def test_inserting_a_list_item_with_identity_keeps_translations_paired(tmp_path: Path) -> None:
    root = write(tmp_path, {"content/en/cv.yaml": CV_EN, "content/ko/cv.yaml": CV_KO})
    _approve_all(root)
    assert analyze(root).result.findings == []
    inserted = CV_EN.replace("experience:\n", "experience:\n  - company: New\n    position: Lead\n")
    (root / "content/en/cv.yaml").write_text(inserted, encoding="utf-8")
    result = analyze(root).result
    assert codes(result.findings) == [("missing", "cv:experience[company=New].position")]


def test_inserting_a_list_item_without_identity_is_reported(tmp_path: Path) -> None:
    root = write(tmp_path, {"content/en/cv.yaml": CV_EN, "content/ko/cv.yaml": CV_KO})
    _approve_all(root)
    inserted = CV_EN.replace(
        "highlights:\n", "highlights:\n  - label: New\n    text: Something new.\n"
    )
    (root / "content/en/cv.yaml").write_text(inserted, encoding="utf-8")
    result = analyze(root).result
    # highlights pair by position: the shifted items no longer match what was translated
    assert ("stale", "cv:highlights[0].label") in codes(result.findings)
    assert ("stale", "cv:highlights[1].text") in codes(result.findings)
    assert ("missing", "cv:highlights[2].label") in codes(result.findings)


def test_translation_items_without_identity_are_reported_when_the_source_has_it(
    tmp_path: Path,
) -> None:
    ko = CV_KO.replace("  - company: Acme\n", "  -\n").replace("  - company: Beta\n", "  -\n")
    root = write(tmp_path, {"content/en/cv.yaml": CV_EN, "content/ko/cv.yaml": ko})
    result = analyze(root).result
    assert ("pairing", "cv:experience[0]") in codes(result.findings)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "",
                " ",
                "text",
                "## h",
                "# h",
                "####### no",
                "#no",
                "```",
                "```py",
                "~~~",
                "````",
                "  ```",
                "    ```",
                "# in fence?",
                "- item",
                "\t",
                "   ~~~~",
            ]
        ),
        max_size=14,
    )
)
def test_sections_keep_every_line_of_text(lines: list[str]) -> None:
    """Splitting at headings loses no text: every non-blank line is in exactly one section,
    in order, and the section lines point at it."""
    from bipub.pair.units import split_sections

    body = "\n".join(lines)
    sections = split_sections(body, 1)
    kept = [ln for sec in sections for ln in sec.text.split("\n") if ln.strip()]
    assert kept == [ln for ln in lines if ln.strip()]
    for sec in sections:
        assert lines[sec.line - 1] == sec.text.split("\n")[0]
