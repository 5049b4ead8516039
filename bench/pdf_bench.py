"""Time bipub's PDF rendering against plain WeasyPrint on the same HTML.

    .venv/bin/python bench/pdf_bench.py [PROJECT] [--runs 5]

For the Korean CV and the bilingual CV of PROJECT (default: this repository's demo), prints the
median of RUNS renders of:

* bipub  — what a build does per document: coverage check against the fonts' cmaps, the
           restricted URL fetcher, WeasyPrint log capture, tagged PDF (pdf/ua-1) with metadata;
* plain  — `weasyprint.HTML(string=html).write_pdf()` of the very same print HTML.

The print HTML (templates rendered, Korean line-breaking pre-pass applied) is prepared once and
excluded, as is importing WeasyPrint (both sides run in one warm process).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))


def _documents(project_root: Path) -> tuple[object, list[object]]:
    from bipub.diagnostics import Collector
    from bipub.pipeline import THEME_DIR, MarkdownCache, load, pair
    from bipub.project import Project
    from bipub.render.catalogs import load_translations
    from bipub.render.pdf import documents, jobs
    from bipub.render.templates import make_environment

    project = Project(project_root)
    collector = Collector()
    config, content = load(project, collector)
    site = pair(project, config, content, collector)
    envs = {}
    for lang in config.codes:
        translations = load_translations(
            lang,
            [(THEME_DIR / "locales", "(bipub theme) locales"), (project.locales, "locales")],
            collector,
            warn_untranslated=False,
        )
        envs[lang] = make_environment(project.templates, lang, translations)
    markdown = MarkdownCache(config.outputs.raw_html, collector)
    prepared = documents.prepare_pdfs(
        project,
        site,
        ["ko"],
        envs,
        markdown,
        collector,
        bilingual=True,
        now=jobs.environment_time(),
    )
    collector.raise_if_errors()
    assert prepared is not None
    fonts, docs = prepared
    wanted = {"pdf/cv-ko.pdf", "pdf/cv-ko-en.pdf"}
    return fonts, [d for d in docs if d.job.document in wanted]


def _interleaved(
    a: Callable[[], bytes | None], b: Callable[[], bytes | None], runs: int
) -> list[tuple[list[float], int]]:
    """Time a and b alternately (load changes hit both alike): (times, output bytes) of each."""
    out: list[tuple[list[float], int]] = [([], 0), ([], 0)]
    for _ in range(runs):
        for i, fn in enumerate((a, b)):
            started = time.perf_counter()
            data = fn()
            out[i][0].append(time.perf_counter() - started)
            out[i] = (out[i][0], len(data) if data else 0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("project", nargs="?", default=str(ROOT))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    import weasyprint

    from bipub.diagnostics import Collector
    from bipub.render.pdf import coverage, engine

    fonts, docs = _documents(Path(args.project).resolve())
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"# {platform.machine()} x {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"WeasyPrint {weasyprint.__version__}, fast subsetting "
        f"{engine.fast_subsetting_available()}, load {load:.1f}, {args.runs} runs interleaved"
    )
    print("| document | pages | bipub median | plain median | bipub min | plain min | bipub KB |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for doc in docs:
        job = doc.job  # type: ignore[attr-defined]

        def ours(doc: object = doc) -> bytes | None:
            collector = Collector()
            jobs = coverage.check_documents([doc], fonts, collector)  # type: ignore[list-item,arg-type]
            assert jobs and not collector.errors, collector.errors
            result = engine.render_job(jobs[0])
            assert result.data is not None, result.diagnostics
            return result.data

        def plain(html: str = job.html) -> bytes:
            return weasyprint.HTML(string=html).write_pdf()  # type: ignore[no-any-return]

        ours()  # warm-up (fontconfig, fonts, cmaps)
        plain()
        (t_ours, n_ours), (t_plain, _) = _interleaved(ours, plain, args.runs)
        pages = len(weasyprint.HTML(string=job.html).render().pages)
        print(
            f"| {job.document} | {pages} | {statistics.median(t_ours):.2f} s "
            f"| {statistics.median(t_plain):.2f} s | {min(t_ours):.2f} s | {min(t_plain):.2f} s "
            f"| {n_ours / 1024:.0f} |"
        )


if __name__ == "__main__":
    main()
