"""Translatable units: the smallest pieces of text whose translation state is tracked.

A unit has a stable key (`cv:experience[company=Acme].details[0].breakdown.problem`,
`posts/kv-cache:title`, `posts/kv-cache:body#2`), its source text and, when it exists, the
translation's text, each with file and line.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from bipub.load.sections import Section, nfc, split_sections, text_hash

__all__ = ["Section", "Unit", "nfc", "split_sections", "text_hash"]


@dataclass(frozen=True)
class Unit:
    key: str
    source_lang: str
    target_lang: str
    source: str
    source_file: str
    source_line: int | None
    translation: str | None
    translation_file: str | None
    translation_line: int | None

    @cached_property
    def source_hash(self) -> str:
        return text_hash(self.source)
