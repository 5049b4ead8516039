"""Compiled templates (render/templates.py CompiledTemplates): the theme's kept in the user's
cache even for a --no-cache build (part of bipub, as its .pyc files are), the project's only
with the build cache on; a folder per `compile_key`; never a stale compiled template."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
import pytest
from babel.support import NullTranslations

from bipub.render.templates import bytecode_cache, compile_key, make_environment


def _env(
    templates: Path | None, folder: Path, *, project_too: bool, lang: str = "en"
) -> jinja2.Environment:
    env = make_environment(templates, lang, NullTranslations())
    env.bytecode_cache = bytecode_cache(folder, project_too=project_too)
    return env


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the templates Jinja compiles from source from now on."""
    names: list[str] = []
    original = jinja2.Environment.compile

    def counting(self: jinja2.Environment, source: Any, name: Any = None, *a: Any, **k: Any) -> Any:
        names.append(name)
        return original(self, source, name, *a, **k)

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    return names


def test_the_theme_is_compiled_once_even_without_the_build_cache(
    tmp_path: Path, compiled: list[str]
) -> None:
    folder = tmp_path / "jinja"
    _env(None, folder, project_too=False).get_template("post.html")
    assert "post.html" in compiled
    assert list(folder.glob("*/*.cache")), "the theme's compiled templates are kept"
    compiled.clear()
    again = _env(None, folder, project_too=False, lang="ko")  # another build, another language
    again.get_template("post.html")
    again.get_template("partials/feed_note.html")
    assert compiled == ["partials/feed_note.html"]  # post.html (and what it extends) loaded


def test_project_templates_are_kept_only_with_the_build_cache(
    tmp_path: Path, compiled: list[str]
) -> None:
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "mine.html").write_text("mine {{ 1 + 1 }}", encoding="utf-8")
    off, on = tmp_path / "off", tmp_path / "on"
    assert _env(templates, off, project_too=False).get_template("mine.html").render() == "mine 2"
    assert not list(off.glob("*/*.cache"))  # --no-cache: in memory only
    assert _env(templates, on, project_too=True).get_template("mine.html").render() == "mine 2"
    assert len(list(on.glob("*/*.cache"))) == 1
    # an edited template is compiled again, never loaded stale
    (templates / "mine.html").write_text("edited {{ 2 + 2 }}", encoding="utf-8")
    compiled.clear()
    for folder, too in ((off, False), (on, True)):
        assert _env(templates, folder, project_too=too).get_template("mine.html").render() == (
            "edited 4"
        )
    assert compiled == ["mine.html", "mine.html"]


def test_the_folder_follows_what_the_compiled_code_depends_on(tmp_path: Path) -> None:
    ko = make_environment(None, "ko", NullTranslations())
    en = make_environment(None, "en", NullTranslations())
    assert compile_key(ko) == compile_key(en)  # the languages share their compiled templates
    other = make_environment(None, "en", NullTranslations())
    other.trim_blocks = False
    assert compile_key(other) != compile_key(en)
    plain, called = (make_environment(None, "en", NullTranslations()) for _ in range(2))
    plain.filters["shout"] = lambda value: value
    called.filters["shout"] = jinja2.pass_context(lambda context, value: value)  # compiled in
    assert len({compile_key(plain), compile_key(called), compile_key(en)}) == 3
    old_style = make_environment(None, "en", NullTranslations())
    old_style.newstyle_gettext = False  # type: ignore[attr-defined]
    assert compile_key(old_style) != compile_key(en)


def test_an_unwritable_cache_folder_only_costs_compiling(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")
    env = _env(None, blocked / "jinja", project_too=True)
    assert isinstance(env.get_template("post.html"), jinja2.Template)  # nothing raised
    assert blocked.read_text(encoding="utf-8") == "not a folder"
