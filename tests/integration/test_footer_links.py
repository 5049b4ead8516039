"""Every link of the site's footer leads to a file the build wrote: the "JSON API" link named
the CV's JSON on every site, and a blog without a CV has none (`bipub check --links` called it
broken on every page)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CliResult

FOOTER = re.compile(r'<footer class="site-footer">(.*?)</footer>', re.S)
HREF = re.compile(r'href="([^"]+)"')


def _footer_targets(site: Path, page: str) -> dict[str, Path]:
    html = (site / page).read_text(encoding="utf-8")
    footer = FOOTER.search(html)
    assert footer is not None
    targets = {}
    for href in HREF.findall(footer.group(1)):
        if href.startswith(("http://", "https://", "mailto:")):
            continue
        path = site / href.lstrip("/")
        targets[href] = path / "index.html" if href.endswith("/") else path
    return targets


@pytest.mark.parametrize("with_cv", [True, False])
def test_every_footer_link_is_a_file_of_the_site(
    with_cv: bool, make_project: Callable[[str], Path], cli: Callable[..., CliResult]
) -> None:
    root = make_project("minimal")
    if not with_cv:
        for lang in ("en", "ko"):
            (root / "content" / lang / "cv.yaml").unlink()
        config = root / "bipub.yaml"
        config.write_text(config.read_text(encoding="utf-8") + "home: blog\n", encoding="utf-8")
    result = cli(
        "-C",
        str(root),
        "-q",
        "build",
        "--only",
        "html",
        "--only",
        "json",
        "--only",
        "feeds",
        "--only",
        "llms",
    )
    assert result.exit_code == 0, result.stderr
    site = root / "site"
    for lang in ("en", "ko"):
        targets = _footer_targets(site, f"{lang}/index.html")
        api = [href for href in targets if "/api/" in href]
        assert api == [f"/api/{lang}/{'cv' if with_cv else 'posts'}.json"]
        # (the CV's PDFs are not rendered here: tests/integration/test_pdf.py looks at them)
        missing = [
            href for href, path in targets.items() if not path.is_file() and path.suffix != ".pdf"
        ]
        assert missing == [], f"footer links to files the build did not write: {missing}"
