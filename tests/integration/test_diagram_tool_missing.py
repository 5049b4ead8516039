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
