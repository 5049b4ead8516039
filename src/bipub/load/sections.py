"""A Markdown body split at its headings: the sections that become body units.

Lives in the load stage because a loaded `Document` keeps its sections (load/content.py); the
pair stage  makes units of them.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise


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

    @cached_property
    def digest(self) -> str:
        """text_hash of the text: a body unit's source hash (kept with the document in the build
        cache, load/content.py, so a warm build does not hash every body again)."""
        return text_hash(self.text)

    @classmethod
    def made(cls, index: int, text: str, line: int) -> Section:
        """`Section(index, text, line)` without the frozen dataclass's `__init__` (a setattr
        call per field): the same fields, at a third of the cost (every body of a cold build
        is split)."""
        section = object.__new__(cls)
        section.__dict__.update(index=index, text=text, line=line)
        return section

    @classmethod
    def known(cls, index: int, text: str, line: int, digest: str) -> Section:
        """`Section(index, text, line)` whose text's `digest` is known, made at a third of the
        cost of the frozen dataclass's `__init__`: a warm build makes the sections of every
        document again from where they are in its body (load/content.py)."""
        section = object.__new__(cls)
        section.__dict__.update(index=index, text=text, line=line, digest=digest)
        return section


# The only lines that can change the splitting: a heading ('#' in the first column) and a line
# whose first character after spaces is a backtick or tilde (a fence, open or closing). Every
# other line just joins the section it is in, so the split looks at these lines alone. Found
# after the newline before them (in the body with a newline put before it): `re` looks for a
# pattern's leading literal character quickly, where `^` (re.M) is tried at every position.
_MARKER_LINE = re.compile(r"\n(?:#| *[`~])")


def split_sections(body: str, first_line: int) -> list[Section]:
    """Split a Markdown body at headings (outside code fences) into sections.

    Section 0 is the text before the first heading (may be empty and then dropped). Each
    section starts at its first non-blank line; its text has no leading or trailing empty lines.
    """
    lines = body.split("\n")
    starts = [0]  # the line offsets where a section begins
    fence: str | None = None
    row, pos = 0, 0
    # (the match's start in "\n" + body is where its line starts in body)
    for found in _MARKER_LINE.finditer("\n" + body):
        row += body.count("\n", pos, found.start())
        pos = found.start()
        line = lines[row]
        if line[0] != "#":
            m = _FENCE.match(line)
            if m:
                marker = m.group(2)
                if fence is None:
                    fence = marker[0] * len(marker)
                elif line.strip().startswith(fence) and set(line.strip()) <= {fence[0]}:
                    fence = None
        elif fence is None and _HEADING.match(line):
            starts.append(row)
    starts.append(len(lines))
    sections: list[Section] = []
    for begin, end in pairwise(starts):
        while begin < end and not lines[begin].strip():  # blank lines before a section's text
            begin += 1
        text = "\n".join(lines[begin:end]).strip("\n")
        if text.strip():
            sections.append(Section.made(len(sections), text, first_line + begin))
    return sections
