"""An in-process translation engine for the review-loop tests: the DeepL client's interface
(usage, sync_glossary, translate, close) over the fake server's pseudo-translation, with the
faults the real client reports as DeepLError (quota, server error, timeout) on demand.

`translate` and the drafting code see exactly what the real client returns: a Translation per
text, or a DeepLError for the whole request (bipub.translate.deepl_client).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bipub.translate import drafts
from bipub.translate.deepl_client import DeepLError, RequestOptions, Translation, Usage
from tests.deepl_fake.server import translate_text_value

FAULTS = ("456 quota exceeded", "503 service unavailable", "timeout", "malformed answer")


class FakeEngine:
    def __init__(self) -> None:
        self.fail_after: int | None = None  # requests answered before the next fault
        self.fault = FAULTS[0]
        self.requests = 0
        self.billed = 0

    def fail(self, after: int, fault: str = FAULTS[0]) -> None:
        self.fail_after, self.fault = after, fault

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
        out = []
        for text in texts:
            answer = translate_text_value(
                text,
                options.target_lang,
                tag_handling=options.tag_handling,
                ignore_tags=options.ignore_tags,
            )
            out.append(Translation(answer, len(text)))
            self.billed += len(text)
        return out

    def close(self) -> None:
        pass


def draft(root: Path, lang: str, engine: FakeEngine) -> drafts.Result:
    """`bipub translate --to LANG` through the engine (the DeepL cache is used as usual)."""
    plan = drafts.make_plan(root, lang)
    return drafts.run(plan, lambda: engine)  # type: ignore[arg-type, return-value]
