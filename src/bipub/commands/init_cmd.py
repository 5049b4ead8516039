"""`bipub init DIRECTORY`: create a working bilingual project."""

from __future__ import annotations

import os
import shlex
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
    # not "open site/index.html": the site's links are root-relative, so a file:// page has no
    # style and its links lead nowhere
    # the folder as the shell that ran bipub names it (`-C DIR` made DIRECTORY relative to DIR)
    here = os.path.relpath(target)
    shown = shlex.quote(str(target.absolute()) if here.startswith("..") else here)
    ui.info(
        f"Next: bipub -C {shown} serve   (builds it and previews it on "
        f"http://127.0.0.1:8000/; bipub -C {shown} build writes {shown}/site/ "
        "for a web server)"
    )
