"""An in-process translation engine for the review-loop tests: the DeepL client's interface
(usage, sync_glossary, translate, close) over the fake server's pseudo-translation, with the
faults the real client reports as DeepLError (quota, server error, timeout) on demand, and the
markup faults of a real engine (tests/deepl_fake/faults.py, the HTTP fake's own): an answer
that lost one inline tag, lost every tag, or a request whose first and last answers are
exchanged (another segment's text).

`translate` and the drafting code see exactly what the real client returns: a Translation per
text, or a DeepLError for the whole request (bipub.translate.deepl_client).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bipub.translate import drafts
from bipub.translate.deepl_client import DeepLError, RequestOptions, Translation, Usage
from tests.deepl_fake.faults import FAULTS as TAG_FAULTS
from tests.deepl_fake.faults import swap
from tests.deepl_fake.server import translate_text_value

FAULTS = ("456 quota exceeded", "503 service unavailable", "timeout", "malformed answer")
#: What DeepL does to an answer's markup now and then (the request is served and billed).
MARKUP_FAULTS = ("drop_one_tag", "drop_tags", "swap")


def garbled(fault: str, answers: list[str]) -> list[str]:
    """The answers of one request as an engine that breaks markup `fault`'s way gives them."""
    if fault == "swap":
        return swap(answers)
    return [TAG_FAULTS[fault](a) for a in answers]


class FakeEngine:
    def __init__(self) -> None:
        self.fail_after: int | None = None  # requests answered before the next fault
        self.fault = FAULTS[0]
        self.requests = 0
        self.billed = 0
        self.markup: tuple[int, str] | None = None  # (clean requests before, markup fault)

    def fail(self, after: int, fault: str = FAULTS[0]) -> None:
        """After `after` requests, a transport fault (FAULTS) for the next request, or a
        markup fault (MARKUP_FAULTS) for every further one until `clear`."""
        if fault in MARKUP_FAULTS:
            self.markup = (after, fault)
        else:
            self.fail_after, self.fault = after, fault

    def clear(self) -> None:
        self.fail_after, self.markup = None, None

    # the DeepL client's interface (bipub.translate.deepl_client.DeepL)
    def usage(self) -> Usage:
        return Usage(self.billed, None)

    def sync_glossary(
        self, name: str, dictionaries: Any, *, family: str | None = None
    ) -> tuple[str, list[str]]:
        return "glossary-" + name, []

    def translate(
        self,
        texts: Sequence[str],
        options: RequestOptions,
        glossary_id: str | None = None,
        *,
        context: str | None = None,
    ) -> list[Translation]:
        if self.fail_after is not None:
            if self.fail_after <= 0:
                self.fail_after = None
                raise DeepLError(self.fault)
            self.fail_after -= 1
        self.requests += 1
        answers = [
            translate_text_value(
                text,
                options.target_lang,
                tag_handling=options.tag_handling,
                ignore_tags=options.ignore_tags,
            )
            for text in texts
        ]
        if self.markup is not None:
            after, fault = self.markup
            if after <= 0:
                answers = garbled(fault, answers)
            self.markup = (after - 1, fault)
        self.billed += sum(len(text) for text in texts)
        return [Translation(a, len(t)) for a, t in zip(answers, texts, strict=True)]

    def close(self) -> None:
        pass


def draft(root: Path, lang: str, engine: FakeEngine) -> drafts.Result:
    """`bipub translate --to LANG` through the engine (the DeepL cache is used as usual)."""
    plan = drafts.make_plan(root, lang)
    return drafts.run(plan, lambda: engine)  # type: ignore[arg-type, return-value]
