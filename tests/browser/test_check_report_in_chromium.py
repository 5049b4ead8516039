"""The reviewer's html report of `bipub check`, opened in real headless Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser


def test_html_report_shows_the_seeded_gaps_and_filters(
    browser: Any, demo_site: Path, cli: Any
) -> None:
    project = demo_site.parent
    report = project / "report.html"
    result = cli("-C", str(project), "check", "--format", "html", "-o", str(report))
    assert result.exit_code == 0, result.stderr
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(report.as_uri())
    assert errors == []
    text = page.inner_text("body")
    for seeded in (
        "posts/tensor-parallel-allreduce",  # the untranslated post
        "posts/prefix-caching:body#4",  # the stale translation (with its diff)
        "2026년 1월 추가",
        "posts/continuous-batching:body#0",  # the machine draft
        "cv:highlights[2].text",  # the missing CV field
    ):
        assert seeded in text, seeded
    stale = page.locator('[data-code="stale"]').first
    assert stale.is_visible()
    page.locator('input[name="code"][value="stale"]').uncheck()
    assert not stale.is_visible()  # filtering by finding code hides it
    page.close()
