"""The build cache keeps each document's body after the pickle of its shard (out_of_band.py)
and a document read back decodes it only when read (load/doc_state.py): the documents read
back equal those saved, one saved again without being read keeps its body's bytes, and a shard
file cut, changed, of another layout or of another format is refused and said (`-v`)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from bipub import cache, out_of_band
from bipub.cache import BuildCache, write_signed
from bipub.config import load_config
from bipub.diagnostics import Collector
from bipub.load.content import Document, load_content
from bipub.load.doc_state import _LAZY_BODY


def saved_documents(make_project, tmp_path: Path) -> tuple[list[Document], Path]:  # type: ignore[no-untyped-def]
    project: Path = make_project("minimal")
    built = BuildCache()
    docs = load_content(project, load_config(project), Collector(), built).documents
    folder = tmp_path / "cache"
    built.save(folder)
    return docs, folder


def read_back(make_project, tmp_path: Path) -> list[tuple[Document, Document]]:  # type: ignore[no-untyped-def]
    """Each document of the minimal project as loaded, with the same document as the build
    cache saved and read it back (nothing of it read yet)."""
    docs, folder = saved_documents(make_project, tmp_path)
    read = BuildCache.load(folder)
    assert not read.note
    again = {rel: doc for rel, (_, _, doc) in read.docs.items()}
    assert set(again) == {d.rel for d in docs}
    return [(doc, again[doc.rel]) for doc in docs]


def test_bodies_are_decoded_when_read_and_equal_those_saved(make_project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    for doc, lazy in read_back(make_project, tmp_path):
        assert _LAZY_BODY in vars(lazy) and "body" not in vars(lazy)  # (not decoded yet)
        assert lazy.body == doc.body and _LAZY_BODY not in vars(lazy)
        assert lazy == doc and lazy.sections == doc.sections
        assert pickle.loads(pickle.dumps(lazy)) == doc  # (a worker's copy: with its body)


def test_a_document_saved_again_unread_keeps_its_body(make_project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    docs, folder = saved_documents(make_project, tmp_path)
    read = BuildCache.load(folder)
    read._shards.clear()  # (every shard written again: its documents unread)
    read.save(folder)
    again = BuildCache.load(folder)
    assert not again.note
    for doc in docs:
        lazy = again.docs[doc.rel][2]
        assert _LAZY_BODY in vars(lazy) and lazy.body == doc.body and lazy == doc


def test_a_save_removes_no_shard_it_knows_absent(make_project, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A small site fills a few of the 128 shards: a save after reading the cache back (and
    a second save of the same cache, as `bipub serve` does) removes none of the absent ones
    again (each removal was a system call at every save); one whose documents are all gone
    is still removed."""
    docs, folder = saved_documents(make_project, tmp_path)
    present = {p.name for p in folder.glob("build-docs-*.pickle")}
    assert 0 < len(present) < cache.DOC_SHARDS
    removed: list[str] = []
    unlink = Path.unlink

    def counted(path: Path, missing_ok: bool = False) -> None:
        if path.name.startswith("build-docs-"):
            removed.append(path.name)
        unlink(path, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", counted)
    read = BuildCache.load(folder)
    read.save(folder)
    read.save(folder)
    assert removed == []
    assert {p.name for p in folder.glob("build-docs-*.pickle")} == present
    gone = docs[0].rel  # (its shard's documents all gone: the shard is removed)
    shard = cache._docs_file(cache._shard(gone))
    for rel in [rel for rel in read.docs if cache._docs_file(cache._shard(rel)) == shard]:
        del read.docs[rel]
    read.save(folder)
    assert removed == [shard] and not (folder / shard).exists()


def test_a_save_gathers_only_the_shards_of_documents_not_as_read(
    make_project, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """A save after reading the cache back works out the shard of the documents that are not
    the very ones read (parsed again, new, gone) only, not of every document (a pass over
    10,000 paths at every build of a big site), and writes what a save of every shard
    would: each shard read back holds the cache's documents of its paths."""
    docs, folder = saved_documents(make_project, tmp_path)
    read = BuildCache.load(folder)
    shard_of = cache._shard
    asked: list[str] = []

    def counted(rel: str) -> int:
        asked.append(rel)
        return shard_of(rel)

    monkeypatch.setattr(cache, "_shard", counted)
    read.save(folder)
    assert asked == []
    edited, gone = docs[0].rel, docs[1].rel
    key, digest, doc = read.docs[edited]
    read.docs[edited] = (key, digest, pickle.loads(pickle.dumps(doc)))  # (parsed again)
    del read.docs[gone]
    read.docs["content/en/posts/new.md"] = read.docs[docs[2].rel]
    read.save(folder)
    assert sorted(asked) == sorted([edited, gone, "content/en/posts/new.md"])
    again = BuildCache.load(folder)
    assert not again.note and again.docs.keys() == read.docs.keys()
    for rel, (key, digest, doc) in read.docs.items():
        assert again.docs[rel][:2] == (key, digest) and again.docs[rel][2] == doc
    monkeypatch.setattr(cache, "_shard", shard_of)
    assert {shard: dict(found) for shard, found in again._shards.items() if found} == {
        shard: {rel: again.docs[rel] for rel in again.docs if shard_of(rel) == shard}
        for shard in {shard_of(rel) for rel in again.docs}
    }


def test_the_field_names_of_documents_made_apart_are_read_back_as_one_string_each(
    make_project, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """Documents made apart (a cold build's workers send each one back pickled: its field
    names are strings of its own) are pickled with each field name once (out_of_band.py
    `_Pickler`): read back, equal to those saved, each name one string for all of them."""
    project: Path = make_project("minimal")
    loaded = load_content(project, load_config(project), Collector(), BuildCache()).documents
    apart = [pickle.loads(pickle.dumps(doc)) for doc in loaded]  # (as a worker's)
    names = [key for doc in apart for key in (*vars(doc), *vars(doc.meta))]
    assert len({id(key) for key in names}) > len(set(names))  # (strings of their own)
    value = {doc.rel: (None, doc.digest, doc) for doc in apart}
    back = out_of_band.loads(memoryview(b"".join(out_of_band.dumps(value))))
    assert back == value
    docs = [doc for _, _, doc in back.values()]
    names = [key for doc in docs for key in (*vars(doc), *vars(doc.meta))]
    assert len({id(key) for key in names}) == len(set(names))
    fields = [key for doc in docs for key in doc.meta.__pydantic_fields_set__]
    assert len({id(key) for key in fields}) == len(set(fields))


@pytest.mark.parametrize("damage", ["cut", "changed", "layout", "format"])
def test_a_shard_not_as_written_is_refused_and_said(
    make_project,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    damage: str,
) -> None:
    docs, folder = saved_documents(make_project, tmp_path)
    shard = sorted(folder.glob("build-docs-*.pickle"))[0]
    data = shard.read_bytes()
    if damage == "cut":
        shard.write_bytes(data[:-10])
    elif damage == "changed":
        shard.write_bytes(data[:-10] + bytes(10))
    elif damage == "layout":  # (signed, but its lengths say more than the file holds)
        payload = cache.read_signed(shard)
        write_signed(shard, [bytes(payload[:-1])])
    else:  # (a shard of the format before: the pickle alone)
        stamp, found = out_of_band.loads(cache.read_signed(shard))
        cache.save_signed(shard, (stamp, found))
    read = BuildCache.load(folder)
    assert f"{shard.name} ignored" in read.note, read.note
    assert len(read.docs) < len(docs)  # (its documents are parsed again by the build)


def test_a_file_of_out_of_band_pickles_reads_back_what_was_pickled() -> None:
    value = {"a": pickle.PickleBuffer(b"body one"), "b": [1, pickle.PickleBuffer(b"two")]}
    pieces = out_of_band.dumps(value)
    back = out_of_band.loads(memoryview(b"".join(pieces)))
    assert bytes(back["a"]) == b"body one" and bytes(back["b"][1]) == b"two"
    whole = b"".join(pieces)
    for cut in (len(whole) - 1, 20, 5):
        with pytest.raises(ValueError):
            out_of_band.loads(memoryview(whole[:cut]))


def test_a_file_of_out_of_band_pickles_naming_more_buffers_than_it_holds_is_refused() -> None:
    """(Its buffers' lengths read in one call: a count past the file's end is said, not
    read.)"""
    whole = b"".join(out_of_band.dumps({"a": pickle.PickleBuffer(b"body")}))
    n = int.from_bytes(whole[:8], "little")
    for count in (2, 2**61):
        lying = whole[: 8 + n] + count.to_bytes(8, "little") + whole[16 + n :]
        with pytest.raises(ValueError):
            out_of_band.loads(memoryview(lying))
