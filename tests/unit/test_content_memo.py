"""load/content.py ContentMemo: what a full load keeps for the next load of a resident caller
is checked and indexed only when that next load asks for it (a `bipub build` in a new process
has none: ~4 ms of passes over 10,000 files, not made), and the next load is the same; the jobs
of a load are named tuples (one is made for every file of every load)."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

from bipub.cache import BuildCache
from bipub.config import load_config
from bipub.diagnostics import Collector
from bipub.load import content as loader
from bipub.load.content import ContentMemo, load_content
from bipub.project import Project
from bipub.uptodate import scan_inputs


def _docs(content: loader.Content) -> list[tuple[str, str, str]]:
    return [(d.rel, d.name, d.digest) for d in content.documents]


def test_a_full_load_is_indexed_by_the_next_load_only(tmp_path: Path) -> None:
    root = tmp_path / "p"
    shutil.copytree(Path(__file__).parents[1] / "projects" / "minimal", root)
    config, cache, memo = load_config(root), BuildCache(), ContentMemo()
    first = load_content(root, config, Collector(), cache, scan_inputs(Project(root)), memo)
    assert memo.jobs == {} and memo.content is None  # (kept as given: not indexed yet)
    alpha = root / "content/ko/posts/alpha.md"
    alpha.write_text(alpha.read_text(encoding="utf-8").replace("알파", "고친알파"), "utf-8")
    inputs = scan_inputs(Project(root))
    again = load_content(root, config, Collector(), cache, inputs, memo)
    assert (
        memo.note == "content as the last load listed it, 1 post or page edited in place read again"
    )
    assert sorted(memo.jobs) == sorted(d.rel for d in first.documents)
    anew = load_content(root, config, Collector(), BuildCache(), inputs)
    assert _docs(again) == _docs(anew) != _docs(first)
    assert [d.body for d in again.documents] == [d.body for d in anew.documents]


def test_a_full_load_that_failed_is_not_taken_by_the_next(tmp_path: Path) -> None:
    root = tmp_path / "p"
    shutil.copytree(Path(__file__).parents[1] / "projects" / "minimal", root)
    (root / "content/ko/posts/notes.txt").write_text("not a post\n", encoding="utf-8")
    alpha = root / "content/ko/posts/alpha.md"
    good = alpha.read_text(encoding="utf-8")
    alpha.write_text(good.replace("title:", "title: [unclosed\nx:", 1), "utf-8")
    config, cache, memo = load_config(root), BuildCache(), ContentMemo()
    load_content(root, config, Collector(), cache, scan_inputs(Project(root)), memo)
    alpha.write_text(good, "utf-8")
    collector = Collector()
    again = load_content(root, config, collector, cache, scan_inputs(Project(root)), memo)
    assert memo.note == ""  # (listed again: the last load failed)
    assert any(d.code == "ignored-file" for d in collector.items)
    assert _docs(again) == _docs(load_content(root, config, Collector(), BuildCache()))


def test_jobs_are_named_tuples() -> None:
    assert issubclass(loader._Job, tuple) and not dataclasses.is_dataclass(loader._Job)
