"""The one place bipub talks to DeepL (the official `deepl` package, imported lazily).

* Credentials: `DEEPL_AUTH_KEY` from the environment (never printed, logged, written or put in an
  exception message: every message leaving this module has the key scrubbed), optional
  `DEEPL_SERVER_URL` passed to the client's `server_url` (a DeepL-compatible server).
* Limits: `plan_batches` packs texts in order into requests of at most 50 texts and 128 KiB of
  request body (measured as the client sends it: JSON with ASCII escapes).
* Faults: the client itself retries 429, 5xx and dropped connections (at most
  `deepl.http_client.max_network_retries` = 5 retries, backoff 1 s ×1.6 with jitter, each attempt
  with a 10 s timeout), so the total wait is bounded; bipub adds no retries of its own. Anything
  else — 456 quota, 403 key, no connection, a timeout, a malformed answer (the client returns
  broken 200 responses as IndexError/TypeError or short result lists) — becomes `DeepLError`,
  one line of text with the key scrubbed.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import quote, quote_plus

MAX_TEXTS = 50
MAX_BYTES = 128 * 1024
#: Room left in every request for the parameters besides the texts, and for headers of a proxy.
REQUEST_MARGIN = 4 * 1024
ENV_KEY = "DEEPL_AUTH_KEY"
#: No piece of the key this long (or longer) is ever printed.
SCRUB_PIECE = 8
ENV_SERVER = "DEEPL_SERVER_URL"

#: DeepL target languages with a formality setting (developers.deepl.com); Korean and English
#: have none, so `more`/`less` are sent as `prefer_more`/`prefer_less`, which DeepL accepts and
#: ignores where unsupported.
FORMALITY_TARGETS = frozenset(
    {"DE", "FR", "IT", "ES", "NL", "PL", "PT-BR", "PT-PT", "JA", "RU", "ES-419"}
)

T = TypeVar("T")


class DeepLError(Exception):
    """A DeepL failure: `reason` is one line, safe to print. `local`: the request itself was
    refused or answered malformed (HTTP 400/413, a broken answer) — asking again with other
    texts may work; otherwise the service is at fault (quota, key, network) and the run stops."""

    def __init__(self, reason: str, *, status: int | None = None, local: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.local = local


class MissingKeyError(DeepLError):
    """DEEPL_AUTH_KEY is not set (a setup problem: exit code 2)."""


def deepl_source(lang: str) -> str:
    """bipub language code → DeepL source language (`en` → `EN`, `ko` → `KO`)."""
    return lang.split("-", 1)[0].upper()


def deepl_target(lang: str, english: str = "EN-US") -> str:
    """bipub language code → DeepL target language (`en` → `EN-US`: bare EN is deprecated)."""
    if lang.lower() == "en":
        return english
    if lang.lower() == "pt":
        return "PT-PT"
    return lang.upper()


def sent_formality(formality: str, target: str) -> str | None:
    """The formality value to send for this target (None: leave DeepL's default)."""
    if formality == "default":
        return None
    if target.upper() in FORMALITY_TARGETS or formality.startswith("prefer_"):
        return formality
    return f"prefer_{formality}"


# --------------------------------------------------------------------------- batching


def text_cost(text: str) -> int:
    """Bytes one text adds to a request body (JSON string with ASCII escapes, plus `, `)."""
    return len(json.dumps(text)) + 2


class TooLargeError(ValueError):
    def __init__(self, index: int, size: int, limit: int) -> None:
        super().__init__(f"text {index} needs {size} bytes, more than one request holds ({limit})")
        self.index = index


def plan_batches(
    texts: Sequence[str],
    *,
    max_texts: int | None = None,
    max_bytes: int | None = None,
    overhead: int = REQUEST_MARGIN,
) -> list[list[int]]:
    """Indexes of `texts` grouped into requests, in order, each text exactly once.

    Each request holds at most `max_texts` texts and `max_bytes - overhead` bytes of texts.
    A text that cannot fit into any request raises TooLargeError (callers leave it out first,
    see `fits`)."""
    limit_texts = max_texts if max_texts is not None else MAX_TEXTS
    limit = (max_bytes if max_bytes is not None else MAX_BYTES) - overhead
    batches: list[list[int]] = []
    current: list[int] = []
    size = 0
    for index, text in enumerate(texts):
        cost = text_cost(text)
        if cost > limit:
            raise TooLargeError(index, cost, limit)
        if current and (len(current) >= limit_texts or size + cost > limit):
            batches.append(current)
            current, size = [], 0
        current.append(index)
        size += cost
    if current:
        batches.append(current)
    return batches


def fits(text: str, *, max_bytes: int | None = None, overhead: int = REQUEST_MARGIN) -> bool:
    return text_cost(text) <= (max_bytes if max_bytes is not None else MAX_BYTES) - overhead


# --------------------------------------------------------------------------- the client


@dataclass(frozen=True)
class Usage:
    count: int | None
    limit: int | None

    @property
    def remaining(self) -> int | None:
        if self.count is None or self.limit is None:
            return None
        return max(self.limit - self.count, 0)


@dataclass(frozen=True)
class RequestOptions:
    """Everything that shapes a translation (all of it is part of the cache key)."""

    source_lang: str  # DeepL code, e.g. "KO"
    target_lang: str  # DeepL code, e.g. "EN-US"
    formality: str | None = None
    model_type: str | None = None
    context: str | None = None
    tag_handling: str = "xml"
    ignore_tags: tuple[str, ...] = ()
    splitting_tags: tuple[str, ...] = ()
    non_splitting_tags: tuple[str, ...] = ()

    def fingerprint(self) -> dict[str, Any]:
        return {
            "source": self.source_lang,
            "target": self.target_lang,
            "formality": self.formality,
            "model_type": self.model_type,
            "context": self.context,
            "tags": [
                self.tag_handling,
                list(self.ignore_tags),
                list(self.splitting_tags),
                list(self.non_splitting_tags),
            ],
        }


@dataclass(frozen=True)
class Translation:
    text: str
    billed: int
    scrubbed: bool = False  # the answer held the key (or a piece of it), replaced by ***


class DeepL:
    """A thin, fault-mapping wrapper around `deepl.DeepLClient`."""

    def __init__(self, auth_key: str, server_url: str | None = None) -> None:
        if not auth_key:
            raise MissingKeyError(f"{ENV_KEY} is empty")
        import deepl

        self._key = auth_key
        self.server_url = server_url
        self._client = deepl.DeepLClient(auth_key, server_url=server_url, send_platform_info=False)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> DeepL:
        env = os.environ if environ is None else environ
        key = env.get(ENV_KEY, "").strip()
        if not key:
            raise MissingKeyError(
                f"{ENV_KEY} is not set: export your DeepL API key as {ENV_KEY} "
                f"(and {ENV_SERVER} for a DeepL-compatible server)"
            )
        return cls(key, env.get(ENV_SERVER, "").strip() or None)

    def close(self) -> None:
        with contextlib.suppress(Exception):  # closing must never mask the real outcome
            self._client.close()  # type: ignore[no-untyped-call]

    def __enter__(self) -> DeepL:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- calls ---------------------------------------------------------------------

    def _call(self, what: str, fn: Callable[[], T]) -> T:
        """Run one client call; map every failure to a one-line DeepLError without the key."""
        import deepl

        try:
            return fn()
        except deepl.QuotaExceededException as exc:
            raise self._error("DeepL quota exceeded (HTTP 456)", exc, 456) from None
        except deepl.AuthorizationException as exc:
            raise self._error(
                f"DeepL refused the key (HTTP 403): check {ENV_KEY}", exc, 403
            ) from None
        except deepl.TooManyRequestsException as exc:
            raise self._error(
                "DeepL kept answering 429 (too many requests) after the client's retries", exc, 429
            ) from None
        except deepl.ConnectionException as exc:
            where = self.server_url or "the DeepL API"
            kind = "timed out" if "timed out" in str(exc).lower() else "failed"
            raise self._error(f"{what} {kind}: no answer from {where}", exc, None) from None
        except deepl.DeepLException as exc:
            status = getattr(exc, "http_status_code", None)
            label = f"HTTP {status}" if status else "error"
            local = status in (400, 413)
            raise self._error(f"DeepL {label} during {what}", exc, status, local) from None
        except (IndexError, TypeError, KeyError, ValueError, AttributeError) as exc:
            raise self._error(f"malformed response from DeepL to {what}", exc, None, True) from None

    def _error(
        self, reason: str, exc: BaseException, status: int | None, local: bool = False
    ) -> DeepLError:
        # every string from the server is scrubbed whole, before it is cut: a cut key would no
        # longer match (issue 16)
        detail = self.scrub(" ".join(str(exc).split()))
        if detail:
            detail = detail if len(detail) <= 160 else detail[:159] + "…"
            reason = f"{reason} ({detail})"
        return DeepLError(self.scrub(reason), status=status, local=local)

    def scrub(self, text: str) -> str:
        """`text` without the key, in any form a server could echo it (as is, URL-encoded,
        JSON-escaped), nor any piece of it of 8 characters or more (a server may cut it)."""
        key = self._key
        if not key:
            return text
        forms = {key, quote(key, safe=""), quote_plus(key), json.dumps(key)[1:-1]}
        for form in sorted(forms, key=len, reverse=True):
            text = text.replace(form, "***")
        shortest = SCRUB_PIECE if len(key) >= 2 * SCRUB_PIECE else len(key)
        windows = {key[i : i + shortest] for i in range(len(key) - shortest + 1)}
        if not any(text[i : i + shortest] in windows for i in range(len(text) - shortest + 1)):
            return text  # (the common case, checked in one pass)
        for size in range(len(key) - 1, shortest - 1, -1):  # longest pieces first
            for start in range(len(key) - size + 1):
                piece = key[start : start + size]
                if piece in text:
                    text = text.replace(piece, "***")
        return text

    def usage(self) -> Usage:
        result = self._call("the usage request", self._client.get_usage)
        character = getattr(result, "character", None)
        count = getattr(character, "count", None)
        limit = getattr(character, "limit", None)
        return Usage(
            count if isinstance(count, int) else None, limit if isinstance(limit, int) else None
        )

    def sync_glossary(
        self,
        name: str,
        dictionaries: Mapping[tuple[str, str], dict[str, str]],
        *,
        family: str | None = None,
    ) -> tuple[str, list[str]]:
        """The id of the multilingual glossary called `name`, created when no glossary has that
        name (names carry the content hash, so one glossary exists per glossary content), and
        the names of the glossaries of the same `family` (name prefix) it replaces, deleted."""
        from deepl.api_data import MultilingualGlossaryDictionaryEntries

        existing = self._call("the glossary list", self._client.list_multilingual_glossaries)
        found = next((i for i in existing if getattr(i, "name", None) == name), None)
        if found is not None:
            glossary_id = str(found.glossary_id)
        else:
            entries = [
                MultilingualGlossaryDictionaryEntries(src.upper(), tgt.upper(), dict(terms))
                for (src, tgt), terms in sorted(dictionaries.items())
                if terms
            ]
            info = self._call(
                "the glossary upload",
                lambda: self._client.create_multilingual_glossary(name, entries),
            )
            glossary_id = str(info.glossary_id)
        deleted: list[str] = []
        for old in existing:
            old_name = str(getattr(old, "name", ""))
            if family and old_name.startswith(family) and old_name != name:
                self._call(
                    "the deletion of a replaced glossary",
                    functools.partial(self._client.delete_multilingual_glossary, old),
                )
                deleted.append(self.scrub(old_name))
        return glossary_id, deleted

    def translate(
        self,
        texts: Sequence[str],
        options: RequestOptions,
        glossary_id: str | None = None,
        *,
        context: str | None = None,
    ) -> list[Translation]:
        """Translate one batch (see `plan_batches`). Exactly one result per text, or DeepLError.
        `context` (not translated, not billed) replaces the options' context."""
        if not texts:
            return []
        if len(texts) > MAX_TEXTS:
            raise ValueError(f"{len(texts)} texts in one request (at most {MAX_TEXTS})")
        kwargs: dict[str, Any] = {
            "source_lang": options.source_lang,
            "target_lang": options.target_lang,
            "preserve_formatting": True,
            "tag_handling": options.tag_handling,
        }
        if options.tag_handling == "xml":
            kwargs["outline_detection"] = False
        for name in ("ignore_tags", "splitting_tags", "non_splitting_tags"):
            value = getattr(options, name)
            if value:
                kwargs[name] = list(value)
        for name in ("formality", "model_type"):
            value = getattr(options, name)
            if value:
                kwargs[name] = value
        if context or options.context:
            kwargs["context"] = context or options.context
        if glossary_id:
            kwargs["glossary"] = glossary_id

        def call() -> list[Translation]:
            results = self._client.translate_text(list(texts), **kwargs)
            items = results if isinstance(results, list) else [results]
            if len(items) != len(texts):
                raise ValueError(f"{len(items)} translations for {len(texts)} texts")
            out: list[Translation] = []
            for item in items:
                text = item.text
                if not isinstance(text, str):
                    raise TypeError("a translation without text")
                billed = item.billed_characters
                # every string from the server is scrubbed, answers too (they are written
                # into content files and the cache)
                clean = self.scrub(text)
                billed_n = int(billed) if billed is not None else 0
                out.append(Translation(clean, billed_n, scrubbed=clean != text))
            return out

        return self._call("the translate request", call)
