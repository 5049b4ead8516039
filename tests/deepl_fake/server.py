"""A DeepL-compatible fake HTTP server for the bipub test suite.

Standard library only (``http.server.ThreadingHTTPServer``), so it starts in a few
milliseconds and needs no network beyond loopback.

Written from the DeepL API reference (developers.deepl.com) and from what the
official ``deepl`` Python client 1.32.0 actually sends and parses:

* ``Translator.translate_text`` POSTs a **JSON** body to ``/v2/translate``: ``text``
  is a JSON array, ``ignore_tags``/``splitting_tags``/``non_splitting_tags`` are JSON
  arrays, booleans are JSON booleans, and ``show_billed_characters: true`` is always
  sent (the client does ``int(translation["billed_characters"])`` and breaks without
  it).  The API also accepts form-encoded bodies (repeated ``text=`` fields,
  comma-separated tag lists, ``0``/``1`` booleans); so does this fake.
* ``get_target_languages`` sends ``GET /v2/languages`` with a *form-encoded body*
  ``type=target`` (``requests`` puts ``data=`` into the body even for GET), so the fake
  reads parameters from the query string *and* the body for every method.
* ``get_glossary_entries`` (v2) asks for ``Accept: text/tab-separated-values`` and
  gets TSV text back; the v3 ``.../entries`` endpoint answers JSON.
* ``target_lang="EN"``/``"PT"`` are rejected by the client itself before any request
  is sent.  The docs list ``EN`` as a deprecated but still accepted target ("unspecified
  variant for backward compatibility"); this fake rejects it with 400 by default
  (``allow_deprecated_en_target=True`` accepts it as EN-GB) so raw-HTTP code paths
  cannot rely on it either.

Only the endpoints bipub needs are implemented: ``/v2/translate``, ``/v2/usage``,
``/v2/languages``, ``/v2/glossary-language-pairs``, the v2 glossary endpoints and the
v3 (multilingual) glossary endpoints.  Anything else answers 404 with a JSON body.

Pseudo-translation (deterministic, keeps markup, digits, punctuation, whitespace):

* target ``KO``: every run of ASCII letters becomes Hangul syllables (two letters per
  syllable, see :func:`hangulize_latin`), e.g. ``"hi 42!"`` -> ``"보 42!"``;
* target ``EN-*``: every run of Hangul syllables is romanized (see
  :func:`romanize_hangul`), e.g. ``"한국어 2024"`` -> ``"hangugeo 2024"``;
* glossary source terms found in the text are replaced by their target term verbatim
  (case-sensitive; ASCII terms only match on word boundaries) and not transformed;
* with ``tag_handling=xml|html`` only text nodes are transformed: tags, attributes,
  comments, CDATA, processing instructions and entity references are copied byte for
  byte, as is the content of elements listed in ``ignore_tags`` and, for html, of
  elements with ``translate="no"`` and of ``<script>``/``<style>``.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
import threading
import traceback
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlsplit

from .faults import FAULTS, swap

__all__ = [
    "DEFAULT_AUTH_KEYS",
    "MAX_REQUEST_BYTES",
    "MAX_TEXTS_PER_REQUEST",
    "FakeDeepL",
    "RecordedRequest",
    "billed_characters",
    "hangulize_latin",
    "pseudo_translate",
    "romanize_hangul",
    "translate_text_value",
]

# Limits from the API reference: "The /v2/translate endpoint accepts up to 50 texts per
# request and request bodies up to 128 KiB."
MAX_TEXTS_PER_REQUEST = 50
MAX_REQUEST_BYTES = 128 * 1024
# Bodies larger than this are not even drained; the connection is closed after the 413.
_MAX_DRAIN_BYTES = 32 * 1024 * 1024

DEFAULT_AUTH_KEYS = frozenset({"test-key"})
DEFAULT_CHARACTER_LIMIT = 1_000_000

SOURCE_LANGUAGES: tuple[tuple[str, str], ...] = (("EN", "English"), ("KO", "Korean"))
# (code, name, supports_formality) -- formality is only supported for DE, FR, IT, ES,
# NL, PL, PT-*, JA, RU, none of which the fake offers.
TARGET_LANGUAGES: tuple[tuple[str, str, bool], ...] = (
    ("EN-GB", "English (British)", False),
    ("EN-US", "English (American)", False),
    ("KO", "Korean", False),
)
GLOSSARY_LANGUAGES: tuple[str, ...] = ("en", "ko")
_DEPRECATED_TARGETS = {"EN": "EN-GB"}
_FORMALITY_VALUES = ("default", "more", "less", "prefer_more", "prefer_less")
_FORMALITY_NEEDS_SUPPORT = ("more", "less")
_SPLIT_SENTENCES_VALUES = ("0", "1", "nonewlines")
_TAG_HANDLING_VALUES = ("xml", "html")
_TAG_HANDLING_VERSIONS = ("v1", "v2")
_MODEL_TYPES = ("quality_optimized", "latency_optimized", "prefer_quality_optimized")
_BOOL_VALUES: tuple[object, ...] = ("0", "1", "true", "false", True, False, 0, 1)

_MSG_FORBIDDEN = (
    "Authorization failed. Please supply a valid DeepL-Auth-Key via the Authorization header."
)
_MSG_QUOTA = "Quota for this billing period has been exceeded."
_FAULT_MESSAGES = {
    400: "Bad request.",
    403: _MSG_FORBIDDEN,
    404: "Not found.",
    413: "Request Entity Too Large.",
    429: "Too many requests. Please wait and resend your request.",
    456: _MSG_QUOTA,
    500: "Internal server error.",
    502: "Bad gateway.",
    503: "Service unavailable.",
    504: "Gateway timeout.",
    529: "Too many requests.",
}
_REASON_PHRASES = {456: "Quota Exceeded", 529: "Too Many Requests"}

# --------------------------------------------------------------------------------------
# Pseudo-translation
# --------------------------------------------------------------------------------------

_HANGUL_BASE = 0xAC00
_INITIALS = (
    "g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s",
    "ss", "", "j", "jj", "ch", "k", "t", "p", "h",
)  # fmt: skip
_MEDIALS = (
    "a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae",
    "oe", "yo", "u", "wo", "we", "wi", "yu", "eu", "ui", "i",
)  # fmt: skip
_FINALS = (
    "", "g", "kk", "gs", "n", "nj", "nh", "d", "l", "lg", "lm", "lb", "ls", "lt",
    "lp", "lh", "m", "b", "bs", "s", "ss", "ng", "j", "ch", "k", "t", "p", "h",
)  # fmt: skip
_LATIN_WORD = re.compile(r"[A-Za-z]+")
_HANGUL_WORD = re.compile(r"[\uac00-\ud7a3]+")
_ENTITY = re.compile(r"(&(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#[xX][0-9A-Fa-f]+);)")


def romanize_hangul(word: str) -> str:
    """Romanize precomposed Hangul syllables (``"한국어"`` -> ``"hangugeo"``)."""
    out: list[str] = []
    for char in word:
        index = ord(char) - _HANGUL_BASE
        if not 0 <= index < 11172:
            out.append(char)
            continue
        initial, rest = divmod(index, 21 * 28)
        medial, final = divmod(rest, 28)
        out.append(_INITIALS[initial] + _MEDIALS[medial] + _FINALS[final])
    return "".join(out)


def hangulize_latin(word: str) -> str:
    """Turn ASCII letters into Hangul, two letters per syllable (``"hi"`` -> ``"보"``)."""
    letters = word.lower()
    out: list[str] = []
    for i in range(0, len(letters), 2):
        first = ord(letters[i]) - ord("a")
        initial = first % 19
        # A lone last letter gets "eu", the usual epenthetic vowel of Korean loanwords.
        medial = (ord(letters[i + 1]) - ord("a")) % 21 if i + 1 < len(letters) else 18
        out.append(chr(_HANGUL_BASE + (initial * 21 + medial) * 28))
    return "".join(out)


def _base_lang(code: str) -> str:
    return code.split("-", 1)[0].upper()


#: A Latin token as DeepL keeps it in a translation into Korean: one with a digit (`TP2`,
#: `H100`, `p99`), an acronym (`GPU`, `KV`), or one with a capital inside (`vLLM`, `PyTorch`).
_LATIN_TOKEN = re.compile(r"[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*")
#: A Hangul run right after a name with a Latin letter (`TP4에서`, `70B는`): a particle, which
#: DeepL's English puts apart from the name (`in TP4`), never glued to it (`TP4eseo`).
_GLUED_HANGUL = re.compile(r"[A-Za-z0-9][\w.\-]*(?=[\uac00-\ud7a3])", re.ASCII)


def _kept_in_korean(token: str) -> bool:
    return (
        any(c.isdigit() for c in token)
        or (len(token) > 1 and token.isupper())
        or any(c.isupper() for c in token[1:])
    )


def pseudo_translate(text: str, target_lang: str) -> str:
    """Deterministic pseudo-translation of plain text (no glossary, no markup). Like DeepL,
    it keeps names with digits, acronyms and camel-case names as they are, and writes a
    Korean particle apart from the name it follows."""
    base = _base_lang(target_lang)
    if base == "KO":
        return _LATIN_TOKEN.sub(
            lambda m: (
                m[0]
                if _kept_in_korean(m[0])
                else _LATIN_WORD.sub(lambda w: hangulize_latin(w[0]), m[0])
            ),
            text,
        )
    if base == "EN":
        text = _GLUED_HANGUL.sub(
            lambda m: m[0] + " " if any(c.isalpha() for c in m[0]) else m[0], text
        )
        return _HANGUL_WORD.sub(lambda m: romanize_hangul(m.group(0)), text)
    return text


class _GlossaryMatcher:
    """Replaces glossary source terms by their target terms, verbatim."""

    def __init__(self, entries: Mapping[str, str]) -> None:
        self.entries = dict(entries)
        parts: list[str] = []
        for term in sorted(self.entries, key=len, reverse=True):
            pattern = re.escape(term)
            if term[0].isascii() and term[0].isalnum():
                pattern = r"(?<![A-Za-z0-9])" + pattern
            if term[-1].isascii() and term[-1].isalnum():
                pattern += r"(?![A-Za-z0-9])"
            parts.append(pattern)
        self.pattern = re.compile("|".join(parts)) if parts else None

    def translate(self, text: str, target_lang: str) -> str:
        if self.pattern is None:
            return pseudo_translate(text, target_lang)
        out: list[str] = []
        pos = 0
        for match in self.pattern.finditer(text):
            out.append(pseudo_translate(text[pos : match.start()], target_lang))
            out.append(self.entries[match.group(0)])
            pos = match.end()
        out.append(pseudo_translate(text[pos:], target_lang))
        return "".join(out)


_MARKUP = re.compile(
    r"<!--.*?-->"
    r"|<!\[CDATA\[.*?\]\]>"
    r"|<\?.*?\?>"
    r"|<![^>]*>"
    r"|<(?P<close>/)?(?P<name>[A-Za-z_][\w:.\-]*)"
    r"(?P<attrs>(?:\s+[^\s=/>]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'>]+))?)*)"
    r"\s*(?P<selfclose>/)?>",
    re.DOTALL,
)
_TRANSLATE_NO = re.compile(r"""(?:^|\s)translate\s*=\s*(?:"no"|'no'|no)(?=\s|$)""", re.I)
_HTML_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input"}
    | {"link", "meta", "param", "source", "track", "wbr"}
)
_HTML_RAW_TEXT = frozenset({"script", "style"})


def _translate_text_node(text: str, target_lang: str, glossary: _GlossaryMatcher) -> str:
    parts = _ENTITY.split(text)
    # split() with one capture group: odd indexes are entity references, kept verbatim.
    return "".join(
        part if i % 2 else glossary.translate(part, target_lang) for i, part in enumerate(parts)
    )


def translate_text_value(
    text: str,
    target_lang: str,
    *,
    tag_handling: str | None = None,
    ignore_tags: Iterable[str] = (),
    glossary_entries: Mapping[str, str] | None = None,
) -> str:
    """Translate one ``text`` value exactly as the fake server does."""
    glossary = _GlossaryMatcher(glossary_entries or {})
    if tag_handling not in _TAG_HANDLING_VALUES:
        return glossary.translate(text, target_lang)
    html = tag_handling == "html"
    ignored = {t.lower() if html else t for t in ignore_tags}
    stack: list[tuple[str, bool]] = []  # (element name, content protected?)
    out: list[str] = []
    pos = 0
    for match in _MARKUP.finditer(text):
        chunk = text[pos : match.start()]
        if stack and stack[-1][1]:
            out.append(chunk)
        else:
            out.append(_translate_text_node(chunk, target_lang, glossary))
        out.append(match.group(0))
        pos = match.end()
        name = match.group("name")
        if name is None:
            continue
        key = name.lower() if html else name
        if match.group("close"):
            for i in range(len(stack) - 1, -1, -1):
                if stack[i][0] == key:
                    del stack[i:]
                    break
        elif match.group("selfclose") or (html and key in _HTML_VOID):
            continue
        else:
            protected = (
                bool(stack and stack[-1][1])
                or key in ignored
                or (
                    html
                    and (
                        key in _HTML_RAW_TEXT
                        or _TRANSLATE_NO.search(match.group("attrs") or "") is not None
                    )
                )
            )
            stack.append((key, protected))
    tail = text[pos:]
    out.append(
        tail if stack and stack[-1][1] else _translate_text_node(tail, target_lang, glossary)
    )
    return "".join(out)


def billed_characters(text: str, tag_handling: str | None) -> int:
    """Characters DeepL bills for one text: all of it, or without the markup with tag handling."""
    if tag_handling not in _TAG_HANDLING_VALUES:
        return len(text)
    return len(_ENTITY.sub("e", _MARKUP.sub("", text)))


# --------------------------------------------------------------------------------------
# Data kept by the fake
# --------------------------------------------------------------------------------------


@dataclass
class RecordedRequest:
    """One request as received by the fake (the Authorization header is not kept)."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    content_type: str
    body_size: int
    params: dict[str, Any]
    texts: list[str]
    authorized: bool
    status: int | None = None
    fault: str | None = None


@dataclass
class _Glossary:
    glossary_id: str
    name: str
    creation_time: str
    # (source_lang, target_lang) lower-case base codes -> ordered entries
    dictionaries: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)

    def v2_json(self) -> dict[str, Any]:
        (source, target), entries = next(iter(self.dictionaries.items()))
        return {
            "glossary_id": self.glossary_id,
            "name": self.name,
            "ready": True,
            "source_lang": source,
            "target_lang": target,
            "creation_time": self.creation_time,
            "entry_count": len(entries),
        }

    def v3_json(self) -> dict[str, Any]:
        return {
            "glossary_id": self.glossary_id,
            "name": self.name,
            "dictionaries": [
                {"source_lang": s, "target_lang": t, "entry_count": len(e)}
                for (s, t), e in self.dictionaries.items()
            ],
            "creation_time": self.creation_time,
        }


@dataclass
class _Fault:
    kind: str  # "status" | "hang" | "malformed"
    times: int
    path: str | None
    status: int = 0
    retry_after: int | None = None
    body: bytes | None = None
    seconds: float = 0.0
    respond: bool = False
    malformed: str = "invalid_json"

    def matches(self, path: str) -> bool:
        return self.path is None or path.startswith(self.path)


@dataclass
class _Response:
    status: int
    body: bytes = b""
    content_type: str = "application/json; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    drop: bool = False  # close the connection without any response


class _HttpError(Exception):
    def __init__(self, status: int, message: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _json_response(status: int, obj: object, headers: dict[str, str] | None = None) -> _Response:
    body = json.dumps(obj, ensure_ascii=False).encode("utf-8")
    return _Response(status, body, headers=headers or {})


def _error_response(status: int, message: str | None) -> _Response:
    if message is None:
        return _Response(status)
    return _json_response(status, {"message": message})


def _now_iso() -> str:
    now = dt.datetime.now(dt.UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


_MALFORMED_KINDS = ("invalid_json", "missing_fields", "wrong_count", "html")


# --------------------------------------------------------------------------------------
# Parameter helpers
# --------------------------------------------------------------------------------------


def _collapse(values: dict[str, list[str]], multi: Iterable[str] = ("text",)) -> dict[str, Any]:
    multi = set(multi)
    return {k: (v if k in multi or len(v) != 1 else v[0]) for k, v in values.items()}


def _scalar(params: Mapping[str, Any], name: str) -> Any:
    value = params.get(name)
    if isinstance(value, list):
        return value[0] if value else None
    return value


def _str_param(params: Mapping[str, Any], name: str) -> str | None:
    value = _scalar(params, name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise _HttpError(400, f"Value for '{name}' not supported.")
    return value


def _tag_list(params: Mapping[str, Any], name: str) -> list[str]:
    value = params.get(name)
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    tags: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise _HttpError(400, f"Value for '{name}' not supported.")
        tags.extend(t.strip() for t in item.split(",") if t.strip())
    return tags


def _check_allowed(params: Mapping[str, Any], name: str, allowed: tuple[object, ...]) -> Any:
    value = _scalar(params, name)
    if value is not None and value not in allowed:
        raise _HttpError(400, f"Value for '{name}' not supported.")
    return value


def _truthy(value: object) -> bool:
    return value in (True, 1, "1", "true")


def _parse_entries(entries: object, entries_format: object) -> dict[str, str]:
    if entries_format not in ("tsv", "csv"):
        raise _HttpError(400, "Value for 'entries_format' not supported.")
    if not isinstance(entries, str) or not entries.strip():
        raise _HttpError(400, "Missing or invalid argument: entries")
    rows: list[list[str]]
    if entries_format == "tsv":
        rows = []
        for index, line in enumerate(entries.splitlines(), start=1):
            if not line.strip():
                continue
            if "\t" not in line:
                raise _HttpError(400, f"Invalid glossary entries provided: entry {index}")
            rows.append(line.split("\t", 1))
    else:
        rows = [row for row in csv.reader(io.StringIO(entries)) if any(c.strip() for c in row)]
        if any(len(row) not in (2, 4) for row in rows):
            raise _HttpError(400, "Invalid glossary entries provided")
    result: dict[str, str] = {}
    for row in rows:
        source, target = row[0].strip(), row[1].strip()
        if not source or not target:
            raise _HttpError(400, "Invalid glossary entries provided")
        if source in result:
            raise _HttpError(400, f"Invalid glossary entries provided: duplicate {source!r}")
        result[source] = target
    return result


def _glossary_lang(params: Mapping[str, Any], name: str) -> str:
    value = _str_param(params, name)
    if value is None:
        raise _HttpError(400, f"Missing or invalid argument: {name}")
    code = value.lower()
    if code not in GLOSSARY_LANGUAGES:
        raise _HttpError(400, "Unsupported glossary source and target language pair")
    return code


def _entries_tsv(entries: Mapping[str, str]) -> str:
    return "\n".join(f"{s}\t{t}" for s, t in entries.items())


# --------------------------------------------------------------------------------------
# HTTP plumbing
# --------------------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 128  # concurrent clients must not hit the default backlog of 5

    def __init__(self, fake: FakeDeepL) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", 0), _Handler)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.0"  # one request per connection: simple, clean shutdown
    server_version = "FakeDeepL/1.0"
    sys_version = ""
    timeout = 10  # socket timeout for slow/broken clients

    def handle(self) -> None:
        fake = self.server.fake
        fake._handler_started()
        try:
            super().handle()
        except (ConnectionError, TimeoutError):
            pass
        finally:
            fake._handler_finished()

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default stderr access log."""

    def _dispatch(self) -> None:
        fake = self.server.fake
        try:
            response = fake._handle(self)
        except Exception:
            fake._record_server_error(traceback.format_exc())
            response = _error_response(500, "Internal error in FakeDeepL")
        if response.drop:
            self.close_connection = True
            return
        try:
            self.send_response(response.status, _REASON_PHRASES.get(response.status))
            if response.body or response.status not in (204, 304):
                self.send_header("Content-Type", response.content_type)
            self.send_header("Content-Length", str(len(response.body)))
            for name, value in response.headers.items():
                self.send_header(name, value)
            self.end_headers()
            if response.body and self.command != "HEAD":
                self.wfile.write(response.body)
        except (ConnectionError, TimeoutError):
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _dispatch


# --------------------------------------------------------------------------------------
# The fake
# --------------------------------------------------------------------------------------


class FakeDeepL:
    """DeepL API fake on ``127.0.0.1:<ephemeral port>``, served from a background thread.

    Use as a context manager (or ``start()``/``stop()``) and pass :attr:`url` as
    ``server_url`` to ``deepl.Translator`` / ``deepl.DeepLClient``.
    """

    _ROUTES: ClassVar[list[tuple[re.Pattern[str], dict[str, str]]]] = [
        (re.compile(r"/v2/translate"), {"POST": "_translate", "GET": "_translate"}),
        (re.compile(r"/v2/usage"), {"GET": "_usage", "POST": "_usage"}),
        (re.compile(r"/v2/languages"), {"GET": "_languages", "POST": "_languages"}),
        (re.compile(r"/v2/glossary-language-pairs"), {"GET": "_glossary_pairs"}),
        (re.compile(r"/v2/glossaries"), {"GET": "_v2_list", "POST": "_v2_create"}),
        (re.compile(r"/v2/glossaries/(?P<gid>[^/]+)"), {"GET": "_v2_get", "DELETE": "_delete"}),
        (re.compile(r"/v2/glossaries/(?P<gid>[^/]+)/entries"), {"GET": "_v2_entries"}),
        (re.compile(r"/v3/glossaries"), {"GET": "_v3_list", "POST": "_v3_create"}),
        (
            re.compile(r"/v3/glossaries/(?P<gid>[^/]+)"),
            {"GET": "_v3_get", "PATCH": "_v3_patch", "DELETE": "_delete"},
        ),
        (re.compile(r"/v3/glossaries/(?P<gid>[^/]+)/entries"), {"GET": "_v3_entries"}),
        (
            re.compile(r"/v3/glossaries/(?P<gid>[^/]+)/dictionaries"),
            {"PUT": "_v3_put_dictionary", "DELETE": "_v3_delete_dictionary"},
        ),
    ]

    def __init__(
        self,
        *,
        auth_keys: Iterable[str] = DEFAULT_AUTH_KEYS,
        character_limit: int | None = DEFAULT_CHARACTER_LIMIT,
        character_count: int = 0,
        allow_deprecated_en_target: bool = False,
    ) -> None:
        self.auth_keys = frozenset(auth_keys)
        self.allow_deprecated_en_target = allow_deprecated_en_target
        self._lock = threading.RLock()
        self._character_limit = character_limit
        self._character_count = character_count
        self._billed_chars = 0
        self._requests: list[RecordedRequest] = []
        self._glossaries: dict[str, _Glossary] = {}
        self._faults: list[_Fault] = []
        self._fail_after: tuple[int, int] | None = None  # (requests still allowed, status)
        self._markup_fault: tuple[str, str | None] | None = None  # (kind, source substring)
        self._markup_times: int | None = None  # requests left to fault (None: all)
        self._fail_texts: list[tuple[str, int]] = []  # (source substring, status)
        #: Error messages carry the request's Authorization header, as a careless proxy or
        #: server might: bipub must never print it (issue 16).
        self.echo_authorization = False
        self._server_errors: list[str] = []
        self._stop_event = threading.Event()
        self._idle = threading.Condition(self._lock)
        self._active_handlers = 0
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> FakeDeepL:
        if self._server is not None:
            raise RuntimeError("FakeDeepL already started")
        self._stop_event.clear()
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"FakeDeepL:{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving; wakes up hanging requests and waits for handlers to finish."""
        server, thread = self._server, self._thread
        if server is None:
            return
        self._stop_event.set()
        server.shutdown()
        server.server_close()
        if thread is not None:
            thread.join(timeout)
        with self._idle:
            self._idle.wait_for(lambda: self._active_handlers == 0, timeout)
        self._server = None
        self._thread = None

    def __enter__(self) -> FakeDeepL:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("FakeDeepL is not running")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """Base URL to pass as ``server_url`` (no trailing slash)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self._server is not None

    # ------------------------------------------------------------------ inspection

    @property
    def requests(self) -> list[RecordedRequest]:
        """Snapshot of every request received, oldest first."""
        with self._lock:
            return list(self._requests)

    @property
    def translate_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == "/v2/translate"]

    @property
    def billed_chars(self) -> int:
        """Characters billed by successful translate requests served by this instance."""
        with self._lock:
            return self._billed_chars

    @property
    def character_count(self) -> int:
        """``character_count`` as reported by ``/v2/usage``."""
        with self._lock:
            return self._character_count

    @property
    def character_limit(self) -> int | None:
        with self._lock:
            return self._character_limit

    @character_limit.setter
    def character_limit(self, value: int | None) -> None:
        with self._lock:
            self._character_limit = value

    @property
    def server_errors(self) -> list[str]:
        """Tracebacks of unexpected exceptions inside the fake (should stay empty)."""
        with self._lock:
            return list(self._server_errors)

    def glossary_entries(self, glossary_id: str) -> dict[tuple[str, str], dict[str, str]]:
        with self._lock:
            glossary = self._glossaries[glossary_id]
            return {k: dict(v) for k, v in glossary.dictionaries.items()}

    def clear_requests(self) -> None:
        with self._lock:
            self._requests.clear()

    # ------------------------------------------------------------------ fault injection

    def fail_next(
        self,
        status: int,
        times: int = 1,
        *,
        path: str | None = None,
        retry_after: int | None = 1,
        body: bytes | str | Mapping[str, Any] | None = None,
    ) -> None:
        """Answer the next ``times`` requests (optionally only those whose path starts with
        ``path``) with ``status`` instead of serving them.  429 responses carry a
        ``Retry-After`` header (``retry_after`` seconds; ``None`` omits it).  ``body``
        overrides the default DeepL-style ``{"message": ...}`` JSON body."""
        if isinstance(body, Mapping):
            raw: bytes | None = json.dumps(body).encode("utf-8")
        elif isinstance(body, str):
            raw = body.encode("utf-8")
        else:
            raw = body
        with self._lock:
            self._faults.append(
                _Fault("status", times, path, status=status, retry_after=retry_after, body=raw)
            )

    def hang_next(
        self, seconds: float, times: int = 1, *, path: str | None = None, respond: bool = False
    ) -> None:
        """Make the next ``times`` requests hang for ``seconds`` (interrupted by
        :meth:`stop`).  Then the connection is closed without a response, or -- with
        ``respond=True`` -- the request is served normally (a slow response)."""
        with self._lock:
            self._faults.append(_Fault("hang", times, path, seconds=seconds, respond=respond))

    def malformed_next(
        self, kind: str = "invalid_json", times: int = 1, *, path: str | None = None
    ) -> None:
        """Answer the next ``times`` requests with HTTP 200 and a broken body, without
        serving (or billing) them.  ``kind``:

        * ``"invalid_json"`` -- truncated JSON;
        * ``"missing_fields"`` -- valid JSON without the required fields
          (``{"translations": [{}...]}`` for translate, ``{}`` elsewhere);
        * ``"wrong_count"`` -- translate answers one translation fewer than texts sent;
        * ``"html"`` -- a ``text/html`` error page, as a misconfigured proxy would send.
        """
        if kind not in _MALFORMED_KINDS:
            raise ValueError(f"kind must be one of {_MALFORMED_KINDS}")
        with self._lock:
            self._faults.append(_Fault("malformed", times, path, malformed=kind))

    def fail_after(self, n_requests: int, status: int = 456) -> None:
        """Serve the next ``n_requests`` translate requests, then answer every further
        translate request with ``status`` (e.g. 456: the quota runs out midway)."""
        with self._lock:
            self._fail_after = (n_requests, status)

    def markup_fault(
        self, kind: str | None, *, match: str | None = None, times: int | None = None
    ) -> None:
        """Answer every translate request (served and billed normally) with a markup fault:
        one of ``faults.FAULTS`` applied to each answer text (only to texts whose source holds
        ``match``, when given), or ``"swap"``: the first and the last answers of a request of
        two or more texts are exchanged. ``times``: only that many requests (that hold a
        matching text) get the fault. ``None`` ends the fault."""
        if kind is not None and kind != "swap" and kind not in FAULTS:
            raise ValueError(f"kind must be 'swap' or one of {sorted(FAULTS)}")
        with self._lock:
            self._markup_fault = None if kind is None else (kind, match)
            self._markup_times = times

    def fail_texts(self, match: str, status: int = 400) -> None:
        """Refuse (with ``status``, not billed) every translate request holding a text that
        contains ``match``: one segment DeepL will not translate."""
        with self._lock:
            self._fail_texts.append((match, status))

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()
            self._fail_after = None
            self._markup_fault = None
            self._fail_texts.clear()

    # ------------------------------------------------------------------ internals

    def _handler_started(self) -> None:
        with self._lock:
            self._active_handlers += 1

    def _handler_finished(self) -> None:
        with self._idle:
            self._active_handlers -= 1
            self._idle.notify_all()

    def _record_server_error(self, text: str) -> None:
        with self._lock:
            self._server_errors.append(text)

    def _take_fault(self, path: str) -> _Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.matches(path):
                    fault.times -= 1
                    if fault.times <= 0:
                        self._faults.remove(fault)
                    return fault
        return None

    def _handle(self, handler: _Handler) -> _Response:
        split = urlsplit(handler.path)
        path = split.path.rstrip("/") or "/"
        query = parse_qs(split.query, keep_blank_values=True)
        headers = {k: v for k, v in handler.headers.items() if k.lower() != "authorization"}
        content_type = handler.headers.get("Content-Type", "")

        # -- body -------------------------------------------------------------------
        length_header = handler.headers.get("Content-Length")
        try:
            length = int(length_header) if length_header else 0
        except ValueError:
            length = -1
        body = b""
        if length < 0:
            handler.close_connection = True
            return _error_response(400, "Invalid Content-Length.")
        if length > _MAX_DRAIN_BYTES:
            handler.close_connection = True
        elif length:
            body = handler.rfile.read(length)
        elif "chunked" in handler.headers.get("Transfer-Encoding", "").lower():
            try:
                body = self._read_chunked(handler)
            except ValueError:
                handler.close_connection = True
                return _error_response(400, "Invalid chunked request body.")
            except _HttpError:
                handler.close_connection = True
                return _error_response(413, "Request Entity Too Large.")

        params: dict[str, Any] = _collapse(query)
        parse_error: _HttpError | None = None
        try:
            params.update(self._parse_body(body, content_type))
        except _HttpError as exc:
            parse_error = exc
        texts = params.get("text", []) if path == "/v2/translate" else []
        if not isinstance(texts, list):
            texts = [texts]

        auth = handler.headers.get("Authorization", "")
        prefix = "DeepL-Auth-Key "
        authorized = auth.startswith(prefix) and auth[len(prefix) :].strip() in self.auth_keys

        record = RecordedRequest(
            method=handler.command,
            path=path,
            query=query,
            headers=headers,
            content_type=content_type,
            body_size=max(length, len(body)),
            params=params,
            texts=[t for t in texts if isinstance(t, str)],
            authorized=authorized,
        )
        with self._lock:
            self._requests.append(record)

        response = self._respond(handler, record, path, params, parse_error)
        record.status = None if response.drop else response.status
        return response

    @staticmethod
    def _read_chunked(handler: _Handler) -> bytes:
        chunks: list[bytes] = []
        total = 0
        while True:
            size = int(handler.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
            if size == 0:
                handler.rfile.readline()
                return b"".join(chunks)
            total += size
            if total > _MAX_DRAIN_BYTES:
                raise _HttpError(413)
            chunks.append(handler.rfile.read(size))
            handler.rfile.readline()

    @staticmethod
    def _parse_body(body: bytes, content_type: str) -> dict[str, Any]:
        if not body:
            return {}
        ctype = content_type.split(";", 1)[0].strip().lower()
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise _HttpError(400, "Request body is not valid UTF-8.") from None
        if ctype == "application/json":
            try:
                obj = json.loads(text)
            except json.JSONDecodeError:
                raise _HttpError(400, "Invalid JSON in request body.") from None
            if not isinstance(obj, dict):
                raise _HttpError(400, "Request body must be a JSON object.")
            return obj
        if ctype in ("application/x-www-form-urlencoded", ""):
            return _collapse(parse_qs(text, keep_blank_values=True))
        raise _HttpError(415, f"Unsupported Content-Type: {ctype}")

    def _respond(
        self,
        handler: _Handler,
        record: RecordedRequest,
        path: str,
        params: dict[str, Any],
        parse_error: _HttpError | None,
    ) -> _Response:
        fault = self._take_fault(path)
        while fault is not None and fault.kind == "hang":
            record.fault = f"hang({fault.seconds})"
            stopped = self._stop_event.wait(fault.seconds)
            if stopped or not fault.respond:
                return _Response(0, drop=True)
            fault = self._take_fault(path)
        if fault is not None and fault.kind == "status":
            record.fault = f"status({fault.status})"
            headers = {}
            if fault.status == 429 and fault.retry_after is not None:
                headers["Retry-After"] = str(fault.retry_after)
            if fault.body is not None:
                return _Response(fault.status, fault.body, headers=headers)
            message = _FAULT_MESSAGES.get(fault.status, _phrase(fault.status))
            if self.echo_authorization:
                message += f" (Authorization: {handler.headers.get('Authorization', '')})"
            return _json_response(fault.status, {"message": message}, headers)
        if fault is not None and fault.kind == "malformed":
            record.fault = f"malformed({fault.malformed})"
            return self._malformed(fault.malformed, path, params)

        if path == "/v2/translate" and record.body_size > MAX_REQUEST_BYTES:
            handler.close_connection = True
            return _error_response(413, "Request Entity Too Large.")
        if not record.authorized:
            if self.echo_authorization:
                auth = handler.headers.get("Authorization", "")
                return _error_response(403, f"{_MSG_FORBIDDEN} Got: {auth}")
            return _error_response(403, _MSG_FORBIDDEN)
        if parse_error is not None:
            return _error_response(parse_error.status, parse_error.message)

        for pattern, methods in self._ROUTES:
            match = pattern.fullmatch(path)
            if match is None:
                continue
            name = methods.get(handler.command)
            if name is None:
                return _error_response(405, "Method not allowed.")
            try:
                result: _Response = getattr(self, name)(params, handler, **match.groupdict())
            except _HttpError as exc:
                return _error_response(exc.status, exc.message)
            return result
        return _error_response(404, "Not found.")

    def _malformed(self, kind: str, path: str, params: Mapping[str, Any]) -> _Response:
        texts = params.get("text", []) if path == "/v2/translate" else []
        texts = texts if isinstance(texts, list) else [texts]
        if kind == "invalid_json":
            return _Response(200, b'{"translations": [{"text": "unterminated')
        if kind == "html":
            page = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
            return _Response(200, page, content_type="text/html")
        if path != "/v2/translate":
            return _json_response(200, {})
        if kind == "missing_fields":
            return _json_response(200, {"translations": [{} for _ in texts]})
        # wrong_count: well-formed translations, one fewer than requested (not billed)
        target = str(_scalar(params, "target_lang") or "EN-US")
        translations = [
            {
                "detected_source_language": _detect(str(t)),
                "text": pseudo_translate(str(t), target),
                "billed_characters": len(str(t)),
            }
            for t in texts[:-1]
        ]
        return _json_response(200, {"translations": translations})

    # ------------------------------------------------------------------ endpoints

    def _translate(self, params: dict[str, Any], handler: _Handler) -> _Response:
        with self._lock:
            if self._fail_after is not None:
                remaining, status = self._fail_after
                if remaining <= 0:
                    message = _FAULT_MESSAGES.get(status, _phrase(status))
                    headers = {"Retry-After": "1"} if status == 429 else None
                    return _json_response(status, {"message": message}, headers)
                self._fail_after = (remaining - 1, status)

        target_raw = _str_param(params, "target_lang")
        if not target_raw:
            raise _HttpError(400, "Parameter 'target_lang' not specified.")
        target = target_raw.upper()
        if target in _DEPRECATED_TARGETS and self.allow_deprecated_en_target:
            target = _DEPRECATED_TARGETS[target]
        if target not in {code for code, _, _ in TARGET_LANGUAGES}:
            raise _HttpError(400, "Value for 'target_lang' not supported.")
        source_raw = _str_param(params, "source_lang")
        source = source_raw.upper() if source_raw else None
        if source is not None and source not in {code for code, _ in SOURCE_LANGUAGES}:
            raise _HttpError(400, "Value for 'source_lang' not supported.")

        texts = params.get("text")
        if texts is None or texts == []:
            raise _HttpError(400, "Parameter 'text' not specified.")
        if not isinstance(texts, list):
            texts = [texts]
        if not all(isinstance(t, str) for t in texts):
            raise _HttpError(400, "Value for 'text' not supported.")
        if len(texts) > MAX_TEXTS_PER_REQUEST:
            raise _HttpError(
                400, f"Too many texts: at most {MAX_TEXTS_PER_REQUEST} texts per request."
            )

        with self._lock:
            refused = [st for m, st in self._fail_texts if any(m in str(t) for t in texts)]
        if refused:
            raise _HttpError(refused[0], "Value for 'text' not supported.")
        glossary_entries = self._resolve_glossaries(params, source, target)

        _check_allowed(params, "split_sentences", _SPLIT_SENTENCES_VALUES)
        _check_allowed(params, "preserve_formatting", _BOOL_VALUES)
        _check_allowed(params, "outline_detection", _BOOL_VALUES)
        _check_allowed(params, "show_billed_characters", _BOOL_VALUES)
        _check_allowed(params, "tag_handling_version", _TAG_HANDLING_VERSIONS)
        tag_handling = _check_allowed(params, "tag_handling", _TAG_HANDLING_VALUES)
        model_type = _check_allowed(params, "model_type", _MODEL_TYPES)
        formality = _check_allowed(params, "formality", _FORMALITY_VALUES)
        supports_formality = {code: f for code, _, f in TARGET_LANGUAGES}[target]
        if formality in _FORMALITY_NEEDS_SUPPORT and not supports_formality:
            raise _HttpError(400, "'formality' is not supported for given 'target_lang'.")
        context = _scalar(params, "context")
        if context is not None and not isinstance(context, str):
            raise _HttpError(400, "Value for 'context' not supported.")
        ignore_tags = _tag_list(params, "ignore_tags")
        _tag_list(params, "splitting_tags")
        _tag_list(params, "non_splitting_tags")

        # "If tag_handling is set to xml or html, the characters of the tags (including all
        # their attributes and values) are not counted towards billing" (DeepL support:
        # Usage count and billing in DeepL API); an entity reference is one character
        billed = [billed_characters(t, tag_handling) for t in texts]
        with self._lock:
            limit = self._character_limit
            if limit is not None and self._character_count + sum(billed) > limit:
                return _error_response(456, _MSG_QUOTA)
            self._character_count += sum(billed)
            self._billed_chars += sum(billed)

        show_billed = _truthy(_scalar(params, "show_billed_characters"))
        translations = []
        for text, chars in zip(texts, billed, strict=True):
            item: dict[str, Any] = {
                "detected_source_language": source or _detect(text),
                "text": translate_text_value(
                    text,
                    target,
                    tag_handling=tag_handling,
                    ignore_tags=ignore_tags,
                    glossary_entries=glossary_entries,
                ),
            }
            if show_billed:
                item["billed_characters"] = chars
            if model_type is not None:
                item["model_type_used"] = (
                    "quality_optimized" if model_type.startswith("prefer_") else model_type
                )
            translations.append(item)
        self._apply_markup_fault(texts, translations)
        return _json_response(200, {"translations": translations})

    def _apply_markup_fault(self, texts: list[Any], translations: list[dict[str, Any]]) -> None:
        with self._lock:
            fault = self._markup_fault
            if fault is None:
                return
            kind, match = fault
            if match is not None and not any(match in str(t) for t in texts):
                return
            if self._markup_times is not None:
                if self._markup_times <= 0:
                    return
                self._markup_times -= 1
        if kind == "swap":
            for item, text in zip(
                translations, swap([t["text"] for t in translations]), strict=True
            ):
                item["text"] = text
            return
        for text, item in zip(texts, translations, strict=True):
            if match is None or match in str(text):
                item["text"] = FAULTS[kind](item["text"])

    def _resolve_glossaries(
        self, params: Mapping[str, Any], source: str | None, target: str
    ) -> dict[str, str]:
        ids: list[Any] = []
        single = _scalar(params, "glossary_id")
        if single is not None:
            ids.append(single)
        many = params.get("glossary_ids")
        if many is not None:
            if single is not None:
                raise _HttpError(400, "Use either 'glossary_id' or 'glossary_ids'.")
            items = many if isinstance(many, list) else [many]
            for item in items:
                ids.extend(str(item).split(",") if isinstance(item, str) else [item])
            if len(ids) > 5:
                raise _HttpError(400, "At most 5 glossaries may be used.")
        if not ids:
            return {}
        if source is None:
            raise _HttpError(
                400, "Use of a glossary requires the source_lang parameter to be specified"
            )
        pair = (source.lower(), _base_lang(target).lower())
        merged: dict[str, str] = {}
        with self._lock:
            for gid in ids:
                glossary = self._glossaries.get(str(gid).strip())
                if glossary is None:
                    raise _HttpError(404, "Glossary not found.")
                entries = glossary.dictionaries.get(pair)
                if entries is None:
                    raise _HttpError(
                        400, "Glossary has no dictionary for the requested language pair."
                    )
                for term, translation in entries.items():
                    merged.setdefault(term, translation)  # earlier glossaries win
        return merged

    def _usage(self, params: dict[str, Any], handler: _Handler) -> _Response:
        with self._lock:
            limit = self._character_limit
            body = {
                "character_count": self._character_count,
                "character_limit": limit if limit is not None else 1_000_000_000_000,
            }
        return _json_response(200, body)

    def _languages(self, params: dict[str, Any], handler: _Handler) -> _Response:
        kind = _scalar(params, "type") or "source"
        if kind == "source":
            return _json_response(
                200, [{"language": code, "name": name} for code, name in SOURCE_LANGUAGES]
            )
        if kind == "target":
            return _json_response(
                200,
                [
                    {"language": code, "name": name, "supports_formality": formality}
                    for code, name, formality in TARGET_LANGUAGES
                ],
            )
        raise _HttpError(
            400, "Parameter 'type' is invalid. 'source' and 'target' are valid values."
        )

    def _glossary_pairs(self, params: dict[str, Any], handler: _Handler) -> _Response:
        pairs = [
            {"source_lang": s, "target_lang": t}
            for s in GLOSSARY_LANGUAGES
            for t in GLOSSARY_LANGUAGES
            if s != t
        ]
        return _json_response(200, {"supported_languages": pairs})

    # -- glossaries (shared storage for v2 and v3, as on the real API) -------------

    def _get_glossary(self, gid: str) -> _Glossary:
        glossary = self._glossaries.get(gid)
        if glossary is None:
            raise _HttpError(404, "Glossary not found.")
        return glossary

    @staticmethod
    def _name(params: Mapping[str, Any]) -> str:
        name = _str_param(params, "name")
        if not name:
            raise _HttpError(400, "Missing or invalid argument: name")
        return name

    def _store(self, name: str, dictionaries: dict[tuple[str, str], dict[str, str]]) -> _Glossary:
        glossary = _Glossary(str(uuid.uuid4()), name, _now_iso(), dictionaries)
        with self._lock:
            self._glossaries[glossary.glossary_id] = glossary
        return glossary

    def _v2_create(self, params: dict[str, Any], handler: _Handler) -> _Response:
        name = self._name(params)
        source = _glossary_lang(params, "source_lang")
        target = _glossary_lang(params, "target_lang")
        if source == target:
            raise _HttpError(400, "Unsupported glossary source and target language pair")
        entries = _parse_entries(params.get("entries"), _scalar(params, "entries_format"))
        glossary = self._store(name, {(source, target): entries})
        return _json_response(201, glossary.v2_json())

    def _v2_list(self, params: dict[str, Any], handler: _Handler) -> _Response:
        with self._lock:
            items = [g.v2_json() for g in self._glossaries.values() if len(g.dictionaries) == 1]
        return _json_response(200, {"glossaries": items})

    def _v2_get(self, params: dict[str, Any], handler: _Handler, gid: str) -> _Response:
        with self._lock:
            glossary = self._get_glossary(gid)
            if len(glossary.dictionaries) != 1:
                raise _HttpError(400, "Multilingual glossaries require the v3 endpoints.")
            return _json_response(200, glossary.v2_json())

    def _v2_entries(self, params: dict[str, Any], handler: _Handler, gid: str) -> _Response:
        accept = handler.headers.get("Accept", "*/*")
        if not any(
            a.split(";")[0].strip() in ("*/*", "text/*", "text/tab-separated-values")
            for a in accept.split(",")
        ):
            raise _HttpError(415, "No supported media type specified in Accept header")
        with self._lock:
            glossary = self._get_glossary(gid)
            if len(glossary.dictionaries) != 1:
                raise _HttpError(400, "Multilingual glossaries require the v3 endpoints.")
            entries = next(iter(glossary.dictionaries.values()))
            body = _entries_tsv(entries).encode("utf-8")
        return _Response(200, body, content_type="text/tab-separated-values; charset=utf-8")

    def _delete(self, params: dict[str, Any], handler: _Handler, gid: str) -> _Response:
        with self._lock:
            self._get_glossary(gid)
            del self._glossaries[gid]
        return _Response(204)

    @staticmethod
    def _dictionary(item: object) -> tuple[tuple[str, str], dict[str, str]]:
        if not isinstance(item, dict):
            raise _HttpError(400, "Missing or invalid argument: dictionaries")
        source = _glossary_lang(item, "source_lang")
        target = _glossary_lang(item, "target_lang")
        if source == target:
            raise _HttpError(400, "Unsupported glossary source and target language pair")
        entries = _parse_entries(item.get("entries"), item.get("entries_format"))
        return (source, target), entries

    def _v3_create(self, params: dict[str, Any], handler: _Handler) -> _Response:
        name = self._name(params)
        items = params.get("dictionaries")
        if not isinstance(items, list) or not items:
            raise _HttpError(400, "Glossary dictionaries must be provided")
        dictionaries: dict[tuple[str, str], dict[str, str]] = {}
        for item in items:
            pair, entries = self._dictionary(item)
            if pair in dictionaries:
                raise _HttpError(400, "Duplicate dictionary language pair")
            dictionaries[pair] = entries
        glossary = self._store(name, dictionaries)
        return _json_response(201, glossary.v3_json())

    def _v3_list(self, params: dict[str, Any], handler: _Handler) -> _Response:
        with self._lock:
            items = [g.v3_json() for g in self._glossaries.values()]
        return _json_response(200, {"glossaries": items})

    def _v3_get(self, params: dict[str, Any], handler: _Handler, gid: str) -> _Response:
        with self._lock:
            return _json_response(200, self._get_glossary(gid).v3_json())

    def _v3_patch(self, params: dict[str, Any], handler: _Handler, gid: str) -> _Response:
        name = _str_param(params, "name")
        items = params.get("dictionaries", [])
        if not isinstance(items, list):
            raise _HttpError(400, "Missing or invalid argument: dictionaries")
        updates = [self._dictionary(item) for item in items]
        with self._lock:
            glossary = self._get_glossary(gid)
            if name is not None:
                if not name:
                    raise _HttpError(400, "Missing or invalid argument: name")
                glossary.name = name
            for pair, entries in updates:
                glossary.dictionaries.setdefault(pair, {}).update(entries)
            return _json_response(200, glossary.v3_json())

    def _v3_put_dictionary(self, params: dict[str, Any], handler: _Handler, gid: str) -> _Response:
        pair, entries = self._dictionary(params)
        with self._lock:
            glossary = self._get_glossary(gid)
            glossary.dictionaries[pair] = entries
        body = {"source_lang": pair[0], "target_lang": pair[1], "entry_count": len(entries)}
        return _json_response(200, body)

    def _pair_from_query(self, params: Mapping[str, Any]) -> tuple[str, str]:
        return _glossary_lang(params, "source_lang"), _glossary_lang(params, "target_lang")

    def _v3_entries(self, params: dict[str, Any], handler: _Handler, gid: str) -> _Response:
        pair = self._pair_from_query(params)
        with self._lock:
            entries = self._get_glossary(gid).dictionaries.get(pair)
            if entries is None:
                raise _HttpError(404, "Dictionary not found.")
            item = {
                "source_lang": pair[0],
                "target_lang": pair[1],
                "entries": _entries_tsv(entries),
                "entries_format": "tsv",
            }
        return _json_response(200, {"dictionaries": [item]})

    def _v3_delete_dictionary(
        self, params: dict[str, Any], handler: _Handler, gid: str
    ) -> _Response:
        pair = self._pair_from_query(params)
        with self._lock:
            glossary = self._get_glossary(gid)
            if pair not in glossary.dictionaries:
                raise _HttpError(404, "Dictionary not found.")
            del glossary.dictionaries[pair]
        return _Response(204)


def _detect(text: str) -> str:
    return "KO" if _HANGUL_WORD.search(text) else "EN"


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return _REASON_PHRASES.get(status, "Error")
