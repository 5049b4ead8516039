"""Fonts of the PDFs: fontconfig lookup, real bold, coverage (render/pdf/fonts.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bipub.config import PdfOptions
from bipub.diagnostics import DiagnosticError
from bipub.render.pdf import fonts as pdf_fonts
from bipub.render.pdf.fonts import (
    _format_ranges,
    _parse_ranges,
    choose_fonts,
    covered,
    css_string,
    describe,
    uncovered,
)

needs_noto = pytest.mark.skipif(
    shutil.which("fc-list") is None or not pdf_fonts.fc_faces("Noto Sans CJK KR"),
    reason="needs fontconfig and fonts-noto-cjk",
)


@needs_noto
def test_default_fonts_are_noto_cjk_with_a_real_bold_face(tmp_path: Path) -> None:
    fonts, warnings = choose_fonts(PdfOptions(), tmp_path)
    assert warnings == []
    assert fonts.text.css_family == "Noto Sans CJK KR"
    assert fonts.text.regular.path.endswith(".ttc")  # a collection: the face index matters
    assert fonts.text.bold is not None
    assert "Bold" in fonts.text.bold.path
    assert fonts.text.bold.weight >= pdf_fonts.FC_WEIGHT_SEMIBOLD
    css = fonts.css()
    assert 'html { font-family: "Noto Sans CJK KR"; }' in css


@needs_noto
def test_configured_families_are_tried_in_order(tmp_path: Path) -> None:
    options = PdfOptions(fonts=["No Such Family 123", "Noto Sans CJK KR"])
    fonts, _ = choose_fonts(options, tmp_path)
    assert fonts.text.css_family == "Noto Sans CJK KR"


def test_no_known_family_is_an_error_naming_them(tmp_path: Path) -> None:
    if shutil.which("fc-list") is None:
        pytest.skip("needs fontconfig")
    with pytest.raises(DiagnosticError) as info:
        choose_fonts(PdfOptions(fonts=["No Such Family 123"]), tmp_path)
    message = str(info.value)
    assert "No Such Family 123" in message and "fonts-noto-cjk" in message


def test_font_file_must_stay_inside_the_project(tmp_path: Path) -> None:
    options = PdfOptions(font_file="../outside.ttf")
    with pytest.raises(DiagnosticError, match="outside the project"):
        choose_fonts(options, tmp_path)
    (tmp_path / "font.ttc").write_bytes(b"x")
    with pytest.raises(DiagnosticError, match=r"\.ttf or \.otf"):
        choose_fonts(PdfOptions(font_file="font.ttc"), tmp_path)


@needs_noto
def test_coverage_finds_characters_no_font_has(tmp_path: Path) -> None:
    fonts, _ = choose_fonts(PdfOptions(), tmp_path)
    pdf_fonts._MEMORY.clear()
    cover = covered(fonts, tmp_path / "cache")
    assert uncovered("한국어 English 2.4× → ·「」", cover) == []
    assert uncovered("시험관 🧪, \ue000 and 🧪 again", cover) == ["🧪", "\ue000"]
    # controls, format characters and variation selectors are never drawn
    assert uncovered("a\u200bb\u2060c\ufe0f\n\t", cover) == []
    # the cmap is cached on disk and reads back the same
    assert list((tmp_path / "cache").glob("cmap-*.txt"))
    pdf_fonts._MEMORY.clear()
    assert covered(fonts, tmp_path / "cache") == cover


def test_ranges_round_trip() -> None:
    codes = frozenset({0x20, 0x21, 0x22, 0x41, 0xAC00, 0xAC01, 0x1F600})
    text = _format_ranges(codes)
    assert text == "20-22\n41-41\nac00-ac01\n1f600-1f600\n"
    assert _parse_ranges(text) == codes


def test_describe_names_the_character() -> None:
    assert describe("🧪") == "U+1F9EA '🧪' TEST TUBE"
    assert describe("\ue000") == "U+E000"


def test_css_strings_cannot_break_out() -> None:
    assert css_string('a"b\\c</style>') == '"a\\"b\\\\c\\3c /style>"'
