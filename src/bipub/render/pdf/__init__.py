"""PDF output: the CV per language, the bilingual CV (ko+en) and opted-in posts, with WeasyPrint.

The package, by concern:

- documents.py — which PDFs a build has, their print HTML, and `render_pdfs` (the pipeline's
  entry point);
- fonts.py — fonts through fontconfig, their coverage (cmaps), the @font-face CSS;
- breaks.py — the Korean line-breaking pre-pass;
- coverage.py — where a document's text comes from; characters no font covers; placing render
  errors at the source line;
- fetch.py — what a PDF may read (the fetch policy; pure);
- log.py — how WeasyPrint's log messages are judged (errors and warnings);
- engine.py — the one module that imports WeasyPrint: renders one job;
- pool.py — the worker processes, with memory and time bounds;
- cache.py — rendered PDFs kept between builds;
- jobs.py — the plain data passed between them, and the build's fixed time.

Importing this package does not import WeasyPrint (engine.py imports it inside functions), so
`bipub --help` stays fast.
"""

from __future__ import annotations

from bipub.render.pdf.coverage import check_documents
from bipub.render.pdf.documents import (
    both_pdf_entries,
    both_pdf_path,
    pdf_links,
    post_pdf_entries,
    post_pdf_path,
    prepare_pdfs,
    render_pdfs,
    short_pdf_links,
    short_wanted,
    wants_pdf,
)
from bipub.render.pdf.engine import fast_subsetting_available, render_job
from bipub.render.pdf.jobs import PdfJob, PdfResult, build_time, environment_time, w3c
from bipub.render.pdf.pool import WORKERS, run_jobs

__all__ = [
    "WORKERS",
    "PdfJob",
    "PdfResult",
    "both_pdf_entries",
    "both_pdf_path",
    "build_time",
    "check_documents",
    "environment_time",
    "fast_subsetting_available",
    "pdf_links",
    "post_pdf_entries",
    "post_pdf_path",
    "prepare_pdfs",
    "render_job",
    "render_pdfs",
    "run_jobs",
    "short_pdf_links",
    "short_wanted",
    "w3c",
    "wants_pdf",
]
