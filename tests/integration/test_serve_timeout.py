"""The dev server ends a connection that stays silent (issue 16 item 14)."""

from __future__ import annotations

import socket
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

from bipub.serve import CONNECTION_TIMEOUT_S, ServeStatus, make_handler


def test_a_silent_connection_is_closed_by_the_server(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<html><body>x</body></html>")
    state = ServeStatus()
    httpd = ThreadingHTTPServer(
        ("127.0.0.1", 0), make_handler(tmp_path, state, connection_timeout=0.2)
    )
    httpd.daemon_threads = False  # server_close() waits for the request threads
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        with socket.create_connection(httpd.server_address[:2]) as idle:
            # Connect and send nothing. The server must give up and close its side: recv then
            # returns b"" (end of stream). Without a timeout it would wait here for ever; the
            # client's own timeout only keeps a broken server from hanging the test run.
            idle.settimeout(30)
            assert idle.recv(1024) == b""
    finally:
        state.close()
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def test_the_default_timeout_outlasts_the_live_reload_keep_alive() -> None:
    # The event stream writes a keep-alive every 15 s; a timeout below that would end it.
    assert CONNECTION_TIMEOUT_S > 15
