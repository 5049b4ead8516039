"""What a translation already has that a draft takes instead of asking the engine.

A section moved within a post keeps its translation (`document_pools`, `from_document`): a
post's sections pair by position, so a section inserted in the source moves every later one to
the next key (`body#2` → `body#3`), whose recorded source is then another section's: each would
be drafted again by the engine, and adopting those drafts replaced a reviewer's wording with
DeepL's. Each segment still to translate is looked up, by its source text, among the segments
the document's units were translated from (their records' `source`) and taken with the present
translation of that segment.

A new part of a translated series is drafted with the name its other parts have in the target
language (`series_names`): sent to DeepL on its own it would come back worded otherwise, and
the series' page shows one name (pair/taxonomy.py: `series-names`). The job is marked
(`Job.named`), said in a note, and written as a draft to review like any other.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bipub.check.findings import drafting_findings
from bipub.pair.status import UNTRANSLATED, StatusRecord
from bipub.pair.units import Unit, nfc, text_hash
from bipub.translate.segments import Layout, Segment, layout

#: A document's segment memory: (segment kind, source text) → its present translation.
Pool = dict[tuple[str, str], str]
#: What drafting said of a segment of a present machine draft (its record's `findings`, the
#: segment's location left out): (segment kind, source text) → (its translation, findings).
#: A draft that keeps that translation says them again: check cannot find a lost tag put back
#: at the end of its segment in the text, and its record is made anew.
Said = dict[tuple[str, str], tuple[str, tuple[tuple[str, str], ...]]]
_AT_SEGMENT = re.compile(r"^segment (\d+) \(line \d+\): (.*)$", re.S)
#: The engine of a draft none of whose words was sent: every segment with words to translate
#: kept from the present translations (its own, a moved section's, the series' other parts')
MEMORY = "memory"


def kept_words(lay: Layout, kept: Sequence[str | None]) -> tuple[int, int]:
    """(kept, of): of the segments of `lay` with words to translate, how many take their
    translation from `kept` (the present translations) instead of the engine."""
    prose = [s for s in lay.segments if s.needs_request]
    return sum(1 for s in prose if s.index < len(kept) and kept[s.index] is not None), len(prose)


def series_names(
    candidates: Sequence[Unit], records: dict[str, StatusRecord]
) -> dict[str, tuple[str, str]]:
    """Each series' name (its source's, NFC) → its name in the target language and the post
    whose reviewed translation gives it: a new part of a translated series is drafted with the
    name its other parts have (sent to DeepL, it would come back otherwise — the series' page
    shows one name, `series-names`). Only a translation reviewed for its present source and
    unchanged since counts."""
    out: dict[str, tuple[str, str]] = {}
    for unit in candidates:
        key = nfc(unit.key)
        if not key.endswith(":series") or unit.translation is None:
            continue
        rec = records.get(key)
        if rec is None or rec.state != "reviewed" or rec.source_hash != text_hash(unit.source):
            continue
        if rec.translation_hash not in (None, text_hash(unit.translation)):
            continue
        out.setdefault(nfc(unit.source), (unit.translation, key.rsplit(":", 1)[0]))
    return out


def series_kept(lay: Layout, name: str, keep: Sequence[str]) -> tuple[str | None, ...]:
    """The series' known name as the one segment of its unit (`series_names`), if it is one."""
    known = layout(name, keep).segments
    if len(lay.segments) != 1 or len(known) != 1:
        return ()
    return (known[0].body,)


def document_pools(
    candidates: Sequence[Unit],
    records: dict[str, StatusRecord],
    keep: Sequence[str],
    said: dict[str, Said] | None = None,
) -> dict[str, Pool]:
    """Each post's or page's segment memory (`posts/x` → `Pool`): from every unit with a
    present translation whose segments have the shape of the source its record says it was
    translated from (the module's text). `said`, when given, gets what drafting said of each
    segment of a machine draft unchanged since (`Said`)."""
    pools: dict[str, Pool] = {}
    for unit in candidates:
        key = nfc(unit.key)
        if key.startswith(("ui:", "cv:")) or unit.translation is None:
            continue
        rec = records.get(key)
        if rec is None or not rec.source or text_hash(rec.source) != rec.source_hash:
            continue
        if rec.options and UNTRANSLATED in rec.options:
            continue  # (the source standing in for a translation)
        title = key.endswith(":title")
        old = layout(rec.source, keep, title=title).segments
        now = layout(unit.translation, keep, title=title).segments
        if [s.kind for s in old] != [s.kind for s in now]:
            continue
        pool = pools.setdefault(key.rsplit(":", 1)[0], {})
        for o, t in zip(old, now, strict=True):
            if o.needs_request:
                pool.setdefault((o.kind, o.body), t.body)
        mine = rec.translation_hash in (None, text_hash(unit.translation))  # (not edited)
        if said is not None and rec.findings and rec.state == "draft" and mine:
            doc = said.setdefault(key.rsplit(":", 1)[0], {})
            for (kind, body), text, found in _segment_said(old, now, rec.findings):
                doc.setdefault((kind, body), (text, found))
    return pools


def _segment_said(
    old: Sequence[Segment], now: Sequence[Segment], findings: list[str]
) -> list[tuple[tuple[str, str], str, tuple[tuple[str, str], ...]]]:
    """Per segment of a draft (source `old`, translation `now`) with findings located at it:
    ((kind, source text), its translation, ((code, finding without its location), …))."""
    by_index: dict[int, list[tuple[str, str]]] = {}
    for code, message in drafting_findings(findings):
        m = _AT_SEGMENT.match(message)
        if m is not None:
            by_index.setdefault(int(m[1]), []).append((code, m[2]))
    return [
        ((old[i].kind, old[i].body), now[i].body, tuple(found))
        for i, found in sorted(by_index.items())
        if i < len(old)
    ]


def kept_said(
    lay: Layout, kept: Sequence[str | None], said: Said | None
) -> tuple[tuple[tuple[str, str], ...], ...]:
    """Per segment of `lay` that keeps a present translation (`kept`), what drafting said of
    that very translation (`Said`); () when nothing."""
    if not said or not kept:
        return ()
    out: list[tuple[tuple[str, str], ...]] = []
    for seg in lay.segments:
        text = kept[seg.index] if seg.index < len(kept) else None
        hit = said.get((seg.kind, seg.body)) if text is not None else None
        out.append(hit[1] if hit is not None and hit[0] == text else ())
    return tuple(out) if any(out) else ()


def from_document(
    lay: Layout, kept: tuple[str | None, ...], pool: Pool | None
) -> tuple[str | None, ...]:
    """`kept` (per segment, the unit's own kept translation, or ()) with each segment still to
    translate taken from its document's `pool` where that holds its source text."""
    if not pool:
        return kept
    out: list[str | None] = list(kept) if kept else [None] * len(lay.segments)
    for seg in lay.segments:
        if seg.index < len(out) and out[seg.index] is None and seg.needs_request:
            out[seg.index] = pool.get((seg.kind, seg.body))
    return tuple(out) if any(k is not None for k in out) else kept
