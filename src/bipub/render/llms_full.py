"""A post's text in llms-full.txt, kept by where it is in the published file, not by its bytes.

Each post's text in a language's llms-full.txt (llms.full_post, UTF-8) is a part kept by what
it is made of (render/parts.py `Parts.llms_posts`). On a big site these texts are most of the
build state's parts (~64 of ~77 MB at 5,000 posts per language), which a build in a new process
would read back and unpickle only to join the file they came from again. So a text is kept as a
`FullText`: its digest and size, and its bytes only in the process that made or read them (a
`FullText` is pickled without them). With each llms-full.txt a build writes, it keeps the file's
*layout* (`layout`: where each text is in it, by the text's digest) as a part, by the hash of
the file's bytes (the hash the output's record keeps of the published file).

A build that must join the file again (`texts`) takes each text whose bytes it does not hold
from the published file: the file the output's record says is published at the language's path
(write/output.py `OutputTree.published_digest`), mapped (its bytes must be the ones the layout
was made of: the file of the identity the record keeps is taken as such, as the record vouches
for every published file; another is hashed again, BLAKE3, ~5 ms for 30 MB), at the place its
layout says. A text
missing there (no published file, no record of it, a file whose bytes are not those recorded,
no layout kept for it, a text not in it) is made again by the same function as in a full build
(`remake`: llms.full_post); `-v` says how many and why. The file joined is byte for byte the one
a full build joins: the same texts in the same order.
"""

from __future__ import annotations

import hashlib
import mmap
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from bipub.write.files import Pieces
from bipub.write.record import Identity, four, identity
from bipub.write.record import digest as file_digest

LAYOUT = "llms-full layout"  # (the key of a file's layout: `layout_key`)
Layout = dict[bytes, tuple[int, int]]  # a text's digest → (offset, size) in the file

T = TypeVar("T")


class FullText:
    """A post's text in llms-full.txt: its digest and size, and its bytes where this process
    made or read them (`data`; pickled without them: module text)."""

    __slots__ = ("data", "digest", "size")

    def __init__(self, data: bytes | None, digest: bytes, size: int) -> None:
        self.data = data
        self.digest = digest
        self.size = size

    @classmethod
    def of(cls, data: bytes) -> FullText:
        return cls(data, hashlib.blake2b(data, digest_size=16).digest(), len(data))

    def __reduce__(self) -> tuple[type[FullText], tuple[None, bytes, int]]:
        return (FullText, (None, self.digest, self.size))

    def __eq__(self, other: object) -> bool:  # (by what the text is: its digest and size)
        if not isinstance(other, FullText):
            return NotImplemented
        return self.digest == other.digest and self.size == other.size

    def __hash__(self) -> int:
        return hash((self.digest, self.size))

    def __repr__(self) -> str:
        return f"FullText({self.digest.hex()}, {self.size})"


def layout(
    data: bytes, frame: bytes, texts: Sequence[FullText], pieces: Sequence[bytes | memoryview]
) -> Layout:
    """Where each of `texts` (their bytes: `pieces`) is in `data`, the file llms.llms_full_txt
    joined of `frame` (the file without posts: its header, its CV, the posts' heading, then a
    line end) and `pieces` in their order, each after a blank line; a text found elsewhere than
    its place (the last one, if the file's strip reached into it) is left out."""
    out: Layout = {}
    at = len(frame) + 1  # (the frame's line end, then "\n\n" before each text)
    for text, piece in zip(texts, pieces, strict=True):
        if data.startswith(piece, at):
            out[text.digest] = (at, text.size)
        at += text.size + 2
    return out


Published = Callable[[], tuple[bytes | memoryview | None, Layout | None, str]]


def texts(
    fulls: Sequence[FullText],
    entries: Sequence[T],
    published: Published,
    remake: Callable[[T], bytes],
) -> tuple[list[bytes | memoryview], list[FullText], int, str]:
    """The bytes of each of `fulls` (the texts of `entries`, in their order): those held, else
    from the published file (`published()`: its bytes and the layout kept for them, or None and
    why not), else made again (`remake`). Returns them, the texts they are (a text made again
    with its bytes), how many were made again and why (for `-v`)."""
    return texts_at(fulls, entries, published, remake)[:4]


def texts_at(
    fulls: Sequence[FullText],
    entries: Sequence[T],
    published: Published,
    remake: Callable[[T], bytes],
) -> tuple[list[bytes | memoryview], list[FullText], int, str, list[int], memoryview | None]:
    """`texts`, with where each text taken from the published file is in it (-1: not taken
    from it) and that file's bytes (None: none read), for `join`."""
    at: list[int] = []
    out: list[bytes | memoryview] = []
    used = list(fulls)
    data: memoryview | None = None
    where: Layout = {}
    why = ""
    asked = False
    again = 0
    for n, (full, entry) in enumerate(zip(fulls, entries, strict=True)):
        found = full.data
        if found is not None:
            out.append(found)
            at.append(-1)
            continue
        if not asked:
            asked = True
            raw, kept, why = published()
            if raw is not None and kept is None:
                why = "no layout kept for the published file"
            elif raw is not None and kept is not None:
                data, where = memoryview(raw), kept
        place = where.get(full.digest)
        if data is not None and place is not None and place[1] == full.size:
            out.append(data[place[0] : place[0] + full.size])
            at.append(place[0])
            continue
        why = why or "a text not in the published file's layout"
        made = remake(entry)
        used[n] = FullText.of(made)
        out.append(made)
        at.append(-1)
        again += 1
    return out, used, again, why, at, data


SEP = b"\n\n"  # between two texts of the file (llms.llms_full_txt)


def join(
    before: bytes,
    pieces: Sequence[bytes | memoryview],
    fulls: Sequence[FullText],
    at: Sequence[int],
    data: memoryview | None,
) -> tuple[Pieces, Layout] | None:
    """llms-full.txt as llms.llms_full_txt joins it — `before` (its bytes before the first
    post: the header, the CV, the posts' heading), then each post's text (`pieces`, the bytes
    of `fulls`, none empty), each after a blank line, the last one's end stripped (str.rstrip),
    then a line end — as `Pieces`, not joined: the texts taken from the published file
    (`data`, at `at`: `texts_at`) in a row there are one slice of it, blank lines included
    (checked); and its layout (`layout`'s), where each text is. None if the last text is
    only spaces (the strip would reach the one before: llms_full_txt joins it)."""
    if not pieces:
        return None
    last = bytes(pieces[-1]).decode("utf-8").rstrip().encode("utf-8")
    if not last:
        return None
    out: list[bytes | memoryview] = [before]
    held: list[bytes | memoryview] = []  # (texts not in a row of the file, each after its SEP)

    def flush() -> None:  # (those texts as one piece: few write calls, whatever the file)
        if held:
            out.append(b"".join(held) if len(held) > 1 else held[0])
            held.clear()

    where: Layout = {}
    start = end = -1  # (the slice of `data` of the texts in a row: from, to)
    size = len(before)
    final = len(pieces) - 1
    source = data if data is not None else memoryview(b"")  # (no text taken: `at` all -1)
    for n, (text, full, found) in enumerate(zip(pieces, fulls, at, strict=True)):
        size += 2
        piece = last + b"\n" if n == final else text
        if n != final and found >= 2 and source[found - 2 : found] == SEP:
            if found - 2 != end:  # (not right after the last text in a row: a new row)
                if start >= 0:
                    out.append(source[start:end])
                flush()
                start = found - 2
            end = found + full.size
            where[full.digest] = (size, full.size)
            size += full.size
            continue
        if start >= 0:
            out.append(source[start:end])
            start = end = -1
        held += (SEP, piece)
        if n != final or bytes(piece).startswith(bytes(text)):  # (the last: if kept whole)
            where[full.digest] = (size, full.size)
        size += len(piece)
    flush()
    return Pieces(out), where


def read_published(
    path: Path, recorded: bytes | None, written: Identity | None = None
) -> tuple[bytes | memoryview | None, str]:
    """The bytes of the published file at `path` if they are those whose hash the output's
    record keeps (`recorded`), else None and why not. Mapped, not read (`_mapped`): the file is
    tens of MB, of which an update joins again all but the texts it changed. `written`: the
    identity the output's record keeps of the file (write/record.py `identity`): a file opened
    with that identity (mtime, ctime, size, inode) is the one recorded, as the record vouches
    for every published file it keeps (write/output.py `keep_each`), and is not hashed again
    (BLAKE3, ~5 ms for 30 MB); else its bytes are hashed and compared with `recorded`."""
    if recorded is None:
        return None, "the output's record does not vouch for the published file"
    try:
        raw, st = _mapped(path)
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        return None, f"the published file could not be read ({why})"
    if written is not None and st is not None and four(identity(st)) == four(written):
        return raw, ""
    if file_digest(raw) != recorded:
        return None, "the published file's bytes are not those recorded"
    return raw, ""


def _mapped(path: Path) -> tuple[bytes | memoryview, os.stat_result | None]:
    """The bytes of the file at `path`, mapped read-only (the page cache's pages, no copy of
    them nor fresh pages to fault in: ~2 ms for 30 MB, against ~30 ms to read them into a
    new buffer), with the status of the file mapped; an empty file's, b"" (nothing to map).
    bipub never changes a published file in place (write/files.py: unlink, then create), so the
    mapping is of bytes that stay. Read where a mapped file could not be removed (Windows: the
    publish swaps the folders; no status then)."""
    if os.name != "posix":
        return path.read_bytes(), None
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not st.st_size:
            return b"", st
        flags = mmap.MAP_PRIVATE | getattr(mmap, "MAP_POPULATE", 0)  # (Linux: mapped at once)
        return memoryview(mmap.mmap(fd, st.st_size, flags, mmap.PROT_READ)), st
    finally:
        os.close(fd)
