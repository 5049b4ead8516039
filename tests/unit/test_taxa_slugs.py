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
