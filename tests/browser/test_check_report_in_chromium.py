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


# Korean words in a unit's text: a line may break between them, never inside one
_SPLIT_WORDS = """(el) => {
  const text = el.textContent;
  const node = [...el.childNodes].find((n) => n.nodeType === 3 && n.textContent.includes('라'));
  const split = [];
  for (const m of node.textContent.matchAll(/[\\uac00-\\ud7a3]+/g)) {
    const range = document.createRange();
    range.setStart(node, m.index);
    range.setEnd(node, m.index + m[0].length);
    const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    if (tops.size > 1) split.push(m[0]);
  }
  return {split, text};
}"""


def test_korean_prose_is_proportional_and_breaks_between_words(
    browser: Any, make_project: Any, cli: Any, tmp_path: Path
) -> None:
    """The HTML report on a hand-translated project: the Korean text of a unit is set in a
    proportional font with word-break: keep-all ("라이브러리는" is never cut), its code span in
    monospace."""
    project = make_project("hand_cv")
    report = tmp_path / "report.html"
    result = cli("-C", str(project), "check", "--format", "html", "-o", str(report))
    assert result.exit_code == 1, result.stderr  # the seeded number errors
    page = browser.new_page(viewport={"width": 360, "height": 800})
    page.goto(report.as_uri())
    unit = page.locator("article.unit", has_text="posts/four:body#0")
    prose = unit.locator('.translation .text[lang="ko"]')
    assert "라이브러리는" in prose.inner_text()
    style = prose.evaluate(
        "(el) => { const s = getComputedStyle(el);"
        " return {font: s.fontFamily, wordBreak: s.wordBreak, whiteSpace: s.whiteSpace}; }"
    )
    assert "monospace" not in style["font"], style
    assert style["wordBreak"] == "keep-all", style
    assert style["whiteSpace"] == "pre-wrap", style  # the text's own line breaks are kept
    code = prose.locator("code").first
    assert code.inner_text() == "`vllm`"
    assert "monospace" in code.evaluate("(el) => getComputedStyle(el).fontFamily")
    box = prose.bounding_box()
    assert box is not None and box["height"] > 40, "the text should wrap at this width"
    found = prose.evaluate(_SPLIT_WORDS)
    assert found["split"] == [], found
    page.close()
