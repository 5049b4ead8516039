"""What a translation already has that a draft takes instead of asking the engine.

A new part of a translated series is drafted with the name its other parts have in the target
language (`series_names`): sent to DeepL on its own it would come back worded otherwise, and
the series' page shows one name (pair/taxonomy.py: `series-names`). The job is marked
(`Job.named`), said in a note, and written as a draft to review like any other.
"""

from __future__ import annotations

from collections.abc import Sequence

from bipub.pair.status import StatusRecord
from bipub.pair.units import Unit, nfc, text_hash
from bipub.translate.segments import Layout, layout


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
