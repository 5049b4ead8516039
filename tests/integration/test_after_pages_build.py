"""A build whose feeds and llms files are made one language in a forked helper
(render/after_pages.py) makes the same site, and leaves the next build the same parts, as a
build that makes them all in its own process."""

from __future__ import annotations

import os
import re
import select
import shutil
from pathlib import Path
from typing import Any

import pytest

from bipub.diagnostics import Diagnostic, DiagnosticError
from bipub.pipeline import build
from bipub.render import after_pages, outputs, workers
from tests.conftest import PROJECTS
from tests.integration.test_render_pool import KINDS, _files, _more_posts


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "side_by_side", root)
    _more_posts(root, 6)
    return root


def _parts_note(note: str) -> str:
    found = re.search(r"aggregate parts[^;]*", note)
    assert found, note
    return found.group(0)


def _with_a_helper(monkeypatch: pytest.MonkeyPatch, log: Path) -> None:
    """The helper makes a language, and says so in `log`; this process waits for it to start
    before it makes the other (else, faster, it could take both first)."""
    parent = os.getpid()
    read, write = os.pipe()
    real_lang, real_shared = outputs.Feeds.render_lang, outputs.Feeds.render_shared

    def render_lang(self: outputs.Feeds, job: Any, tree: Any, lang: str) -> None:
        if os.getpid() != parent:
            with log.open("a", encoding="utf-8") as f:
                f.write(f"{lang}\n")
            os.write(write, b"x")
        real_lang(self, job, tree, lang)

    def render_shared(self: outputs.Feeds, job: Any, tree: Any) -> None:
        select.select([read], [], [], 20)  # (if the helper never starts: on after 20 s)
        real_shared(self, job, tree)

    monkeypatch.setenv("BIPUB_WORKERS", "2")
    monkeypatch.setattr(workers, "MIN_PAGES_TO_RENDER_IN_WORKERS", 10_000)  # (pages: here)
    monkeypatch.setattr(after_pages, "MIN_POSTS_FOR_HELPER", 0)
    monkeypatch.setattr(after_pages, "can_fork", lambda: True)  # (a thread other tests left)
    monkeypatch.setattr(outputs.Feeds, "render_lang", render_lang)
    monkeypatch.setattr(outputs.Feeds, "render_shared", render_shared)


@pytest.mark.parametrize("use_cache", [False, True])
def test_a_language_made_by_a_helper_makes_the_same_site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, use_cache: bool
) -> None:
    root = _project(tmp_path)
    with monkeypatch.context() as mp:
        mp.setenv("BIPUB_WORKERS", "1")
        alone = build(root, only=KINDS, use_cache=use_cache)
    files = _files(root / "site")
    shutil.rmtree(root / "site")
    shutil.rmtree(root / ".bipub-cache", ignore_errors=True)
    log = tmp_path / "helper"
    _with_a_helper(monkeypatch, log)
    shared = build(root, only=KINDS, use_cache=use_cache)
    assert log.read_text(encoding="utf-8").split() == ["ko"]  # (the first language: ko, en)
    assert _files(root / "site") == files
    # (the files the helper wrote are the build's, as its own: counted, recorded)
    assert (shared.files, shared.changed, dict(shared.built)) == (
        alone.files,
        alone.changed,
        dict(alone.built),
    )
    assert sorted(map(str, shared.warnings)) == sorted(map(str, alone.warnings))
    assert _parts_note(shared.cache_note) == _parts_note(alone.cache_note)
    if use_cache:  # what the next build starts from: the helper's parts too
        assert alone.state is not None and shared.state is not None
        assert set(shared.state.parts.earlier) == set(alone.state.parts.earlier)


def test_an_error_in_the_helpers_language_fails_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path)
    _with_a_helper(monkeypatch, tmp_path / "helper")
    real = outputs.Llms.render_lang
    parent = os.getpid()

    def render_lang(self: outputs.Llms, job: Any, tree: Any, lang: str) -> None:
        if os.getpid() != parent:
            raise DiagnosticError([Diagnostic("templates/x.html", 1, "template", "broken")])
        real(self, job, tree, lang)

    monkeypatch.setattr(outputs.Llms, "render_lang", render_lang)
    with pytest.raises(DiagnosticError) as info:
        build(root, only=KINDS, use_cache=False)
    assert [d.message for d in info.value.diagnostics] == ["broken"]
    assert not (root / "site").exists()  # (nothing published)
