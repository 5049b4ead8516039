#!/usr/bin/env python3
"""CPU seconds of each stage of one `bipub build` in this (new) process: what session 16 used
to rank the stages after pairing of a build after one edit (issue 17). Runs the command line
(`bipub ARGS...`) with the stage functions wrapped by `time.process_time` (this process's
CPU while each runs; a stage that calls another counts it too), and prints them when the
command ends, before its process exits (cli.run ends it with os._exit).

    echo "x" >> /tmp/c5000/content/ko/posts/post-00007.md
    SOURCE_DATE_EPOCH=1775520000 PYTHONPATH=$PWD/src /usr/bin/time -f "%e wall %U user %S sys" \\
        .venv/bin/python bench/cpu_stages.py -v -C /tmp/c5000 build --out /dev/shm/o

On a machine other work shares, compare two trees by alternating them (each on its own copy
of the corpus: their caches' formats may differ). Nothing here is a test.
"""

from __future__ import annotations

import resource
import sys
import time
from collections.abc import Callable
from typing import Any

from bipub import buildstate, handover, pipeline, restore, uptodate
from bipub import cli as cli_module
from bipub.cache import BuildCache
from bipub.render import outputs, workers
from bipub.render.html import HtmlRenderer

SPENT: dict[str, list[float]] = {}

STAGES: list[tuple[Any, str]] = [
    (restore, "restore"),
    (pipeline, "load"),
    (pipeline, "pair"),
    (pipeline, "plan"),
    (HtmlRenderer, "plan"),
    (buildstate, "entry_keys"),
    (buildstate, "carry"),
    (pipeline, "html_pages"),
    (workers, "_keep_known"),
    (outputs.JsonApi, "render"),
    (outputs.Feeds, "render"),
    (outputs.Llms, "render"),
    (outputs.HtmlPages, "render"),
    (pipeline, "render"),
    (pipeline, "publish"),
    (BuildCache, "save"),
    (buildstate, "save"),
    (restore, "save"),
    (handover, "remember"),
    (uptodate, "save"),
]


def _wrapped(label: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            SPENT.setdefault(label, []).append(time.process_time() - started)

    return timed


def _report() -> None:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"this process {own.ru_utime:.2f} user + {own.ru_stime:.2f} sys s; children "
        f"{children.ru_utime + children.ru_stime:.2f} s",
        file=sys.stderr,
    )
    for label, times in SPENT.items():
        print(f"  {label:28s} {sum(times):7.3f} s  x{len(times)}", file=sys.stderr)


def main() -> None:
    for owner, name in STAGES:
        label = f"{getattr(owner, '__name__', owner).rsplit('.', 1)[-1]}.{name}"
        setattr(owner, name, _wrapped(label, getattr(owner, name)))
    flushed = cli_module.flushed

    def report_then(status: int) -> int:
        _report()
        done: int = flushed(status)
        return done

    cli_module.flushed = report_then  # (called by cli.run just before os._exit)
    sys.argv = ["bipub", *sys.argv[1:]]
    cli_module.run()


if __name__ == "__main__":
    main()
