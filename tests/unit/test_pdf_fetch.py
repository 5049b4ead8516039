"""What the PDF renderer may read (render/pdf/fetch.py) and how WeasyPrint's log is judged
(render/pdf/log.py; tests/unit/test_pdf_log.py has the messages of the real WeasyPrint)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bipub.diagnostics import DiagnosticError, Severity
from bipub.render.pdf.fetch import BlockedURL, check_url, decode_data_url
from bipub.render.pdf.jobs import build_time, w3c
from bipub.render.pdf.log import classify


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "img").mkdir(parents=True)
    (root / "img" / "a.png").write_bytes(b"png")
    (tmp_path / "secret.png").write_bytes(b"secret")
    return root


def test_files_inside_the_project_are_allowed(project: Path) -> None:
    kind, path = check_url((project / "img" / "a.png").as_uri(), [str(project)])
    assert kind == "file" and path == (project / "img" / "a.png").resolve()
    # percent-encoded and Korean names resolve like the file system does
    (project / "img" / "한글 이름.png").write_bytes(b"png")
    url = (project / "img" / "한글 이름.png").as_uri()
    assert "%" in url
    assert check_url(url, [str(project)])[0] == "file"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("file:///etc/passwd", "outside the project"),
        ("http://169.254.169.254/x.png", "http URLs are not fetched"),
        ("https://example.org/x.png", "https URLs are not fetched"),
        ("ftp://example.org/x.png", "ftp URLs are not fetched"),
        ("about:blank", "about URLs are not fetched"),
        ("file://otherhost/etc/passwd", "another host"),
        ("data:text/html,<b>x</b>", "only data: URLs of"),
    ],
)
def test_everything_else_is_refused(project: Path, url: str, reason: str) -> None:
    with pytest.raises(BlockedURL, match=reason):
        check_url(url, [str(project)])


def test_dot_dot_and_symlinks_cannot_escape(project: Path, tmp_path: Path) -> None:
    escape = (project / "img").as_uri() + "/../../secret.png"
    with pytest.raises(BlockedURL, match="outside the project"):
        check_url(escape, [str(project)])
    (project / "img" / "link.png").symlink_to(tmp_path / "secret.png")
    with pytest.raises(BlockedURL, match="symbolic link"):
        check_url((project / "img" / "link.png").as_uri(), [str(project)])
    # a link that stays inside is fine
    (project / "img" / "inside.png").symlink_to(project / "img" / "a.png")
    assert check_url((project / "img" / "inside.png").as_uri(), [str(project)])[0] == "file"


def test_missing_files_are_errors_too(project: Path) -> None:
    with pytest.raises(BlockedURL, match="not found"):
        check_url((project / "img" / "nope.png").as_uri(), [str(project)])


def test_data_images_are_allowed_and_decoded(project: Path) -> None:
    url = "data:image/png;base64,aGVsbG8="
    assert check_url(url, [str(project)]) == ("data", None)
    assert decode_data_url(url) == ("image/png", b"hello")
    assert decode_data_url("data:image/svg+xml,%3Csvg%3E") == ("image/svg+xml", b"<svg>")


@pytest.mark.parametrize(
    ("message", "severity", "code"),
    [
        (
            '.notdef glyph rendered for Unicode string unsupported by fonts: "🧪" (U+1F9EA)',
            Severity.ERROR,
            "pdf-glyph",
        ),
        ("Failed to load image at 'x.png': ValueError: nope", Severity.ERROR, "pdf-fetch"),
        ("Failed to load stylesheet at x.css: boom", Severity.ERROR, "pdf-fetch"),
        ("Font-face 'x' cannot be loaded", Severity.ERROR, "pdf-fetch"),
        (
            "Ignored `word-break: keep-all` at 3:5, invalid value.",
            Severity.ERROR,
            "pdf-css",
        ),
        ("Ignored `size: A9` at 1:1, invalid value.", Severity.ERROR, "pdf-css"),
        ("Ignored `colour: red` at 1:1, unknown property.", Severity.WARNING, "pdf-weasyprint"),
        ("Ignored `color: rd` at 1:1, invalid value.", Severity.WARNING, "pdf-weasyprint"),
        (
            'Using fontTools instead of HarfBuzz-Subset for font "Noto". This will be ...',
            Severity.WARNING,
            "pdf-subsetting",
        ),
        ("Anchor defined twice: 'x'", Severity.WARNING, "pdf-weasyprint"),
    ],
)
def test_weasyprint_messages_are_judged(message: str, severity: Severity, code: str) -> None:
    assert classify(message) == (severity, code)


def test_build_time_comes_from_source_date_epoch() -> None:
    moment = build_time({"SOURCE_DATE_EPOCH": "1775520000"})
    assert moment is not None and w3c(moment) == "2026-04-07T00:00:00Z"
    assert build_time({}) is None
    with pytest.raises(DiagnosticError, match="SOURCE_DATE_EPOCH"):
        build_time({"SOURCE_DATE_EPOCH": "yesterday"})
    with pytest.raises(DiagnosticError, match="SOURCE_DATE_EPOCH"):  # (out of the calendar)
        build_time({"SOURCE_DATE_EPOCH": "99999999999999"})


def test_weasyprint_is_not_imported_by_the_cli_or_the_pdf_module() -> None:
    import subprocess
    import sys

    code = (
        "import sys, bipub.cli, bipub.render.pdf, bipub.render.html; "
        "print('weasyprint' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ
    )
    assert out.stdout.strip() == "False"


# -- URLs of the site (issue 16 #11, #13) -----------------------------------------------------
SITE = "https://example.org/"


@pytest.fixture
def mounts(project: Path) -> tuple[tuple[str, str], ...]:
    from bipub.render.pdf.fetch import site_mounts

    (project / "static" / "assets").mkdir(parents=True)
    (project / "static" / "assets" / "x.png").write_bytes(b"png")
    (project / "content").mkdir()
    (project / "content" / "chart.png").write_bytes(b"png")
    theme = project.parent / "theme-static"
    theme.mkdir()
    (theme / "site.css").write_text("p {}")
    page = (SITE + "ko/blog/alpha/", project / "content")
    return site_mounts(SITE, project / "static", theme, page)


def test_site_urls_load_from_static_the_theme_and_the_posts_folder(
    project: Path, mounts: tuple[tuple[str, str], ...]
) -> None:
    assert check_url(SITE + "assets/x.png", [str(project)], mounts) == (
        "file",
        (project / "static" / "assets" / "x.png").resolve(),
    )
    assert (
        check_url(SITE + "assets/site.css", [], mounts)[1]
        == (project.parent / "theme-static" / "site.css").resolve()
    )
    assert (
        check_url(SITE + "ko/blog/alpha/chart.png", [], mounts)[1]
        == (project / "content" / "chart.png").resolve()
    )


def test_a_missing_site_file_says_where_it_looked(
    project: Path, mounts: tuple[tuple[str, str], ...]
) -> None:
    with pytest.raises(BlockedURL, match=r"file not found \(looked for static/nope\.png\)"):
        check_url(SITE + "nope.png", [str(project)], mounts, str(project))


@pytest.mark.parametrize("dots", ["..", "%2e%2e", "%2E."])
def test_dot_dot_in_a_site_url_is_named_as_such(
    project: Path, mounts: tuple[tuple[str, str], ...], dots: str
) -> None:
    with pytest.raises(BlockedURL) as caught:
        check_url(f"{SITE}ko/blog/alpha/{dots}/{dots}/{dots}/secret.png", [], mounts)
    assert "'..' segment" in str(caught.value) and "symbolic link" not in str(caught.value)


def test_dot_dot_in_a_file_url_is_not_called_a_symbolic_link(project: Path) -> None:
    url = (project / "img").as_uri() + "/%2e%2e/%2e%2e/secret.png"
    with pytest.raises(BlockedURL) as caught:
        check_url(url, [str(project)])
    assert "'..' segment (written %2e%2e)" in str(caught.value)
    assert "symbolic link" not in str(caught.value)


def test_a_symbolic_link_out_of_static_is_refused(
    project: Path, tmp_path: Path, mounts: tuple[tuple[str, str], ...]
) -> None:
    (project / "static" / "leak.png").symlink_to(tmp_path / "secret.png")
    with pytest.raises(BlockedURL, match="is a symbolic link to"):
        check_url(SITE + "leak.png", [str(project)], mounts, str(project))
