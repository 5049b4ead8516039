"""pytest fixtures for the DeepL fake.

``deepl_fake`` (function scope) yields a started :class:`FakeDeepL` with default
settings (auth key ``"test-key"``, 1 000 000 character limit) and sets nothing global:
tests that need ``DEEPL_SERVER_URL``/``DEEPL_AUTH_KEY`` set them with ``monkeypatch``.
At teardown the server is stopped (hanging requests are woken up) and the test errors
if the fake itself raised an unexpected exception while serving.

Keeping tests fast
------------------
deepl 1.32 (``deepl/http_client.py``) retries HTTP 429, every status >= 500 and
connection errors/timeouts up to ``deepl.http_client.max_network_retries`` (5) times,
sleeping with exponential backoff that starts at ``_BackoffTimer.BACKOFF_INITIAL``
(1 s, x1.6 per retry, +-23 % jitter, capped at ``BACKOFF_MAX`` 120 s); it ignores
``Retry-After``.  Each attempt's timeout is ``max(time left until the backoff deadline,
deepl.http_client.min_connection_timeout)`` with the latter at 10 s.  None of this is
configurable per ``Translator``, only through these module globals, so the opt-in
``deepl_fast_backoff`` fixture (or :func:`speed_up_deepl_client`) patches them with
``monkeypatch`` -- undone at teardown -- to a 10 ms backoff and a 2 s timeout.  Tests
that simulate a hang lower the timeout further (``timeout=0.3``) and usually set
``max_retries=0``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .server import FakeDeepL

__all__ = ["deepl_fake", "deepl_fast_backoff", "speed_up_deepl_client"]


def speed_up_deepl_client(
    monkeypatch: pytest.MonkeyPatch,
    *,
    backoff: float = 0.01,
    timeout: float | None = 2.0,
    max_retries: int | None = None,
) -> None:
    """Shrink the official client's retry backoff / timeout for the current test.

    ``backoff`` replaces the initial backoff (and caps it at ``10 * backoff``);
    ``timeout`` replaces ``min_connection_timeout`` (the per-attempt timeout, because a
    tiny backoff leaves no time until the deadline); ``max_retries`` replaces
    ``max_network_retries`` (``None`` keeps the client's default of 5).
    """
    import deepl.http_client as http_client

    monkeypatch.setattr(http_client._BackoffTimer, "BACKOFF_INITIAL", backoff)
    monkeypatch.setattr(http_client._BackoffTimer, "BACKOFF_MAX", backoff * 10)
    if timeout is not None:
        monkeypatch.setattr(http_client, "min_connection_timeout", timeout)
    if max_retries is not None:
        monkeypatch.setattr(http_client, "max_network_retries", max_retries)


@pytest.fixture
def deepl_fake() -> Iterator[FakeDeepL]:
    """A started :class:`FakeDeepL`; pass ``deepl_fake.url`` as ``server_url``."""
    fake = FakeDeepL()
    fake.start()
    try:
        yield fake
    finally:
        fake.stop()
    errors = fake.server_errors
    if errors:
        pytest.fail("FakeDeepL raised while serving:\n" + "\n".join(errors), pytrace=False)


#: The DeepL key `deepl_env` sets (tests only).
TEST_KEY = "bipub-test-secret-5c0ffee"


@pytest.fixture
def deepl_env(deepl_fake: FakeDeepL, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDeepL]:
    """`deepl_fake` as `bipub translate` finds it: its key in DEEPL_AUTH_KEY, its URL in
    DEEPL_SERVER_URL, no proxy for 127.0.0.1, the client's timeouts short."""
    deepl_fake.auth_keys = frozenset({TEST_KEY})
    monkeypatch.setenv("DEEPL_AUTH_KEY", TEST_KEY)
    monkeypatch.setenv("DEEPL_SERVER_URL", deepl_fake.url)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    speed_up_deepl_client(monkeypatch, timeout=2.0)
    yield deepl_fake


@pytest.fixture
def deepl_fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the official client's retries near-instant (see module docstring)."""
    speed_up_deepl_client(monkeypatch)
