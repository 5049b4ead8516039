"""The short CV PDF, cv-<lang>-short.pdf (issue 18): what a recruiter reads in two pages.

It is the CV's print template (templates/pdf/cv.html) given a CV view cut down by these rules:

- the header (name, title, contact) is always in it;
- a section listed in bipub.yaml `pdf.short.sections` is shown in full, but for its items
  marked `short: false`;
- an item marked `short: true` (any list item of cv.yaml: a job, a case study, a stat, a
  link…) is shown wherever it is, with the item and section that hold it;
- inside a shown item, its own lists are shown too (links, spotlight entries), except the case
  studies (`experience.details`, `openSource.contributions`), shown only when listed or marked:
  they are what makes a full CV long;
- inside an item shown only because it holds a marked item, only the marked items are shown;
- a section that is no list of items (summary, certifications, languages) is shown when listed.

The view keeps the full CV's marks (untranslated text, machine drafts): the cut works on the
view, so every value keeps its own. Plain and pure: no WeasyPrint, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from bipub.model.cv import CV, SHORT_CASE_STUDIES, SHORT_HEADER
from bipub.model.fields import field_kind
from bipub.render.views import ForeignText, MachineText, View


def has_marks(data: Any) -> bool:
    """Whether CV data (as loaded) marks any item `short: true`."""
    if isinstance(data, dict):
        return data.get("short") is True or any(has_marks(v) for v in data.values())
    if isinstance(data, list):
        return any(has_marks(v) for v in data)
    return False


def short_cv(cv: View, sections: Iterable[str]) -> View:
    """The short edition of a CV view (`render.views.cv_view`): see the module's rules."""
    listed = set(sections)
    out = View()
    for name in CV.model_fields:
        kind, inner = field_kind(CV, name)
        value = cv.get(name)
        if name in SHORT_HEADER:
            out[name] = value
        elif kind == "model_list" and inner is not None:
            out[name] = _items(inner, value or [], name in listed, name, listed)[0]
        elif kind == "model" and inner is not None:
            kept, marked = _obj(inner, value, name in listed, name, listed)
            out[name] = kept if value is not None and (name in listed or marked) else None
        else:
            empty: Any = [] if kind.endswith("_list") else None
            out[name] = value if name in listed else empty
    return out


def _items(
    model: type[BaseModel], items: list[View], full: bool, path: str, listed: set[str]
) -> tuple[list[View], bool]:
    """The shown items of a list (`full`: the list is shown in full) and whether any is
    marked `short: true` or holds one that is."""
    out: list[View] = []
    marked = False
    for item in items:
        mark = item.get("short")
        if mark is False:
            continue
        chosen = mark is True or full
        kept, inside = _obj(model, item, chosen, path, listed)
        if kept is not None and (chosen or inside):
            out.append(kept)
        marked = marked or mark is True or inside
    return out, marked


def _obj(
    model: type[BaseModel], view: View | None, full: bool, path: str, listed: set[str]
) -> tuple[View | None, bool]:
    """One shown object: its fields, its lists cut (in full when `full`, case studies aside)."""
    if view is None:
        return None, False
    out = View()
    marked = False
    for name in model.model_fields:
        kind, inner = field_kind(model, name)
        value = view.get(name)
        if kind == "model_list" and inner is not None:
            sub = f"{path}.{name}"
            in_full = sub in listed if sub in SHORT_CASE_STUDIES else full
            out[name], inside = _items(inner, value or [], in_full, sub, listed)
        elif kind == "model" and inner is not None:
            out[name], inside = _obj(inner, value, full, f"{path}.{name}", listed)
        else:
            out[name], inside = value, False
        marked = marked or inside
    return out, marked


def count_marked(value: Any) -> tuple[int, int]:
    """(untranslated, machine-draft) texts in a view: what the short edition's notices count."""
    if isinstance(value, ForeignText):
        return 1, 0
    if isinstance(value, MachineText):
        return 0, 1
    children: Iterable[Any] = ()
    if isinstance(value, View):
        children = value.as_dict().values()
    elif isinstance(value, list):
        children = value
    totals = [count_marked(v) for v in children]
    return sum(t[0] for t in totals), sum(t[1] for t in totals)
