"""load_content takes the posts and pages folders from the build's scan of the inputs
(uptodate.scan_inputs) instead of walking them again: the documents, their order, their file
identities and what is said about the other files are those of a walk of the folders."""

from __future__ import annotations

import shutil
import unicodedata
from pathlib import Path

import pytest

from bipub.cache import BuildCache
from bipub.config import load_config
from bipub.diagnostics import Collector
from bipub.load import content as loader
from bipub.load.content import load_content
from bipub.project import Project
from bipub.uptodate import scan_inputs


def _odd_project(root: Path) -> Path:
    """The minimal project with nested folders, files that are not posts, a symbolic link to
    a post and one to a folder, a name in NFD (as macOS writes Hangul) and names whose order
    differs between a sort of paths and a sort of strings."""
    shutil.copytree(Path(__file__).parents[1] / "projects" / "minimal", root)
    posts = root / "content" / "ko" / "posts"
    alpha = (posts / "alpha.md").read_text(encoding="utf-8")
    for rel in ("2026/a.md", "2026/b/c.md", "2026-x.md", "2026.md", "z/..md"):
        path = posts / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(alpha.replace("tags:", f"key: k-{rel}\ntags:"), encoding="utf-8")
    nfd = unicodedata.normalize("NFD", "한글.md")
    (posts / nfd).write_text(alpha.replace("tags:", "key: hangul\ntags:"), encoding="utf-8")
    (posts / "notes.txt").write_text("not a post\n", encoding="utf-8")
    (posts / ".DS_Store").write_text("", encoding="utf-8")
    (posts / ".md").write_text("", encoding="utf-8")  # (no suffix: a dot file)
    (posts / "x.md.").write_text("not a post either\n", encoding="utf-8")
    (posts / "link.md").symlink_to(posts / "alpha.md")
    (posts / "linked").symlink_to(posts / "2026")
    return root


def _load(root: Path, scanned: bool) -> tuple[list[tuple[str, str, str]], list[str], dict]:  # type: ignore[type-arg]
    config = load_config(root)
    collector, cache = Collector(), BuildCache()
    inputs = scan_inputs(Project(root)) if scanned else None
    content = load_content(root, config, collector, cache, inputs)
    docs = [(d.rel, d.name, d.digest) for d in content.documents]
    said = [f"{d.file}:{d.code}:{d.message}" for d in collector.items]
    return docs, said, {rel: entry[:2] for rel, entry in cache.docs.items()}


def test_the_scan_gives_what_a_walk_gives(tmp_path: Path) -> None:
    root = _odd_project(tmp_path / "p")
    walked = _load(root, scanned=False)
    listed = _load(root, scanned=True)
    assert listed == walked
    docs, said, _ = listed
    names = [name for _, name, _ in docs]
    assert {"2026/a", "2026/b/c", "2026-x", "2026", "z/.", "한글"} <= set(names)
    assert any("link.md:symlink:" in s for s in said) and any("linked:symlink:" in s for s in said)
    assert any("notes.txt:ignored-file:" in s for s in said)
    assert any("x.md.:ignored-file:" in s for s in said)
    assert not any(".DS_Store" in s for s in said)


def test_the_scanned_folders_are_not_walked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _odd_project(tmp_path / "p")
    walked = _load(root, scanned=False)

    def refuse(*args: object) -> None:
        raise AssertionError("walked or looked up again")

    monkeypatch.setattr(loader, "_walk", refuse)
    monkeypatch.setattr(loader, "stat_key", refuse)
    assert _load(root, scanned=True) == walked


def test_a_symlinked_posts_folder_is_walked(tmp_path: Path) -> None:
    """The scan does not enter a symbolic link to a folder; a posts folder that is one is
    walked, as before (its files are the language's posts)."""
    root = _odd_project(tmp_path / "p")
    en = root / "content" / "en"
    shutil.move(en / "posts", root / "en-posts")
    (en / "posts").symlink_to(root / "en-posts")
    walked = _load(root, scanned=False)
    assert any(rel == "content/en/posts/alpha.md" for rel, _, _ in walked[0])
    assert _load(root, scanned=True) == walked
