"""Pieces of bytes kept in segment files that a head file names (restore.py's entries file: its
64 pieces of pickled rows): a save writes only the pieces that are not those read, into one more
segment file, and the head names each segment with its signature and where each piece is.

A save after one edit changed one piece of 64 (~140 KB of ~9 MB at 5,000 posts a language):
writing and signing the whole file again was most of the save. The segments are written
first, then the head (atomically, by its caller: a kill at any moment leaves the old head with
its segments or the new one with its), then the segment files the head no longer names are
removed. A segment is read only with the signature the head names (`read_signed`): a file
swapped for another one, even one signed by this user, is refused, as is a place outside its
segment. When the pieces no piece uses are more than a quarter of the bytes, or the segments
`MAX_SEGMENTS`, every piece is written again into one segment.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path

from bipub.cache_signed import ReadAhead, read_signed, write_signed

MAX_SEGMENTS = 8  # segment files of one head at most (then its pieces are written as one)

Segment = tuple[str, bytes]  # a segment file's name and signature
Place = tuple[int, int, int]  # a piece's segment (its index in the head's list), start, end


@dataclass(frozen=True)
class Pieces:
    """The segments a head names, their bytes as read, and where each piece is."""

    segments: tuple[Segment, ...] = ()
    blobs: tuple[memoryview, ...] = ()
    places: dict[int, Place] = field(default_factory=dict)

    def piece(self, key: int) -> memoryview:
        segment, start, end = self.places[key]
        return self.blobs[segment][start:end]


def read_pieces(
    folder: Path, segments: object, places: object, ahead: ReadAhead | None = None
) -> Pieces:
    """The segments a head names (`segments`, `places`: as the head holds them), each read
    only with its signature (`read_signed`). Raises cache_signed.UNREADABLE."""
    if not isinstance(segments, tuple) or not isinstance(places, dict):
        raise ValueError("not the segments of a head")
    blobs: list[memoryview] = []
    for name, signature in segments:
        if not isinstance(name, str) or "/" in name or name.startswith("."):
            raise ValueError("not the name of a segment")
        blobs.append(read_signed(folder / name, signature=signature, ahead=ahead))
    for segment, start, end in places.values():
        if not 0 <= segment < len(blobs) or not 0 <= start <= end <= len(blobs[segment]):
            raise ValueError("a piece out of its segment")
    return Pieces(segments, tuple(blobs), places)


def write_pieces(
    folder: Path,
    prefix: str,
    pieces: dict[int, bytes | memoryview],
    same: set[int],
    old: Pieces | None,
) -> tuple[tuple[Segment, ...], dict[int, Place]]:
    """Write `pieces` for a head to name (the segments and each piece's place, returned):
    those of `same` are `old`'s as they are, in its segments if each is still the file it
    names; the others go into one new segment file, `<prefix>-<random>.pickle` in `folder`
    (all of them, when too many bytes of the old segments are unused or they are too many).
    The caller writes the head, then `remove_unnamed`."""
    segments: list[Segment] = []
    places: dict[int, Place] = {}
    if old is not None and same and _still_there(folder, old.segments):
        used = sum(end - start for key in same for _, start, end in [old.places[key]])
        total = sum(map(len, old.blobs))
        if (total - used) * 4 <= total and len(old.segments) < MAX_SEGMENTS:
            kept = sorted({old.places[key][0] for key in same})
            at = {segment: n for n, segment in enumerate(kept)}
            segments = [old.segments[segment] for segment in kept]
            for key in same:
                segment, start, end = old.places[key]
                places[key] = (at[segment], start, end)
    fresh = [key for key in pieces if key not in places]
    if fresh:
        blobs: list[bytes | memoryview] = []
        offset = 0
        for key in fresh:
            blob = pieces[key]
            places[key] = (len(segments), offset, offset + len(blob))
            blobs.append(blob)
            offset += len(blob)
        name = f"{prefix}-{secrets.token_hex(8)}.pickle"
        segments.append((name, write_signed(folder / name, blobs)))
    return tuple(segments), places


def remove_unnamed(folder: Path, prefix: str, segments: tuple[Segment, ...]) -> None:
    """Remove the segment files of `prefix` that the head just written does not name."""
    named = {name for name, _ in segments}
    for path in folder.glob(f"{prefix}-*.pickle"):
        if path.name not in named:
            path.unlink(missing_ok=True)


def _still_there(folder: Path, segments: tuple[Segment, ...]) -> bool:
    """Whether each segment file is still the one named (another build into the same output
    folder may have saved its own since)."""
    for name, signature in segments:
        try:
            with open(folder / name, "rb") as f:
                if f.read(len(signature)) != signature:
                    return False
        except OSError:
            return False
    return True
