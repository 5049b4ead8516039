"""What planning reads of every entry at every build is kept with the entry (pair/model.py
`Entry.source_image`, `aliased`, `mermaid_docs`, `Version.is_fallback`; pair/site_pages.py
`partners` and `pdf_langs`, which render/pdf/links.py `any_pdf` asks of every post): worked out once per object by the functions every plan reads them with, and
pickled with it in the entries file (restore.py), so a build in a new process after an edit
reads them back for each unchanged entry instead of its documents' front matter and bodies
(~0.08 s of planning at 5,000 posts a language). Byte equality with clean builds after any
edit is test_incremental.py's."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bipub import restore
from bipub.config import load_config
from bipub.pair import site_pages
from bipub.pipeline import build
from bipub.project import Project
from tests.conftest import PAGES_AND_AGGREGATES, built_copy, replace_in, tree_snapshot

KINDS = PAGES_AND_AGGREGATES
ALPHA = "content/ko/posts/alpha.md"
FACTS = ("source_image", "aliased", "mermaid_docs")


def fresh_versions(entry: Any) -> dict[str, bool]:
    """Each language's `Version.is_fallback` worked out of new Version objects."""
    return {lang: dataclasses.replace(v).is_fallback for lang, v in entry.versions.items()}


def _edit(root: Path) -> None:
    path = root / ALPHA
    path.write_text(path.read_text(encoding="utf-8") + "\n한 문단 더.\n", encoding="utf-8")


def _kept(root: Path) -> restore.Kept:
    return restore.restore(Project(root), root / "site", [])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The minimal project with an og:image, an alias and a body naming mermaid, built."""
    root = built_copy(tmp_path)
    beta = "content/ko/posts/beta.md"
    replace_in(root, beta, "---\n", "---\nimage: https://example.org/card.png\n")
    replace_in(root, beta, "---\n", "---\naliases: [/ko/blog/old-beta/]\n")
    replace_in(root, ALPHA, "---\n", "---\npdf: true\n")  # (a PDF in each language)
    (root / beta).write_text(
        (root / beta).read_text(encoding="utf-8") + "\nmermaid 이야기.\n", encoding="utf-8"
    )
    build(root, only=KINDS)
    return root


def test_restored_entries_carry_the_plans_facts_as_worked_out_anew(project: Path) -> None:
    """Each entry read back from the entries file holds its facts, equal to those worked out of
    a new object with the same fields."""
    kept = _kept(project)
    config = load_config(project)
    site: Any = SimpleNamespace(config=config)
    entries = [paired.entry for paired, _ in kept.pairs.paired.values()]
    assert len(entries) == 3 and all(e is not None for e in entries)
    seen = {name: False for name in FACTS}
    for entry in entries:
        assert entry is not None
        fresh = dataclasses.replace(entry)
        for name in FACTS if entry.kind == "posts" else FACTS[1:]:  # (a page: no og:image)
            assert name in entry.__dict__, (entry.key, name)
            assert entry.__dict__[name] == getattr(fresh, name), (entry.key, name)
            seen[name] = seen[name] or bool(entry.__dict__[name])
        for lang, version in entry.versions.items():  # (read of every page by every plan)
            assert version.__dict__["is_fallback"] == fresh_versions(fresh)[lang], entry.key
        if entry.kind == "posts":
            assert entry.__dict__[site_pages.PARTNERS] == site_pages.partners(site, fresh)
            assert entry.__dict__[site_pages.PDF_LANGS] == site_pages.pdf_langs(site, fresh)
    assert all(seen.values()), seen  # (each fact not empty somewhere)
    by_key = {e.key: e for e in entries if e is not None and e.kind == "posts"}
    assert by_key["alpha"].__dict__[site_pages.PARTNERS] == {"ko": "en", "en": "ko"}
    assert by_key["beta"].__dict__[site_pages.PARTNERS] == {"ko": None, "en": None}
    assert by_key["alpha"].__dict__[site_pages.PDF_LANGS] == ("ko", "en")
    assert by_key["beta"].__dict__[site_pages.PDF_LANGS] == ()
    assert "/ko/blog/beta/" in (project / "site/ko/blog/old-beta/index.html").read_text(
        encoding="utf-8"
    )


def test_a_build_in_a_new_process_works_out_the_facts_of_the_edited_entry_only(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After an edit, a build from the entries file looks at the drafts and fallbacks
    (`shows_own`) of the edited post only, and writes what a clean build writes."""
    looked: list[str] = []
    real = site_pages.shows_own

    def counted(entry: Any, lang: str) -> bool:
        looked.append(entry.key)
        return real(entry, lang)

    _edit(project)
    kept = _kept(project)
    monkeypatch.setattr(site_pages, "shows_own", counted)
    build(project, only=KINDS, kept=kept)
    assert set(looked) == {"alpha"}, looked
    monkeypatch.undo()
    build(project, tmp_path / "clean", use_cache=False, only=KINDS)
    assert tree_snapshot(project / "site") == tree_snapshot(tmp_path / "clean")
