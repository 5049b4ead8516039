"""A resident load and pairing (`bipub serve`: load/content.py ContentMemo, pair/memo.py
PairMemo, the tag tables of pair/tables.py) after any sequence of posts added, removed, edited,
re-keyed, made drafts, re-dated and re-tagged must give what loading and pairing the files
anew gives: the same documents, entries, units, each language's posts in order, tags, series
and diagnostics. Each step also checks that the update took the unchanged entries as they were
(the content as the last load listed it, at most the changed groups paired again), so that a
memo that keeps nothing cannot pass for one that keeps the right things."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bipub.cache import BuildCache
from bipub.diagnostics import Collector
from bipub.inputs import scan_inputs
from bipub.load.content import ContentMemo
from bipub.pair.site import PairMemo, Site
from bipub.pipeline import load, pair
from bipub.project import Project
from tests.conftest import PROJECTS

NAMES = ("alpha", "beta", "gamma", "delta", "eps")
TAGS = ("vllm", "KV cache", "kv-cache", "rust", "Rust")

POST = """---
title: "{title}"
date: 2026-0{month}-1{day}
tags: [{tags}]
{extra}---

{body}
"""

# an operation: (what, name, number)
Op = tuple[str, str, int]
OPS = st.tuples(
    st.sampled_from(
        [
            "add",
            "add_en",
            "remove",
            "remove_en",
            "body",
            "draft",
            "date",
            "tags",
            "key",
            "slug",
            "image",
        ]
    ),
    st.sampled_from(NAMES),
    st.integers(0, 4),
)


def _write(root: Path, lang: str, name: str, n: int, extra: str = "") -> None:
    path = root / "content" / lang / "posts" / f"{name}.md"
    tags = ", ".join(TAGS[(n + i) % len(TAGS)] for i in range(1 + n % 3))
    title = f"[vLLM] {name} {n}" if n % 2 else f"{name} {n}"
    if lang == "ko":
        extra += f"series: 연재 {n % 2}\nseries_order: {n}\n" if n % 3 == 0 else ""
        text = POST.format(title=title, month=4 + n % 3, day=n, tags=tags, extra=extra, body="본문")
    else:  # (a translation: the source's date)
        text = f'---\ntitle: "{title} en"\n{extra}---\n\nBody {n}.\n'
    path.write_text(text, encoding="utf-8")


def _apply(root: Path, op: Op) -> None:
    what, name, n = op
    ko, en = (root / "content" / lang / "posts" / f"{name}.md" for lang in ("ko", "en"))
    if what == "add" and not ko.exists():
        _write(root, "ko", name, n)
    elif what == "add_en" and not en.exists():
        _write(root, "en", name, n)
    elif what == "remove" and ko.exists():
        ko.unlink()
    elif what == "remove_en" and en.exists():
        en.unlink()
    elif ko.exists():
        text = ko.read_text(encoding="utf-8")
        if what == "body":
            text += f"\n추가 문단 {n}.\n"
        elif what == "draft":
            draft = "\ndraft: true\n"
            text = text.replace(draft, "\n", 1) if draft in text else text.replace("\n", draft, 1)
        elif what == "date":
            text = text.replace("date: 2026-0", f"date: 2025-1{n % 3}-0{n + 1}\n#", 1)
        elif what == "tags":
            text = text.replace("tags: [", f"tags: [{TAGS[n]}, ", 1)
        elif what == "image":  # (a Markdown image: its document checked for it)
            image = f"\n![그림](/img/{NAMES[n]}.png)\n"
            text = text.replace(image, "\n", 1) if image in text else text + image
        elif what in ("key", "slug"):  # (its group or URL: another entry's, or its own)
            key = f"\n{what}: {NAMES[n]}\n"
            text = text.replace(key, "\n", 1) if key in text else text.replace("\n", key, 1)
        ko.write_text(text, encoding="utf-8")


def _pair(
    root: Path, cache: BuildCache | None, loaded: ContentMemo | None, paired: PairMemo | None
):
    collector = Collector()
    project = Project(root)
    inputs = scan_inputs(project) if loaded is not None else None
    config, content = load(project, collector, cache, inputs, loaded)
    site = pair(project, config, content, collector, paired)
    said = [f"{d.severity}:{d.file}:{d.line}:{d.code}:{d.message}" for d in collector.items]
    return content, site, said


def _shown(site: Site) -> tuple[object, ...]:
    codes = site.config.codes
    return (
        site.entries,
        [(tuple(e.docs), tuple(e.versions)) for e in site.entries],  # (dicts: in order too)
        [(u.key, u.target_lang, u.translated, u.source_hash, u.source) for u in site.units],
        {lang: site.posts(lang) for lang in codes},
        site.tags,
        site.tag_posts,
        site.series,
        site.series_by_entry,
        site.images,
    )


def seeded(root: Path) -> Path:
    """The minimal project at `root` with the posts of NAMES (but the first two) written."""
    shutil.copytree(PROJECTS / "minimal", root)
    for i, name in enumerate(NAMES[2:]):
        _write(root, "ko", name, i + 1)
    return root


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(OPS, min_size=1, max_size=12))
def test_a_resident_pairing_equals_pairing_anew(ops: list[Op]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = seeded(Path(tmp) / "p")
        cache, loaded, paired = BuildCache(), ContentMemo(), PairMemo()
        _, _, said = _pair(root, cache, loaded, paired)
        for op in ops:
            whole = paired.last is not None and not any(s.startswith("error") for s in said)
            _apply(root, op)
            content, got, said = _pair(root, cache, loaded, paired)
            clean_content, clean, clean_said = _pair(root, None, None, None)
            assert content.documents == clean_content.documents, op
            assert _shown(got) == _shown(clean), op
            assert said == clean_said, op
            if whole:  # (the last load and pairing are taken, but what changed)
                assert loaded.note.startswith("content as the last load listed it"), op
                assert len(got.entries) - paired.reused <= 2, op


@given(
    st.integers(0, 12),
    st.lists(st.tuples(st.sampled_from(["del", "add", "new"]), st.integers(0, 20)), max_size=5),
    st.sampled_from([0, 2, 256]),
)
def test_changed_entries_finds_every_entry_gone_or_come(
    size: int, edits: list[tuple[str, int]], at_most: int
) -> None:
    """pair/model.py `changed_entries`: every object of one list not in the other, in the
    lists' order; an object in both (moved) is in both answers or in neither."""
    from bipub.pair.model import changed_entries

    before = [object() for _ in range(size)]
    now = list(before)
    for what, at in edits:
        if what == "del" and now:
            del now[at % len(now)]
        elif what == "add":
            now.insert(at % (len(now) + 1), object())
        elif now:
            now[at % len(now)] = object()
    gone, come = changed_entries(before, now, at_most)
    gone_ids, come_ids = {id(e) for e in gone}, {id(e) for e in come}
    assert gone == [e for e in before if id(e) in gone_ids]
    assert come == [e for e in now if id(e) in come_ids]
    in_now, in_before = {id(e) for e in now}, {id(e) for e in before}
    assert {id(e) for e in before if id(e) not in in_now} <= gone_ids
    assert {id(e) for e in now if id(e) not in in_before} <= come_ids
    assert gone_ids & in_now == come_ids & in_before
