"""render/llms_full.py: a post's llms-full.txt text kept as where the published file has it. The
published file is read back only if its bytes are those the output's record hashed (a file cut
or changed is refused, and said; the file of the identity the record keeps is not hashed again); a text is taken from it only where the layout kept for those
very bytes puts it, else made again (and said)."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from bipub.render import llms, llms_full
from bipub.render.llms_full import FullText, layout, read_published, texts
from bipub.write.record import digest as file_digest
from bipub.write.record import identity

FRAME = [b"# Site", b"## Posts"]
POSTS = [b"### one\n\nfirst text", "### 둘\n\n두 번째".encode(), b"### three\n\nlast text  "]


def _file() -> tuple[bytes, bytes, list[FullText]]:
    fulls = [FullText.of(p) for p in POSTS]
    return llms._joined(list(FRAME), POSTS), llms._joined(list(FRAME)), fulls


def test_a_text_is_pickled_without_its_bytes() -> None:
    full = FullText.of(POSTS[1])
    again = pickle.loads(pickle.dumps(full))
    assert again.data is None and again == full and again.size == len(POSTS[1])
    assert FullText.of(POSTS[0]) != full


def test_the_layout_puts_each_text_where_the_joined_file_has_it() -> None:
    data, frame, fulls = _file()
    where = layout(data, frame, fulls, POSTS)
    assert data[where[fulls[0].digest][0] :].startswith(POSTS[0])
    assert data[where[fulls[1].digest][0] :].startswith(POSTS[1])
    assert fulls[2].digest not in where  # (the last one's trailing spaces were stripped)


def test_texts_come_from_the_published_file_and_are_made_again_where_it_lacks_them() -> None:
    data, frame, fulls = _file()
    where = layout(data, frame, fulls, POSTS)
    read = [FullText(None, f.digest, f.size) for f in fulls]
    made: list[int] = []

    def remake(n: int) -> bytes:
        made.append(n)
        return POSTS[n]

    out, used, again, why = texts(read, [0, 1, 2], lambda: (data, where, ""), remake)
    assert [bytes(t) for t in out] == POSTS and used == fulls
    assert made == [2] and again == 1 and "not in the published file" in why
    assert llms._joined(list(FRAME), out) == data
    made.clear()
    out, _, again, why = texts(read, [0, 1, 2], lambda: (data, None, ""), remake)
    assert made == [0, 1, 2] and "no layout" in why
    made.clear()
    out, _, again, why = texts(read, [0, 1, 2], lambda: (None, None, "gone"), remake)
    assert made == [0, 1, 2] and why == "gone"
    made.clear()
    out, _, again, why = texts(fulls, [0, 1, 2], lambda: (None, None, "unused"), remake)
    assert made == [] and again == 0 and out == POSTS  # (held: the file is not asked for)


def test_a_place_of_another_size_is_not_taken() -> None:
    """A layout whose size for a text is not the text's (another format of it) is not used."""
    data, frame, fulls = _file()
    where = layout(data, frame, fulls, POSTS)
    at, size = where[fulls[0].digest]
    where[fulls[0].digest] = (at, size - 1)
    read = [FullText(None, f.digest, f.size) for f in fulls[:2]]
    out, _, again, _ = texts(read, [0, 1], lambda: (data, where, ""), lambda n: POSTS[n])
    assert again == 1 and [bytes(t) for t in out] == POSTS[:2]


def test_a_published_file_cut_or_changed_is_refused(tmp_path: Path) -> None:
    data, _, _ = _file()
    path = tmp_path / "llms-full.txt"
    path.write_bytes(data)
    recorded = file_digest(data)
    assert read_published(path, recorded) == (data, "")
    path.write_bytes(data[:-5])  # cut
    raw, why = read_published(path, recorded)
    assert raw is None and "not those recorded" in why
    path.write_bytes(data.replace(b"first", b"FIRST"))  # changed, same size
    raw, why = read_published(path, recorded)
    assert raw is None and "not those recorded" in why
    path.unlink()
    raw, why = read_published(path, recorded)
    assert raw is None and "could not be read" in why
    raw, why = read_published(path, None)
    assert raw is None and "record" in why


def test_a_published_file_with_its_recorded_identity_is_not_hashed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file the output's record names by its identity (mtime, ctime, size, inode) is taken
    as the bytes recorded, as every published file the record keeps; a file of another
    identity (written again since, even with the same bytes' size) is hashed and refused."""
    data, _, _ = _file()
    path = tmp_path / "llms-full.txt"
    path.write_bytes(data)
    recorded, written = file_digest(data), identity(os.stat(path))
    monkeypatch.setattr(llms_full, "file_digest", lambda _: pytest.fail("hashed again"))
    raw, why = read_published(path, recorded, written)
    assert raw is not None and bytes(raw) == data and why == ""
    monkeypatch.undo()
    path.unlink()
    path.write_bytes(data.replace(b"first", b"FIRST"))  # another file, the same size
    later = os.stat(path).st_mtime_ns + 10**9  # (its own time: timestamps are coarse)
    os.utime(path, ns=(later, later))
    raw, why = read_published(path, recorded, written)
    assert raw is None and "not those recorded" in why
