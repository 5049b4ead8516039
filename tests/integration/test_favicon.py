"""Session 29: a site has an icon. Browsers ask every host for /favicon.ico (and got a 404 in
`bipub serve` and on a static host); the theme's default is published there and linked from
every page (under the site's path, for a base_url with one), and a project's
static/favicon.ico replaces it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from bipub.pipeline import build
from bipub.render.templates import THEME_DIR

ICO = b"\x00\x00\x01\x00"  # the ICO header: reserved 0, type 1 (icon)


def test_the_theme_icon_is_published_and_linked_from_every_page(
    make_project: Callable[[str], Path],
) -> None:
    project = make_project("minimal")
    build(project, only={"html"})
    site = project / "site"
    icon = (site / "favicon.ico").read_bytes()
    assert icon.startswith(ICO) and icon == (THEME_DIR / "root" / "favicon.ico").read_bytes()
    pages = sorted(site.rglob("*.html"))
    assert site / "index.html" in pages and site / "404.html" in pages
    unlinked = [
        p.relative_to(site).as_posix()
        for p in pages
        if '<link rel="icon" href="/favicon.ico">' not in p.read_text(encoding="utf-8")
    ]
    assert unlinked == []


def test_a_site_under_a_path_links_its_own_icon(make_project: Callable[[str], Path]) -> None:
    project = make_project("minimal")
    config = project / "bipub.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(re.sub(r"base_url: .*", "base_url: https://host.example/blog/", text))
    build(project, only={"html"})
    page = (project / "site" / "ko" / "index.html").read_text(encoding="utf-8")
    assert '<link rel="icon" href="/blog/favicon.ico">' in page


def test_the_projects_favicon_replaces_the_themes(make_project: Callable[[str], Path]) -> None:
    project = make_project("minimal")
    own = ICO + b"\x01\x00" + b"mine"
    (project / "static").mkdir(exist_ok=True)
    (project / "static" / "favicon.ico").write_bytes(own)
    build(project, only={"html"})
    assert (project / "site" / "favicon.ico").read_bytes() == own
