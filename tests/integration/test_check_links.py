"""`bipub check --links`: the link checker over an already built site, for users."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

from tests.conftest import CliResult

Cli = Callable[..., CliResult]


def test_check_links_on_a_built_site(make_project: Callable[[str], Path], cli: Cli) -> None:
    project = make_project("minimal")
    assert cli("-C", str(project), "check", "--links").exit_code == 2  # nothing built yet
    assert cli("-C", str(project), "-q", "build").exit_code == 0
    before = sorted(p.relative_to(project) for p in project.rglob("*"))

    ok = cli("-C", str(project), "check", "--links")
    assert ok.exit_code == 0, ok.stdout + ok.stderr
    assert ok.stdout == "" and "resolve" in ok.stderr

    site = project / "site"
    shutil.rmtree(site / "ko" / "blog" / "beta")  # every page linking to it is now broken
    page = site / "ko" / "index.html"
    page.write_text(
        page.read_text(encoding="utf-8").replace("</main>", '<a href="#h-nowhere">x</a></main>'),
        encoding="utf-8",
    )
    bad = cli("-C", str(project), "check", "--links")
    assert bad.exit_code == 1
    assert re.search(
        r"^site/ko/blog/index\.html:\d+: broken link '/ko/blog/beta/'", bad.stdout, re.M
    )
    assert re.search(r"^site/ko/index\.html:\d+: broken anchor '#h-nowhere'", bad.stdout, re.M)
    assert "broken link" in bad.stderr  # the summary

    as_json = cli("-C", str(project), "check", "--links", "--format", "json")
    assert as_json.exit_code == 1
    report = json.loads(as_json.stdout)
    assert report["pages"] > 5 and {p["code"] for p in report["problems"]} == {"link", "anchor"}

    # --out: another folder; nothing is built or written by the check
    other = project.parent / "published"
    shutil.copytree(site, other)
    moved = cli("-C", str(project), "check", "--links", "--out", str(other))
    assert moved.exit_code == 1 and "/published/ko/index.html:" in moved.stdout
    after = sorted(p.relative_to(project) for p in project.rglob("*"))
    assert [p for p in after if p not in before] == []
