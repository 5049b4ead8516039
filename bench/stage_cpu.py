#!/usr/bin/env python3
"""CPU seconds per stage of one `bipub build` run as the command line runs it (a new process),
for a machine that other work shares: rank the stages by their CPU, not by a profile (cProfile
overstates flat passes ~10x) nor by wall times (the neighbours').

    PYTHONPATH=$PWD/src .venv/bin/python bench/stage_cpu.py [-n RUNS] [--edit FILE] -- BIPUB_ARGS

e.g. a build after one body edit, three times:

    PYTHONPATH=$PWD/src .venv/bin/python bench/stage_cpu.py -n 3 \
        --edit content/ko/posts/post-00007.md -- -C /tmp/corpus-5000 build

Each run is a child process running the command line (`bipub.cli.run`, the prescan's fork,
its read-ahead and imports as usual) with the stage functions wrapped: each prints its CPU
seconds twice, `own` (time.thread_time: the build's own thread) and `cpu` (time.process_time:
with the threads the process started meanwhile, not its children), `sys` and `flt` (the
build's own thread's system seconds and minor page faults, getrusage RUSAGE_THREAD; the
process's in the last line), and when it ended (wall
seconds since the interpreter ran the wrapper: e.g. "pair ... done at" is start → pairing
done, but the interpreter's own start-up, ~20 ms). The imports are measured
around the first import of bipub.pipeline (where the command line imports the stages). With
--edit, a line is appended to FILE (relative to the project) before each run. Nothing here is
a test.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

# what the child runs: the stage functions wrapped, then the command line
_CHILD = r"""
import os, sys, time, builtins, resource
T0 = time.perf_counter()
def _thread():
    r = resource.getrusage(resource.RUSAGE_THREAD)
    return r.ru_stime, r.ru_minflt
marks = {}
walls = {}
def _timed(label, fn):
    def timed(*args, **kwargs):
        own, cpu, (sys0, flt0) = time.thread_time(), time.process_time(), _thread()
        try:
            return fn(*args, **kwargs)
        finally:
            o, c, s_, f_ = marks.get(label, (0.0, 0.0, 0.0, 0))
            sys1, flt1 = _thread()
            marks[label] = (
                o + time.thread_time() - own, c + time.process_time() - cpu,
                s_ + sys1 - sys0, f_ + flt1 - flt0,
            )
            walls[label] = time.perf_counter() - T0
    return timed
_import = builtins.__import__
def _importing(name, *args, **kwargs):
    if name == "bipub.pipeline" and "imports (stages)" not in marks:
        own, cpu, (sys0, flt0) = time.thread_time(), time.process_time(), _thread()
        module = _import(name, *args, **kwargs)
        sys1, flt1 = _thread()
        marks["imports (stages)"] = (
            time.thread_time() - own, time.process_time() - cpu, sys1 - sys0, flt1 - flt0
        )
        _wrap()
        return module
    return _import(name, *args, **kwargs)
def _wrap():
    from bipub import buildstate, cache, handover, pipeline, restore, uptodate
    from bipub.pair import site
    from bipub.render import html, outputs, workers
    for mod, name, label in [
        (pipeline, "_build", "whole build (_build)"),
        (pipeline, "up_to_date", "up_to_date (the prescan's verdict)"),
        (restore, "restore", "restore"),
        (cache.BuildCache, "load", "  build cache"),
        (buildstate, "load_noted", "  build state"),
        (restore.EntryStore, "load", "  entries file"),
        (pipeline, "load", "load"),
        (pipeline, "pair", "pair"),
        (site, "_pair_documents", "  _pair_documents"),
        (site.PairMemo, "keep", "    PairMemo.keep (bind)"),
        (site, "entry_taxa", "  entry_taxa"),
        (site, "join_tables", "  join_tables"),
        (site.PairMemo, "carry_posts", "  carry_posts"),
        (site, "collect_series", "  collect_series"),
        (site, "check_assets", "  check_assets"),
        (pipeline, "plan", "plan"),
        (html.HtmlRenderer, "plan", "  HtmlRenderer.plan"),
        (html.HtmlRenderer, "_plan_entries", "    _plan_entries"),
        (pipeline, "html_pages", "html_pages (keys, carry)"),
        (buildstate, "entry_keys", "  entry_keys"),
        (buildstate, "carry", "  carry"),
        (pipeline, "render", "render"),
        (outputs.HtmlPages, "render", "  HtmlPages.render"),
        (workers, "keep_known", "    keep_known"),
        (outputs.JsonApi, "render", "  JsonApi.render"),
        (outputs.Feeds, "render", "  Feeds.render"),
        (outputs.Llms, "render", "  Llms.render"),
        (pipeline, "publish", "publish"),
        (handover, "remember", "saves (remember)"),
        (cache.BuildCache, "save", "  build cache saved"),
        (buildstate, "save", "  build state saved"),
        (restore, "save", "  entries file saved"),
        (uptodate, "save", "up-to-date record"),
    ]:
        raw = vars(mod)[name]
        if isinstance(raw, classmethod):
            setattr(mod, name, classmethod(_timed(label, raw.__func__)))
        else:
            setattr(mod, name, _timed(label, raw))
builtins.__import__ = _importing
started = (time.thread_time(), time.process_time())
_exit, _pid = os._exit, os.getpid()
def _report(status):
    if os.getpid() != _pid:  # (a forked child: the prescan, a render helper)
        _exit(status)
    own = time.thread_time() - started[0]
    cpu = time.process_time() - started[1]
    children = os.times().children_user + os.times().children_system
    for label, (o, c, s_, f_) in marks.items():
        print(f"{label:28} own {o:6.3f}  cpu {c:6.3f}  sys {s_:6.3f}  flt {f_:7d}  "
              f"done at {walls.get(label, 0):6.3f} s wall", file=sys.stderr)
    r = resource.getrusage(resource.RUSAGE_SELF)
    print(f"{'process':28} own {own:6.3f}  cpu {cpu:6.3f}  sys {r.ru_stime:6.3f}  "
          f"flt {r.ru_minflt:7d}  children {children:6.3f}", file=sys.stderr)
    _exit(status)
os._exit = _report
sys.argv = ["bipub", *sys.argv[1:]]
from bipub import uptodate as _uptodate  # (imported by the command line before the stages)
_uptodate.Prescan.scan = _timed("prescan's answer (scan)", _uptodate.Prescan.scan)
import bipub.cli
bipub.cli.run()
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--runs", type=int, default=1)
    parser.add_argument("--edit", help="a file (relative to the project) to append a line to")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="-- then bipub's arguments")
    options = parser.parse_args()
    args = options.args[1:] if options.args[:1] == ["--"] else options.args
    project = Path(args[args.index("-C") + 1]) if "-C" in args else Path.cwd()
    env = {**os.environ, "SOURCE_DATE_EPOCH": os.environ.get("SOURCE_DATE_EPOCH", "1798761600")}
    for run in range(options.runs):
        if options.edit:
            with (project / options.edit).open("a", encoding="utf-8") as f:
                f.write(f"\nstage_cpu edit {run} {os.getpid()}\n")
        print(f"--- run {run + 1}", file=sys.stderr, flush=True)
        done = subprocess.run([sys.executable, "-c", _CHILD, *args], env=env, check=False)
        if done.returncode:
            return done.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
