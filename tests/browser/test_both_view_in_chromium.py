"""Issue 19: the side-by-side view of a post in real headless Chromium, on the shared built demo
(served by `bipub serve`'s handler), with JavaScript off: at 1,280 px each section's two
languages are columns side by side whose tops line up; at 400 px they stack, section by section
(never all of one language, then all of the other)."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

pytestmark = pytest.mark.browser

POST = "/blog/prefix-caching/"  # the demo: reviewed sections and an outdated one


def _rows(browser: Any, url: str, width: int) -> list[list[dict[str, float]]]:
    """Each section row's cells' boxes (in column order), with JavaScript off."""
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": width, "height": 900}
    )
    page = context.new_page()
    page.goto(url, wait_until="load")
    rows = page.eval_on_selector_all(
        "section.both-row[data-state]",
        """rows => rows.map(row => Array.from(row.querySelectorAll(':scope > .both-cell'))
            .map(cell => { const r = cell.getBoundingClientRect();
                           const first = cell.querySelector('.prose > *, .both-cell__empty');
                           return {x: r.left, y: r.top, right: r.right, bottom: r.bottom,
                                   lang: cell.lang,
                                   text: first.getBoundingClientRect().top}; }))""",
    )
    context.close()
    return rows


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_wide_sections_are_columns_whose_tops_line_up(
    browser: Any, site_url: str, lang: str
) -> None:
    rows = _rows(browser, f"{site_url}/{lang}{POST}both/", 1280)
    assert len(rows) >= 3
    for first, second in rows:
        assert first["lang"] == lang  # the page's language is the first column
        assert second["x"] >= first["right"]  # next to each other, not overlapping
        assert abs(first["y"] - second["y"]) < 1  # each section's two languages start level
        assert abs(first["text"] - second["text"]) < 1  # their text too, under the labels
    for above, below in pairwise(rows):
        assert below[0]["y"] >= max(above[0]["bottom"], above[1]["bottom"]) - 1


def test_narrow_sections_stack_section_by_section(browser: Any, site_url: str) -> None:
    rows = _rows(browser, f"{site_url}/ko{POST}both/", 400)
    assert len(rows) >= 3
    for first, second in rows:
        assert [first["lang"], second["lang"]] == ["ko", "en"]
        assert second["y"] >= first["bottom"] - 1  # the English under the Korean
        assert abs(first["x"] - second["x"]) < 1
    for above, below in pairwise(rows):
        assert below[0]["y"] >= above[1]["bottom"] - 1  # the next section after both


def test_the_states_show_and_the_post_links_the_view(browser: Any, site_url: str) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{site_url}/ko{POST}", wait_until="load")
    page.get_by_role("link", name="나란히 읽기").click()
    page.wait_for_url(f"**/ko{POST}both/")
    states = page.eval_on_selector_all(
        "section.both-row[data-state]", "r => r.map(x => x.dataset.state)"
    )
    assert "reviewed" in states and "stale" in states
    stale = page.locator("section.both-row--stale .both-cell--translation .both-state").first
    assert stale.is_visible()
    assert stale.inner_text() == "번역이 오래되었을 수 있음"
    context.close()
