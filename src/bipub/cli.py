"""The `bipub` command line. Heavy modules are imported inside commands so `--help` stays fast.

Exit codes: 0 success, 1 content or build errors, 2 bad invocation or unreadable config.
"""

from __future__ import annotations

import sys
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from bipub import __version__

if TYPE_CHECKING:
    from bipub.diagnostics import Diagnostic


class Ui:
    """Messages go to stderr (diagnostics, progress); results to stdout."""

    def __init__(self, root: Path, verbosity: int) -> None:
        self.root = root
        self.verbosity = verbosity

    def info(self, message: str) -> None:
        if self.verbosity >= 0:
            click.echo(message, err=True)

    def debug(self, message: str) -> None:
        if self.verbosity > 0:
            click.echo(message, err=True)

    def diagnostics(self, items: list[Diagnostic]) -> None:
        for d in items:
            if d.severity.value == "error" or self.verbosity >= 0:
                colour = "red" if d.severity.value == "error" else "yellow"
                click.secho(d.format(), err=True, fg=colour if sys.stderr.isatty() else None)

    def fail(self, exc: Exception) -> NoReturn:
        from bipub.diagnostics import DiagnosticError

        if isinstance(exc, DiagnosticError):
            self.diagnostics(exc.diagnostics)
            n = len(exc.diagnostics)
            click.echo(f"bipub: {n} error{'s' if n != 1 else ''}; nothing was written", err=True)
            sys.exit(exc.exit_code)
        raise exc


pass_ui = click.make_pass_decorator(Ui)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="bipub")
@click.option(
    "-C",
    "project_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=".",
    help="Run on the project in this folder instead of the current one.",
)
@click.option("-q", "--quiet", is_flag=True, help="Only print errors.")
@click.option("-v", "--verbose", count=True, help="Print more detail.")
@click.pass_context
def main(ctx: click.Context, project_dir: Path, quiet: bool, verbose: int) -> None:
    """bipub — publish a CV and a technical blog in Korean and English from one repository."""
    ctx.obj = Ui(project_dir.resolve(), -1 if quiet else verbose)


@main.command()
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@pass_ui
def init(ui: Ui, directory: Path) -> None:
    """Create a working bilingual project in DIRECTORY (must be empty or new)."""
    from bipub.scaffold import create_project

    target = directory if directory.is_absolute() else ui.root / directory
    try:
        written = create_project(target)
    except FileExistsError as exc:
        raise click.UsageError(str(exc)) from None
    for path in written:
        ui.debug(f"  created {path}")
    ui.info(f"Created a bilingual project in {target} ({len(written)} files).")
    ui.info(f"Next: bipub -C {directory} build   (then open {directory}/site/index.html)")


@main.command()
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
    type=click.Choice(["pdf", "html", "json", "feeds", "llms"]),
    help="Build only this kind of output (repeatable); the other kinds stay as they were.",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="Ignore .bipub-cache/ and render everything (the output is the same either way).",
)
@pass_ui
def build(
    ui: Ui,
    langs: tuple[str, ...],
    out: Path | None,
    strict: bool,
    only: tuple[str, ...],
    no_cache: bool,
) -> None:
    """Render the site, JSON API, feeds and llms.txt for every language into site/."""
    from bipub import uptodate
    from bipub.project import Project

    out_dir = (out if out.is_absolute() else Path.cwd() / out) if out else None
    with ExitStack() as stack:
        prescan = None
        if not no_cache:  # the inputs are scanned while the rest of bipub is imported
            target, key = uptodate.build_key(Project(ui.root), out_dir, langs, only)
            prescan = stack.enter_context(uptodate.Prescan(ui.root, target, key))
        from bipub.diagnostics import DiagnosticError
        from bipub.pipeline import build as run_build

        try:
            with _progress(ui) as (on_start, on_pages):
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
                )
        except DiagnosticError as exc:
            ui.fail(exc)
    ui.diagnostics(result.warnings)
    if result.cache_note:
        ui.debug(result.cache_note)
    per_lang = ", ".join(f"{lang} {n}" for lang, n in result.pages.items())
    target = out_dir or ui.root / "site"
    try:
        shown = target.relative_to(Path.cwd())
    except ValueError:
        shown = target
    warn = f", {len(result.warnings)} warnings" if result.warnings else ""
    if result.up_to_date:
        ui.info(
            f"Up to date: nothing changed since the last build ({sum(result.pages.values())} "
            f"pages, {result.files} files; checked in {result.seconds:.2f} s{warn}) → {shown}/"
        )
        return
    ui.info(
        f"Built {sum(result.pages.values())} pages ({per_lang}; {result.reused} unchanged), "
        f"{result.files} files ({result.changed} changed) in {result.seconds:.2f} s{warn} "
        f"→ {shown}/"
    )


class _progress:
    """A rich progress bar on a terminal; silent otherwise."""

    def __init__(self, ui: Ui) -> None:
        self.enabled = sys.stderr.isatty() and ui.verbosity >= 0
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> tuple[Any, Any]:
        if not self.enabled:
            return None, None
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self.bar = Progress(
            TextColumn("[bold]rendering"),
            BarColumn(),
            MofNCompleteColumn(),
            console=Console(stderr=True),
            transient=True,
            auto_refresh=False,  # no refresh thread: a build forks its workers only without one
        )
        self.bar.__enter__()
        self.task = self.bar.add_task("render", total=None)

        def on_start(total: int) -> None:
            self.bar.update(self.task, total=total, refresh=True)

        def on_pages(n: int) -> None:
            self.bar.advance(self.task, n)
            self.bar.refresh()

        return on_start, on_pages

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)


@main.command()
@click.option("--port", default=8000, show_default=True, help="Port on 127.0.0.1.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None)
@pass_ui
def serve(ui: Ui, port: int, host: str, out: Path | None) -> None:
    """Preview the site, rebuild on every change and live-reload open pages."""
    from bipub.serve import serve as run_serve

    run_serve(ui, ui.root, host, port, out)


@main.group()
def i18n() -> None:
    """Manage the templates' UI strings (gettext catalogs in locales/)."""


@i18n.command()
@click.option("--theme", is_flag=True, help="Also extract the strings of bipub's own theme.")
@pass_ui
def extract(ui: Ui, theme: bool) -> None:
    """Extract UI strings from templates/ into locales/messages.pot."""
    from bipub.i18n_catalogs import extract as run

    path, count = run(ui.root, include_theme=theme)
    ui.info(f"Extracted {count} messages into {path.relative_to(ui.root)}")


@i18n.command()
@pass_ui
def update(ui: Ui) -> None:
    """Update every locales/<lang>/LC_MESSAGES/messages.po from messages.pot."""
    from bipub.diagnostics import DiagnosticError
    from bipub.i18n_catalogs import update as run

    try:
        for line in run(ui.root):
            ui.info(line)
    except DiagnosticError as exc:
        ui.fail(exc)


@i18n.command()
@pass_ui
def compile(ui: Ui) -> None:
    """Compile .po catalogs to .mo (fuzzy entries are left out)."""
    from bipub.diagnostics import DiagnosticError
    from bipub.i18n_catalogs import compile_catalogs as run

    try:
        for line in run(ui.root):
            ui.info(line)
    except DiagnosticError as exc:
        ui.fail(exc)


from bipub.commands.check_cmd import check  # noqa: E402 - registered after main is defined
from bipub.commands.review_cmd import review  # noqa: E402

main.add_command(check)
main.add_command(review)

from bipub.commands.translate_cmd import translate  # noqa: E402 - issue 4: DeepL drafts

main.add_command(translate)


def run() -> None:
    main()


if __name__ == "__main__":  # pragma: no cover
    main()
