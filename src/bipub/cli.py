"""The `bipub` command line: the group and its global options; each command lives in commands/.

Exit codes: 0 success, 1 content or build errors, 2 bad invocation or unreadable config.

The command modules import only what `--help` needs at import time; the heavy stages (pydantic,
Jinja2, markdown-it, WeasyPrint, DeepL) are imported inside the commands that use them, so that
`bipub --help` and a warm `bipub build` start fast.
"""

from __future__ import annotations

import gc
import os
import sys
from functools import partial
from pathlib import Path

import click

from bipub import __version__
from bipub.commands.ui import Ui
from bipub.compiled_code import KeptCompiles, kept_compiles, user_cache_dir
from bipub.diagnostics import Diagnostic, Severity
from bipub.pydantic_plugins import note as plugins_note
from bipub.pydantic_plugins import skip_loader

__all__ = ["main", "run"]

FEW_COLLECTIONS = (100_000, 50, 100)  # gc thresholds while bipub runs (pipeline._few_collections)


def _command(name: str) -> click.Command | None:
    """The command `name`, its module imported now: a command's start-up does not import the
    others' (`bipub check` alone loads the QA stage's modules at import, ~10 ms)."""
    if name == "init":
        from bipub.commands.init_cmd import init

        return init
    if name == "build":
        from bipub.commands.build_cmd import build

        return build
    if name == "serve":
        from bipub.commands.serve_cmd import serve

        return serve
    if name == "check":
        from bipub.commands.check_cmd import check

        return check
    if name == "review":
        from bipub.commands.review_cmd import review

        return review
    if name == "translate":
        from bipub.commands.translate_cmd import translate

        return translate
    if name == "i18n":
        from bipub.commands.i18n_cmd import i18n

        return i18n
    if name == "explain":
        from bipub.commands.explain_cmd import explain

        return explain
    return None


COMMANDS = ("init", "build", "serve", "check", "review", "translate", "i18n", "explain")


class _Commands(click.Group):
    """The group of bipub's commands, each imported when it is run or listed (`_command`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return _command(cmd_name)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
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
    kept = ctx.obj  # (what `run` hands over: the compiled code kept between runs)
    ui = ctx.obj = Ui(project_dir.resolve(), -1 if quiet else verbose)
    if isinstance(kept, KeptCompiles):
        ctx.call_on_close(partial(save_compiled, kept, ui))
    if ui.verbosity > 0:
        ui.debug(plugins_note())


def save_compiled(kept: KeptCompiles, ui: Ui) -> None:
    """At the end of a command: the code compiled for the dataclasses and regular
    expressions of this run kept for the next one (compiled_code.py); a file that could not be
    used is said with `-v`, one that could not be written as a warning."""
    if kept.note:
        ui.debug(f"compiled code: {kept.note}")
    try:
        kept.save()
    except OSError as exc:
        message = (
            f"the compiled code of bipub's classes and patterns could not be saved in {kept.path} "
            f"({exc.strerror or type(exc).__name__}); the next run compiles it again"
        )
        ui.diagnostics([Diagnostic(None, None, "cache-not-saved", message, Severity.WARNING)])


def run() -> None:
    """The program (`bipub`, `python -m bipub`): the command, then the process ends at once.

    Ending with os._exit skips the interpreter's teardown, which frees one by one every object
    the command made and kept to its end (a build's documents, planned site and pages: ~0.1 s
    of CPU of a cold build at 100 posts a language, ~0.25 s of a build after one edit at
    5,000), for nothing: the process is ending. What must happen before the end is done by the
    commands themselves (files written and closed, the output published, child processes and
    pools ended: `with` blocks and `finally`); the standard streams are flushed here, and a
    failed flush (a closed pipe) gives status 120 as Python's own exit does. An exception that
    is not an exit (a bug) ends the usual way, with its traceback; so does a run under a
    profiler, a debugger or a coverage tool (`python -m cProfile -m bipub ...` writes its
    profile at the normal exit).

    What Python compiles as the command's modules are imported (the dataclasses' methods,
    regular expressions) is kept between runs (compiled_code.py: ~50 ms of a build's start).

    pydantic's plugin loader is skipped where no installed distribution declares a pydantic
    plugin (pydantic_plugins.py: ~5 % of a build's imports).

    The cyclic garbage collector runs rarely from the start: what a command allocates is
    mostly long-lived (~1,000 modules imported, then the site), and walking it again and again
    cost ~10 % of the imports (the threshold pipeline.build sets for a build)."""
    gc.set_threshold(*FEW_COLLECTIONS)
    skip_loader()  # (before pydantic builds a model: pydantic_plugins.py)
    with kept_compiles(user_cache_dir()) as kept:
        try:
            main(obj=kept)
            status = 0
        except SystemExit as exc:
            status = exit_status(exc.code)
    if sys.getprofile() is not None or sys.gettrace() is not None:
        sys.exit(status)  # (the tool saves what it found at the normal exit)
    os._exit(flushed(status))


def exit_status(code: object) -> int:
    """The status of `sys.exit(code)`: None is 0, a number itself, anything else is printed
    to stderr and gives 1 (as Python does)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def flushed(status: int) -> int:
    """`status` once stdout and stderr are flushed; 120 if they cannot be (Python's status for
    a failed flush at exit), so that output lost is never reported as success."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # (a closed pipe, a closed stream)
            status = status or 120
    return status


if __name__ == "__main__":  # pragma: no cover
    run()
