#!/usr/bin/env python3
"""What the search index (issue 19, render/search.py) costs a build.

    PYTHONPATH=src .venv/bin/python bench/search_bench.py [--posts 1000] [--demo]

Builds the project once without the index (`bipub build --no-cache --only html`), then times,
in this process, the parts of the search step on the built pages: Kiwi's model load, and
per language the Korean stems and Pagefind's indexing (`pipeline.search_files`). `--posts N`
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
from functools import partial
from pathlib import Path

from bipub.config import load_config
from bipub.pipeline import _read_text, search_files
from bipub.render import search, urls
from bipub.write.output import published_files

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import generate  # noqa: E402 - bench/run.py's corpus setup


def cpu() -> float:
    """CPU seconds of this process and its finished children (Pagefind's binary): on a loaded
    machine the wall time says more about the other processes than about this one."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def measure(project: Path) -> None:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "bipub", "-q", "build", "--no-cache", "--only", "html"],
        cwd=project,
        check=True,
    )
    print(f"html build (no index): {time.perf_counter() - start:.2f} s")
    site = project / "site"
    config = load_config(project)
    url = urls.UrlBuilder(config.base_url)
    found = published_files(site)
    start, used = time.perf_counter(), cpu()
    search.Stemmer()._analyzer()
    print(f"Kiwi model load: {time.perf_counter() - start:.2f} s (CPU {cpu() - used:.2f} s)")
    for lang in config.codes:
        start, used = time.perf_counter(), cpu()
        files = list(search_files(found, partial(_read_text, site), [lang], url))
        size = sum(len(data) for _, _, data in files)
        print(
            f"[{lang}] index (read pages, stems, Pagefind): {time.perf_counter() - start:.2f} s "
            f"(CPU {cpu() - used:.2f} s), "
            f"{len(files)} files, {size / 1024:.0f} KiB"
        )


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
