#!/usr/bin/env python3
"""Where a quick rebuild's time goes: stage timers around src/bipub/quick.py, in one process.

    .venv/bin/python bench/quick_stages.py PROJECT [POST]

Appends a line to POST (default: the first file of content/ko/posts/), starts the prescan as
`bipub build` does (uptodate.Prescan: the input scan, record and output check in a forked child
while the rest is imported), builds, and prints the seconds of each stage and of the imports —
in this process; `Prescan.scan`/`intact` are the waits for the child. PROJECT must have been
built once (it needs a kit).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

started = time.perf_counter()
import bipub.cli  # noqa: E402,F401 - timed: what the command imports before it starts the prescan
from bipub import uptodate  # noqa: E402
from bipub.project import Project  # noqa: E402

PROJECT = Path(sys.argv[1]).absolute() if len(sys.argv) > 1 else Path.cwd()
POSTS = sorted((PROJECT / "content" / "ko" / "posts").glob("*.md"))
POST = Path(sys.argv[2]) if len(sys.argv) > 2 else POSTS[0]
POST.write_text(POST.read_text(encoding="utf-8") + f"\n{time.time_ns()}\n", encoding="utf-8")
cli_imported = time.perf_counter() - started
TARGET, KEY = uptodate.build_key(Project(PROJECT), None, None, None)
PRESCAN = uptodate.Prescan(PROJECT, TARGET, KEY)  # as `bipub build` does, before the imports
from bipub import pipeline, quick  # noqa: E402
from bipub.write import output  # noqa: E402

imported = time.perf_counter() - started


def timed(module: Any, name: str) -> None:
    real: Callable[..., Any] = getattr(module, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            print(f"{module.__name__}.{name}: {time.perf_counter() - start:.3f} s")

    setattr(module, name, wrapper)


def main() -> None:
    for name in ("scan", "intact"):  # waits for the prescan's child, in this process
        timed(uptodate.Prescan, name)
    for name in ("save",):
        timed(uptodate, name)
    for name in ("_load", "_edited", "_entry_kits", "_pair", "_pages", "_feeds", "_status"):
        timed(quick, name)
    timed(output, "replace_files")
    print(f"imports: {imported:.3f} s (bipub.cli {cli_imported:.3f} s)")
    start = time.perf_counter()
    with PRESCAN:
        result = pipeline.build(PROJECT, prescan=PRESCAN)
    print(f"build: {time.perf_counter() - start:.3f} s ({result.cache_note})")


if __name__ == "__main__":
    main()
