"""An update pairs and plans only what changed (issue 17): what each entry brought to the tags,
series and spelling checks (pair/taxonomy.py `taxa_of`) and its planned pages
(render/page_plan.py PageMemo) are kept for the entries that did not change, and the site-wide
tables are joined again from them. These edits each change such a table through one entry —
a tag's spelling ranking, a tag emptied, a post moved to another series, a title prefix — and
after each the update must equal a clean build, files and warnings, whether the state is kept
in memory (`bipub serve`) or read back (`bipub build`). The state machine of
test_incremental.py explores many more sequences; these name the cases a stale splice breaks.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from bipub.cache import BuildCache
from bipub.pipeline import Kept, build
from bipub.render.html import HtmlRenderer
from tests.conftest import PROJECTS, tree_snapshot

KINDS = {"html", "json", "feeds", "llms"}

GAMMA = """---
title: "{title}"
date: 2026-06-0{day}
tags: [{tags}]
---

감마 본문.
"""


def _edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _post(root: Path, name: str, title: str, tags: str, day: int = 1) -> None:
    path = root / "content" / "ko" / "posts" / f"{name}.md"
    path.write_text(GAMMA.format(title=title, tags=tags, day=day), encoding="utf-8")


def _page(root: Path, rel: str) -> str:
    return (root / "site" / rel).read_text(encoding="utf-8")


# (what the step does, the edit, what the updated site must show: checked besides equality
# with a clean build, so that a step that changed nothing cannot pass for one that did)
Step = tuple[str, Callable[[Path], None], Callable[[Path], bool]]
STEPS: list[Step] = [
    (
        "a new post makes 'kv-cache' the most used spelling of its tag",
        lambda r: _post(r, "gamma", "감마", "kv-cache"),
        lambda r: "#kv-cache" in _page(r, "ko/tags/kv-cache/index.html"),
    ),
    (
        "a tag respelled on one post ranks the spellings again",
        lambda r: _edit(r, "content/ko/posts/gamma.md", "tags: [kv-cache]", "tags: [KV cache]"),
        lambda r: "#KV cache" in _page(r, "ko/tags/kv-cache/index.html"),
    ),
    (
        "a post moved to another series leaves the first one",
        lambda r: _edit(r, "content/ko/posts/beta.md", "series: 연재", "series: 다른 연재"),
        lambda r: (
            "베타 글" in _page(r, "ko/series/다른-연재/index.html")
            and "베타 글" not in _page(r, "ko/series/연재/index.html")
        ),
    ),
    (
        "a post with a tag of its own",
        lambda r: _post(r, "delta", "[vLLM] 델타", "rust", day=2),
        lambda r: (r / "site/ko/tags/rust/index.html").is_file(),
    ),
    (
        "a title prefix spelled otherwise on another post",
        lambda r: _post(r, "gamma", "[VLLM] 감마", "kv-cache"),
        lambda r: True,  # (the warning: compared with the clean build's)
    ),
    (
        "the deletion of its only post empties a tag",
        lambda r: (r / "content/ko/posts/delta.md").unlink(),
        lambda r: not (r / "site/ko/tags/rust").exists(),
    ),
    (
        "a tag removed from one post only",
        lambda r: _edit(r, "content/ko/posts/alpha.md", "tags: [vllm, KV cache]", "tags: [vllm]"),
        lambda r: "알파 글" not in _page(r, "ko/tags/kv-cache/index.html"),
    ),
    (
        "a post made a draft leaves its tags and series",
        lambda r: _edit(r, "content/ko/posts/beta.md", "\ntitle:", "\ndraft: true\ntitle:"),
        lambda r: not (r / "site/ko/series/다른-연재").exists(),
    ),
    (
        "a post re-dated moves in its tag's list",
        lambda r: _edit(r, "content/ko/posts/alpha.md", "date: 2026-04-07", "date: 2026-07-07"),
        lambda r: _page(r, "ko/tags/vllm/index.html").count("알파 글") >= 1,
    ),
    (
        "a post whose English version leaves its tag out: a tag page in Korean only",
        lambda r: _translated(r, "solo", "tags: [solo]", "tags: []"),
        lambda r: (
            (r / "site/ko/tags/solo/index.html").is_file()
            and not (r / "site/en/tags/solo").exists()
        ),
    ),
    (
        "another post's English version takes the tag: the Korean page, its posts unchanged, "
        "links its new English counterpart",
        lambda r: _edit(r, "content/en/posts/alpha.md", "\nseries:", "\ntags: [solo]\nseries:"),
        lambda r: '/en/tags/solo/"' in _page(r, "ko/tags/solo/index.html"),
    ),
]


def _translated(root: Path, name: str, ko_tags: str, en_tags: str) -> None:
    for lang, title, tags in (("ko", "솔로", ko_tags), ("en", "Solo", en_tags)):
        path = root / "content" / lang / "posts" / f"{name}.md"
        text = f"---\ntitle: {title}\ndate: 2026-03-01\n{tags}\n---\n\n{title}.\n"
        path.write_text(text if lang == "ko" else text.replace("date: 2026-03-01\n", ""), "utf-8")


@pytest.mark.parametrize("resident", [False, True], ids=["restored", "resident"])
def test_each_update_equals_a_clean_build(tmp_path: Path, resident: bool) -> None:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    kept = Kept(BuildCache()) if resident else None
    build(root, only=KINDS, kept=kept)
    for what, edit, shows in STEPS:
        edit(root)
        got = build(root, only=KINDS, kept=kept)
        clean = build(root, tmp_path / "clean", use_cache=False, only=KINDS)
        assert tree_snapshot(root / "site") == tree_snapshot(tmp_path / "clean"), what
        # (`url-removed` compares with the last build into the same folder: a clean build into
        # a new one has none; render/removed_urls.py, tests/integration/test_aliases.py)
        said = [d for d in got.warnings if d.code != "url-removed"]
        assert said == clean.warnings, what
        assert shows(root), what
        if kept is not None:  # the update took the unchanged entries as they were
            assert kept.pairs.reused > 0 and kept.pages.reused > 0, what
            assert kept.pages.keys.reused > 0, what
            # and each key it took from the memo (EntryKeyMemo) is the one worked out anew
            assert kept.state is not None
            assert kept.state.entries == _fresh_keys(kept), what


def _fresh_keys(kept: Kept) -> dict[tuple[str, str], str]:
    """The entry keys of the site `kept`'s last build planned, by a renderer without a memo."""
    last = kept.pages.renderer
    assert isinstance(last, HtmlRenderer)
    return HtmlRenderer(last.site, last.rendered, last.url).entry_keys()
