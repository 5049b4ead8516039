"""PDF output end to end: build, then read the PDFs with pypdf and poppler (pdftotext, pdffonts).

Builds use `--only pdf`, so these tests do not depend on the HTML theme. Every test that reads a
PDF or needs WeasyPrint to run is marked `pdf` (real PDFs); the others (what a partial build
keeps, the links the pages show) build placeholders (tests/conftest.py).
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pypdf import PdfReader

from bipub.render import pdf
from bipub.render.pdf import documents
from bipub.render.pdf.breaks import korean_line_breaks
from bipub.render.pdf.engine import render_job
from bipub.render.pdf.jobs import PdfJob, PdfResult
from bipub.render.pdf.pool import WORKERS
from tests._shared_builds import some_real_pdfs
from tests.conftest import CliResult, real_pdfs

pytestmark = [
    pytest.mark.skipif(
        shutil.which("pdftotext") is None or shutil.which("fc-list") is None,
        reason="needs poppler-utils and fontconfig",
    ),
]

Cli = Callable[..., CliResult]


def text_of(path: Path, *args: str) -> str:
    out = subprocess.run(
        ["pdftotext", *args, str(path), "-"], capture_output=True, text=True, check=True
    )
    return out.stdout


def fonts_of(path: Path) -> list[list[str]]:
    out = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True, check=True)
    return [line.split() for line in out.stdout.splitlines()[2:] if line.strip()]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The minimal project with one post opted in, built once (PDFs only)."""
    from click.testing import CliRunner

    from bipub.cli import main
    from tests.conftest import PROJECTS

    root = tmp_path_factory.mktemp("pdf") / "minimal"
    shutil.copytree(PROJECTS / "minimal", root)
    post = root / "content" / "ko" / "posts" / "alpha.md"
    post.write_text(post.read_text(encoding="utf-8").replace("---\n", "---\npdf: true\n", 1))
    for lang, table in WIDE_TABLES.items():  # (the demo's, cut in the side-by-side PDF)
        with (root / "content" / lang / "posts" / "alpha.md").open("a", encoding="utf-8") as f:
            f.write(f"\n{table}")
    with pytest.MonkeyPatch.context() as mp, real_pdfs():  # (the tests using it are marked pdf)
        mp.setenv("SOURCE_DATE_EPOCH", "1798761600")
        mp.setenv("XDG_CACHE_HOME", str(root.parent / "user-cache"))
        result = CliRunner().invoke(main, ["-C", str(root), "build", "--only", "pdf"])
    assert result.exit_code == 0, result.output
    # no table passes a page's edge: not the side-by-side CV's (they reach into the margin, and
    # each was said to be cut), not a six-column table in a half-page column
    assert "[pdf-overflow]" not in result.output, result.output
    return root / "site"


WIDE_TABLES = {
    "ko": "| 구성 | GPU 수 | 가중치 메모리 | 배치 1 ITL | 배치 64 처리량 | greedy 일치율 |\n"
    "|---|---|---|---|---|---|\n| FP8 W8A8 | 2 (TP2) | 67.7 GiB | 21.6 ms | 2,180 tok/s | 99.08% |\n",
    "en": "| Configuration | GPUs | Weight memory | Batch 1 ITL | Batch 64 throughput | Greedy "
    "agreement |\n|---|---|---|---|---|---|\n"
    "| FP8 W8A8 | 2 (TP2) | 67.7 GiB | 21.6 ms | 2,180 tok/s | 99.08% |\n",
}


@pytest.mark.pdf
def test_every_pdf_is_written_and_nothing_else(built: Path) -> None:
    files = sorted(p.relative_to(built).as_posix() for p in built.rglob("*") if p.is_file())
    assert files == [
        ".bipub-output",  # (the output folder's marker: write/ownership.py)
        "en/blog/alpha/alpha.pdf",
        "ko/blog/alpha/alpha.pdf",
        "pdf/blog/alpha-ko-en.pdf",  # (alpha in both languages side by side: issue 19)
        "pdf/cv-en.pdf",
        "pdf/cv-ko-en.pdf",
        "pdf/cv-ko.pdf",
    ]


@pytest.mark.pdf
def test_korean_and_english_content_is_present(built: Path) -> None:
    ko = text_of(built / "pdf" / "cv-ko.pdf")
    assert "민테스트" in ko and "무언가를 만듭니다." in ko and "락을 샤딩했습니다." in ko
    en = text_of(built / "pdf" / "cv-en.pdf")
    assert "Min Test" in en and "Sharded the lock." in en
    both = text_of(built / "pdf" / "cv-ko-en.pdf")
    for phrase in (
        "락을 샤딩했습니다.",
        "Sharded the lock.",
        "부하 시 멈춤.",
        "Stalls under load.",
    ):
        assert phrase in both
    post = text_of(built / "ko" / "blog" / "alpha" / "alpha.pdf")
    assert "알파 글" in post and "본문입니다." in post and "x = 1" in post
    # the line-breaking pre-pass leaves nothing in the text layer (copy, search)
    extracted = "".join(
        page.extract_text() for page in PdfReader(built / "pdf" / "cv-ko.pdf").pages
    )
    assert "무언가를 만듭니다." in extracted
    assert "\u2060" not in extracted + ko + both


@pytest.mark.pdf
def test_fonts_are_embedded_with_a_real_bold_face(built: Path) -> None:
    for path in sorted(built.rglob("*.pdf")):
        rows = fonts_of(path)
        assert rows, path
        for row in rows:
            emb, sub = row[-5], row[-4]
            assert (emb, sub) == ("yes", "yes"), (path, row)
        names = " ".join(row[0] for row in rows)
        assert "Noto-Sans-CJK-KR-Bold" in names, (path, names)  # not a synthesized bold


@pytest.mark.pdf
def test_tagged_pdf_with_language_metadata_and_outline(built: Path) -> None:
    reader = PdfReader(built / "pdf" / "cv-ko.pdf")
    root = reader.trailer["/Root"]
    assert root["/Lang"] == "ko"
    assert bool(root["/MarkInfo"]["/Marked"])
    assert "/StructTreeRoot" in root
    info = reader.metadata
    assert info is not None
    assert info.title == "민테스트 — 이력서"
    assert info.author == "Min Test (민테스트)"
    assert info.subject == "엔지니어"
    assert info["/CreationDate"] == info["/ModDate"] == "D:20270101000000Z"
    outline = [item.title for item in _flatten(reader.outline)]
    assert outline[0].startswith("민테스트")
    assert "경력" in outline and "Acme" in outline
    assert PdfReader(built / "pdf" / "cv-ko-en.pdf").trailer["/Root"]["/Lang"] == "ko"
    assert PdfReader(built / "pdf" / "cv-en.pdf").trailer["/Root"]["/Lang"] == "en"
    page = reader.pages[0]
    assert [round(float(x)) for x in page.mediabox[2:]] == [595, 842]  # A4


@pytest.mark.pdf
def test_links_are_live(built: Path) -> None:
    reader = PdfReader(built / "pdf" / "cv-en.pdf")
    uris = [
        a.get_object()["/A"]["/URI"]
        for page in reader.pages
        for a in page.get("/Annots", [])
        if "/A" in a.get_object()
    ]
    assert "mailto:min@example.org" in uris
    assert "https://example.org/pr/1" in uris


def _flatten(items: list[object]) -> list[object]:
    out: list[object] = []
    for item in items:
        if isinstance(item, list):
            out.extend(_flatten(item))
        else:
            out.append(item)
    return out


@pytest.mark.pdf
def test_two_builds_are_byte_identical(
    built: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1798761600")
    again = built.parent / "again"
    args = ("-C", str(built.parent), "build", "--only", "pdf", "--no-cache", "--out", str(again))
    result = cli(*args)  # rendered again, not reused
    assert result.exit_code == 0, result.stderr
    for path in sorted(built.rglob("*.pdf")):
        rel = path.relative_to(built)
        assert (again / rel).read_bytes() == path.read_bytes(), rel


# ---------------------------------------------------------------------------- line breaking
PARAGRAPH = (
    "자체 서버가 요청마다 max_model_len만큼의 KV 메모리를 미리 잡아 두어, KV 영역의 61%에 "
    "실제 토큰이 전혀 없었습니다. 피크 시간대에 GPU의 SM이 40% 가까이 놀고 있는데도 요청이 "
    "큐에서 8–12초씩 기다렸습니다. 해결하는 방법은 paged KV cache로 서빙을 이전하는 "
    "것이었습니다. 값은 <code>gpu_memory_utilization</code>을 0.92로 올렸고 "
    "<b>동시 시퀀스</b>는 38에서 104로 늘었습니다."
)


def _narrow_pdf(html_body: str, prepass: bool, tmp_path: Path) -> Path:
    style = (
        "@page { size: A6; margin: 10mm }"
        "body { font-family: 'Noto Sans CJK KR'; font-size: 10pt; width: 42mm }"
        "code { font-family: 'Noto Sans Mono CJK KR' }"
    )
    html = f'<html lang="ko"><head><title>t</title><style>{style}</style></head>'
    html += f"<body><p>{html_body}</p></body></html>"
    if prepass:
        html = korean_line_breaks(html)
    job = PdfJob("narrow.pdf", html, tmp_path.as_uri() + "/", (str(tmp_path),))
    result = render_job(job)
    assert result.data is not None, result.diagnostics
    out = tmp_path / f"narrow-{prepass}.pdf"
    out.write_bytes(result.data)
    return out


def _broken_words(path: Path) -> list[str]:
    """Line-final tokens that are not whole words of the source."""
    words = re.sub(r"<[^>]+>", "", PARAGRAPH).split()
    lines = [line.strip() for line in text_of(path, "-layout").splitlines() if line.strip()]
    tokens = [t for line in lines for t in line.split()]
    assert len(lines) > 8  # the column is narrow: many line breaks to check
    if tokens == words:
        return []
    return [line.split()[-1] for line in lines if line.split()[-1] not in words]


@pytest.mark.pdf
def test_korean_lines_break_only_between_words(tmp_path: Path) -> None:
    assert _broken_words(_narrow_pdf(PARAGRAPH, True, tmp_path)) == []
    # the fixture is sensitive: without the pre-pass WeasyPrint breaks inside words
    assert _broken_words(_narrow_pdf(PARAGRAPH, False, tmp_path))


# ---------------------------------------------------------------------------- failures
@pytest.fixture(autouse=True)
def user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """bipub's user cache (font cmaps, rendered PDFs) in the test's own folder."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    return tmp_path / "user-cache"


@pytest.fixture
def project(make_project: Callable[[str], Path]) -> Path:
    return make_project("minimal")


@pytest.fixture
def alpha_pdf_only(user_cache: Path) -> Iterator[list[str]]:
    """Builds render the Korean post's PDF (`_add_pdf_post`'s, the one a test reads or expects
    to fail) with WeasyPrint, and a placeholder for the Korean CV's, which no such test opens
    (tests/_shared_builds.py); the list gets the PDFs rendered for real."""
    with some_real_pdfs(("ko/blog/alpha/alpha.pdf",), user_cache) as rendered:
        yield rendered


def _add_pdf_post(root: Path, body: str, raw_html: bool = False) -> int:
    """Opt the Korean post alpha in to a PDF and append `body`; returns the body's line."""
    post = root / "content" / "ko" / "posts" / "alpha.md"
    text = post.read_text(encoding="utf-8").replace("---\n", "---\npdf: true\n", 1)
    post.write_text(text + "\n" + body + "\n", encoding="utf-8")
    line = text.count("\n") + 2
    if raw_html:
        config = root / "bipub.yaml"
        config.write_text(
            config.read_text(encoding="utf-8") + "outputs:\n  raw_html: true\n", encoding="utf-8"
        )
    return line


@pytest.mark.pdf
def test_uncovered_character_fails_naming_it(project: Path, cli: Cli) -> None:
    cv = project / "content" / "ko" / "cv.yaml"
    cv.write_text(
        cv.read_text(encoding="utf-8").replace("무언가를 만듭니다.", "무언가를 🧪 만듭니다."),
        encoding="utf-8",
    )
    result = cli("-C", str(project), "build", "--only", "pdf")
    assert result.exit_code == 1
    err = result.stderr
    assert "content/ko/cv.yaml:2:" in err
    assert "U+1F9EA '🧪' TEST TUBE" in err
    assert "pdf/cv-ko.pdf" in err and "at summary" in err
    assert "무언가를 🧪 만듭니다." in err
    assert not (project / "site").exists()  # nothing was written


@pytest.mark.pdf
def test_uncovered_character_in_a_post_names_file_and_line(project: Path, cli: Cli) -> None:
    _add_pdf_post(project, "사용자 영역 \ue000 문자.")
    result = cli("-C", str(project), "build", "--only", "pdf", "--lang", "ko")
    assert result.exit_code == 1
    assert re.search(r"content/ko/posts/alpha\.md:\d+: U\+E000 is in no font", result.stderr)
    assert "ko/blog/alpha/alpha.pdf" in result.stderr


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any connection attempt fails loudly (the forked render workers inherit this)."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"network access attempted: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


@pytest.mark.pdf
@pytest.mark.parametrize(
    ("body", "raw_html", "named", "reason"),
    [
        ('<img src="file:///etc/passwd" alt="x">', True, "file:///etc/passwd", "outside"),
        # resolved as on the published page: /outside.png, served from static/ (not there):
        # since issue 19 a missing local image stops the build at pairing, before any PDF
        ("![x](../../../../outside.png)", False, "static/outside.png", "no such file"),
        (
            "![x](http://169.254.169.254/x.png)",
            False,
            "http://169.254.169.254/x.png",
            "http URLs are not fetched",
        ),
        ("![x](%2e%2e/%2e%2e/%2e%2e/secret.png)", False, "static/secret.png", "no such file"),
    ],
)
@pytest.mark.usefixtures("no_network", "alpha_pdf_only")
def test_unsafe_resources_fail_the_build_at_the_line_that_wrote_them(
    project: Path, cli: Cli, body: str, raw_html: bool, named: str, reason: str
) -> None:
    (project.parent / "outside.png").write_bytes(b"\x89PNG")
    line = _add_pdf_post(project, body, raw_html)
    result = cli("-C", str(project), "build", "--only", "pdf", "--lang", "ko")
    assert result.exit_code == 1, result.stderr
    error = next(x for x in result.stderr.splitlines() if named in x)
    assert error.startswith(f"content/ko/posts/alpha.md:{line}: "), error
    if reason != "no such file":  # (pairing's error: no PDF was made)
        assert error.endswith("(in ko/blog/alpha/alpha.pdf)")
    assert reason in error
    assert "symbolic link" not in error
    assert "network access attempted" not in result.stderr


def pdf_urls(path: Path) -> list[str]:
    """The link URLs of a PDF, as poppler reads them back (`pdfinfo -url`)."""
    out = subprocess.run(
        ["pdfinfo", "-url", str(path)], capture_output=True, text=True, check=True
    ).stdout
    return [line.split()[-1] for line in out.splitlines()[1:] if line.strip()]


@pytest.mark.pdf
@pytest.mark.skipif(shutil.which("pdfinfo") is None, reason="needs poppler-utils' pdfinfo")
def test_links_are_absolute_urls_under_base_url_and_site_images_load(
    project: Path, cli: Cli
) -> None:
    from PIL import Image

    (project / "static" / "assets").mkdir(parents=True)
    Image.new("RGB", (20, 10), "navy").save(project / "static" / "assets" / "x.png")
    _add_pdf_post(
        project,
        "[root](/en/blog/alpha/) [relative](../beta/) [mail](mailto:a@b.org)\n\n"
        "![an image the CV may use too](/assets/x.png)",
    )
    result = cli("-C", str(project), "build", "--only", "pdf", "--lang", "ko")
    assert result.exit_code == 0, result.stderr
    post = project / "site" / "ko" / "blog" / "alpha" / "alpha.pdf"
    urls = pdf_urls(post)
    assert "https://test.example.org/en/blog/alpha/" in urls  # root-relative
    assert "https://test.example.org/ko/blog/beta/" in urls  # relative to the post's page
    assert "mailto:a@b.org" in urls
    for pdf_file in (post, project / "site" / "pdf" / "cv-ko.pdf"):
        assert not [u for u in pdf_urls(pdf_file) if not u.startswith(("https:", "mailto:"))]
        assert b"file:" not in pdf_file.read_bytes()
    images = subprocess.run(
        ["pdfimages", "-list", str(post)], capture_output=True, text=True, check=True
    ).stdout
    assert len(images.splitlines()) == 3  # header, rule, the image


@pytest.mark.pdf
@pytest.mark.usefixtures("alpha_pdf_only")
def test_attachments_are_refused(project: Path, cli: Cli) -> None:
    _add_pdf_post(project, '<link rel="attachment" href="secret.txt">', raw_html=True)
    result = cli("-C", str(project), "build", "--only", "pdf", "--lang", "ko")
    assert result.exit_code == 1
    assert "ko/blog/alpha/alpha.pdf: attachments (rel=attachment) are not allowed" in result.stderr


@pytest.mark.pdf
def test_symlink_escape_fails_the_build(project: Path, cli: Cli) -> None:
    (project.parent / "secret.png").write_bytes(b"\x89PNG")
    (project / "static" / "media").mkdir(parents=True)
    (project / "static" / "media" / "pic.png").symlink_to(project.parent / "secret.png")
    line = _add_pdf_post(project, "![x](/media/pic.png)")
    result = cli("-C", str(project), "build", "--only", "pdf", "--lang", "ko")
    assert result.exit_code == 1
    # refused where the post names it, before anything reads the file (issue 19's image sizes
    # would otherwise open it; the PDF's own fetch refuses it too: test_pdf_fetch)
    assert (
        f"content/ko/posts/alpha.md:{line}: image /media/pic.png: static/media/pic.png: "
        "symbolic links are not followed"
    ) in result.stderr


# ---------------------------------------------------------------------------- build options
def test_partial_build_writes_no_bilingual_pdf_and_keeps_it(
    project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (placeholder PDFs: what is rendered and kept, not what a PDF holds)
    assert cli("-C", str(project), "build", "--only", "pdf").exit_code == 0
    bilingual = project / "site" / "pdf" / "cv-ko-en.pdf"
    before = bilingual.read_bytes()
    rendered: list[str] = []
    real = documents.run_jobs

    def spy(jobs: list[PdfJob], *args: object, **kwargs: object) -> list[PdfResult]:
        rendered.extend(job.document for job in jobs)
        return real(jobs, *args, **kwargs)

    monkeypatch.setattr(documents, "run_jobs", spy)
    # --no-cache: every PDF of the build is rendered, so `rendered` names them all
    result = cli("-C", str(project), "build", "--only", "pdf", "--lang", "en", "--no-cache")
    assert result.exit_code == 0, result.stderr
    assert "pdf/cv-en.pdf" in rendered and not [d for d in rendered if "ko" in d], rendered
    assert bilingual.read_bytes() == before  # owned by no single language: kept as it was


@pytest.mark.pdf
def test_only_keeps_the_other_kinds_and_letter_paper(project: Path, cli: Cli) -> None:
    config = project / "bipub.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "pdf:\n  page_size: Letter\n", encoding="utf-8"
    )
    assert cli("-C", str(project), "build", "--only", "json").exit_code == 0
    site = project / "site"
    json_files = sorted(p.relative_to(site) for p in site.rglob("*.json"))
    assert json_files
    assert not list(site.rglob("*.pdf"))
    result = cli("-C", str(project), "build", "--only", "pdf", "--lang", "en")
    assert result.exit_code == 0, result.stderr
    assert sorted(p.relative_to(site) for p in site.rglob("*.json")) == json_files
    page = PdfReader(site / "pdf" / "cv-en.pdf").pages[0]
    assert [round(float(x)) for x in page.mediabox[2:]] == [612, 792]  # US Letter


@pytest.mark.pdf
def test_slow_subsetting_is_a_warning_and_an_error_under_strict(
    project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, user_cache: Path
) -> None:
    monkeypatch.setattr(documents, "fast_subsetting_available", lambda: False)
    message = "fast font subsetting unavailable (install libharfbuzz-subset0)"
    result = cli("-C", str(project), "build", "--only", "pdf", "--lang", "en")
    assert result.exit_code == 0
    assert f"warning: {message}" in result.stderr
    shutil.rmtree(user_cache / "bipub" / "pdf")  # checked when something is rendered
    strict = cli("-C", str(project), "build", "--only", "pdf", "--lang", "en", "--strict")
    assert strict.exit_code == 1
    assert message in strict.stderr and "(--strict)" in strict.stderr


def test_site_pages_link_their_pdfs(project: Path) -> None:
    from bipub.diagnostics import Collector
    from bipub.pipeline import load, pair
    from bipub.project import Project
    from bipub.render.urls import UrlBuilder

    collector = Collector()
    config, content = load(Project(project), collector)
    site = pair(Project(project), config, content, collector)
    links = pdf.pdf_links(site, "en", UrlBuilder("https://test.example.org/sub/"))
    assert links == [
        {"label": "English", "lang": "en", "href": "/sub/pdf/cv-en.pdf"},
        {"label": "한국어", "lang": "ko", "href": "/sub/pdf/cv-ko.pdf"},
        {
            "label": "한국어 + English",
            "lang": "ko-en",
            "href": "/sub/pdf/cv-ko-en.pdf",
            "names": [("ko", "한국어"), ("en", "English")],  # (each its `lang`: session 29)
        },
    ]


@pytest.mark.pdf
def test_unchanged_pdfs_are_reused_and_a_changed_image_renders_again(
    project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PIL import Image

    # a relative image is served from static/ at the page's URL (docs/content.md): where the
    # published page finds it, the PDF does too
    image = project / "static" / "ko" / "blog" / "alpha" / "chart.png"
    image.parent.mkdir(parents=True)
    Image.new("RGB", (40, 20), "navy").save(image)
    _add_pdf_post(project, "![차트](chart.png)")
    assert cli("-C", str(project), "build", "--only", "pdf", "--lang", "ko").exit_code == 0
    post = project / "site" / "ko" / "blog" / "alpha" / "alpha.pdf"
    first = post.read_bytes()

    rendered: list[str] = []
    real = documents.run_jobs

    def spy(jobs: list[PdfJob], workers: int = WORKERS) -> list[PdfResult]:
        rendered.extend(job.document for job in jobs)
        return real(jobs, workers)

    monkeypatch.setattr(documents, "run_jobs", spy)
    assert cli("-C", str(project), "build", "--only", "pdf", "--lang", "ko").exit_code == 0
    assert rendered == []  # nothing changed: every PDF came from .bipub-cache/pdf
    assert post.read_bytes() == first

    Image.new("RGB", (40, 20), "darkred").save(image)
    assert cli("-C", str(project), "build", "--only", "pdf", "--lang", "ko").exit_code == 0
    assert rendered == ["ko/blog/alpha/alpha.pdf"]  # the image it read changed
    assert post.read_bytes() != first


@pytest.mark.pdf
@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler-utils")
def test_a_post_with_a_footnote_builds_its_pdf(
    project: Path, cli: Cli, alpha_pdf_only: list[str]
) -> None:
    """markdown-it's way back from a footnote is ↩︎ (U+21A9), in no CJK font: the font check
    stopped every `pdf: true` post with a footnote. The PDF draws ↑ instead."""
    _add_pdf_post(project, "각주가 있는 문장[^1].\n\n[^1]: 각주 내용.")
    result = cli("-C", str(project), "build", "--only", "pdf", "--lang", "ko")
    assert result.exit_code == 0, result.stderr
    text = subprocess.run(
        ["pdftotext", str(project / "site/ko/blog/alpha/alpha.pdf"), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "각주 내용. ↑" in text
    assert alpha_pdf_only == ["ko/blog/alpha/alpha.pdf"]
