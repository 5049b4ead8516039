"""Issue 19: without mermaid-cli a diagram is an error naming its file:line and how to install
(never its source shown silently in its place); nothing is published."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_a_diagram_without_mermaid_cli_is_an_error_saying_how_to_install(
    tmp_path: Path, make_project, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project("minimal")
    post = project / "content" / "ko" / "posts" / "alpha.md"
    post.write_text(
        post.read_text("utf-8") + "\n```mermaid\nflowchart LR\n  A[요청] --> B[응답]\n```\n",
        "utf-8",
    )
    line = post.read_text("utf-8").split("\n").index("```mermaid") + 1
    monkeypatch.setenv("BIPUB_MERMAID_DIR", str(tmp_path / "not-installed"))
    result = cli("-C", str(project), "-q", "build", "--only", "html")
    assert result.exit_code == 1
    assert f"content/ko/posts/alpha.md:{line}: mermaid diagram cannot be drawn: " in result.stderr
    assert "mermaid-cli is not installed" in result.stderr
    assert "scripts/bootstrap.sh" in result.stderr and "npm ci" in result.stderr
    assert not (project / "site").exists()


def test_a_damaged_mermaid_cli_is_an_error_naming_the_file(
    tmp_path: Path, make_project, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tools/mermaid/package.json that is not valid JSON is named with its error: it is not
    "not installed" (npm ci would not even run on it)."""
    project = make_project("minimal")
    post = project / "content" / "ko" / "posts" / "alpha.md"
    post.write_text(
        post.read_text("utf-8") + "\n```mermaid\nflowchart LR\n  A[요청] --> B[응답]\n```\n",
        "utf-8",
    )
    tool = tmp_path / "tool"
    for package in ("@mermaid-js/mermaid-cli", "mermaid"):
        (tool / "node_modules" / package).mkdir(parents=True)
        (tool / "node_modules" / package / "package.json").write_text('{"version": "11.17.0"}')
    (tool / "render.mjs").write_text("// fake\n")
    (tool / "package.json").write_text('{\n  "type": "module",\n  "dependencies": {\n}\n')
    monkeypatch.setenv("BIPUB_MERMAID_DIR", str(tool))
    result = cli("-C", str(project), "-q", "build", "--only", "html")
    assert result.exit_code == 1
    assert f"mermaid-cli in {tool} is damaged: {tool / 'package.json'} is not valid JSON" in (
        result.stderr
    )
    assert "line 5 column 1" in result.stderr and "not installed" not in result.stderr
    assert not (project / "site").exists()
