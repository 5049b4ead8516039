"""`bipub serve`: preview the site, rebuild on every change and live-reload open pages."""

from __future__ import annotations

import gc
from pathlib import Path

import click

from bipub.commands.ui import Ui, pass_ui

PYTHON_THRESHOLDS = (700, 10, 10)  # gc.get_threshold() of a fresh interpreter (cli.run changes it)


@click.command()
@click.option("--port", default=8000, show_default=True, help="Port on 127.0.0.1.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Output folder (default: .bipub-cache/serve/ in the project, so site/ is left alone).",
)
@pass_ui
def serve(ui: Ui, port: int, host: str, out: Path | None) -> None:
    """Preview the site, rebuild on every change and live-reload open pages."""
    # the server runs for hours: Python's usual garbage collection between its builds (each
    # build collects rarely while it runs: pipeline.build), not the program's start-up setting
    gc.set_threshold(*PYTHON_THRESHOLDS)
    from bipub.serve import serve as run_serve  # http.server: only for serve (start-up time)

    run_serve(ui, ui.root, host, port, out)
