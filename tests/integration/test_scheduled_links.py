"""Session 34: a link from a published post or page to a scheduled post (dated after the
build's "now": bipub/schedule.py) leads nowhere until a build runs after the post's date. The
page keeps the link (it is the post's URL, right from its date on); the build, `bipub check`
and `bipub check --links` say it: a `scheduled-link` warning at the file and line that write
the link, naming the post and when it is published (bipub/scheduled_links.py). Silenced like
any warning (bipub.yaml `diagnostics:`).

"Now" is the tests' fixed SOURCE_DATE_EPOCH, 1798761600 (2027-01-01T00:00:00Z), unless a test
sets another."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from bipub.cli import main
from bipub.pipeline import build
from tests.conftest import PROJECTS, replace_in

KINDS = {"html", "json", "feeds", "llms"}
SLUG = "later"
WHEN = "2027-03-01 00:00 +09:00"  # (its date, begun in the default time_zone)
ALPHA = "content/ko/posts/alpha.md"


def _project(tmp_path: Path, config: str = "") -> Path:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    (root / "content/ko/posts" / f"{SLUG}.md").write_text(
        "---\ntitle: 나중 글\ndate: 2027-03-01\n---\n\n곧 공개됩니다.\n", encoding="utf-8"
    )
    # a published post (alpha, 2026-04-07) links to it: root-relative in Korean, relative and
    # absolute (under base_url) in English; beta names its side-by-side page
    replace_in(root, ALPHA, "본문입니다.", f"본문입니다. [나중](/ko/blog/{SLUG}/)을 보라.")
    replace_in(
        root,
        "content/en/posts/alpha.md",
        "Body text.",
        f"Body text. See [later](../{SLUG}/)\nand [it](https://test.example.org/ko/blog/{SLUG}/).",
    )
    replace_in(
        root, "content/ko/posts/beta.md", "번역이", f"[나란히](/en/blog/{SLUG}/both/) 번역이"
    )
    if config:
        path = root / "bipub.yaml"
        path.write_text(path.read_text(encoding="utf-8") + config, encoding="utf-8")
    return root


def _said(warnings: list[object]) -> list[tuple[str, int, str]]:
    return sorted(
        (d.file, d.line, d.message)  # type: ignore[attr-defined]
        for d in warnings
        if d.code == "scheduled-link"  # type: ignore[attr-defined]
    )


def test_the_build_says_each_link_to_a_scheduled_post(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = build(root, only=KINDS)
    said = _said(result.warnings)
    assert [(f, n) for f, n, _ in said] == [
        ("content/en/posts/alpha.md", 9),
        ("content/en/posts/alpha.md", 10),
        (ALPHA, 12),
        ("content/ko/posts/beta.md", 10),
    ]
    assert said[2][2] == (
        f"links to /ko/blog/{SLUG}/, the post posts/{SLUG}, scheduled for {WHEN}: the link "
        "leads nowhere until the first build after then publishes the post (the page keeps the "
        "link, which works from then on)"
    )
    # the page keeps the link; the post is not there yet
    page = (root / "site/ko/blog/alpha/index.html").read_text(encoding="utf-8")
    assert f'href="/ko/blog/{SLUG}/"' in page
    assert not (root / "site/ko/blog" / SLUG).exists()
    # up to date: said again
    again = build(root, only=KINDS)
    assert again.up_to_date and _said(again.warnings) == said


def test_after_the_date_nothing_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _project(tmp_path)
    assert _said(build(root, only=KINDS).warnings)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1803000000")  # 2027-02-19: still before it
    assert _said(build(root, only=KINDS).warnings)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1804000000")  # 2027-03-03: published
    result = build(root, only=KINDS)
    assert _said(result.warnings) == []
    assert (root / "site/ko/blog" / SLUG / "index.html").is_file()


@pytest.mark.parametrize("how", ["--future", "publish_future"])
def test_nothing_is_said_when_every_post_is_published(tmp_path: Path, how: str) -> None:
    root = _project(tmp_path, "outputs:\n  publish_future: true\n" if how != "--future" else "")
    args = ["-C", str(root), "build", "--only", "html"] + (
        ["--future"] if how == "--future" else []
    )
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "scheduled-link" not in result.output


def test_the_cli_says_it_and_diagnostics_off_silences_it(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = CliRunner().invoke(main, ["-C", str(root), "build", "--only", "html"])
    assert result.exit_code == 0, result.output
    assert f"{ALPHA}:12: warning: links to /ko/blog/{SLUG}/" in result.output
    assert "[scheduled-link]" in result.output
    config = root / "bipub.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "diagnostics:\n  scheduled-link: off\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["-C", str(root), "build", "--only", "html"])
    assert result.exit_code == 0, result.output
    assert "links to /ko/blog/" not in result.output
    config.write_text(
        config.read_text(encoding="utf-8").replace("scheduled-link: off", "scheduled-link: error"),
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["-C", str(root), "build", "--only", "html"])
    assert result.exit_code == 1 and f"{ALPHA}:12: links to /ko/blog/{SLUG}/" in result.output
    explained = CliRunner().invoke(main, ["explain", "scheduled-link"])
    assert explained.exit_code == 0 and "scheduled" in explained.output


def test_check_says_it(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = CliRunner().invoke(main, ["-C", str(root), "check", "--format", "json"])
    found = [f for f in json.loads(result.stdout)["findings"] if f["code"] == "scheduled-link"]
    assert [(f["file"], f["line"], f["severity"]) for f in found] == [
        ("content/en/posts/alpha.md", 9, "warning"),
        ("content/en/posts/alpha.md", 10, "warning"),
        (ALPHA, 12, "warning"),
        ("content/ko/posts/beta.md", 10, "warning"),
    ]
    assert WHEN in found[2]["message"]


def test_check_links_says_it_as_a_warning(tmp_path: Path) -> None:
    """`bipub check --links` of the built site: the links to the scheduled post are no page
    yet, said as the build says them (warnings: the check passes), and the others as ever."""
    root = _project(tmp_path)
    replace_in(root, "content/ko/posts/beta.md", "번역이", "[없음](/ko/blog/nowhere/) 번역이")
    build(root)
    result = CliRunner().invoke(main, ["-C", str(root), "check", "--links", "--format", "json"])
    problems = json.loads(result.stdout)["problems"]
    said = sorted((p["file"], p["line"], p["code"], p["severity"]) for p in problems)
    assert said == [
        ("content/en/posts/alpha.md", 9, "scheduled-link", "warning"),
        ("content/en/posts/alpha.md", 10, "scheduled-link", "warning"),
        (ALPHA, 12, "scheduled-link", "warning"),
        ("content/ko/posts/beta.md", 10, "link", "error"),
        ("content/ko/posts/beta.md", 10, "scheduled-link", "warning"),
    ]
    assert result.exit_code == 1  # (the link to nowhere)
    assert f"scheduled for {WHEN}" in next(p["message"] for p in problems if p["file"] == ALPHA)
    replace_in(root, "content/ko/posts/beta.md", "[없음](/ko/blog/nowhere/) ", "")
    build(root)
    result = CliRunner().invoke(main, ["-C", str(root), "check", "--links"])
    assert result.exit_code == 0, result.output
    assert "4 more lead to posts scheduled for later" in result.output
    github = CliRunner().invoke(main, ["-C", str(root), "check", "--links", "--format", "github"])
    assert github.exit_code == 0
    assert f"::warning file={ALPHA},line=12,title=bipub scheduled-link::" in github.output
    config = root / "bipub.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "diagnostics:\n  scheduled-link: off\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["-C", str(root), "check", "--links"])
    assert result.exit_code == 0 and "scheduled" not in result.output
    assert "All internal links and anchors" in result.output


def test_a_scheduled_posts_link_to_one_scheduled_after_it(tmp_path: Path) -> None:
    """Part 1 (February) links to part 2 (March, `later`): from February to March the link
    will lead nowhere, said now, while it is written; part 2's link back to part 1 (published
    before it) and part 1's to itself are not."""
    root = _project(tmp_path)
    (root / "content/ko/posts/first.md").write_text(
        "---\ntitle: 1부\ndate: 2027-02-01\n---\n\n"
        f"[2부](/ko/blog/{SLUG}/)와 [여기](/ko/blog/first/#h-x).\n",
        encoding="utf-8",
    )
    replace_in(root, f"content/ko/posts/{SLUG}.md", "곧 공개됩니다.", "[1부](../first/)를 보라.")
    said = [(f, n, m) for f, n, m in _said(build(root, only=KINDS).warnings) if "first" in f]
    assert said == [
        (
            "content/ko/posts/first.md",
            6,
            f"links to /ko/blog/{SLUG}/, the post posts/{SLUG}, scheduled for {WHEN}, later "
            "than this post (2027-02-01 00:00 +09:00): from this post's date until then the "
            "link will lead nowhere (the page keeps it, which works from then on)",
        )
    ]
    assert not [f for f, _, _ in _said(build(root, only=KINDS).warnings) if SLUG in f]


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_checks_result_is_not_kept_past_the_date(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    """`bipub check` keeps its result (and report) while no input changes: on the clock (no
    SOURCE_DATE_EPOCH, which its cache is keyed by), what it says of a link to a scheduled post
    holds only until the post's date, though no file changes (and back: a clock set back)."""
    from bipub import schedule

    root = _project(tmp_path)
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    clock = [1798761600.0]
    monkeypatch.setattr(schedule.time, "time", lambda: clock[0])
    args = ["-C", str(root), "check", "--format", fmt]
    assert "scheduled-link" in CliRunner().invoke(main, args).output
    assert "scheduled-link" in CliRunner().invoke(main, args).output  # (kept)
    clock[0] = 1804000000.0  # 2027-03-03: published
    assert "scheduled-link" not in CliRunner().invoke(main, args).output
    clock[0] = 1798761600.0  # and back
    assert "scheduled-link" in CliRunner().invoke(main, args).output


def test_a_korean_slug_written_as_is_or_percent_encoded(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "content/ko/posts/예정.md").write_text(
        "---\ntitle: 예정\ndate: 2027-05-01\n---\n\n곧.\n", encoding="utf-8"
    )
    replace_in(root, ALPHA, "[나중]", "[예정](/ko/blog/%EC%98%88%EC%A0%95/) [나중]")
    replace_in(root, "content/ko/posts/beta.md", "번역이", "[예정](/ko/blog/예정/) 번역이")
    said = [(f, m.split(",")[0]) for f, _, m in _said(build(root, only=KINDS).warnings)]
    assert (ALPHA, "links to /ko/blog/예정/") in said  # (said decoded)
    assert ("content/ko/posts/beta.md", "links to /ko/blog/예정/") in said
