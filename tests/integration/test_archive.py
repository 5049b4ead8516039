"""The archive (render/archive.py): every post a language lists, newest first, under a heading
for each year, at /<lang>/blog/archive/; linked from the blog's pages; off with bipub.yaml
`outputs.archive: false`; rendered again when a post's title, date or set changes, kept when only
a body changed."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from bipub.pipeline import build
from tests.conftest import CliResult

ARCHIVE = "blog/archive/index.html"


def _post(root: Path, lang: str, name: str, front: str, body: str = "본문.") -> None:
    path = root / "content" / lang / "posts" / f"{name}.md"
    path.write_text(f"---\n{front}\n---\n\n{body}\n", encoding="utf-8")


def _years(html: str) -> list[str]:
    return re.findall(r'<h2 class="archive-year__title">([^<]+?) <span', html)


def _titles(html: str) -> list[str]:
    return re.findall(r'class="archive-item__title"[^>]*>([^<]+)</a>', html)


def test_every_post_by_year_newest_first_in_each_language(
    make_project: Callable[[str], Path], cli: Callable[..., CliResult]
) -> None:
    root = make_project("minimal")
    _post(root, "ko", "gamma", "title: 감마 글\ndate: 2025-12-31\ntags: [vllm]")
    # scheduled: dated after the tests' "now" (2027-01-01, tests/conftest.py), listed nowhere
    _post(root, "ko", "later", "title: 나중 글\ndate: 2027-06-01\ntags: [vllm]")
    result = cli("-C", str(root), "-q", "build", "--only", "html")
    assert result.exit_code == 0, result.stderr
    site = root / "site"
    ko = (site / "ko" / ARCHIVE).read_text(encoding="utf-8")
    assert _years(ko) == ["2026년", "2025년"]
    assert _titles(ko) == ["베타 글", "알파 글", "감마 글"]
    assert "글 3개" in ko
    en = (site / "en" / ARCHIVE).read_text(encoding="utf-8")
    assert _years(en) == ["2026", "2025"]
    # the English archive lists the posts English lists: beta and gamma in their Korean text
    # (not translated yet: marked so, and in their own language)
    assert len(_titles(en)) == 3
    beta = re.search(r'<li class="archive-item archive-item--missing">.*?</li>', en, re.S)
    assert beta is not None
    assert 'hreflang="ko" lang="ko">베타 글</a>' in beta.group(0)
    assert "Not translated yet" in beta.group(0)
    assert "나중 글" not in ko + en
    # the blog links to it
    blog = (site / "ko" / "blog" / "index.html").read_text(encoding="utf-8")
    assert 'href="/ko/blog/archive/"' in blog
    assert "연도별 전체 글" in blog


def test_off_in_bipub_yaml(
    make_project: Callable[[str], Path], cli: Callable[..., CliResult]
) -> None:
    root = make_project("minimal")
    config = root / "bipub.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "outputs:\n  archive: false\n", encoding="utf-8"
    )
    result = cli("-C", str(root), "-q", "build", "--only", "html")
    assert result.exit_code == 0, result.stderr
    site = root / "site"
    assert not (site / "ko" / ARCHIVE).exists()
    assert not (site / "en" / ARCHIVE).exists()
    assert "/blog/archive/" not in (site / "ko" / "blog" / "index.html").read_text(encoding="utf-8")


def test_a_slug_archive_is_reserved(
    make_project: Callable[[str], Path], cli: Callable[..., CliResult]
) -> None:
    root = make_project("minimal")
    _post(root, "ko", "archive", "title: 보관\ndate: 2026-01-02")
    result = cli("-C", str(root), "-q", "build", "--only", "html")
    assert result.exit_code != 0
    assert "content/ko/posts/archive.md" in result.stderr
    assert "slug 'archive' is reserved" in result.stderr


def test_rendered_again_for_a_title_kept_for_a_body(make_project: Callable[[str], Path]) -> None:
    root = make_project("minimal")
    first = build(root)
    assert first.state is not None
    page = "ko/blog/archive/index.html"
    before = first.state.fingerprints[page]
    alpha = root / "content" / "ko" / "posts" / "alpha.md"
    alpha.write_text(alpha.read_text(encoding="utf-8") + "\n덧붙인 문단.\n", encoding="utf-8")
    body = build(root)
    assert body.state is not None
    assert body.state.fingerprints[page] == before  # (a body edit: the archive is kept)
    alpha.write_text(
        alpha.read_text(encoding="utf-8").replace("title: 알파 글", "title: 새 알파"),
        encoding="utf-8",
    )
    title = build(root)
    assert title.state is not None
    assert title.state.fingerprints[page] != before
    html = (root / "site" / page).read_text(encoding="utf-8")
    assert "새 알파" in html
    assert "알파 글" not in html


def test_turned_off_after_a_build_is_said(
    make_project: Callable[[str], Path], cli: Callable[..., CliResult]
) -> None:
    """The archive a build published and the next one does not (bipub.yaml turned it off) is a
    `url-removed` warning in bipub.yaml, as every page a build takes away is."""
    root = make_project("minimal")
    assert cli("-C", str(root), "-q", "build", "--only", "html").exit_code == 0
    config = root / "bipub.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "outputs:\n  archive: false\n", encoding="utf-8"
    )
    result = cli("-C", str(root), "build", "--only", "html")
    assert result.exit_code == 0, result.stderr
    for lang in ("ko", "en"):
        assert (
            f"bipub.yaml: warning: /{lang}/blog/archive/ (published by the last build) is not any "
            "more: outputs.archive is false; links to it break [url-removed]"
        ) in result.stderr
