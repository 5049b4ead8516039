"""The templates' joined output (render/template_fast.py `JoinedOutputGenerator`, on the verified
Jinja only): a page's output nodes yield their pieces joined, and every page, every error and
its template line are what Jinja's own code generator gives."""

from __future__ import annotations

from pathlib import Path

import jinja2
import jinja2.compiler
import pytest
from babel.support import NullTranslations

from bipub.render import template_fast, templates

PAGES = {
    "base.html": (
        "<html>{% block head %}<title>{{ title }} · {{ site }}</title>{% endblock %}\n"
        "<body class=\"{% block cls %}page{% endblock %}\">{{ _('Skip') }} {{ x|upper }}\n"
        "{% block content %}{% endblock %}\n"
        "{% include 'part.html' %}</body></html>\n"
    ),
    "part.html": "<footer>{{ site }} & {{ x }}{% if x %} <b>{{ x }}</b>{% endif %}</footer>",
    "page.html": (
        "{% extends 'base.html' %}\n"
        "{% macro m(a) %}[{{ a }}|{{ a }}]{% endmacro %}\n"
        "{% macro c(a) %}({{ a }}{{ caller() }}){% endmacro %}\n"
        '{% block head %}{{ super() }}<meta content="{{ title }}">{% endblock %}\n'
        "{% block content %}\n"
        "{% set box %}<i>{{ x }}</i>{{ title }}{% endset %}\n"
        "<h1>{{ title }}</h1>{{ box }} {{ m(x) }}\n"
        '{% for item in items %}<li class="{{ loop.index }}">{{ item }} {{ loop.last }}</li>\n'
        "{% else %}<p>none {{ title }}</p>{% endfor %}\n"
        "{% call c(title) %}{{ x }}<u>{{ title }}</u>{% endcall %}\n"
        "{% filter upper %}{{ x }} and {{ title }}{% endfilter %} {{ 'raw'|safe }}{{ n }}\n"
        "<p>{{ x }}{{ n + 1 }}{{ title }}</p>\n"
        "{% endblock %}\n"
    ),
    "broken.html": (
        "{% extends 'base.html' %}\n"
        "{% block content %}\n"
        "<p>{{ title }}</p>\n"
        "<p>{{ x }} then {{ 1 // n }} and {{ title }}</p>\n"
        "{% endblock %}\n"
    ),
}

VALUES = [
    {"title": "T <&>", "site": "S", "x": "a'\"b", "items": ["<1>", 2, None], "n": 3},
    {"title": "", "site": "", "x": "", "items": [], "n": 0},
]


def _environments(folder: Path) -> tuple[jinja2.Environment, jinja2.Environment]:
    for name, text in PAGES.items():
        (folder / name).write_text(text, encoding="utf-8")
    envs = []
    for generator in (template_fast.JoinedOutputGenerator, jinja2.compiler.CodeGenerator):
        env = templates.make_environment(None, "en", NullTranslations())
        env.loader = jinja2.FileSystemLoader(str(folder))
        env.code_generator_class = generator
        envs.append(env)
    return envs[0], envs[1]


def test_the_site_environment_joins_its_output_on_the_verified_jinja() -> None:
    assert templates.FAST_TEMPLATES, "the locked Jinja2 is the verified one"
    env = templates.make_environment(None, "en", NullTranslations())
    assert env.code_generator_class is template_fast.JoinedOutputGenerator
    code = env.compile(PAGES["page.html"], "page.html", raw=True)
    assert "yield ''.join((" in code


def test_pages_are_jinjas_own(tmp_path: Path) -> None:
    joined, stock = _environments(tmp_path)
    for values in VALUES:
        for name in ("page.html", "base.html", "part.html"):
            page = joined.get_template(name).render(values)
            assert page == stock.get_template(name).render(values), (name, values)
            assert template_fast.render_released(joined.get_template(name), dict(values)) == page


def test_an_error_names_the_same_template_line(tmp_path: Path) -> None:
    joined, stock = _environments(tmp_path)
    found = []
    for env in (joined, stock):
        with pytest.raises(ZeroDivisionError) as caught:
            env.get_template("broken.html").render(VALUES[1])
        found.append(templates.template_error(caught.value))
    assert found[0] == found[1]
    assert found[0].line == 4 and found[0].file is not None
    assert found[0].file.endswith("broken.html")


def test_compiled_templates_are_kept_apart_by_generator(tmp_path: Path) -> None:
    joined, stock = _environments(tmp_path)
    assert templates.compile_key(joined) != templates.compile_key(stock)
