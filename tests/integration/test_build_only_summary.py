"""`bipub build --only KIND` ends with a summary of what it built (issue 18): not
"Built 0 pages (; 0 unchanged)"."""

from __future__ import annotations

import re

from bipub.commands.build_cmd import only_summary


def test_only_json_says_what_it_built(make_project, cli) -> None:
    project = make_project("minimal")
    assert cli("-C", str(project), "-q", "build").exit_code == 0
    result = cli("-C", str(project), "build", "--only", "json")
    assert result.exit_code == 0, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert "0 pages" not in last and "(;" not in last
    m = re.match(r"Built (\d+) JSON API files, (\d+) files in all \(0 changed\) in ", last)
    assert m, last
    api = sorted(p for p in (project / "site" / "api").rglob("*") if p.is_file())
    assert int(m.group(1)) == len(api)
    every = [p for p in (project / "site").rglob("*") if p.is_file()]
    assert int(m.group(2)) == len(every)


def test_only_two_kinds_and_up_to_date(make_project, cli) -> None:
    project = make_project("minimal")
    assert cli("-C", str(project), "-q", "build").exit_code == 0
    result = cli("-C", str(project), "build", "--only", "feeds", "--only", "llms")
    last = result.stderr.strip().splitlines()[-1]
    assert re.match(r"Built \d+ feed files and \d+ llms\.txt files, \d+ files in all \(", last), (
        last
    )
    again = cli("-C", str(project), "build", "--only", "feeds", "--only", "llms")
    last = again.stderr.strip().splitlines()[-1]
    assert last.startswith("Up to date: nothing changed since the last build (")
    assert "0 pages" not in last


def test_only_summary_wording() -> None:
    assert only_summary({"pdf": 6}, {}, 0, 130, 2) == "6 PDFs, 130 files in all (2 changed)"
    assert only_summary({"pdf": 1}, {}, 0, 1, 1) == "1 PDF, 1 file in all (1 changed)"
    assert only_summary({"html": 70, "pdf": 6}, {"ko": 32, "en": 32}, 60, 130, 3) == (
        "64 pages (ko 32, en 32; 60 unchanged) and 6 PDFs, 130 files in all (3 changed)"
    )
