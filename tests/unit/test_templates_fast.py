"""The templates' fast escaping (render/templates.py `fast_escape`, on the Jinja and MarkupSafe
versions of render/upstream.py): the same value and type as MarkupSafe's `escape` for every kind
of value, and the same site as stock escaping."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import jinja2
import pytest
from babel.support import NullTranslations
from markupsafe import Markup, escape

from bipub.render import template_fast, templates, upstream
from bipub.render.views import ForeignText, MachineText
from tests.conftest import PROJECTS, tree_snapshot


class _Html:
    def __html__(self) -> str:
        return "<b>as is</b>"


class _Sub(str):
    pass


VALUES: list[object] = [
    "",
    "plain",
    "<a href=\"x\">'&'</a>",
    "한국어 & 영어",
    Markup("<i>kept</i>"),
    Markup(""),
    ForeignText("<x>", "ko"),
    MachineText("a & b"),
    _Sub("<sub>"),
    _Html(),
    0,
    12,
    1.5,
    True,
    None,
    ["<list>"],
]


def test_fast_escape_is_markupsafe_escape() -> None:
    assert templates.FAST_TEMPLATES, "the locked Jinja2 and MarkupSafe are the verified ones"
    for value in VALUES:
        ours, theirs = template_fast.fast_escape(value), escape(value)
        assert type(ours) is type(theirs) is Markup, value
        assert str(ours) == str(theirs), value


def test_output_escape_is_the_text_of_markupsafe_escape() -> None:
    for value in VALUES:
        ours, theirs = template_fast.output_escape(value), escape(value)
        assert isinstance(ours, str) and str(ours) == str(theirs), value
    plain = "nothing to escape"
    assert template_fast.output_escape(plain) is plain  # (no copy)


def test_an_int_is_printed_as_its_str() -> None:
    """A page number or a count: its digits as a plain str (no Markup made), as escaped."""
    for value in (0, 7, -12, 10**40):
        printed = template_fast.output_escape(value)
        assert type(printed) is str and printed == str(escape(value)) == str(value)
    for other in (True, 1.5):  # (a bool or a float: MarkupSafe's own escape)
        assert type(template_fast.output_escape(other)) is Markup


# every way a template's output is used again: blocks set, filtered, called, joined
OUTPUT_TEMPLATE = """\
{%- set x %}{{ v }}<b>{% endset -%}
{%- macro m(a) %}[{{ a }}]{% endmacro -%}
{%- macro c(a) %}({{ a }}{{ caller() }}){% endmacro -%}
{{ x }}|{{ x|upper }}|{{ x|length }}|{% filter upper %}{{ v }}{% endfilter %}|{{ m(v) }}|
{%- call c(x) %}{{ v }}{% endcall %}|{{ (x ~ v) }}|{{ v ~ x }}|{{ [x, v]|join(',') }}|
{%- set y = m(v) ~ '&' %}{{ y }}|{{ '%s-%s'|format(v, x) }}|{{ x is string }}|{{ v|safe }}"""


def test_printed_values_are_used_again_as_with_stock_escaping() -> None:
    env = templates.make_environment(None, "en", _null())
    stock = templates.make_environment(None, "en", _null())
    stock.template_class = jinja2.Template
    for v in ("<a & 'b'>", Markup("<i>safe</i>"), 12, None):
        ours = env.from_string(OUTPUT_TEMPLATE).render(v=v)
        theirs = stock.from_string(OUTPUT_TEMPLATE).render(v=v)
        assert ours == theirs, v
    assert env.from_string("{% set x %}{{ v }}{% endset %}{{ x }}").render(v="<") == "&lt;"


def test_an_undefined_value_fails_as_it_does_with_escape() -> None:
    undefined = jinja2.StrictUndefined(name="nothing")
    with pytest.raises(jinja2.UndefinedError):
        escape(undefined)
    with pytest.raises(jinja2.UndefinedError):
        template_fast.fast_escape(undefined)
    with pytest.raises(jinja2.UndefinedError):
        template_fast.output_escape(undefined)


def test_templates_escape_with_it_on_the_verified_versions() -> None:
    env = templates.make_environment(None, "en", _null())
    template = env.from_string("{{ x }}")
    assert type(template) is templates.FastEscapeTemplate
    assert template.root_render_func.__globals__["escape"] is template_fast.output_escape
    assert template.render(x="<&>") == "&lt;&amp;&gt;"


def test_an_unverified_jinja_turns_it_off_and_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    versions = {**upstream.installed(), "Jinja2": "9.0.0"}
    monkeypatch.setattr(upstream, "installed", lambda: versions)
    assert not upstream.fast_templates()
    notes = upstream.notes()
    assert len(notes) == 1 and "Jinja2 9.0.0" in notes[0] and "template escaping" in notes[0]


def test_a_site_is_the_same_with_stock_escaping(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bipub.pipeline import build

    trees = []
    for fast in (True, False):
        monkeypatch.setattr(templates, "FAST_TEMPLATES", fast)
        project = tmp_path / str(fast) / "minimal"
        shutil.copytree(PROJECTS / "minimal", project)
        build(project, only={"html"})
        trees.append(tree_snapshot(project / "site"))
    assert any(name.endswith(".html") for name in trees[0])
    assert trees[0] == trees[1]


def _null() -> NullTranslations:
    return NullTranslations()


class _CallableWithContext:
    @jinja2.pass_context
    def __call__(self, context: jinja2.runtime.Context, name: str) -> str:
        return f"{name}={context.get(name)}"


class _Methods:
    def meth(self, x: int) -> str:
        return f"m{x}"

    @jinja2.pass_eval_context
    def evmeth(self, eval_ctx: jinja2.nodes.EvalContext, x: int) -> str:
        return f"e{x}:{eval_ctx.autoescape}"

    @jinja2.pass_context
    def cmeth(self, context: jinja2.runtime.Context) -> str:
        return f"c:{context.get('v')}"


def _stops() -> str:
    raise StopIteration


CALLS_TEMPLATE = """\
{%- macro m(x, y=2) %}[{{ x }}{{ y }}]{% endmacro -%}
{%- macro c() %}({{ caller() }}){% endmacro -%}
{{ plain(1) }} {{ ev('a') }} {{ ctx('v') }} {{ envf() }} {{ obj('v') }} {{ m(1) }}
{% for i in [1, 2] %}{% set v = i * 10 %}{{ ctx('v') }} {{ plain(i) }} {{ m(i, y=i) }} {% endfor %}
{% call c() %}in{{ m(5) }}{% endcall %} {{ _('Copy') }} {{ _('%(n)d min read', n=3) }} {{ stops() is undefined }}
{% set d = {} %}{{ d.update({'k': 1}) }}{{ d.k }} {{ 'abc'.startswith('a') }} {{ h.meth(1) }}
{% for i in [3] %}{{ h.evmeth(i) }} {{ h.cmeth() }} {{ d.get('k') }}{% endfor %}
{% block b %}{% set v = 'block' %}{{ ctx('v') }}{{ plain('b') }}{% endblock %}"""


def test_fast_calls_are_the_stock_calls() -> None:
    """FastCallContext.call: plain functions, `pass_eval_context` ones and macros in fewer steps,
    the others as stock Jinja does; the same text everywhere, in loops and blocks too."""
    outputs = []
    for context_class in (templates.FastCallContext, jinja2.runtime.Context):
        env = templates.make_environment(None, "en", _null())
        env.context_class = context_class
        env.globals.update(
            plain=lambda x: f"p{x}",
            ev=jinja2.pass_eval_context(lambda e, x: f"{x}:{e.autoescape}"),
            ctx=jinja2.pass_context(lambda c, name: f"{name}={c.get(name)}"),
            envf=jinja2.pass_environment(lambda e: type(e).__name__),
            obj=_CallableWithContext(),
            stops=_stops,
            h=_Methods(),
        )
        template = env.from_string(CALLS_TEMPLATE)
        assert type(template.new_context({})) is context_class
        outputs.append(template.render(v="top"))
    assert outputs[0] == outputs[1]
    assert "v=10" in outputs[0] and "v=block" in outputs[0] and "[5" in outputs[0]
    assert "None1 True m1" in outputs[0] and "e3:True c:top 1" in outputs[0]


def test_the_theme_renders_with_the_fast_context() -> None:
    env = templates.make_environment(None, "en", _null())
    assert env.context_class is templates.FastCallContext


# --- what a page makes is freed by reference counting (render/templates.py render_released)

_PARTIAL = """\
{%- set suffix = '!' -%}
{%- macro shout(x) %}{{ _('Copy') }}:{{ x }}{{ suffix }}:{{ probe.name }}{% endmacro -%}
{%- macro plain(x) %}<{{ x }}>{% endmacro -%}"""
_PAGE = """\
{%- from "partials/p.html" import shout with context -%}
{%- from "partials/q.html" import plain -%}
{%- macro local(x) %}{{ _('Copy') }}{{ x }}{% endmacro -%}
{{ shout(probe.name) }} {{ plain(probe.name) }} {{ local(1) }}
{%- include "partials/inc.html" %}"""
_INCLUDED = "{% macro inner() %}{{ _('Copy') }}{% endmacro %}[{{ inner() }}{{ probe.name }}]"


class _Probe:
    def __init__(self, name: str) -> None:
        self.name = name


def _probe_templates(root: Path) -> Path:
    (root / "partials").mkdir(parents=True)
    (root / "page.html").write_text(_PAGE)
    (root / "partials" / "p.html").write_text(_PARTIAL)
    (root / "partials" / "q.html").write_text(
        "{% macro plain(x) %}<{{ _('Copy') }}{{ x }}>{% endmacro %}"
    )
    (root / "partials" / "inc.html").write_text(_INCLUDED)
    return root


def test_a_page_is_freed_when_its_html_is_joined(tmp_path: Path) -> None:
    """The contexts of a page and of what it imports with context hold macros that hold them
    (reference cycles): released, nothing of the page waits for the garbage collector, and
    every page renders as the stock render does (a module imported without context is Jinja's
    for every page: still whole on the second page)."""
    import gc
    import weakref

    root = _probe_templates(tmp_path / "templates")
    env = templates.make_environment(root, "en", _null())
    stock = templates.make_environment(root, "en", _null())
    stock.template_class = jinja2.Template
    stock.context_class = jinja2.runtime.Context
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for name in ("first", "second"):
            probe = _Probe(name)
            gone = weakref.ref(probe)
            html = template_fast.render_released(env.get_template("page.html"), {"probe": probe})
            # (stock: another probe of that name, left in cycles until the next collection)
            assert html == stock.get_template("page.html").render(probe=_Probe(name))
            assert f"Copy:{name}!:{name} <Copy{name}> Copy1[Copy{name}]" == html
            del probe
            assert gone() is None, "the page's variables wait for the garbage collector"
    finally:
        if was_enabled:
            gc.enable()


def test_stock_templates_are_rendered_as_they_are(tmp_path: Path) -> None:
    """On an unverified Jinja (stock Template), `render_released` is `render`: nothing recorded,
    nothing cleared."""
    root = _probe_templates(tmp_path / "templates")
    env = templates.make_environment(root, "en", _null())
    env.template_class = jinja2.Template
    template = env.get_template("page.html")
    assert type(template) is jinja2.Template
    assert template_fast.render_released(template, {"probe": _Probe("x")}) == template.render(
        probe=_Probe("x")
    )
    assert env.page_contexts is None  # type: ignore[attr-defined]


def test_a_built_site_leaves_no_template_context_to_the_collector(tmp_path: Path) -> None:
    """The theme's pages (base.html imports site_nav with context, post.html the notices and the
    series box): no context of a page is left for the garbage collector."""
    import gc

    from bipub.pipeline import build

    project = tmp_path / "side_by_side"
    shutil.copytree(PROJECTS / "side_by_side", project)
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        build(project, only={"html"})
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        # (the modules imported without context are Jinja's, one per template and build)
        contexts = [
            o.name
            for o in gc.garbage
            if isinstance(o, jinja2.runtime.Context) and "page" in o.parent
        ]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()
    assert any(p.name == "both" for p in (project / "site").rglob("*") if p.is_dir())
    assert contexts == []


def test_macros_are_called_without_the_stock_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """On Jinja 3.1 a macro's `__call__` wants the evaluation context: FastCallContext passes
    it itself (the stock `Context.call` is not asked), with the stock text."""
    assert template_fast._MACRO_PASS is template_fast._PASS_EVAL_CONTEXT
    source = "{% macro m(x, y=2) %}[{{ x }}{{ y }}]{% endmacro %}{{ m(1) }}{{ m('<', y=3) }}"
    stock = jinja2.Environment(autoescape=True).from_string(source).render()
    asked: list[object] = []
    original = jinja2.runtime.Context.call

    def counted(self: Any, obj: Any, *args: Any, **kwargs: Any) -> Any:
        asked.append(obj)
        return original(self, obj, *args, **kwargs)

    monkeypatch.setattr(jinja2.runtime.Context, "call", counted)
    env = templates.make_environment(None, "en", _null())
    assert env.from_string(source).render() == stock == "[12][&lt;3]"
    assert asked == []


def test_imports_without_context_are_jinjas(tmp_path: Path) -> None:
    """`_get_default_module`: the module Jinja keeps for every page (the same object each
    time), or one of its own when the importing template has globals the partial has not, as
    stock Jinja decides."""
    root = tmp_path / "templates"
    (root / "partials").mkdir(parents=True)
    (root / "partials" / "m.html").write_text("{% macro m() %}{{ extra is defined }}{% endmacro %}")
    (root / "page.html").write_text('{% from "partials/m.html" import m %}{{ m() }}')
    outputs = []
    for fast in (True, False):
        env = templates.make_environment(root, "en", _null())
        if not fast:
            env.template_class = jinja2.Template
            env.context_class = jinja2.runtime.Context
        partial = env.get_template("partials/m.html")
        page = env.get_template("page.html")
        first = page.render()
        assert page.render() == first
        assert partial.module is partial.module
        # (Jinja adds these globals to the cached page template: the partial has not them)
        assert env.get_template("page.html", globals={"extra": 1}) is page
        outputs.append((first, page.render()))
    assert outputs[0] == outputs[1] == ("False", "True")


def test_flat_globals_are_the_chainmap() -> None:
    from collections import ChainMap

    chained = ChainMap({"b": 2, "z": 0}, {"a": 1, "b": 1, "c": 3})
    flat = template_fast._flat(chained)
    assert list(flat.items()) == list(dict(chained).items())
    plain = {"x": 1}
    assert template_fast._flat(plain) is plain


def test_the_site_view_reads_as_a_view() -> None:
    from bipub.render.views import AttrView, View

    fields = {"title": "T", "get": "a field", "items": [1], "nav_pages": []}
    view, fast = View(**fields), AttrView(**fields)
    for name in ("title", "items", "nav_pages", "get", "as_dict"):
        ours, theirs = getattr(fast, name), getattr(view, name)
        assert ours == theirs or (callable(ours) and callable(theirs)), name
    assert fast.get("get") == view.get("get") == "a field"  # (`get` stays the method)
    assert fast["title"] == "T" and "title" in fast and "nothing" not in fast
    assert repr(fast) == repr(view)
    fast["title"] = "U"
    assert fast.title == fast["title"] == "U"
    with pytest.raises(AttributeError):
        _ = fast.nothing
    env = templates.make_environment(None, "en", _null())
    template = env.from_string(
        "{{ s.title }} {{ s['items'] }} {{ s.get('get') }} {{ s.nav_pages }}"
    )
    assert template.render(s=fast) == template.render(s=View(**{**fields, "title": "U"}))


def _collector_while_rendering(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast: bool
) -> set[bool]:
    from bipub.pipeline import build
    from bipub.render.page_views import PageViews

    monkeypatch.setattr(templates, "FAST_TEMPLATES", fast)
    seen: set[bool] = set()
    original = PageViews.render_page

    def render_page(self: PageViews, *args: Any, **kwargs: Any) -> str | None:
        import gc

        seen.add(gc.isenabled())
        return original(self, *args, **kwargs)

    monkeypatch.setattr(PageViews, "render_page", render_page)
    monkeypatch.setenv("BIPUB_WORKERS", "1")
    project = tmp_path / "side_by_side"
    shutil.copytree(PROJECTS / "side_by_side", project)
    build(project, only={"html"})
    return seen


def test_no_collection_walks_the_site_while_released_pages_render(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages that leave nothing in cycles render with the cyclic collector off (workers.py
    `_collected_by_refcount`: each collection of a big site walked ~100,000 objects); with
    stock Jinja, whose pages are cycles, it runs as usual."""
    import gc

    assert gc.isenabled()
    assert _collector_while_rendering(tmp_path / "fast", monkeypatch, True) == {False}
    assert gc.isenabled()  # (on again after the pages)
    assert _collector_while_rendering(tmp_path / "stock", monkeypatch, False) == {True}


def test_no_page_leaves_cyclic_garbage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What `_collected_by_refcount` relies on: every page of the side-by-side project (posts,
    side-by-side pages, listings, tags; Markdown, views and templates) is freed by reference
    counting alone, nothing of it left in cycles for a collector that is off meanwhile."""
    import gc

    from bipub.pipeline import build
    from bipub.render.page_views import PageViews

    left: dict[str, list[str]] = {}
    original = PageViews.render_page

    def render_page(self: PageViews, plan: Any, spec: Any, *args: Any) -> str | None:
        gc.collect()
        html = original(self, plan, spec, *args)
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            kinds = {type(o).__module__ + "." + type(o).__name__ for o in gc.garbage}
            # (not a page's: importlib.metadata's cached lookups, made while pairing, in
            # cycles of their own: freed whenever its caches drop them)
            if kinds and not any(k.startswith("importlib.metadata") for k in kinds):
                left[spec.path] = sorted(kinds)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
        return html

    monkeypatch.setenv("BIPUB_WORKERS", "1")
    monkeypatch.setattr(PageViews, "render_page", render_page)
    project = tmp_path / "side_by_side"
    shutil.copytree(PROJECTS / "side_by_side", project)
    build(project, only={"html"})
    assert left == {}
