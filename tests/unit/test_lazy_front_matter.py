"""The build cache keeps each document's front matter as parsed (`Document.yaml`, a YamlDoc: the
raw values and the line of each) pickled on its own, and with its front matter as validated
(`Document.meta`, a FrontMatter) and where its sections are (its section spans) in its shard's
batch (out_of_band.py `Batch`), and a document read back unpickles them only when one of them is
read (load/doc_state.py `yaml_apart`, `body_apart`), its `yaml` only when that is read: the
documents read back equal those saved and say the same lines, one saved again without being
read keeps them as they were read, a worker's copy keeps them too, a build after an edit does
not read every document's front matter (at 5,000 posts a language: those of the edited post's
two files only), and what pairing reads of every entry's front matter is kept
with the entry (pair/model.py `Entry.names_series`)."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import pytest

from bipub import cache, out_of_band, pipeline, restore
from bipub.cache import BuildCache
from bipub.load.doc_state import _BATCH_AT, _LAZY_YAML, _SPANS, lazy_attribute, section_spans
from bipub.pair.taxonomy import series_named
from bipub.project import Project
from tests.conftest import built_copy
from tests.unit.test_lazy_bodies import read_back, saved_documents


def test_front_matter_is_unpickled_when_read_and_equals_the_one_saved(
    make_project, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    for doc, lazy in read_back(make_project, tmp_path):
        batched = {"meta", _SPANS, "yaml", _LAZY_YAML}
        assert _BATCH_AT in vars(lazy) and not batched & vars(lazy).keys()  # (not unpickled yet)
        batch = vars(lazy)[_BATCH_AT][0]
        assert isinstance(batch, out_of_band.Batch)
        assert lazy.meta == doc.meta and _BATCH_AT not in vars(lazy)
        assert lazy.meta is lazy.meta  # (one object, kept)
        assert lazy.meta.model_fields_set == doc.meta.model_fields_set
        # (its spans and `yaml` taken from the batch with it, `yaml` still pickled)
        assert vars(lazy)[_SPANS] == section_spans(doc.body, doc.sections)
        assert _LAZY_YAML in vars(lazy) and "yaml" not in vars(lazy)
        assert lazy.line_of("title") == doc.line_of("title") is not None
        assert lazy.yaml == doc.yaml and _LAZY_YAML not in vars(lazy)
        assert lazy == doc


@pytest.mark.parametrize("first", ["yaml", "spans", "sections"])
def test_any_of_the_batched_values_read_first_takes_the_three(
    make_project, tmp_path: Path, first: str
) -> None:  # type: ignore[no-untyped-def]
    """A document read back whose `yaml`, section spans (units made from them: pair/units.py)
    or sections are read first has its `meta`, spans and `yaml` from its batch, equal to those
    saved."""
    for doc, lazy in read_back(make_project, tmp_path):
        if first == "yaml":
            assert lazy.yaml == doc.yaml
        elif first == "spans":
            assert lazy.unsplit_spans() == section_spans(doc.body, doc.sections)
        else:
            assert lazy.sections == doc.sections
        assert _BATCH_AT not in vars(lazy) and "meta" in vars(lazy)
        assert lazy.meta == doc.meta and lazy.yaml == doc.yaml and lazy == doc
        assert lazy.sections == doc.sections


def test_a_document_saved_again_unread_keeps_its_front_matter(make_project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    docs, folder = saved_documents(make_project, tmp_path)
    read = BuildCache.load(folder)
    read._shards.clear()  # (every shard written again: its documents unread)
    read.save(folder)
    for doc in docs:  # (the save did not unpickle them)
        assert _BATCH_AT in vars(read.docs[doc.rel][2])
    again = BuildCache.load(folder)
    for doc in docs:
        lazy = again.docs[doc.rel][2]
        assert _BATCH_AT in vars(lazy)
        assert lazy.yaml == doc.yaml and lazy.meta == doc.meta and lazy == doc
        assert lazy.unsplit_spans() == section_spans(doc.body, doc.sections)


def test_a_document_saved_again_after_its_batch_was_read_keeps_it(
    make_project, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """(Its `meta`, spans and pickled `yaml` put in the new batch as read, its body unread.)"""
    docs, folder = saved_documents(make_project, tmp_path)
    read = BuildCache.load(folder)
    for n, (_, _, lazy) in enumerate(read.docs.values()):
        _ = lazy.meta if n % 2 else lazy.yaml  # (read: taken from the batch)
    read._shards.clear()  # (every shard written again)
    read.save(folder)
    again = BuildCache.load(folder)
    for doc in docs:
        lazy = again.docs[doc.rel][2]
        assert _BATCH_AT in vars(lazy) and "body" not in vars(lazy)
        assert lazy.yaml == doc.yaml and lazy.meta == doc.meta and lazy == doc
        assert lazy.unsplit_spans() == section_spans(doc.body, doc.sections)


def test_a_copy_of_a_document_read_back_has_its_front_matter(make_project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A render worker's copy (pickled whole, not by the build cache) of a document whose
    front matter was not read yet."""
    docs, folder = saved_documents(make_project, tmp_path)
    read = BuildCache.load(folder)
    for doc in docs:
        copy = pickle.loads(pickle.dumps(read.docs[doc.rel][2]))
        assert copy.yaml == doc.yaml and copy.meta == doc.meta and copy == doc


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
    read = sorted(r for r, doc in docs.items() if "yaml" in vars(doc))
    # the edited one (parsed again) and those a warning about it names a line of, not all
    assert rel in read and len(read) < len(docs), read
    # (its `meta`: the edited entry's, paired again; the others' as far as what every build
    # reads of an entry is kept with it: test_the_posts_naming_a_series_..., test_plan_facts.py)
    read = sorted(r for r, doc in docs.items() if _BATCH_AT not in vars(doc))
    assert rel in read, read


def test_the_posts_naming_a_series_are_found_without_their_front_matter(tmp_path: Path) -> None:
    """pair/taxonomy.py `series_named` reads `Entry.names_series`, kept with each entry in
    the entries file: of the entries a build in a new process reads back, it unpickles no
    document's front matter, and says what their documents' front matter says."""
    root = built_copy(tmp_path)
    kept = restore.restore(Project(root), root / "site", [])
    entries = [paired.entry for paired, _ in kept.pairs.paired.values()]
    assert entries and all(e is not None for e in entries)
    docs = [doc for e in entries if e is not None for doc in e.docs.values()]
    assert all(_BATCH_AT in vars(doc) for doc in docs)
    found = series_named(e for e in entries if e is not None)
    assert all(_BATCH_AT in vars(doc) for doc in docs)  # (none unpickled)
    fresh = [dataclasses.replace(e) for e in entries if e is not None]  # (nothing kept)
    named = {e.key for e in fresh if e.kind == "posts" and e.source.meta.series}
    assert named and {e.key for e in entries if e is not None and id(e) in found} == named


def test_where_an_entry_is_shown_is_known_without_its_front_matter(tmp_path: Path) -> None:
    """`Entry.shown_in` (every list of posts, the untranslated notice) reads the languages
    kept with the entry in the entries file, not its documents' front matter; the same answer
    as an entry that kept nothing."""
    root = built_copy(tmp_path)
    kept = restore.restore(Project(root), root / "site", [])
    entries = [paired.entry for paired, _ in kept.pairs.paired.values() if paired.entry]
    docs = [doc for e in entries for doc in e.docs.values()]
    langs = ("ko", "en", "fr")
    shown = [[e.shown_in(lang) for lang in langs] for e in entries]
    assert all(_BATCH_AT in vars(doc) for doc in docs)  # (none unpickled)
    fresh = [[dataclasses.replace(e).shown_in(lang) for lang in langs] for e in entries]
    assert shown == fresh and any(map(any, shown))


def test_the_documents_of_a_shard_share_one_batch_unpickled_once(
    make_project,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    """A shard's documents' `meta` are in one batch (each with its spans and pickled `yaml`),
    unpickled all at once when the first is read: each document's then is the batch's very
    object, and equals the one saved."""
    monkeypatch.setattr(cache, "_shard", lambda rel: len(rel) % 2)  # (two shards)
    docs, folder = saved_documents(make_project, tmp_path)
    read = BuildCache.load(folder)
    by_shard = [list(found.values()) for found in read._shards.values() if len(found) > 1]
    assert by_shard  # (a shard of more than one document)
    for found in by_shard:
        batches = {id(vars(doc)[_BATCH_AT][0]) for _, _, doc in found}
        assert len(batches) == 1
        first, *others = [doc for _, _, doc in found]
        first.meta  # noqa: B018 - (read: the batch is unpickled)
        batch = vars(others[0])[_BATCH_AT][0]
        assert batch._values is not None  # (all of them at once)
        for doc in others:
            at = vars(doc)[_BATCH_AT][1]
            assert doc.meta is batch.get(at)[0]  # (with its spans and `yaml`)
    saved = {doc.rel: doc for doc in docs}
    for rel, (_, _, doc) in read.docs.items():
        assert doc.meta == saved[rel].meta


def test_a_value_another_thread_took_meanwhile_is_the_one_read(
    make_project, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """`Document.__getattr__` called for a value that another thread took from the batch (or
    decoded) after this one looked for it: that value, not AttributeError."""
    for doc, lazy in read_back(make_project, tmp_path):
        taken = lazy.meta, lazy.body  # (as the other thread did)
        for name, value in zip(("meta", "body"), taken, strict=True):
            assert lazy_attribute(lazy, name) is value
        assert lazy_attribute(lazy, _SPANS) == section_spans(doc.body, doc.sections)
        with pytest.raises(AttributeError):
            lazy_attribute(lazy, "no_such_field")
