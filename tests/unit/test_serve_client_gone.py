"""`bipub serve`'s HTTP server: a browser that went away is not an error (no traceback printed);
any other error in a request is still printed."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler

import pytest

from bipub.serve import listen


def _serve_once(error: BaseException, capsys: pytest.CaptureFixture[str]) -> str:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            raise error

    server = listen("127.0.0.1", 0, Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        with pytest.raises((urllib.error.URLError, ConnectionError)):
            urllib.request.urlopen(url, timeout=10)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
    return capsys.readouterr().err


@pytest.mark.parametrize("gone", [BrokenPipeError(32, "Broken pipe"), ConnectionResetError()])
def test_a_client_gone_prints_no_traceback(
    gone: BaseException, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _serve_once(gone, capsys) == ""


def test_another_error_is_still_printed(capsys: pytest.CaptureFixture[str]) -> None:
    err = _serve_once(ValueError("a bug in a handler"), capsys)
    assert "ValueError: a bug in a handler" in err
