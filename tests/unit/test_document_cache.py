"""Documents travel in the build cache without their derived sections (recomputed on demand)."""

from __future__ import annotations

import pickle
from pathlib import Path

from bipub.config import load_config
from bipub.diagnostics import Collector
from bipub.load.content import load_content
from bipub.pair.units import split_sections


def test_sections_are_not_pickled_but_come_back(make_project) -> None:  # type: ignore[no-untyped-def]
    project: Path = make_project("minimal")
    config = load_config(project)
    content = load_content(project, config, Collector())
    doc = content.documents[0]
    before = doc.sections
    assert before == tuple(split_sections(doc.body, doc.body_line))
    blob = pickle.dumps(doc)
    assert b"sections" not in blob
    again = pickle.loads(blob)
    assert again == doc
    assert again.sections == before


def test_documents_read_by_workers_equal_those_read_here(make_project, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A cold build of a big site reads the files in worker processes (load/content.py): the
    documents, their sections and reading times, the cache entries and the diagnostics are the
    same as when this process reads them."""
    from bipub.load import content as loader

    project: Path = make_project("demo")
    config = load_config(project)
    from bipub.cache import BuildCache

    here_cache, here_found = BuildCache(), Collector()
    here = load_content(project, config, here_found, here_cache)
    monkeypatch.setattr(loader, "MIN_FILES_FOR_WORKERS", 0)
    monkeypatch.setattr(loader, "_CHUNK", 3)
    monkeypatch.setattr(loader, "can_fork", lambda: True)
    monkeypatch.setenv("BIPUB_WORKERS", "2")
    calls: list[int] = []
    real = loader.fork_map
    monkeypatch.setattr(loader, "fork_map", lambda *a: calls.append(1) or real(*a))
    there_cache, there_found = BuildCache(), Collector()
    there = load_content(project, config, there_found, there_cache)
    assert calls, "the workers were not used"
    assert there.documents == here.documents
    assert [d.sections for d in there.documents] == [d.sections for d in here.documents]
    assert "sections" in vars(there.documents[0])  # came from the worker, not split again
    minutes = [d.reading_minutes for d in here.documents]
    assert [vars(d)["reading_minutes"] for d in there.documents] == minutes
    assert there_found.items == here_found.items
    assert {k: v[:2] for k, v in there_cache.docs.items()} == {
        k: v[:2] for k, v in here_cache.docs.items()
    }
