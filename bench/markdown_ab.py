#!/usr/bin/env python3
"""Markdown parsing speed: bipub's sped-up parser against the stock one, in one process.

    .venv/bin/python bench/markdown_ab.py [--posts 50] [--rounds 9] [--corpus DIR] [--each]

Generates --posts posts per language with ../shared/bench/gen_corpus.py (or reads the .md files
under --corpus), then times, alternating the two parsers each round (A B, then B A, ...):

* parse  — `md.parse(body)` of every body;
* render_markdown — bipub's whole `render_markdown` of every body (parse, HTML, headings,
           text), Pygments' output coming from bipub.render.highlight's in-process cache;
* render_markdown, Pygments — the same with that cache emptied first, as in a cold build.

stock = `_stock_parser` (markdown-it-py configured as bipub configures it), fast = `_parser`
(the same, through bipub.render.markdown_fast). With --each: parse and render_markdown, for
stock, each of markdown_fast.SPEEDUPS alone and all of them. Prints ms per post, the minimum
and the median of the rounds, in CPU time of this process (time.process_time: time spent
waiting for a CPU that other processes hold is not counted). The machine's speed drifts:
compare the columns of one run, not runs.

Instructions instead of time (deterministic, whatever else runs): `--once VARIANT` (stock, all
or one of SPEEDUPS) parses (`--job render`: renders) the bodies from the 11th on, `--count` of
them, once, after warming up on the first ten; run it under callgrind with two counts and
subtract, e.g.

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        .venv/bin/python bench/markdown_ab.py --once all --count 50   # and --count 10
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
GEN = ROOT.parent / "shared" / "bench" / "gen_corpus.py"


def _bodies(corpus: Path) -> list[str]:
    out = []
    for path in sorted(corpus.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        if text.startswith("---\n"):
            text = text.split("---\n", 2)[2]
        out.append(text)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--posts", type=int, default=50, help="posts per language")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--corpus", type=Path, help="a folder of .md files (default: generate)")
    parser.add_argument(
        "--each", action="store_true", help="stock, each speedup alone, all of them"
    )
    parser.add_argument("--once", metavar="VARIANT", help="stock, all or a speedup's name")
    parser.add_argument("--count", type=int, default=50, help="with --once: bodies to parse")
    parser.add_argument("--job", choices=("parse", "render"), default="parse")
    args = parser.parse_args()

    from bipub.render.highlight import highlight
    from bipub.render.markdown import _parser, _render, _stock_parser
    from bipub.render.markdown_fast import SPEEDUPS, speed_up

    if args.once and args.once not in {"stock", "all", *SPEEDUPS}:
        parser.error(f"--once: one of stock, all, {', '.join(SPEEDUPS)}")

    if args.corpus:
        bodies = _bodies(args.corpus)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, str(GEN), tmp, str(args.posts)], check=True)
            bodies = _bodies(Path(tmp))
    if args.once:
        md = _stock_parser(False)
        if args.once != "stock":
            speed_up(md, only=None if args.once == "all" else {args.once})
        for body in bodies[:10]:
            _render(md, body, None)
        for body in bodies[10 : 10 + args.count]:
            if args.job == "parse":
                md.parse(body, {})
            else:
                _render(md, body, None)
        return
    variants = {"stock": _stock_parser(False), "fast": _parser(False)}

    # Results are dropped as they come (keeping them all would make the garbage collector's
    # passes longer, and the timing about memory).
    def parse(md: MarkdownIt) -> Callable[[], None]:
        def run() -> None:
            for body in bodies:
                md.parse(body, {})

        return run

    def render(md: MarkdownIt) -> Callable[[], None]:
        def run() -> None:
            for body in bodies:
                _render(md, body, None)

        return run

    def render_cold(md: MarkdownIt) -> Callable[[], None]:
        highlight.cache_clear()  # before the clock starts
        return render(md)

    def timings(job: Callable[[MarkdownIt], Callable[[], None]]) -> dict[str, list[float]]:
        times: dict[str, list[float]] = {name: [] for name in variants}
        for round_ in range(args.rounds):
            order = list(variants) if round_ % 2 == 0 else list(reversed(variants))
            for name in order:
                run = job(variants[name])
                start = time.process_time()
                run()
                times[name].append((time.process_time() - start) * 1000 / len(bodies))
        return times

    print(f"{len(bodies)} bodies, {sum(map(len, bodies)) / len(bodies):.0f} characters each")
    if args.each:
        for name in SPEEDUPS:
            variants[f"+{name}"] = speed_up(_stock_parser(False), only={name})
        variants["all"] = variants.pop("fast")
        for md in variants.values():
            parse(md)()
            render(md)()
        parsed, rendered = timings(parse), timings(render)
        stock_parse, stock_render = min(parsed["stock"]), min(rendered["stock"])
        print("| ms per post (min) | parse | /stock | render_markdown | /stock |")
        print("|---|---:|---:|---:|---:|")
        for name in variants:
            p, r = min(parsed[name]), min(rendered[name])
            print(
                f"| {name} | {p:.3f} | {p / stock_parse:.2f} | {r:.3f} | {r / stock_render:.2f} |"
            )
        return

    for md in variants.values():  # warm up: imports, lexers, regex caches
        parse(md)()
        render(md)()

    print("| ms per post | stock min | fast min | stock median | fast median | fast/stock |")
    print("|---|---:|---:|---:|---:|---:|")
    jobs = (
        ("parse", parse),
        ("render_markdown", render),
        ("render_markdown, Pygments", render_cold),
    )
    for label, job in jobs:
        times = timings(job)
        s, f = times["stock"], times["fast"]
        print(
            f"| {label} | {min(s):.3f} | {min(f):.3f} | {statistics.median(s):.3f} "
            f"| {statistics.median(f):.3f} | {min(f) / min(s):.2f} |"
        )


if __name__ == "__main__":
    main()
