"""The build cache keeps each document's front matter as parsed (`Document.yaml`, a YamlDoc: the
raw values and the line of each) pickled on its own, and a document read back unpickles it only
when it is read (load/doc_state.py `yaml_apart`): the documents read back equal those saved and
say the same lines, one saved again without being read keeps it as it was read, a worker's copy
keeps it too, and a build after an edit does not read every document's front matter (at 5,000
posts a language: those of the edited post's two files only)."""

from __future__ import annotations

import pickle
from pathlib import Path

from bipub import pipeline, restore
from bipub.cache import BuildCache
from bipub.load.doc_state import _LAZY_YAML
from tests.unit.test_lazy_bodies import read_back, saved_documents


def test_front_matter_is_unpickled_when_read_and_equals_the_one_saved(
    make_project, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    for doc, lazy in read_back(make_project, tmp_path):
        assert _LAZY_YAML in vars(lazy) and "yaml" not in vars(lazy)  # (not unpickled yet)
        assert lazy.line_of("title") == doc.line_of("title") is not None
        assert lazy.yaml == doc.yaml and _LAZY_YAML not in vars(lazy)
        assert lazy == doc


def test_a_document_saved_again_unread_keeps_its_front_matter(make_project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    docs, folder = saved_documents(make_project, tmp_path)
    read = BuildCache.load(folder)
    read._shards.clear()  # (every shard written again: its documents unread)
    read.save(folder)
    for doc in docs:  # (the save did not unpickle them)
        assert _LAZY_YAML in vars(read.docs[doc.rel][2])
    again = BuildCache.load(folder)
    for doc in docs:
        lazy = again.docs[doc.rel][2]
        assert _LAZY_YAML in vars(lazy) and lazy.yaml == doc.yaml and lazy == doc


def test_a_copy_of_a_document_read_back_has_its_front_matter(make_project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A render worker's copy (pickled whole, not by the build cache) of a document whose
    front matter was not read yet."""
    docs, folder = saved_documents(make_project, tmp_path)
    read = BuildCache.load(folder)
    for doc in docs:
        copy = pickle.loads(pickle.dumps(read.docs[doc.rel][2]))
        assert copy.yaml == doc.yaml and copy == doc


def test_a_build_after_an_edit_does_not_read_every_front_matter(
    make_project,  # type: ignore[no-untyped-def]
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    project: Path = make_project("minimal")
    pipeline.build(project)
    edited = sorted((project / "content").glob("*/posts/*.md"))[0]
    edited.write_text(edited.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    found: list[restore.Kept] = []
    restored = restore.restore

    def kept(*args, **kwargs):  # type: ignore[no-untyped-def]
        found.append(restored(*args, **kwargs))
        return found[-1]

    monkeypatch.setattr(restore, "restore", kept)
    pipeline.build(project)
    docs = {rel: doc for rel, (_, _, doc) in found[0].cache.docs.items()}
    rel = edited.relative_to(project).as_posix()
    read = sorted(r for r, doc in docs.items() if _LAZY_YAML not in vars(doc))
    # the edited one (parsed again) and those a warning about it names a line of, not all
    assert rel in read and len(read) < len(docs), read
