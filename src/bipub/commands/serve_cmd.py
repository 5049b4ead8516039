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
@click.option(
    "--no-fast-render",
    "fast_render",
    flag_value=False,
    default=True,
    help="Publish each rebuild's pages in one step (default: when a save changes many pages, "
    "those of the changed posts and those open in a browser first, the others right after).",
)
@click.option(
    "--future",
    "-F",
    is_flag=True,
    help="Publish posts dated in the future too (by default each waits for its date).",
)
@pass_ui
def serve(ui: Ui, port: int, host: str, out: Path | None, fast_render: bool, future: bool) -> None:
    """Preview the site, rebuild on every change and live-reload open pages."""
    # the server runs for hours: Python's usual garbage collection between its builds (each
    # build collects rarely while it runs: pipeline.build), not the program's start-up setting
    gc.set_threshold(*PYTHON_THRESHOLDS)
    from bipub.serve import ServeAddressError  # http.server: only for serve (start-up time)
    from bipub.serve import serve as run_serve
    from bipub.serve_save import Stopped

    try:
        run_serve(ui, ui.root, host, port, out, fast_render, future)
    except ServeAddressError as exc:
        raise click.ClickException(exc.strerror or str(exc)) from None
    except Stopped as exc:  # (Ctrl-C or SIGTERM before it served: 130 or 143)
        ui.info(exc.message)
        raise SystemExit(exc.status) from None
