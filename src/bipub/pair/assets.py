"""References to local files that do not exist: CV images and Markdown images.

A CV `logo` or award `image`, or a Markdown image, that names a site path (`/assets/logo.svg`,
`../img.png`) is served from the project's `static/` folder (or the theme's `assets/`). When that
file is not there the page shows an empty box and the server answers 404, so each such reference
is a build warning (`missing-asset`; an error under `--strict`) naming the line of the source
file that wrote it — not the output HTML. Remote URLs (http:, https:, //host, data:) are not
checked here (`bipub check --links` does).
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from markdown_it import MarkdownIt

from bipub.diagnostics import Collector
from bipub.load.content import Content, CvFile, Document

THEME_STATIC = Path(__file__).resolve().parent.parent / "theme" / "static"
CV_IMAGE_FIELDS = {("experience", "logo"), ("awards", "image")}
_HAS_IMAGE = re.compile(r"!\[")


def check_assets(root: Path, content: Content, collector: Collector) -> None:
    """Warn about every CV image and Markdown image that names a missing local file."""
    files = _StaticFiles(root / "static")
    for cv in content.cv.values():
        for line, ref in _cv_images(cv):
            missing = files.missing(ref, "/")
            if missing is not None:
                collector.warning(
                    cv.rel,
                    line,
                    "missing-asset",
                    f"{ref}: no such file (looked for {missing})",
                    key=ref,
                )
    for doc in content.documents:
        check_document_assets(root, doc, collector, files)


def check_document_assets(
    root: Path, doc: Document, collector: Collector, files: _StaticFiles | None = None
) -> None:
    """Warn about the Markdown images of one document that name a missing local file."""
    if not _HAS_IMAGE.search(doc.body):
        return
    files = files or _StaticFiles(root / "static")
    base = _page_path(doc)
    for line, ref in markdown_images(doc.body, doc.body_line):
        missing = files.missing(ref, base)
        if missing is not None:
            collector.warning(
                doc.rel, line, "missing-asset", f"image {ref}: no such file (looked for {missing})"
            )


def _cv_images(cv: CvFile) -> Iterator[tuple[int | None, str]]:
    data: Any = cv.raw
    for section, name in sorted(CV_IMAGE_FIELDS):
        items = data.get(section)
        if not isinstance(items, list):
            continue
        for i, item in enumerate(items):
            if isinstance(item, dict) and isinstance(item.get(name), str) and item[name].strip():
                yield cv.yaml.line_for((section, i, name)), item[name].strip()


def _page_path(doc: Document) -> str:
    """The URL path a document's page is at (relative images resolve against it)."""
    slug = doc.meta.slug or doc.name.rsplit("/", 1)[-1]
    return f"/{doc.lang}/blog/{slug}/" if doc.kind == "posts" else f"/{doc.lang}/{slug}/"


def markdown_images(body: str, body_line: int) -> list[tuple[int, str]]:
    """(line, src) of every image in a Markdown body (code spans and blocks excluded)."""
    tokens = _parser().parse(body)
    lines = body.splitlines()
    out: list[tuple[int, str]] = []
    for token in tokens:
        if token.type != "inline" or not token.children:
            continue
        start, end = token.map if token.map else (0, 1)
        for child in token.children:
            if child.type != "image":
                continue
            src = str(child.attrs.get("src", ""))
            line = start
            for n in range(start, min(end, len(lines))):  # the line that writes it, if found
                if src in lines[n] or unquote(src) in lines[n]:
                    line = n
                    break
            out.append((body_line + line, src))
    return out


@lru_cache(maxsize=1)
def _parser() -> Any:

    md = MarkdownIt("commonmark", {"html": False})
    md.enable(["table", "strikethrough"])
    return md


class _StaticFiles:
    """Which site paths the build serves from static/ and the theme's assets."""

    def __init__(self, static: Path) -> None:
        self.static = static

    def missing(self, ref: str, base: str) -> str | None:
        """None when `ref` is remote or its file exists; else where it was looked for."""
        parts = urlsplit(ref)
        if parts.scheme or parts.netloc or not parts.path:
            return None  # remote, data:, mailto: or a bare #fragment
        path = unicodedata.normalize("NFC", unquote(parts.path))
        site_path = posixpath.normpath(posixpath.join(base, path))
        rel = site_path.lstrip("/")
        if not rel or rel.startswith(".."):
            return f"static/{rel}"
        if (self.static / rel).is_file():
            return None
        if rel.startswith("assets/") and (THEME_STATIC / rel.removeprefix("assets/")).is_file():
            return None
        return f"static/{rel}"
