"""The loader takes a project root given as a relative path ("." or "sub/.."): it cut the
root's length off each path it walked, so a root of "." lost the first two letters of every
file ("ntent/ko/posts/a.md": FileNotFoundError) — the CLI resolves its root, an API caller
need not (translate's make_plan crashed so)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from bipub.config import load_config
from bipub.diagnostics import Collector
from bipub.load.content import load_content


@pytest.mark.parametrize("given", [".", "./", "sub/..", "ABS"])
def test_a_relative_root_loads_what_the_absolute_one_does(
    given: str, make_project: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project("minimal")
    (root / "sub").mkdir()
    expected = load_content(root, load_config(root), Collector())
    monkeypatch.chdir(root)
    relative = Path(str(root) if given == "ABS" else given)
    collector = Collector()
    content = load_content(relative, load_config(relative), collector)
    assert collector.items == []
    assert [d.rel for d in content.documents] == [d.rel for d in expected.documents]
    assert [d.rel for d in content.documents]  # (something was loaded)
    assert os.getcwd() == str(root)
