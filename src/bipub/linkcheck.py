"""Check the built site's internal links: every href and src resolves, every #anchor exists.

Runs over the output folder after a build (`bipub check --links`, and the tests on the demo).
External links (other hosts) are not fetched: bipub never touches the network.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from bipub.diagnostics import Diagnostic

if TYPE_CHECKING:
    from bipub.load.content import Document

_LINK_ATTRS = {
    ("a", "href"),
    ("link", "href"),
    ("img", "src"),
    ("script", "src"),
    ("source", "src"),
}


@dataclass
class _Page:
    ids: set[str] = field(default_factory=set)
    links: list[tuple[str, int]] = field(default_factory=list)  # (url, line)


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = _Page()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        line = self.getpos()[0]
        for name, value in attrs:
            if value is None:
                continue
            if name in ("id", "name") and (name == "id" or tag == "a"):
                self.page.ids.add(value)
            if (tag, name) in _LINK_ATTRS:
                if tag == "link" and not _is_navigational(attrs):
                    continue
                self.page.links.append((value, line))
            if tag == "img" and name == "srcset":
                for part in value.split(","):
                    if part.strip():
                        self.page.links.append((part.strip().split()[0], line))


def _is_navigational(attrs: list[tuple[str, str | None]]) -> bool:
    rel = dict(attrs).get("rel") or ""
    # canonical/alternate point at absolute URLs on the real host; stylesheets and icons are local
    return any(r in rel.split() for r in ("stylesheet", "icon", "alternate", "canonical"))


def _parse(path: Path) -> _Page:
    parser = _Collector()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    parser.close()
    return parser.page


@dataclass(frozen=True)
class Broken:
    """A broken link or anchor of one built page."""

    page: str  # the page's path inside the site (`ko/blog/a/index.html`)
    line: int  # its line in the page
    url: str  # as the page writes it
    code: str  # `link` or `anchor`
    message: str
    path: str  # the site path it points to (`/ko/blog/b/`)
    fragment: str  # its #anchor, decoded ("" without one)

    def diagnostic(self, label: str) -> Diagnostic:
        """The finding at its built page, named `label`/page."""
        return Diagnostic(f"{label}/{self.page}", self.line, self.code, self.message)


def check_links(site: Path, base_url: str, label: str = "site") -> list[Diagnostic]:
    """All broken internal links and anchors of the HTML files under `site`.

    Diagnostics name files as `<label>/<path inside the site>` (commands/links.py names the
    source files that write them instead: commands/link_sources.py)."""
    return [broken.diagnostic(label) for broken in find_broken(site, base_url)]


def find_broken(site: Path, base_url: str) -> list[Broken]:
    """All broken internal links and anchors of the HTML files under `site`, page by page."""
    base = urlsplit(base_url)
    prefix = base.path.rstrip("/")
    pages: dict[str, _Page] = {}
    for path in sorted(site.rglob("*.html")):
        pages[path.relative_to(site).as_posix()] = _parse(path)
    problems: list[Broken] = []
    for rel, page in pages.items():
        here = "/" + rel
        for url, line in page.links:
            target = _internal_target(url, here, base.netloc, prefix)
            if target is None:
                continue
            url_path, fragment = target
            file_rel = _file_for(site, url_path)
            if file_rel is None:
                message = f"broken link {url!r}: no {url_path}"
                problems.append(Broken(rel, line, url, "link", message, url_path, fragment))
                continue
            if fragment and file_rel.endswith(".html"):
                target_page = pages.get(file_rel)
                if target_page is not None and fragment not in target_page.ids:
                    message = f"broken anchor {url!r}: {file_rel} has no id {fragment!r}"
                    heading = "h-" + fragment  # a heading's id has bipub's prefix (and its
                    ids = target_page.ids  # column's language's on a side-by-side page)
                    if heading in ids or any(i.endswith("-" + heading) for i in ids):
                        message += f" (a heading's id starts with h-: '#{heading}')"
                    problems.append(Broken(rel, line, url, "anchor", message, url_path, fragment))
    return problems


def resolve(url: str, here: str, base_url: str) -> tuple[str, str] | None:
    """The site path and #anchor a link of the page at site path `here` points to, or None
    for a link outside the site (another host, mailto:, …)."""
    base = urlsplit(base_url)
    return _internal_target(url, here, base.netloc, base.path.rstrip("/"))


def _internal_target(url: str, here: str, host: str, prefix: str) -> tuple[str, str] | None:
    parts = urlsplit(url.strip())
    if parts.scheme in ("mailto", "tel", "data", "javascript", "about"):
        return None
    if (parts.scheme in ("http", "https") or parts.netloc) and parts.netloc != host:
        return None  # another site: not checked (no network)
    path = unquote(parts.path)
    if not path:
        path = here
    elif not path.startswith("/"):
        path = posixpath.join(posixpath.dirname(here), path)
    elif prefix and path.startswith(prefix + "/"):
        path = path[len(prefix) :]
    normal = posixpath.normpath(path) + ("/" if path.endswith("/") and path != "/" else "")
    return normal, unquote(parts.fragment)


def _file_for(site: Path, path: str) -> str | None:
    rel = path.lstrip("/")
    candidates = (
        [rel + "index.html"] if rel.endswith("/") or rel == "" else [rel, rel + "/index.html"]
    )
    for candidate in candidates:
        if ".." in candidate.split("/"):
            return None
        target = site / candidate
        if target.is_file():
            return candidate
    return None


def written_links(doc: Document, raw_html: bool) -> list[tuple[str, int]]:
    """Every link and image target of a document's Markdown (as markdown-it normalized it),
    with the line of the file that writes it (commands/link_sources.py names the source of a
    broken link with it; scheduled_links.py reads the links to scheduled posts)."""
    from bipub.render.markdown import parse  # (the render's parser: only when asked)
    from bipub.render.markdown_sections import link_targets

    lines = doc.body.split("\n")
    out = []
    for token in parse(doc.body, raw_html):
        if token.map is None:
            continue
        for value in link_targets(token):
            out.append((value, doc.body_line + _find(value, lines, *token.map)))
    return out


def _find(target: str, lines: list[str], start: int, end: int) -> int:
    """The (0-based) line of the block's lines `start`…`end` that writes `target`, else the
    first line of the body that does (a reference definition), else the block's first."""
    needles = {target, unquote(target), unescape(target)}
    for rows in (range(start, end), range(len(lines))):
        for i in rows:
            if any(needle in lines[i] for needle in needles):
                return i
    return start
