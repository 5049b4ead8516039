"""`bipub serve`: preview on 127.0.0.1, rebuild on change, live-reload open pages.

The site is built into .bipub-cache/serve/ with the same atomic publish as `bipub build`, so a
request never sees a half-built tree. Requests are confined to the built site: the path is
percent-decoded, any '..' segment or absolute path is a 404, and the resolved file must lie inside
the site folder. HTML responses get a small script that listens on /__bipub/events (server-sent
events) and reloads the page after each successful rebuild; a failed rebuild keeps the previous
site and shows the errors in the page and the terminal. A rebuild publishes the HTML pages first
and everything else (feeds, sitemap, JSON API, llms.txt, search index, PDFs) in a second build,
so a saved edit shows without waiting for them; open pages reload right after its swap. Of
many pages a save may have changed (a new post shifts every listing page), the first build
publishes the changed posts' own pages, their blog's first page and the pages open in a browser
(each open page's event stream names it: `OpenPages`), and a build right after it the others
(fast render: render/first_pages.py; an open page reloads again only if it shows one of them).
A save reported while an update runs (the watcher's batches are gathered on a thread:
serve_watch.Batches) is built as soon as that update's first pages are published: the
deferred pages and the other outputs are left to its update (`Rebuilds`, said with -v).
A rebuild prints only the build warnings that are new since the previous rebuild
(`WarningMemo`), and how many known ones it left out. Each rebuild is told what the watcher
reported since the last one that succeeded (serve_watch.Follower), so that it looks again at
those files of content/ only; a full scan at the first quiet moment after it finds what the
watcher did not report. The output folder is watched too (write/tree_watch.py): a rebuild compares only what
was reported changed in it with its record, not every file (`--out`: a user's folder, in full).
What the server keeps in memory is saved at quiet moments and when it stops (serve_save.py);
the builds themselves are serve_builds.ServeBuilds.
"""

from __future__ import annotations

import errno
import json
import posixpath
import signal
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from bipub.diagnostics import Diagnostic, DiagnosticError
from bipub.project import Project
from bipub.render.first_pages import FEW, FirstPages, page_file
from bipub.serve_builds import ServeBuilds
from bipub.serve_save import Saves, StopHold, Stopped, Sweeps, put_back, signal_of, stop_on_sigterm
from bipub.serve_watch import QUIET_MS, Batches, Follower, unreported, watch_filter
from bipub.write.tree_watch import TreeWatch

RELOAD_SCRIPT = b"""<script>(function(){var s=new EventSource("/__bipub/events?page="+encodeURIComponent(location.pathname));
s.addEventListener("reload",function(){location.reload();});
s.addEventListener("failed",function(e){var d=document.getElementById("bipub-errors")||document.body.appendChild(Object.assign(document.createElement("pre"),{id:"bipub-errors"}));
d.style.cssText="position:fixed;bottom:0;left:0;right:0;max-height:50%;overflow:auto;margin:0;padding:1em;background:#300;color:#fdd;z-index:99999;font:13px monospace;white-space:pre-wrap";
d.textContent=JSON.parse(e.data).join("\\n");});})();</script>"""


class OpenPages:
    """The pages the browsers show now: each open page's live-reload stream names it (its
    output file, render/first_pages.py page_file) while it is connected. Rebuilds publish
    them first (fast render)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count: Counter[str] = Counter()

    def opened(self, file: str) -> None:
        with self._lock:
            self._count[file] += 1

    def closed(self, file: str) -> None:
        with self._lock:
            self._count[file] -= 1
            if self._count[file] <= 0:
                del self._count[file]

    def files(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._count)


class ServeStatus:
    """The generation of the served site and the errors of the last rebuild (for open pages)."""

    def __init__(self) -> None:
        self.generation = 0
        self.errors: list[str] = []
        self.cond = threading.Condition()
        self.closed = False  # the server is stopping: event streams end
        self.open = OpenPages()  # the pages the browsers show
        self.every = 0  # the last generation every open page is told of
        self.only: frozenset[str] = frozenset()  # the last one's pages, if not every page

    def done(self, errors: list[str], only: frozenset[str] | None = None) -> None:
        """A rebuild ended (`errors`: it failed): open pages reload, or show the errors; with
        `only`, a publish of these pages alone (output files: fast render's second step)
        reloads only the pages that show one of them."""
        with self.cond:
            self.generation += 1
            self.errors = errors
            if only is None:
                self.every = self.generation
            self.only = only or frozenset()
            self.cond.notify_all()

    def tells(self, seen: int, file: str | None) -> bool:
        """Whether an open page showing `file`, told of generation `seen`, is told of the
        generation now (under `cond`)."""
        return self.every > seen or self.errors != [] or file in self.only

    def close(self) -> None:
        with self.cond:
            self.closed = True
            self.cond.notify_all()


class WarningMemo:
    """The build warnings of the previous rebuild, so that each rebuild prints only new ones.

    A rebuild calls `begin()` once it has built (a failed rebuild leaves the memo as it was),
    then `sort()` with its warnings — once or several times (the pages, then the PDFs): each
    warning comes back either new (not printed at the previous rebuild) or known."""

    def __init__(self) -> None:
        self.previous: frozenset[Diagnostic] = frozenset()
        self.current: set[Diagnostic] = set()

    def begin(self) -> None:
        self.previous, self.current = frozenset(self.current), set()

    def sort(self, warnings: Iterable[Diagnostic]) -> tuple[list[Diagnostic], int]:
        """(new warnings, in order; how many known ones are not repeated)."""
        new: list[Diagnostic] = []
        known = 0
        for d in warnings:
            if d in self.current:
                continue  # already sorted in this rebuild
            self.current.add(d)
            if d in self.previous:
                known += 1
            else:
                new.append(d)
        return new, known


def report_warnings(ui: Any, memo: WarningMemo, warnings: Iterable[Diagnostic]) -> None:
    """Print a rebuild's warnings that are new since the previous rebuild, and how many known
    ones were left out ("(3 warnings as before)")."""
    new, known = memo.sort(warnings)
    ui.diagnostics(new)
    if known:
        ui.info(f"({known} warning{'s' if known != 1 else ''} as before)")


def safe_path(site: Path, url_path: str) -> Path | None:
    """Map a request path to a file inside `site`, or None (→ 404)."""
    path = unquote(urlsplit(url_path).path, errors="strict")
    if "\x00" in path or "\\" in path:
        return None
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        return None
    candidate = site.joinpath(*parts) if parts else site
    if candidate.is_dir():
        candidate = candidate / "index.html"
    try:
        resolved = candidate.resolve(strict=True)
        resolved.relative_to(site.resolve())
    except (OSError, ValueError):
        return None
    return resolved if resolved.is_file() else None


def _changed(state: ServeStatus, seen: int) -> bool:
    return state.generation != seen or state.closed


# the watcher's step (milliseconds): see `_serve`
WATCH_STEP_MS = 10

# Seconds a connection may stay silent (no request line, or a client that stops reading): its
# thread then ends. The live-reload stream sends a keep-alive every 15 s, well inside it.
CONNECTION_TIMEOUT_S = 30.0
# the interpreter's switch interval from a rebuild's publish to its build's end (`Rebuilds`)
READERS_SWITCH_S = 0.0005


def make_handler(
    site: Path, state: ServeStatus, connection_timeout: float = CONNECTION_TIMEOUT_S
) -> type[SimpleHTTPRequestHandler]:
    class Handler(SimpleHTTPRequestHandler):
        # StreamRequestHandler sets it on the socket: a read or write that waits longer raises
        # TimeoutError, which ends the request (http.server closes the connection).
        timeout = connection_timeout

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            if self.path.startswith("/__bipub/events"):
                self._events()
                return
            posix = posixpath.normpath(unquote(urlsplit(self.path).path))
            if posix != "/" and not self.path.split("?")[0].endswith("/"):
                target = site / posix.lstrip("/")
                if ".." not in posix and target.is_dir():
                    self.send_response(HTTPStatus.MOVED_PERMANENTLY)
                    self.send_header("Location", self.path.split("?")[0] + "/")
                    self.end_headers()
                    return
            try:
                file = safe_path(site, self.path)
            except UnicodeDecodeError:
                file = None
            if file is None:
                self._send_404()
                return
            self._send_file(file, HTTPStatus.OK)

        def do_HEAD(self) -> None:
            self.do_GET()

        def _send_404(self) -> None:
            page = site / "404.html"
            if page.is_file():
                self._send_file(page, HTTPStatus.NOT_FOUND)
            else:
                self.send_error(HTTPStatus.NOT_FOUND)

        def _send_file(self, file: Path, status: HTTPStatus) -> None:
            data = file.read_bytes()
            ctype = self.guess_type(str(file))
            if file.suffix == ".html":
                data = data.replace(b"</body>", RELOAD_SCRIPT + b"</body>", 1)
                ctype = "text/html; charset=utf-8"
            elif file.suffix in (".txt", ".xml", ".json", ".css"):
                ctype = f"{ctype}; charset=utf-8"
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        def _events(self) -> None:
            seen = state.generation  # before the headers: a rebuild right after them is an event
            page = parse_qs(urlsplit(self.path).query).get("page", [""])[0]
            file = page_file(page) if page else None
            if file is not None:  # (a rebuild publishes it first while the page is open)
                state.open.opened(file)
            try:
                self._stream(seen, file)
            finally:
                if file is not None:
                    state.open.closed(file)

        def _stream(self, seen: int, file: str | None) -> None:
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            try:
                while True:
                    with state.cond:
                        state.cond.wait_for(partial(_changed, state, seen), timeout=15)
                        generation, errors = state.generation, list(state.errors)
                        tell = generation != seen and state.tells(seen, file)
                        if state.closed:
                            return
                    if not tell:
                        seen = generation  # (a publish of pages it does not show: none)
                        self.wfile.write(b": keep-alive\n\n")
                    else:
                        seen = generation
                        event = "failed" if errors else "reload"
                        self.wfile.write(f"event: {event}\ndata: {json.dumps(errors)}\n\n".encode())
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError, TimeoutError):
                return  # the page closed, or stopped reading for longer than the timeout

    return Handler


class Rebuilds:
    """`bipub serve`'s rebuild after a batch of changes (`__call__`, for `Follower`): the
    pages first (fast render: render/first_pages.py, in two steps when a save changes many
    pages), then the other outputs (`later`), each build by `built` (ServeBuilds); `state`
    tells the open pages. Each rebuild prints only the warnings the previous one did not
    (`WarningMemo`).

    `waiting` (the watcher's `Batches.waiting`) says whether a save was reported since this
    rebuild began: once the first pages are published, what follows them (the deferred pages,
    the other outputs: seconds on a big site, in this process) is then left to the update of
    that save, which is built at once (its first pages shown without waiting for them). The
    site then published is whole and as a build of the save's files makes it; the pages left
    are not fingerprinted, and the up-to-date record says the output is not complete
    (render/first_pages.py `DEFERRED`), so whichever build comes next renders them. Said with
    `-v`."""

    def __init__(
        self,
        ui: Any,
        built: ServeBuilds,
        state: ServeStatus,
        later: set[str],
        fast_render: bool = True,
        waiting: Callable[[], bool] | None = None,
        few: int = FEW,
    ) -> None:
        self.ui, self.built, self.state, self.later = ui, built, state, later
        self.fast_render, self.few = fast_render, few  # (FirstPages: published in one step)
        self.waiting = waiting
        self.memo = WarningMemo()

    def _waits(self, what: str) -> bool:
        """Whether a save is waiting: then `what` is left to its update (said)."""
        if self.waiting is None or not self.waiting():
            return False
        self.ui.debug(f"a save is waiting: {what} left to its update, built now")
        return True

    def __call__(self, changed: frozenset[str] | None = None, fast: bool | None = None) -> bool:
        """`changed`: the paths changed since the last build that succeeded (its scan of the
        inputs), or None (unknown: every input scanned); `fast`: fast render (the server's
        setting by default). False if the pages' build failed.

        From the update's first publish to its end (the records and state saved for the next
        update, ~0.15 s on a big site; the deferred pages; the other outputs), the interpreter
        hands the GIL to a waiting thread every `READERS_SWITCH_S` instead of every 5 ms: the
        server's threads answering the pages that reload wait less behind that work (from the
        publish to a reloaded page served, at 5,000 posts a language: 6-26 ms instead of
        11-60 ms in six updates each). Set back when the update ends."""
        before = sys.getswitchinterval()
        try:
            return self._rebuild(changed, fast)
        finally:
            sys.setswitchinterval(before)

    def _published(self, *args: Any) -> Callable[[], None]:
        """What a build calls right after its swap: open pages told (ServeStatus.done with
        `args`), then the readers' threads favoured until the build ends (`__call__`)."""
        done = partial(self.state.done, *args)

        def published() -> None:
            done()
            sys.setswitchinterval(READERS_SWITCH_S)

        return published

    def _rebuild(self, changed: frozenset[str] | None, fast: bool | None) -> bool:
        ui, built, state, memo = self.ui, self.built, self.state, self.memo
        fast = self.fast_render if fast is None else fast
        # Pages first: open pages reload as soon as the HTML is published; the other outputs
        # (made from every post: a few seconds on a big site, PDFs slow to lay out, the search
        # index made again from every page) follow in a second build, which keeps the pages.
        # (right after each swap: not after the saves). Fast render: render/first_pages.py.
        first = FirstPages(state.open.files(), self.few) if fast else None
        told = state.generation  # (a publish tells open pages: ServeStatus.done)
        try:
            result = built({"html"}, changed, first=first, on_publish=self._published([]))
        except DiagnosticError as exc:
            ui.diagnostics(exc.diagnostics)
            ui.info(f"rebuild failed ({len(exc.diagnostics)} errors); still serving the last site")
            state.done([d.format() for d in exc.diagnostics])
            return False
        memo.begin()
        report_warnings(ui, memo, result.warnings)
        total = sum(result.pages.values())
        deferred = len(first.deferred) if first is not None else 0
        if result.up_to_date:  # (a start after a clean stop, nothing edited since)
            ui.info(f"nothing to rebuild: the {total} pages are as the last build left them")
        else:
            ui.info(
                f"rebuilt {total - result.reused} of {total} pages ({result.changed} files "
                f"changed) in {result.seconds:.2f} s"
                + (f"; {deferred} more pages follow" if deferred else "")
            )
        if result.cache_note:
            ui.debug(result.cache_note)  # what was reused from the last rebuild, or why not
        if state.generation == told:  # (up to date: nothing published)
            state.done([])
        if first is not None and deferred:
            if self._waits(f"the {deferred} pages that follow"):
                return True
            only = frozenset(first.deferred)  # (a page opened since: reloads)
            try:
                rest = built({"html"}, frozenset(), on_publish=self._published([], only))
            except DiagnosticError as exc:  # (the inputs changed since: said as any rebuild)
                ui.diagnostics(exc.diagnostics)
                ui.info(
                    f"the {deferred} pages that followed failed ({len(exc.diagnostics)} "
                    "errors); the pages shown first are up to date"
                )
                state.done([d.format() for d in exc.diagnostics])
                return True  # (the first pages were published from this scan)
            report_warnings(ui, memo, rest.warnings)
            total = sum(rest.pages.values())
            ui.info(f"then {total - rest.reused} of {total} pages in {rest.seconds:.2f} s")
            if rest.cache_note:
                ui.debug(rest.cache_note)
        if self._waits("feeds, JSON, llms.txt, search and PDFs"):
            return True
        try:
            rest = built(self.later, frozenset())  # (scanned)
        except DiagnosticError as exc:
            ui.diagnostics(exc.diagnostics)
            ui.info(
                f"feeds, JSON, llms.txt, search or PDFs failed ({len(exc.diagnostics)} errors); "
                "the pages are up to date"
            )
            state.done([d.format() for d in exc.diagnostics])
            return True
        report_warnings(ui, memo, rest.warnings)
        if not rest.up_to_date:
            ui.info(f"feeds, JSON, llms.txt, search and PDFs rebuilt in {rest.seconds:.2f} s")
        return True


class ServeAddressError(OSError):
    """The server's address cannot be taken (a port in use, an address not of this machine)."""


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A browser that closed the connection before its answer was sent (a reload, a page
        left while the first build ran) is not an error of the server: nothing is printed.
        Any other error is printed as http.server does (its traceback)."""
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


def listen(host: str, port: int, handler: Any) -> ThreadingHTTPServer:
    """The HTTP server bound to `host`:`port` (0: any free port), not serving yet."""
    try:
        return _Server((host, port), handler)
    except OSError as exc:
        why = exc.strerror or str(exc)
        hint = (
            " (another `bipub serve` or server is running there? choose another with --port)"
            if exc.errno == errno.EADDRINUSE
            else ""
        )
        raise ServeAddressError(
            exc.errno, f"cannot serve on {host}:{port}: {why}{hint}; nothing was built"
        ) from exc


def serve(
    ui: Any,
    root: Path,
    host: str,
    port: int,
    out: Path | None,
    fast_render: bool = True,
    future: bool = False,
) -> None:
    from bipub import buildstate
    from bipub.cache import BuildCache
    from bipub.pipeline import OUTPUT_KINDS, Kept, build

    later = {kind for kind in OUTPUT_KINDS if kind != "html"}  # (after the pages show)

    site = out or (root / ".bipub-cache" / "serve")
    state = ServeStatus()
    project = Project(root)
    # the build cache and the BuildState (buildstate.py) stay in memory between rebuilds: a
    # saved edit is loaded, paired, planned and rendered by the build's own functions, from
    # what the last rebuild worked out; they are saved at quiet moments and at the end
    kept = Kept(BuildCache.load(project.cache), buildstate.load(project, site))
    # the output folder, watched between rebuilds so that each checks only what was reported
    # changed in it (write/tree_watch.py); a folder of the user's (--out) is checked in full
    built = ServeBuilds(root, site, kept, build, TreeWatch() if out is None else None)
    built.future, built.ui = future, ui  # (--future: bipub/schedule.py; the ui: what waits)

    saves = Saves(project, site, kept)  # (at quiet moments, and when it stops)
    built.on_built = saves.built
    sweeps = Sweeps(lambda: built.builds)

    def idle(waiting: Callable[[], bool]) -> None:
        """At a quiet moment: the pages built once if the start left that for now (a start
        with nothing to rebuild: ServeBuilds.warm), the output folder's reports looked at, the
        folder watched; what the last builds left saved once nothing changed for a while
        (serve_save.py), and once saved, their reference cycles collected every so often."""
        for said in (
            built.warm_when_quiet(waiting),
            built.idle(),
            saves.idle(waiting),
            "" if saves.due else sweeps.idle(waiting),  # (after `saves.idle`: saved first)
        ):
            if said:
                ui.debug(said)
        if failed := saves.take_failed():  # (a full disk: said, and the server serves on)
            ui.diagnostics(failed)

    # the address is taken before the first build (which takes minutes on a big site), so a
    # port in use is said at once; requests wait in the listen queue until the thread serves
    server = listen(host, port, make_handler(site, state))
    server.daemon_threads = True
    rebuild = Rebuilds(ui, built, state, later, fast_render)
    sigterm = stop_on_sigterm()  # (put back at the end; from here on a stop saves what it must)
    try:
        try:
            if rebuild(fast=False):  # (no page is open yet: the whole site at once)
                said = built.warm()  # (the first update checks only what it changed)
                if said:
                    ui.debug(said)
            for said in (built.idle(), saves.now()):  # (the folder watched; a kill is safe)
                if said:
                    ui.debug(said)
            ui.diagnostics(saves.take_failed())
        except KeyboardInterrupt as exc:  # (before serving: said, with the signal's status)
            server.server_close()
            said = saves.stop(built.broken)
            said = said or "nothing left to save"
            raise Stopped(signal_of(exc), f"stopped before serving: {said}") from None
        _serve(ui, root, host, project, server, built, rebuild, saves, idle)
    finally:
        if sigterm is not None:
            signal.signal(signal.SIGTERM, sigterm)


def _serve(
    ui: Any,
    root: Path,
    host: str,
    project: Project,
    server: ThreadingHTTPServer,
    built: ServeBuilds,
    rebuild: Rebuilds,
    saves: Saves,
    idle: Callable[[Callable[[], bool]], None],
) -> None:
    """Serve, and rebuild after each batch of changes, until Ctrl-C or SIGTERM; then save."""
    from watchfiles import DefaultFilter, watch

    state, site, kept = rebuild.state, built.site, built.kept
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    stop = threading.Event()
    batches: Batches | None = None
    hold = StopHold()  # (a stop during an update: once its build ended, its state saved)
    handlers = hold.install()
    built.hold = hold
    try:
        ui.info(f"Serving {site} on http://{host}:{server.server_address[1]}/ (Ctrl-C to stop)")
        where = root.absolute()  # (the watcher reports absolute paths: uptodate.rescan_inputs)
        watched = [
            p
            for p in (
                where / "content",
                where / "templates",
                where / "locales",
                where / "static",
                where / "status",
                where / "bipub.yaml",
            )
            if p.exists()
        ]
        quiet = watch_filter(str(where / "content"), DefaultFilter())
        # a change is reported once the watcher saw none for a `step` (its thread wakes every
        # `step` ms, even when idle): 10 ms reports a save ~15 ms sooner than 20 (measured at
        # 5,000 posts a language: 10-20 ms from the write, not 20-40) for ~0.3 % of a core
        # (gathered on a thread of their own: a rebuild asks whether a save is waiting)
        batches = Batches(
            watch(
                *watched,
                debounce=50,
                step=WATCH_STEP_MS,
                watch_filter=quiet,
                rust_timeout=QUIET_MS,
                yield_on_timeout=True,
                stop_event=stop,
            ),
            stop,
        )
        rebuild.waiting = batches.waiting
        missed = partial(unreported, project, kept.records, built.target)
        follow = Follower(ui, rebuild, missed, partial(idle, batches.waiting), built.due)
        for changes in batches:
            follow(changes)
    except KeyboardInterrupt:
        pass
    finally:
        if batches is not None:
            batches.close()
        state.close()  # open pages' event streams end, and their threads with them
        built.close()
        server.shutdown()
        built.hold = None
        put_back(handlers)
        said = saves.stop(built.broken)
        if said:
            ui.debug(said)
        ui.diagnostics(saves.take_failed())
