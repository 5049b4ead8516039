"""Issue 19: math in a post's PDF is drawn (SVG outlines; WeasyPrint draws no MathML)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader

from bipub.pipeline import build
from tests._shared_builds import some_real_pdfs
from tests.conftest import PROJECTS

pytestmark = [
    pytest.mark.pdf,
    pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler-utils"),
]


ALPHA_PDF = "ko/blog/alpha/alpha.pdf"


def test_a_formula_is_drawn_in_the_pdf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "minimal"
    shutil.copytree(PROJECTS / "minimal", root)
    post = root / "content" / "ko" / "posts" / "alpha.md"
    text = post.read_text(encoding="utf-8").replace("---\n", "---\npdf: true\n", 1)
    post.write_text(text + "\n수식 앞\n\n$$\n\\sum_{j=1}^{n} e^{x_j}\n$$\n\n수식 뒤\n", "utf-8")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1798761600")
    # (only the post's PDF rendered: the CVs' hold no formula; placeholders for them)
    with some_real_pdfs((ALPHA_PDF,), tmp_path / "xdg-cache") as rendered:
        build(root, only={"pdf"}, use_cache=False)
    assert rendered == [ALPHA_PDF]
    pdf = root / "site" / "ko" / "blog" / "alpha" / "alpha.pdf"
    words = subprocess.run(
        ["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert "수식 앞" in words and "수식 뒤" in words
    assert "∑" not in words  # not the formula's bare characters in a row (MathML unstyled)
    content = b"".join(page.get_contents().get_data() for page in PdfReader(pdf).pages)
    assert content.count(b" c\n") > 20  # the glyphs' outlines: Bézier curves
