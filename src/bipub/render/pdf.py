"""PDF output: the CV per language, the bilingual CV (ko+en) and opted-in posts, with WeasyPrint.

This is the only module that imports WeasyPrint, and only inside functions (`bipub --help` stays
fast). The flow, from `render_pdfs` (called once from pipeline.render):

1. Fonts are found through fontconfig (render/pdf_fonts.py); no usable font is a build error.
2. Each document is rendered from a print template (templates/pdf/*.html, print CSS in
   templates/pdf/print.css) to an HTML string, then passed through the Korean line-breaking
   pre-pass (render/pdf_breaks.py).
3. Coverage: every character of the document is checked against the fonts' cmaps before
   rendering; an uncovered character fails the build naming the document, the character
   (U+XXXX) and where it occurs (CV field path, or file and line) — no box (tofu) ever ships.
4. Rendering runs in a pool of 2 processes (plain data in: HTML + settings; bytes out), in
   job order whatever finishes first, so results are deterministic.
5. A PDF whose print HTML, fonts, versions and read files are unchanged since the last build is
   taken from the user's cache instead (RenderCache); `bipub build --no-cache` renders all.

Fetching policy (the `_Fetcher` below, given to WeasyPrint for every URL it would load):
* `file:` URLs only inside the project root or the theme's static folder, after resolving
  symlinks (a link that points outside is refused like `../`); the file must exist;
* `data:image/…` URLs are allowed (self-contained, nothing is fetched; an SVG's own references
  go through this fetcher again); any other `data:` type is refused;
* everything else — http(s), ftp, file outside, file on another host, about: — is refused and
  never opened (no network at all, so no redirects). `<link rel=attachment>` is refused too.
Every refused or missing URL is an error naming the document and the URL; the PDF is discarded.
A refused URL raises an ordinary error inside WeasyPrint (not FatalURLFetchingError), so one run
names every refused URL of a document; nothing is opened either way.

WeasyPrint's log is captured per document (a handler on the "weasyprint" logger). Messages that
mean wrong output are errors: a .notdef glyph, a failed fetch, an invalid value of a property
that changes the layout or text (size, font-family, white-space, word-break…); the rest are
warnings. Missing HarfBuzz subsetting (the silent ~20 s fontTools path) is a warning, an error
under --strict.

Deterministic bytes: creation and modification dates come from the `now` passed in (the
pipeline reads SOURCE_DATE_EPOCH) or, for posts, the post's date; without either, no date.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from html.parser import HTMLParser
from itertools import zip_longest
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from bipub import __version__
from bipub.diagnostics import Collector, Diagnostic, DiagnosticError, Severity
from bipub.render import urls
from bipub.render.pdf_breaks import WORD_JOINER, korean_line_breaks
from bipub.render.pdf_fonts import Fonts, choose_fonts, covered, describe, uncovered

if TYPE_CHECKING:
    import jinja2

    from bipub.load.content import Document
    from bipub.pair.site import Entry, Site
    from bipub.project import Project
    from bipub.render.markdown import RenderedMarkdown

THEME_STATIC = Path(__file__).resolve().parent.parent / "theme" / "static"
WORKERS = 2
FORKSERVER_MIN_JOBS = 4
VARIANT = "pdf/ua-1"  # tagged PDF (structure tree, /Lang, XMP metadata)
SUBSETTING_MESSAGE = (
    "fast font subsetting unavailable (install libharfbuzz-subset0); PDFs will take ~20 s"
)
_ALLOWED_DATA = re.compile(r"^data:image/(png|jpeg|gif|webp|svg\+xml)[;,]", re.I)
_ATTACHMENT = re.compile(r"<(?:link|a)\b[^>]*\brel\s*=\s*[\"']?[^\"'>]*\battachment\b", re.I)
# Properties whose invalid value changes the output (layout, text, fonts, page, outline).
_MATTERS = {
    "size",
    "page",
    "font",
    "font-family",
    "font-weight",
    "font-size",
    "white-space",
    "word-break",
    "line-break",
    "overflow-wrap",
    "hyphens",
    "content",
    "string-set",
    "bookmark-level",
    "bookmark-label",
    "display",
    "break-before",
    "break-after",
    "break-inside",
}
_IGNORED = re.compile(r"^Ignored `(?P<prop>[\w-]+):")
_FETCH_FAILED = re.compile(
    r"^(Failed to (load|render)|Font-face .* cannot be loaded|Missing href|"
    r"Relative URI reference without a base URI)"
)
_WRONG = re.compile(r"^(Unknown (PDF|rendering) option|Missing required \"lang\")")
_SLOW_SUBSET = "instead of HarfBuzz-Subset"


# ---------------------------------------------------------------------------- jobs and results
@dataclass(frozen=True)
class PdfJob:
    """Everything one render needs, as plain data (sent to a worker process)."""

    document: str  # output path, e.g. "pdf/cv-ko.pdf"; names the document in diagnostics
    html: str
    base_url: str  # file:// URL of the folder relative URLs resolve against
    roots: tuple[str, ...]  # folders files may be read from
    lang: str | None = None  # the language that owns the output (None: shared)
    origin: str = "pdf"
    variant: str | None = VARIANT


@dataclass(frozen=True)
class PdfResult:
    document: str
    data: bytes | None
    diagnostics: tuple[Diagnostic, ...] = ()
    seconds: float = 0.0
    files: tuple[str, ...] = ()  # project files WeasyPrint read (images…), for the cache


@dataclass
class _Doc:
    job: PdfJob
    sources: list[tuple[str | None, int | None, str | None, str]] = field(default_factory=list)
    # (file, line, key/field path, text): where the document's text comes from, for coverage


def build_time(environ: Mapping[str, str]) -> datetime | None:
    """The build's fixed time from SOURCE_DATE_EPOCH, or None."""
    value = environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not value:
        return None
    try:
        return datetime.fromtimestamp(int(value), tz=UTC)
    except (ValueError, OverflowError, OSError):
        raise DiagnosticError(
            [
                Diagnostic(
                    None,
                    None,
                    "usage",
                    f"SOURCE_DATE_EPOCH={value!r} is not a number of seconds since 1970",
                )
            ]
        ) from None


def w3c(moment: datetime | date | None) -> str:
    """A W3C date-time for <meta name=dcterms.*> (UTC, seconds)."""
    if moment is None:
        return ""
    if not isinstance(moment, datetime):
        moment = datetime(moment.year, moment.month, moment.day, tzinfo=UTC)
    elif moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---------------------------------------------------------------------------- fetching
class BlockedURL(ValueError):
    """A URL the PDF renderer may not read (recorded, and the render fails)."""


def check_url(url: str, roots: Iterable[str]) -> tuple[str, Path | None]:
    """Classify a URL WeasyPrint wants to load: ('data', None), ('file', path) or raise.

    Raises BlockedURL with the reason. Pure (reads only the file system's metadata).
    """
    from urllib.parse import unquote, urlsplit

    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme == "data":
        if _ALLOWED_DATA.match(url):
            return "data", None
        raise BlockedURL("only data: URLs of PNG, JPEG, GIF, WebP or SVG images are allowed")
    if scheme != "file":
        raise BlockedURL(
            f"{scheme or 'relative'} URLs are not fetched: a PDF may only use files inside the "
            "project"
        )
    parts = urlsplit(url)
    if parts.netloc not in ("", "localhost"):
        raise BlockedURL("file URLs on another host are not read")
    raw = Path(unquote(parts.path))
    try:
        resolved = raw.resolve(strict=False)
    except (OSError, RuntimeError) as exc:
        raise BlockedURL(f"cannot resolve the path ({exc})") from None
    for root in roots:
        base = Path(root).resolve()
        if resolved.is_relative_to(base):
            if not resolved.is_file():
                raise BlockedURL("file not found")
            return "file", resolved
    if resolved != raw.absolute():
        raise BlockedURL(f"symbolic link to {resolved}, outside the project")
    raise BlockedURL("outside the project (a PDF may only use files inside the project)")


def decode_data_url(url: str) -> tuple[str, bytes]:
    """(media type, bytes) of a data: URL (RFC 2397)."""
    import base64
    from urllib.parse import unquote_to_bytes

    header, _, payload = url[5:].partition(",")
    params = header.split(";")
    mime = params[0] or "text/plain"
    if "base64" in params[1:]:
        return mime, base64.b64decode(unquote_to_bytes(payload), validate=False)
    return mime, unquote_to_bytes(payload)


def _make_fetcher(
    roots: tuple[str, ...], blocked: list[tuple[str, str]], read: list[str] | None = None
) -> Any:
    import mimetypes

    from weasyprint.urls import URLFetcher, URLFetcherResponse

    class _Fetcher(URLFetcher):  # type: ignore[misc]
        """Reads project files and data: images; refuses everything else (never opens it)."""

        def __init__(self) -> None:
            super().__init__(allowed_protocols=("file", "data"), allow_redirects=False)

        def fetch(self, url: str, headers: Any = None) -> Any:
            try:
                kind, path = check_url(url, roots)
            except BlockedURL as exc:
                blocked.append((url, str(exc)))
                raise
            if kind == "data":
                mime, body = decode_data_url(url)
                return URLFetcherResponse(url, body, {"Content-Type": mime})
            assert path is not None
            if read is not None:
                read.append(str(path))
            mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            return URLFetcherResponse(path.as_uri(), path.read_bytes(), {"Content-Type": mime})

    return _Fetcher()


# ---------------------------------------------------------------------------- WeasyPrint's log
class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def classify(message: str) -> tuple[Severity, str]:
    """(severity, code) of one WeasyPrint log message."""
    if ".notdef glyph" in message:
        return Severity.ERROR, "pdf-glyph"
    if _SLOW_SUBSET in message:
        return Severity.WARNING, "pdf-subsetting"
    if _FETCH_FAILED.match(message):
        return Severity.ERROR, "pdf-fetch"
    if _WRONG.match(message):
        return Severity.ERROR, "pdf-weasyprint"
    m = _IGNORED.match(message)
    if m and m.group("prop").lower() in _MATTERS:
        return Severity.ERROR, "pdf-css"
    return Severity.WARNING, "pdf-weasyprint"


def fast_subsetting_available() -> bool:
    """Whether WeasyPrint subsets fonts with HarfBuzz (its own test: library + version ≥ 4.1)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # WeasyPrint warns at import when the library is missing
        from weasyprint.text import ffi

    return ffi.harfbuzz_subset is not None and bool(ffi.harfbuzz.hb_version_atleast(4, 1, 0))


# ---------------------------------------------------------------------------- rendering one job
def render_job(job: PdfJob) -> PdfResult:
    """HTML string → PDF bytes, with the restricted fetcher and WeasyPrint's log captured."""
    started = time.perf_counter()
    if _ATTACHMENT.search(job.html):
        return PdfResult(
            job.document,
            None,
            (_diag(job, "pdf-fetch", "attachments (rel=attachment) are not allowed in PDFs"),),
        )
    import weasyprint
    from weasyprint.urls import FatalURLFetchingError

    blocked: list[tuple[str, str]] = []
    read: list[str] = []
    logger = logging.getLogger("weasyprint")
    capture = _Capture()
    saved = (logger.level, logger.propagate)
    logger.addHandler(capture)
    logger.setLevel(logging.WARNING)
    logger.propagate = False
    data: bytes | None = None
    diagnostics: list[Diagnostic] = []
    try:
        options: dict[str, Any] = {"pdf_variant": job.variant, "pdf_identifier": False}
        document = weasyprint.HTML(
            string=job.html,
            base_url=job.base_url,
            url_fetcher=_make_fetcher(job.roots, blocked, read),
        ).render(**options)
        for page in document.pages:  # outline titles without the pre-pass's word joiners
            page.bookmarks = [
                (level, label.replace(WORD_JOINER, ""), position, state)
                for level, label, position, state in page.bookmarks
            ]
        data = document.write_pdf(**options)
    except FatalURLFetchingError as exc:
        diagnostics.append(_diag(job, "pdf-fetch", f"rendering stopped: {exc}"))
    finally:
        logger.removeHandler(capture)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]
    for url, reason in dict.fromkeys(blocked):
        diagnostics.append(_diag(job, "pdf-fetch", f"refused to load {url}: {reason}"))
    seen: set[str] = set()
    for record in capture.records:
        message = record.getMessage()
        if message in seen or any(url in message for url, _ in blocked):
            continue
        seen.add(message)
        severity, code = classify(message)
        text = SUBSETTING_MESSAGE if code == "pdf-subsetting" else f"WeasyPrint: {message}"
        diagnostics.append(_diag(job, code, text, severity))
    if any(d.severity is Severity.ERROR for d in diagnostics):
        data = None
    return PdfResult(
        job.document,
        data,
        tuple(diagnostics),
        time.perf_counter() - started,
        tuple(sorted(set(read))),
    )


def _diag(job: PdfJob, code: str, message: str, severity: Severity = Severity.ERROR) -> Diagnostic:
    return Diagnostic(job.document, None, code, message, severity)


def _warm_up(job: PdfJob) -> None:
    """Render a few words with the job's fonts and settings (discarded)."""
    head = job.html.split("<body", 1)[0]
    if "</head>" not in head:
        return
    sample = (
        head + "<body><p>한국어 English <b>굵게 Bold</b> <code>code 코드</code></p></body></html>"
    )
    render_job(PdfJob("(warm-up)", sample, job.base_url, job.roots, variant=job.variant))


# Bounds on the PDF step (pathological input must fail cleanly, not hang or exhaust memory):
# wall time for the whole batch, and address space per worker process. Override with the
# environment (BIPUB_PDF_TIMEOUT seconds, BIPUB_PDF_MEMORY_MB).
PDF_TIMEOUT_S = 300.0
PDF_MEMORY_MB = 4096


def _limit_memory(megabytes: int) -> None:
    import resource

    limit = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _bounded_job(job: PdfJob, megabytes: int) -> PdfResult:
    _limit_memory(megabytes)
    return render_job(job)


def run_jobs(jobs: list[PdfJob], workers: int = WORKERS) -> list[PdfResult]:
    """Render jobs in `workers` processes; results in job order (deterministic).

    With fork available (the CLI), every job runs in a worker process with a memory bound, and
    the batch has a time bound; a job that exceeds either fails the build cleanly."""
    import multiprocessing
    import threading

    timeout = float(os.environ.get("BIPUB_PDF_TIMEOUT", PDF_TIMEOUT_S))
    megabytes = int(os.environ.get("BIPUB_PDF_MEMORY_MB", PDF_MEMORY_MB))
    if jobs and "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return _run_bounded(jobs, max(1, workers), timeout, megabytes)
    if len(jobs) <= 1 or workers <= 1:
        return [render_job(job) for job in jobs]
    import multiprocessing
    import threading
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing.context import BaseContext

    # fork is cheapest: the workers inherit WeasyPrint imported and fontconfig, Pango and the
    # fonts warmed up by one tiny render here (a cold first render costs ~1 s more per process).
    # It is unsafe with threads alive (a progress bar, `bipub serve`): then a forkserver that
    # preloads WeasyPrint, worth its start-up (~1 s) only for several documents.
    methods = multiprocessing.get_all_start_methods()
    context: BaseContext
    if "fork" in methods and threading.active_count() == 1:
        _warm_up(jobs[0])
        context = multiprocessing.get_context("fork")
    elif "forkserver" in methods and len(jobs) >= FORKSERVER_MIN_JOBS:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["__main__", "bipub.render.pdf", "weasyprint"])
    else:
        return [render_job(job) for job in jobs]
    # Biggest first so the two workers finish together; results are put back in job order.
    order = sorted(range(len(jobs)), key=lambda i: -len(jobs[i].html))
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=context) as pool:
        done = list(pool.map(render_job, [jobs[i] for i in order]))
    results: list[PdfResult | None] = [None] * len(jobs)
    for i, result in zip(order, done, strict=True):
        results[i] = result
    return [r for r in results if r is not None]


def _run_bounded(
    jobs: list[PdfJob], workers: int, timeout: float, megabytes: int
) -> list[PdfResult]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures import TimeoutError as FuturesTimeout
    from concurrent.futures.process import BrokenProcessPool
    from functools import partial

    _warm_up(jobs[0])
    order = sorted(range(len(jobs)), key=lambda i: -len(jobs[i].html))
    pool = ProcessPoolExecutor(
        max_workers=min(workers, len(jobs)), mp_context=multiprocessing.get_context("fork")
    )
    try:
        done = list(
            pool.map(
                partial(_bounded_job, megabytes=megabytes),
                [jobs[i] for i in order],
                timeout=timeout,
            )
        )
    except (MemoryError, BrokenProcessPool):
        raise DiagnosticError(
            [
                Diagnostic(
                    None,
                    None,
                    "pdf-bound",
                    f"PDF rendering exceeded its {megabytes} MB memory bound "
                    "(BIPUB_PDF_MEMORY_MB) and was stopped; nothing was written",
                )
            ]
        ) from None
    except FuturesTimeout:
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        raise DiagnosticError(
            [
                Diagnostic(
                    None,
                    None,
                    "pdf-bound",
                    f"PDF rendering took longer than {timeout:g} s and was stopped "
                    "(BIPUB_PDF_TIMEOUT); nothing was written",
                )
            ]
        ) from None
    except DiagnosticError:
        raise
    except Exception as exc:  # a worker under its memory bound fails in many ways
        raise DiagnosticError(
            [
                Diagnostic(
                    None,
                    None,
                    "pdf-bound",
                    f"PDF rendering failed in its worker process ({type(exc).__name__}: {exc}); "
                    f"workers run with a {megabytes} MB memory bound (BIPUB_PDF_MEMORY_MB); "
                    "nothing was written",
                )
            ]
        ) from exc
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    results: list[PdfResult | None] = [None] * len(jobs)
    for i, result in zip(order, done, strict=True):
        results[i] = result
    return [r for r in results if r is not None]


# ---------------------------------------------------------------------------- text and coverage
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


def uncovered_uses(doc: _Doc, cover: frozenset[int]) -> list[_Miss]:
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


def _cv_sources(site: Site, lang: str) -> list[tuple[str | None, int | None, str | None, str]]:
    merged = site.pdf_cv[lang]  # (bipub.yaml private_fields: pdf_only kept)
    where: dict[str, tuple[str, int | None]] = {}
    for unit in site.units:
        if unit.target_lang == lang and unit.translation and unit.translation_file:
            where.setdefault(unit.translation, (unit.translation_file, unit.translation_line))
    for unit in site.units:
        where.setdefault(unit.source, (unit.source_file, unit.source_line))
    default = f"content/{merged.source_lang}/cv.yaml"
    out: list[tuple[str | None, int | None, str | None, str]] = []
    for path, text in _walk(merged.data):
        file, line = where.get(text, (default, None))
        out.append((file, line, path, text))
    return out


def _post_sources(entry: Entry, lang: str) -> list[tuple[str | None, int | None, str | None, str]]:
    doc = entry.versions[lang].doc
    out: list[tuple[str | None, int | None, str | None, str]] = []
    for name in ("title", "description", "series"):
        value = getattr(doc.meta, name)
        if value:
            out.append((doc.rel, doc.line_of(name), name, value))
    for tag in doc.meta.tags:
        out.append((doc.rel, doc.line_of("tags"), "tags", tag))
    for offset, line in enumerate(doc.body.split("\n")):
        out.append((doc.rel, doc.body_line + offset, None, line))
    return out


# ---------------------------------------------------------------------------- documents
def _font_css(fonts: Fonts) -> Markup:
    return Markup(fonts.css())  # noqa: S704 - built from CSS-escaped strings (pdf_fonts.css_string)


def pairs(a: list[Any] | None, b: list[Any] | None) -> list[tuple[Any, Any]]:
    """Items of two language versions side by side (the CV merge keeps them aligned)."""
    return list(zip_longest(a or [], b or []))


def _keywords(cv: Mapping[str, Any]) -> str:
    words: list[str] = []
    for skill in cv.get("skills") or []:
        words.extend(str(x) for x in skill.get("items") or [])
    for job in cv.get("experience") or []:
        words.extend(str(x) for x in job.get("tags") or [])
    unique = [" ".join(w.replace(",", " ").split()) for w in dict.fromkeys(words) if w.strip()]
    return ", ".join(unique[:20])


def render_pdfs(
    project: Project,
    site: Site,
    langs: list[str],
    envs: Mapping[str, jinja2.Environment],
    markdown: Callable[[Document], RenderedMarkdown],
    collector: Collector,
    *,
    bilingual: bool,
    now: datetime | None,
    cache_dir: Path | None = None,
    workers: int = WORKERS,
) -> list[tuple[str, bytes, str | None, str]]:
    """Every PDF of the build as (output path, bytes, owning language, origin).

    Problems go to `collector` (errors stop the build in the pipeline, as for every output).
    `cache_dir` (the user's bipub cache, never the project: a cloned repository could plant
    files there) keeps font cmaps and rendered PDFs between builds; None: no cache.
    """
    prepared = prepare_pdfs(
        project, site, langs, envs, markdown, collector, bilingual=bilingual, now=now
    )
    if prepared is None:
        return []
    fonts, docs = prepared
    jobs = check_documents(docs, fonts, collector, cache_dir / "fonts" if cache_dir else None)
    if not jobs or collector.errors:
        return []  # the build fails anyway: do not spend seconds rendering
    cache = RenderCache(cache_dir / "pdf" if cache_dir else None, project.root, fonts)
    results: list[PdfResult | None] = [cache.get(job) for job in jobs]
    todo = [job for job, hit in zip(jobs, results, strict=True) if hit is None]
    if todo:
        if not fast_subsetting_available():
            collector.warning(None, None, "pdf-subsetting", SUBSETTING_MESSAGE)
        rendered = iter(run_jobs(todo, workers))
        for i, hit in enumerate(results):
            if hit is None:
                fresh = next(rendered)
                results[i] = fresh
                cache.put(jobs[i], fresh)
    out: list[tuple[str, bytes, str | None, str]] = []
    subsetting_reported = any(d.code == "pdf-subsetting" for d in collector.items)
    for job, result in zip(jobs, results, strict=True):
        if result is None:  # pragma: no cover - every job has a result by now
            continue
        for d in result.diagnostics:
            if d.code == "pdf-subsetting":
                if subsetting_reported:
                    continue
                subsetting_reported = True
            collector.add(d)
        if result.data is not None:
            out.append((job.document, result.data, job.lang, job.origin))
    return out


class RenderCache:
    """Rendered PDFs kept in the user's cache (~/.cache/bipub/pdf/), one slot per project and
    document: reused when the print HTML, the fonts, bipub's and WeasyPrint's versions and every
    file the render read are unchanged (rendering is deterministic, so the bytes are the ones a
    render would give). `folder` None: a cache that never hits."""

    def __init__(self, folder: Path | None, project_root: Path, fonts: Fonts) -> None:
        from importlib.metadata import PackageNotFoundError, version

        self.folder = folder
        self.project = str(project_root.resolve())
        try:
            engine = version("weasyprint")
        except PackageNotFoundError:  # pragma: no cover - it is a dependency
            engine = "?"
        parts = [__version__, engine]
        for face in fonts.faces:
            try:
                st = Path(face.path).stat()
            except OSError:
                continue
            parts.append(f"{face.path}:{face.index}:{st.st_size}:{st.st_mtime_ns}")
        self.base = hashlib.sha256("\0".join(parts).encode()).hexdigest()

    def _key(self, job: PdfJob) -> str:
        h = hashlib.sha256(self.base.encode())
        for part in (job.variant or "", job.base_url, *job.roots, job.html):
            h.update(b"\0" + part.encode())
        return h.hexdigest()

    def _slot(self, job: PdfJob) -> Path:
        assert self.folder is not None
        name = hashlib.sha256(f"{self.project}\0{job.document}".encode()).hexdigest()[:32]
        return self.folder / name

    @staticmethod
    def _stamp(path: str) -> list[object] | None:
        try:
            st = Path(path).stat()
        except OSError:
            return None
        return [path, st.st_size, st.st_mtime_ns]

    def get(self, job: PdfJob) -> PdfResult | None:
        if self.folder is None:
            return None
        slot = self._slot(job)
        try:
            meta = json.loads(slot.with_suffix(".json").read_text(encoding="utf-8"))
            if meta.get("key") != self._key(job):
                return None
            if any(self._stamp(f[0]) != f for f in meta.get("files", [])):
                return None
            data = slot.with_suffix(".pdf").read_bytes()
            warnings = tuple(
                Diagnostic(job.document, None, code, message, Severity.WARNING)
                for code, message in meta.get("warnings", [])
            )
        except (OSError, ValueError, TypeError, AttributeError, IndexError):
            return None
        if _sha256(data) != meta.get("sha256"):
            return None
        return PdfResult(job.document, data, warnings)

    def put(self, job: PdfJob, result: PdfResult) -> None:
        if (
            self.folder is None
            or result.data is None
            or any(d.severity is Severity.ERROR for d in result.diagnostics)
        ):
            return
        stamps = [self._stamp(f) for f in result.files]
        if any(s is None for s in stamps):
            return
        meta = {
            "document": job.document,
            "key": self._key(job),
            "sha256": _sha256(result.data),
            "files": stamps,
            "warnings": [[d.code, d.message] for d in result.diagnostics],
        }
        slot = self._slot(job)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            for suffix, payload in ((".pdf", result.data), (".json", json.dumps(meta).encode())):
                tmp = slot.with_suffix(f"{suffix}.{os.getpid()}.tmp")
                tmp.write_bytes(payload)
                tmp.replace(slot.with_suffix(suffix))
        except OSError:
            pass  # a read-only project: no cache, same output


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_documents(
    docs: list[_Doc], fonts: Fonts, collector: Collector, cache: Path | None = None
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


def prepare_pdfs(
    project: Project,
    site: Site,
    langs: list[str],
    envs: Mapping[str, jinja2.Environment],
    markdown: Callable[[Document], RenderedMarkdown],
    collector: Collector,
    *,
    bilingual: bool,
    now: datetime | None,
) -> tuple[Fonts, list[_Doc]] | None:
    """Fonts and the print HTML of every PDF (templates rendered, Korean pre-pass applied)."""
    from bipub.model.cv import CV
    from bipub.render.markdown import pygments_css
    from bipub.render.templates import template_error
    from bipub.render.views import View, cv_view

    config = site.config
    if not any(lang in site.cv or post_pdf_entries(site, lang) for lang in langs):
        return None  # nothing to render: no font needed
    try:
        fonts, font_warnings = choose_fonts(config.pdf, project.root)
    except DiagnosticError as exc:
        collector.extend(exc.diagnostics)
        return None
    collector.extend(font_warnings)
    base_url = urls.UrlBuilder(config.base_url)
    roots = (str(project.root.resolve()), str(THEME_STATIC))
    root_url = project.root.resolve().as_uri() + "/"
    docs: list[_Doc] = []

    def common(lang: str) -> dict[str, Any]:
        return {
            "lang": lang,
            "font_css": _font_css(fonts),
            "page_size": config.pdf.page_size,
            "author": config.author,
            "site_url": config.site_url,
            "generator": f"bipub {__version__}",
            "pairs": pairs,
            "highlight_untranslated": config.pdf.highlight_untranslated,  # issue 18
        }

    def render_template(name: str, env: jinja2.Environment, context: dict[str, Any]) -> str | None:
        import jinja2

        try:
            return str(env.get_template(name).render(context))
        except (jinja2.TemplateError, TypeError, AttributeError, ValueError) as exc:
            collector.add(template_error(exc, project.root))
            return None

    created = w3c(now)
    for lang in langs:
        merged = site.pdf_cv.get(lang)  # (bipub.yaml private_fields: pdf_only kept)
        if merged is None:
            continue
        cv = cv_view(CV, merged.data, merged.fallbacks, merged.source_lang)
        document = urls.cv_pdf(lang).lstrip("/")
        html = render_template(
            "pdf/cv.html",
            envs[lang],
            {
                **common(lang),
                "cv": cv,
                "doc": View(
                    created=created,
                    keywords=_keywords(merged.data),
                    href=base_url.absolute(urls.home(lang)),
                ),
                "untranslated": len(merged.fallbacks),
            },
        )
        if html is not None:
            job = PdfJob(document, korean_line_breaks(html), root_url, roots, lang, f"cv ({lang})")
            docs.append(_Doc(job, _cv_sources(site, lang)))
    if bilingual and "ko" in site.cv and "en" in site.cv and "ko" in envs and "en" in envs:
        ko, en = site.pdf_cv["ko"], site.pdf_cv["en"]
        en_template = envs["en"].from_string("{{ _(message) }}")
        en_labels: dict[str, Markup] = {}

        def en_gettext(message: str) -> Markup:
            """The English column's labels: `_` of the English environment."""
            if message not in en_labels:
                en_labels[message] = Markup(en_template.render(message=message))  # noqa: S704
            return en_labels[message]

        html = render_template(
            "pdf/cv-bilingual.html",
            envs["ko"],
            {
                **common("ko"),
                "ko": cv_view(CV, ko.data, ko.fallbacks, ko.source_lang),
                "en": cv_view(CV, en.data, en.fallbacks, en.source_lang),
                "en_": en_gettext,
                "doc": View(
                    created=created,
                    keywords=_keywords(en.data),
                    href=base_url.absolute(urls.home("ko")),
                    href_en=base_url.absolute(urls.home("en")),
                ),
            },
        )
        if html is not None:
            job = PdfJob(
                urls.cv_pdf("ko-en").lstrip("/"),
                korean_line_breaks(html),
                root_url,
                roots,
                None,
                "cv (ko+en)",
            )
            docs.append(_Doc(job, _cv_sources(site, "ko") + _cv_sources(site, "en")))
    for lang in langs:
        for entry in post_pdf_entries(site, lang):
            version = entry.versions[lang]
            doc = version.doc
            rendered = markdown(doc)
            document = post_pdf_path(lang, entry.slug)
            html = render_template(
                "pdf/post.html",
                envs[lang],
                {
                    **common(lang),
                    "post": View(
                        title=doc.meta.title,
                        description=doc.meta.description or "",
                        date=entry.date,
                        updated=entry.updated,
                        tags=list(doc.meta.tags or entry.source.meta.tags),
                        state=version.state,
                        content_lang=doc.lang,
                        html=Markup(rendered.html),  # noqa: S704 - markdown-it output
                        href=base_url.absolute(urls.post(lang, entry.slug)),
                    ),
                    "pygments_css": Markup(pygments_css()),  # noqa: S704 - Pygments' own CSS
                    "doc": View(
                        created=w3c(entry.date) or created,
                        modified=w3c(entry.updated or entry.date) or created,
                        keywords=", ".join(doc.meta.tags or entry.source.meta.tags),
                    ),
                },
            )
            if html is not None:
                post_dir = (project.root / doc.rel).parent.resolve().as_uri() + "/"
                job = PdfJob(
                    document, korean_line_breaks(html), post_dir, roots, lang, f"{doc.rel} (pdf)"
                )
                docs.append(_Doc(job, _post_sources(entry, lang)))
    return fonts, docs


def post_pdf_entries(site: Site, lang: str) -> list[Entry]:
    """Posts of `lang` that get a PDF (see wants_pdf)."""
    return [entry for entry in site.posts(lang) if wants_pdf(site, entry, lang)]


def wants_pdf(site: Site, entry: Entry, lang: str) -> bool:
    """Front matter `pdf: true`, or config `pdf.posts` unless `pdf: false`; only where the
    page shows its own language (a fallback has no PDF of its own) and not for drafts."""
    if entry.kind != "posts" or lang not in entry.versions:
        return False
    version = entry.versions[lang]
    flag = entry.source.meta.pdf
    wanted = flag if flag is not None else site.config.pdf.posts
    return bool(wanted) and not version.is_fallback and not version.doc.meta.draft


def post_pdf_path(lang: str, slug: str) -> str:
    """Output path of a post's PDF: <lang>/blog/<slug>/<slug>.pdf."""
    return urls.post(lang, slug).lstrip("/") + f"{slug}.pdf"


def pdf_links(site: Site, lang: str, url: urls.UrlBuilder) -> list[dict[str, str]]:
    """The PDFs a page in `lang` links: its CV, the other languages' CVs, the bilingual CV."""
    links = []
    codes = [c for c in site.config.codes if c in site.cv]
    for code in sorted(codes, key=lambda c: c != lang):
        links.append(
            {
                "label": site.config.language(code).name,
                "lang": code,
                "href": url.href(urls.cv_pdf(code)),
            }
        )
    if "ko" in site.cv and "en" in site.cv:
        names = " + ".join(site.config.language(c).name for c in ("ko", "en"))
        links.append({"label": names, "lang": "ko-en", "href": url.href(urls.cv_pdf("ko-en"))})
    return links


def environment_time() -> datetime | None:
    """build_time(os.environ), for callers at the top of the program (the pipeline, bench)."""
    return build_time(os.environ)
