"""PDF output: the CV per language, the bilingual CV (ko+en) and opted-in posts, with WeasyPrint.

The package, by concern:

- links.py — which PDFs a site has and the links its pages show to them (plain functions of
  the paired site, all that the HTML pages and llms.txt need);
- documents.py — each PDF's print HTML, and `render_pdfs` (the pipeline's entry point:
  outputs.Pdfs);
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

Importing this package imports links.py only: the rest (documents.py and what it uses) is
imported by the build that makes PDFs (outputs.Pdfs), so a build without PDFs does not load
it (~20 ms of every `bipub build`), and WeasyPrint is imported by engine.py inside functions
only, so `bipub --help` stays fast.
"""

from __future__ import annotations

from bipub.render.pdf.links import (
    both_pdf_entries,
    both_pdf_path,
    pdf_links,
    post_pdf_entries,
    post_pdf_path,
    short_pdf_links,
    short_wanted,
    wants_pdf,
)

__all__ = [
    "both_pdf_entries",
    "both_pdf_path",
    "pdf_links",
    "post_pdf_entries",
    "post_pdf_path",
    "short_pdf_links",
    "short_wanted",
    "wants_pdf",
]
