"""Issue 19: ```mermaid diagrams drawn by the real mermaid-cli in Chromium (tools/mermaid, which
scripts/bootstrap.sh installs): inline SVG in the page, drawn in the PDF with Korean labels in
the Korean font, cached (a second build starts no renderer), readable in dark mode.

One shared build of the 'minimal' project plus a Korean post with a diagram and `pdf: true`."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bipub.pipeline import build
from bipub.render import diagrams as dg
from tests._shared_builds import some_real_pdfs
from tests.conftest import PROJECTS

pytestmark = [
    pytest.mark.pdf,  # real PDFs (tests/conftest.py): the diagram is read back from one
    pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler-utils"),
]

POST = """---
title: 다이어그램 글
description: 머메이드 다이어그램
date: 2026-05-02
pdf: true
---

다이어그램 앞 문단.

```mermaid
flowchart LR
  Q[요청 큐] --> S{스케줄러}
  S -->|배치| G[GPU 커널]
```

다이어그램 뒤 문단.
"""
LABELS = ("요청 큐", "스케줄러", "배치", "GPU 커널")
# The one PDF the tests read (rendered by WeasyPrint); the project's other PDFs (the CVs, the
# 'minimal' posts') are placeholders (tests/_shared_builds.py): ~6 WeasyPrint renders less.
DIAGRAM_PDF = "ko/blog/diagram/diagram.pdf"


@dataclass
class Built:
    site: Path
    runs: list[int]  # diagrams per renderer run, over both builds
    second_runs: int  # renderer runs of the second build


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    if not dg.default_tool_dir().joinpath("node_modules").is_dir():
        pytest.fail("mermaid-cli is not installed: run scripts/bootstrap.sh (tools/mermaid)")
    root = tmp_path_factory.mktemp("diagrams") / "minimal"
    shutil.copytree(PROJECTS / "minimal", root)
    (root / "content" / "ko" / "posts" / "diagram.md").write_text(POST, "utf-8")
    runs: list[int] = []
    real = dg.run_node

    def counting(job: dict[str, Any], tool: Path) -> dict[str, dg.Drawn]:
        runs.append(len(job["diagrams"]))
        return real(job, tool)

    # (a module fixture runs before the autouse one that keeps the user's cache out of ~: a
    # cache of its own, empty, so the first build draws the diagram)
    with (
        pytest.MonkeyPatch.context() as mp,
        some_real_pdfs((DIAGRAM_PDF,), root.parent / "xdg-cache") as rendered,
    ):
        mp.setattr(dg, "run_node", counting)
        mp.setenv("SOURCE_DATE_EPOCH", "1798761600")
        build(root, root / "site")
        first = len(runs)
        (root / "content" / "ko" / "posts" / "diagram.md").write_text(
            POST.replace("다이어그램 뒤 문단.", "다이어그램 뒤 문단, 고침."), "utf-8"
        )
        build(root, root / "site")  # the post changed, its diagram did not
    assert rendered == [DIAGRAM_PDF, DIAGRAM_PDF], rendered  # (each build: its post changed)
    return Built(root / "site", runs, len(runs) - first)


def test_the_page_has_the_diagram_as_inline_svg_with_korean_text_labels(built: Built) -> None:
    html = (built.site / "ko" / "blog" / "diagram" / "index.html").read_text("utf-8")
    figure = re.search(
        r'<figure class="diagram">(<svg id="(mermaid-[0-9a-f]+)".*?</svg>)</figure>', html, re.S
    )
    assert figure is not None, "no inline SVG"
    svg = figure.group(1)
    assert "```" not in html and "flowchart LR" not in html  # never the source
    assert "<foreignObject" not in svg  # SVG text: WeasyPrint draws it
    words = " ".join(re.sub(r"<[^>]+>", " ", svg).split())  # a label is a tspan per word
    for label in LABELS:
        assert label in words
    assert '"Noto Sans CJK KR"' in svg  # labels measured and drawn in the PDF text font
    assert html.count(f'id="{figure.group(2)}"') == 1


def test_the_pdf_draws_the_diagram_labels_in_the_korean_font(built: Built) -> None:
    pdf = built.site / "ko" / "blog" / "diagram" / "diagram.pdf"
    text = subprocess.run(
        ["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    for label in ("다이어그램 앞 문단", *LABELS):
        assert label in text
    fonts = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True)
    names = [line.split()[0] for line in fonts.stdout.splitlines()[2:]]
    assert names and all("Noto-Sans-CJK-KR" in name for name in names)  # no fallback font
    png = subprocess.run(
        ["pdftoppm", "-r", "40", "-gray", "-f", "1", "-l", "1", str(pdf)],
        capture_output=True,
        check=True,
    ).stdout  # PGM: the page as drawn
    header_end = png.index(b"255\n") + 4
    inked = sum(1 for b in png[header_end:] if b < 250)
    assert inked > 4000  # the same page without the diagram: ~2,100 (measured); with: ~5,800


def test_a_second_build_with_the_same_diagram_starts_no_renderer(built: Built) -> None:
    assert built.runs == [1]  # the first build: one run for its one diagram
    assert built.second_runs == 0


def test_the_diagram_is_inverted_in_dark_mode(browser: Any, site_url: str) -> None:
    page = browser.new_page(color_scheme="light")
    try:
        page.goto(f"{site_url}/ko/blog/attention-math/")
        svg = page.locator("figure.diagram svg").first
        label = page.locator("figure.diagram svg g.label text").first  # the theme has a .label
        style = label.evaluate(
            "e => [getComputedStyle(e).textTransform, getComputedStyle(e).fontSize,"
            " getComputedStyle(e).fontWeight]"
        )
        assert style == ["none", "16px", "400"]  # as mermaid measured it: the text fits its box
        assert svg.evaluate("e => getComputedStyle(e).filter") == "none"
        assert svg.bounding_box()["height"] > 50
        page.evaluate("document.documentElement.dataset.theme = 'dark'")
        assert "invert" in svg.evaluate("e => getComputedStyle(e).filter")
        page.emulate_media(color_scheme="dark")
        page.evaluate("delete document.documentElement.dataset.theme")
        assert "invert" in svg.evaluate("e => getComputedStyle(e).filter")
    finally:
        page.close()
