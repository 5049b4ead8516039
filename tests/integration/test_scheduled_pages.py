"""Session 34: a page (`content/<lang>/pages/`) dated after the build's "now" is scheduled as a
post is (bipub/schedule.py): published in no language — no page, no place in the site's menu,
the sitemap or search — until a build runs after its date; the build
says it waits, and a link to it is a `scheduled-link` warning. Before, a page's `date:` was
read and then ignored: a page written ahead was published at once, without a word. A page
without a date is published, as ever.

"Now" is the tests' fixed SOURCE_DATE_EPOCH, 1798761600 (2027-01-01T00:00:00Z), unless a test
sets another."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from bipub.cache import BuildCache
from bipub.cli import main
from bipub.pipeline import Kept, build
from tests.conftest import PROJECTS, replace_in, tree_snapshot

KINDS = {"html", "json", "feeds", "llms"}
SLUG = "soon"
AFTER = "1804000000"  # 2027-03-03T...Z: after the page's date (2027-03-01, +09:00)


def _project(tmp_path: Path, config: str = "") -> Path:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    for lang, title in (("ko", "곧"), ("en", "Soon")):
        (root / "content" / lang / "pages" / f"{SLUG}.md").write_text(
            f"---\ntitle: {title}\ndate: 2027-03-01\n---\n\nText.\n", encoding="utf-8"
        )
    replace_in(root, "content/ko/posts/alpha.md", "본문입니다.", f"[곧](/ko/{SLUG}/) 본문입니다.")
    if config:
        path = root / "bipub.yaml"
        path.write_text(path.read_text(encoding="utf-8") + config, encoding="utf-8")
    return root


def _published(site: Path) -> bool:
    """Whether the page is published; asserts it is everywhere (its pages, the menu of every
    page, the sitemap) or nowhere (the link from alpha's text aside: kept)."""
    texts = {
        rel: data.decode()
        for rel, data in tree_snapshot(site).items()
        if rel.endswith((".html", ".xml"))
    }
    shown = [(site / lang / SLUG / "index.html").is_file() for lang in ("ko", "en")]
    for rel in ("ko/index.html", "en/about/index.html", "sitemap.xml"):
        assert (f"/{SLUG}/" in texts[rel]) == all(shown), rel
    assert all(shown) or not any(shown)
    return all(shown)


def test_a_page_dated_later_waits_for_its_date(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = CliRunner().invoke(
        main,
        [
            "-C",
            str(root),
            "build",
            "--only",
            "html",
            "--only",
            "json",
            "--only",
            "llms",
            "--only",
            "feeds",
        ],
    )
    assert result.exit_code == 0, result.output
    assert not _published(root / "site")
    flat = " ".join(result.output.split())
    assert (
        "Scheduled: 1 page dated in the future, not published yet (next: pages/soon at "
        "2027-03-01 00:00 +09:00" in flat
    )
    assert "content/ko/posts/alpha.md:12: warning: links to /ko/soon/, the page pages/soon" in flat


def test_a_page_without_a_date_or_dated_before_is_published(tmp_path: Path) -> None:
    root = _project(tmp_path)
    for lang in ("ko", "en"):
        replace_in(root, f"content/{lang}/pages/{SLUG}.md", "date: 2027-03-01\n", "")
    build(root, only=KINDS)
    assert _published(root / "site")
    for lang in ("ko", "en"):
        replace_in(root, f"content/{lang}/pages/{SLUG}.md", "---\n\n", "date: 2026-12-01\n---\n\n")
    build(root, only=KINDS)
    assert _published(root / "site")


@pytest.mark.parametrize("how", ["--future", "publish_future"])
def test_future_publishes_it_now(tmp_path: Path, how: str) -> None:
    root = _project(tmp_path, "outputs:\n  publish_future: true\n" if how != "--future" else "")
    args = [
        "-C",
        str(root),
        "build",
        "--only",
        "html",
        "--only",
        "json",
        "--only",
        "llms",
        "--only",
        "feeds",
    ]
    result = CliRunner().invoke(main, args + (["--future"] if how == "--future" else []))
    assert result.exit_code == 0, result.output
    assert _published(root / "site")
    assert "Scheduled" not in result.output and "scheduled-link" not in result.output


@pytest.mark.parametrize("resident", [False, True])
def test_a_build_after_the_date_publishes_it_as_a_clean_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, resident: bool
) -> None:
    root = _project(tmp_path)
    kept = Kept(BuildCache()) if resident else None  # (`bipub serve`'s; else read back)
    build(root, only=KINDS, kept=kept)
    assert not _published(root / "site")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", AFTER)
    result = build(root, only=KINDS, kept=kept)
    assert not result.up_to_date
    assert _published(root / "site")
    clean = tmp_path / "clean"
    build(root, clean, use_cache=False, only=KINDS)
    assert tree_snapshot(root / "site") == tree_snapshot(clean)
