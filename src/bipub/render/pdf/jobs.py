"""What one PDF render takes and gives, as plain data (sent to and from worker processes), and
the build's fixed time (deterministic PDF dates)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from bipub.diagnostics import Diagnostic, DiagnosticError, Severity
from bipub.schedule import source_date_epoch

VARIANT = "pdf/ua-1"  # tagged PDF (structure tree, /Lang, XMP metadata)

Source = tuple[str | None, int | None, str | None, str]  # file, line, key/field path, text


@dataclass(frozen=True)
class PdfJob:
    """Everything one render needs, as plain data (sent to a worker process)."""

    document: str  # output path, e.g. "pdf/cv-ko.pdf"; names the document in diagnostics
    html: str
    base_url: str  # the public URL of the page the PDF belongs to: links and images resolve
    # against it, so a link is written into the PDF as the absolute URL a reader can open
    roots: tuple[str, ...]  # folders file: URLs may be read from (configured font files)
    lang: str | None = None  # the language that owns the output (None: shared)
    origin: str = "pdf"
    variant: str | None = VARIANT
    mounts: tuple[tuple[str, str], ...] = ()  # (URL prefix, folder): where a URL of the site
    # is read from, tried in order (static/, the theme's assets/, a post's own folder)


@dataclass(frozen=True)
class PdfResult:
    document: str
    data: bytes | None
    diagnostics: tuple[Diagnostic, ...] = ()
    seconds: float = 0.0
    files: tuple[str, ...] = ()  # project files WeasyPrint read (images…), for the cache
    pages: int = 0  # the rendered document's page count (0: not rendered)


@dataclass
class PdfDoc:
    """A job and where its text comes from (for coverage errors and to place fetch errors)."""

    job: PdfJob
    sources: list[Source] = field(default_factory=list)
    page_limit: tuple[int, str] | None = None  # (pages, advice): more is a warning (short CV)


def job_diagnostic(
    job: PdfJob, code: str, message: str, severity: Severity = Severity.ERROR
) -> Diagnostic:
    """A diagnostic about a whole document (placed at a source line later when possible)."""
    return Diagnostic(job.document, None, code, message, severity)


def build_time(environ: Mapping[str, str]) -> datetime | None:
    """The build's fixed time from SOURCE_DATE_EPOCH (schedule.source_date_epoch), or None."""
    try:
        seconds = source_date_epoch(environ)
    except ValueError as exc:
        raise DiagnosticError([Diagnostic(None, None, "usage", str(exc))]) from None
    return None if seconds is None else datetime.fromtimestamp(seconds, tz=UTC)


def w3c(moment: datetime | date | None) -> str:
    """A W3C date-time for <meta name=dcterms.*> (UTC, seconds)."""
    if moment is None:
        return ""
    if not isinstance(moment, datetime):
        moment = datetime(moment.year, moment.month, moment.day, tzinfo=UTC)
    elif moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def environment_time() -> datetime | None:
    """build_time(os.environ), for callers at the top of the program (the pipeline, bench)."""
    return build_time(os.environ)
