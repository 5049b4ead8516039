"""`bipub i18n extract | update | compile`: the templates' UI strings (gettext catalogs)."""

from __future__ import annotations

import click

from bipub.commands.ui import Ui, pass_ui
from bipub.diagnostics import DiagnosticError


@click.group()
def i18n() -> None:
    """Manage the templates' UI strings (gettext catalogs in locales/)."""


# bipub.i18n_catalogs is imported inside each command: it loads Babel's message tools and the
# config models, which `bipub --help` and the other commands do not need (start-up time)


@i18n.command()
@click.option("--theme", is_flag=True, help="Also extract the strings of bipub's own theme.")
@pass_ui
def extract(ui: Ui, theme: bool) -> None:
    """Extract UI strings from templates/ into locales/messages.pot."""
    from bipub.i18n_catalogs import extract as run  # start-up time: see above

    try:
        path, count = run(ui.root, include_theme=theme)
    except DiagnosticError as exc:  # (a SOURCE_DATE_EPOCH that is no date: a usage error)
        ui.fail(exc)
    ui.info(f"Extracted {count} messages into {path.relative_to(ui.root)}")


@i18n.command()
@pass_ui
def update(ui: Ui) -> None:
    """Update every locales/<lang>/LC_MESSAGES/messages.po from messages.pot."""
    from bipub.i18n_catalogs import update as run  # start-up time: see above

    try:
        for line in run(ui.root):
            ui.info(line)
    except DiagnosticError as exc:
        ui.fail(exc)


@i18n.command()
@pass_ui
def compile(ui: Ui) -> None:
    """Compile .po catalogs to .mo (fuzzy entries are left out)."""
    from bipub.i18n_catalogs import compile_catalogs as run  # start-up time: see above

    try:
        for line in run(ui.root):
            ui.info(line)
    except DiagnosticError as exc:
        ui.fail(exc)
