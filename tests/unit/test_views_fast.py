"""Small per-page steps made directly instead of through a generic helper: the same results."""

from __future__ import annotations

import json
from dataclasses import fields, replace

from markupsafe import Markup

from bipub.render.markdown import Heading, RenderedMarkdown
from bipub.render.page_views import with_body
from bipub.render.templates import json_script
from bipub.render.views import PostView


def test_with_body_is_replace() -> None:
    # every field a value of its own: a field with_body dropped or mixed up would show
    shell = PostView(**{f.name: f"<{f.name}>" for f in fields(PostView)})  # type: ignore[arg-type]
    rendered = RenderedMarkdown("<p>body &amp;</p>", (Heading(2, "h-a", "A"),), "body")
    made = with_body(shell, rendered)
    assert made == replace(shell, html=Markup(rendered.html), headings=rendered.headings)
    assert type(made.html) is Markup


def test_json_script_is_dumps() -> None:
    value = {"a": "<b>&\u2028</b>", "n": [1, 2.5, None, True], "k": object(), "한": "글"}
    text = json.dumps(value, ensure_ascii=False, sort_keys=False, default=str)
    for ch, rep in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(ch, rep)
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    assert json_script(value) == Markup(text)
