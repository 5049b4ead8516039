"""`Site.pages` (pair/model.py): each language's pages shown, worked out once per language from
the entries that are pages, found in one pass over the site's entries (the plan, each
language's navigation and status.json ask for them: a pass over 10,000 entries each, ~2 ms, at
5,000 posts a language)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bipub.diagnostics import Collector
from bipub.pipeline import load, pair
from bipub.project import Project
from tests.conftest import replace_in


class _Walked(list[Any]):
    """The site's entries, counting the passes over them."""

    passes = 0

    def __iter__(self) -> Any:
        _Walked.passes += 1
        return super().__iter__()


def test_each_languages_pages_are_worked_out_once_from_one_pass(
    make_project: Callable[[str], Path],
) -> None:
    root = make_project("minimal")
    replace_in(root, "content/ko/pages/about.md", "---\n", "---\ndraft: true\n")  # (its own)
    (root / "content/ko/pages/more.md").write_text(
        "---\ntitle: 더\n---\n\n본문.\n", encoding="utf-8"
    )
    project = Project(root)
    collector = Collector()
    config, content = load(project, collector, None)
    site = pair(project, config, content, collector)
    expected = {
        lang: [e for e in site.entries if e.kind == "pages" and e.shown_in(lang)]
        for lang in config.codes
    }
    assert {lang: [e.key for e in pages] for lang, pages in expected.items()} == {
        "ko": ["more"],
        "en": ["about", "more"],
    }
    site.entries = _Walked(site.entries)
    _Walked.passes = 0
    found = {lang: site.pages(lang) for lang in config.codes}
    assert found == expected
    assert all(site.pages(lang) is found[lang] for lang in config.codes)  # (once a language)
    assert _Walked.passes == 1  # (the entries that are pages: found once for every language)
