"""Where mermaid-cli is installed (tools/mermaid, or $BIPUB_MERMAID_DIR) and which version it is.

render/diagrams.py draws with it; uptodate.py counts its version files among a build's inputs
(upgrading mermaid-cli is a change: the build runs, and the pages that show a diagram are drawn
again: their fingerprints include `installed`'s answer through Diagrams.stamp).

`installed` tells three cases apart: installed (the versions), not installed (a file missing:
None), and damaged (a version file present but unreadable or not valid JSON: `ToolBroken`, naming
the file and the error, never reported as "not installed").
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


class ToolBroken(Exception):
    """A file of the installed tool is there but cannot be read or is not valid JSON."""


def tool_dir() -> Path:
    """tools/mermaid of bipub's source tree, or $BIPUB_MERMAID_DIR."""
    configured = os.environ.get(TOOL_ENV)
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[2] / "tools" / "mermaid"


def _json(path: Path) -> dict[str, object]:
    """A JSON object from `path`; FileNotFoundError if it is not there, ToolBroken if it is
    there but unreadable or not a JSON object."""
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError) as exc:
        raise ToolBroken(f"{path} cannot be read: {exc}") from exc
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ToolBroken(f"{path} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ToolBroken(f"{path} is not valid JSON for a package: not an object")
    return data


def installed(tool: Path) -> str | None:
    """mermaid-cli's and mermaid's versions as installed in `tool` ("@mermaid-js/mermaid-cli@
    11.17.0 mermaid@11.14.0"); None if it is not installed (its package.json, render.mjs or a
    package missing). Raises ToolBroken for a version file that is there but damaged."""
    try:
        _json(tool / "package.json")  # node reads it too ("type": "module")
        versions = []
        for package in PACKAGES:
            path = tool / "node_modules" / package / "package.json"
            found = _json(path).get("version")
            if not isinstance(found, str) or not found:
                raise ToolBroken(f"{path} has no version")
            versions.append(f"{package}@{found}")
    except FileNotFoundError:
        return None
    if not (tool / "render.mjs").is_file():
        return None
    return " ".join(versions)
