"""Issue 18: a heading is not left alone at the foot of a page — the theme's PDF style sheet keeps
an item's title and opening lines with the case study (break-inside: avoid) that follows them.

Renders the structure of pdf/cv.html's open-source item with the real print.css, with a growing
filler before it, so that every position near the foot of page 1 is tried."""

from __future__ import annotations

from pathlib import Path

import pytest

PRINT_CSS = (
    Path(__file__).resolve().parents[2] / "src/bipub/theme/templates/pdf/print.css"
).read_text(encoding="utf-8")
INTRO = ("OPEN SOURCE", "PROJECT TITLE", "ROLE LINE", "SUMMARY LINE")


def _html(filler: int) -> str:
    lines = "".join(f"<p>Filler line {i}</p>" for i in range(filler))
    case = "".join(f"<p>Case line {i}</p>" for i in range(14))
    return (
        f"<html><body class='cv'>{lines}<section class='cv-section'><h2>OPEN SOURCE</h2>"
        "<article class='item'><h3 class='item__title'>PROJECT TITLE</h3>"
        "<p class='job__position'>ROLE LINE</p><p class='summary-line'>SUMMARY LINE</p>"
        f"<div class='case'>{case}</div></article></section></body></html>"
    )


def _last_text(page: object) -> str:
    texts: list[str] = []

    def walk(box: object) -> None:
        text = getattr(box, "text", None)
        if text and text.strip():
            texts.append(text.strip())
        for child in getattr(box, "children", None) or []:
            walk(child)

    walk(page._page_box.children[0])  # type: ignore[attr-defined]  # (not the margin boxes)
    return texts[-1]


def test_no_heading_or_intro_line_ends_a_page() -> None:
    weasyprint = pytest.importorskip("weasyprint")
    css = weasyprint.CSS(string=PRINT_CSS + "@page { size: A4; }")
    orphans = []
    for filler in range(20, 60, 2):
        doc = weasyprint.HTML(string=_html(filler)).render(stylesheets=[css])
        if len(doc.pages) > 1 and _last_text(doc.pages[0]) in INTRO:
            orphans.append((filler, _last_text(doc.pages[0])))
    assert orphans == []
