"""Where mermaid-cli is installed (tools/mermaid, or $BIPUB_MERMAID_DIR) and which version it is.

render/diagrams.py draws with it; uptodate.py counts its version files among a build's inputs
(upgrading mermaid-cli is a change: the build runs, and the pages that show a diagram are drawn
again: their fingerprints include `installed`'s answer through Diagrams.stamp).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Final

TOOL_ENV: Final = "BIPUB_MERMAID_DIR"
#: the installed packages whose versions decide how a diagram is drawn
PACKAGES: Final = ("@mermaid-js/mermaid-cli", "mermaid")
#: every file `installed` reads, relative to the tool folder (uptodate.py watches them)
VERSION_FILES: Final = (
    "package.json",
    "render.mjs",
    *(f"node_modules/{package}/package.json" for package in PACKAGES),
)


def tool_dir() -> Path:
    """tools/mermaid of bipub's source tree, or $BIPUB_MERMAID_DIR."""
    configured = os.environ.get(TOOL_ENV)
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[2] / "tools" / "mermaid"


def installed(tool: Path) -> str | None:
    """mermaid-cli's and mermaid's versions as installed in `tool` ("@mermaid-js/mermaid-cli@
    11.17.0 mermaid@11.14.0"); None if it is not installed."""
    versions = []
    for package in PACKAGES:
        try:
            data = json.loads((tool / "node_modules" / package / "package.json").read_text("utf-8"))
        except (OSError, ValueError):
            return None
        versions.append(f"{package}@{data.get('version')}")
    if not (tool / "render.mjs").is_file():
        return None
    return " ".join(versions)
