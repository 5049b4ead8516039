"""PageSpec's own __init__ (render/page_plan.py: faster than the frozen dataclass's) sets
exactly the fields the dataclass declares, with their defaults, in their order."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from bipub.render.page_plan import LATER, PageSpec


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
