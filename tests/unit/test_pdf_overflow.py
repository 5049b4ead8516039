"""A table wider than the page in a PDF is said (render/pdf/overflow.py): WeasyPrint cuts what
passes the page's right edge, and the last columns of a wide Korean table were missing from a
post's PDF with no message. Rendered with the real WeasyPrint; the check reads its laid-out
boxes, so it is made only on the versions it was verified with, and a PDF with a table says
when it was not."""

from __future__ import annotations

from pathlib import Path

import pytest

from bipub.diagnostics import Severity
from bipub.render.pdf import overflow

weasyprint = pytest.importorskip("weasyprint")

JOINER = "\u2060"  # (as the pre-pass joins a Korean word: render/pdf/breaks.py)
WIDE = "<table><tr>{}</tr></table>".format(
    "".join(f"<td>값{i}{JOINER.join('긴셀내용입니다')}</td>" for i in range(14))
)
NARROW = "<table><tr><td>작은</td><td>표</td></tr></table>"


def _render(tmp_path: Path, body: str) -> tuple[object, ...]:
    from bipub.render.pdf.engine import render_job
    from bipub.render.pdf.jobs import PdfJob

    html = f'<html lang="ko"><head><title>t</title></head><body><p>앞</p>{body}</body></html>'
    result = render_job(PdfJob("post.pdf", html, tmp_path.as_uri() + "/", (str(tmp_path),)))
    assert result.data is not None
    return result.diagnostics


def test_a_table_wider_than_the_page_is_said(tmp_path: Path) -> None:
    assert overflow.verified(weasyprint.__version__), "a WeasyPrint this was not checked with"
    said = _render(tmp_path, NARROW + WIDE)
    assert [(d.code, d.severity) for d in said] == [("pdf-overflow", Severity.WARNING)]
    message = said[0].message
    first = "“값0긴셀내용입니다 | 값1긴셀내용입니다 | 값2긴셀내용입니다 | 값3긴셀내용입니다 | …”"
    assert message.startswith(f"a table on page 1 ({first}) is "), message
    assert "mm wider than the page" in message
    assert _render(tmp_path, NARROW) == ()


@pytest.mark.parametrize(("over", "said"), [(10, None), (30, 14)])
def test_only_what_passes_the_page_edge_is_said(
    tmp_path: Path, over: int, said: int | None
) -> None:
    """A table reaching into the page's margin (16 mm, as print.css) is drawn whole: the
    side-by-side CV's tables reach 6 mm into it and were all said to be cut."""
    table = f'<table style="width: calc(100% + {over}mm)"><tr><td>넓은 표</td></tr></table>'
    found = _render(
        tmp_path, f"<style>@page {{ margin: 16mm }} body {{ margin: 0 }}</style>{table}"
    )
    if said is None:
        assert found == ()
    else:
        assert [d.code for d in found] == ["pdf-overflow"]
        assert f"is {said} mm wider than the page" in found[0].message


def test_with_another_weasyprint_a_pdf_with_a_table_says_it_was_not_looked_at(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(overflow, "VERIFIED", ("0.0",))
    said = _render(tmp_path, NARROW + WIDE)
    assert [(d.code, d.severity) for d in said] == [("pdf-overflow", Severity.WARNING)]
    assert "are not looked for with WeasyPrint" in said[0].message
    assert _render(tmp_path, "<p>표 없음</p>") == ()
