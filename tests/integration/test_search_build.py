"""Issue 19: the search index in builds — `--only search`, `outputs.search: false`, and only
the pages in their own language are indexed."""

from __future__ import annotations

import gzip
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from bipub.pipeline import build
from tests.conftest import tree_snapshot

pytestmark = pytest.mark.real_search  # Kiwi and Pagefind themselves, not the run's memo


def _bundle(site: Path, lang: str) -> dict[str, bytes]:
    return {
        rel: data
        for rel, data in tree_snapshot(site).items()
        if rel.startswith(f"{lang}/pagefind/")
    }


def _indexed_urls(site: Path, lang: str) -> set[str]:
    urls = set()
    for path in (site / lang / "pagefind").glob("*/fragment/*"):
        text = gzip.decompress(path.read_bytes()).decode("utf-8")
        urls.add(text.split('"url":"', 1)[1].split('"', 1)[0])
    return urls


def test_only_search_makes_the_same_index_from_the_published_pages(
    make_project: Callable[[str], Path],
) -> None:
    project: Path = make_project("minimal")
    build(project, use_cache=False)
    site = project / "site"
    full = {lang: _bundle(site, lang) for lang in ("ko", "en")}
    assert full["ko"] and full["en"]
    shutil.rmtree(site / "ko" / "pagefind")
    result = build(project, only={"search"}, use_cache=False)
    assert result.changed > 0
    assert {lang: _bundle(site, lang) for lang in ("ko", "en")} == full
    # posts and pages in their own language only: not listings, not a page shown untranslated
    ko = _indexed_urls(site, "ko")
    assert "/ko/blog/alpha/" in ko
    assert not any("/tags/" in url or url == "/ko/blog/" for url in ko)


def test_search_can_be_turned_off(make_project: Callable[[str], Path]) -> None:
    project: Path = make_project("minimal")
    config = project / "bipub.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "outputs:\n  search: false\n", encoding="utf-8"
    )
    build(project, use_cache=False)
    site = project / "site"
    assert not (site / "ko" / "pagefind").exists()
    assert not (site / "ko" / "search").exists()
    home = (site / "ko" / "index.html").read_text(encoding="utf-8")
    assert 'class="site-search"' not in home
