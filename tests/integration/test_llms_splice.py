"""A build in a new process joins llms-full.txt again from the posts' texts where the published
file has them (render/llms_full.py): the build state keeps no text's bytes, only where each
text is in the file whose hash the output's record keeps. A published file that is gone or
not the one recorded gives nothing: the texts are made again (said at `-v`), and the site is
a clean build's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bipub import buildstate
from bipub.pipeline import build
from bipub.project import Project
from bipub.render import llms
from bipub.render.llms_full import FullText
from tests.conftest import PAGES_AND_AGGREGATES, built_copy, replace_in, tree_snapshot

KINDS = PAGES_AND_AGGREGATES
BODY = "\n---\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return built_copy(tmp_path)


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The posts whose llms-full.txt text is made (llms.full_post), by language and slug."""
    found: list[str] = []
    real = llms.full_post

    def full_post(entry: Any, lang: str, *more: Any) -> str:
        found.append(f"{lang}/{entry.key}")
        text: str = real(entry, lang, *more)
        return text

    monkeypatch.setattr(llms, "full_post", full_post)
    return found


def _clean(root: Path, tmp_path: Path) -> dict[str, bytes]:
    build(root, tmp_path / "clean", use_cache=False, only=KINDS)
    return tree_snapshot(tmp_path / "clean")


def test_the_state_keeps_no_texts_and_an_update_takes_them_from_the_published_file(
    project: Path, tmp_path: Path, made: list[str]
) -> None:
    state = buildstate.load(Project(project), project / "site")
    assert state is not None
    fulls = [
        v[1]
        for v in state.parts.earlier.values()
        if isinstance(v, tuple) and len(v) == 2 and isinstance(v[1], FullText)
    ]
    assert fulls and all(f.data is None for f in fulls)  # (pickled without their bytes)
    replace_in(project, "content/ko/posts/alpha.md", BODY, f"{BODY}\n새 첫 문단.\n")
    result = build(project, only=KINDS)
    assert made == ["ko/alpha"], made  # beta's Korean text: from the published file
    assert "texts made again" not in result.cache_note
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)


@pytest.mark.parametrize("how", ["changed", "cut", "removed"])
def test_a_published_file_not_as_recorded_gives_no_texts(
    project: Path, tmp_path: Path, made: list[str], how: str
) -> None:
    published = project / "site/ko/llms-full.txt"
    data = published.read_bytes()
    published.unlink()  # (a new file: the published one may share its inode with the spare)
    if how == "changed":
        published.write_bytes(data.replace("베타".encode(), "감마".encode()))
    elif how == "cut":
        published.write_bytes(data[: len(data) // 2])
    replace_in(project, "content/ko/posts/alpha.md", BODY, f"{BODY}\n새 첫 문단.\n")
    result = build(project, only=KINDS)
    assert "ko/beta" in made  # made again, not taken from the file
    assert "ko/llms-full.txt: 1 of 2 posts' texts made again" in result.cache_note, (
        result.cache_note
    )
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)
