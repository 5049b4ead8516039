"""The diagnostic code registry (bipub/codes.py): every code used in src/bipub is declared, each
warning prints its code, bipub.yaml `diagnostics:` silences or escalates it, `bipub explain`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from click.testing import CliRunner

from bipub.check.findings import KNOWN_CODES
from bipub.codes import CODES
from bipub.diagnostics import Collector, Diagnostic, Severity
from tests.conftest import REPO

# callable name → index of its positional `code` argument
CODE_ARGUMENT = {
    "Diagnostic": 2,
    "error": 2,
    "warning": 2,
    "Finding": 0,
    "_diag": 1,
    "Problem": 2,
    "job_diagnostic": 1,
}


def codes_used(root: Path) -> dict[str, str]:
    """Every string literal passed as a diagnostic code in `root` → where it was first seen:
    the code argument of Diagnostic(...), collector.error/warning(...), Finding(...), the PDF
    helpers, any `code="..."` keyword, and `(Severity.X, "code")` pairs (classifiers)."""
    used: dict[str, str] = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            literals: list[ast.expr] = []
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                index = CODE_ARGUMENT.get(name or "")
                if index is not None and len(node.args) > index:
                    literals.append(node.args[index])
                literals += [k.value for k in node.keywords if k.arg == "code"]
            elif isinstance(node, ast.Tuple) and len(node.elts) == 2:
                first = node.elts[0]
                if (
                    isinstance(first, ast.Attribute)
                    and getattr(first.value, "id", "") == "Severity"
                ):
                    literals.append(node.elts[1])
            elif isinstance(node, ast.arguments):  # `code: str = "schema"` defaults
                for arg, default in zip(node.args[::-1], node.defaults[::-1], strict=False):
                    if arg.arg == "code":
                        literals.append(default)
                for arg, kw_default in zip(node.kwonlyargs, node.kw_defaults, strict=True):
                    if arg.arg == "code" and kw_default is not None:
                        literals.append(kw_default)
            for lit in literals:
                if isinstance(lit, ast.Constant) and isinstance(lit.value, str):
                    used.setdefault(lit.value, f"{path.relative_to(root.parent)}:{lit.lineno}")
    return used


def test_every_code_used_in_src_is_declared() -> None:
    used = codes_used(REPO / "src" / "bipub")
    assert len(used) > 30, "the scan found too few codes: is it still looking at the right calls?"
    missing = {code: where for code, where in used.items() if code not in CODES}
    assert not missing, f"declare these codes in src/bipub/codes.py: {missing}"


def test_the_scan_finds_an_undeclared_code(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(
        "collector.warning(None, None, 'brand-new', 'x')\n"
        "Diagnostic('f', 1, 'another-new', 'x')\n"
        "def classify(m):\n    return Severity.ERROR, 'classified'\n"
    )
    assert set(codes_used(tmp_path / "pkg")) == {"brand-new", "another-new", "classified"}


def test_every_check_code_is_declared() -> None:
    assert [c for c in KNOWN_CODES if c not in CODES] == []


def test_every_code_has_a_one_line_explanation() -> None:
    for code in CODES.values():
        assert code.summary and "\n" not in code.summary and code.summary.endswith("."), code.name
        assert code.default in ("error", "warning", "qa"), code.name


def _collector() -> Collector:
    c = Collector()
    c.warning("content/en/posts/a.md", 3, "code-language", "language 'x' unknown")
    c.warning("content/en/posts/b.md", 4, "unsafe-link", "dropped")
    c.error("content/en/posts/c.md", 5, "schema", "title: required field is missing")
    return c


def test_levels_silence_escalate_and_never_lower_an_error() -> None:
    c = _collector()
    silenced = c.apply_levels({"code-language": "off", "unsafe-link": "error", "schema": "off"})
    assert [d.code for d in silenced] == ["code-language"]
    assert [(d.code, d.severity) for d in c.items] == [
        ("unsafe-link", Severity.ERROR),
        ("schema", Severity.ERROR),
    ]
    assert "diagnostics:" in c.items[0].message


def test_without_levels_nothing_changes() -> None:
    c = _collector()
    before = list(c.items)
    assert c.apply_levels({}) == []
    assert c.items == before


def test_ui_prints_the_code_after_each_message(capsys: pytest.CaptureFixture[str]) -> None:
    from bipub.commands.ui import Ui

    Ui(Path("."), 0).diagnostics(
        [Diagnostic("a.md", 3, "tag-spellings", "two spellings", Severity.WARNING)]
    )
    assert capsys.readouterr().err == "a.md:3: warning: two spellings [tag-spellings]\n"


def test_explain_prints_a_code_and_lists_all() -> None:
    from bipub.cli import main

    runner = CliRunner()
    one = runner.invoke(main, ["explain", "tag-spellings"])
    assert one.exit_code == 0
    assert one.output.startswith("tag-spellings  (pair; default: warning)")
    assert CODES["tag-spellings"].summary in one.output
    every = runner.invoke(main, ["explain"])
    assert every.exit_code == 0
    assert [line.split()[0] for line in every.output.splitlines()] == list(CODES)
    bad = runner.invoke(main, ["explain", "tag-speling"])
    assert bad.exit_code == 2
    assert "did you mean tag-spellings" in bad.output


def test_explain_accepts_the_code_as_printed() -> None:
    from bipub.cli import main

    result = CliRunner().invoke(main, ["explain", "[schema]"])
    assert result.exit_code == 0
    assert "always an error" in result.output
