"""The one module that imports WeasyPrint (inside functions, so `bipub --help` stays fast).

`render_job` turns a job's print HTML into PDF bytes: every URL goes through the fetch policy
(render/pdf/fetch.py), WeasyPrint's log is captured per document and judged by
render/pdf/log.py, and every link written into the PDF is checked to be an absolute URL a reader
can open (http, https, mailto, tel) — never a `file:` URL of the build machine.
"""

from __future__ import annotations

import logging
import mimetypes
import time
from typing import Any

from bipub.diagnostics import Diagnostic, Severity
from bipub.render.pdf import overflow
from bipub.render.pdf.breaks import WORD_JOINER
from bipub.render.pdf.fetch import ATTACHMENT, BlockedURL, check_url, decode_data_url
from bipub.render.pdf.jobs import PdfJob, PdfResult, job_diagnostic
from bipub.render.pdf.log import SUBSETTING_MESSAGE, classify, ignorable
from bipub.render.templates import BLOCKED_URL

LINK_SCHEMES = ("http:", "https:", "mailto:", "tel:")


def _make_fetcher(job: PdfJob, blocked: list[tuple[str, str]], read: list[str]) -> Any:
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    shown_from = job.roots[0] if job.roots else None

    class _Fetcher(URLFetcher):  # type: ignore[misc]
        """Reads the site's and project's files and data: images; refuses everything else
        (never opens it)."""

        def __init__(self) -> None:
            super().__init__(allowed_protocols=("file", "data"), allow_redirects=False)

        def fetch(self, url: str, headers: Any = None) -> Any:
            try:
                kind, path = check_url(url, job.roots, job.mounts, shown_from)
            except BlockedURL as exc:
                blocked.append((url, str(exc)))
                raise
            if kind == "data":
                mime, body = decode_data_url(url)
                return URLFetcherResponse(url, body, {"Content-Type": mime})
            assert path is not None
            read.append(str(path))
            mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            # a site URL keeps its URL: an SVG's own references resolve as on the site
            shown = url if not url.lower().startswith("file:") else path.as_uri()
            return URLFetcherResponse(shown, path.read_bytes(), {"Content-Type": mime})

    return _Fetcher()


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def fast_subsetting_available() -> bool:
    """Whether WeasyPrint subsets fonts with HarfBuzz (its own test: library + version ≥ 4.1)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # WeasyPrint warns at import when the library is missing
        from weasyprint.text import ffi

    return ffi.harfbuzz_subset is not None and bool(ffi.harfbuzz.hb_version_atleast(4, 1, 0))


def render_job(job: PdfJob) -> PdfResult:
    """HTML string → PDF bytes, with the restricted fetcher and WeasyPrint's log captured."""
    started = time.perf_counter()
    if ATTACHMENT.search(job.html):
        return PdfResult(
            job.document,
            None,
            (
                job_diagnostic(
                    job, "pdf-fetch", "attachments (rel=attachment) are not allowed in PDFs"
                ),
            ),
        )
    import weasyprint
    from weasyprint.urls import FatalURLFetchingError

    blocked: list[tuple[str, str]] = []
    read: list[str] = []
    bad_links: list[str] = []
    logger = logging.getLogger("weasyprint")
    capture = _Capture()
    saved = (logger.level, logger.propagate)
    logger.addHandler(capture)
    logger.setLevel(logging.WARNING)
    logger.propagate = False
    data: bytes | None = None
    diagnostics: list[Diagnostic] = []
    pages = 0
    try:
        options: dict[str, Any] = {"pdf_variant": job.variant, "pdf_identifier": False}
        document = weasyprint.HTML(
            string=job.html,
            base_url=job.base_url,
            url_fetcher=_make_fetcher(job, blocked, read),
        ).render(**options)
        for page in document.pages:
            # outline titles without the pre-pass's word joiners
            page.bookmarks = [
                (level, label.replace(WORD_JOINER, ""), position, state)
                for level, label, position, state in page.bookmarks
            ]
            for kind, target, *_ in page.links:
                target_url = str(target)
                if (
                    kind != "internal"
                    and not target_url.lower().startswith(LINK_SCHEMES)
                    and target_url != BLOCKED_URL  # an unsafe URL already made inert
                ):
                    bad_links.append(target_url)
        data = document.write_pdf(**options)
        pages = len(document.pages)
        if overflow.verified(weasyprint.__version__):
            for said in overflow.overflowing_tables(document):
                diagnostics.append(job_diagnostic(job, "pdf-overflow", said, Severity.WARNING))
        elif "<table" in job.html:
            diagnostics.append(
                job_diagnostic(
                    job,
                    "pdf-overflow",
                    f"tables wider than the page are not looked for with WeasyPrint "
                    f"{weasyprint.__version__} (bipub reads its layout as of "
                    f"{', '.join(overflow.VERIFIED)}): check the tables of this PDF by eye",
                    Severity.WARNING,
                )
            )
    except FatalURLFetchingError as exc:
        diagnostics.append(job_diagnostic(job, "pdf-fetch", f"rendering stopped: {exc}"))
    finally:
        logger.removeHandler(capture)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]
    for url, reason in dict.fromkeys(blocked):
        diagnostics.append(job_diagnostic(job, "pdf-fetch", f"refused to load {url}: {reason}"))
    for target in dict.fromkeys(bad_links):
        diagnostics.append(
            job_diagnostic(
                job,
                "pdf-link",
                f"link to {target}: a PDF may only link http(s), mailto: and tel: URLs (a "
                "page of the site is linked by its URL under base_url)",
            )
        )
    seen: set[str] = set()
    for record in capture.records:
        message = record.getMessage()
        if message in seen or ignorable(message) or any(url in message for url, _ in blocked):
            continue
        seen.add(message)
        severity, code = classify(message)
        text = SUBSETTING_MESSAGE if code == "pdf-subsetting" else f"WeasyPrint: {message}"
        diagnostics.append(job_diagnostic(job, code, text, severity))
    if any(d.severity is Severity.ERROR for d in diagnostics):
        data = None
    return PdfResult(
        job.document,
        data,
        tuple(diagnostics),
        time.perf_counter() - started,
        tuple(sorted(set(read))),
        pages if data is not None else 0,
    )


def warm_up(job: PdfJob) -> None:
    """Render a few words with the job's fonts and settings (discarded)."""
    head = job.html.split("<body", 1)[0]
    if "</head>" not in head:
        return
    sample = (
        head + "<body><p>한국어 English <b>굵게 Bold</b> <code>code 코드</code></p></body></html>"
    )
    render_job(
        PdfJob("(warm-up)", sample, job.base_url, job.roots, variant=job.variant, mounts=job.mounts)
    )
