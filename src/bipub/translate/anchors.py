"""A draft's in-page links, pointed at the translation's headings.

A heading's id is made of its text (bipub.text.headings: `## 결론` → `h-결론`), so a Korean
post's `[결론](#h-결론)` drafted as is would name no heading of the English page, whose heading
reads `## Conclusion` (`h-conclusion`). Headings pair by position, as a post's sections do
(load/sections.py: each heading starts a body unit): when a post's whole body is known after
the run — every section drafted, or the others from its present translation (a draft waiting
beside a reviewed section stands for it: the post as it is once the drafts are adopted) — and it
has as many headings as its source, each in-page link of a drafted section to the source's heading
`#h-…` is written as the link to the translation's heading at the same place. Otherwise the
link is kept as drafted (QA says when it names no heading of the translation: check/anchors.py).
"""

from __future__ import annotations

import dataclasses
import unicodedata
from typing import Protocol, TypeVar
from urllib.parse import quote, unquote

from bipub.pair.units import split_sections
from bipub.text.headings import HEADING_PREFIX, heading_ids
from bipub.translate.links import link_spans
from bipub.translate.plan import Group, Job


class _Drafted(Protocol):
    """A draft of translate/writers.py (a frozen dataclass)."""

    @property
    def job(self) -> Job: ...

    @property
    def text(self) -> str: ...


D = TypeVar("D", bound=_Drafted)


def anchor_map(source_body: str, translation_body: str) -> dict[str, str]:
    """Each heading id (`h-…`) of the source → the translation's heading id at its place (when
    the two have as many headings; only those that differ)."""
    ours, theirs = heading_ids(source_body), heading_ids(translation_body)
    if len(ours) != len(theirs):
        return {}
    # a heading's own id (`{#conclusion}`) is the same in both languages: a link to it stays
    # as written (a translation whose heading lost it is QA's `markup` finding)
    return {
        a: b for a, b in zip(ours, theirs, strict=True) if a != b and a.startswith(HEADING_PREFIX)
    }


def relink(text: str, ids: dict[str, str]) -> str:
    """`text` with each in-page link `#<id>` to an id of `ids` written as its mapped id."""
    out: list[str] = []
    pos = 0
    for start, end in link_spans(text):
        href = text[start:end]
        if not href.startswith("#"):
            continue
        new = ids.get(unicodedata.normalize("NFC", unquote(href[1:])))
        if new is None:
            continue
        out += [text[pos:start], "#" + (quote(new, safe="-_.~") if "%" in href else new)]
        pos = end
    out.append(text[pos:])
    return "".join(out)


def anchored(group: Group, drafts: list[D]) -> list[D]:
    """The drafts of one post or page with their in-page links to the source's headings
    pointed at the translation's (see the module's docstring)."""
    src = group.source_doc
    if group.kind != "doc" or src is None:
        return drafts
    texts = {d.job.key.split(":", 1)[1]: d.text for d in drafts}
    if not any(k.startswith("body#") and "#h-" in t for k, t in texts.items()):
        return drafts
    count = len(split_sections(src.body, src.body_line))
    tr = group.target_doc
    present = [s.text for s in split_sections(tr.body, tr.body_line)] if tr is not None else []
    sections = []
    for i in range(count):
        text = texts.get(f"body#{i}")
        if text is None and (i >= len(present) or len(present) > count):
            return drafts  # the translation's headings are not known
        sections.append(text if text is not None else present[i])
    ids = anchor_map(src.body, "\n\n".join(sections))
    if not ids:
        return drafts
    return [
        dataclasses.replace(d, text=relink(d.text, ids))  # type: ignore[type-var]
        if ":body#" in d.job.key
        else d
        for d in drafts
    ]
