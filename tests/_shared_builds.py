"""Helpers for test builds that render only the PDFs a test reads.

A build inside the test process writes placeholder PDFs unless the test is marked `pdf`
(tests/conftest.py); `real_pdfs()` makes every PDF of a block real. `some_real_pdfs(names)`
renders only the PDFs named with WeasyPrint and writes placeholders for the rest (the SHA-256
of their print HTML, as conftest's), for a fixture whose tests read some of its PDFs: the
others cost seconds of WeasyPrint each and nobody looks at them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from bipub.render.pdf import documents
from bipub.render.pdf.jobs import PdfJob, PdfResult
from tests.conftest import placeholder_pdf, real_pdfs


@contextmanager
def some_real_pdfs(names: Collection[str], user_cache: Path) -> Iterator[list[str]]:
    """Inside the block, builds render the PDFs `names` (output paths) with WeasyPrint and
    write placeholders for the others; the list yielded gets the name of every PDF rendered for
    real. The block's user cache ($XDG_CACHE_HOME) is `user_cache`, a folder of its own: the
    mixed results are cached where no other build looks."""
    rendered: list[str] = []
    with real_pdfs(), pytest.MonkeyPatch.context() as mp:
        run_jobs = documents.run_jobs  # (conftest's switch: real PDFs in this block)

        def some(jobs: list[PdfJob], *args: Any, **kwargs: Any) -> list[PdfResult]:
            real = [job for job in jobs if job.document in names]
            results = run_jobs(real, *args, **kwargs) if real else []
            done = dict(zip([job.document for job in real], results, strict=True))
            rendered.extend(done)
            return [done.get(job.document) or placeholder_pdf(job) for job in jobs]

        mp.setattr(documents, "run_jobs", some)
        mp.setenv("XDG_CACHE_HOME", str(user_cache))
        yield rendered
