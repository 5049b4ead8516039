"""How the entries file (restore.py) pickles a piece of entries' rows and reads it back: each
entry as pairing left it (pair/memo.py `Paired`), with its documents named by file and digest,
not copied (`_ResidentPickler`; read back only with the build cache's very documents:
`ResidentUnpickler`), each body unit as a row without its texts (`UnitRow`: read back, a unit
holds what a build reads of it and is made whole from its row when more is read, its texts
sliced from the documents, as pairing makes them: `_paired`), and equal tuples of strings
pickled once (`_shared`)."""

from __future__ import annotations

import io
import pickle
from typing import Any

from bipub.load.content import Document
from bipub.pair.memo import DocIds, Group, Paired, Read
from bipub.pair.model import Entry
from bipub.pair.taxonomy import EntryTaxa
from bipub.pair.units import Unit

# what the entries file keeps of an entry, by its group: as pairing left it (pair/memo.py
# `Paired`, with what it read of the status records), its taxa and what its key was made of
# (EntryKeyMemo: facts, around, review, key), each without the entry itself
Made = tuple[object, object, object, str]
Row = tuple[Group, Paired, Read, EntryTaxa | None, Made | None]


def _document(rel: str, digest: str) -> Document:
    """A document named in the last pairing (`dumps_rows`); only `ResidentUnpickler`
    makes one, from the build cache."""
    raise pickle.UnpicklingError(f"{rel}: a document read back without the build cache")


def _unit(fields: dict[str, Any]) -> Unit:
    """A unit as it was (`_ResidentPickler`)."""
    unit = object.__new__(Unit)
    unit.__dict__.update(fields)
    return unit


# a body unit as `_ResidentPickler` keeps it: its key, target language, line and hash (of its
# section in the entry's source), the line and hash of its translation (None: not translated)
# and the section's index
UnitRow = tuple[str, str, int, str, int | None, str | None, int]


def _paired(
    docs: DocIds, entry: Entry | None, diagnostics: tuple[Any, ...], rows: tuple[Any, ...]
) -> Paired:
    """An entry as pairing left it, its body units made again from their rows (`UnitRow`).
    A unit holds what a build reads of an unchanged entry's units (pairing's status checks,
    status.json: render/json_api.py `status_texts_of`) — its key, target language, hashes,
    whether it is translated — and its entry's rows; its other fields are made from the row when one is
    first read (`_Rows.expand`, pair/units.py `Unit.__getattr__`), with where its sections
    are in the entry's documents, as pair/units.py `_span_units` makes them. (Its documents
    are the build cache's of the very file and digest, `ResidentUnpickler`: their sections are
    where the rows say. Making every unit whole, each section looked up in its document,
    cost ~25 ms at 5,000 posts a language: ~20,000 units, each a dict of 15 fields, not 5.)"""
    if entry is None:
        return Paired(docs, entry, tuple(rows), diagnostics)
    units: list[Unit] = []
    rows_of = _Rows(entry, rows)
    new, set_attr = object.__new__, object.__setattr__
    for row in rows:
        if type(row) is not tuple:
            units.append(row)
            continue
        # (five fields: a dict of at most five is made in its smallest size, ~4x faster)
        fields: dict[str, Any]
        if row[4] is None:
            key, target, digest = row[0], row[1], row[3]
            fields = {
                "key": key,
                "target_lang": target,
                "source_hash": digest,
                "translation": None,
                "_at": rows_of,
            }
        else:
            key, target, digest, t_digest = row[0], row[1], row[3], row[5]
            fields = {
                "key": key,
                "target_lang": target,
                "source_hash": digest,
                "translation_hash": t_digest,
                "_at": rows_of,
            }
        unit = new(Unit)
        set_attr(unit, "__dict__", fields)
        units.append(unit)
    return Paired(docs, entry, tuple(units), diagnostics)


class _Rows:
    """An entry whose body units were read back from their rows (`_paired`): makes a unit's
    fields whole from its row when one is first read (`expand`)."""

    __slots__ = ("entry", "rows")

    def __init__(self, entry: Entry, rows: tuple[Any, ...]) -> None:
        self.entry, self.rows = entry, rows

    def row(self, fields: dict[str, Any]) -> UnitRow:
        """The row of the unit of these `fields` (by its key and target language)."""
        key, target = fields["key"], fields["target_lang"]
        for row in self.rows:
            if type(row) is tuple and row[0] == key and row[1] == target:
                return row
        raise RuntimeError(f"{key}: no row of its entry")

    def expand(self, unit: Unit) -> None:
        """`unit`'s fields (`_paired`) made whole, in the order they always had: as
        `_span_units` makes them from where its sections are in the entry's documents
        (`unsplit_spans`: the build cache's; from the sections, if they were split), its
        texts sliced when read. Each section's line and hash must be the unit's. (Its fields
        are another dict, put in place at once: a unit read meanwhile has the one or the
        other.)"""
        fields = unit.__dict__
        key, target, line, digest, t_line, t_digest, index = self.row(fields)
        entry = self.entry
        src = entry.docs[entry.source_lang]
        whole: dict[str, Any] = {
            "key": key,
            "source_lang": entry.source_lang,
            "target_lang": target,
            "source_file": src.rel,
            "source_line": line,
            "source_hash": digest,
        }
        found_line, found = _place(whole, src, index, ("_body", "_start", "_end", "source"))
        if found_line != line or found != digest:
            raise RuntimeError(f"{key}: not the section it was made of")
        if t_line is None:
            whole["translation"] = whole["translation_file"] = whole["translation_line"] = None
        else:
            tr = entry.docs[target]
            whole["translation_file"] = tr.rel
            whole["translation_line"] = t_line
            names = ("_tbody", "_tstart", "_tend", "translation")
            found_line, found = _place(whole, tr, index, names)
            if found_line != t_line or found != t_digest:
                raise RuntimeError(f"{key}: not the translation it was made of")
            whole["translation_hash"] = t_digest
        for name, value in fields.items():  # (a cached property read since: kept)
            if name not in whole and name != "_at":
                whole[name] = value
        object.__setattr__(unit, "__dict__", whole)


def _place(
    whole: dict[str, Any], doc: Document, index: int, names: tuple[str, str, str, str]
) -> tuple[int, str]:
    """Where section `index` of `doc` is, put in `whole` under `names` (the body, start and
    end it is sliced from when first read, as pair/units.py `_span_units` keeps them; or,
    where the body was split, the text itself), and that section's line and hash."""
    spans = doc.unsplit_spans()
    if spans is not None:  # (the texts sliced from the body when first read)
        start, end, line, digest = spans[index]
        whole[names[0]], whole[names[1]], whole[names[2]] = doc, start, end
        return line, digest
    section = doc.sections[index]
    whole[names[3]] = section.text
    return section.line, section.digest


def _unit_row(entry: Entry, unit: Unit) -> UnitRow | Unit:
    """`unit` as a row (`UnitRow`), if it is a body unit of `entry`'s source and its
    translation in the unit's language (else as it is, with its texts): its row as read, if
    it was read back (`_paired`) with `entry` and not made whole since."""
    found = unit.__dict__
    rows_of: _Rows | None = found.get("_at")
    if rows_of is not None:
        if rows_of.entry is entry:
            return rows_of.row(found)
        rows_of.expand(unit)
        found = unit.__dict__
    part = found["key"].rpartition(":")[2]
    digest = found.get("source_hash")
    if not part.startswith("body#") or not part[5:].isdigit() or digest is None:
        return unit
    src, target = entry.docs[entry.source_lang], found["target_lang"]
    tr_rel = found["translation_file"]
    if found["source_lang"] != entry.source_lang or found["source_file"] != src.rel:
        return unit
    if tr_rel is None:
        return (found["key"], target, found["source_line"], digest, None, None, int(part[5:]))
    t_digest = found.get("translation_hash")
    if target not in entry.docs or entry.docs[target].rel != tr_rel or t_digest is None:
        return unit
    line, t_line = found["source_line"], found["translation_line"]
    return (found["key"], target, line, digest, t_line, t_digest, int(part[5:]))


class _ResidentPickler(pickle.Pickler):
    """Pickles the last pairing with its documents named (file and digest), not copied, and
    each body unit as a row (`_unit_row`), without its texts."""

    def __init__(self, out: io.BytesIO) -> None:
        super().__init__(out, protocol=pickle.HIGHEST_PROTOCOL)
        self.dispatch_table = {Document: self._document, Paired: self._paired, Unit: self._unit}

    @staticmethod
    def _document(doc: Document) -> tuple[Any, ...]:
        return (_document, (doc.rel, doc.digest))

    @staticmethod
    def _paired(paired: Paired) -> tuple[Any, ...]:
        entry, units = paired.entry, paired.units
        rows = tuple([_unit_row(entry, unit) for unit in units]) if entry is not None else units
        return (_paired, (paired.docs, entry, paired.diagnostics, rows))

    @staticmethod
    def _unit(unit: Unit) -> tuple[Any, ...]:
        """(A unit with its texts: `Unit.__getstate__`.)"""
        return (_unit, (unit.__getstate__(),))


class ResidentUnpickler(pickle.Unpickler):
    """Unpickles the last pairing with each document the build cache holds of that file and
    digest (the last build's, read back before this build loads: an unchanged document is
    then the very object this build loads, load/content.py), or not at all."""

    def __init__(self, data: memoryview, docs: dict[str, tuple[Any, str, Any]]) -> None:
        super().__init__(io.BytesIO(data))
        self._docs = docs

    def find_class(self, module: str, name: str) -> Any:
        if module == __name__ and name == "_document":
            return self._document
        return super().find_class(module, name)

    def _document(self, rel: str, digest: str) -> Document:
        hit = self._docs.get(rel)
        doc = hit[2] if hit is not None else None
        if type(doc) is not Document or doc.digest != digest:
            raise pickle.UnpicklingError(f"{rel}: not a document of the build cache")
        return doc


def dumps_rows(rows: list[Row]) -> bytes:
    """A piece's rows pickled, each equal tuple of strings in their status reads, taxa and
    key parts pickled once (`_shared`): read back, they are one object (~20 of ~140 objects
    a row unpickled fewer: a tag's slug and spelling are in its entry's taxa and key parts in
    each language)."""
    seen: dict[Any, Any] = {}
    shared = [
        (
            group,
            paired,
            _shared(read, seen)[0],
            taxa if taxa is None else EntryTaxa(*(_shared(part, seen)[0] for part in taxa)),
            _shared(made, seen)[0],
        )
        for group, paired, read, taxa, made in rows
    ]
    out = io.BytesIO()
    _ResidentPickler(out).dump(shared)
    return out.getvalue()


def _shared(value: Any, seen: dict[Any, Any]) -> tuple[Any, bool]:
    """`value` with each string, and each tuple of strings (and None, and such tuples) in it,
    the first equal one in `seen` (so pickled once), and whether it is such a tuple. Nothing
    else is merged: equal values of other types may differ (`0 == False == 0.0`)."""
    kind = type(value)
    if kind is str:
        return seen.setdefault(value, value), True
    if value is None:
        return value, True
    if kind is tuple:
        items: list[Any] = []
        plain = True
        for item in value:
            item, alike = _shared(item, seen)
            items.append(item)
            plain = plain and alike
        made = tuple(items)
        return (seen.setdefault(made, made) if plain else made), plain
    if kind is dict:
        return {key: _shared(item, seen)[0] for key, item in value.items()}, False
    return value, False
