"""`check` and `review` on a CV translated by hand (issue 18), on tests/projects/hand_cv: a
Korean CV with no status records, units identical to the English, numbers changed in
translation and a shared field that differs; three English posts with no Korean translation
and one translated in part (its Korean body has a changed number and a code span).

- coverage tells reviewed, unreviewed, untranslated and failing-QA units apart (text, json,
  html), and a machine draft never counts as reviewed;
- `review` names the translations by hand that have no review record, `review --human` offers
  them, and approving one records its review;
- the text report puts a file's missing units on one line (`-v`: every key);
- no finding repeats its key in its message.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bipub.pair.status import StatusRecord, dump_status, load_status
from bipub.pair.units import text_hash
from tests.conftest import TESTS, check_golden

Cli = Callable[..., Any]

# the Korean CV's 20 units: 5 identical to the English (the stats context, Python, Rust, CUDA
# and the university; the two periods "2016 – 2020" are the same in every language), 2 with
# changed numbers, 13 translated soundly
KO_CV = {
    "units": 20,
    "current": 20,
    "reviewed": 0,
    "unreviewed": 13,
    "untranslated": 5,
    "failing_qa": 2,
    "draft": 0,
    "stale": 0,
    "missing": 0,
}


@pytest.fixture
def root(make_project: Callable[[str], Path]) -> Path:
    return make_project("hand_cv")


def check_json(cli: Cli, root: Path, *args: str) -> dict[str, Any]:
    result = cli("-C", str(root), "check", "--format", "json", *args)
    return dict(json.loads(result.stdout))


# --------------------------------------------------------------------------- coverage


def test_coverage_tells_reviewed_unreviewed_untranslated_and_failing_qa_apart(
    root: Path, cli: Cli
) -> None:
    doc = check_json(cli, root)
    assert doc["summary"]["coverage"]["ko"]["cv"] == KO_CV
    posts = doc["summary"]["coverage"]["ko"]["posts"]
    assert (posts["unreviewed"], posts["failing_qa"], posts["missing"]) == (1, 1, 15)

    text = cli("-C", str(root), "check").stdout
    header = next(line for line in text.splitlines() if line.startswith("lang"))
    assert header == (
        "lang kind  units reviewed unreviewed untranslated QA errors draft stale missing done"
    )
    row = next(line for line in text.splitlines() if line.startswith("ko   cv"))
    assert row.split() == ["ko", "cv", "20", "0", "13", "5", "2", "0", "0", "0", "65%"]
    assert "done = reviewed + unreviewed" in text


def test_the_html_bar_shows_each_part(root: Path, cli: Cli) -> None:
    from lxml import html as lxml_html

    page = cli("-C", str(root), "check", "--format", "html").stdout
    tree = lxml_html.fromstring(page)
    (row,) = tree.xpath('//tr[@data-lang="ko"][@data-kind="cv"]')
    segments = {
        s.get("class"): float(re.search(r"width:([\d.]+)%", s.get("style")).group(1))  # type: ignore[union-attr]
        for s in row.xpath('.//div[@class="bar"]/span')
    }
    assert segments == {"unreviewed": 65.0, "untranslated": 25.0, "failing_qa": 10.0}
    assert "13 unreviewed, 5 untranslated, 2 QA errors" in row.xpath("string(.//div/@aria-label)")
    cells = {
        td.get("class").split()[1]: td.text for td in row.xpath('./td[contains(@class, "n ")]')
    }
    assert cells["reviewed"] == "0" and cells["failing_qa"] == "2" and cells["done"] == "65%"
    legend = tree.xpath('//p[@class="legend"]/span/@class')
    assert legend == [
        "reviewed",
        "unreviewed",
        "untranslated",
        "failing_qa",
        "draft",
        "stale",
        "missing",
    ]


def _record(root: Path, key: str, **fields: Any) -> None:
    from bipub.check.run import analyze

    unit = analyze(root).units[("ko", key)]
    assert unit.translation is not None
    rec = StatusRecord(
        source_hash=text_hash(unit.source),
        source=unit.source,
        translation_hash=text_hash(unit.translation),
        **fields,
    )
    path = root / "status/ko.yaml"
    records = {}
    if path.is_file():
        from bipub.diagnostics import Collector

        records = dict(load_status(root, "ko", Collector()).records)
    records[key] = rec
    path.parent.mkdir(exist_ok=True)
    path.write_text(dump_status(records), encoding="utf-8")


def test_a_machine_draft_is_never_counted_as_reviewed(root: Path, cli: Cli) -> None:
    _record(root, "cv:title", origin="machine", engine="deepl", state="draft")
    _record(root, "cv:summary", origin="human", state="reviewed", reviewer="r")
    doc = check_json(cli, root)
    cv = doc["summary"]["coverage"]["ko"]["cv"]
    assert (cv["draft"], cv["reviewed"], cv["unreviewed"]) == (1, 1, 11)
    listed = cli("-C", str(root), "review", "--human").stdout
    assert re.search(r"draft\s+cv:title", listed)  # offered as the draft it is
    assert "cv:summary" not in listed  # reviewed


# --------------------------------------------------------------------------- review --human


def test_review_names_and_offers_translations_by_hand(root: Path, cli: Cli) -> None:
    plain = cli("-C", str(root), "review")
    assert plain.exit_code == 0
    assert plain.stdout.startswith("Nothing to review. 22 translations written by hand have no")
    assert "bipub review --human" in plain.stdout

    human = cli("-C", str(root), "review", "--human").stdout
    assert human.startswith("ko: 22 units to review\n")
    assert re.search(r"human\s+cv:title  content/ko/cv.yaml:2", human)
    assert re.search(r"human\s+posts/four:title  content/ko/posts/four.md:2", human)
    assert "ui:" not in human  # reviewed in their catalogs
    assert cli("-C", str(root), "review", "list", "--human").stdout == human

    shown = cli("-C", str(root), "review", "show", "cv:stats[1].context").stdout
    assert "not reviewed (no review record)" in shown
    assert "numbers differ: the source has 12 but the translation has 21" in shown

    approved = cli("-C", str(root), "review", "approve", "cv:title", "--reviewer", "min")
    assert approved.exit_code == 0, approved.stderr
    from bipub.diagnostics import Collector

    rec = load_status(root, "ko", Collector()).records["cv:title"]
    assert (rec.origin, rec.state, rec.reviewer) == ("human", "reviewed", "min")
    cv = check_json(cli, root)["summary"]["coverage"]["ko"]["cv"]
    assert (cv["reviewed"], cv["unreviewed"]) == (1, 12)
    assert cli("-C", str(root), "review", "--human").stdout.startswith("ko: 21 units to review")

    # a QA error is refused as for any translation (--force approves it anyway)
    refused = cli("-C", str(root), "review", "approve", "cv:stats[1].context", "--reviewer", "m")
    assert refused.exit_code == 1 and "numbers differ" in refused.stderr


def test_review_interactive_with_human_approves_a_translation_by_hand(root: Path, cli: Cli) -> None:
    from click.testing import CliRunner

    from bipub.cli import main

    args = ["-C", str(root), "review", "-i", "--human", "--reviewer", "min"]
    result = CliRunner().invoke(main, args, input="a\nq\n", catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "[a]pprove, [e]dit, [s]kip, [q]uit" in result.output  # nothing to reject
    assert "Approved 1, rejected 0, skipped 0." in result.output
    from bipub.diagnostics import Collector

    assert list(load_status(root, "ko", Collector()).records) == ["cv:title"]
    without = CliRunner().invoke(main, args[:4] + args[5:], input="q\n")
    assert "Nothing to review. 21 translations written by hand" in without.output


# --------------------------------------------------------------------------- the text report


def test_the_text_report_puts_a_files_missing_units_on_one_line(
    root: Path, cli: Cli, update_golden: bool
) -> None:
    text = cli("-C", str(root), "check").stdout
    check_golden(TESTS / "golden/review/check_hand_cv.txt", text, update_golden)
    lines = text.splitlines()
    (four,) = [line for line in lines if line.startswith("content/en/posts/four.md")]
    assert four.startswith("content/en/posts/four.md:3  warning missing  [ko] 3 units have no ko")
    assert "lines 3–13" in four and "-v" in four
    one = [line for line in lines if line.startswith("content/en/posts/one.md")]
    assert one == [
        "content/en/posts/one.md:1  warning missing  [ko] posts/one: no ko translation of this "
        "post (content/ko/posts/one.md; 4 units)"
    ]
    missing = [line for line in lines if " warning missing " in line]
    assert len(missing) == 4  # one line per file

    for args in (("check", "-v"), ("-v", "check")):
        every = cli("-C", str(root), *args).stdout
        for key in ("posts/four:description", "posts/four:body#1", "posts/four:body#2"):
            assert re.search(rf"\d+\s+warning missing\s+\[ko\] {re.escape(key)}: ", every), key
        assert "content/en/posts/four.md\n" in every
    assert cli("-C", str(root), "check").stdout == text  # the cached plain report is not -v's


# --------------------------------------------------------------------------- messages


def _overlay(root: Path, case: str) -> Path:
    shutil.copytree(TESTS / "bad_inputs" / case / "files", root, dirs_exist_ok=True)
    return root


@pytest.mark.parametrize(
    "case",
    [
        "hand_cv",
        "real_content",
        "bad_inputs/cv_translation_wrong_type",
        "bad_inputs/cv_unknown_field",
        "bad_inputs/unknown_field",
        "bad_inputs/wrong_type",
    ],
)
def test_no_finding_repeats_its_key(
    case: str, make_project: Callable[[str], Path], cli: Cli
) -> None:
    if case.startswith("bad_inputs/"):
        root = _overlay(make_project("minimal"), case.split("/", 1)[1])
    else:
        root = make_project(case)
    doc = check_json(cli, root)
    keyed = [f for f in doc["findings"] if f["key"]]
    assert keyed, "the case has no finding with a key: it tests nothing"
    repeated = [(f["key"], f["message"]) for f in keyed if f["message"].startswith(f["key"] + ":")]
    assert repeated == []
    for fmt in ("text", "github"):
        out = cli("-C", str(root), "check", "--format", fmt).stdout
        for f in keyed:
            assert f"{f['key']}: {f['key']}:" not in out, (fmt, f["key"])
