"""The short CV's selection (render/pdf/short.py) on random CVs, marks and section lists:
a marked item is always shown unless an item holding it is marked `short: false`; an item marked
`short: false` never is; a listed section keeps every item not marked false; items keep their
order; the header is always there."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bipub.model.cv import CV
from bipub.render.pdf.short import short_cv
from bipub.render.views import View, cv_view

MARK = st.sampled_from([None, None, True, False])


@st.composite
def cvs(draw: st.DrawFn) -> dict[str, Any]:
    counter = iter(range(10_000))

    def item(**fields: Any) -> dict[str, Any]:
        mark = draw(MARK)
        out = {**fields}
        if mark is not None:
            out["short"] = mark
        return out

    def links() -> list[dict[str, Any]]:
        n = draw(st.integers(0, 2))
        return [item(label=f"L{next(counter)}", url=f"https://e.org/{i}") for i in range(n)]

    experience = [
        item(
            company=f"C{next(counter)}",
            details=[item(title=f"D{next(counter)}") for _ in range(draw(st.integers(0, 3)))],
        )
        for _ in range(draw(st.integers(0, 4)))
    ]
    projects = [
        item(name=f"P{next(counter)}", links=links()) for _ in range(draw(st.integers(0, 3)))
    ]
    stats = [item(label=f"S{next(counter)}", url=f"u{i}") for i in range(draw(st.integers(0, 3)))]
    spotlight = {"project": "X", "entries": [item(text=f"E{next(counter)}") for _ in range(2)]}
    data = {
        "name": "A",
        "title": "T",
        "summary": "Sum",
        "stats": stats,
        "experience": experience,
        "projects": projects,
        "openSourceSpotlight": spotlight,
        "contact": {"email": "a@e.org"},
    }
    CV.model_validate(data)
    return data


SECTIONS = st.lists(
    st.sampled_from(
        ["summary", "stats", "experience", "projects", "openSourceSpotlight", "experience.details"]
    ),
    unique=True,
)


def _names(value: Any, ancestors_false: bool = False) -> list[tuple[str, Any, bool]]:
    """(name, mark, under a short: false item) of every named item, depth first, in order."""
    out: list[tuple[str, Any, bool]] = []
    if isinstance(value, dict | View):
        fields = value.as_dict() if isinstance(value, View) else value
        name = next(
            (fields[k] for k in ("company", "title", "name", "label", "text") if fields.get(k)),
            None,
        )
        mark = fields.get("short")
        if name is not None and name not in ("A", "T"):
            out.append((str(name), mark, ancestors_false))
        below = ancestors_false or mark is False
        for k, v in fields.items():
            if k not in ("company", "title", "name", "label", "text"):
                out.extend(_names(v, below))
    elif isinstance(value, list):
        for v in value:
            out.extend(_names(v, ancestors_false))
    return out


@settings(max_examples=300, deadline=None)
@given(cvs(), SECTIONS)
def test_short_cv_invariants(data: dict[str, Any], sections: list[str]) -> None:
    full = cv_view(CV, data, set(), "en")
    brief = short_cv(full, sections)
    before = _names(full)  # (a view's fields are in the model's order)
    after = [name for name, _, _ in _names(brief)]
    assert brief.name == "A" and brief.title == "T" and brief.contact.email == "a@e.org"
    for name, mark, under_false in before:
        if mark is True and not under_false:
            assert name in after, (name, sections)
        if mark is False or under_false:
            assert name not in after, (name, sections)
    order = [name for name, _, _ in before]
    assert after == [name for name in order if name in after]  # a subsequence: order kept
    for section, field in (("experience", "company"), ("projects", "name"), ("stats", "label")):
        if section in sections:
            kept = [x[field] for x in data[section] if x.get("short") is not False]
            assert [x[field] for x in brief[section]] == kept
    assert (brief.summary == "Sum") == ("summary" in sections)
