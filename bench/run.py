#!/usr/bin/env python3
"""Build-speed benchmark: bipub against Hugo on the same synthetic corpus, in one run.

    .venv/bin/python bench/run.py --posts 1000 2000 5000 [--repeat 3] [--no-hugo]
    .venv/bin/python bench/run.py --posts 5000 --repeat 5 --cold-only

For each size N (posts per language) it generates a corpus with ../shared/bench/gen_corpus.py
(or bench/gen_corpus.py if copied), then measures, each `--repeat` times (median reported):

* cold   — `bipub build --no-cache` into an empty output (HTML, JSON, feeds, sitemap, llms)
* cards  — `bipub build --no-cache --only cards` right after: every social card drawn (none
           from ~/.cache/bipub/cards), which the cold build above leaves out; the timed updates
           below build the cards too (their cards cost: reading and keeping the published ones)
* warm   — `bipub build` again with nothing changed (the up-to-date check: nothing is read)
* touch  — one post's mtime changed, bytes the same: an update that rewrites nothing
* edit   — one post's body edited (a paragraph added), `bipub build`: an update (every stage
           runs; the BuildState of the last build, src/bipub/buildstate.py, is read back from
           .bipub-cache/ and only the pages made of the edited entry are fingerprinted again)
* edit-meta — the same post's title changed, `bipub build`: an update (its pages, the
           listings showing its card, feeds, posts.json, status.json, llms files)
* edit-tags — the same post's tags changed (a new tag), `bipub build`: an update that lists it
           again (its tag pages made or paginated again, tag cloud, sitemap)
* edit-date — the same post's date moved 30 days earlier, `bipub build`: an update that moves it
           in the home, blog and tag pages, feeds, posts.json and llms files
* new-post — a post added (a copy of it under a new name), `bipub build`: an update (every blog
           page after it shows other posts now: rendered again)
* delete-post — that new post removed again, `bipub build`: an update (its pages pruned, the
           listings after it rendered again)
* draft  — post-00009 set `draft: true`, then back (each timed: the median of both), `bipub
           build`: an update that takes it out of (and puts it back into) every list
* edit-series — post-00007 and post-00008 join a series (once, a build not timed), then
           post-00007's title is changed: an update that also renders the series page and the
           other member's page (its series box)
* check-cold — the first `bipub check` of the corpus (no QA cache yet)
* check-edit — `bipub check` right after those edits (QA of unchanged units comes from its cache)
* check  — `bipub check` again with nothing changed
* serve  — `bipub serve` running (its BuildState kept in memory): seconds from saving a file to
           the server showing the change, for a body, title, tags and date edit of one post
           (its page shows it), a new post (its page served; and until the first blog page
           lists it), that post deleted (its page 404) and a draft toggle (404, then back)
* hugo   — `hugo --quiet` on the same content with ../shared/bench/hugo-site (skipped with a
           message when hugo is not installed: `apt-get install hugo`)

`--serve-only` runs just `bipub serve`'s latency table, one server a row (`--repeat` of them).
`--cold-only` runs just the cold build and Hugo, one after the other, and prints each pair's
ratio with the median and range (the VM's speed drifts by minutes; a pair shares the drift), in
wall and in CPU seconds. `--out-dir /dev/shm` makes both tools write their output to a tmpfs: this
VM's ext4 has no journal, and then the kernel skips every inode deleted in the last 60-360 s when
it allocates one (`recently_deleted` in fs/ext4/ialloc.c), so creating files right after anyone's
`rm -rf` costs up to ~300 µs each (perf: 40 % of a cold build's CPU at 1,000 posts/lang).

bipub's modules are compiled to bytecode first (`compile_bytecode`: what `pip install` does for
a wheel; an editable checkout under PYTHONDONTWRITEBYTECODE=1 would compile them at every start).
Wall time comes from time.perf_counter around each subprocess; peak memory is the maximum RSS of
the process and its children (resource.getrusage). Results print as a Markdown table for
bench/RESULTS.md. Nothing here is a test: machines are noisy; compare ratios within one run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
# the corpus generator and Hugo's site (BIPUB_BENCH_SHARED: elsewhere, e.g. from a worktree)
SHARED = Path(os.environ.get("BIPUB_BENCH_SHARED") or REPO.parent / "shared" / "bench")
BIPUB = [sys.executable, "-m", "bipub"]
# The search index is off: Hugo builds none, and it is measured apart (bench/search_bench.py;
# Pagefind cannot update an index, so every edit would make both languages' indexes again).
CONFIG = """languages:
  - {code: ko, name: 한국어, title: 벤치마크, description: 벤치마크 코퍼스}
  - {code: en, name: English, title: Benchmark, description: Benchmark corpus}
default_language: ko
base_url: https://bench.example.org/
author: {name: Bench}
posts_per_page: 10
outputs:
  search: false
"""


def run(
    cmd: list[str], cwd: Path, env: dict[str, str] | None = None, ok: tuple[int, ...] = (0,)
) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one command; fails loudly on an unexpected exit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if result.returncode not in ok:
        sys.exit(f"bench: {' '.join(cmd)} failed ({result.returncode}):\n{result.stderr[-3000:]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, max(peak, before)


def peak_rss(cmd: list[str], cwd: Path) -> int:
    """Peak RSS in KiB of `cmd` and its children, measured by GNU time when available."""
    if shutil.which("/usr/bin/time"):
        result = subprocess.run(
            ["/usr/bin/time", "-f", "%M", *cmd],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=False,
        )
        try:
            return int(result.stderr.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return 0
    return 0


def generate(root: Path, n: int) -> Path:
    project = root / f"corpus-{n}"
    if not (project / "content").is_dir():
        gen = SHARED / "gen_corpus.py"
        subprocess.run([sys.executable, str(gen), str(project), str(n)], check=True)
    (project / "bipub.yaml").write_text(CONFIG, encoding="utf-8")
    return project


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _fetch(url: str) -> str | None:
    """The page's text, or None when the server answers 404 (a page that is not there)."""
    try:
        # (the server's own http://127.0.0.1 pages, made here)
        body: bytes = urllib.request.urlopen(url, timeout=30).read()  # noqa: S310
        return body.decode("utf-8")
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return None
        raise


def _until(seen: Callable[[], bool], timeout: float, what: str) -> float:
    """Seconds until `seen()` holds (polled every 20 ms), from now."""
    start = time.perf_counter()
    while not seen():
        if time.perf_counter() - start > timeout:
            sys.exit(f"bench: bipub serve never showed {what}")
        time.sleep(0.02)
    return time.perf_counter() - start


SERVE_KINDS = ("body", "title", "tags", "date", "series", "new", "new-listed", "delete", "draft")


def serve_latency(
    project: Path, env: dict[str, str], i: int, timeout: float = 300, settle: float = 5.0
) -> dict[str, float]:
    """Seconds from saving a file to `bipub serve` serving what it changes, per edit kind:
    body, title, tags, date and series of post-00011 (its page shows the new text, title, tag
    link, date, the link to its new series' page); a new post (its page served; `new-listed`: also on the first blog page); that post
    deleted (its page answers 404); post-00009 set `draft: true` (404) and back (served), the
    median of both. `settle`: seconds left after each save for the second build (feeds, JSON,
    llms.txt, PDFs) before the next save."""
    port = _free_port()
    proc = subprocess.Popen(
        [*BIPUB, "serve", "--port", str(port)],
        cwd=project,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    page = f"{base}/ko/blog/post-00011/"
    posts = project / "content" / "ko" / "posts"
    post = posts / "post-00011.md"
    original = post.read_text(encoding="utf-8")  # (put back at the end: a post may have 30 tags)
    times: dict[str, float] = {}

    def save(path: Path, text: str, kind: str, seen: Callable[[], bool]) -> None:
        path.write_text(text, encoding="utf-8")
        times[kind] = _until(seen, timeout, kind)
        time.sleep(settle)

    try:
        deadline = time.monotonic() + timeout
        while True:  # wait for the first build
            try:
                if _fetch(page) is not None:
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                sys.exit("bench: bipub serve did not start")
            time.sleep(0.2)
        # let the watcher settle and the start's deferred work end: after a start with
        # nothing to rebuild, the pages are built once at the server's first quiet moment
        # (~4-5 s after it serves at 5,000 posts a language); the edits measure updates
        time.sleep(2 * settle)
        marker = f"serve-bench-{i}-{time.time_ns()}"
        text = post.read_text(encoding="utf-8") + f"\n{marker}\n"
        save(post, text, "body", lambda: marker in (_fetch(page) or ""))
        title = f"serve-title-{i}-{time.time_ns()}"
        text = text.replace('\ntitle: "', f'\ntitle: "{title} ', 1)
        save(post, text, "title", lambda: title in (_fetch(page) or ""))
        tag = f"servetag{i}x{time.time_ns() % 100000}"
        text = text.replace("\ntags: [", f"\ntags: [{tag}, ", 1)
        save(post, text, "tags", lambda: f"/ko/tags/{tag}/" in (_fetch(page) or ""))
        day = re.search(r"\ndate: (\d{4}-\d\d-\d\d)", text)
        assert day is not None, post
        earlier = dt.date.fromisoformat(day.group(1)) - dt.timedelta(days=30)
        text = text.replace(day.group(0), f"\ndate: {earlier}", 1)
        save(post, text, "date", lambda: f'datetime="{earlier}"' in (_fetch(page) or ""))
        series = f"serveseries{i}x{time.time_ns() % 100000}"  # (a new series of one post)
        text = text.replace("\ntags: [", f"\nseries: {series}\ntags: [", 1)
        save(post, text, "series", lambda: f"/ko/series/{series}/" in (_fetch(page) or ""))
        name = f"serve-new-{i}-{time.time_ns()}"
        new = f"{base}/ko/blog/{name}/"
        fresh = posts / f"{name}.md"
        last = max(  # (the new post is the newest: listed first)
            dt.date.fromisoformat(m.group(1))
            for f in posts.glob("*.md")
            if (m := re.search(r"\ndate: (\d{4}-\d\d-\d\d)", f.read_text(encoding="utf-8")))
        )
        newest = text.replace(f"\ndate: {earlier}", f"\ndate: {last + dt.timedelta(days=1)}", 1)
        fresh.write_text(newest.replace(marker, name), encoding="utf-8")
        start = time.perf_counter()
        times["new"] = _until(lambda: _fetch(new) is not None, timeout, "the new post")
        _until(lambda: f"/ko/blog/{name}/" in (_fetch(f"{base}/ko/blog/") or ""), timeout, "it")
        times["new-listed"] = time.perf_counter() - start
        time.sleep(settle)
        fresh.unlink()
        times["delete"] = _until(lambda: _fetch(new) is None, timeout, "the deleted post gone")
        time.sleep(settle)
        other = posts / "post-00009.md"
        shown = other.read_text(encoding="utf-8")  # (not `original`: post-00011's, put back)
        hidden = f"{base}/ko/blog/post-00009/"
        drafted = shown.replace("\ntitle: ", "\ndraft: true\ntitle: ", 1)
        save(other, drafted, "draft-on", lambda: _fetch(hidden) is None)
        save(other, shown, "draft-off", lambda: _fetch(hidden) is not None)
        times["draft"] = median([times.pop("draft-on"), times.pop("draft-off")])
        return times
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        post.write_text(original, encoding="utf-8")


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


COLD = [
    "-q",
    "build",
    "--no-cache",
    *(a for k in ("html", "json", "feeds", "llms") for a in ("--only", k)),
]


CARDS = ["-q", "build", "--no-cache", "--only", "cards"]  # (into the cold build's output)


def hugo_site(root: Path, n: int, project: Path) -> Path:
    """The Hugo skeleton with this corpus's content (made once per size)."""
    site = root / f"hugo-{n}"
    if not site.is_dir():
        shutil.copytree(SHARED / "hugo-site", site)
        shutil.copytree(project / "content", site / "content")
    return site


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def hugo_cold(root: Path, n: int, project: Path, out_dir: Path | None = None) -> float:
    out = (out_dir or root) / f"hugo-out-{n}"
    shutil.rmtree(out, ignore_errors=True)
    site = hugo_site(root, n, project)
    return run(["hugo", "--quiet", "-d", str(out)], site)[0]


def bipub_cold(project: Path, env: dict[str, str], out_dir: Path | None = None) -> float:
    out = out_dir / f"bipub-out-{project.name}" if out_dir else project / "site"
    for leftover in (out, out.parent / f".{out.name}.prev", project / ".bipub-cache"):
        shutil.rmtree(leftover, ignore_errors=True)
    return run([*BIPUB, *COLD, *(["--out", str(out)] if out_dir else [])], project, env)[0]


def cold_only(root: Path, n: int, repeat: int, out_dir: Path | None = None) -> None:
    """--cold-only: bipub's cold build and Hugo's, one after the other, `repeat` times; each
    pair's ratio (the machine's speed drifts from minute to minute: a pair shares the drift),
    in wall seconds and in CPU seconds (user + system, workers included: what the machine's
    neighbours disturb least). With `out_dir` both tools write their output there (a tmpfs
    such as /dev/shm takes the file system's inode allocation out of the comparison)."""
    project = generate(root, n)
    # 2027-01-01: after every date the corpus has (gen_corpus.py), so that no post is
    # scheduled (a post dated after "now" is not published: Hugo, by its clock, publishes all)
    env = dict(os.environ, SOURCE_DATE_EPOCH="1798761600")
    print(
        "\n| posts/lang | run | bipub cold | Hugo | ratio | bipub CPU | Hugo CPU | CPU ratio |"
        "\n|---|---|---|---|---|---|---|---|",
        flush=True,
    )
    ratios, colds, hugos, cpu_ratios = [], [], [], []
    for i in range(repeat):
        before = _children_cpu()
        cold = bipub_cold(project, env, out_dir)
        middle = _children_cpu()
        hugo = hugo_cold(root, n, project, out_dir)
        bipub_cpu, hugo_cpu = middle - before, _children_cpu() - middle
        colds.append(cold)
        hugos.append(hugo)
        ratios.append(cold / hugo)
        cpu_ratios.append(bipub_cpu / hugo_cpu)
        print(
            f"| {n} | {i + 1} | {cold:.1f} s | {hugo:.1f} s | {cold / hugo:.2f} | "
            f"{bipub_cpu:.1f} s | {hugo_cpu:.1f} s | {bipub_cpu / hugo_cpu:.2f} |",
            flush=True,
        )
    print(
        f"| {n} | median | {median(colds):.1f} s | {median(hugos):.1f} s | "
        f"{median(ratios):.2f} (range {min(ratios):.2f}-{max(ratios):.2f}) | | | "
        f"{median(cpu_ratios):.2f} (range {min(cpu_ratios):.2f}-{max(cpu_ratios):.2f}) |",
        flush=True,
    )
    if out_dir:  # (a tmpfs holds its files in memory)
        bipub_out = out_dir / f"bipub-out-{project.name}"
        for leftover in (out_dir / f"hugo-out-{n}", bipub_out, out_dir / f".{bipub_out.name}.prev"):
            shutil.rmtree(leftover, ignore_errors=True)
        (out_dir / f".{bipub_out.name}.lock").unlink(missing_ok=True)  # (the output's lock file)


def bench_size(
    root: Path, n: int, repeat: int, hugo: bool, check: bool = True, rss: bool = True
) -> dict[str, float]:
    project = generate(root, n)
    out = project / "site"
    results: dict[str, list[float]] = {
        k: []
        for k in (
            "cold",
            "cards",
            "warm",
            "touch",
            "edit",
            "edit-meta",
            "edit-tags",
            "edit-date",
            "new-post",
            "delete-post",
            "draft",
            "edit-series",
            "check-cold",
            "check-edit",
            "check",
            *(f"serve-{kind}" for kind in SERVE_KINDS),
            "hugo",
        )
    }
    env = dict(os.environ, SOURCE_DATE_EPOCH="1798761600")
    has_check = subprocess.run([*BIPUB, "check", "--help"], capture_output=True).returncode == 0
    for i in range(repeat):
        results["cold"].append(bipub_cold(project, env))
        results["cards"].append(run([*BIPUB, *CARDS], project, env)[0])
        run([*BIPUB, "-q", "build"], project, env)  # fill the cache
        if has_check and check:
            results["check-cold"].append(run([*BIPUB, "-q", "check"], project, env, ok=(0, 1))[0])
        results["warm"].append(run([*BIPUB, "-q", "build"], project, env)[0])
        post = project / "content" / "ko" / "posts" / "post-00007.md"
        st = post.stat()
        os.utime(post, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
        results["touch"].append(run([*BIPUB, "-q", "build"], project, env)[0])
        post.write_text(post.read_text(encoding="utf-8") + f"\n추가 문단 {i}.\n", encoding="utf-8")
        results["edit"].append(run([*BIPUB, "-q", "build"], project, env)[0])
        text = post.read_text(encoding="utf-8")
        post.write_text(text.replace("\ntitle: ", f"\ntitle: ({i}) ", 1), encoding="utf-8")
        results["edit-meta"].append(run([*BIPUB, "-q", "build"], project, env)[0])
        text = post.read_text(encoding="utf-8")
        post.write_text(text.replace("\ntags: [", f"\ntags: [bench{i}, ", 1), encoding="utf-8")
        results["edit-tags"].append(run([*BIPUB, "-q", "build"], project, env)[0])
        text = post.read_text(encoding="utf-8")
        day = re.search(r"\ndate: (\d{4}-\d\d-\d\d)", text)
        assert day is not None, post
        earlier = dt.date.fromisoformat(day.group(1)) - dt.timedelta(days=30)
        post.write_text(text.replace(day.group(0), f"\ndate: {earlier}", 1), encoding="utf-8")
        results["edit-date"].append(run([*BIPUB, "-q", "build"], project, env)[0])
        shutil.copy(post, post.with_name(f"bench-new-{i}.md"))
        results["new-post"].append(run([*BIPUB, "-q", "build"], project, env)[0])
        post.with_name(f"bench-new-{i}.md").unlink()
        results["delete-post"].append(run([*BIPUB, "-q", "build"], project, env)[0])
        other = project / "content" / "ko" / "posts" / "post-00009.md"
        original = other.read_text(encoding="utf-8")
        other.write_text(original.replace("\ntitle: ", "\ndraft: true\ntitle: ", 1), "utf-8")
        results["draft"].append(run([*BIPUB, "-q", "build"], project, env)[0])
        other.write_text(original, encoding="utf-8")
        results["draft"].append(run([*BIPUB, "-q", "build"], project, env)[0])
        if i == 0:  # the corpus has no series: two posts join one (a full build, not timed)
            for lang, name in (("ko", "벤치 연재"), ("en", "Bench series")):
                for order, number in enumerate(("00007", "00008"), 1):
                    member = project / "content" / lang / "posts" / f"post-{number}.md"
                    text = member.read_text(encoding="utf-8")
                    if "\nseries: " in text:  # (a corpus of an earlier run: joined already)
                        continue
                    extra = f"\nseries: {name}\nseries_order: {order}\ntitle: "
                    member.write_text(text.replace("\ntitle: ", extra, 1), encoding="utf-8")
            run([*BIPUB, "-q", "build"], project, env)
        text = post.read_text(encoding="utf-8")
        post.write_text(text.replace("\ntitle: ", f"\ntitle: s{i} ", 1), encoding="utf-8")
        results["edit-series"].append(run([*BIPUB, "-q", "build"], project, env)[0])
        if has_check and check:
            # the synthetic corpus has QA findings (exit 1); only the time matters here
            results["check-edit"].append(run([*BIPUB, "-q", "check"], project, env, ok=(0, 1))[0])
            results["check"].append(run([*BIPUB, "-q", "check"], project, env, ok=(0, 1))[0])
        for kind, seconds in serve_latency(project, env, i).items():
            results[f"serve-{kind}"].append(seconds)
        if hugo:
            results["hugo"].append(hugo_cold(root, n, project))
    summary = {k: median(v) for k, v in results.items()}
    if not rss:
        return summary
    shutil.rmtree(out, ignore_errors=True)
    summary["rss_bipub"] = peak_rss([*BIPUB, "-q", "build", "--no-cache"], project) / 1024
    if hugo:
        summary["rss_hugo"] = (
            peak_rss(["hugo", "--quiet", "-d", str(root / f"hugo-out-{n}")], root / f"hugo-{n}")
            / 1024
        )
    return summary


def compile_bytecode() -> str:
    """bipub's modules compiled to bytecode, as `pip install` leaves an installed wheel. An
    editable checkout run with PYTHONDONTWRITEBYTECODE=1 (set on these machines) would compile
    every module from source at each start (~0.15 s of every command)."""
    import compileall
    import importlib.util

    spec = importlib.util.find_spec("bipub")
    assert spec is not None and spec.origin is not None
    folder = Path(spec.origin).parent
    if not compileall.compile_dir(str(folder), quiet=1):
        sys.exit(f"bench: could not compile bipub's modules in {folder}")
    return str(folder)


def serve_only(root: Path, n: int, repeat: int) -> None:
    """--serve-only: `serve_latency` of `repeat` servers one after the other, a row each (the
    VM's drift shows between rows; the corpus is built once first, not timed)."""
    project = generate(root, n)
    env = dict(os.environ, SOURCE_DATE_EPOCH="1798761600")
    run([*BIPUB, "-q", "build"], project, env)  # (the server then starts from a current site)
    print(f"`bipub serve` at {n} posts a language, saved → served, one server a row:\n")
    print("| server | " + " | ".join(SERVE_KINDS) + " |\n|" + "---|" * (len(SERVE_KINDS) + 1))
    for i in range(repeat):
        times = serve_latency(project, env, i)
        print(f"| {i + 1} | " + " | ".join(f"{times[k]:.2f} s" for k in SERVE_KINDS) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--posts", type=int, nargs="+", default=[1000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-hugo", action="store_true")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--no-check", action="store_true", help="skip the `bipub check` columns")
    parser.add_argument("--no-rss", action="store_true", help="skip the peak-memory columns")
    parser.add_argument(
        "--cold-only",
        action="store_true",
        help="only the cold build and Hugo, alternating, with each pair's ratio",
    )
    parser.add_argument(
        "--out-dir",
        type=Path,
        default=None,
        help="with --cold-only: both tools write their output into this folder (e.g. /dev/shm: "
        "a tmpfs, where creating files does not pay for the file system's recent deletions)",
    )
    parser.add_argument(
        "--serve-only",
        action="store_true",
        help="only `bipub serve`'s latency table: --repeat servers, one row each",
    )
    args = parser.parse_args()
    hugo = not args.no_hugo and shutil.which("hugo") is not None
    if not args.no_hugo and not hugo:
        print("bench: hugo is not installed (apt-get install hugo); Hugo columns skipped")
    root = args.workdir or Path(tempfile.mkdtemp(prefix="bipub-bench-"))
    print(
        f"# bench on {platform.node()} ({os.cpu_count()} cores), Python {platform.python_version()}"
        f" ({os.path.realpath(sys.executable)}: the interpreter's build matters, see README)"
    )
    print(f"# {time.strftime('%Y-%m-%d %H:%M')} — {' '.join(sys.argv)}")
    print(f"# bipub's bytecode compiled in {compile_bytecode()} (as an installed wheel has it)\n")
    if args.serve_only:
        for n in args.posts:
            serve_only(root, n, args.repeat)
        return
    if args.cold_only:
        if not hugo:
            sys.exit("bench: --cold-only compares with Hugo, which is not installed")
        for n in args.posts:
            cold_only(root, n, args.repeat, args.out_dir)
        return
    print(
        "| posts/lang | cold | Hugo | cold/Hugo | cards cold | warm | touch | one edit | title edit "
        "| tags edit | date edit | new post | delete post | draft toggle | series edit "
        "| check cold | check after edit | check | RSS bipub | RSS Hugo |"
    )
    print("|" + "---|" * 20)
    serve_rows = []
    for n in args.posts:
        s = bench_size(root, n, args.repeat, hugo, not args.no_check, not args.no_rss)
        s = {"rss_bipub": float("nan"), "rss_hugo": float("nan"), **s}
        ratio = s["cold"] / s["hugo"] if hugo and s.get("hugo") else float("nan")
        print(
            f"| {n} | {s['cold']:.1f} s | {s.get('hugo', float('nan')):.1f} s | {ratio:.2f} | "
            f"{s['cards']:.1f} s | {s['warm']:.2f} s | {s['touch']:.2f} s | {s['edit']:.2f} s | "
            f"{s['edit-meta']:.2f} s | {s['edit-tags']:.2f} s | {s['edit-date']:.2f} s | "
            f"{s['new-post']:.2f} s | {s['delete-post']:.2f} s | {s['draft']:.2f} s | "
            f"{s['edit-series']:.2f} s | "
            f"{s['check-cold']:.2f} s | {s['check-edit']:.2f} s | {s['check']:.2f} s | "
            f"{s['rss_bipub']:.0f} MB | {s.get('rss_hugo', float('nan')):.0f} MB |",
            flush=True,
        )
        serve_rows.append(
            f"| {n} | " + " | ".join(f"{s[f'serve-{kind}']:.2f} s" for kind in SERVE_KINDS) + " |"
        )
    print(
        "\n`bipub serve`, saved → served (post-00011's page shows the edit; a new post's page "
        "served, then listed on /ko/blog/; the deleted post's page 404; draft toggle: median "
        "of on and off):\n\n| posts/lang | body | title | tags | date | series | new post | "
        "new post listed | delete post | draft toggle |\n|" + "---|" * (len(SERVE_KINDS) + 1)
    )
    print("\n".join(serve_rows), flush=True)


if __name__ == "__main__":
    main()
