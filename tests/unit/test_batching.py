# ruff: noqa: F811 - pytest fixtures imported by name
"""Request batching and option mapping of bipub.translate.deepl_client."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bipub.translate.deepl_client import (
    MAX_BYTES,
    MAX_TEXTS,
    DeepL,
    DeepLError,
    MissingKeyError,
    RequestOptions,
    TooLargeError,
    deepl_target,
    plan_batches,
    sent_formality,
    text_cost,
)
from tests.deepl_fake import MAX_REQUEST_BYTES, MAX_TEXTS_PER_REQUEST, FakeDeepL
from tests.deepl_fake.fixtures import deepl_fake  # noqa: F401

TEXT = st.text(alphabet=st.sampled_from([*'ab <>&"\\\n', "한", "국", "😀", "\u2028"]), max_size=400)


def check_batches(texts: list[str], batches: list[list[int]], max_texts: int, budget: int) -> None:
    assert [i for batch in batches for i in batch] == list(range(len(texts)))
    for batch in batches:
        assert 1 <= len(batch) <= max_texts
        assert sum(text_cost(texts[i]) for i in batch) <= budget


@settings(max_examples=300, deadline=None)
@given(
    st.lists(TEXT, max_size=120),
    st.integers(1, 60),
    st.integers(2_500, 20_000),
)
def test_every_text_once_in_order_within_limits(
    texts: list[str], max_texts: int, max_bytes: int
) -> None:
    batches = plan_batches(texts, max_texts=max_texts, max_bytes=max_bytes, overhead=100)
    check_batches(texts, batches, max_texts, max_bytes - 100)


@settings(max_examples=100, deadline=None)
@given(st.lists(TEXT, max_size=200))
def test_default_limits_are_deepls(texts: list[str]) -> None:
    check_batches(texts, plan_batches(texts), MAX_TEXTS, MAX_BYTES)
    assert MAX_TEXTS == MAX_TEXTS_PER_REQUEST and MAX_BYTES == MAX_REQUEST_BYTES


def test_batches_are_greedy() -> None:
    assert plan_batches(["a"] * 120) == [
        list(range(50)),
        list(range(50, 100)),
        list(range(100, 120)),
    ]
    assert plan_batches([]) == []


def test_cost_is_the_json_the_client_sends() -> None:
    # requests encodes JSON with ASCII escapes: one Hangul syllable is 6 bytes, not 3
    texts = ["한국어", 'a"b\\c', "x\ny", "😀"]
    body = json.dumps({"text": texts})
    assert sum(text_cost(t) for t in texts) >= len(body) - len('{"text": []}')


def test_a_text_too_large_for_any_request_is_refused() -> None:
    with pytest.raises(TooLargeError) as excinfo:
        plan_batches(["ok", "x" * 200], max_bytes=150, overhead=0)
    assert excinfo.value.index == 1


def test_real_client_requests_stay_under_128_kib(deepl_fake: FakeDeepL) -> None:
    texts = ["가나다라마바사" * 600 + str(i) for i in range(30)]  # ~25 KB of JSON each
    client = DeepL("test-key", deepl_fake.url)
    options = RequestOptions("KO", "EN-US")
    out: list[str] = []
    for batch in plan_batches(texts):
        out.extend(t.text for t in client.translate([texts[i] for i in batch], options))
    client.close()
    assert len(out) == len(texts)
    requests = deepl_fake.translate_requests
    assert len(requests) > 1
    assert all(r.status == 200 and r.body_size <= MAX_REQUEST_BYTES for r in requests)
    assert [t for r in requests for t in r.texts] == texts  # once each, in order


def test_wrapper_validates_result_counts(deepl_fake: FakeDeepL) -> None:
    client = DeepL("test-key", deepl_fake.url)
    deepl_fake.malformed_next("wrong_count")
    with pytest.raises(DeepLError, match="malformed"):
        client.translate(["a", "b"], RequestOptions("EN", "KO"))
    deepl_fake.malformed_next("missing_fields")
    with pytest.raises(DeepLError, match="malformed"):
        client.translate(["a", "b"], RequestOptions("EN", "KO"))
    deepl_fake.malformed_next("invalid_json")
    with pytest.raises(DeepLError, match="malformed"):
        client.translate(["a"], RequestOptions("EN", "KO"))
    client.close()


def test_errors_never_carry_the_key(deepl_fake: FakeDeepL) -> None:
    secret = "not-valid-key-8d1e"
    client = DeepL(secret, deepl_fake.url)
    with pytest.raises(DeepLError) as excinfo:
        client.translate(["a"], RequestOptions("EN", "KO"))
    client.close()
    assert excinfo.value.status == 403
    assert secret not in str(excinfo.value) and "DEEPL_AUTH_KEY" in str(excinfo.value)
    assert client.scrub(f"x {secret} y") == "x *** y"


def test_missing_key_is_a_setup_error() -> None:
    with pytest.raises(MissingKeyError, match="DEEPL_AUTH_KEY is not set"):
        DeepL.from_env({})
    with pytest.raises(MissingKeyError):
        DeepL.from_env({"DEEPL_AUTH_KEY": "  "})


def test_language_and_formality_mapping() -> None:
    assert deepl_target("en") == "EN-US"
    assert deepl_target("en", "EN-GB") == "EN-GB"
    assert deepl_target("ko") == "KO"
    # Korean and English have no formality: plain more/less would be a 400 from DeepL
    assert sent_formality("more", "KO") == "prefer_more"
    assert sent_formality("less", "EN-US") == "prefer_less"
    assert sent_formality("prefer_less", "KO") == "prefer_less"
    assert sent_formality("more", "DE") == "more"
    assert sent_formality("default", "KO") is None


# a real DeepL key's shape: 36 characters and ":fx"
LONG_KEY = "3f9c2a71-0b4e-4d8a-9e5f-6c1d2b7a8e90:fx"


def _pieces(secret: str, size: int = 6) -> set[str]:
    return {secret[i : i + size] for i in range(len(secret) - size + 1)}


@pytest.mark.parametrize("status", [400, 403, 456, 500])
def test_a_server_echoing_the_key_never_gets_it_printed(
    deepl_fake: FakeDeepL, monkeypatch: pytest.MonkeyPatch, status: int
) -> None:
    """Issue 16: the message was cut to 160 characters before the key was scrubbed, so a key
    the cut split was printed in part. Every error path, with a server echoing the header."""
    from tests.deepl_fake.fixtures import speed_up_deepl_client

    speed_up_deepl_client(monkeypatch, max_retries=0)
    deepl_fake.auth_keys = frozenset({LONG_KEY})
    deepl_fake.echo_authorization = True
    client = DeepL(LONG_KEY, deepl_fake.url)
    for path, call in (
        ("/v2/translate", lambda: client.translate(["a"], RequestOptions("EN", "KO"))),
        ("/v2/usage", client.usage),
    ):
        deepl_fake.fail_next(status, path=path)
        with pytest.raises(DeepLError) as excinfo:
            call()
        text = excinfo.value.reason
        assert "Authorization" in text or status == 500 or "***" in text
        leaked = [p for p in _pieces(LONG_KEY) if p in text]
        assert not leaked, (status, path, text)
    client.close()


def test_a_wrong_key_echoed_back_is_scrubbed(deepl_fake: FakeDeepL) -> None:
    deepl_fake.echo_authorization = True
    client = DeepL(LONG_KEY, deepl_fake.url)  # not a key the fake knows: 403
    with pytest.raises(DeepLError) as excinfo:
        client.usage()
    client.close()
    assert excinfo.value.status == 403
    assert not [p for p in _pieces(LONG_KEY) if p in excinfo.value.reason]


def test_scrub_covers_the_forms_a_server_may_echo() -> None:
    client = DeepL(LONG_KEY, "http://127.0.0.1:9")
    from urllib.parse import quote

    for form in (LONG_KEY, quote(LONG_KEY, safe=""), LONG_KEY[:20], LONG_KEY[-12:]):
        assert not [p for p in _pieces(LONG_KEY, 8) if p in client.scrub(f"x {form} y")], form
    client.close()


def test_an_answer_echoing_the_key_is_scrubbed_too(deepl_fake: FakeDeepL) -> None:
    deepl_fake.auth_keys = frozenset({LONG_KEY})
    client = DeepL(LONG_KEY, deepl_fake.url)
    # EN-US leaves Latin text as it is: the fake "translates" the key into itself
    (answer,) = client.translate([f"key {LONG_KEY} end"], RequestOptions("KO", "EN-US"))
    client.close()
    assert answer.text == "key *** end"
    assert answer.scrubbed
