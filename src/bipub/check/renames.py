"""Status records of a renamed post or page: found, so that a rename never loses its reviews.

Renaming a post's files (both languages) gives its units new keys (`posts/new:body#0`); their
status records keep the old ones, so the reviewed units read as unreviewed and the records as
orphans, which `bipub review prune` removed — the reviews were lost. `renamed_records` finds
the new key of each such record:

1. a record whose unit-kind suffix (`body#0`, `title`) and hashes match exactly one unit that
   has no record — the same source (`source_hash`) and, where recorded, the same translation
   (`translation_hash`) — is that unit's, and its document (`posts/old` → `posts/new`) is
   taken as renamed, when every such match of the old document names the same new one;
2. the other records of a renamed document move to the same suffix of the new one, where that
   unit exists, has no record, and has the recorded source or the recorded translation (a
   source edited since keeps its old `source_hash`: stale, as it was; a translation edited
   since: edited).

`bipub check` names the new key in the orphan finding; `bipub review prune` moves the record.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from bipub.pair.status import StatusRecord
from bipub.pair.units import Unit, nfc, text_hash


def _split(key: str) -> tuple[str, str]:
    doc, _, part = key.rpartition(":")
    return doc, part


def _translation_hash(unit: Unit) -> str | None:
    return text_hash(unit.translation) if unit.translation is not None else None


def renamed_records(
    units: Iterable[Unit], records: Mapping[str, StatusRecord], lang: str
) -> dict[str, str]:
    """Each orphan record's key (of `records`, `lang`'s) → the key of the unit it belongs to
    after a rename (the module's text); records not matched are left out."""
    free: dict[str, Unit] = {}  # units of `lang` without a record
    for unit in units:
        key = nfc(unit.key)
        if unit.target_lang == lang and key not in records and not key.startswith(("ui:", "cv:")):
            free[key] = unit
    known = {nfc(u.key) for u in units if u.target_lang == lang}
    orphans = {k: r for k, r in records.items() if k not in known and not k.startswith("ui:")}
    if not orphans or not free:
        return {}
    by_part: dict[tuple[str, str], list[str]] = {}
    for key, unit in free.items():
        by_part.setdefault((_split(key)[1], text_hash(unit.source)), []).append(key)
    docs: dict[str, set[str]] = {}  # old document → new documents its exact matches name
    exact: dict[str, str] = {}
    for key, rec in orphans.items():
        old_doc, part = _split(key)
        hits = [
            k
            for k in by_part.get((part, rec.source_hash), ())
            if rec.translation_hash is None or _translation_hash(free[k]) == rec.translation_hash
        ]
        if len(hits) == 1:
            exact[key] = hits[0]
            docs.setdefault(old_doc, set()).add(_split(hits[0])[0])
    moved: dict[str, str] = {}
    taken: set[str] = set()
    for key in sorted(orphans):
        old_doc, part = _split(key)
        new_docs = docs.get(old_doc, set())
        if len(new_docs) != 1:
            continue
        (new_doc,) = new_docs
        if new_doc == old_doc:  # (sections that moved within a document: not a rename)
            continue
        target = f"{new_doc}:{part}"
        if key in exact and exact[key] != target:
            continue
        found = free.get(target)
        if found is None or target in taken:
            continue
        rec = orphans[key]  # (its source or its translation must be the one recorded)
        if text_hash(found.source) == rec.source_hash or (
            rec.translation_hash is not None and _translation_hash(found) == rec.translation_hash
        ):
            moved[key] = target
            taken.add(target)
    return moved
