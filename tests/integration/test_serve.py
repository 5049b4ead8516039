"""The dev server: confined to the built site, live reload after a rebuild."""

from __future__ import annotations

import http.client
import sys
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from bipub.serve import ServeStatus, make_handler, safe_path
from tests.conftest import BIPUB_PLACEHOLDER_PDFS, subprocess_env


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    (root / "ko").mkdir(parents=True)
    (root / "ko" / "index.html").write_text("<html><body>홈</body></html>", encoding="utf-8")
    (root / "404.html").write_text("<html><body>not found</body></html>")
    (tmp_path / "secret.txt").write_text("secret")
    (root / "link").symlink_to(tmp_path / "secret.txt")
    return root


@pytest.fixture
def server(site: Path) -> Iterator[tuple[int, ServeStatus]]:
    state = ServeStatus()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(site, state))
    httpd.daemon_threads = False  # server_close() waits for every request thread
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[1], state
    state.close()  # (an open event stream ends)
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def _serve_command(project: Path) -> list[str]:
    """`bipub -v -C PROJECT serve --port 0`, writing placeholder PDFs (no test here reads one)."""
    return [
        sys.executable,
        "-c",
        BIPUB_PLACEHOLDER_PDFS,
        "-v",
        "-C",
        str(project),
        "serve",
        "--port",
        "0",
    ]


def get(port: int, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.request("GET", path)
    response = conn.getresponse()
    return response.status, response.read()


@pytest.mark.parametrize(
    "path",
    [
        "/%2e%2e/%2e%2e/etc/passwd",
        "/../content/",
        "/..%2fsecret.txt",
        "/%2e%2e%2fsecret.txt",
        "//etc/passwd",
        "/link",
        "/ko/%00",
        "/%ff%fe",
    ],
)
def test_requests_outside_the_site_are_404(server: tuple[int, ServeStatus], path: str) -> None:
    port, _ = server
    status, body = get(port, path)
    assert status == 404
    assert b"secret" not in body and b"root:" not in body


def test_pages_are_served_with_the_reload_script(server: tuple[int, ServeStatus]) -> None:
    port, _ = server
    status, body = get(port, "/ko/")
    assert status == 200
    assert "홈".encode() in body and b"/__bipub/events" in body


def test_directory_without_slash_redirects(server: tuple[int, ServeStatus]) -> None:
    port, _ = server
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.request("GET", "/ko")
    response = conn.getresponse()
    assert response.status == 301 and response.getheader("Location") == "/ko/"


def test_safe_path_is_component_wise(site: Path) -> None:
    sibling = site.parent / "site-old"
    sibling.mkdir()
    (sibling / "x.html").write_text("x")
    assert safe_path(site, "/../site-old/x.html") is None
    assert safe_path(site, "/ko/") == (site / "ko" / "index.html").resolve()


def test_reload_event_after_rebuild(server: tuple[int, ServeStatus]) -> None:
    port, state = server
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.request("GET", "/__bipub/events")
    response = conn.getresponse()
    assert response.getheader("Content-Type") == "text/event-stream"
    state.done([])
    line = response.fp.readline()
    assert line == b"event: reload\n"
    state.done(["content/ko/posts/x.md:3: bad"])
    response.fp.readline()
    response.fp.readline()
    assert response.fp.readline() == b"event: failed\n"
    assert b"content/ko/posts/x.md:3: bad" in response.fp.readline()


def test_the_dev_server_binds_loopback_by_default() -> None:
    from bipub.commands.serve_cmd import serve

    host = next(p for p in serve.params if p.name == "host")
    assert host.default == "127.0.0.1"


def test_a_build_in_progress_is_never_served(tmp_path: Path) -> None:
    """The server reads the published folder; a staged build beside it is invisible until the swap."""
    from bipub.write.output import publish, staged

    out = tmp_path / "serve"
    with staged(out) as tree:
        tree.add("ko/index.html", "<html><body>v1</body></html>", "ko", "t")
        publish(tree)
    state = ServeStatus()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(out, state))
    httpd.daemon_threads = False
    serving = threading.Thread(target=httpd.serve_forever, daemon=True)
    serving.start()
    port = httpd.server_address[1]
    try:
        with staged(out) as tree:
            tree.add("ko/index.html", "<html><body>v2</body></html>", "ko", "t")
            tree.add("ko/new/index.html", "<html><body>new</body></html>", "ko", "t")
            assert b"v1" in get(port, "/ko/")[1]
            assert get(port, "/ko/new/")[0] == 404
            staging = tree.staging.name
            assert get(port, f"/../{staging}/ko/index.html")[0] == 404
            publish(tree)
        assert b"v2" in get(port, "/ko/")[1]
        assert get(port, "/ko/new/")[0] == 200
    finally:
        httpd.shutdown()
        httpd.server_close()
        serving.join()


def test_serve_rebuilds_on_change_and_tells_the_page(make_project, tmp_path: Path) -> None:
    """`bipub serve` end to end: a saved edit is rebuilt and announced to open pages."""
    import re
    import subprocess
    import time

    project = make_project("minimal")
    env = subprocess_env()  # (placeholder PDFs: no test here reads one)
    proc = subprocess.Popen(
        _serve_command(project),
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        port = None
        deadline = time.monotonic() + 120
        assert proc.stderr is not None
        while deadline > time.monotonic():  # a hang guard, not a speed assertion
            line = proc.stderr.readline()
            match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            if match:
                port = int(match.group(1))
                break
        assert port, "serve did not start"
        status, body = get(port, "/ko/blog/alpha/")
        assert status == 200 and "알파 글".encode() in body
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        conn.request("GET", "/__bipub/events")
        events = conn.getresponse()
        post = project / "content/ko/posts/alpha.md"
        post.write_text(post.read_text(encoding="utf-8").replace("알파 글", "고친 글"), "utf-8")
        _next_event_is_reload(events)
        status, body = get(port, "/ko/blog/alpha/")
        assert status == 200 and "고친 글".encode() in body
        # the next edit is built from the watcher's change set (the first batch: a full scan)
        post.write_text(post.read_text(encoding="utf-8").replace("고친 글", "또 고친 글"), "utf-8")
        _next_event_is_reload(events)
        status, body = get(port, "/ko/blog/alpha/")
        assert status == 200 and "또 고친 글".encode() in body
        said = []  # (-v: what the build looked at)
        while not re.search(r"the watcher's changes \([1-9]", said[-1] if said else ""):
            said.append(proc.stderr.readline())
            assert said[-1], "".join(said)  # (serve ended without saying it)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _next_event_is_reload(events: http.client.HTTPResponse) -> None:
    """Read the live-reload stream up to its next event, which must be a reload."""
    while True:
        line = events.fp.readline()
        if line.startswith(b"event:"):
            assert line == b"event: reload\n"
            return


def test_a_port_in_use_is_said_before_any_build(make_project) -> None:
    """`bipub serve --port N` with N taken: a clear error naming the address and exit status 1
    at once, not a traceback after the first build (which takes minutes on a big site)."""
    import socket

    from click.testing import CliRunner

    from bipub.cli import main

    project = make_project("minimal")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, ["-C", str(project), "serve", "--port", str(port)])
    assert result.exit_code == 1, result.output
    assert f"cannot serve on 127.0.0.1:{port}" in result.output
    assert "--port" in result.output and "Traceback" not in result.output
    assert not (project / ".bipub-cache" / "serve").exists()  # (nothing was built)


def test_sigterm_stops_the_server_as_ctrl_c_does(make_project) -> None:
    """A server stopped by SIGTERM (`kill`, systemd, `docker stop`) saves its build state as
    Ctrl-C does: the next start finds it (before, it was lost and every page was fingerprinted
    and rendered again) and the stop's exit status is 0."""
    import re
    import signal
    import subprocess
    import time

    project = make_project("minimal")
    env = subprocess_env()  # (placeholder PDFs: no test here reads one)
    said = []
    for _ in range(2):
        proc = subprocess.Popen(
            _serve_command(project),
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert proc.stderr is not None
        lines = []
        deadline = time.monotonic() + 120
        while deadline > time.monotonic():  # a hang guard, not a speed assertion
            lines.append(proc.stderr.readline())
            if re.search(r"http://127\.0\.0\.1:\d+/", lines[-1]) or not lines[-1]:
                break
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0, "".join(lines) + proc.stderr.read()
        said.append("".join(lines))
    assert "no state of the last build" in said[0]
    assert "no state of the last build" not in said[1], said[1]
