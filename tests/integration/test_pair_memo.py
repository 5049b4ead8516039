"""The pairing memo (pair/memo.py PairMemo, kept by `bipub serve`) takes an entry as it was
paired only while everything its pairing read is as it was: each of its documents (the
translations too), the state and source hash of its units' status records, the configuration.
After each edit below, pairing with the memo must give what pairing without it gives — the
entries, units, tags, series and diagnostics — and must have paired again the entries the edit
touched (so that a memo that goes stale fails here, and one that keeps nothing does too)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from bipub.diagnostics import Collector
from bipub.load.sections import text_hash
from bipub.pair.site import PairMemo, Site
from bipub.pipeline import load, pair
from bipub.project import Project
from tests.conftest import PROJECTS

ALPHA_TITLE = text_hash("알파 글")


def _edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _status(root: Path, text: str) -> None:
    (root / "status").mkdir(exist_ok=True)
    (root / "status" / "en.yaml").write_text(text, encoding="utf-8")


def _record(state: str, source_hash: str = ALPHA_TITLE, reviewer: str = "min") -> str:
    return (
        f"posts/alpha:title:\n  source_hash: '{source_hash}'\n  state: {state}\n"
        f"  reviewer: {reviewer}\n"
    )


# (what the edit does, the edit, how many entries the pairing must pair again)
Step = tuple[str, Callable[[Path], None], int]
STEPS: list[Step] = [
    (
        "the translation (a partner document, not the source) gets another title",
        lambda r: _edit(r, "content/en/posts/alpha.md", "title: Alpha post", "title: Alpha!"),
        1,
    ),
    (
        "a translation takes its own tags, respelling one another post writes",
        lambda r: _edit(r, "content/en/posts/alpha.md", "series:", "tags: [VLLM]\nseries:"),
        1,
    ),
    ("the title's translation is reviewed", lambda r: _status(r, _record("reviewed")), 1),
    (
        "then its review is of an older source (same state)",
        lambda r: _status(r, _record("reviewed", "0" * 12)),
        1,
    ),
    ("then it is a machine draft", lambda r: _status(r, _record("draft", "0" * 12)), 1),
    (
        "a field pairing does not read (the reviewer) changes: nothing is paired again",
        lambda r: _status(r, _record("draft", "0" * 12, reviewer="kim")),
        0,
    ),
    (
        "a tag respelled on the source of another entry",
        lambda r: _edit(r, "content/ko/posts/beta.md", "tags: [", "tags: [Rust, "),
        1,
    ),
]


def _pair(root: Path, memo: PairMemo | None) -> tuple[Site, list[str]]:
    collector = Collector()
    project = Project(root)
    config, content = load(project, collector, None)
    site = pair(project, config, content, collector, memo)
    return site, [f"{d.file}:{d.line}:{d.code}:{d.message}" for d in collector.items]


def _shown(site: Site) -> tuple[object, ...]:
    return (site.entries, site.units, site.tags, site.tag_posts, site.series)


def test_the_memo_pairs_again_what_an_edit_touched(tmp_path: Path) -> None:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    memo = PairMemo()
    _pair(root, memo)
    for what, edit, again in STEPS:
        edit(root)
        got, said = _pair(root, memo)
        clean, clean_said = _pair(root, None)
        assert _shown(got) == _shown(clean), what
        assert said == clean_said, what
        assert len(got.entries) - memo.reused == again, what


@pytest.mark.parametrize(
    ("written", "told"),
    [
        # only for a field the translation writes, and writes otherwise
        (
            "date: 2026-05-01\ndraft: false\n",
            "date: 2026-05-01 here but 2026-04-07 in content/ko/posts/alpha.md",
        ),
        # a field the source does not set is said `not set` (the message said `None`)
        ("slug: alpha-en\n", "slug: alpha-en here but not set in content/ko/posts/alpha.md"),
        # a yes/no value as YAML writes it (the message said Python's `True`)
        ("pdf: true\n", "pdf: true here but not set in content/ko/posts/alpha.md"),
    ],
)
def test_a_translation_writing_a_shared_field_otherwise_is_told(
    tmp_path: Path, written: str, told: str
) -> None:
    """`shared-differs`: where a translation writes a shared field otherwise than its source."""
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    _edit(root, "content/en/posts/alpha.md", "series:", f"{written}series:")
    _, said = _pair(root, None)
    differs = [s for s in said if ":shared-differs:" in s]
    assert differs == [
        f"content/en/posts/alpha.md:4:shared-differs:{told}; shared fields come from the source"
    ]
