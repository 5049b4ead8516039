#!/usr/bin/env python3
"""CPU seconds of the I/O stages of an update after one edit (issue 17): reading and saving
the build cache, the BuildState and the up-to-date record, the prescan, the writer's work per
file (add, keep), the record of the output, the swap. For a machine other work shares: CPU
seconds of this process (`time.process_time`), the least of the runs after the first.

    python ../shared/bench/gen_corpus.py /tmp/corpus-1000 1000      # + bench/run.py's bipub.yaml
    PYTHONPATH=$PWD/src .venv/bin/python bench/io_stages.py /tmp/corpus-1000 /dev/shm/o 4
    ... SERVE=1 ... bench/io_stages.py ...     # as `bipub serve` builds: in memory, no fork

Each run appends a paragraph to one post and builds into the output folder given (BIPUB_WORKERS
=1); the first run (which may be a full build: another bipub's caches) is shown, not counted.
Wrapped functions measure process CPU while they run (a thread's time would include the
others'). Nothing here is a test.
"""

from __future__ import annotations

import collections
import functools
import importlib
import importlib.util
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ["BIPUB_WORKERS"] = "1"

import bipub.pipeline as pipeline  # (after BIPUB_WORKERS)
from bipub import buildstate, uptodate
from bipub.cache import BuildCache
from bipub.project import Project
from bipub.render import cards
from bipub.write import output

spent: collections.Counter[str] = collections.Counter()


def wrap(owner: Any, name: str, label: str) -> None:
    real: Callable[..., Any] | None = getattr(owner, name, None)
    if real is None:  # (a bipub without it)
        return

    @functools.wraps(real)
    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return real(*args, **kwargs)
        finally:
            spent[label] += time.process_time() - start

    setattr(owner, name, timed)


def main() -> None:
    root, out = Path(sys.argv[1]).absolute(), Path(sys.argv[2]).absolute()
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    serve = os.environ.get("SERVE") == "1"
    wrap(BuildCache, "load", "BuildCache.load")
    wrap(BuildCache, "save", "BuildCache.save")
    state_load = "load_noted" if hasattr(buildstate, "load_noted") else "load"
    wrap(buildstate, state_load, "buildstate.load")
    wrap(buildstate, "save", "buildstate.save")
    wrap(uptodate.Prescan, "__init__", "prescan start")
    wrap(uptodate.Prescan, "scan", "prescan.scan (here)")
    wrap(uptodate.Prescan, "known_output", "prescan.known_output (here)")
    wrap(uptodate, "save", "uptodate.save")
    wrap(output.OutputTree, "add", "OutputTree.add")
    wrap(output.OutputTree, "keep", "OutputTree.keep")
    wrap(output.OutputTree, "next_record", "OutputTree.next_record")
    wrap(pipeline, "publish", "publish")
    wrap(pipeline, "_remember_pages", "remember pages")  # (a bipub from before handover.py)
    if importlib.util.find_spec("bipub.handover") is not None:
        wrap(importlib.import_module("bipub.handover"), "remember_pages", "remember pages")
    wrap(cards, "remember", "cards.remember")
    wrap(pipeline, "_build", "the whole build")
    kept = None
    only = None
    if serve:
        threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()  # (no fork)
        project = Project(root)
        kept = pipeline.Kept(BuildCache.load(project.cache), buildstate.load(project, out))
        only = {"html"}
        pipeline.build(root, out=out, only=only, kept=kept)
    post = root / "content/ko/posts/post-00007.md"
    rows: list[dict[str, float]] = []
    for i in range(runs):
        spent.clear()
        post.write_text(post.read_text("utf-8") + f"\n추가 문단 {i} {time.time_ns()}.\n", "utf-8")
        pipeline.build(root, out=out, only=only, kept=kept)
        rows.append(dict(spent))
    labels = sorted({label for row in rows for label in row}, key=lambda k: -rows[-1].get(k, 0))
    print(f"| stage ({'serve' if serve else 'build'}) | least of runs 2.. | first run |")
    print("|---|---|---|")
    for label in labels:
        least = min(row.get(label, 0.0) for row in rows[1:]) if len(rows) > 1 else 0.0
        print(f"| {label} | {least * 1000:.1f} ms | {rows[0].get(label, 0.0) * 1000:.1f} ms |")


if __name__ == "__main__":
    main()
