"""`bipub init DIRECTORY`: create a working bilingual project."""

from __future__ import annotations

from pathlib import Path

import click

from bipub.commands.ui import Ui, pass_ui
from bipub.scaffold import create_project


@click.command()
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@pass_ui
def init(ui: Ui, directory: Path) -> None:
    """Create a working bilingual project in DIRECTORY (must be empty or new)."""
    target = directory if directory.is_absolute() else ui.root / directory
    try:
        written = create_project(target)
    except FileExistsError as exc:
        raise click.UsageError(str(exc)) from None
    for path in written:
        ui.debug(f"  created {path}")
    ui.info(f"Created a bilingual project in {target} ({len(written)} files).")
    ui.info(f"Next: bipub -C {directory} build   (then open {directory}/site/index.html)")
