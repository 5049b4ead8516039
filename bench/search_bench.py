#!/usr/bin/env python3
"""What the search index (issue 19, render/search.py) costs a build.

    PYTHONPATH=src .venv/bin/python bench/search_bench.py [--posts 1000] [--demo]

Builds the project once without the index (`bipub build --no-cache --only html`), then times
the index made from nothing (`build --only search`: every shard, Kiwi's model) and a build after
one Korean post's edit (the shard of that post only, render/search_shards.py), with the lines
`-v` prints about the shards. `--posts N`
uses the synthetic corpus of ../shared/bench/gen_corpus.py (N posts per language); `--demo`
this repository's demo; `--project DIR` a project already there. Nothing here is a test; machines are noisy (other builds running).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import generate  # noqa: E402 - bench/run.py's corpus setup


def cpu() -> float:
    """CPU seconds of this process and its finished children (Pagefind's binary): on a loaded
    machine the wall time says more about the other processes than about this one."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _run(project: Path, *args: str) -> tuple[float, float, str]:
    """One `bipub` command: its wall time, its CPU (children's) and its -v output."""
    start, used = time.perf_counter(), cpu()
    done = subprocess.run(
        [sys.executable, "-m", "bipub", "-v", *args],
        cwd=project,
        check=True,
        capture_output=True,
        text=True,
    )
    return time.perf_counter() - start, cpu() - used, done.stdout + done.stderr


def _search_lines(output: str) -> str:
    return "; ".join(
        part.strip() for part in output.replace("\n", ";").split(";") if "search index (" in part
    )


def measure(project: Path) -> None:
    wall, used, _ = _run(project, "build", "--no-cache", "--only", "html")
    print(f"html build (no index): {wall:.2f} s (CPU {used:.2f} s)")
    wall, used, out = _run(project, "build", "--only", "search")
    print(f"index, cold (every shard, Kiwi): {wall:.2f} s (CPU {used:.2f} s): {_search_lines(out)}")
    post = next(iter(sorted((project / "content" / "ko").rglob("*.md"))))
    text = post.read_text(encoding="utf-8")
    post.write_text(text + "\n" + text.split("\n")[-2] + "\n", encoding="utf-8")
    wall, used, out = _run(project, "build")
    print(f"build after one Korean edit: {wall:.2f} s (CPU {used:.2f} s): {_search_lines(out)}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=1000)
    parser.add_argument("--demo", action="store_true")
    parser.add_argument("--project", type=Path, help="an existing project (a generated corpus)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.project:
            project = args.project
        elif args.demo:
            project = Path(tmp) / "demo"
            project.mkdir()
            for part in ("bipub.yaml", "content", "status", "static"):
                src = HERE.parent / part
                if src.is_dir():
                    shutil.copytree(src, project / part)
                elif src.is_file():
                    shutil.copy2(src, project / part)
        else:
            project = generate(Path(tmp), args.posts)
        measure(project)


if __name__ == "__main__":
    main()
