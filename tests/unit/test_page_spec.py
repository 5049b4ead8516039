"""PageSpec's own __init__ (render/page_plan.py: faster than the frozen dataclass's) sets
exactly the fields the dataclass declares, with their defaults, in their order."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from bipub.diagnostics import DiagnosticError
from bipub.render.page_plan import LATER, PageSpec, Plan


def test_init_takes_the_fields_in_order_with_their_defaults() -> None:
    fields = dataclasses.fields(PageSpec)
    params = list(inspect.signature(PageSpec.__init__).parameters.values())[1:]
    assert [p.name for p in params] == [f.name for f in fields]
    for param, field in zip(params, fields, strict=True):
        expected = (
            inspect.Parameter.empty if field.default is dataclasses.MISSING else field.default
        )
        assert param.default == expected, field.name


def test_init_sets_every_field_and_stays_frozen() -> None:
    def context() -> dict[str, object]:
        return {}

    spec = PageSpec(("post", "k"), "ko", "/ko/blog/k/", "post.html", "T", "D", context)
    values = {f.name: getattr(spec, f.name) for f in dataclasses.fields(PageSpec)}
    assert values["og_type"] == "website" and values["made_of"] == () and values["doc"] is None
    assert dataclasses.replace(spec, title="U") == PageSpec(
        ("post", "k"), "ko", "/ko/blog/k/", "post.html", "U", "D", context
    )
    assert spec.file == "ko/blog/k/index.html"
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.title = "V"  # type: ignore[misc]


def test_init_sets_each_field_given() -> None:
    fields = dataclasses.fields(PageSpec)
    given = {f.name: object() for f in fields}  # (a value of its own for each)
    spec = PageSpec(**given)  # type: ignore[arg-type]
    assert {f.name: spec.__dict__.get(f.name) for f in fields} == given


def test_later_makes_its_fields_at_the_first_read_and_equals_the_page_made_with_them() -> None:
    made: list[int] = []

    def context() -> dict[str, object]:
        return {}

    def fill() -> dict[str, object]:
        made.append(1)
        return {
            "title": "T",
            "description": "D",
            "context": context,
            "deps": None,
            "og_type": "article",
            "content_lang": "en",
        }

    own = {"canonical_path": "/en/blog/k/", "made_of": (("posts", "k"),), "image": "/k.png"}
    spec = PageSpec.later(("post", "k"), "ko", "/ko/blog/k/", "post.html", fill, **own)  # type: ignore[arg-type]
    # (what every page's pass reads is there; the rest not made yet)
    assert spec.file == "ko/blog/k/index.html" and spec.made_of == (("posts", "k"),)
    assert not LATER & spec.__dict__.keys() and not made
    assert spec.og_type == "article" and spec.deps is None and made == [1]
    assert spec.title == "T" and spec.content_lang == "en" and made == [1]  # (all at once)
    full = PageSpec(
        ("post", "k"),
        "ko",
        "/ko/blog/k/",
        "post.html",
        "T",
        "D",
        context,
        og_type="article",
        content_lang="en",
        **own,  # type: ignore[arg-type]
    )
    assert spec == full
    assert PageSpec.later(("post", "k"), "ko", "/ko/blog/k/", "post.html", fill, **own) == full  # type: ignore[arg-type]
    with pytest.raises(AttributeError):
        spec.nothing  # type: ignore[attr-defined]  # noqa: B018
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.title = "V"  # type: ignore[misc]


def test_the_later_fields_have_no_class_default() -> None:
    """(else a page made `later` would read the class's default, not make its own)"""
    assert not LATER & vars(PageSpec).keys()
    assert {f.name for f in dataclasses.fields(PageSpec)} >= LATER


def test_later_calls_its_maker_with_its_arguments_at_the_first_read_only() -> None:
    """(`fill` and its `args` kept apart, not a `functools.partial` per page: render/html.py
    `_entry_page` passes the renderer's `_page_later` with the language and the entry)"""
    calls: list[tuple[object, ...]] = []

    def fill(*args: object) -> dict[str, object]:
        calls.append(args)
        return {key: f"{key}-{args[0]}" for key in LATER}

    spec = PageSpec.later(("post", "k"), "ko", "/ko/blog/k/", "post.html", fill, ("ko", 7))
    assert not calls and spec.__dict__["_args"] == ("ko", 7)
    assert spec.title == "title-ko" and spec.deps == "deps-ko" and calls == [("ko", 7)]
    assert not {"_later", "_args"} & spec.__dict__.keys()
    assert spec.context == "context-ko" and calls == [("ko", 7)]  # (made once, all at once)


def _page(path: str, route: str, lang: str = "ko") -> PageSpec:
    return PageSpec((route,), lang, path, "page.html", "T", "D", dict)


def _said(plan: Plan, pages: list[PageSpec], one_by_one: bool) -> tuple[str, object]:
    """The clash `Plan.extend` (or `add`, page by page) says, and the plan's pages after."""
    with pytest.raises(DiagnosticError) as raised:
        if one_by_one:
            for spec in pages:
                plan.add(spec)
        else:
            plan.extend("ko", pages)
    return str(raised.value.diagnostics[0]), (dict(plan.paths), plan.pages, plan.routes)


@pytest.mark.parametrize(
    "pages",
    [
        # one of them at the path of a page planned before
        [_page("/ko/b/", "b"), _page("/ko/a/", "x"), _page("/ko/c/", "c")],
        # two of them at one path
        [_page("/ko/b/", "b"), _page("/ko/c/", "c"), _page("/ko/b/", "y")],
    ],
)
def test_extend_says_a_clash_as_adding_the_pages_one_by_one_says_it(
    pages: list[PageSpec],
) -> None:
    first = _page("/ko/a/", "a")
    plans = [Plan(), Plan()]
    for plan in plans:
        plan.add(first)
    assert _said(plans[0], pages, one_by_one=False) == _said(plans[1], pages, one_by_one=True)
    assert plans[0].paths["/ko/a/"] is first


def test_extend_adds_the_pages_as_adding_them_one_by_one() -> None:
    pages = [_page(f"/ko/{n}/", str(n)) for n in range(5)]
    others = [_page(f"/en/{n}/", str(n), "en") for n in range(3)]
    plans = [Plan(), Plan()]
    plans[0].extend("ko", pages)
    plans[0].extend("en", others)
    for spec in [*pages, *others]:
        plans[1].add(spec)
    ours, theirs = plans
    assert (ours.paths, ours.pages, ours.routes) == (theirs.paths, theirs.pages, theirs.routes)
    assert list(plans[0].paths) == list(plans[1].paths)
