"""Translatable units: the smallest pieces of text whose translation state is tracked.

A unit has a stable key (`cv:experience[company=Acme].details[0].breakdown.problem`,
`posts/kv-cache:title`, `posts/kv-cache:body#2`), its source text and, when it exists, the
translation's text, each with file and line.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property


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


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def text_hash(text: str) -> str:
    """Hash of NFC text with trailing whitespace of lines ignored (12 hex digits)."""
    norm = "\n".join(line.rstrip() for line in nfc(text).strip().split("\n"))
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()[:12]


_FENCE = re.compile(r"^(\s{0,3})(`{3,}|~{3,})")
_HEADING = re.compile(r"^#{1,6}\s")


@dataclass(frozen=True)
class Section:
    index: int
    text: str
    line: int  # line in the file


def split_sections(body: str, first_line: int) -> list[Section]:
    """Split a Markdown body at headings (outside code fences) into sections.

    Section 0 is the text before the first heading (may be empty and then dropped).
    """
    sections: list[Section] = []
    current: list[str] = []
    start = first_line
    fence: str | None = None
    for offset, line in enumerate(body.split("\n")):
        lead = line.lstrip(" ")[:1]
        m = _FENCE.match(line) if lead in ("`", "~") else None
        if m:
            marker = m.group(2)
            if fence is None:
                fence = marker[0] * len(marker)
            elif line.strip().startswith(fence) and set(line.strip()) <= {fence[0]}:
                fence = None
        if fence is None and lead == "#" and current and _HEADING.match(line):
            text = "\n".join(current).strip("\n")
            if text.strip():
                sections.append(Section(len(sections), text, start))
            current = []
            start = first_line + offset
        if not current and not line.strip():
            start = first_line + offset + 1
            continue
        current.append(line)
    text = "\n".join(current).strip("\n")
    if text.strip():
        sections.append(Section(len(sections), text, start))
    return sections
