"""Issue 19: math typeset at build time (render/mathml.py, render/markdown.py), and kept from
DeepL (translate/segments.py's layout: a formula stays in the skeleton or in a slot)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bipub.render.markdown import render_markdown
from bipub.render.mathml import MathSyntaxError, for_print, to_mathml
from bipub.translate.segments import layout

REPO = Path(__file__).resolve().parents[2]
DEMO_MATH = [REPO / "content" / lang / "posts" / "attention-math.md" for lang in ("ko", "en")]


@pytest.mark.parametrize("fast", [True, False])
def test_inline_and_block_math_become_mathml(fast: bool) -> None:
    html = render_markdown("Let $x^2$ be.\n\n$$\n\\frac{a}{b}\n$$\n", fast=fast).html
    assert '<span class="math inline"><math xmlns="http://www.w3.org/1998/Math/MathML"' in html
    assert '<div class="math block">\n<math' in html and "<mfrac>" in html
    assert "$" not in html


def test_dollars_beside_digits_or_spaces_are_money_not_math() -> None:
    html = render_markdown("It costs $5 or $10, and $ x $ too.").html
    assert "<math" not in html and "$5 or $10" in html


@pytest.mark.parametrize(
    ("latex", "why"),
    [
        ("\\frac{1}{\\sqrt{d}", "a '{' is never closed"),
        ("a}", "a '}' closes no '{'"),
        ("\\foo x", "unknown command \\foo"),
        ("\\left( x", "extra left or missing right"),
        ("x^", "missing super script or subscript"),
    ],
)
def test_a_formula_that_cannot_be_typeset_says_why(latex: str, why: str) -> None:
    with pytest.raises(MathSyntaxError, match=re.escape(why)):
        to_mathml(latex, False)


def test_math_errors_carry_their_line_in_the_body() -> None:
    body = "Intro $x$.\n\nTwo\nlines $\\foo$ here\n\n$$\n\\frac{a\n$$\n"
    rendered = render_markdown(body)
    assert [line for line, _ in rendered.math_errors] == [4, 6]
    assert "<code>\\foo</code>" in rendered.html  # shown as source (the build fails anyway)


def test_pdf_html_gets_svg_instead_of_mathml() -> None:
    html = render_markdown("$$\n\\sum_j e^{x_j}\n$$\n\nand $y$").html
    printed = for_print(html)
    assert "<math" not in printed
    assert printed.count("<svg") == 2
    assert for_print(printed) == printed  # nothing left to replace
    assert for_print("<p>no math</p>") == "<p>no math</p>"


def test_formulas_sharing_a_glyph_define_each_id_once_in_a_pdf(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """ziamath names a glyph's <symbol> after the glyph: two formulas with a `+` both defined
    `STIXTwoMathRegular_1196`, and WeasyPrint warned "Anchor defined twice" once per shared
    glyph (a post PDF with math failed `bipub build --strict`)."""
    weasyprint = pytest.importorskip("weasyprint")
    html = render_markdown("$a + b$ and $b + c$ and $a + b$\n\n$$\na + b\n$$\n").html
    pieces = [for_print(html), for_print(html, "ko1.")]  # (two pieces of one bilingual PDF)
    ids = re.findall(r'(?<![\w:-])id="([^"]+)"', "".join(pieces))
    assert ids and len(ids) == len(set(ids)), ids
    for svg in re.findall(r"<svg.*?</svg>", pieces[0], re.S):  # each <use> names its own symbol
        own = set(re.findall(r'(?<![\w:-])id="([^"]+)"', svg))
        assert set(re.findall(r'href="#([^"]+)"', svg)) <= own
    caplog.set_level("WARNING", logger="weasyprint")
    page = f'<html lang="en"><body>{"".join(pieces)}</body></html>'
    weasyprint.HTML(string=page).write_pdf()
    assert not [r for r in caplog.records if "Anchor defined twice" in r.getMessage()]


@pytest.mark.parametrize("path", DEMO_MATH, ids=lambda p: p.parent.parent.name)
def test_deepl_never_sees_a_formula(path: Path) -> None:
    body = path.read_text(encoding="utf-8").split("---\n", 2)[2]
    unit = layout(body)
    formulas = re.findall(r"\$\$(.+?)\$\$|\$([^$\n]+)\$", body, re.S)
    assert len(formulas) >= 8
    skeleton = "".join(p for p in unit.pieces if isinstance(p, str))
    slots = [slot for seg in unit.segments for slot in seg.encoded.slots]
    for block, inline in formulas:
        latex = (block or inline).strip()
        assert latex in skeleton or any(latex in slot for slot in slots), latex
    prose = re.sub(r"<x i=\"\d+\"/>", " ", "".join(seg.encoded.xml for seg in unit.segments))
    assert "\\frac" not in prose and "\\sqrt" not in prose and "d_k" not in prose


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize(
    "body",
    [
        "The energy is $$E = mc^2$$ here.",
        "Softmax and $$\n\\frac{e^{x_i}}{\\sum_j e^{x_j}}\n$$ in one paragraph.",
        "$$a + b$$ opens the paragraph.",
    ],
)
def test_double_dollars_inside_a_paragraph_are_display_math(body: str, fast: bool) -> None:
    """Session 29: `$$…$$` inside a paragraph is display math, as KaTeX's auto-render, MathJax,
    pandoc and GitHub read it (it showed as `$<math>…</math>$`: two stray dollar signs, no
    warning). A <span> shown as a block keeps the paragraph valid HTML (no <div> inside <p>)."""
    rendered = render_markdown(body, fast=fast)
    assert "$" not in rendered.html, rendered.html
    assert (
        '<span class="math display"><math xmlns="http://www.w3.org/1998/Math/MathML" display="block"'
        in rendered.html
    )
    assert "<div" not in rendered.html
    assert not rendered.math_errors


def test_double_dollars_inside_a_paragraph_are_checked_at_their_line() -> None:
    rendered = render_markdown("Intro.\n\nOne\ntwo $$\\frac{a$$ three\n")
    assert [(line, "never closed" in why) for line, why in rendered.math_errors] == [(4, True)]


def test_money_with_double_dollars_stays_text() -> None:
    html = render_markdown("It costs $$$ or $$5 and $$10.").html
    assert "<math" not in html and "$$$ or $$5 and $$10" in html


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize(
    "body", ["kill $$ and echo $$ now", "prices: $$ vs $$$ tiers", "spaced $$ x $$ here"]
)
def test_double_dollars_around_spaces_stay_text(body: str, fast: bool) -> None:
    """A shell's `$$` in prose, price tiers: `$$…$$` whose formula starts or ends with a space
    stays text, as `$…$` does (they were typeset as formulas)."""
    rendered = render_markdown(body, fast=fast)
    assert "<math" not in rendered.html and body in rendered.html, rendered.html
    assert not rendered.math_errors
