# Fixtures are imported from tests.deepl_fake.fixtures, so every test parameter named
# after one "redefines" the import as far as pyflakes is concerned.
# ruff: noqa: F811
"""Drive the DeepL fake through the REAL ``deepl`` client (1.32.0).

These tests pin down both the fake's behaviour and the official client's quirks that
bipub has to live with (JSON request bodies, retry/backoff globals, malformed 200
responses surfacing as IndexError/TypeError instead of DeepLException).
Retries are made near-instant with ``speed_up_deepl_client`` (see
``tests/deepl_fake/fixtures.py``), so the whole module runs in a few seconds.
"""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping
from typing import Any

import deepl
import pytest
from deepl.api_data import MultilingualGlossaryDictionaryEntries

from tests.deepl_fake import MAX_REQUEST_BYTES, MAX_TEXTS_PER_REQUEST, FakeDeepL, pseudo_translate
from tests.deepl_fake.fixtures import (  # noqa: F401
    deepl_fake,
    deepl_fast_backoff,
    speed_up_deepl_client,
)

HANGUL = re.compile(r"[\uac00-\ud7a3]")
LATIN = re.compile(r"[A-Za-z]")
TAG = re.compile(r"<[^>]*>")


def skeleton(text: str) -> str:
    """Everything except the words: digits, punctuation and whitespace, in order."""
    return re.sub(r"[A-Za-z\uac00-\ud7a3]+", "", text)


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    # requests honours *_PROXY variables; loopback traffic must never leave the host.
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture
def translator(deepl_fake: FakeDeepL) -> Iterator[deepl.Translator]:
    client = deepl.Translator("test-key", server_url=deepl_fake.url)
    yield client
    client.close()


def raw_request(
    fake: FakeDeepL,
    method: str,
    path: str,
    *,
    form: Mapping[str, Any] | None = None,
    json_body: object = None,
    key: str | None = "test-key",
    headers: Mapping[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    """Plain stdlib HTTP request (no proxies) returning (status, headers, body)."""
    all_headers = dict(headers or {})
    data = None
    if form is not None:
        data = urllib.parse.urlencode(form, doseq=True).encode()
        all_headers["Content-Type"] = "application/x-www-form-urlencoded"
    elif json_body is not None:
        data = json.dumps(json_body).encode()
        all_headers["Content-Type"] = "application/json"
    if key is not None:
        all_headers["Authorization"] = f"DeepL-Auth-Key {key}"
    request = urllib.request.Request(fake.url + path, data=data, method=method, headers=all_headers)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=5) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


# ------------------------------------------------------------------ plain translation


def test_ko_to_en_is_deterministic_and_keeps_digits(
    translator: deepl.Translator, deepl_fake: FakeDeepL
) -> None:
    source = "배포 2024년 3월 15일, 버전 1.2.3!"
    first = translator.translate_text(source, source_lang="KO", target_lang="EN-US")
    second = translator.translate_text(source, source_lang="KO", target_lang="EN-US")

    assert first.text == second.text == "baepo 2024nyeon 3wol 15il, beojeon 1.2.3!"
    assert not HANGUL.search(first.text)
    assert skeleton(first.text) == skeleton(source)
    assert first.detected_source_lang == "KO"
    assert first.billed_characters == len(source)
    assert (
        translator.translate_text("한국어 2024", source_lang="KO", target_lang="EN-GB").text
        == "hangugeo 2024"
    )


def test_en_to_ko_produces_hangul_and_keeps_digits(translator: deepl.Translator) -> None:
    assert translator.translate_text("hi 42!", target_lang="KO").text == "보 42!"

    source = "Release 3 ships on 2024-05-01 (v1.2), see https://x.io/a?b=1."
    result = translator.translate_text(source, target_lang="KO")
    assert HANGUL.search(result.text)
    assert LATIN.findall(result.text) == ["v"]  # `v1.2` kept, as DeepL keeps a name
    assert skeleton(result.text) == skeleton(source)
    assert result.detected_source_lang == "EN"  # auto-detected: no source_lang sent
    # names with digits, acronyms and camel-case names are kept; a particle is set apart
    kept = translator.translate_text("TP2 on an H100 GPU with vLLM", target_lang="KO").text
    assert kept.split()[0] == "TP2" and "H100" in kept and "GPU" in kept and "vLLM" in kept
    apart = translator.translate_text("TP4에서 70B는 2024년", target_lang="EN-US").text
    assert apart == "TP4 eseo 70B neun 2024nyeon"
    assert translator.translate_text(source, target_lang="KO").text == result.text


def test_client_sends_json_and_form_bodies_are_accepted_too(
    translator: deepl.Translator, deepl_fake: FakeDeepL
) -> None:
    texts = ["Hello <code>x</code> world", "Second 2"]
    via_client = translator.translate_text(
        texts, target_lang="KO", tag_handling="xml", ignore_tags="code,kbd"
    )

    sent = deepl_fake.translate_requests[-1]
    assert sent.content_type.startswith("application/json")
    assert sent.params["text"] == texts
    assert sent.params["ignore_tags"] == ["code", "kbd"]  # JSON array, split by the client
    assert sent.params["show_billed_characters"] is True
    assert sent.texts == texts
    assert sent.authorized
    assert "authorization" not in {name.lower() for name in sent.headers}

    status, _, body = raw_request(
        deepl_fake,
        "POST",
        "/v2/translate",
        form={"text": texts, "target_lang": "ko", "tag_handling": "xml", "ignore_tags": "code,kbd"},
    )
    assert status == 200
    translations = json.loads(body)["translations"]
    assert [t["text"] for t in translations] == [r.text for r in via_client]
    assert "billed_characters" not in translations[0]  # only with show_billed_characters
    assert deepl_fake.translate_requests[-1].content_type == "application/x-www-form-urlencoded"


# ------------------------------------------------------------------ markup


def test_xml_ignore_tags_keep_protected_content_byte_for_byte(
    translator: deepl.Translator,
) -> None:
    protected = '<code>make build-2 --fast &amp;&amp; echo "ok" <b>Nested</b></code>'
    source = (
        '<doc><p id="intro" class="lead">Run '
        + protected
        + " now.</p><kbd>Ctrl+C</kbd><!-- keep me --><p>Version 3.1</p></doc>"
    )
    result = translator.translate_text(
        source, target_lang="KO", tag_handling="xml", ignore_tags=["code", "kbd"]
    ).text

    assert protected in result
    assert "<kbd>Ctrl+C</kbd>" in result
    assert "<!-- keep me -->" in result
    assert TAG.findall(result) == TAG.findall(source)
    assert skeleton(TAG.sub("", result)) == skeleton(TAG.sub("", source))
    for word in ("Run", "now", "Version"):
        assert word not in result
    assert "3.1" in result
    assert HANGUL.search(result)


def test_html_translate_no_script_and_void_elements(translator: deepl.Translator) -> None:
    source = (
        '<p>Deploy <span translate="no">Kubernetes</span> today<br>'
        'now <script>var x = "y";</script><img alt="Logo" src="a.png"> done</p>'
    )
    result = translator.translate_text(source, target_lang="KO", tag_handling="html").text

    assert '<span translate="no">Kubernetes</span>' in result
    assert '<script>var x = "y";</script>' in result
    assert TAG.findall(result) == TAG.findall(source)
    for word in ("Deploy", "today", "now", "done"):
        assert word not in result


def test_without_tag_handling_markup_is_just_text(translator: deepl.Translator) -> None:
    result = translator.translate_text("<b>bold</b>", target_lang="KO").text
    assert "<b>" not in result
    assert result.startswith("<") and result.endswith(">")


# ------------------------------------------------------------------ limits and validation


def test_more_than_50_texts_is_rejected(
    translator: deepl.Translator, deepl_fake: FakeDeepL
) -> None:
    with pytest.raises(deepl.DeepLException) as excinfo:
        translator.translate_text(["word"] * (MAX_TEXTS_PER_REQUEST + 1), target_lang="KO")
    assert excinfo.value.http_status_code == 400
    assert deepl_fake.billed_chars == 0

    results = translator.translate_text(["word"] * MAX_TEXTS_PER_REQUEST, target_lang="KO")
    assert len(results) == MAX_TEXTS_PER_REQUEST
    assert deepl_fake.billed_chars == 4 * MAX_TEXTS_PER_REQUEST


def test_request_body_over_128_kib_is_413(
    translator: deepl.Translator, deepl_fake: FakeDeepL
) -> None:
    with pytest.raises(deepl.DeepLException) as excinfo:
        translator.translate_text("x" * (MAX_REQUEST_BYTES + 1), target_lang="KO")
    assert excinfo.value.http_status_code == 413
    assert len(deepl_fake.translate_requests) == 1  # not retried
    assert deepl_fake.billed_chars == 0

    fits = "x" * (MAX_REQUEST_BYTES - 1024)
    assert len(translator.translate_text(fits, target_lang="KO").text) == len(fits) // 2


@pytest.mark.parametrize("formality", ["more", "less"])
def test_formality_more_less_rejected_for_ko(translator: deepl.Translator, formality: str) -> None:
    with pytest.raises(deepl.DeepLException, match="formality") as excinfo:
        translator.translate_text("Hello", target_lang="KO", formality=formality)
    assert excinfo.value.http_status_code == 400


@pytest.mark.parametrize("formality", ["prefer_more", "prefer_less", "default"])
def test_formality_prefer_accepted_for_ko(translator: deepl.Translator, formality: str) -> None:
    assert translator.translate_text("hi", target_lang="KO", formality=formality).text == "보"


def test_language_validation(translator: deepl.Translator, deepl_fake: FakeDeepL) -> None:
    # The client refuses bare "EN" itself; nothing reaches the server.
    with pytest.raises(deepl.DeepLException, match="EN-GB"):
        translator.translate_text("안녕", target_lang="EN")
    assert deepl_fake.requests == []

    status, _, body = raw_request(
        deepl_fake, "POST", "/v2/translate", json_body={"text": ["안녕"], "target_lang": "EN"}
    )
    assert status == 400
    assert "target_lang" in json.loads(body)["message"]

    with pytest.raises(deepl.DeepLException, match="target_lang"):
        translator.translate_text("hi", target_lang="DE")
    with pytest.raises(deepl.DeepLException, match="source_lang"):
        translator.translate_text("hi", source_lang="EN-US", target_lang="KO")

    with FakeDeepL(allow_deprecated_en_target=True) as lenient:
        status, _, body = raw_request(
            lenient, "POST", "/v2/translate", json_body={"text": ["안녕"], "target_lang": "EN"}
        )
    assert status == 200
    assert json.loads(body)["translations"][0]["text"] == "annyeong"


# ------------------------------------------------------------------ usage and billing


def test_usage_and_languages(translator: deepl.Translator, deepl_fake: FakeDeepL) -> None:
    texts = ["안녕하세요", "Hello, world 7"]
    translator.translate_text(texts, target_lang="EN-US", context="not billed")
    usage = translator.get_usage()

    assert usage.character.count == sum(map(len, texts)) == deepl_fake.billed_chars
    assert usage.character.limit == 1_000_000
    assert not usage.any_limit_reached

    assert [lang.code for lang in translator.get_source_languages()] == ["EN", "KO"]
    targets = translator.get_target_languages()
    assert [lang.code for lang in targets] == ["EN-GB", "EN-US", "KO"]
    assert not any(lang.supports_formality for lang in targets)
    # Quirk: get_target_languages() sends GET with a form body "type=target".
    languages_requests = [r for r in deepl_fake.requests if r.path == "/v2/languages"]
    assert languages_requests[1].method == "GET"
    assert languages_requests[1].content_type == "application/x-www-form-urlencoded"
    assert languages_requests[1].params == {"type": "target"}


def test_character_limit_gives_456() -> None:
    with FakeDeepL(character_limit=10) as fake:
        client = deepl.Translator("test-key", server_url=fake.url)
        client.translate_text("12345678", target_lang="KO")
        with pytest.raises(deepl.QuotaExceededException):
            client.translate_text("abcde", target_lang="KO")
        assert client.get_usage().character.count == 8
        client.translate_text("ab", target_lang="KO")
        usage = client.get_usage()
        client.close()
    assert usage.character.count == 10
    assert usage.character.limit_reached
    assert fake.billed_chars == 10


# ------------------------------------------------------------------ glossaries


def test_v2_glossary_create_list_use_delete(
    translator: deepl.Translator, deepl_fake: FakeDeepL
) -> None:
    pairs = {(p.source_lang, p.target_lang) for p in translator.get_glossary_languages()}
    assert ("en", "ko") in pairs

    glossary = translator.create_glossary(
        "bipub terms", "EN", "KO", {"pipeline": "파이프라인", "DeepL": "딥엘"}
    )
    assert glossary.ready and glossary.entry_count == 2
    assert (glossary.source_lang, glossary.target_lang) == ("EN", "KO")
    assert [g.glossary_id for g in translator.list_glossaries()] == [glossary.glossary_id]
    assert translator.get_glossary(glossary.glossary_id).name == "bipub terms"
    assert translator.get_glossary_entries(glossary) == {"pipeline": "파이프라인", "DeepL": "딥엘"}

    result = translator.translate_text(
        "The pipeline calls DeepL 3 times; pipelines differ.",
        source_lang="EN",
        target_lang="KO",
        glossary=glossary,
    ).text
    assert "파이프라인" in result and "딥엘" in result
    assert " 3 " in result
    assert not LATIN.search(result)  # "pipelines" (no word boundary) is pseudo-translated
    assert deepl_fake.translate_requests[-1].params["glossary_id"] == glossary.glossary_id

    # The client enforces source_lang for glossaries; the fake does too for raw requests.
    status, _, _ = raw_request(
        deepl_fake,
        "POST",
        "/v2/translate",
        json_body={"text": ["pipeline"], "target_lang": "KO", "glossary_id": glossary.glossary_id},
    )
    assert status == 400

    translator.delete_glossary(glossary)
    assert translator.list_glossaries() == []
    with pytest.raises(deepl.GlossaryNotFoundException):
        translator.get_glossary(glossary.glossary_id)


def test_v3_multilingual_glossary(deepl_fake: FakeDeepL) -> None:
    client = deepl.DeepLClient("test-key", server_url=deepl_fake.url)
    glossary = client.create_multilingual_glossary(
        "bipub",
        [
            MultilingualGlossaryDictionaryEntries("KO", "EN", {"배포": "deployment"}),
            MultilingualGlossaryDictionaryEntries("EN", "KO", {"deployment": "배포"}),
        ],
    )
    assert {(d.source_lang, d.target_lang) for d in glossary.dictionaries} == {
        ("KO", "EN"),
        ("EN", "KO"),
    }
    assert [g.glossary_id for g in client.list_multilingual_glossaries()] == [glossary.glossary_id]

    to_en = client.translate_text(
        "배포 2회", source_lang="KO", target_lang="EN-US", glossary=glossary
    )
    assert to_en.text == "deployment 2hoe"
    to_ko = client.translate_text(
        "deployment 2", source_lang="EN", target_lang="KO", glossary=glossary
    )
    assert to_ko.text == "배포 2"

    entries = client.get_multilingual_glossary_entries(glossary, "KO", "EN").dictionaries[0]
    assert entries.entries == "배포\tdeployment"  # TSV string, as the API returns it
    client.update_multilingual_glossary_dictionary(
        glossary, MultilingualGlossaryDictionaryEntries("KO", "EN", {"번역": "translation"})
    )
    updated = client.get_multilingual_glossary(glossary.glossary_id)
    assert {d.source_lang: d.entry_count for d in updated.dictionaries} == {"KO": 2, "EN": 1}

    client.delete_multilingual_glossary_dictionary(glossary, source_lang="EN", target_lang="KO")
    with pytest.raises(deepl.DeepLException):
        client.translate_text(
            "deployment", source_lang="EN", target_lang="KO", glossary=glossary.glossary_id
        )
    client.delete_multilingual_glossary(glossary)
    with pytest.raises(deepl.GlossaryNotFoundException):
        client.get_multilingual_glossary(glossary.glossary_id)
    client.close()


# ------------------------------------------------------------------ auth and status faults


def test_wrong_key_is_403(deepl_fake: FakeDeepL) -> None:
    client = deepl.Translator("not-a-valid-key", server_url=deepl_fake.url)
    with pytest.raises(deepl.AuthorizationException):
        client.translate_text("hi", target_lang="KO")
    client.close()
    recorded = deepl_fake.requests[-1]
    assert (recorded.status, recorded.authorized) == (403, False)
    assert "authorization" not in {name.lower() for name in recorded.headers}

    status, _, body = raw_request(deepl_fake, "GET", "/v2/usage", key=None)
    assert status == 403
    assert "message" in json.loads(body)
    assert deepl_fake.billed_chars == 0


def test_injected_403_and_456_are_not_retried(
    translator: deepl.Translator, deepl_fake: FakeDeepL
) -> None:
    deepl_fake.fail_next(403)
    with pytest.raises(deepl.AuthorizationException):
        translator.translate_text("hi", target_lang="KO")
    deepl_fake.fail_next(456)
    with pytest.raises(deepl.QuotaExceededException):
        translator.translate_text("hi", target_lang="KO")
    assert [r.status for r in deepl_fake.requests] == [403, 456]
    assert translator.translate_text("hi", target_lang="KO").text == "보"


def test_fail_after_quota_runs_out_midway(
    translator: deepl.Translator, deepl_fake: FakeDeepL
) -> None:
    deepl_fake.fail_after(2, 456)
    translator.translate_text("one", target_lang="KO")
    translator.translate_text("two", target_lang="KO")
    for _ in range(2):
        with pytest.raises(deepl.QuotaExceededException):
            translator.translate_text("three", target_lang="KO")
    assert translator.get_usage().character.count == 6  # usage itself is not affected
    deepl_fake.clear_faults()
    translator.translate_text("four", target_lang="KO")
    assert deepl_fake.billed_chars == 10


@pytest.mark.usefixtures("deepl_fast_backoff")
def test_429_once_then_success(translator: deepl.Translator, deepl_fake: FakeDeepL) -> None:
    deepl_fake.fail_next(429)
    assert deepl.http_client._BackoffTimer.BACKOFF_INITIAL < 0.1  # the fixture's short backoff
    assert translator.translate_text("hi", target_lang="KO").text == "보"
    sent = deepl_fake.translate_requests
    assert [r.status for r in sent] == [429, 200]
    assert sent[0].fault == "status(429)"
    assert deepl_fake.billed_chars == 2

    deepl_fake.fail_next(429, retry_after=7)
    status, headers, _ = raw_request(deepl_fake, "GET", "/v2/usage")
    assert (status, headers.get("Retry-After")) == (429, "7")


def test_429_persisting_raises_too_many_requests(
    monkeypatch: pytest.MonkeyPatch,
    translator: deepl.Translator,
    deepl_fake: FakeDeepL,
) -> None:
    speed_up_deepl_client(monkeypatch, max_retries=2)
    deepl_fake.fail_next(429, times=10)
    with pytest.raises(deepl.TooManyRequestsException):
        translator.translate_text("hi", target_lang="KO")
    assert len(deepl_fake.translate_requests) == 3  # first try + 2 retries


@pytest.mark.usefixtures("deepl_fast_backoff")
def test_5xx_is_retried(translator: deepl.Translator, deepl_fake: FakeDeepL) -> None:
    deepl_fake.fail_next(500)
    deepl_fake.fail_next(503)
    deepl_fake.fail_next(502, body="<html>Bad Gateway</html>")
    assert translator.translate_text("hi", target_lang="KO").text == "보"
    assert [r.status for r in deepl_fake.translate_requests] == [500, 503, 502, 200]


def test_5xx_persisting_raises(
    monkeypatch: pytest.MonkeyPatch,
    translator: deepl.Translator,
    deepl_fake: FakeDeepL,
) -> None:
    speed_up_deepl_client(monkeypatch, max_retries=1)
    deepl_fake.fail_next(500, times=5)
    with pytest.raises(deepl.DeepLException) as excinfo:
        translator.translate_text("hi", target_lang="KO")
    assert excinfo.value.http_status_code == 500
    assert len(deepl_fake.translate_requests) == 2


def test_path_filtered_fault_only_hits_that_endpoint(
    translator: deepl.Translator, deepl_fake: FakeDeepL
) -> None:
    deepl_fake.fail_next(403, path="/v2/usage")
    assert translator.translate_text("hi", target_lang="KO").text == "보"
    with pytest.raises(deepl.AuthorizationException):
        translator.get_usage()


# ------------------------------------------------------------------ hangs


def test_hang_times_out_quickly(
    monkeypatch: pytest.MonkeyPatch,
    translator: deepl.Translator,
    deepl_fake: FakeDeepL,
) -> None:
    speed_up_deepl_client(monkeypatch, timeout=0.3, max_retries=0)
    deepl_fake.hang_next(30)
    with pytest.raises(deepl.ConnectionException, match="timed out"):
        translator.translate_text("hi", target_lang="KO")
    assert deepl_fake.translate_requests[0].status is None  # never answered
    assert deepl_fake.billed_chars == 0


def test_hang_once_then_retry_succeeds(
    monkeypatch: pytest.MonkeyPatch,
    translator: deepl.Translator,
    deepl_fake: FakeDeepL,
) -> None:
    speed_up_deepl_client(monkeypatch, timeout=0.3, max_retries=1)
    deepl_fake.hang_next(30)
    assert translator.translate_text("hi", target_lang="KO").text == "보"
    assert [r.status for r in deepl_fake.translate_requests] == [None, 200]
    assert deepl_fake.billed_chars == 2  # the hung attempt was never served


def test_slow_response_is_served(translator: deepl.Translator, deepl_fake: FakeDeepL) -> None:
    deepl_fake.hang_next(0.2, respond=True)
    assert translator.translate_text("hi", target_lang="KO").text == "보"
    # the one request waited out the hang and was then served (the fake's record, not a clock)
    [request] = deepl_fake.translate_requests
    assert (request.fault, request.status) == ("hang(0.2)", 200)


def test_stop_interrupts_a_hanging_request() -> None:
    fake = FakeDeepL().start()
    fake.hang_next(60)
    outcome: list[object] = []

    def call() -> None:
        try:
            outcome.append(raw_request(fake, "GET", "/v2/usage"))
        except OSError as exc:  # the fake closes the connection without answering
            outcome.append(exc)

    worker = threading.Thread(target=call)
    try:
        worker.start()
        deadline = time.monotonic() + 5
        while not fake.requests and deadline > time.monotonic():  # hang guard
            time.sleep(0.01)
        assert fake.requests, "request never reached the fake"
    except BaseException:
        fake.stop()
        raise
    fake.stop()
    worker.join(5)
    assert not worker.is_alive()
    assert not fake.running
    assert len(outcome) == 1 and isinstance(outcome[0], OSError)
    assert fake.requests[0].status is None


# ------------------------------------------------------------------ malformed responses


def test_malformed_200_responses_are_not_wrapped_by_the_client(
    translator: deepl.Translator, deepl_fake: FakeDeepL
) -> None:
    # deepl 1.32 does not turn broken 200 bodies into DeepLException: callers must
    # check result counts and catch IndexError/TypeError themselves.
    deepl_fake.malformed_next("invalid_json")
    with pytest.raises(IndexError):
        translator.translate_text("hi", target_lang="KO")
    deepl_fake.malformed_next("invalid_json")
    assert translator.translate_text(["a", "b"], target_lang="KO") == []
    deepl_fake.malformed_next("html")
    assert translator.translate_text(["a", "b"], target_lang="KO") == []
    deepl_fake.malformed_next("missing_fields")
    with pytest.raises(TypeError):
        translator.translate_text(["a", "b"], target_lang="KO")
    deepl_fake.malformed_next("wrong_count")
    assert len(translator.translate_text(["a", "b"], target_lang="KO")) == 1
    assert deepl_fake.billed_chars == 0
    assert translator.translate_text("hi", target_lang="KO").text == "보"


def test_malformed_error_body_is_a_deepl_exception(
    monkeypatch: pytest.MonkeyPatch,
    translator: deepl.Translator,
    deepl_fake: FakeDeepL,
) -> None:
    speed_up_deepl_client(monkeypatch, max_retries=0)
    deepl_fake.fail_next(502, body="<html>upstream exploded</html>")
    with pytest.raises(deepl.DeepLException, match="upstream exploded") as excinfo:
        translator.translate_text("hi", target_lang="KO")
    assert excinfo.value.http_status_code == 502
    deepl_fake.fail_next(400, body=b"\x00not json")
    with pytest.raises(deepl.DeepLException, match="Bad request"):
        translator.translate_text("hi", target_lang="KO")


# ------------------------------------------------------------------ concurrency


def test_concurrent_requests_are_counted_exactly(deepl_fake: FakeDeepL) -> None:
    errors: list[BaseException] = []

    def worker(index: int) -> None:
        client = deepl.Translator("test-key", server_url=deepl_fake.url)
        try:
            for _ in range(5):
                assert client.translate_text(f"w{index}", target_lang="KO").text
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            client.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert errors == []
    assert len(deepl_fake.translate_requests) == 40
    assert deepl_fake.billed_chars == 40 * 2
    assert deepl_fake.character_count == 80


# ------------------------------------------------------------------ markup faults (issue 15)


def test_tags_are_not_billed_with_tag_handling(
    translator: deepl.Translator, deepl_fake: FakeDeepL
) -> None:
    """DeepL support, "Usage count and billing in DeepL API": with tag_handling the characters
    of the tags, attributes included, are not counted; an entity is one character."""
    result = translator.translate_text(
        'Run <x i="0"/> now &amp; <g i="1">then</g>', target_lang="KO", tag_handling="xml"
    )
    assert result.billed_characters == len("Run  now & then")
    plain = translator.translate_text('Run <x i="0"/>', target_lang="KO")
    assert plain.billed_characters == len('Run <x i="0"/>')


@pytest.mark.parametrize(
    ("kind", "source", "expected"),
    [
        ("drop_tags", 'Run <x i="0"/> <g i="1">it</g>', "Run  it"),
        ("drop_one_tag", 'Run <x i="0"/> <g i="1">it</g>', 'Run  <g i="1">it</g>'),
        ("move_leading_tag", '<x i="0"/> Run <g i="1">it</g>', 'Run <x i="0"/> <g i="1">it</g>'),
        ("malformed_xml", 'Run <x i="0"/> <g i="1">it</g>', 'Run <x i="0"> <g i="1">it</g>'),
    ],
)
def test_markup_faults_change_every_answer(
    translator: deepl.Translator, deepl_fake: FakeDeepL, kind: str, source: str, expected: str
) -> None:
    # EN-US leaves Latin letters as they are: the answer is the fault's work alone
    deepl_fake.markup_fault(kind)
    result = translator.translate_text(source, target_lang="EN-US", tag_handling="xml")
    assert result.text == expected
    deepl_fake.markup_fault(None)
    assert translator.translate_text(source, target_lang="EN-US", tag_handling="xml").text == (
        source
    )


def test_swap_and_refused_texts(translator: deepl.Translator, deepl_fake: FakeDeepL) -> None:
    deepl_fake.markup_fault("swap")
    answers = translator.translate_text(["one", "two", "three"], target_lang="KO")
    assert [a.text for a in answers] == [pseudo_translate(t, "KO") for t in ("three", "two", "one")]
    deepl_fake.clear_faults()
    deepl_fake.fail_texts("bad", 400)
    with pytest.raises(deepl.DeepLException):
        translator.translate_text(["good", "bad text"], target_lang="KO")
    assert translator.translate_text(["good"], target_lang="KO")[0].text == pseudo_translate(
        "good", "KO"
    )
