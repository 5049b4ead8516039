"""Merge a CV translation onto its source.

The source file (e.g. content/en/cv.yaml) holds every field. A translation (content/ko/cv.yaml)
holds only `Text` fields, plus identity fields of list items so items can be paired. The merge
yields, for the target language, the full CV in the source's key order, and one `Unit` per text
field; text the translation lacks falls back to the source and is recorded in `fallbacks`.

Lists of strings (`certifications`) and lists of items without an identity field pair by position,
which an insert or a reorder in the source silently breaks. When the target language's status file
recorded the source text a positional translation was made for, and that text is not the source
text now at its position, the translation is not shown: the source text is, as a fallback (the
untranslated notice), with a `pairing` warning that says where the recorded text is now. The unit
keeps the translation, so `check` reports it stale and `translate` never overwrites it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from bipub.diagnostics import Collector
from bipub.load.yaml_strict import Path_, YamlDoc
from bipub.model.cv import CV
from bipub.model.fields import ListItem, field_kind
from bipub.pair.status import StatusRecord
from bipub.pair.units import Unit, nfc, text_hash

_MISSING: Any = object()


@dataclass
class MergedCv:
    lang: str
    source_lang: str
    data: dict[str, Any]
    fallbacks: set[Path_] = field(default_factory=set)
    units: list[Unit] = field(default_factory=list)
    paths: dict[str, Path_] = field(default_factory=dict)  # unit key → its source path
    drafts: set[Path_] = field(default_factory=set)  # unreviewed machine drafts (mark_drafts)


@dataclass
class _Ctx:
    source_lang: str
    target_lang: str
    src_rel: str
    src_doc: YamlDoc
    tr_rel: str | None
    tr_doc: YamlDoc | None
    collector: Collector
    fallbacks: set[Path_]
    units: list[Unit]
    recorded: Mapping[str, StatusRecord]  # the target language's status records, by unit key
    paths: dict[str, Path_] = field(default_factory=dict)

    def src_line(self, path: Path_) -> int | None:
        return self.src_doc.line_for(path)

    def tr_line(self, path: Path_) -> int | None:
        return self.tr_doc.line_for(path) if self.tr_doc else None


def merge_cv(
    source_lang: str,
    src_rel: str,
    src_doc: YamlDoc,
    target_lang: str,
    tr_rel: str | None,
    tr_doc: YamlDoc | None,
    collector: Collector,
    recorded: Mapping[str, StatusRecord] | None = None,
) -> MergedCv:
    """The target language's CV. `recorded`: its status records (status/<lang>.yaml), used to
    tell whether a translation paired by position was made for the source text now there."""
    src = src_doc.data if isinstance(src_doc.data, dict) else {}
    tr = tr_doc.data if tr_doc is not None else None
    if tr is not None and not isinstance(tr, dict):
        collector.error(tr_rel, 1, "schema", "cv.yaml must be a mapping")
        tr = None
    ctx = _Ctx(
        source_lang,
        target_lang,
        src_rel,
        src_doc,
        tr_rel,
        tr_doc,
        collector,
        set(),
        [],
        recorded or {},
    )
    data = _merge_obj(CV, src, tr, (), (), "cv:", ctx)
    return MergedCv(target_lang, source_lang, data, ctx.fallbacks, ctx.units, ctx.paths)


def mark_drafts(merged: MergedCv, states: Mapping[str, str], publish: bool) -> None:
    """Mark the fields whose translation is an unreviewed machine draft. `states`: unit key
    (NFC) → its status record's state. Published drafts are marked in `drafts` (shown with a
    notice); otherwise the field shows its source text, as a fallback."""
    for unit in merged.units:
        if unit.translation is None or states.get(unit.key) != "draft":
            continue
        path = merged.paths[unit.key]
        if publish:
            merged.drafts.add(path)
            continue
        parent: Any = merged.data
        for step in path[:-1]:
            parent = parent[step]
        parent[path[-1]] = unit.source
        merged.fallbacks.add(path)


def _join(prefix: str, name: str) -> str:
    return prefix + name if prefix.endswith(":") else f"{prefix}.{name}"


def _merge_obj(
    model: type[BaseModel],
    src: dict[str, Any],
    tr: dict[str, Any] | None,
    spath: Path_,
    tpath: Path_ | None,
    key: str,
    ctx: _Ctx,
    positional: list[Any] | None = None,
) -> dict[str, Any]:
    """`positional`: the source list when this item was paired by position, [] inside such
    an item (else None)."""
    tr = tr if isinstance(tr, dict) else None
    if tr is not None and tpath is not None:
        for k in tr:
            if k not in model.model_fields:
                ctx.collector.error(
                    ctx.tr_rel,
                    ctx.tr_line((*tpath, k)),
                    "schema",
                    f"{_join(key, k)}: unknown field",
                    key=_join(key, k),
                )
            elif k not in src and field_kind(model, k)[0] in ("text", "text_list"):
                ctx.collector.warning(
                    ctx.tr_rel,
                    ctx.tr_line((*tpath, k)),
                    "orphan",
                    f"{_join(key, k)}: the translation has this field but the source "
                    f"({ctx.src_rel}) does not; it is ignored",
                    key=_join(key, k),
                )
            elif k not in src and field_kind(model, k)[0] in ("shared", "shared_list"):
                # (e.g. `short: true` marked in the translation only: never silently dropped)
                ctx.collector.warning(
                    ctx.tr_rel,
                    ctx.tr_line((*tpath, k)),
                    "shared-differs",
                    f"{_join(key, k)}: shared field is {tr[k]!r} here but {ctx.src_rel} has "
                    "none; it is ignored (shared fields belong in the source only)",
                    key=_join(key, k),
                )
    out: dict[str, Any] = {}
    for k, sv in src.items():
        if k not in model.model_fields:
            out[k] = sv  # reported when the merged data is validated
            continue
        kind, inner = field_kind(model, k)
        tv = tr.get(k, _MISSING) if tr is not None else _MISSING
        sp, tp = (*spath, k), ((*tpath, k) if tpath is not None else None)
        ukey = _join(key, k)
        if kind == "text":
            among = (
                [x.get(k) if isinstance(x, dict) else None for x in positional]
                if positional is not None
                else None
            )
            out[k] = _text(sv, tv, sp, tp, ukey, ctx, among)
        elif kind == "text_list":
            out[k] = _text_list(sv, tv, sp, tp, ukey, ctx)
        elif kind == "model" and inner is not None and isinstance(sv, dict):
            out[k] = _merge_obj(
                inner,
                sv,
                tv if isinstance(tv, dict) else None,
                sp,
                tp,
                ukey,
                ctx,
                [] if positional is not None else None,  # inside an item paired by position
            )
            _check_shape(tv, dict, tp, ukey, ctx)
        elif kind == "model_list" and inner is not None and isinstance(sv, list):
            out[k] = _merge_list(inner, sv, tv, sp, tp, ukey, ctx)
        else:
            out[k] = sv
            if tv is not _MISSING and tv != sv:
                ctx.collector.warning(
                    ctx.tr_rel,
                    ctx.tr_line(tp) if tp else None,
                    "shared-differs",
                    f"{ukey}: shared field is {tv!r} here but {sv!r} in {ctx.src_rel}; "
                    "the source value is used (shared fields belong in the source only)",
                    key=ukey,
                )
    return out


def _check_shape(tv: Any, shape: type, tp: Path_ | None, ukey: str, ctx: _Ctx) -> None:
    if tv is not _MISSING and tv is not None and not isinstance(tv, shape):
        ctx.collector.error(
            ctx.tr_rel,
            ctx.tr_line(tp) if tp else None,
            "schema",
            f"{ukey}: expected {'a list' if shape is list else 'a mapping'}, got {type(tv).__name__}",
            key=ukey,
        )


def _text(
    sv: Any,
    tv: Any,
    sp: Path_,
    tp: Path_ | None,
    ukey: str,
    ctx: _Ctx,
    among: list[Any] | None = None,
) -> Any:
    """One text field. `among`: when it was paired by position, the source texts at every
    position of its list (to say where the text its translation was made for has gone)."""
    if not isinstance(sv, str):
        return sv  # wrong type: reported by model validation of the source
    translation: str | None = None
    if tv is not _MISSING and tv is not None:
        if isinstance(tv, str):
            translation = tv
        else:
            ctx.collector.error(
                ctx.tr_rel,
                ctx.tr_line(tp) if tp else None,
                "schema",
                f"{ukey}: expected text, got {tv!r} (quote the value to keep it as text)",
                key=ukey,
            )
    ctx.paths[nfc(ukey)] = sp
    ctx.units.append(
        Unit(
            nfc(ukey),
            ctx.source_lang,
            ctx.target_lang,
            sv,
            ctx.src_rel,
            ctx.src_line(sp),
            translation,
            ctx.tr_rel if translation is not None else None,
            ctx.tr_line(tp) if translation is not None and tp else None,
        )
    )
    if translation is None:
        ctx.fallbacks.add(sp)
        return sv
    if among is not None and _made_for_another_text(sv, translation, among, tp, ukey, ctx):
        ctx.fallbacks.add(sp)
        return sv
    return translation


def _made_for_another_text(
    sv: str, translation: str, among: list[Any], tp: Path_ | None, ukey: str, ctx: _Ctx
) -> bool:
    """Whether a translation paired by position was recorded for another source text (and is
    still the translation recorded): then it is not shown, with a `pairing` warning."""
    rec = ctx.recorded.get(nfc(ukey))
    if rec is None or rec.source_hash == text_hash(sv):
        return False  # never recorded (bipub cannot tell), or made for this very text
    if rec.translation_hash is not None and rec.translation_hash != text_hash(translation):
        return False  # the translation was rewritten since: the record no longer describes it
    moved = [
        i
        for i, other in enumerate(among)
        if isinstance(other, str) and text_hash(other) == rec.source_hash
    ]
    was = f"{rec.source!r}" if rec.source else "another source text"
    where = ", no longer in the source" if among else ""  # (among is [] in a nested field)
    if moved:
        where = f", now at [{moved[0]}]"
    ctx.collector.warning(
        ctx.tr_rel,
        ctx.tr_line(tp) if tp else None,
        "pairing",
        f"{ukey}: paired by position, but this translation was made for {was}{where}; the "
        f"source text is shown with the untranslated notice. Move the translation to its "
        f"item's position (or review it again with `bipub review`)",
        key=ukey,
    )
    return True


def _text_list(sv: Any, tv: Any, sp: Path_, tp: Path_ | None, ukey: str, ctx: _Ctx) -> Any:
    if not isinstance(sv, list):
        return sv
    _check_shape(tv, list, tp, ukey, ctx)
    tl = tv if isinstance(tv, list) else []
    if tl and len(tl) != len(sv):
        ctx.collector.warning(
            ctx.tr_rel,
            ctx.tr_line(tp) if tp else None,
            "list-length",
            f"{ukey}: {len(tl)} items here, {len(sv)} in {ctx.src_rel}; items pair by position",
            key=ukey,
        )
    return [
        _text(
            s,
            tl[i] if i < len(tl) else _MISSING,
            (*sp, i),
            (*tp, i) if tp is not None else None,
            f"{ukey}[{i}]",
            ctx,
            sv,
        )
        for i, s in enumerate(sv)
    ]


def item_identity(model: type[BaseModel], item: dict[str, Any]) -> tuple[str, Any] | None:
    if item.get("id") is not None:
        return ("id", item["id"])
    if issubclass(model, ListItem):
        for name in model.identity:
            if item.get(name) is not None:
                return (name, item[name])
    return None


def _merge_list(
    model: type[BaseModel],
    src: list[Any],
    tv: Any,
    sp: Path_,
    tp: Path_ | None,
    ukey: str,
    ctx: _Ctx,
) -> list[Any]:
    _check_shape(tv, list, tp, ukey, ctx)
    tr_items: list[Any] = tv if isinstance(tv, list) else []
    used: set[int] = set()
    out: list[Any] = []
    by_identity: dict[tuple[str, Any], int] = {}
    for pos, t in enumerate(tr_items):
        if isinstance(t, dict):
            tid = item_identity(model, t)
            if tid is not None:
                by_identity[tid] = pos
    positional = not by_identity
    for i, s in enumerate(src):
        if not isinstance(s, dict):
            out.append(s)
            continue
        ident = item_identity(model, s)
        j: int | None = None
        by_position = False
        if ident is not None and not positional:
            j = by_identity.get(ident)
        elif ident is None or positional:
            j = i if i < len(tr_items) else None
            by_position = True
            if j is not None and ident is not None and tr_items:
                ctx.collector.warning(
                    ctx.tr_rel,
                    ctx.tr_line((*tp, j)) if tp is not None else None,
                    "pairing",
                    f"{ukey}[{i}]: paired by position; add '{ident[0]}' to the translated "
                    "item so that reordering the source cannot mismatch it",
                    key=f"{ukey}[{i}]",
                )
        item_key = f"{ukey}[{ident[0]}={ident[1]}]" if ident is not None else f"{ukey}[{i}]"
        t = tr_items[j] if j is not None else None
        if j is not None:
            used.add(j)
        out.append(
            _merge_obj(
                model,
                s,
                t if isinstance(t, dict) else None,
                (*sp, i),
                (*tp, j) if tp is not None and j is not None else None,
                item_key,
                ctx,
                src if by_position else None,
            )
        )
    for pos, t in enumerate(tr_items):
        if pos not in used:
            tid = item_identity(model, t) if isinstance(t, dict) else None
            label = f"[{tid[0]}={tid[1]}]" if tid else f"[{pos}]"
            ctx.collector.warning(
                ctx.tr_rel,
                ctx.tr_line((*tp, pos)) if tp is not None else None,
                "orphan",
                f"{ukey}{label}: no matching item in {ctx.src_rel}; it is ignored",
                key=f"{ukey}{label}",
            )
    return out
