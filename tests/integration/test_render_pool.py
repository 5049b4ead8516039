"""The render pool (render/workers.py): the build's own process renders the warm-up pages
before forking (the first page of each template in each language and the first post of each
code language: what rendering loads once, compiled templates, locale data, highlighters, is
then shared by the forked helpers instead of being loaded by each), then `BIPUB_WORKERS - 1`
helpers and itself render the rest; the output is the same as one process's."""

from __future__ import annotations

import gc
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from bipub.pipeline import build
from bipub.render import outputs, workers
from tests.conftest import PROJECTS

KINDS = {"html", "json", "feeds", "llms"}


def _files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*") if p.is_file()}


def _more_posts(root: Path, n: int) -> None:
    """`n` more Korean posts (pages enough for several chunks after the warm-up), one of
    them with a code language no other post has."""
    for i in range(n):
        fence = "```javascript\nlet x = 1;\n```" if i == n - 2 else "```python\nx = 1\n```"
        (root / "content/ko/posts" / f"extra-{i}.md").write_text(
            f"---\ntitle: 글 {i}\ndate: 2026-02-{i + 1:02d}\ntags: [t{i % 3}]\n---\n\n"
            f"본문 {i}.\n\n{fence}\n",
            encoding="utf-8",
        )


def test_the_warm_up_pages_are_rendered_here_and_helpers_render_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "side_by_side", root)
    _more_posts(root, 12)  # (the warm-up pages: one of each template in each language, fewer
    # than half of the pages)
    build(root, only=KINDS, use_cache=False)  # one process (below the pool's threshold)
    alone = _files(root / "site")
    log = tmp_path / "chunks"
    real = workers._render_specs

    def logged(job: Any, specs: list[Any], *args: Any) -> dict[str, int]:
        kinds = " ".join(f"{spec.template}:{spec.lang}" for spec in specs)
        codes = " ".join(
            code
            for spec in specs
            if spec.doc is not None
            for code in ("python", "javascript")
            if f"```{code}" in spec.doc.body
        )
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            line = f"{os.getpid()}|{job.specs.index(specs[0])}|{len(specs)}|{kinds}|{codes}\n"
            os.write(fd, line.encode())
        finally:
            os.close(fd)
        return real(job, specs, *args)

    monkeypatch.setenv("BIPUB_WORKERS", "2")
    monkeypatch.setattr(workers, "MIN_PAGES_TO_RENDER_IN_WORKERS", 0)
    monkeypatch.setattr(workers, "CHUNK", 1)
    monkeypatch.setattr(workers, "can_fork", lambda: True)  # (a thread other tests left)
    monkeypatch.setattr(workers, "_render_specs", logged)
    shutil.rmtree(root / "site")
    build(root, only=KINDS, use_cache=False)
    chunks = [line.split("|") for line in log.read_text().splitlines()]
    here = str(os.getpid())
    first = chunks[0]
    assert first[:2] == [here, "0"]  # the warm-up pages: here, before forking, first
    every = {kind for chunk in chunks for kind in chunk[3].split()}
    assert set(first[3].split()) == every  # each template in each language
    assert set(first[4].split()) == {"python", "javascript"}  # and each code language
    assert int(first[2]) < sum(int(chunk[2]) for chunk in chunks) // 2  # a few pages only
    helpers = {chunk[0] for chunk in chunks} - {here}
    assert len(helpers) == 1, chunks  # BIPUB_WORKERS 2: this process and one helper
    starts = [int(chunk[1]) for chunk in chunks]
    assert len(starts) == len(set(starts)) > 2  # each chunk rendered once
    assert _files(root / "site") == alone


@pytest.mark.parametrize("workers_", ["1", "2"])
def test_the_rendered_site_is_frozen_until_the_build_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers_: str
) -> None:
    """The outputs made after the pages (feeds, llms-full.txt) run with the rendered site out
    of the garbage collector's reach; the build leaves nothing frozen."""
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "side_by_side", root)
    frozen: list[int] = []
    real = outputs.Feeds.render

    def render(self: outputs.Feeds, job: Any, tree: Any) -> None:
        frozen.append(gc.get_freeze_count())
        real(self, job, tree)

    monkeypatch.setenv("BIPUB_WORKERS", workers_)
    monkeypatch.setattr(workers, "MIN_PAGES_TO_RENDER_IN_WORKERS", 0)
    monkeypatch.setattr(workers, "CHUNK", 1)
    monkeypatch.setattr(workers, "can_fork", lambda: True)
    monkeypatch.setattr(outputs.Feeds, "render", render)
    assert gc.get_freeze_count() == 0
    build(root, only=KINDS, use_cache=False)
    assert frozen and frozen[-1] > 10_000, frozen  # (the feeds are made after the pages)
    assert gc.get_freeze_count() == 0


def test_no_helper_is_forked_while_other_threads_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`bipub serve` rebuilds while its server thread runs: forking then is unsafe (a lock
    another thread holds stays held in the child), so the pages are rendered here."""
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "side_by_side", root)
    monkeypatch.setenv("BIPUB_WORKERS", "2")
    monkeypatch.setattr(workers, "MIN_PAGES_TO_RENDER_IN_WORKERS", 0)
    monkeypatch.setattr(workers, "CHUNK", 1)
    monkeypatch.setattr(workers, "can_fork", lambda: False)
    monkeypatch.setattr(workers, "share_chunks", None)  # (used: a TypeError)
    build(root, only=KINDS, use_cache=False)
    assert (root / "site/en/blog/paired/both/index.html").is_file()
