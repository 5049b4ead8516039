"""`diagnostics:` in bipub.yaml: each warning prints its code; a code can be silenced, made an
error, or left as it is; an error cannot be silenced; unknown codes are config errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

WARN = "content/en/posts/alpha.md: warning: code block language 'klingon' is unknown"


@pytest.fixture
def project(make_project: Callable[[str], Path]) -> Path:
    """The minimal project with one warning: a code block in an unknown language."""
    root = make_project("minimal")
    post = root / "content/en/posts/alpha.md"
    post.write_text(
        post.read_text(encoding="utf-8").replace("```python", "```klingon"), encoding="utf-8"
    )
    return root


def _config(root: Path, extra: str) -> None:
    path = root / "bipub.yaml"
    path.write_text(path.read_text(encoding="utf-8") + extra, encoding="utf-8")


def test_a_warning_prints_its_code(project: Path, cli: Callable[..., Any]) -> None:
    result = cli("-C", str(project), "build", "--only", "html")
    assert result.exit_code == 0, result.stderr
    line = next(ln for ln in result.stderr.splitlines() if "klingon" in ln)
    assert line.startswith(WARN) and line.endswith(" [code-language]")


def test_off_silences_a_code_and_verbose_says_so(project: Path, cli: Callable[..., Any]) -> None:
    _config(project, "diagnostics:\n  code-language: off\n")
    result = cli("-C", str(project), "-v", "build", "--only", "html")
    assert result.exit_code == 0, result.stderr
    assert "klingon" not in result.stderr
    assert "1 warning silenced by `diagnostics:` in bipub.yaml (code-language)" in result.stderr
    again = cli("-C", str(project), "build", "--only", "html")  # up to date: still silent
    assert again.exit_code == 0 and "klingon" not in again.stderr


def test_error_fails_the_build_before_anything_is_written(
    project: Path, cli: Callable[..., Any]
) -> None:
    _config(project, "diagnostics:\n  code-language: error\n")
    result = cli("-C", str(project), "build", "--only", "html")
    assert result.exit_code == 1
    assert "content/en/posts/alpha.md: code block language 'klingon'" in result.stderr
    assert "(an error by `diagnostics:` in bipub.yaml)" in result.stderr
    assert not (project / "site").exists()


def test_warning_keeps_a_code_as_it_is(project: Path, cli: Callable[..., Any]) -> None:
    _config(project, "diagnostics:\n  code-language: warning\n")
    result = cli("-C", str(project), "build", "--only", "html")
    assert result.exit_code == 0 and "[code-language]" in result.stderr


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            "diagnostics:\n  code-langauge: off\n",
            "bipub.yaml:16: diagnostics.code-langauge: unknown diagnostic code 'code-langauge' "
            "(did you mean 'code-language'?)",
        ),
        (
            "diagnostics:\n  schema: off\n",
            "diagnostics: 'schema' is always an error; it can not be set to off",
        ),
        ("diagnostics:\n  code-language: loud\n", "bipub.yaml:16: diagnostics.code-language"),
    ],
)
def test_bad_levels_are_config_errors(
    project: Path, cli: Callable[..., Any], extra: str, message: str
) -> None:
    _config(project, extra)
    result = cli("-C", str(project), "build")
    assert result.exit_code == 2
    assert message in result.stderr


def test_check_uses_diagnostics_and_check_severity_wins(
    make_project: Callable[[str], Path], cli: Callable[..., Any]
) -> None:
    root = make_project("minimal")
    first = cli("-C", str(root), "check", "--format", "json")
    assert '"code": "missing"' in first.stdout  # ko/beta.md has no English version
    _config(root, "diagnostics:\n  missing: off\n")
    silenced = cli("-C", str(root), "check", "--format", "json")
    assert '"code": "missing"' not in silenced.stdout
    _config(root, "check:\n  severity:\n    missing: error\n")
    strict = cli("-C", str(root), "check", "--format", "json")
    assert strict.exit_code == 1 and '"code": "missing"' in strict.stdout


@pytest.mark.parametrize("level", ["off", "error"])
def test_an_incremental_rebuild_applies_the_levels_too(
    make_project: Callable[[str], Path], cli: Callable[..., Any], level: str
) -> None:
    """A body edit after a full build (the incremental path) reports as a full build would."""
    root = make_project("minimal")
    _config(root, f"diagnostics:\n  code-language: {level}\n")
    first = cli("-C", str(root), "build", "--only", "html")
    assert first.exit_code == 0, first.stderr
    before = (root / "site/en/blog/alpha/index.html").read_bytes()
    post = root / "content/en/posts/alpha.md"
    post.write_text(
        post.read_text(encoding="utf-8").replace("```python", "```klingon"), encoding="utf-8"
    )
    result = cli("-C", str(root), "-v", "build", "--only", "html")
    if level == "off":
        assert result.exit_code == 0, result.stderr
        assert "klingon" not in result.stderr
    else:
        assert result.exit_code == 1
        assert "(an error by `diagnostics:` in bipub.yaml)" in result.stderr
        assert (root / "site/en/blog/alpha/index.html").read_bytes() == before
