"""`bipub check`: translation parity and QA findings for every unit, without rendering the site."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import click

from bipub.check.cached import CachedReport, CheckRun
from bipub.commands.ui import Ui, write_report
from bipub.diagnostics import DiagnosticError


@click.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "github", "html"]),
    default="text",
    show_default=True,
    help="Output format (github: workflow annotations; html: a standalone reviewer report).",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the report to FILE instead of stdout.",
)
@click.option("--lang", "langs", multiple=True, help="Only this target language (repeatable).")
@click.option(
    "--only",
    multiple=True,
    help="Only units whose key starts with this prefix or whose file matches this glob "
    "(repeatable), e.g. 'posts/kv-cache' or 'content/en/posts/*.md'.",
)
@click.option("--strict", is_flag=True, help="Treat warnings as errors.")
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="Text report: list every missing unit on its own line (by default a file's missing "
    "units are one line with their count). `bipub -v check` does the same.",
)
@click.option(  # issue 6: the link checker for users (commands/links.py)
    "--links",
    is_flag=True,
    help="Instead: check that every internal link and #anchor of the built site resolves "
    "(builds nothing; run `bipub build` first).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="With --links: the built site to check (default: site/ in the project).",
)
@click.pass_obj
def check(
    ui: Ui,
    fmt: str,
    output: Path | None,
    langs: tuple[str, ...],
    only: tuple[str, ...],
    strict: bool,
    verbose: bool,
    links: bool,
    out: Path | None,
) -> None:
    """Check translations: gaps, stale and draft units, QA of numbers, code and links.

    Reports missing, orphan, untranslated, stale, draft and edited units and the QA findings of
    every translation, without rendering the site.

    With --links, check the built site's internal links and anchors instead.

    Exit status: 0 without errors, 1 with errors, 2 for a bad invocation or config.
    """
    if links:
        # imported here: the link check loads the config models, a plain check whose inputs
        # did not change reads only its cached report (start-up time)
        from bipub.commands.links import run_link_check

        sys.exit(run_link_check(ui, out, fmt, output))
    color = output is None and fmt == "text" and sys.stdout.isatty()
    verbose = verbose or ui.verbosity > 0
    kind = f"{fmt}-v" if verbose and fmt == "text" else fmt  # the cached report's name
    try:
        run = CheckRun(ui.root, langs=langs, only=only, strict=strict)
        # a terminal's report is coloured to its width: only plain reports are kept
        done = None if color else run.cached_report(kind)
        if done is None:
            # imported here: the report's formatters are needed only when no cached report fits
            from bipub.check import report

            result = run.result()
            buffer = io.StringIO()
            report.render(result, fmt, buffer, color=color, verbose=verbose)
            done = CachedReport(buffer.getvalue(), report.total_line(result), result.exit_code)
            if not color:
                run.save_report(kind, done)
    except DiagnosticError as exc:
        ui.fail(exc)
    if output is not None:
        try:
            write_report(output, done.text)
        except DiagnosticError as exc:
            ui.fail(exc)
        ui.info(f"{done.total}; report written to {output}")
    else:
        sys.stdout.write(done.text)
    sys.exit(done.exit_code)
