"""End-to-end: the CLI on the repository's demo project."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from bipub.load.yaml_strict import load_yaml
from bipub.render.json_api import strip_ids
from tests.conftest import tree_snapshot

ATOM = "{http://www.w3.org/2005/Atom}"
SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
XHTML = "{http://www.w3.org/1999/xhtml}"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from click.testing import CliRunner

    from bipub.cli import main
    from tests.conftest import copy_demo

    project = copy_demo(tmp_path_factory.mktemp("demo"))
    result = CliRunner().invoke(main, ["-C", str(project), "build"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    assert "Built " in result.stderr
    return project


def test_every_output_exists(demo: Path) -> None:
    site = demo / "site"
    for rel in [
        "index.html",
        "404.html",
        "sitemap.xml",
        "robots.txt",
        "llms.txt",
        "llms-full.txt",
        "api/schema/cv.schema.json",
        "api/schema/posts.schema.json",
    ]:
        assert (site / rel).is_file(), rel
    for lang in ("ko", "en"):
        for rel in [
            "index.html",
            "blog/index.html",
            "blog/paged-attention/index.html",
            "blog/vllm-scheduler-1/index.html",
            "tags/index.html",
            "tags/kv-cache/index.html",
            "work/index.html",
            "feed.xml",
            "llms.txt",
            "llms-full.txt",
        ]:
            assert (site / lang / rel).is_file(), f"{lang}/{rel}"
        for rel in ("cv.json", "posts.json", "status.json"):
            assert (site / "api" / lang / rel).is_file()
    assert list((site / "ko" / "series").iterdir())
    assert list((site / "en" / "series").iterdir())


def test_cv_json_equals_the_yaml_key_for_key_and_in_order(demo: Path) -> None:
    source = load_yaml((demo / "content/en/cv.yaml").read_text(encoding="utf-8"), "cv").data
    api = json.loads((demo / "site/api/en/cv.json").read_text(encoding="utf-8"))
    assert "phone" not in api["contact"]  # the demo's bipub.yaml: private_fields (pdf_only)
    del source["contact"]["phone"]
    assert '"short": true' in json.dumps(source)  # the demo marks items for the short CV PDF ...
    source = strip_ids(source)  # ... bipub's own keys (id, short), never in the API
    assert api == source
    assert json.dumps(api, ensure_ascii=False) == json.dumps(source, ensure_ascii=False)


def test_korean_cv_json_has_the_same_shape_in_korean(demo: Path) -> None:
    en = json.loads((demo / "site/api/en/cv.json").read_text(encoding="utf-8"))
    ko = json.loads((demo / "site/api/ko/cv.json").read_text(encoding="utf-8"))

    def shape(value: object) -> object:
        if isinstance(value, dict):
            return [(k, shape(v)) for k, v in value.items()]
        if isinstance(value, list):
            return [shape(v) for v in value]
        return type(value).__name__

    assert shape(ko) == shape(en)
    assert ko["title"] != en["title"]
    assert any("\uac00" <= ch <= "\ud7a3" for ch in ko["summary"])


def test_korean_dates_and_reading_time(demo: Path) -> None:
    html = (demo / "site/ko/blog/index.html").read_text(encoding="utf-8")
    import re

    assert re.search(r"\d{4}년 \d{1,2}월 \d{1,2}일", html)
    en = (demo / "site/en/blog/index.html").read_text(encoding="utf-8")
    assert re.search(
        r"(January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}, \d{4}",
        en,
    )


def test_hreflang_and_switcher_pair_the_right_pages(demo: Path) -> None:
    html = (demo / "site/ko/blog/paged-attention/index.html").read_text(encoding="utf-8")
    assert 'hreflang="en" href="https://seoyeon.example.org/en/blog/paged-attention/"' in html
    assert (
        'hreflang="x-default" href="https://seoyeon.example.org/ko/blog/paged-attention/"' in html
    )
    assert 'href="/en/blog/paged-attention/"' in html
    assert '<html lang="ko"' in html


def test_untranslated_post_has_canonical_to_source_and_lang(demo: Path) -> None:
    html = (demo / "site/en/blog/tensor-parallel-allreduce/index.html").read_text(encoding="utf-8")
    assert (
        'rel="canonical" href="https://seoyeon.example.org/ko/blog/tensor-parallel-allreduce/"'
        in html
    )
    assert 'lang="ko"' in html
    head = html.split("</head>")[0]
    assert 'hreflang="en"' not in head  # no alternate points at a page that is not a translation


def test_feeds_parse_and_carry_required_elements(demo: Path) -> None:
    for lang in ("ko", "en"):
        root = ET.parse(demo / "site" / lang / "feed.xml").getroot()
        assert root.tag == f"{ATOM}feed"
        for name in ("title", "id", "updated", "author"):
            assert root.find(f"{ATOM}{name}") is not None, name
        entries = root.findall(f"{ATOM}entry")
        assert entries
        for entry in entries:
            for name in ("title", "id", "updated", "link"):
                assert entry.find(f"{ATOM}{name}") is not None


def test_sitemap_has_alternates_for_paired_pages(demo: Path) -> None:
    root = ET.parse(demo / "site/sitemap.xml").getroot()
    urls = {u.find(f"{SM}loc").text: u for u in root.findall(f"{SM}url")}  # type: ignore[union-attr]
    post = urls["https://seoyeon.example.org/ko/blog/paged-attention/"]
    alts = {a.get("hreflang"): a.get("href") for a in post.findall(f"{XHTML}link")}
    assert alts == {
        "ko": "https://seoyeon.example.org/ko/blog/paged-attention/",
        "en": "https://seoyeon.example.org/en/blog/paged-attention/",
        "x-default": "https://seoyeon.example.org/ko/blog/paged-attention/",  # (as on the page)
    }
    # the English page of an untranslated post is not indexed (its canonical is the Korean one)
    assert "https://seoyeon.example.org/en/blog/tensor-parallel-allreduce/" not in urls


def test_llms_txt_follows_the_proposal(demo: Path) -> None:
    text = (demo / "site/llms.txt").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0].startswith("# ")
    assert any(line.startswith("> ") for line in lines[:4])
    assert any(line.startswith("## ") for line in lines)
    assert "https://seoyeon.example.org/en/llms.txt" in text
    full = (demo / "site/en/llms-full.txt").read_text(encoding="utf-8")
    for heading in (
        "## Contact",
        "## Experience",
        "- Problem:",
        "Open source",
        "Projects",
        "Education",
    ):
        assert heading in full
    # a machine-drafted post says so, as its page does (issue 18)
    batching = full.split("/en/blog/continuous-batching/)", 1)[1].split("\n### [", 1)[0]
    assert "**Machine translation, not reviewed**: This is a machine translation" in batching


def test_build_lang_ko_writes_only_korean_outputs(demo: Path, cli) -> None:
    site = demo / "site"
    (demo / "content/en/posts/continuous-batching.md").write_text(
        (demo / "content/en/posts/continuous-batching.md")
        .read_text(encoding="utf-8")
        .replace("title:", "title: CHANGED", 1),
        encoding="utf-8",
    )
    before = tree_snapshot(site)
    result = cli("-C", str(demo), "-q", "build", "--lang", "ko")
    assert result.exit_code == 0, result.stderr
    after = tree_snapshot(site)
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    assert all(
        p.startswith(("ko/", "api/ko/", "pdf/cv-ko.", "pdf/cv-ko-short.")) for p in changed
    ), changed
    assert b"CHANGED" not in after["en/blog/continuous-batching/index.html"]


def test_unknown_lang_is_a_usage_error(demo: Path, cli) -> None:
    result = cli("-C", str(demo), "build", "--lang", "ja")
    assert result.exit_code == 2
    assert "--lang ja: not a language of this site" in result.stderr


def test_second_build_changes_nothing(demo: Path, cli) -> None:
    cli("-C", str(demo), "-q", "build")
    before = {p: (demo / "site" / p).stat().st_mtime_ns for p in tree_snapshot(demo / "site")}
    result = cli("-C", str(demo), "build")
    # (82 pages: 66 with the archives, and the side-by-side pages of the 8 posts in both
    # languages)
    assert "Up to date: nothing changed since the last build (82 pages" in result.stderr
    # rendering everything again (--no-cache) finds the same bytes: no file is rewritten
    result = cli("-C", str(demo), "build", "--no-cache")
    assert "(0 changed)" in result.stderr
    after = {p: (demo / "site" / p).stat().st_mtime_ns for p in tree_snapshot(demo / "site")}
    assert before == after


def test_every_internal_link_and_anchor_resolves(demo: Path) -> None:
    from bipub.linkcheck import check_links

    problems = check_links(demo / "site", "https://seoyeon.example.org/")
    assert [d.format() for d in problems] == []


def test_the_demo_post_image_has_its_size_and_variants(demo: Path) -> None:
    """Issue 19: the demo shows a Markdown image (ko post, shown on the English side too)."""
    for lang in ("ko", "en"):
        html = (demo / f"site/{lang}/blog/tensor-parallel-allreduce/index.html").read_text("utf-8")
        assert 'src="/assets/img/ring-allreduce.png"' in html
        assert 'width="1600" height="800" decoding="async" /></picture>' in html
        assert '<source type="image/webp" srcset="/_img/ring-allreduce-' in html
    assert len(list((demo / "site/_img").glob("ring-allreduce-*-480.webp"))) == 1
