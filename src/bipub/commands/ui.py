"""What every command shares: the `Ui` (messages to stderr, results to stdout) and the progress bar.

The `bipub` group (bipub/cli.py) makes one `Ui` per run from `-C`, `-q` and `-v` and hands it to
each command as click's context object (`pass_ui`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click

from bipub.diagnostics import ConfigError, Diagnostic, DiagnosticError, Severity
from bipub.user_files import write_atomic


class Ui:
    """Messages go to stderr (diagnostics, progress); results to stdout.

    `verbosity` is -1 with `-q` (errors only), 0 by default, and 1 or more with `-v`.
    """

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
        """Errors always; warnings unless `-q`, each with its code at the end (`[tag-spellings]`:
        `bipub explain CODE` says what it means, `diagnostics:` in bipub.yaml sets its level)."""
        tty = sys.stderr.isatty()
        for d in items:
            if d.severity is Severity.ERROR:
                click.secho(d.format(), err=True, fg="red" if tty else None)
            elif self.verbosity >= 0:
                click.secho(f"{d.format()} [{d.code}]", err=True, fg="yellow" if tty else None)

    def fail(self, exc: Exception) -> NoReturn:
        """Report a user error (its diagnostics) and exit with its status; re-raise a bug."""
        if isinstance(exc, DiagnosticError):
            self.diagnostics(exc.diagnostics)
            n = len(exc.diagnostics)
            click.echo(f"bipub: {n} error{'s' if n != 1 else ''}; nothing was written", err=True)
            sys.exit(exc.exit_code)
        raise exc


pass_ui = click.make_pass_decorator(Ui)


def write_report(output: Path, text: str) -> None:
    """Write a command's report to the file a user named (`-o`/`--output`), relative to the
    working folder, as every file of the user's is written (bipub/user_files.py: atomically; a
    link kept a link; /dev/null or a pipe written into, never replaced). An error (no such
    folder, no permission, a full disk) is a ConfigError (exit 2) naming the file."""
    target = output if output.is_absolute() else Path.cwd() / output
    try:
        write_atomic(target, text, sync=False)
    except OSError as exc:
        raise ConfigError(
            [
                Diagnostic(
                    None,
                    None,
                    "report-not-written",
                    f"could not write the report to {output}: {exc.strerror or exc}",
                )
            ]
        ) from exc


OnStart = Callable[[int], None]
OnPages = Callable[[int], None]


class Progress:
    """A rich progress bar on a terminal; silent otherwise (entering gives two callbacks or Nones)."""

    def __init__(self, ui: Ui, label: str = "rendering") -> None:
        self.enabled = sys.stderr.isatty() and ui.verbosity >= 0
        self.label = label
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> tuple[OnStart | None, OnPages | None]:
        if not self.enabled:
            return None, None
        # imported here: rich is loaded only when a bar is shown on a terminal (start-up time)
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn
        from rich.progress import Progress as RichProgress

        self.bar = RichProgress(
            TextColumn(f"[bold]{self.label}"),
            BarColumn(),
            MofNCompleteColumn(),
            console=Console(stderr=True),
            transient=True,
            auto_refresh=False,  # no refresh thread: a build forks its workers only without one
        )
        self.bar.__enter__()
        self.task = self.bar.add_task(self.label, total=None)

        def on_start(total: int) -> None:
            self.bar.update(self.task, total=total, refresh=True)

        def on_pages(n: int) -> None:
            self.bar.advance(self.task, n)
            self.bar.refresh()

        return on_start, on_pages

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
