"""`bipub explain [CODE]`: what a diagnostic code means (bipub/codes.py), or every code."""

from __future__ import annotations

import difflib

import click

from bipub.codes import CODES, Code

_DEFAULT = {"error": "error", "warning": "warning", "qa": "error (a warning on machine drafts)"}


def _describe(code: Code) -> str:
    silence = "" if code.can_silence else "; always an error"
    return (
        f"{code.name}  ({code.stage}; default: {_DEFAULT[code.default]}{silence})\n  {code.summary}"
    )


@click.command()
@click.argument("code", required=False)
def explain(code: str | None) -> None:
    """Explain a diagnostic CODE (the word in brackets after a message); without one, list all.

    Set a code's level in bipub.yaml under `diagnostics:` (error, warning or off).
    """
    if code is None:
        width = max(len(name) for name in CODES)
        for c in CODES.values():
            click.echo(f"{c.name:<{width}}  {c.default:<7}  {c.summary}")
        return
    found = CODES.get(code.strip("[]"))
    if found is None:
        close = difflib.get_close_matches(code, list(CODES), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else "; `bipub explain` lists them"
        raise click.UsageError(f"unknown diagnostic code {code!r}{hint}")
    click.echo(_describe(found))
