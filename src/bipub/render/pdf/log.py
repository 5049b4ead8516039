"""How WeasyPrint's log messages are judged: the ones that mean wrong output are errors.

This matches WeasyPrint's own wording, so tests/unit/test_pdf_log.py renders tiny documents
with the real WeasyPrint to produce each kind of message (a missing image, a .notdef glyph, an
invalid CSS value…) and checks how it is judged: a WeasyPrint release that rewords a message
fails that test instead of turning an error into a silent warning.

Errors: a .notdef glyph (a box instead of a character), a failed fetch, an invalid value of a
property that changes the layout or text (size, font-family, white-space, word-break…), an
unknown rendering option. Warnings: everything else, and missing HarfBuzz subsetting (the
silent ~20 s fontTools path; an error under --strict). Not said at all: an SVG property that the
HTML cascade calls unknown (`ignorable`), which the SVG renderer applies.
"""

from __future__ import annotations

import re

from bipub.diagnostics import Severity

SUBSETTING_MESSAGE = (
    "fast font subsetting unavailable (install libharfbuzz-subset0); PDFs will take ~20 s"
)
# Properties whose invalid value changes the output (layout, text, fonts, page, outline).
MATTERS = frozenset(
    {
        "size",
        "page",
        "font",
        "font-family",
        "font-weight",
        "font-size",
        "white-space",
        "word-break",
        "line-break",
        "overflow-wrap",
        "hyphens",
        "content",
        "string-set",
        "bookmark-level",
        "bookmark-label",
        "display",
        "break-before",
        "break-after",
        "break-inside",
    }
)
_IGNORED = re.compile(r"^Ignored `(?P<prop>[\w-]+):")
# SVG's own properties, which WeasyPrint's HTML cascade does not know: an inline SVG's
# `style="stroke-width: 2"` (every Mermaid diagram has dozens) logs "Ignored `stroke-width: 2`
# at 1:1, unknown property." although its SVG renderer reads that style and draws it.
SVG_ONLY = frozenset(
    {
        "stroke",
        "stroke-width",
        "stroke-dasharray",
        "stroke-dashoffset",
        "stroke-linecap",
        "stroke-linejoin",
        "stroke-miterlimit",
        "stroke-opacity",
        "fill",
        "fill-opacity",
        "fill-rule",
        "marker",
        "marker-start",
        "marker-mid",
        "marker-end",
        "stop-color",
        "stop-opacity",
        "text-anchor",
        "dominant-baseline",
        "alignment-baseline",
        "paint-order",
        "vector-effect",
        "clip-rule",
        "shape-rendering",
    }
)
_FETCH_FAILED = re.compile(
    r"^(Failed to (load|render)|Font-face .* cannot be loaded|Missing href|"
    r"Relative URI reference without a base URI)"
)
_WRONG = re.compile(r"^(Unknown (PDF|rendering) option|Missing required \"lang\")")
_SLOW_SUBSET = "instead of HarfBuzz-Subset"


def ignorable(message: str) -> bool:
    """An "unknown property" message about one of SVG's own properties (SVG_ONLY): nothing
    the HTML would do with it is lost, and the SVG renderer applies it, so it is not said."""
    m = _IGNORED.match(message)
    return (
        m is not None
        and m.group("prop").lower() in SVG_ONLY
        and message.rstrip(".").endswith("unknown property")
    )


def classify(message: str) -> tuple[Severity, str]:
    """(severity, code) of one WeasyPrint log message."""
    if ".notdef glyph" in message:
        return Severity.ERROR, "pdf-glyph"
    if _SLOW_SUBSET in message:
        return Severity.WARNING, "pdf-subsetting"
    if _FETCH_FAILED.match(message):
        return Severity.ERROR, "pdf-fetch"
    if _WRONG.match(message):
        return Severity.ERROR, "pdf-weasyprint"
    m = _IGNORED.match(message)
    if m and m.group("prop").lower() in MATTERS:
        return Severity.ERROR, "pdf-css"
    return Severity.WARNING, "pdf-weasyprint"
