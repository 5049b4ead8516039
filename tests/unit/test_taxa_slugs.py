"""pair/taxonomy.py `entry_taxa` slugifies each tag and series name once per pairing (`slug_of`:
one dict shared by every entry's `taxa_of`): what each entry brings to the tags and series must
be what `taxa_of` works out for it alone."""

from __future__ import annotations

import shutil
import unicodedata
from pathlib import Path

from bipub.diagnostics import Collector
from bipub.model.fields import slugify
from bipub.pair.taxonomy import entry_taxa, slug_of, taxa_of
from bipub.pipeline import load, pair
from bipub.project import Project
from tests.conftest import PROJECTS

TAGS = [
    ["KV cache", "vLLM", "C++", "Rust", "한국어 태그"],
    ["kv-cache", "VLLM", "C#", "Rustacean", unicodedata.normalize("NFD", "한국어 태그")],
    ["KV  cache", "vllm", "C", "!!"],
]


def test_taxa_with_shared_slugs_are_those_of_each_entry(tmp_path: Path) -> None:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    posts = root / "content" / "ko" / "posts"
    for i, tags in enumerate(TAGS):
        listed = ", ".join(f'"{t}"' for t in tags)
        (posts / f"t{i}.md").write_text(
            f"---\ntitle: 글 {i}\ndate: 2026-04-0{i + 1}\ntags: [{listed}]\n"
            f"series: {tags[-1]!r}\n---\n\n본문.\n",
            encoding="utf-8",
        )
    collector = Collector()
    project = Project(root)
    config, content = load(project, collector, None)
    site = pair(project, config, content, collector)
    shared = entry_taxa(site.entries, config)
    alone = {(e.kind, e.key): taxa_of(e, config) for e in site.entries}
    assert shared == alone
    assert {s for t in shared.values() for lang in t.tags for s, _ in t.tags[lang]} >= {
        "kv-cache",
        "vllm",
        "c",
    }


def test_slug_of_keeps_each_name_s_slug() -> None:
    slugs: dict[str, str] = {}
    names = [name for tags in TAGS for name in tags]
    assert [slug_of(n, slugs) for n in names] == [slugify(n) for n in names]
    assert [slug_of(n, slugs) for n in reversed(names)] == [slugify(n) for n in reversed(names)]
    assert slugs == {n: slugify(n) for n in names}


def test_series_are_named_by_the_source_in_the_languages_that_list_the_posts(
    tmp_path: Path,
) -> None:
    """collect_series looks for the posts naming a series once, in the sources: a translation
    naming one joins none; a post a translation holds back (a draft there) is in the series of
    the languages that list it; a post whose source is a draft is listed in none, whatever its
    translation says (`draft: false` there draws a shared-differs warning)."""
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    ko, en = root / "content" / "ko" / "posts", root / "content" / "en" / "posts"

    def post(folder: Path, name: str, head: str) -> None:
        (folder / f"{name}.md").write_text(f"---\n{head}---\n\n본문.\n", encoding="utf-8")

    post(ko, "s1", "title: 하나\ndate: 2026-04-01\nseries: 새 연재\nseries_order: 2\n")
    post(en, "s1", "title: One\nseries: New series\n")
    post(ko, "s2", "title: 둘\ndate: 2026-04-02\nseries: 새 연재\nseries_order: 1\n")
    post(en, "s2", "title: Two\ndraft: true\n")
    post(ko, "s3", "title: 셋\ndate: 2026-04-03\n")
    post(en, "s3", "title: Three\nseries: New series\n")  # (the source names none)
    post(ko, "s4", "title: 넷\ndate: 2026-04-04\ndraft: true\nseries: 새 연재\n")
    post(en, "s4", "title: Four\ndraft: false\n")  # (listed in neither: its source is a draft)
    collector = Collector()
    project = Project(root)
    config, content = load(project, collector, None)
    site = pair(project, config, content, collector)
    assert not collector.errors, collector.errors
    said = [d for d in collector.items if d.code == "shared-differs"]
    assert [(d.file, d.message) for d in said] == [
        (
            "content/en/posts/s4.md",
            "draft: false here but true in content/ko/posts/s4.md: a post whose source is a "
            "draft is published in no language",
        )
    ]
    ko_series = {s.name: [e.key for e in s.entries] for s in site.series["ko"].values()}
    en_series = {s.name: [e.key for e in s.entries] for s in site.series["en"].values()}
    assert ko_series["새 연재"] == ["s2", "s1"]
    assert en_series["New series"] == ["s1"]  # (s2 is a draft in en, s4's source a draft)
    assert {"s2", "s4"}.isdisjoint(e.key for e in site.posts("en"))
    assert {"s1", "s3"} <= {e.key for e in site.posts("en")}
    assert "s4" not in {e.key for e in site.posts("ko")}
    assert all("s3" not in keys for keys in [*ko_series.values(), *en_series.values()])
    assert site.series_by_entry[("en", "s1")].name == "New series"
    assert ("en", "s3") not in site.series_by_entry


def test_a_post_writing_a_tag_twice_is_listed_once(tmp_path: Path) -> None:
    """pair/tables.py `_move_tags`: a post is among a tag's posts once, however many of its
    tags have that slug, and the tag's spellings count each tag written."""
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    posts = root / "content" / "ko" / "posts"
    (posts / "twice.md").write_text(
        "---\ntitle: 두 번\ndate: 2026-04-09\ntags: [Rust, rust, Go, RUST]\n---\n\n본문.\n",
        encoding="utf-8",
    )
    collector = Collector()
    project = Project(root)
    config, content = load(project, collector, None)
    site = pair(project, config, content, collector)
    for lang in config.codes:
        listed = [e.key for e in site.tag_posts[lang]["rust"]]
        assert listed.count("twice") == 1, lang
        assert site.tag_posts[lang]["go"][0].key == "twice"
    assert site.tags["ko"]["rust"].spellings == ("RUST", "Rust", "rust")
