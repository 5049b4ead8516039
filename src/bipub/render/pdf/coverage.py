"""Where a PDF's text comes from, and what its fonts cannot draw.

Every character of a document is checked against the fonts' cmaps before rendering; an
uncovered character fails the build naming the document, the character (U+XXXX) and where it
occurs (CV field path, or file and line) — no box (tofu) ever ships. The same sources place a
render error (a refused image, a bad link) at the line of the file that wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from bipub.diagnostics import Collector, Diagnostic
from bipub.render.pdf.fonts import Fonts, covered, describe, uncovered
from bipub.render.pdf.jobs import PdfDoc, PdfJob, Source

if TYPE_CHECKING:
    from bipub.pair.site import Entry, Site


class _TextOf(HTMLParser):
    """The text WeasyPrint will draw: everything in <body> except <script>/<style>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "head", "template"):
            self.skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "head", "template") and self.skip:
            self.skip -= 1

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data)


def html_text(html: str) -> str:
    parser = _TextOf()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts)


def _snippet(text: str, ch: str, width: int = 24) -> str:
    i = text.find(ch)
    start, end = max(0, i - width), min(len(text), i + len(ch) + width)
    snippet = " ".join(text[start:end].split())
    return ("…" if start else "") + snippet + ("…" if end < len(text) else "")


_Miss = tuple[str | None, int | None, str | None, str, str]  # file, line, key, char, context


def uncovered_uses(doc: PdfDoc, cover: frozenset[int]) -> list[_Miss]:
    """Where each character no font covers occurs: its sources (file, line, field) or, for
    text that comes from a template or catalog, a snippet of the document's text."""
    text = html_text(doc.job.html)
    out: list[_Miss] = []
    for ch in uncovered(text, cover):
        where = [s for s in doc.sources if ch in s[3]]
        if not where:
            out.append((None, None, None, ch, _snippet(text, ch)))
        for file, line, key, value in where[:5]:
            out.append((file, line, key, ch, _snippet(value, ch)))
    return out


def coverage_errors(misses: dict[_Miss, list[str]], fonts: Fonts) -> list[Diagnostic]:
    """One error per character and place, naming the documents that would show a box."""
    out: list[Diagnostic] = []
    for (file, line, key, ch, context), documents in misses.items():
        at = f" at {key}" if key else ""
        out.append(
            Diagnostic(
                file or documents[0],
                line,
                "pdf-glyph",
                f"{describe(ch)} is in no font of the PDF ({fonts.names}), so "
                f"{' and '.join(documents)} would show a box; used{at}: “{context}”",
                key=key,
            )
        )
    return out


def _walk(value: Any, path: str = "") -> Iterable[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _walk(v, f"{path}[{i}]")


def cv_sources(site: Site, lang: str) -> list[Source]:
    merged = site.pdf_cv[lang]  # (bipub.yaml private_fields: pdf_only kept)
    where: dict[str, tuple[str, int | None]] = {}
    for unit in site.units:
        if unit.target_lang == lang and unit.translation and unit.translation_file:
            where.setdefault(unit.translation, (unit.translation_file, unit.translation_line))
    for unit in site.units:
        where.setdefault(unit.source, (unit.source_file, unit.source_line))
    default = f"content/{merged.source_lang}/cv.yaml"
    out: list[Source] = []
    for path, text in _walk(merged.data):
        file, line = where.get(text, (default, None))
        out.append((file, line, path, text))
    return out


def post_sources(entry: Entry, lang: str) -> list[Source]:
    doc = entry.versions[lang].doc
    out: list[Source] = []
    for name in ("title", "description", "series"):
        value = getattr(doc.meta, name)
        if value:
            out.append((doc.rel, doc.line_of(name), name, value))
    for tag in doc.meta.tags:
        out.append((doc.rel, doc.line_of("tags"), "tags", tag))
    for offset, line in enumerate(doc.body.split("\n")):
        out.append((doc.rel, doc.body_line + offset, None, line))
    return out


def check_documents(
    docs: list[PdfDoc], fonts: Fonts, collector: Collector, cache: Path | None = None
) -> list[PdfJob]:
    """The jobs whose every character the fonts cover; the others become errors."""
    cover = covered(fonts, cache)
    jobs: list[PdfJob] = []
    misses: dict[_Miss, list[str]] = {}
    for item in docs:
        found = uncovered_uses(item, cover)
        for miss in found:
            misses.setdefault(miss, []).append(item.job.document)
        if not found:
            jobs.append(item.job)
    collector.extend(coverage_errors(misses, fonts))
    return jobs


_URL_IN_MESSAGE = re.compile(r"(?:refused to load|link to|image at|load image at) '?(\S+?)'?[:,]? ")


def place(diagnostic: Diagnostic, job: PdfJob, sources: list[Source]) -> Diagnostic:
    """A render diagnostic about a whole document, moved to the source line that wrote the URL
    it names (found by the URL's last path segment, as written or percent-decoded), the output
    PDF named in the message. Unchanged when no source line has it."""
    if diagnostic.file != job.document or diagnostic.line is not None:
        return diagnostic
    m = _URL_IN_MESSAGE.search(diagnostic.message + " ")
    if m is None:
        return diagnostic
    url = m.group(1)
    path = urlsplit(url).path if ":" in url else url
    name = path.rstrip("/").rsplit("/", 1)[-1]
    needles = {n for n in (name, unquote(name)) if n}
    for file, line, key, text in sources:
        if file is not None and any(n in text for n in needles):
            return replace(
                diagnostic,
                file=file,
                line=line,
                message=f"{diagnostic.message} (in {job.document})",
                key=key or diagnostic.key,
            )
    return diagnostic
