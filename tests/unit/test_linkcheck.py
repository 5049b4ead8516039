from __future__ import annotations

from pathlib import Path

from bipub.linkcheck import check_links


def write(site: Path, rel: str, html: str) -> None:
    path = site / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html, encoding="utf-8")


def test_broken_links_and_anchors_are_reported_with_lines(tmp_path: Path) -> None:
    site = tmp_path / "site"
    write(site, "ko/index.html", '<h2 id="h-a">A</h2>\n<a href="/ko/blog/">blog</a>')
    write(
        site,
        "ko/blog/index.html",
        "\n".join(
            [
                '<a href="/ko/">ok</a>',
                '<a href="/ko/#h-a">ok anchor</a>',
                '<a href="/ko/#h-missing">bad anchor</a>',
                '<a href="../missing/">bad relative</a>',
                '<img src="/assets/none.png" alt="">',
                '<a href="https://other.example/x">external</a>',
                '<a href="https://me.example/ko/">own absolute</a>',
                '<a href="https://me.example/nope/">own absolute broken</a>',
                '<a href="mailto:a@b">mail</a>',
                '<a href="#local">local missing</a>',
                '<a href="/%ED%95%9C/">encoded korean</a>',
            ]
        ),
    )
    write(site, "한/index.html", "<p>ok</p>")
    found = sorted((d.line, d.code, d.message) for d in check_links(site, "https://me.example/"))
    assert [(line, code) for line, code, _ in found] == [
        (3, "anchor"),
        (4, "link"),
        (5, "link"),
        (8, "link"),
        (10, "anchor"),
    ]
