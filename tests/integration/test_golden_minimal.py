"""Golden files of the rendered 'minimal' sample project (HTML, JSON, feeds, llms.txt).

Regenerate with `pytest tests/integration/test_golden_minimal.py --update-golden` and review the
diff: every change in rendered output shows up here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import TESTS, check_golden

GOLDEN = TESTS / "golden" / "minimal"
FILES = [
    "index.html",
    "ko/index.html",
    "en/index.html",
    "ko/blog/alpha/index.html",
    "en/blog/alpha/index.html",
    "en/blog/beta/index.html",
    "ko/tags/kv-cache/index.html",
    "en/series/a-series/index.html",
    "api/ko/cv.json",
    "api/en/cv.json",
    "api/en/posts.json",
    "api/en/status.json",
    "ko/feed.xml",
    "en/feed.json",
    "en/tags/kv-cache/feed.xml",
    "sitemap.xml",
    "robots.txt",
    "llms.txt",
    "llms-full.txt",
    "en/llms-full.txt",
]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import shutil

    from bipub.pipeline import build

    project = tmp_path_factory.mktemp("golden") / "minimal"
    shutil.copytree(TESTS / "projects" / "minimal", project)
    build(project)
    return project / "site"


@pytest.mark.parametrize("rel", FILES)
def test_rendered_file_matches_golden(built: Path, rel: str, update_golden: bool) -> None:
    actual = (built / rel).read_text(encoding="utf-8")
    check_golden(GOLDEN / rel, actual, update_golden)
