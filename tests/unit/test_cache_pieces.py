"""Pieces kept in segment files a head names (cache_pieces.py, restore.py's entries file): a save
writes only the pieces that are not those read, into one more segment; each segment is read only
with the signature the head names; a kill before the head is written leaves the old head's
segments as they were; too many unused bytes or segments write every piece again as one."""

from __future__ import annotations

from pathlib import Path

import pytest

from bipub import cache_pieces
from bipub.cache_pieces import Pieces, read_pieces, remove_unnamed, write_pieces
from bipub.cache_signed import UNREADABLE, write_signed

PREFIX = "entries-0123456789abcdef"


def _saved(folder: Path, pieces: dict[int, bytes], same: set[int], old: Pieces | None) -> Pieces:
    """`pieces` written as a save does (the head is what a reader is given), read back."""
    segments, places = write_pieces(folder, PREFIX, dict(pieces), same, old)
    remove_unnamed(folder, PREFIX, segments)
    found = read_pieces(folder, segments, places)
    assert {key: bytes(found.piece(key)) for key in found.places} == pieces
    return found


def _segment_files(folder: Path) -> set[str]:
    return {path.name for path in folder.glob(f"{PREFIX}-*.pickle")}


def test_a_save_writes_only_the_pieces_not_as_read(tmp_path: Path) -> None:
    pieces = {n: bytes([n]) * 1000 for n in range(8)}
    first = _saved(tmp_path, pieces, set(), None)
    assert len(first.segments) == 1
    changed = {**pieces, 3: b"three" * 100}
    same = set(pieces) - {3}
    second = _saved(tmp_path, changed, same, first)
    assert second.segments[0] == first.segments[0] and len(second.segments) == 2
    assert len(second.blobs[1]) == len(b"three" * 100)  # (only the changed piece written)
    assert _segment_files(tmp_path) == {name for name, _ in second.segments}


def test_too_many_unused_bytes_or_segments_write_every_piece_as_one(tmp_path: Path) -> None:
    pieces = {n: bytes([n]) * 1000 for n in range(4)}
    found = _saved(tmp_path, pieces, set(), None)
    pieces[0] = pieces[1] = b"new" * 10  # (half of the old bytes unused: all written again)
    found = _saved(tmp_path, pieces, {2, 3}, found)
    assert len(found.segments) == 1 and _segment_files(tmp_path) == {found.segments[0][0]}
    for n in range(cache_pieces.MAX_SEGMENTS + 1):  # (one small piece changed at each save)
        pieces[0] = bytes([n]) * 10
        found = _saved(tmp_path, pieces, {1, 2, 3}, found)
        assert len(found.segments) <= cache_pieces.MAX_SEGMENTS
    assert len(_segment_files(tmp_path)) == len(found.segments)


def test_a_segment_not_the_one_named_is_refused(tmp_path: Path) -> None:
    """A segment swapped for another file signed by this user, one damaged, missing, or a
    place outside its segment: never read as the head's."""
    segments, places = write_pieces(tmp_path, PREFIX, {0: b"a" * 100, 1: b"b" * 100}, set(), None)
    name = segments[0][0]
    write_signed(tmp_path / name, [b"c" * 200])  # (signed by this user, not the one named)
    with pytest.raises(UNREADABLE):
        read_pieces(tmp_path, segments, places)
    segments, places = write_pieces(tmp_path, PREFIX, {0: b"a" * 100}, set(), None)
    with pytest.raises(UNREADABLE):
        read_pieces(tmp_path, segments, {0: (0, 50, 150)})
    with pytest.raises(UNREADABLE):
        read_pieces(tmp_path, (("../x.pickle", segments[0][1]),), places)
    (tmp_path / segments[0][0]).unlink()
    with pytest.raises(UNREADABLE):
        read_pieces(tmp_path, segments, places)


def test_a_kill_before_the_head_leaves_the_old_head_whole(tmp_path: Path) -> None:
    """The new segment is written before the head: a kill before the head is written leaves
    the old head's segments as they were (the new one is removed by the next save)."""
    pieces = {n: bytes([n]) * 1000 for n in range(8)}
    old = _saved(tmp_path, pieces, set(), None)
    write_pieces(tmp_path, PREFIX, {**pieces, 0: b"x"}, set(pieces) - {0}, old)  # (killed)
    again = read_pieces(tmp_path, old.segments, old.places)
    assert {key: bytes(again.piece(key)) for key in again.places} == pieces
    assert len(_segment_files(tmp_path)) == 2
    _saved(tmp_path, pieces, set(pieces), again)
    assert _segment_files(tmp_path) == {name for name, _ in old.segments}
