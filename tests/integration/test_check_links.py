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


def test_broken_links_name_the_source_file_and_line(
    make_project: Callable[[str], Path], cli: Cli
) -> None:
    """Session 29: a broken link written in a post is reported at the post's file and line
    (the user edits that), once, naming the built pages it breaks; it named only the built
    pages (`site/ko/blog/beta/index.html:212`), once per page. A heading link without bipub's
    `h-` prefix gets a hint. A link no source writes keeps the built page's name, and says so."""
    project = make_project("minimal")
    beta = project / "content" / "ko" / "posts" / "beta.md"  # Korean only: en shows it too
    beta.write_text(
        beta.read_text(encoding="utf-8")
        + "\n다음은 [없는 글](/ko/blog/nope/)입니다.\n\n[참고][r]와 [위로](#intro)\n\n"
        "## Intro\n\n[r]: ../gone/\n",
        encoding="utf-8",
    )
    alpha = project / "content" / "en" / "posts" / "alpha.md"
    lines = alpha.read_text(encoding="utf-8").split("\n")
    at = lines.index("## Intro") + 1
    lines.insert(at, "\nSee [the intro](#intro), and [missing](missing.png).")
    alpha.write_text("\n".join(lines), encoding="utf-8")
    assert cli("-C", str(project), "-q", "build").exit_code == 0
    site = project / "site"
    page = site / "ko" / "index.html"  # a link no source writes
    page.write_text(
        page.read_text(encoding="utf-8").replace("</main>", '<a href="/ko/x/">x</a></main>'),
        encoding="utf-8",
    )

    bad = cli("-C", str(project), "check", "--links")
    assert bad.exit_code == 1
    out = bad.stdout.splitlines()
    assert out == [
        f"content/en/posts/alpha.md:{at + 2}: broken anchor '#intro': en/blog/alpha/index.html "
        "has no id 'intro' (a heading's id starts with h-: '#h-intro') (on "
        "site/en/blog/alpha/index.html and 2 other pages)",
        f"content/en/posts/alpha.md:{at + 2}: broken link 'missing.png': no "
        "/en/blog/alpha/missing.png (on site/en/blog/alpha/index.html and 2 other pages)",
        "content/ko/posts/beta.md:12: broken link '/ko/blog/nope/': no /ko/blog/nope/ (on "
        "site/ko/blog/beta/index.html and 1 other page)",
        "content/ko/posts/beta.md:14: broken anchor '#intro': ko/blog/beta/index.html has no id "
        "'intro' (a heading's id starts with h-: '#h-intro') (on site/ko/blog/beta/index.html "
        "and 1 other page)",
        "content/ko/posts/beta.md:18: broken link '../gone/': no /ko/blog/gone/ (on "
        "site/ko/blog/beta/index.html and 1 other page)",
        out[-1],
    ]
    assert re.fullmatch(
        r"site/ko/index\.html:\d+: broken link '/ko/x/': no /ko/x/ \(no post, page or CV writes "
        r"this link: the templates make it, or the page was changed after the build\)",
        out[-1],
    )
    github = cli("-C", str(project), "check", "--links", "--format", "github")
    assert "::error file=content/ko/posts/beta.md,line=12,title=bipub link::" in github.stdout


def test_with_a_source_that_does_not_load_the_built_page_is_named_and_why(
    make_project: Callable[[str], Path], cli: Cli
) -> None:
    """Where a source no longer loads, a broken link of its page stays at the built page, and
    the finding says which source did not load (it said "the templates make it")."""
    project = make_project("minimal")
    beta = project / "content" / "ko" / "posts" / "beta.md"
    beta.write_text(
        beta.read_text(encoding="utf-8") + "\n[없는 글](/ko/blog/nope/)\n", encoding="utf-8"
    )
    assert cli("-C", str(project), "-q", "build").exit_code == 0
    beta.write_text("---\ntitle: [\n---\n", encoding="utf-8")  # (no longer loads)
    bad = cli("-C", str(project), "check", "--links")
    assert bad.exit_code == 1
    lines = bad.stdout.splitlines()
    assert [line.split(":", 1)[0] for line in lines] == [
        "site/en/blog/beta/index.html",
        "site/ko/blog/beta/index.html",
    ], bad.stdout
    said = (
        "(no source that loaded writes this link; content/ko/posts/beta.md did not load: "
        "`bipub check` says what is wrong)"
    )
    assert all(line.endswith(said) for line in lines), bad.stdout
