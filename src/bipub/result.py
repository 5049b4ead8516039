"""What a build returns, and the whole of a build that finds nothing to do.

A build whose inputs, options and output are exactly those of the last build into the same
folder (uptodate.py) reads and writes nothing: it repeats the last build's warnings and counts.
That answer needs none of the stages, so this module imports none of them (no pydantic, Jinja2,
markdown-it): `bipub build` asks `up_to_date` before it imports the pipeline, and the pipeline
asks the same function first (pipeline._build), so both give the same answer by the same code.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bipub.diagnostics import Collector, Diagnostic, Severity
from bipub.uprecord import Summary
from bipub.uptodate import Prescan
from bipub.write.folders import clean_leftovers

if TYPE_CHECKING:  # (annotations only: importing buildstate loads the render stage)
    from bipub.buildstate import BuildState


@dataclass
class BuildResult:
    pages: dict[str, int]
    files: int
    changed: int
    seconds: float
    warnings: list[Diagnostic] = field(default_factory=list)
    reused: int = 0  # pages whose inputs did not change: kept from the previous build
    cache_note: str = ""  # what the build reused from the last one, or why not (`-v`)
    up_to_date: bool = False  # nothing changed since the last build: nothing was done
    state: BuildState | None = None  # what the next build can start from (buildstate.py)
    # build --only: the files per kind rebuilt, counted when asked (the command line's summary;
    # `bipub serve` never asks): handover.Built
    built: Mapping[str, int] = field(default_factory=dict)
    # the posts not yet published, soonest first: (when, "posts/key") (bipub/schedule.py)
    scheduled: list[tuple[str, str]] = field(default_factory=list)


def apply_strict(collector: Collector, strict: bool) -> None:
    """--strict: every warning is also an error. Raises DiagnosticError if there are errors."""
    if strict and collector.warnings:
        collector.extend(
            Diagnostic(d.file, d.line, d.code, f"{d.message} (--strict)", Severity.ERROR)
            for d in collector.warnings
        )
    collector.raise_if_errors()


def up_to_date(prescan: Prescan, strict: bool) -> BuildResult | None:
    """The result of a build that has nothing to do, if the prescan's answer is that the output
    is current for these inputs and options (else None: the build runs). What a killed build
    left beside the output is cleaned up first, whatever the answer. Raises DiagnosticError
    with --strict if the last build had warnings (it failed on them too)."""
    started = time.perf_counter()
    clean_leftovers(prescan.target)
    if not prescan.same_inputs():  # (the prescan's first answer: no need to wait for more)
        return None
    previous = prescan.current()  # (the record's head: its tables are not read)
    if previous is None:
        return None
    done = nothing_changed(previous, strict, started)
    done.cache_note = "; ".join(n for n in (prescan.note, done.cache_note) if n)
    return done


def nothing_changed(previous: Summary, strict: bool, started: float) -> BuildResult:
    """The output is current: report the last build's warnings again (and fail on them with
    --strict, as that build would have) without reading or writing anything."""
    collector = Collector()
    collector.extend(previous.warnings)
    apply_strict(collector, strict)
    return BuildResult(
        previous.pages,
        previous.files,
        0,
        time.perf_counter() - started,
        previous.warnings,
        sum(previous.pages.values()),
        "nothing changed since the last build: inputs and output are as they were",
        up_to_date=True,
        scheduled=previous.scheduled,
    )


def report_scheduled(ui: Any, scheduled: list[tuple[str, str]]) -> None:
    """Say how many posts wait for their date (not published by this build: bipub/schedule.py)
    and the next one, and (`-v`) each (`bipub build`, `bipub serve`)."""
    if not scheduled:
        return
    at, ref = scheduled[0]
    pages = sum(1 for _, ref in scheduled if ref.startswith("pages/"))  # (session 34)
    posts = len(scheduled) - pages
    said = " and ".join(
        f"{n} {kind}{'s' if n != 1 else ''}" for n, kind in ((posts, "post"), (pages, "page")) if n
    )
    ui.info(
        f"Scheduled: {said} dated in the future, not published yet "
        f"(next: {ref} at {at}; --future publishes them now)"
    )
    for at, ref in scheduled:
        ui.debug(f"scheduled: {ref} at {at}")
