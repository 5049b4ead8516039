"""Compiled templates (render/templates.py CompiledTemplates): the theme's kept in the user's
cache even for a --no-cache build (part of bipub, as its .pyc files are), the project's only
with the build cache on; a folder per `compile_key`; never a stale compiled template."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
import pytest
from babel.support import NullTranslations

from bipub.diagnostics import Collector
from bipub.render import templates
from bipub.render.templates import bytecode_cache, compile_key, make_environment


def _env(
    templates: Path | None,
    folder: Path,
    *,
    project_too: bool,
    lang: str = "en",
    collector: Collector | None = None,
) -> jinja2.Environment:
    env = make_environment(templates, lang, NullTranslations())
    env.bytecode_cache = bytecode_cache(
        folder, project_too=project_too, collector=collector or Collector()
    )
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


def test_an_unwritable_cache_folder_costs_compiling_and_says_so(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")
    collector = Collector()
    env = _env(None, blocked / "jinja", project_too=True, collector=collector)
    assert isinstance(env.get_template("post.html"), jinja2.Template)  # nothing raised
    assert blocked.read_text(encoding="utf-8") == "not a folder"
    warned = [d for d in collector.items if d.code == "cache-not-saved"]
    assert warned, "a compiled template that could not be kept is a warning, not silence"
    assert str(blocked) in warned[0].message


def _reading(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The keys of the compiled-template files Jinja reads from now on."""
    read: list[str] = []
    real = jinja2.bccache.Bucket.load_bytecode

    def load_bytecode(self: jinja2.bccache.Bucket, f: Any) -> None:
        read.append(self.key)
        real(self, f)

    monkeypatch.setattr(jinja2.bccache.Bucket, "load_bytecode", load_bytecode)
    return read


def _build_envs(folder: Path) -> list[jinja2.Environment]:
    """A build's environments, one per language, sharing its compiled templates."""
    cache = bytecode_cache(folder, project_too=False, collector=Collector())
    envs = []
    for lang in ("ko", "en"):
        env = make_environment(None, lang, NullTranslations())
        env.bytecode_cache = cache
        envs.append(env)
    return envs


def test_the_languages_environments_share_the_code_of_a_file_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compiled: list[str]
) -> None:
    """One build makes an environment per language, each loading the theme's templates: a
    compiled template's file is read once, its code object shared (it is only executed)."""
    folder = tmp_path / "jinja"
    _env(None, folder, project_too=False).get_template("post.html")  # (an earlier build)
    compiled.clear()
    monkeypatch.setattr(templates, "_READ", {})  # (as in a new process)
    envs = _build_envs(folder)
    read = _reading(monkeypatch)
    ko, en = (env.get_template("post.html") for env in envs)
    assert compiled == [] and read and len(read) == len(set(read))  # each file read once
    assert ko.root_render_func.__code__ is en.root_render_func.__code__
    assert ko.environment is envs[0] and en.environment is envs[1]


def test_the_builds_of_a_process_read_each_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compiled: list[str]
) -> None:
    """`bipub serve`'s updates and the test suite's builds: a later build of the process reads
    no compiled template again (the code the first read or compiled), and a template whose
    source changed is compiled again, never taken from the memo."""
    monkeypatch.setattr(templates, "_READ", {})
    folder = tmp_path / "jinja"
    first = _env(None, folder, project_too=False).get_template("post.html")  # compiled, kept
    assert "post.html" in compiled
    compiled.clear()
    read = _reading(monkeypatch)
    later = _build_envs(folder)[0].get_template("post.html")
    assert compiled == [] and read == []
    assert later.root_render_func.__code__ is first.root_render_func.__code__
    mine = tmp_path / "templates"
    mine.mkdir()
    (mine / "mine.html").write_text("one {{ 1 }}", encoding="utf-8")
    assert _env(mine, folder, project_too=True).get_template("mine.html").render() == "one 1"
    (mine / "mine.html").write_text("two {{ 2 }}", encoding="utf-8")
    compiled.clear()
    assert _env(mine, folder, project_too=True).get_template("mine.html").render() == "two 2"
    assert compiled == ["mine.html"]
