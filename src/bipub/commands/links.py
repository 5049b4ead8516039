"""`bipub check --links`: check the internal links and anchors of an already built site.

Builds nothing and reads the output folder (and bipub.yaml for the base URL); when a link is
broken, also the content, to name the source file and line that writes it (link_sources.py).
External links are not fetched (bipub never touches the network). Exit 1 when a link or anchor
is broken.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import click

from bipub.commands.link_sources import name_sources
from bipub.commands.ui import Ui, write_report
from bipub.config import load_config
from bipub.diagnostics import ConfigError, Diagnostic, DiagnosticError, Severity
from bipub.linkcheck import find_broken


def run_link_check(ui: Ui, out: Path | None, fmt: str, output: Path | None) -> int:
    """Check `out` (default: the project's site/) and report; returns the exit status."""
    try:
        config = load_config(ui.root)
    except DiagnosticError as exc:
        ui.fail(exc)
    site = (out if out.is_absolute() else Path.cwd() / out) if out else ui.root / "site"
    label = site.as_posix()
    for base in (ui.root, Path.cwd()):  # name files like the rest of bipub: project-relative
        try:
            label = site.resolve().relative_to(base.resolve()).as_posix()
            break
        except ValueError:
            continue
    if not site.is_dir():
        ui.fail(
            ConfigError(
                [Diagnostic(label, None, "usage", "no built site here: run `bipub build` first")]
            )
        )
    # each finding at the source file and line that writes the link (a user edits those),
    # else at the built page (session 29: it named the built page only)
    problems = name_sources(ui.root, find_broken(site, config.base_url), config.base_url, label)
    # bipub.yaml `diagnostics:` (a link to a scheduled post is a warning: `off` silences it)
    problems = [lifted for d in problems if (lifted := _at_level(d, config.diagnostics))]
    pages = sum(1 for _ in site.rglob("*.html"))
    if fmt == "json":
        text = json.dumps(
            {"pages": pages, "problems": [d.as_dict() for d in problems]},
            ensure_ascii=False,
            indent=2,
        )
    elif fmt == "github":
        text = "\n".join(
            f"::{_github(d)} file={d.file},line={d.line or 1},title=bipub {d.code}::{d.message}"
            for d in problems
        )
    elif fmt == "text":
        text = "\n".join(d.format() for d in problems)
    else:
        raise click.UsageError(f"--links supports --format text, json or github, not {fmt}")
    if output is not None:
        try:
            write_report(output, text + "\n" if text else "")
        except DiagnosticError as exc:
            ui.fail(exc)
    elif text:
        click.echo(text, file=sys.stdout)
    errors = [d for d in problems if d.severity is Severity.ERROR]
    n, later = len(errors), len(problems) - len(errors)
    # (a warning: scheduled-link, a link to a post whose page comes with a build after its date)
    waiting = (
        f" ({later} more lead{'s' if later == 1 else ''} to posts scheduled for later: no "
        "page until a build after their date)"
        if later
        else ""
    )
    if n:
        ui.info(
            f"bipub: {n} broken link{'s' if n != 1 else ''} or anchor{'s' if n != 1 else ''} in "
            f"{pages} pages of {label}/{waiting}"
        )
    elif later:
        ui.info(
            f"Every other internal link and anchor of {pages} pages in {label}/ resolves{waiting}."
        )
    else:
        ui.info(f"All internal links and anchors of {pages} pages in {label}/ resolve.")
    return 1 if errors else 0


def _at_level(d: Diagnostic, levels: Mapping[str, str]) -> Diagnostic | None:
    """A warning as bipub.yaml `diagnostics:` says it (None: `off`); an error stays one."""
    level = levels.get(d.code)
    if d.severity is Severity.ERROR or level is None or level == "warning":
        return d
    return None if level == "off" else replace(d, severity=Severity.ERROR)


def _github(d: Diagnostic) -> str:
    return "error" if d.severity is Severity.ERROR else "warning"
