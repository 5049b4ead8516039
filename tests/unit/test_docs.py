"""The docs book covers what the code has: every command and option (docs/commands.md), every
bipub.yaml key (docs/configuration.md), every diagnostic code (docs/diagnostics.md, generated:
`pytest --update-golden tests/unit/test_docs.py`), and every page the README and index link."""

from __future__ import annotations

import re
import typing

import click
import pytest
from pydantic import BaseModel

from bipub.cli import main
from bipub.codes import CODES
from bipub.config import SiteConfig
from tests.conftest import REPO

DOCS = REPO / "docs"
BEGIN = "<!-- codes: generated from src/bipub/codes.py by `pytest --update-golden tests/unit/test_docs.py` -->"
END = "<!-- end of codes -->"


def _options(command: click.Command, path: tuple[str, ...]) -> list[tuple[str, str]]:
    """(command path, each option's long name or first name) for a command and its subcommands."""
    out = []
    for param in command.params:
        if isinstance(param, click.Option):
            names = [o for o in param.opts if o.startswith("--")] or param.opts
            out.append((" ".join(path), names[0]))
    if isinstance(command, click.Group):  # (bipub's own group imports each command when asked)
        ctx = click.Context(command)
        names = command.list_commands(ctx)
        assert names, f"{' '.join(path)} lists no command"
        for name in names:
            sub = command.get_command(ctx, name)
            assert sub is not None, f"{' '.join(path)} {name}: listed but not found"
            out.append((" ".join(path), name))
            out += _options(sub, (*path, name))
    return out


def test_every_command_and_option_is_in_commands_md() -> None:
    text = (DOCS / "commands.md").read_text(encoding="utf-8")
    missing = []
    for where, name in _options(main, ("bipub",)):
        if name.startswith("-"):  # an option: written as `--name` (or `-x`)
            found = f"`{name}" in text or f", {name}" in text
        else:  # a (sub)command: its own heading or table row
            found = f"{where} {name}" in text or f"`{where.split()[-1]} {name}" in text
        if not found:
            missing.append(f"{where}: {name}")
    assert not missing, f"document these in docs/commands.md: {missing}"


def test_the_commands_check_can_fail() -> None:
    @click.command()
    @click.option("--brand-new-option")
    def extra(brand_new_option: str) -> None: ...

    text = (DOCS / "commands.md").read_text(encoding="utf-8")
    assert all(f"`{n}" not in text for _, n in _options(extra, ("x",)))


def _keys(model: type[BaseModel], prefix: str = "") -> list[str]:
    out = []
    for name, field in model.model_fields.items():
        key = prefix + name
        out.append(key)
        for inner in (*typing.get_args(field.annotation), field.annotation):
            if isinstance(inner, type) and issubclass(inner, BaseModel):
                is_list = typing.get_origin(field.annotation) is list
                out += _keys(inner, key + ("[]." if is_list else "."))
    return out


def test_every_config_key_is_in_configuration_md() -> None:
    text = (DOCS / "configuration.md").read_text(encoding="utf-8")
    keys = _keys(SiteConfig)
    assert "check.ignore[].reason" in keys and "languages[].code" in keys
    missing = [k for k in keys if f"`{k}`" not in text]
    assert not missing, f"document these bipub.yaml keys in docs/configuration.md: {missing}"


def codes_table() -> str:
    default = {"error": "error", "warning": "warning", "qa": "qa"}
    rows = ["| code | default | stage | meaning |", "| --- | --- | --- | --- |"]
    rows += [
        f"| `{c.name}` | {default[c.default]} | {c.stage} | {c.summary} |" for c in CODES.values()
    ]
    return "\n".join(rows)


def test_diagnostics_md_lists_every_code(update_golden: bool) -> None:
    path = DOCS / "diagnostics.md"
    text = path.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    wanted = f"{head}{BEGIN}\n{codes_table()}\n{END}{tail}"
    if update_golden:
        path.write_text(wanted, encoding="utf-8")
        return
    assert text == wanted, (
        "docs/diagnostics.md is stale: pytest --update-golden tests/unit/test_docs.py"
    )


PAGES = ["README.md", *sorted(f"docs/{p.name}" for p in DOCS.glob("*.md"))]


@pytest.mark.parametrize("page", PAGES)
def test_every_local_link_of_the_book_resolves(page: str) -> None:
    source = REPO / page
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", source.read_text(encoding="utf-8"))
    local = [link for link in links if "://" not in link]
    broken = [link for link in local if not (source.parent / link).exists()]
    assert not broken, f"{page} links to missing files: {broken}"


def test_the_book_has_its_chapters() -> None:
    for name in (
        "index",
        "getting-started",
        "content",
        "translation",
        "review",
        "templates",
        "outputs",
        "configuration",
        "commands",
        "diagnostics",
        "security",
        "architecture",
        "benchmarks",
    ):
        assert (DOCS / f"{name}.md").is_file(), name


def test_the_readme_fits_a_screen() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text.split()) < 400
    assert "## Quick start" in text
    assert "bash scripts/bootstrap.sh demo" in text and "bash scripts/bootstrap.sh test" in text
