"""Put drafted CV texts into a translation cv.yaml's data, where `merge_cv` will pair them.

A translation cv.yaml holds only `Text` fields and the identity fields of list items
(see bipub.pair.cv_merge). `apply_cv_drafts(source, translation, drafts)` walks the source like
`merge_cv` does — the same unit keys, the same pairing of list items by `id`/identity field or
by position — and sets each drafted text at the place its unit pairs with, creating mappings and
list items (carrying their identity field) as needed. Nothing already in the translation is
removed; every mapping it touches is ordered like the source, so new keys land beside their
source neighbours.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

from bipub.model.cv import CV
from bipub.model.fields import field_kind
from bipub.pair.cv_merge import item_identity
from bipub.pair.units import nfc

Maker = Callable[[], dict[str, Any]]


class CvPlacementError(ValueError):
    """A drafted unit has no safe place in the translation file (reported, not written)."""


def _join(prefix: str, name: str) -> str:
    return prefix + name if prefix.endswith(":") else f"{prefix}.{name}"


def _order_like(target: dict[str, Any], source: Mapping[str, Any]) -> None:
    """Reorder `target`'s keys as in `source` (keys the source lacks keep their place last)."""
    order = {k: i for i, k in enumerate(source)}
    items = sorted(target.items(), key=lambda kv: order.get(kv[0], len(order)))
    target.clear()
    target.update(items)


class _Walk:
    def __init__(self, drafts: Mapping[str, str]) -> None:
        self.drafts = {nfc(k): v for k, v in drafts.items()}
        self.placed: set[str] = set()
        self.problems: dict[str, str] = {}

    def wanted(self, prefix: str) -> bool:
        return any(k == prefix or k.startswith(prefix) for k in self.drafts)

    def obj(
        self,
        model: type[BaseModel],
        src: Mapping[str, Any],
        tr: dict[str, Any] | None,
        make: Maker,
        key: str,
    ) -> None:
        holder: list[dict[str, Any]] = [tr] if tr is not None else []

        def get() -> dict[str, Any]:
            if not holder:
                holder.append(make())
            return holder[0]

        for name, sv in src.items():
            if name not in model.model_fields:
                continue
            kind, inner = field_kind(model, name)
            ukey = _join(key, name)
            if not self.wanted(nfc(ukey)):
                continue
            tv = tr.get(name) if tr is not None else None
            if kind == "text" and isinstance(sv, str):
                text = self.drafts.get(nfc(ukey))
                if text is not None:
                    get()[name] = text
                    self.placed.add(nfc(ukey))
            elif kind == "text_list" and isinstance(sv, list):
                self.text_list(sv, tv, get, name, ukey)
            elif kind == "model" and inner is not None and isinstance(sv, dict):
                sub = tv if isinstance(tv, dict) else None

                def make_sub(name: str = name) -> dict[str, Any]:
                    parent = get()
                    if not isinstance(parent.get(name), dict):
                        parent[name] = {}
                    child: dict[str, Any] = parent[name]
                    return child

                self.obj(inner, sv, sub, make_sub, ukey)
            elif kind == "model_list" and inner is not None and isinstance(sv, list):
                self.model_list(inner, sv, tv, get, name, ukey)
        if holder:
            _order_like(holder[0], src)

    def text_list(self, sv: list[Any], tv: Any, get: Maker, name: str, ukey: str) -> None:
        wanted = [
            i for i, s in enumerate(sv) if isinstance(s, str) and nfc(f"{ukey}[{i}]") in self.drafts
        ]
        if not wanted:
            return
        if tv is not None and not isinstance(tv, list):
            for i in wanted:
                self.problems[nfc(f"{ukey}[{i}]")] = f"{ukey} is not a list in the translation"
            return
        container = get()
        items = container.get(name)
        if not isinstance(items, list):
            items = container[name] = []
        for i in wanted:
            while len(items) <= i:
                items.append(None)  # a gap pairs with nothing: the source text shows there
            items[i] = self.drafts[nfc(f"{ukey}[{i}]")]
            self.placed.add(nfc(f"{ukey}[{i}]"))

    def model_list(
        self,
        model: type[BaseModel],
        src: list[Any],
        tv: Any,
        get: Maker,
        name: str,
        ukey: str,
    ) -> None:
        if tv is not None and not isinstance(tv, list):
            for k in self.drafts:
                if k.startswith(nfc(ukey) + "["):
                    self.problems[k] = f"{ukey} is not a list in the translation"
            return
        tr_items: list[Any] = tv if isinstance(tv, list) else []
        by_identity: dict[tuple[str, Any], int] = {}
        for pos, t in enumerate(tr_items):
            if isinstance(t, dict):
                tid = item_identity(model, t)
                if tid is not None:
                    by_identity[tid] = pos
        positional = not by_identity
        # an empty or missing list starts in identity mode when the source items have identities
        identity_mode = bool(by_identity) or (
            not tr_items and any(isinstance(s, dict) and item_identity(model, s) for s in src)
        )
        for i, s in enumerate(src):
            if not isinstance(s, dict):
                continue
            ident = item_identity(model, s)
            item_key = f"{ukey}[{ident[0]}={ident[1]}]" if ident is not None else f"{ukey}[{i}]"
            if not self.wanted(nfc(item_key) + ".") and not self.wanted(nfc(item_key) + "["):
                continue
            j: int | None
            if ident is not None and not positional:
                j = by_identity.get(ident)
            else:
                j = i if i < len(tr_items) else None
            t = tr_items[j] if j is not None else None

            def make_item(
                i: int = i, j: int | None = j, ident: tuple[str, Any] | None = ident
            ) -> dict[str, Any]:
                container = get()
                items = container.get(name)
                if not isinstance(items, list):
                    items = container[name] = []
                if j is not None and j < len(items):
                    if not isinstance(items[j], dict):
                        items[j] = {}
                    found: dict[str, Any] = items[j]
                    return found
                if identity_mode and ident is not None:
                    new: dict[str, Any] = {ident[0]: copy.deepcopy(ident[1])}
                    items.append(new)
                    by_identity[ident] = len(items) - 1
                    return new
                while len(items) < i:
                    items.append({})
                if len(items) == i:
                    items.append({})
                slot: dict[str, Any] = items[i]
                return slot

            self.obj(model, s, t if isinstance(t, dict) else None, make_item, item_key)


def apply_cv_drafts(
    source: Mapping[str, Any], translation: Any, drafts: Mapping[str, str]
) -> tuple[dict[str, Any], set[str], dict[str, str]]:
    """(new translation data, unit keys placed, problems by unit key). Inputs are not changed."""
    base: dict[str, Any] = copy.deepcopy(translation) if isinstance(translation, dict) else {}
    walk = _Walk(drafts)
    walk.obj(CV, source, base, lambda: base, "cv:")
    for key in walk.drafts:
        if key not in walk.placed and key not in walk.problems:
            walk.problems[key] = "no place for this unit in the translation file"
    return base, walk.placed, walk.problems
