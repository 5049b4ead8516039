"""`bipub build`: render every output of the project into site/ (or --out)."""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from contextlib import ExitStack
from pathlib import Path

import click

from bipub import uptodate
from bipub.cache import ReadAhead, restore_files
from bipub.commands.ui import Progress, Ui, pass_ui
from bipub.diagnostics import DiagnosticError
from bipub.project import Project
from bipub.result import BuildResult, report_scheduled, up_to_date

# the modules of the stages, each imported after those it imports (`StageImports` can stop
# between two of them)
STAGE_MODULES = (
    "pydantic",
    "bipub.config",
    "bipub.load.content",
    "bipub.pair.site",
    "jinja2",
    "markdown_it",
    "bipub.render.markdown",
    "bipub.render.templates",
    "bipub.render.views",
    "bipub.render.page_views",
    "bipub.render.both",
    "bipub.render.cards",
    "bipub.render.feeds",
    "bipub.render.json_api",
    "bipub.render.llms",
    "bipub.render.outputs",
    "bipub.render.html",
    "bipub.buildstate",
    "bipub.pipeline",
)
# how long the prescan's first answer may take before the stages are imported while it comes
# (a small site's comes sooner: ~10 ms at 100 posts a language, ~0.1 s at 5,000), on a site
# whose up-to-date record is this big at least (~1,000 posts a language): a small site never
# imports them while it waits, however busy the machine (its answer was slow under load, and
# a build with nothing to do then imported pydantic)
SPECULATE_AFTER = 0.02
SPECULATE_FROM = 256 * 1024
# a record this big (~2,000 posts a language; ~10 MB at 5,000) is a site whose scan takes
# longer than that wait (~0.05 s and more): the imports start at once, not 20 ms later
SPECULATE_AT_ONCE = 4 * 1024 * 1024


class StageImports:
    """The stages' modules imported on a thread while this process waits for the prescan's
    child to say whether the inputs are those of the last build (only then can it be up to
    date, and import none of them: ~0.3 s): the wait (a reading of a pipe) and the imports
    share the time. The thread stops after the module it is importing once `stop_when` says
    so (the inputs are the last build's: probably up to date) or it is told to (`close`).

    A module that fails to import here is imported again by the build, which raises the error
    as without it. Use it as a context manager; it has ended (`close`) before the build forks
    anything or imports a module itself (two threads importing the same modules may each wait
    for the other's)."""

    def __init__(self, stop_when: Callable[[], bool]) -> None:
        self._stop_when = stop_when
        self._stop = threading.Event()
        self.imported = 0  # modules imported here (tests count them)
        self._thread = threading.Thread(target=self._run, name="bipub-imports", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        for name in STAGE_MODULES:
            if self._stop.is_set() or self._stop_when():
                return
            try:
                importlib.import_module(name)
            except Exception:  # (imported again by the build: raised there)
                return
            self.imported += 1

    def close(self) -> None:
        """Stop after the module being imported, and wait for that."""
        self._stop.set()
        self._thread.join()

    def __enter__(self) -> StageImports:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@click.command()
@click.option(
    "--lang",
    "langs",
    multiple=True,
    help="Build only this language's outputs (repeatable); the rest of the output stays as it was.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Output folder (default: site/ in the project).",
)
@click.option("--strict", is_flag=True, help="Treat warnings as errors.")
@click.option(  # issue 5: build a subset of the output kinds
    "--only",
    "only",
    multiple=True,
    type=click.Choice(["pdf", "html", "json", "feeds", "llms", "search", "cards"]),
    help="Build only this kind of output (repeatable); the other kinds stay as they were.",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="Ignore .bipub-cache/ and render everything (the output is the same either way).",
)
@click.option(
    "--future",
    "-F",
    is_flag=True,
    help="Publish posts dated in the future too (by default each waits for its date; "
    "bipub.yaml outputs.publish_future: true always publishes them).",
)
@pass_ui
def build(
    ui: Ui,
    langs: tuple[str, ...],
    out: Path | None,
    strict: bool,
    only: tuple[str, ...],
    no_cache: bool,
    future: bool,
) -> None:
    """Render the site, JSON API, feeds and llms.txt for every language into site/."""
    out_dir = (out if out.is_absolute() else Path.cwd() / out) if out else None
    with ExitStack() as stack:
        prescan = ahead = read_ahead = None
        try:
            if not no_cache:  # the inputs are scanned and the output checked in a child process
                target, key = uptodate.build_key(Project(ui.root), out_dir, langs, only, future)
                # (forked only while the stages are to be imported: `_stages_to_import`; else
                # it scans here, the output checked as `pipeline.build`'s callers' is:
                # uptodate.Checker)
                prescan = stack.enter_context(
                    uptodate.Prescan(ui.root, target, key, fork=_stages_to_import())
                )
                imports = None
                size = uptodate.record_size(Project(ui.root), target)
                if size >= SPECULATE_FROM and (  # (a big site's scan)
                    size >= SPECULATE_AT_ONCE or not prescan.answers_within(SPECULATE_AFTER)
                ):
                    found = prescan
                    imports = stack.enter_context(StageImports(lambda: found.known_same is True))
                # its answer first: a build with nothing to do imports none of the stages
                # (pydantic, Jinja2, markdown-it, Babel: ~0.3 s, most of such a build's time)
                done = up_to_date(prescan, strict)
                if done is not None:
                    report(ui, done, out_dir, only)
                    return
                if imports is not None:
                    imports.close()  # (before the read-ahead, the imports here and any fork)
                # the files the build reads back from .bipub-cache/, read and checked by a
                # thread while the stages are imported (cache.py ReadAhead)
                read_ahead = stack.enter_context(
                    ReadAhead(restore_files(Project(ui.root).cache, target))
                )
            else:  # the load stage's modules imported, and its work started in a child
                # (load/ahead.py): it loads the content while this process imports the others
                from bipub.load.ahead import LoadAhead

                ahead = LoadAhead.start(ui.root) if _stages_to_import() else None
                if ahead is not None:
                    stack.enter_context(ahead)
            # imported here, once there is something to build (while the prescan's child goes
            # on checking the output folder for the writer)
            from bipub.pipeline import build as run_build

            with Progress(ui) as (on_start, on_pages):
                result = run_build(
                    ui.root,
                    out_dir,
                    list(langs) or None,
                    strict=strict,
                    on_start=on_start,
                    on_pages=on_pages,
                    only=set(only) or None,
                    use_cache=not no_cache,
                    prescan=prescan,
                    ahead=ahead,
                    read_ahead=read_ahead,
                    future=future,
                )
        except DiagnosticError as exc:
            ui.fail(exc)
    # imported here: only a build that renders uses the fast paths it tells about
    from bipub.render.json_api import schemas_note
    from bipub.render.upstream import notes as upstream_notes

    report(ui, result, out_dir, only, [*upstream_notes(), schemas_note()])


def _stages_to_import() -> bool:
    """Whether this process has the build's stages still to import (a `bipub build` of its
    own): a child forked now (the prescan, the content loaded ahead) works while it does. A
    process that imported them already (a script or the test suite calling `cli.main`) has
    nothing to overlap, and a fork copies its address space (a test process holds hundreds of
    MB: ~30 ms of system time a build): it does that work itself."""
    return "bipub.pipeline" not in sys.modules


def report(
    ui: Ui,
    result: BuildResult,
    out_dir: Path | None,
    only: tuple[str, ...],
    notes: Iterable[str] = (),
) -> None:
    """What a build did (or that it had nothing to do), its warnings and `-v` notes (`notes`:
    the fast paths off on unverified upstream versions, render/upstream.py)."""
    ui.diagnostics(result.warnings)
    if result.cache_note:
        ui.debug(result.cache_note)
    for note in notes:
        if note:
            ui.debug(note)
    per_lang = ", ".join(f"{lang} {n}" for lang, n in result.pages.items())
    target = out_dir or ui.root / "site"
    try:
        shown = target.relative_to(Path.cwd())
    except ValueError:
        shown = target
    nw = len(result.warnings)
    warn = f", {nw} warning{'s' if nw != 1 else ''}" if nw else ""
    if result.up_to_date:
        counted = f"{sum(result.pages.values())} pages, " if not only or "html" in only else ""
        ui.info(
            f"Up to date: nothing changed since the last build ({counted}{result.files} files; "
            f"checked in {result.seconds:.2f} s{warn}) → {shown}/"
        )
        report_scheduled(ui, result.scheduled)
        return
    if result.built:  # build --only: what was rebuilt, and what was kept as it was
        what = only_summary(result.built, result.pages, result.reused, result.files, result.changed)
        ui.info(f"Built {what} in {result.seconds:.2f} s{warn} → {shown}/")
    else:
        ui.info(
            f"Built {sum(result.pages.values())} pages ({per_lang}; {result.reused} unchanged), "
            f"{result.files} files ({result.changed} changed) in {result.seconds:.2f} s{warn} "
            f"→ {shown}/"
        )
    report_scheduled(ui, result.scheduled)


# build --only: each kind's files, as the summary line names them (singular, plural)
_KIND_NAMES = {
    "pdf": ("PDF", "PDFs"),
    "json": ("JSON API file", "JSON API files"),
    "feeds": ("feed file", "feed files"),  # Atom feeds, sitemap.xml, robots.txt
    "llms": ("llms.txt file", "llms.txt files"),
    "search": ("search index file", "search index files"),
}


def only_summary(
    built: Mapping[str, int], pages: dict[str, int], reused: int, files: int, changed: int
) -> str:
    """What a `build --only` built, e.g. "6 PDFs, 132 files in all (2 changed)" or "64 pages
    (ko 32, en 32; 0 unchanged) and 6 PDFs, 140 files in all (3 changed)": the files in all
    are the output's (the other kinds' kept as they were); changed, those new or changed."""
    parts: list[str] = []
    for kind, count in built.items():
        if kind == "html":
            per_lang = ", ".join(f"{lang} {n}" for lang, n in pages.items())
            parts.append(f"{sum(pages.values())} pages ({per_lang}; {reused} unchanged)")
        else:
            one, many = _KIND_NAMES.get(kind, (f"{kind} file", f"{kind} files"))
            parts.append(f"{count} {one if count == 1 else many}")
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{text}, {files} file{'s' if files != 1 else ''} in all ({changed} changed)"
