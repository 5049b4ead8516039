"""Issue 19: the side-by-side view of a post (render/both.py) and the previous/next post links.

The 'side_by_side' project has one post in both languages whose sections are in every state
(reviewed, machine draft, outdated, not translated: status/en.yaml), two Korean-only posts
around it and a draft between them that no list shows.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from markupsafe import Markup

from bipub.pipeline import build
from bipub.render.both import SectionCache, rebase, render_sections
from tests.conftest import PROJECTS, tree_snapshot

KINDS = {"html", "json", "feeds", "llms"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("both") / "p"
    shutil.copytree(PROJECTS / "side_by_side", root)
    build(root, only={"html"})
    return root / "site"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "side_by_side", root)
    build(root, only=KINDS)
    return root


def _read(site: Path, rel: str) -> str:
    return (site / rel).read_text(encoding="utf-8")


def _rows(html: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """(state, [(cell language, cell HTML)…]) of each section row of a side-by-side page."""
    out = []
    for state, body in re.findall(
        r'<section class="both-row[^"]*"[^>]*data-state="([a-z]+)">(.*?)</section>', html, re.S
    ):
        cells = re.findall(
            r'<div class="both-cell[^"]*" lang="([a-z]+)">(.*?)(?=<div class="both-cell|\Z)',
            body,
            re.S,
        )
        out.append((state, cells))
    return out


def test_each_section_is_a_row_of_both_languages_with_its_state(site: Path) -> None:
    html = _read(site, "ko/blog/paired/both/index.html")
    rows = _rows(html)
    assert [state for state, _ in rows] == ["reviewed", "draft", "stale", "missing"]
    for _, cells in rows:
        assert [lang for lang, _ in cells] == ["ko", "en"]  # the page's language first
    (_, first), (_, machine), (_, stale), (_, missing) = rows
    assert "검토된 번역" in first[0][1] and "reviewed translation" in first[1][1]
    assert "기계 번역" in machine[0][1] and "Machine translation" in machine[1][1]
    assert "새 문장이 있습니다" in stale[0][1] and "Changed original" in stale[1][1]
    assert "번역 없음" in missing[0][1] and "이 절은 아직 번역되지 않았습니다" in missing[1][1]
    # a relative link goes where it goes on the post's own page (a folder up from this one)
    assert 'href="/ko/blog/older/"' in missing[0][1]
    # the states, in the page's language, on the translation's cells
    assert "검토됨" in first[1][1] and "검토됨" not in first[0][1]
    assert "기계 번역, 검토 전" in machine[1][1]
    assert "번역이 오래되었을 수 있음" in stale[1][1]
    assert '<html lang="ko">' in html
    ids = Counter(re.findall(r'\sid="([^"]+)"', html))
    assert not [i for i, n in ids.items() if n > 1], "an id twice on the page"
    assert 'id="ko-h-' in html and 'id="en-h-' in html


def test_the_english_page_puts_english_first_with_english_chrome(site: Path) -> None:
    html = _read(site, "en/blog/paired/both/index.html")
    rows = _rows(html)
    assert [state for state, _ in rows] == ["reviewed", "draft", "stale", "missing"]
    assert all([lang for lang, _ in cells] == ["en", "ko"] for _, cells in rows)
    assert '<html lang="en">' in html and ">Reviewed<" in html
    assert "Translation may be outdated" in html
    assert 'name="robots" content="noindex' in html  # the post pages' text again


def test_the_post_links_the_view_and_its_pdf(site: Path) -> None:
    ko = _read(site, "ko/blog/paired/index.html")
    assert '<a class="post-both-link" href="/ko/blog/paired/both/">나란히 읽기</a>' in ko
    assert 'href="/pdf/blog/paired-ko-en.pdf"' in ko
    en = _read(site, "en/blog/paired/index.html")
    assert '<a class="post-both-link" href="/en/blog/paired/both/">Read side by side</a>' in en
    assert 'href="/pdf/blog/paired-ko-en.pdf"' in _read(site, "en/blog/paired/both/index.html")
    # a post in one language only has no such page, and no link to one
    assert "post-both-link" not in _read(site, "ko/blog/older/index.html")
    assert not (site / "ko/blog/older/both").exists()
    assert not (site / "en/blog/older/both").exists()


def test_no_view_shows_a_machine_draft_the_site_does_not_publish(tmp_path: Path) -> None:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "side_by_side", root)
    config = root / "bipub.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("publish_drafts: true", "publish_drafts: false")
    )
    build(root, only={"html"})
    assert not (root / "site/ko/blog/paired/both").exists()
    assert not (root / "site/en/blog/paired/both").exists()
    assert "post-both-link" not in _read(root / "site", "ko/blog/paired/index.html")
    for page in (root / "site").rglob("*.html"):
        assert "nobody has reviewed" not in page.read_text(encoding="utf-8"), page


def test_side_by_side_false_turns_the_view_and_its_links_off(tmp_path: Path) -> None:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "side_by_side", root)
    config = root / "bipub.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace(
            "  publish_drafts: true\n", "  publish_drafts: true\n  side_by_side: false\n"
        )
    )
    build(root, only={"html"})
    assert not list((root / "site").rglob("both"))
    post = _read(root / "site", "ko/blog/paired/index.html")
    assert "post-both-link" not in post and "paired-ko-en.pdf" not in post


def _pager(html: str) -> dict[str, str]:
    nav = re.search(r'<nav class="pager pager--posts".*?</nav>', html, re.S)
    assert nav, "no previous/next links"
    return {rel: href for href, rel in re.findall(r'href="([^"]+)" rel="(prev|next)"', nav[0])}


def test_previous_and_next_posts_in_post_order_without_drafts(site: Path) -> None:
    # older (03-01) < paired (04-07) < [unlisted, a draft: 04-20] < newer (05-01)
    assert _pager(_read(site, "ko/blog/paired/index.html")) == {
        "prev": "/ko/blog/older/",
        "next": "/ko/blog/newer/",
    }
    assert _pager(_read(site, "ko/blog/older/index.html")) == {"next": "/ko/blog/paired/"}
    assert _pager(_read(site, "ko/blog/newer/index.html")) == {"prev": "/ko/blog/paired/"}
    # the English pages link the English pages (of posts shown in their original language)
    assert _pager(_read(site, "en/blog/paired/index.html")) == {
        "prev": "/en/blog/older/",
        "next": "/en/blog/newer/",
    }
    assert "unlisted" not in _read(site, "ko/blog/newer/index.html")


def _post(root: Path, name: str, date: str) -> Path:
    path = root / "content/ko/posts" / f"{name}.md"
    path.write_text(f"---\ntitle: {name} 글\ndate: {date}\n---\n\n본문.\n", encoding="utf-8")
    return path


def _same_as_clean(root: Path, tmp_path: Path) -> None:
    build(root, tmp_path / "clean", use_cache=False, only=KINDS)
    assert tree_snapshot(root / "site") == tree_snapshot(tmp_path / "clean")


def test_an_added_deleted_or_redated_post_updates_its_neighbours(
    project: Path, tmp_path: Path
) -> None:
    site = project / "site"
    added = _post(project, "between", "2026-04-10")
    build(project, only=KINDS)
    assert _pager(_read(site, "ko/blog/paired/index.html"))["next"] == "/ko/blog/between/"
    assert _pager(_read(site, "ko/blog/newer/index.html"))["prev"] == "/ko/blog/between/"
    _same_as_clean(project, tmp_path)
    _post(project, "between", "2026-02-01")  # re-dated: now the oldest
    build(project, only=KINDS)
    assert _pager(_read(site, "ko/blog/paired/index.html"))["next"] == "/ko/blog/newer/"
    assert _pager(_read(site, "ko/blog/older/index.html"))["prev"] == "/ko/blog/between/"
    _same_as_clean(project, tmp_path)
    added.unlink()
    build(project, only=KINDS)
    assert "prev" not in _pager(_read(site, "ko/blog/older/index.html"))
    _same_as_clean(project, tmp_path)


def test_an_english_edit_or_a_review_re_renders_the_korean_view(
    project: Path, tmp_path: Path
) -> None:
    site = project / "site"
    en = project / "content/en/posts/paired.md"
    en.write_text(
        en.read_text(encoding="utf-8").replace("nobody has reviewed", "still unreviewed"),
        encoding="utf-8",
    )
    build(project, only=KINDS)
    assert "still unreviewed" in _read(site, "ko/blog/paired/both/index.html")
    _same_as_clean(project, tmp_path)
    # the machine draft of section 2 is reviewed: only the side-by-side pages show it
    status = project / "status/en.yaml"
    text = status.read_text(encoding="utf-8")
    draft = text.index("posts/paired:body#1:")
    end = text.index("posts/paired:body#2:")
    status.write_text(
        text[:draft] + text[draft:end].replace("state: draft", "state: reviewed") + text[end:],
        encoding="utf-8",
    )
    build(project, only=KINDS)
    rows = _rows(_read(site, "ko/blog/paired/both/index.html"))
    assert [state for state, _ in rows] == ["reviewed", "reviewed", "stale", "missing"]
    _same_as_clean(project, tmp_path)
    # the first section's review record goes: no version's state changes, only the view's
    text = status.read_text(encoding="utf-8")
    start, end = text.index("posts/paired:body#0:"), text.index("posts/paired:body#1:")
    status.write_text(text[:start] + text[end:], encoding="utf-8")
    build(project, only=KINDS)
    rows = _rows(_read(site, "ko/blog/paired/both/index.html"))
    assert [state for state, _ in rows] == ["untracked", "reviewed", "stale", "missing"]
    _same_as_clean(project, tmp_path)


def test_sections_are_cut_from_one_render_of_the_body() -> None:
    source = (
        "Intro[^n] and [a link][ref].\n\n## One\n\n```md\n## not a heading\n```\n\n"
        "## One\n\nSee [one](#h-one).\n\n[^n]: The note.\n\n[ref]: https://example.org/\n"
    )
    parts, notes = render_sections(source, (0, 2, 8), id_prefix="en")
    assert len(parts) == 3
    assert 'href="https://example.org/"' in parts[0]  # a reference defined further down
    assert 'href="#fn-en-1"' in parts[0] and 'id="fn-en-1"' in notes and "The note." in notes
    assert "## not a heading" in parts[1] and 'id="en-h-one"' in parts[1]
    assert 'id="en-h-one-1"' in parts[2]  # heading ids unique across the body, as on the post
    assert 'href="#en-h-one"' in parts[2]  # the body's own link follows its heading's id
    assert "The note." not in "".join(parts)


def test_relative_urls_are_resolved_against_the_post_page() -> None:
    html = (
        '<p><a href="../older/">x</a> <a href="#h-a">y</a> <a href="https://e.org/">z</a> '
        '<img src="img.png" srcset="a.webp 480w, b.webp 800w" alt=""> <a href="/ko/">h</a> '
        '<a href="mailto:a@b.c">m</a> <a href="?q=1&amp;r=2">q</a></p>'
    )
    out = rebase(html, "/base/ko/blog/post/")
    assert 'href="/base/ko/blog/older/"' in out
    assert 'src="/base/ko/blog/post/img.png"' in out
    assert 'srcset="/base/ko/blog/post/a.webp 480w, /base/ko/blog/post/b.webp 800w"' in out
    for kept in ('href="#h-a"', 'href="https://e.org/"', 'href="/ko/"', 'href="mailto:a@b.c"'):
        assert kept in out
    assert 'href="?q=1&amp;r=2"' in out


@pytest.mark.pdf
@pytest.mark.skipif(
    shutil.which("pdftotext") is None or shutil.which("fc-list") is None,
    reason="needs poppler-utils and fontconfig",
)
def test_a_pdf_post_gets_a_bilingual_pdf_side_by_side(tmp_path: Path) -> None:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "side_by_side", root)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
        build(root, only={"pdf"})
    pdf = root / "site/pdf/blog/paired-ko-en.pdf"
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    lines = [" ".join(line.split()) for line in text.splitlines()]
    # each section's two languages on the same lines, Korean left
    assert any(
        line.startswith("첫 절은 검토된 번역이 있습니다.")
        and line.endswith("reviewed translation.")
        for line in lines
    ), text
    assert any(
        line.startswith("기계 번역") and line.endswith("Machine translation") for line in lines
    )
    assert "Translation may be outdated" in text and "Not translated yet" in text
    assert "번역 없음" in text


def test_sections_show_the_same_diagrams_and_image_sizes_as_the_post(tmp_path: Path) -> None:
    """The side-by-side view renders a body as the post page does: a ```mermaid fence is its
    drawn SVG (render/diagrams.py), a local image gets its size (pair/images.py)."""
    from bipub.pair.images import ImageInfo, LocalImage
    from bipub.render.diagrams import Diagrams, Drawn

    def runner(job: dict[str, Any], tool: Path) -> dict[str, Drawn]:
        return {d["key"]: Drawn("<svg><text>그림</text></svg>") for d in job["diagrams"]}

    source = (
        "Intro.\n\n```mermaid\nflowchart LR\n  A --> B\n```\n\n## Two\n\n![a chart](chart.png)\n"
    )
    image = LocalImage("/blog/p/chart.png", tmp_path / "chart.png", ImageInfo("d", 640, 480, "PNG"))
    diagrams = Diagrams(None, runner=runner, _version="test", _version_read=True)
    parts, _ = render_sections(
        source, (0, 6), images={"chart.png": image}, diagrams=diagrams, id_prefix="en"
    )
    assert '<figure class="diagram"><svg><text>그림</text></svg></figure>' in parts[0]
    assert "flowchart LR" not in parts[0]
    assert 'width="640"' in parts[1] and 'height="480"' in parts[1]


def test_rebased_sections_are_kept_for_the_next_pages_only() -> None:
    """SectionCache.rebased: a body's sections with relative URLs resolved against a base,
    as Markup; the same object again for the side-by-side page in the other language (the
    next page rendered), recomputed (equal) once KEEP_REBASED other bodies came after it."""
    cache = SectionCache(raw_html=False)
    doc = SimpleNamespace(
        rel="content/ko/posts/a.md",
        digest="d",
        lang="ko",
        body="## One\n\n![x](img.png)\n\n## Two\n\n[up](../b/)\n",
        body_line=1,
        sections=(SimpleNamespace(line=1), SimpleNamespace(line=5)),
    )
    parts, notes = cache(doc)  # type: ignore[arg-type]
    first = cache.rebased(doc, "/ko/blog/a/")  # type: ignore[arg-type]
    assert first == (tuple(rebase(p, "/ko/blog/a/") for p in parts), rebase(notes, "/ko/blog/a/"))
    assert all(isinstance(p, Markup) for p in first[0]) and isinstance(first[1], Markup)
    assert 'src="/ko/blog/a/img.png"' in first[0][0] and 'href="/ko/blog/b/"' in first[0][1]
    assert cache.rebased(doc, "/ko/blog/a/") is first  # type: ignore[arg-type]
    assert cache.rebased(doc, "/x/")[0][0] != first[0][0]  # type: ignore[arg-type]
    for i in range(SectionCache.KEEP_REBASED):
        cache.rebased(doc, f"/other/{i}/")  # type: ignore[arg-type]
    again = cache.rebased(doc, "/ko/blog/a/")  # type: ignore[arg-type]
    assert again == first and again is not first


def test_explicit_heading_ids_and_links_to_them_are_prefixed() -> None:
    """Session 32: `## 결론 {#conclusion}` keeps its id on the post (`#conclusion`); on the
    side-by-side page, two bodies that share it must not: both get their language's prefix."""
    ko = "[결론](#conclusion)과 [다른 것](#conclusion-x).\n\n## 결론 {#conclusion}\n\n끝.\n"
    en = "[Conclusion](#conclusion) and [other](#conclusion-x).\n\n## Conclusion {#conclusion}\n"
    ko_parts, _ = render_sections(ko, (0, 2), id_prefix="ko")
    en_parts, _ = render_sections(en, (0, 2), id_prefix="en")
    assert 'href="#ko-conclusion"' in ko_parts[0] and 'href="#en-conclusion"' in en_parts[0]
    assert 'href="#conclusion-x"' in ko_parts[0]  # names no heading: as written
    assert (
        '<h2 id="ko-conclusion">결론 <a class="header-anchor" href="#ko-conclusion">'
        in (ko_parts[1])
    )
    assert 'id="en-conclusion"' in en_parts[1]
    post, _ = render_sections(ko, (0, 2), id_prefix="")
    assert 'href="#conclusion"' in post[0] and 'id="conclusion"' in post[1]
