"""A `bipub build` in a new process after an edit plans every page from the entries read back
from the entries file (restore.py: each unchanged entry as it was last paired, with the facts
planning reads of it, test_plan_facts.py) and the entries' keys and card keys of the last
build: its plan must equal a clean build's, page for page, with every value of each page and
what its fingerprint is made of (`deps()`). (test_plan_reuse.py compares the plan of
`bipub serve`, which takes pages from its last plan, with one made anew; test_incremental.py
compares the files written.)"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bipub import restore
from bipub.pipeline import build
from bipub.project import Project
from bipub.render.html import HtmlRenderer, Plan
from tests.conftest import DATED_POST, PAGES_AND_AGGREGATES, dated_project, replace_in
from tests.integration.test_plan_reuse import summary

KINDS = PAGES_AND_AGGREGATES
ALPHA = "content/ko/posts/alpha.md"
MORE = "content/ko/posts/more-02.md"


def _body(root: Path) -> None:
    path = root / ALPHA
    path.write_text(path.read_text(encoding="utf-8") + "\n한 문단 더.\n", encoding="utf-8")


def _new(root: Path) -> None:
    text = DATED_POST.format(n=99, month=3, day=9, tag="new-tag")
    (root / "content/ko/posts/more-99.md").write_text(text, encoding="utf-8")


EDITS: dict[str, Callable[[Path], None]] = {
    "body": _body,
    "title": lambda root: replace_in(root, ALPHA, "title: 알파 글", "title: 알파 글 둘"),
    "new post": _new,
    "deleted post": lambda root: (root / MORE).unlink(),
    "draft": lambda root: replace_in(root, MORE, "---\n", "---\ndraft: true\n"),
    "re-dated": lambda root: replace_in(root, MORE, "date: 2025-", "date: 2024-"),
    "series": lambda root: replace_in(root, MORE, "---\n", "---\nseries: 연재\n"),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_restored_build_plans_what_a_clean_build_plans(
    edit: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, _ = dated_project(tmp_path, 5)
    build(project, only=KINDS)
    EDITS[edit](project)
    made: list[tuple[HtmlRenderer, Plan]] = []
    real = HtmlRenderer.plan

    def plan(self: HtmlRenderer) -> Plan:
        made.append((self, real(self)))
        return made[-1][1]

    monkeypatch.setattr(HtmlRenderer, "plan", plan)
    kept = restore.restore(Project(project), project / "site", [])
    assert kept.entries is not None  # (the entries file read back: an incremental build)
    build(project, only=KINDS, kept=kept)
    restored, incremental = made[-1]
    assert restored._plan_memo is None and kept.pages.keys.reused > 0  # (entries read back)
    build(project, tmp_path / "clean", use_cache=False, only=KINDS)
    clean = made[-1][1]
    assert summary(incremental) == summary(clean)
