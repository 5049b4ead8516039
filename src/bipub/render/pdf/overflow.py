"""The tables of a PDF that pass its page's right edge (render/pdf/engine.py `render_job`).

WeasyPrint lays a table out no narrower than its longest words (the pre-pass joins each Korean
word: render/pdf/breaks.py) and cuts what passes the edge of the page: the last columns of a
wide table were missing from a post's PDF, with no message (the web page scrolls the table).
After the layout, each table is compared with its page's right edge (not its content area: what
reaches into the margin is drawn); one that passes it by more than a pixel is said
(`pdf-overflow`: where it starts, its first cells, how much is cut).

This reads WeasyPrint's laid-out boxes (`Page._page_box`, each box's `element_tag`,
`position_x`, `margin_width()`, `content_box_x()`), which are not its public API: only with the
versions it was checked against (`VERIFIED`, tests/unit/test_pdf_overflow.py). With another,
nothing is looked at, and a PDF that has a table says so (`pdf-overflow`).
"""

from __future__ import annotations

from typing import Any

VERIFIED = ("70.0",)  # WeasyPrint versions whose boxes this reads
_SLACK = 1.0  # CSS px past the edge not said (rounding)
_MM = 25.4 / 96  # millimetres in a CSS px
_JOINER = "\u2060"  # (the pre-pass's word joiner: not shown in a message)


def verified(version: str) -> bool:
    return version in VERIFIED


def overflowing_tables(document: Any) -> list[str]:
    """What to say of each table of a laid-out WeasyPrint `document` that passes its page's
    right edge (a table split across pages is said once, where it starts)."""
    said: list[str] = []
    seen: set[int] = set()
    for number, page in enumerate(document.pages, 1):
        page_box = page._page_box
        # the page's own right edge: what passes the content area into the margin is drawn
        # (the side-by-side CV's tables reach 6 mm into it), what passes the edge is not
        edge = page_box.position_x + page_box.margin_width()
        for box in page_box.descendants():
            if getattr(box, "element_tag", None) != "table" or id(box.element) in seen:
                continue
            over = box.position_x + box.margin_width() - edge
            if over <= _SLACK:
                continue
            seen.add(id(box.element))
            said.append(
                f"a table on page {number} ({_start(box.element)}) is {over * _MM:.0f} mm wider "
                "than the page: what passes the page's right edge is not in the PDF (give it "
                "fewer columns or shorter cells, or split it)"
            )
    return said


def _start(element: Any) -> str:
    """The first cells of a table, to find it by."""
    cells = []
    for cell in element.iter():
        if str(cell.tag).rpartition("}")[2] in ("td", "th"):
            cells.append(" ".join("".join(cell.itertext()).replace(_JOINER, "").split()))
            if len(cells) == 5:
                break
    text = " | ".join(cells[:4]) + (" | …" if len(cells) > 4 else "")
    return f"“{text[:60]}…”" if len(text) > 60 else f"“{text}”"
