"""DeepL-compatible fake HTTP server (stdlib only) and pytest fixtures for bipub tests.

Quick start::

    from tests.deepl_fake import FakeDeepL

    with FakeDeepL() as fake:
        translator = deepl.Translator("test-key", server_url=fake.url)
        translator.translate_text("hi 42!", target_lang="KO").text  # "보 42!"

See :mod:`tests.deepl_fake.server` for behaviour and :mod:`tests.deepl_fake.fixtures`
for the ``deepl_fake`` / ``deepl_fast_backoff`` fixtures.
"""

from .server import (
    DEFAULT_AUTH_KEYS,
    MAX_REQUEST_BYTES,
    MAX_TEXTS_PER_REQUEST,
    FakeDeepL,
    RecordedRequest,
    hangulize_latin,
    pseudo_translate,
    romanize_hangul,
    translate_text_value,
)

__all__ = [
    "DEFAULT_AUTH_KEYS",
    "MAX_REQUEST_BYTES",
    "MAX_TEXTS_PER_REQUEST",
    "FakeDeepL",
    "RecordedRequest",
    "hangulize_latin",
    "pseudo_translate",
    "romanize_hangul",
    "translate_text_value",
]
