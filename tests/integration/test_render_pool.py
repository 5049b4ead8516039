"""The render pool (render/workers.py): the build's own process renders the first chunk of
pages before forking (what rendering loads once, compiled templates, locale data,
highlighters, is then shared by the forked helpers instead of being loaded by each), then
`BIPUB_WORKERS - 1` helpers and itself render the rest; the output is the same as one
process's."""

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


def test_the_first_chunk_is_rendered_here_and_helpers_render_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "side_by_side", root)
    build(root, only=KINDS, use_cache=False)  # one process (below the pool's threshold)
    alone = _files(root / "site")
    log = tmp_path / "chunks"
    real = workers._render_specs

    def logged(job: Any, specs: list[Any], *args: Any) -> dict[str, int]:
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            os.write(fd, f"{os.getpid()} {job.specs.index(specs[0])}\n".encode())
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
    chunks = [tuple(map(int, line.split())) for line in log.read_text().splitlines()]
    first = min(chunks, key=lambda c: c[1])
    assert first == (os.getpid(), 0)  # the first chunk: here, before forking
    assert chunks.index(first) == 0
    helpers = {pid for pid, _ in chunks} - {os.getpid()}
    assert len(helpers) == 1, chunks  # BIPUB_WORKERS 2: this process and one helper
    assert len(chunks) == len({start for _, start in chunks}) > 2  # each chunk rendered once
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
    monkeypatch.setattr(workers, "ProcessPoolExecutor", None)  # (used: a TypeError)
    build(root, only=KINDS, use_cache=False)
    assert (root / "site/en/blog/paired/both/index.html").is_file()
