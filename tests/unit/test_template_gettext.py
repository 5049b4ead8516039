"""`_()` remembers its result for a plain string (and plain int/str variables): the output is what Jinja's own newstyle gettext
gives, for every string of the theme's catalogs, with and without autoescaping and variables."""

from __future__ import annotations

import jinja2
import pytest
from babel.support import Translations

from bipub.diagnostics import Collector
from bipub.render.catalogs import load_translations
from bipub.render.templates import THEME_DIR, make_environment

ODD = ["", "a<b & c", "100%%", "%(n)s", "%(name)s & <i>%(n)d</i>", "no such message"]


def _translations(lang: str) -> Translations:
    dirs = [(THEME_DIR / "locales", "theme")]
    return load_translations(lang, dirs, Collector(), warn_untranslated=False)  # type: ignore[return-value]


def _plain(translations: Translations) -> jinja2.Environment:
    env = jinja2.Environment(autoescape=True, extensions=["jinja2.ext.i18n"])
    env.install_gettext_translations(translations, newstyle=True)  # type: ignore[attr-defined]
    return env


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_memoized_gettext_renders_as_jinja_does(lang: str) -> None:
    translations = _translations(lang)
    korean = _translations("ko")
    messages = [m for m in getattr(korean, "_catalog", {}) if isinstance(m, str) and m]
    assert messages, "the theme has a Korean catalog"
    calls = [
        "{{ _(m) }}",
        "{{ _(m, n=3, name='<x>') }}",
        # remembered by value: again, and with values equal to those but of other types
        "{{ _(m, n=1, name='<x>') }}",
        "{{ _(m, n=true, name='<x>'|safe) }}",
        "{{ _(m, n=1, name='<x>') }}",
        "{{ _(m, n=1.0, name='<x>') }}",
        # one variable (remembered by its name and value): of each type, and the other name
        "{{ _(m, n=1) }}",
        "{{ _(m, n='1') }}",
        "{{ _(m, n=true) }}",
        "{{ _(m, n=1) }}",
        "{{ _(m, name='<x>') }}",
        "{{ _(m, name='<x>'|safe) }}",
        "{{ _(m, name=1) }}",
        "{{ _(m) }}",
        "{{ gettext(m) }}",
        "{% autoescape false %}{{ _(m) }}{% endautoescape %}",
        "{% autoescape false %}{{ _(m, n=4, name='<y>') }}{% endautoescape %}",
        "{{ _(m) ~ '<' }}",
        "{% autoescape false %}{{ _(m) ~ '<' }}{% endautoescape %}",
    ]
    for order in (calls, calls[::-1]):
        ours = make_environment(None, lang, translations)
        theirs = _plain(translations)
        # each call compiled once per environment (what `_` remembers is the environment's, not
        # a template's: every message renders through the same templates, in turn)
        compiled = {s: (ours.from_string(s), theirs.from_string(s)) for s in order}
        for message in [*messages, *ODD]:
            for source in order:  # in turn, on the same environments: what is remembered stays
                mine, jinja = compiled[source]
                assert _outcome(mine, message) == _outcome(jinja, message), (message, source)


def _outcome(template: jinja2.Template, message: str) -> str | type[Exception]:
    try:
        return template.render(m=message)
    except (KeyError, TypeError, ValueError) as exc:
        return type(exc)
