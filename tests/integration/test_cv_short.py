"""The short CV PDFs end to end (issue 18), on tests/projects/short_cv: six jobs with two case
studies each (a five-page CV); bipub.yaml lists summary, experience and skills for the short
edition, cv.yaml marks one case study, one stat and one project `short: true` and one job
`short: false`. Checked with poppler (pdfinfo, pdftotext)."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests._shared_builds import some_real_pdfs
from tests.conftest import PROJECTS, CliResult

pytestmark = [
    pytest.mark.pdf,  # real PDFs (tests/conftest.py): their pages are counted and read
    pytest.mark.skipif(
        shutil.which("pdftotext") is None or shutil.which("pdfinfo") is None,
        reason="needs poppler-utils",
    ),
]

Cli = Callable[..., CliResult]


def pages_of(path: Path) -> int:
    out = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True)
    m = re.search(r"^Pages:\s+(\d+)$", out.stdout, re.M)
    assert m, out.stdout
    return int(m.group(1))


def text_of(path: Path) -> str:
    out = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True)
    return out.stdout


def set_pages(project: Path, pages: int) -> None:
    config = project / "bipub.yaml"
    text = re.sub(r"\n    pages: \d+\n", "\n", config.read_text(encoding="utf-8"))
    config.write_text(text + f"    pages: {pages}\n", encoding="utf-8")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("short") / "short_cv"
    shutil.copytree(PROJECTS / "short_cv", root)
    return root


@pytest.fixture(scope="module")
def first(project: Path) -> CliResult:
    """`build --only pdf` with a page budget of 1 (rendered: the user cache is empty)."""
    from click.testing import CliRunner

    from bipub.cli import main

    set_pages(project, 1)
    with (
        pytest.MonkeyPatch.context() as mp,
        some_real_pdfs(READ, project.parent / "user-cache") as rendered,
    ):
        mp.setenv("SOURCE_DATE_EPOCH", "1798761600")
        result = CliRunner().invoke(main, ["-C", str(project), "build", "--only", "pdf"])
    assert sorted(rendered) == sorted(READ), rendered
    return CliResult(result.exit_code, result.stdout, result.stderr)


# The PDFs the tests read (pages, text): the short CVs and the full English one. The Korean and
# the bilingual full CVs are placeholders (tests/_shared_builds.py), also in the user cache the
# later builds here share: they are listed, never opened.
READ = ("pdf/cv-en-short.pdf", "pdf/cv-ko-short.pdf", "pdf/cv-en.pdf")


def test_short_pdfs_fit_two_pages_the_full_ones_do_not(project: Path, first: CliResult) -> None:
    assert first.exit_code == 0, first.stderr
    pdfs = project / "site" / "pdf"
    assert sorted(p.name for p in pdfs.iterdir()) == [
        "cv-en-short.pdf",
        "cv-en.pdf",
        "cv-ko-en.pdf",  # (no bilingual short edition: two columns do not fit two pages)
        "cv-ko-short.pdf",
        "cv-ko.pdf",
    ]
    assert pages_of(pdfs / "cv-en-short.pdf") == 2
    assert pages_of(pdfs / "cv-ko-short.pdf") == 2
    assert pages_of(pdfs / "cv-en.pdf") >= 4
    assert first.stderr.strip().splitlines()[-1].startswith("Built 5 PDFs, ")


def test_short_pdf_has_what_is_marked_and_listed(project: Path, first: CliResult) -> None:
    text = text_of(project / "site" / "pdf" / "cv-en-short.pdf")
    assert "Engineer who makes language models cheaper" in text  # summary: listed
    for n in range(1, 6):
        assert f"Engineer {n}" in text  # experience: listed
    assert "Fennick" not in text  # marked short: false
    assert "Case Acme 1" in text  # the one case study marked short: true
    assert "Case Acme 2" not in text and "Case Borealis 1" not in text
    assert "Merged upstream PRs" in text and "Decode throughput" not in text  # a marked stat
    assert "loadgen-lite" in text and "kvscope" not in text  # a marked project
    assert "Serving" in text  # skills: listed
    assert "Full CV: test.example.org/en" in text
    ko = text_of(project / "site" / "pdf" / "cv-ko-short.pdf")
    assert "언어 모델을 더 싸고 빠르게" in ko and "Acme 사례 1" in ko and "Fennick" not in ko


def test_overflow_is_a_warning_naming_the_pdf_and_its_pages(first: CliResult) -> None:
    assert first.exit_code == 0
    for lang in ("en", "ko"):
        assert (
            f"pdf/cv-{lang}-short.pdf: warning: the short CV has 2 pages, over its budget of 1 "
            "(bipub.yaml pdf.short.pages): mark fewer items `short: true` in "
            "content/en/cv.yaml or list fewer sections in pdf.short.sections "
            "[short-cv-overflow]"
        ) in first.stderr
    assert first.stderr.count("[short-cv-overflow]") == 2  # not for the full CVs


def test_within_budget_no_warning_and_strict_fails_on_overflow(
    project: Path, first: CliResult, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1798761600")
    monkeypatch.setenv("XDG_CACHE_HOME", str(project.parent / "user-cache"))
    set_pages(project, 2)
    result = cli("-C", str(project), "build", "--only", "pdf", "--strict")
    assert result.exit_code == 0, result.stderr
    assert "short-cv-overflow" not in result.stderr
    # over budget again: from the rendered PDFs kept in the user cache this time
    set_pages(project, 1)
    before = (project / "site" / "pdf" / "cv-en-short.pdf").read_bytes()
    result = cli("-C", str(project), "build", "--only", "pdf", "--strict")
    assert result.exit_code == 1
    assert "pdf/cv-en-short.pdf: the short CV has 2 pages, over its budget of 1" in result.stderr
    assert "pdf.short.sections (--strict)" in result.stderr
    assert (project / "site" / "pdf" / "cv-en-short.pdf").read_bytes() == before


def test_pages_link_the_short_pdfs(project: Path, cli: Cli) -> None:
    result = cli("-C", str(project), "-q", "build", "--only", "html")
    assert result.exit_code == 0, result.stderr
    en = (project / "site" / "en" / "index.html").read_text(encoding="utf-8")
    control = en[en.index('<ul class="cv-pdf"') :]  # beside the name: this language's two
    control = control[: control.index("</ul>")]
    assert 'href="/pdf/cv-en-short.pdf"' in control and "Short CV (PDF)</a>" in control
    more = en[en.index('<ul class="cv-pdf cv-pdf--more"') :]  # under it: the others
    assert 'href="/pdf/cv-ko-short.pdf"' in more[: more.index("</ul>")]
    footer = en[en.index('class="site-footer__pdf site-footer__pdf--short"') :]
    assert footer.index('href="/pdf/cv-en-short.pdf"') < footer.index("</li>")
    ko = (project / "site" / "ko" / "index.html").read_text(encoding="utf-8")
    assert "요약 이력서 (PDF)</a>" in ko and 'href="/pdf/cv-ko-short.pdf"' in ko


def test_llms_txt_links_the_short_pdfs(project: Path, cli: Cli) -> None:
    result = cli("-C", str(project), "-q", "build", "--only", "llms")
    assert result.exit_code == 0, result.stderr
    ko = (project / "site" / "ko" / "llms.txt").read_text(encoding="utf-8")
    assert "요약 이력서 (PDF)" in ko and "/pdf/cv-ko-short.pdf" in ko
    assert ko.index("/pdf/cv-ko-short.pdf") < ko.index("/pdf/cv-en-short.pdf")  # its own first
