"""Upgrading mermaid-cli draws the diagrams again without --no-cache: its installed version is part
of the diagram cache key, of the up-to-date check's inputs and of the fingerprint of every page
that shows a diagram (render/diagrams.py Diagrams.body_key); the other pages are kept."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from bipub import mermaid_cli
from bipub.pipeline import build
from bipub.render import diagrams as dg
from tests.conftest import PROJECTS

FENCE = "\n```mermaid\nflowchart LR\n  A[요청] --> B[응답]\n```\n"
KINDS = {"html"}


def _install(tool: Path, cli_version: str) -> None:
    for package, version in (("@mermaid-js/mermaid-cli", cli_version), ("mermaid", "11.14.0")):
        folder = tool / "node_modules" / package
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "package.json").write_text(json.dumps({"version": version}))
    (tool / "render.mjs").write_text("// fake\n")
    (tool / "package.json").write_text('{"type": "module"}')


def _fake_node(job: dict[str, Any], tool: Path) -> dict[str, dg.Drawn]:
    """render.mjs as a fake: each mermaid-cli version draws a little differently."""
    drawn_by = mermaid_cli.installed(tool)
    return {
        d["key"]: dg.Drawn(f'<svg id="{d["id"]}"><text>{drawn_by}</text></svg>')
        for d in job["diagrams"]
    }


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))  # its own diagram cache
    monkeypatch.setenv(mermaid_cli.TOOL_ENV, str(tmp_path / "tool"))
    monkeypatch.setattr(dg, "run_node", _fake_node)
    monkeypatch.setattr(dg, "chromium_path", lambda: "/usr/bin/chromium")
    _install(tmp_path / "tool", "11.17.0")
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    for lang in ("ko", "en"):
        post = root / "content" / lang / "posts" / "alpha.md"
        post.write_text(post.read_text("utf-8") + FENCE, "utf-8")
    return root


def test_upgrading_mermaid_cli_redraws_the_pages_with_diagrams_only(
    project: Path, tmp_path: Path
) -> None:
    site = project / "site"
    build(project, only=KINDS)
    alpha = site / "ko" / "blog" / "alpha" / "index.html"
    beta = site / "ko" / "blog" / "beta" / "index.html"
    assert "mermaid-cli@11.17.0" in alpha.read_text("utf-8")
    assert build(project, only=KINDS).up_to_date  # nothing changed: nothing done

    _install(tmp_path / "tool", "11.18.0")  # `npm ci` after a version bump
    beta_before = beta.stat().st_ino, beta.stat().st_mtime_ns
    result = build(project, only=KINDS)
    assert not result.up_to_date
    assert "mermaid-cli@11.18.0" in alpha.read_text("utf-8")
    assert "mermaid-cli@11.17.0" not in alpha.read_text("utf-8")
    english = (site / "en" / "blog" / "alpha" / "index.html").read_text("utf-8")
    assert "mermaid-cli@11.18.0" in english
    assert (beta.stat().st_ino, beta.stat().st_mtime_ns) == beta_before  # no diagram: kept
    assert result.reused > 0
