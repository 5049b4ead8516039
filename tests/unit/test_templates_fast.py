"""The templates' fast escaping (render/templates.py `fast_escape`, on the Jinja and MarkupSafe
versions of render/upstream.py): the same value and type as MarkupSafe's `escape` for every kind
of value, and the same site as stock escaping."""

from __future__ import annotations

import shutil
from pathlib import Path

import jinja2
import pytest
from babel.support import NullTranslations
from markupsafe import Markup, escape

from bipub.render import templates, upstream
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
        ours, theirs = templates.fast_escape(value), escape(value)
        assert type(ours) is type(theirs) is Markup, value
        assert str(ours) == str(theirs), value


def test_an_undefined_value_fails_as_it_does_with_escape() -> None:
    undefined = jinja2.StrictUndefined(name="nothing")
    with pytest.raises(jinja2.UndefinedError):
        escape(undefined)
    with pytest.raises(jinja2.UndefinedError):
        templates.fast_escape(undefined)


def test_templates_escape_with_it_on_the_verified_versions() -> None:
    env = templates.make_environment(None, "en", _null())
    template = env.from_string("{{ x }}")
    assert type(template) is templates.FastEscapeTemplate
    assert template.root_render_func.__globals__["escape"] is templates.fast_escape
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
