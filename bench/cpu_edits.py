#!/usr/bin/env python3
"""CPU seconds of an update after one edit, per kind of edit: for a machine that other work
shares, where wall times say more about the neighbours than about bipub.

    python ../shared/bench/gen_corpus.py /tmp/corpus-5000 5000   # + bench/run.py's bipub.yaml
    .venv/bin/bipub -C /tmp/corpus-5000 build                      # once: the cache and state
    PYTHONPATH=$PWD/src .venv/bin/python bench/cpu_edits.py /tmp/corpus-5000 [KIND,...] [--no-fast] [--serve-only]

For each edit — a body, a title, the tags, the date, two posts joining a series, a new post,
that post deleted, a post made a draft and back — it measures

* `build`: `bipub build` in a child process (the build state read back from .bipub-cache/):
  its user + system CPU seconds, its forked workers' included, and its wall seconds;
* `serve`: the HTML pages' update `bipub serve` runs after a save (with the build cache, the
  BuildState and the pairing kept in memory, as the server keeps them; built by the server's
  own `ServeBuilds`: the paths the edit changed given as the watcher reports them, the output
  folder watched), in its two steps (fast render, render/first_pages.py): `first` is what a
  reader waits for — CPU seconds (this process's and those of the workers and checking
  processes it started and waited for) and wall seconds until the first publish's swap (the
  edited post's page, its blog's first page); `pages` is both steps, until the deferred pages
  are published too (the same as `first` when nothing was deferred). The second argument
  names the output kinds of that build (`html` by default; `html,json,feeds,llms` for a bipub
  from before the server published its pages first). The server's HTTP thread runs meanwhile,
  as in `bipub serve` (no build forks while it does). `--no-fast` measures one step, as the
  server's first build runs; `--serve-only` leaves out the `build` column. After each update,
  the other outputs are built as the server builds them (not timed): the next update finds
  the output folder as the server leaves it.

Each edit is made again (with another word) for the second column, so both measure one edit.
The project is left edited (a scratch corpus). Nothing here is a test.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import resource
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def edits(posts: Path, run: int) -> list[tuple[str, Callable[[int], None]]]:
    """The edits, each called with a number that makes its change new (`run`: which pass)."""
    post, other, third = (posts / f"post-{n}.md" for n in ("00007", "00008", "00009"))

    def body(i: int) -> None:
        post.write_text(post.read_text(encoding="utf-8") + f"\n추가 문단 {i}.\n", "utf-8")

    def title(i: int) -> None:
        _replace(post, "\ntitle: ", f"\ntitle: ({i}) ")

    def tags(i: int) -> None:
        _replace(post, "\ntags: [", f"\ntags: [cpu{i}-{time.time_ns()}, ")

    def date(i: int) -> None:
        text = post.read_text(encoding="utf-8")
        day = re.search(r"\ndate: (\d{4}-\d\d-\d\d)", text)
        assert day is not None
        earlier = dt.date.fromisoformat(day.group(1)) - dt.timedelta(days=30)
        post.write_text(text.replace(day.group(0), f"\ndate: {earlier}", 1), encoding="utf-8")

    def series(i: int) -> None:
        for number, member in enumerate((post, other), 1):
            text = re.sub(r"\nseries: [^\n]*\nseries_order: \d+", "", member.read_text("utf-8"))
            extra = f"\nseries: cpu series {i}\nseries_order: {number}\ntitle: "
            member.write_text(text.replace("\ntitle: ", extra, 1), encoding="utf-8")

    def new(i: int) -> None:
        (posts / f"cpu-new-{run}.md").write_text(post.read_text(encoding="utf-8"), "utf-8")

    def delete(i: int) -> None:
        (posts / f"cpu-new-{run}.md").unlink()

    def draft(i: int) -> None:
        text = third.read_text(encoding="utf-8")
        if "\ndraft: true" in text:
            third.write_text(text.replace("\ndraft: true", "", 1), encoding="utf-8")
        else:
            third.write_text(text.replace("\ntitle: ", "\ndraft: true\ntitle: ", 1), "utf-8")

    return [
        ("body", body),
        ("title", title),
        ("tags", tags),
        ("date", date),
        ("series", series),
        ("new post", new),
        ("delete post", delete),
        ("draft on", draft),
        ("draft off", draft),
    ]


def _content(project: Path) -> dict[str, tuple[int, int, int]]:
    """content/'s files (not its folders: a file added or removed changes its folder's time,
    which the watcher does not report)."""
    return {
        str(path): (st.st_mtime_ns, st.st_ctime_ns, st.st_size)
        for path in (project / "content").rglob("*")
        if not stat.S_ISDIR((st := path.lstat()).st_mode)
    }


def _changed(project: Path, before: dict[str, tuple[int, int, int]]) -> frozenset[str]:
    """The files of content/ an edit added, removed or changed: what `bipub serve`'s watcher
    (watchfiles) reports. (Until session 24 the folder of a file added or removed was given
    too, and each such update scanned every input again: ~0.07 s at 5,000 posts a language
    that the server does not spend.)"""
    now = _content(project)
    return frozenset(p for p in now.keys() | before.keys() if now.get(p) != before.get(p))


def _server_builds(project: Path, kept: object, build: Callable[..., object]) -> Any:
    """`bipub serve`'s own builds (its output folder watched: bipub.serve.ServeBuilds), or,
    for a bipub from before them, pipeline.build with the change set."""
    try:
        from bipub.serve import ServeBuilds
        from bipub.write.tree_watch import TreeWatch
    except ImportError:

        def builds(only: set[str], changed: frozenset[str] | None) -> object:
            return build(project, only=only, kept=kept, changed=changed)

        return builds
    return ServeBuilds(project, project / "site", kept, build, TreeWatch())


def _serving(site: Path) -> None:
    """The server's HTTP thread, answering on 127.0.0.1 while the updates run (serve.py
    `serve`): as in `bipub serve`, no build forks while another thread runs (parallel.can_fork),
    so the pages are fingerprinted and rendered in this process."""
    try:
        from http.server import ThreadingHTTPServer

        from bipub.serve import ServeStatus, make_handler
    except ImportError:
        return
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(site, ServeStatus()))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()


class Mark:
    """CPU seconds (this process and its waited-for children) and wall seconds since
    `start`, taken at the first publish's swap (`on_publish`)."""

    def __init__(self) -> None:
        self.cpu, self.children, self.wall = (
            time.process_time(),
            _children_cpu(),
            time.perf_counter(),
        )
        self.at: tuple[float, float] | None = None

    def now(self) -> tuple[float, float]:
        return (
            time.process_time() - self.cpu + _children_cpu() - self.children,
            time.perf_counter() - self.wall,
        )

    def published(self) -> None:
        if self.at is None:
            self.at = self.now()


def serve_update(builds: Any, kinds: set[str], changed: frozenset[str], fast: bool) -> list[float]:
    """One update as `bipub serve` runs it (serve.py `rebuild`): [first publish CPU, wall,
    both steps' CPU, wall]."""
    mark = Mark()
    first = None
    if fast and hasattr(builds, "idle"):
        from bipub.render.first_pages import FirstPages

        first = FirstPages(())
        builds(kinds, changed, first=first, on_publish=mark.published)
    else:
        builds(kinds, changed)
    at_first = mark.at or mark.now()  # (nothing published, or a bipub without on_publish)
    if first is not None and first.deferred:
        builds(kinds, frozenset())  # the second step: the deferred pages
    return [*at_first, *mark.now()]


def main() -> None:
    flags = {"--no-fast", "--serve-only"}
    args = [a for a in sys.argv[1:] if a not in flags]
    fast, serve_only = "--no-fast" not in sys.argv, "--serve-only" in sys.argv
    project = Path(args[0]).absolute()
    first = set(args[1].split(",")) if len(args) > 1 else {"html"}
    env = dict(os.environ, SOURCE_DATE_EPOCH=os.environ.get("SOURCE_DATE_EPOCH", "1798761600"))
    os.environ.update(env)
    posts = project / "content" / "ko" / "posts"
    rows: dict[str, list[float]] = {}
    build_cmd = [sys.executable, "-m", "bipub", "-q", "-C", str(project), "build"]
    # bipub's modules compiled first, as bench/run.py does (under PYTHONDONTWRITEBYTECODE=1 a
    # module edited since its last compile is compiled again at every build's start)
    from run import compile_bytecode  # (bench/run.py, beside this script)

    print(f"# bipub's bytecode compiled in {compile_bytecode()}")
    subprocess.run(build_cmd, env=env, check=True)  # (not timed: a state of this bipub's own)
    for i, (name, edit) in enumerate(edits(posts, 0)):
        if serve_only:
            rows[name] = [float("nan")] * 2
            continue
        edit(i)
        before, start = _children_cpu(), time.perf_counter()
        subprocess.run(build_cmd, env=env, check=True)
        rows[name] = [_children_cpu() - before, time.perf_counter() - start]
    from bipub import buildstate  # (after the builds above: this process's own start-up)
    from bipub.cache import BuildCache
    from bipub.pipeline import OUTPUT_KINDS, Kept, build
    from bipub.project import Project

    others = {kind for kind in OUTPUT_KINDS if kind not in first} if fast else set()
    kept = Kept(BuildCache.load(project / ".bipub-cache"))
    kept.state = buildstate.load(Project(project), project / "site")
    builds = _server_builds(project, kept, build)
    _serving(project / "site")  # (as the server: its thread runs, so nothing forks)
    builds(first, None)  # the server's first build (pairs every entry)
    if others:
        builds(others, frozenset())
    if hasattr(builds, "idle"):
        print(f"# {builds.idle()}")  # (the server watches its output folder: not timed)
    for i, (name, edit) in enumerate(edits(posts, 1)):
        before = _content(project)
        edit(100 + i)
        changed = _changed(project, before)  # (what the server's watcher reports)
        rows[name] += serve_update(builds, first, changed, fast)
        if others:  # (then, as the server: not timed; the next update's output is theirs too)
            builds(others, frozenset())
        idle = getattr(builds, "idle", None)
        if idle is not None:
            idle()  # (at the server's next quiet moment: not timed)
    print(
        "| edit | build CPU | build wall | serve first CPU | serve first wall "
        "| serve pages CPU | serve pages wall |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, row in rows.items():
        print(f"| {name} | " + " | ".join(f"{v:.2f} s" for v in row) + " |")


if __name__ == "__main__":
    main()
