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
