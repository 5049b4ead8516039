"""Real headless Chromium (Debian's /usr/bin/chromium) driven by Playwright over the built demo."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from bipub.pipeline import build
from bipub.serve import ServeStatus, listen, make_handler
from tests.conftest import PLACEHOLDER_PDF, copy_demo, made_once_per_run, placeholder_pdfs

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _build_demo(project: Path) -> None:
    copy_demo(project)
    # (placeholders whatever the switch says now: a session fixture is set up before the
    # module's switch, and this build rendered the demo's 8 PDFs, ~7 CPU s, for nobody)
    with placeholder_pdfs():
        build(project, project / "site")
    pdfs = sorted((project / "site").rglob("*.pdf"))
    assert pdfs and all(p.read_bytes().startswith(PLACEHOLDER_PDF) for p in pdfs), pdfs


@pytest.fixture(scope="session")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo, built once per test run with placeholder PDFs (no browser test reads a PDF of
    it) and shared by the test processes: the browser tests only read it (serve it), but the
    check report's test writes its report beside it."""
    return made_once_per_run(tmp_path_factory, "browser-demo", _build_demo) / "site"


# The server and the browser run threads; they end with each module, so that the tests after
# these run without other threads, as `bipub build` does (parallel.can_fork: forked prescan,
# load and render workers), not on the in-process paths used where forking is unsafe.
@pytest.fixture(scope="module")
def site_url(demo_site: Path) -> Iterator[str]:
    status = ServeStatus()
    server = listen("127.0.0.1", 0, make_handler(demo_site, status))  # (as serve: a browser
    # that leaves a page before its answer is sent prints no traceback)
    server.daemon_threads = False  # server_close() waits for every request thread
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    status.close()  # as `bipub serve` stops: the pages' live-reload streams end now (else each
    # waits for its next keep-alive write, 15-30 s, to find the browser gone)
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.fixture(scope="module")
def browser(site_url: str) -> Iterator[object]:  # closed before the server: its connections end
    if not Path(CHROMIUM).exists():
        pytest.fail("Chromium is not installed: run scripts/bootstrap.sh (Debian package chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()
