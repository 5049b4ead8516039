"""WeasyPrint's log is judged by its wording (render/pdf/log.py): each kind of message here is
produced by the real WeasyPrint rendering a tiny document, so a release that rewords one fails
this test instead of silently turning an error into a warning (issue 17).

Only plain file: and data: URLs inside the test's folder are used: nothing is fetched from the
network. Each render is a few words in the default font (a fraction of a second).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bipub.diagnostics import Severity
from bipub.render.pdf.log import classify, ignorable

weasyprint = pytest.importorskip("weasyprint")


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture
def log() -> Iterator[_Capture]:
    logger = logging.getLogger("weasyprint")
    capture = _Capture()
    saved = (logger.level, logger.propagate)
    logger.addHandler(capture)
    logger.setLevel(logging.WARNING)
    logger.propagate = False
    yield capture
    logger.removeHandler(capture)
    logger.setLevel(saved[0])
    logger.propagate = saved[1]


def render(
    folder: Path, body: str, head: str = "", lang: str = ' lang="en"', **options: Any
) -> None:
    html = f"<html{lang}><head>{head}</head><body>{body}</body></html>"
    document = weasyprint.HTML(string=html, base_url=folder.as_uri() + "/")
    document.write_pdf(**options)


# (what to render, the message it must log, how bipub judges it)
CASES: dict[str, tuple[dict[str, Any], str, Severity, str]] = {
    "missing image": (
        {"body": '<img src="missing.png" alt="x">'},
        "Failed to load image at",
        Severity.ERROR,
        "pdf-fetch",
    ),
    "broken image data": (
        {"body": '<img src="data:image/png;base64,AAAA" alt="x">'},
        "Failed to load image at",
        Severity.ERROR,
        "pdf-fetch",
    ),
    "missing stylesheet": (
        {"body": "<p>x</p>", "head": '<link rel="stylesheet" href="missing.css">'},
        "Failed to load stylesheet at",
        Severity.ERROR,
        "pdf-fetch",
    ),
    "font-face that cannot be loaded": (
        {
            "body": "<p>x</p>",
            "head": "<style>@font-face { font-family: X; src: url(missing.ttf) }"
            " p { font-family: X }</style>",
        },
        "Font-face 'X' cannot be loaded",
        Severity.ERROR,
        "pdf-fetch",
    ),
    "character no font has (.notdef glyph)": (
        {"body": "<p>\ue000</p>"},
        ".notdef glyph rendered",
        Severity.ERROR,
        "pdf-glyph",
    ),
    "invalid value of a property that changes the text": (
        {"body": "<p>x</p>", "head": "<style>p { word-break: keep-everything }</style>"},
        "Ignored `word-break: keep-everything",
        Severity.ERROR,
        "pdf-css",
    ),
    "invalid page size": (
        {"body": "<p>x</p>", "head": "<style>@page { size: A9X }</style>"},
        "Ignored `size: A9X",
        Severity.ERROR,
        "pdf-css",
    ),
    "invalid font size": (
        {"body": "<p>x</p>", "head": "<style>p { font-size: huge }</style>"},
        "Ignored `font-size: huge",
        Severity.ERROR,
        "pdf-css",
    ),
    "invalid colour (cosmetic)": (
        {"body": "<p>x</p>", "head": "<style>p { color: rd }</style>"},
        "Ignored `color: rd",
        Severity.WARNING,
        "pdf-weasyprint",
    ),
    "unknown property (cosmetic)": (
        {"body": "<p>x</p>", "head": "<style>p { colour: red }</style>"},
        "unknown property",
        Severity.WARNING,
        "pdf-weasyprint",
    ),
    "link to a missing anchor": (
        {"body": '<a href="#nowhere">x</a>'},
        "No anchor #nowhere",
        Severity.WARNING,
        "pdf-weasyprint",
    ),
    "tagged PDF without a language": (
        {"body": "<p>x</p>", "lang": "", "pdf_variant": "pdf/ua-1"},
        'Missing required "lang"',
        Severity.ERROR,
        "pdf-weasyprint",
    ),
    "unknown rendering option": (
        {"body": "<p>x</p>", "bipub_no_such_option": True},
        "Unknown rendering option",
        Severity.ERROR,
        "pdf-weasyprint",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_real_weasyprint_messages_are_judged(case: str, tmp_path: Path, log: _Capture) -> None:
    arguments, wording, severity, code = CASES[case]
    render(tmp_path, **arguments)
    produced = [m for m in log.messages if wording in m]
    assert produced, f"WeasyPrint no longer logs {wording!r} for a {case}: {log.messages}"
    assert {classify(m) for m in produced} == {(severity, code)}


def test_slow_font_subsetting_is_a_warning(
    tmp_path: Path, log: _Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from weasyprint.pdf import fonts

    monkeypatch.setattr(fonts, "harfbuzz_subset", None)  # as without libharfbuzz-subset0
    render(tmp_path, "<p>x</p>")
    produced = [m for m in log.messages if "fontTools" in m]
    assert produced, log.messages
    assert {classify(m) for m in produced} == {(Severity.WARNING, "pdf-subsetting")}


# An inline SVG's own style (each Mermaid diagram writes dozens: `style="stroke-width: 2"`)
SVG_STYLED = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40">'
    '<rect x="5" y="5" width="30" height="30" style="stroke: none; stroke-width: 2; '
    'stroke-dasharray: 1, 0; fill: red"/></svg>'
)


def test_an_inline_svgs_own_properties_are_not_said(tmp_path: Path, log: _Capture) -> None:
    """WeasyPrint's HTML cascade calls SVG's properties unknown ("Ignored `stroke-width: 2` at
    1:1, unknown property.") although its SVG renderer applies them: a post PDF with a Mermaid
    diagram said 7 such warnings, and `bipub build --strict` failed on them."""
    from bipub.render.pdf.engine import render_job
    from bipub.render.pdf.jobs import PdfJob

    render(tmp_path, SVG_STYLED)
    produced = [m for m in log.messages if "unknown property" in m]
    assert {m.split("`")[1].split(":")[0] for m in produced} >= {"stroke", "stroke-width"}
    assert all(ignorable(m) for m in produced), produced
    assert not ignorable("Ignored `colour: red` at 1:5, unknown property.")  # (not SVG's)
    assert not ignorable("Ignored `stroke-width: huge` at 1:1, invalid value.")
    html = f'<html lang="en"><head><title>t</title></head><body>{SVG_STYLED}</body></html>'
    result = render_job(PdfJob("svg.pdf", html, tmp_path.as_uri() + "/", (str(tmp_path),)))
    assert result.data is not None and result.diagnostics == (), result.diagnostics
