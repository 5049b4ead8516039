"""Documents travel in the build cache with where their sections are, not the sections' texts
(rebuilt as slices of the body, with their digests)."""

from __future__ import annotations

import os
import pickle
import select
from pathlib import Path
from typing import Any

from bipub.config import load_config
from bipub.diagnostics import Collector
from bipub.load.content import load_content
from bipub.pair.units import split_sections, text_hash


def test_sections_are_not_pickled_but_come_back(make_project) -> None:  # type: ignore[no-untyped-def]
    project: Path = make_project("minimal")
    config = load_config(project)
    content = load_content(project, config, Collector())
    doc = content.documents[0]
    before = doc.sections
    assert before == tuple(split_sections(doc.body, doc.body_line))
    blob = pickle.dumps(doc)
    assert b"Section" not in blob  # spans (offsets, line, digest), not the texts again
    assert len(blob) < len(doc.body.encode("utf-8")) + 2000
    again = pickle.loads(blob)
    assert again == doc
    assert "sections" not in vars(again)
    assert again.sections == before
    assert [s.digest for s in again.sections] == [text_hash(s.text) for s in before]


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
    real = loader.share_chunks

    def spy(n: int, mine: Any, theirs: Any, *rest: Any) -> Any:
        """share_chunks, this process waiting until the helper has read a chunk (else it
        might read them all before the helper starts)."""
        calls.append(1)
        told, tell = os.pipe()

        def theirs_told(i: int) -> Any:
            done = theirs(i)
            os.write(tell, b"x")
            return done

        def mine_after(i: int) -> None:
            if len(calls) == 1:
                select.select([told], [], [], 20)
                calls.append(2)
            mine(i)

        try:
            return real(n, mine_after, theirs_told, *rest)
        finally:
            os.close(told)
            os.close(tell)

    monkeypatch.setattr(loader, "share_chunks", spy)
    there_cache, there_found = BuildCache(), Collector()
    there = load_content(project, config, there_found, there_cache)
    assert calls, "the workers were not used"
    assert there.documents == here.documents
    # those a helper read came as spans with digests: not split or hashed again here
    shipped = [d for d in there.documents if "_section_spans" in vars(d)]
    assert shipped, "no document came from the helper"
    assert not any("sections" in vars(d) for d in shipped)
    assert [d.sections for d in there.documents] == [d.sections for d in here.documents]
    assert all("digest" in vars(s) for d in there.documents for s in d.sections)
    minutes = [d.reading_minutes for d in here.documents]
    assert [vars(d)["reading_minutes"] for d in there.documents] == minutes
    assert there_found.items == here_found.items
    assert {k: v[:2] for k, v in there_cache.docs.items()} == {
        k: v[:2] for k, v in here_cache.docs.items()
    }


def test_image_references_travel_with_the_document(
    make_project,  # type: ignore[no-untyped-def]
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    """A body's Markdown images are found when its file is read and kept with the document in
    the build cache (load/content.py `Document.image_refs`): not searched again while the
    markdown-it-py that found them is the one running, searched again by another."""
    from bipub.load import content as loader

    project: Path = make_project("minimal")
    post = project / "content" / "ko" / "posts" / "alpha.md"
    post.write_text(
        post.read_text(encoding="utf-8") + "\n![그림](/img/a.png)\n\n`![코드](/not.png)`\n",
        encoding="utf-8",
    )
    config = load_config(project)
    doc = next(
        d
        for d in load_content(project, config, Collector()).documents
        if d.rel == "content/ko/posts/alpha.md"
    )
    line = doc.body.splitlines().index("![그림](/img/a.png)")
    again = pickle.loads(pickle.dumps(doc))

    def searched(body: str) -> tuple[tuple[int, str], ...]:
        raise AssertionError("searched again")

    monkeypatch.setattr(loader, "body_images", searched)
    assert again.image_refs == doc.image_refs == ((line, "/img/a.png"),)
    kept = pickle.dumps(doc)  # (read back by another markdown-it-py:)
    monkeypatch.setattr(loader, "parser_version", lambda: "0.0.0")
    monkeypatch.setattr(loader, "body_images", lambda body: ((0, "other"),))
    assert pickle.loads(kept).image_refs == ((0, "other"),)
