"""Where the broken links of a built site are written: the source file and line to edit.

`bipub check --links` finds broken links in the built pages (linkcheck.py); a user edits the
sources, not `site/ko/blog/a/index.html:212`. For each broken link this loads the project (only
when something is broken), finds the documents the page shows (a post's page: its text in that
language, or the original it falls back to; the side-by-side page: both; a page) and the one
whose Markdown links to the same target, at the line that writes it. A broken link written in
several pages' sources once (the post page, its side-by-side page, the other language's page
that falls back to it) is one finding that names those pages. A link no source writes (the
theme's templates make it, or the page was changed after the build) keeps the built page's
name, and the message says so.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from bipub.diagnostics import Collector, Diagnostic, DiagnosticError, Severity
from bipub.linkcheck import Broken, resolve, written_links
from bipub.render import urls
from bipub.scheduled_links import CODE, Later, now_scheduled, scheduled_folders, scheduled_link

if TYPE_CHECKING:
    from bipub.load.content import Document

_NOT_LOADED = (
    " (the content did not load, so the source that writes it is not named: `bipub check` says "
    "what is wrong)"
)
_NO_SOURCE = (
    " (no post, page or CV writes this link: the templates make it, or the page was changed "
    "after the build)"
)


def name_sources(root: Path, broken: list[Broken], base_url: str, label: str) -> list[Diagnostic]:
    """The findings of `broken`, each at the source file and line that writes the link where
    one does, else at its built page (`label`/page). If the project's content cannot be loaded,
    every finding stays at its built page."""
    if not broken:
        return []
    sources, failed, later = _sources_by_page(root)
    if later:  # a link to a post not published yet: said as the build says it (a warning)
        broken = [scheduled_link(item, later) or item for item in broken]
    if sources is None:  # (said: the user is not left to wonder why no source is named)
        return [
            Diagnostic(f"{label}/{b.page}", b.line, b.code, b.message + _NOT_LOADED, _level(b))
            for b in broken
        ]
    # a link found in no source that loaded may be written in one that did not: said so, not
    # "the templates make it"
    unknown = _NO_SOURCE if not failed else _not_loaded(failed)
    found: dict[tuple[str, int, str, str], list[Broken]] = {}
    out: list[Diagnostic] = []
    for item in broken:
        where = next(
            (
                (src.rel, *at)
                for src in sources.get(item.page, ())
                if (at := src.find(item, base_url)) is not None
            ),
            None,
        )
        if where is None:
            message = item.message + unknown
            out.append(
                Diagnostic(f"{label}/{item.page}", item.line, item.code, message, _level(item))
            )
        else:
            found.setdefault((*where, item.code), []).append(item)
    for (rel, line, written, code), items in found.items():
        # said as the source writes it, of the page that shows it so (the side-by-side page
        # makes a relative link absolute), the source's own language's page first
        own = rel.split("/")[1] + "/" if rel.startswith("content/") else ""
        items.sort(
            key=lambda b: (b.url != written, "/both/" in b.page, not b.page.startswith(own), b.page)
        )
        pages = sorted({f"{label}/{b.page}" for b in items})
        first = items[0]
        message = first.message.replace(repr(first.url), repr(written), 1)
        shown = f"{label}/{first.page}"
        rest = (
            f" and {len(pages) - 1} other page{'s' if len(pages) > 2 else ''}"
            if len(pages) > 1
            else ""
        )
        out.append(Diagnostic(rel, line, code, f"{message} (on {shown}{rest})", _level(first)))
    return sorted(out, key=lambda d: (d.file or "", d.line or 0, d.message))


def _level(item: Broken) -> Severity:
    return Severity.WARNING if item.code == CODE else Severity.ERROR


class _Source:
    """A post's or page's document, or a CV file: the links it writes, with their lines."""

    def __init__(
        self, rel: str, written: Callable[[], list[tuple[str, int]]], base: str | None = None
    ) -> None:
        self.rel = rel
        self._make = written
        self._written: list[tuple[str, int]] | None = None
        # a document's links are targets, relative to the page or to `base` (its own post
        # page, against which the side-by-side page makes them absolute); a CV's, texts
        self.base = base
        self.exact = base is not None

    def find(self, item: Broken, base_url: str) -> tuple[int, str] | None:
        """The line and target of the link that points where `item` does (the same target,
        resolved from the page as a relative link is), or of the CV text that writes it."""
        if self._written is None:
            self._written = self._make()
        if not self.exact:
            needles = {item.url, unquote(item.url)}
            return next(
                ((n, item.url) for text, n in self._written if any(x in text for x in needles)),
                None,
            )
        heres = ("/" + item.page, f"{self.base}index.html")
        for target, line in self._written:
            if target == item.url:
                return line, target
            for here in heres:
                resolved = resolve(target, here, base_url)
                if resolved is not None and resolved[0] == item.path:
                    fragment = resolved[1]
                    # (the side-by-side page prefixes a body's ids: `#h-intro` is `#ko-h-intro`)
                    if fragment == item.fragment or item.fragment.endswith("-" + fragment):
                        return line, target
        return None


def _not_loaded(files: list[str]) -> str:
    more = f" and {len(files) - 1} more" if len(files) > 1 else ""
    return (
        f" (no source that loaded writes this link; {files[0]}{more} did not load: "
        "`bipub check` says what is wrong)"
    )


def _sources_by_page(
    root: Path,
) -> tuple[dict[str, tuple[_Source, ...]] | None, list[str], Later]:
    """Each built page of a post, a page or the CV (its path in the site, as linkcheck names
    it) → the sources it shows (None if the content does not load), the files that had
    errors (their pages' sources may be missing), and the posts a build now would hold back
    (bipub/scheduled_links.py)."""
    from bipub.pipeline import build_now, load, pair  # (the content stages: only when a link
    from bipub.project import Project  # is broken)

    collector = Collector()
    try:
        project = Project(root)
        config, content = load(project, collector)
        site = pair(project, config, content, collector)
        later = scheduled_folders(site, now_scheduled(site, build_now(config, future=False)))
    except DiagnosticError:
        return None, [], {}
    raw_html = config.outputs.raw_html
    made: dict[str, _Source] = {}

    def of(doc: Document, own: str) -> _Source:
        if doc.rel not in made:
            made[doc.rel] = _Source(doc.rel, partial(written_links, doc, raw_html), own)
        return made[doc.rel]

    out: dict[str, tuple[_Source, ...]] = {}
    cvs = [_Source(cv.rel, partial(_texts_of, cv.yaml.data, cv.yaml.line_for))
           for cv in content.cv.values()]  # fmt: skip
    for lang in config.codes:
        for path in (urls.home(lang), urls.cv(lang)):  # (the CV's page: the home, or /cv/)
            out[_page_file(path)] = tuple(sorted(cvs, key=lambda s: f"/{lang}/" not in s.rel))
        for entry in site.entries:
            version = entry.versions.get(lang)
            if version is None or not entry.shown_in(lang):
                continue
            if entry.kind == "pages":
                own = urls.page(lang, entry.slug)
                out[_page_file(own)] = (of(version.doc, own),)
                continue
            own = urls.post(lang, entry.slug)
            out[_page_file(own)] = (of(version.doc, own),)
            both = {
                v.doc.rel: of(v.doc, urls.post(v.lang, entry.slug))  # (side by side: every one)
                for v in sorted(entry.versions.values(), key=lambda v: v.lang != lang)
            }
            out[_page_file(urls.both(lang, entry.slug))] = tuple(both.values())
    return out, sorted({d.file for d in collector.errors if d.file}), later


def _page_file(path: str) -> str:
    return path.lstrip("/") + "index.html"


def _texts_of(
    data: object, line_for: Callable[[tuple[str | int, ...]], int | None]
) -> list[tuple[str, int]]:
    """Every text of a CV file with its line (a link in the CV is written in one of them)."""
    out: list[tuple[str, int]] = []

    def walk(value: object, path: tuple[str | int, ...]) -> None:
        if isinstance(value, str):
            out.append((value, line_for(path) or 1))
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item, (*path, str(key)))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, (*path, i))

    walk(data, ())
    return out
