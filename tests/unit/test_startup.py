"""Start-up: a command imports its own module only (cli.py imports each command when it is
run), and a light command none of the pipeline's heavy libraries."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO

PROBE = """
import sys
from bipub.cli import main
try:
    main(["explain", "config"])
except SystemExit:
    pass
heavy = ("pydantic", "jinja2", "markdown_it", "babel", "yaml", "pygments")
print(" ".join(sorted(m for m in sys.modules
                      if m.startswith("bipub.commands.") or m.split(".")[0] in heavy)))
"""


def test_a_command_imports_no_other_command_nor_the_pipeline() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=REPO,
        env={"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = result.stdout.split("\n")[-2].split()
    assert loaded == ["bipub.commands.explain_cmd", "bipub.commands.ui"], result.stdout
