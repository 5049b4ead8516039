#!/usr/bin/env python3
"""Where a quick rebuild's time goes: stage timers around src/bipub/quick.py, in one process.

    .venv/bin/python bench/quick_stages.py PROJECT [POST]

Appends a line to POST (default: the first file of content/ko/posts/), builds, and prints the
seconds of each stage and of the imports. PROJECT must have been built once (it needs a kit).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

started = time.perf_counter()
import bipub.cli  # noqa: E402,F401 - timed: what the command imports before it builds
from bipub import pipeline, quick, uptodate  # noqa: E402
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
    project = Path(sys.argv[1]).absolute()
    posts = sorted((project / "content" / "ko" / "posts").glob("*.md"))
    post = Path(sys.argv[2]) if len(sys.argv) > 2 else posts[0]
    post.write_text(post.read_text(encoding="utf-8") + f"\n{time.time_ns()}\n", encoding="utf-8")
    for name in ("scan_inputs", "load", "output_intact", "save"):
        timed(uptodate, name)
    for name in ("_load", "_edited", "_entry_kits", "_pair", "_pages", "_feeds", "_status"):
        timed(quick, name)
    timed(output, "replace_files")
    print(f"imports: {imported:.3f} s")
    start = time.perf_counter()
    result = pipeline.build(project)
    print(f"build: {time.perf_counter() - start:.3f} s ({result.cache_note})")


if __name__ == "__main__":
    main()
