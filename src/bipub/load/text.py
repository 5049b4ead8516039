"""Read a source file as text: UTF-8 with or without BOM, CRLF accepted, NFC-normalized."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from bipub.diagnostics import Diagnostic


class TextDecodeError(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        self.diagnostic = diagnostic
        super().__init__(diagnostic.format())


def decode_text(data: bytes, rel: str) -> str:
    """Decode bytes strictly. Invalid UTF-8 is an error naming the file, line and byte offset."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start : exc.end].hex(" ")
        raise TextDecodeError(
            Diagnostic(
                rel,
                line,
                "encoding",
                f"invalid UTF-8 at byte offset {exc.start} (bytes {bad}); save the file as UTF-8",
            )
        ) from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return unicodedata.normalize("NFC", text)


def read_text(path: Path, rel: str) -> str:
    return decode_text(path.read_bytes(), rel)


class OutsideRootError(TextDecodeError):
    """A file that is a symbolic link or resolves outside its root (caught like a decode error)."""


def read_inside(path: Path, rel: str, root: Path) -> str:
    """`read_text` for a file of the project: a symbolic link, or a path that resolves outside
    `root` (component-wise, not a string prefix), is an error naming the file — never read."""
    if path.is_symlink() or not path.resolve().is_relative_to(root.resolve()):
        raise OutsideRootError(
            Diagnostic(
                rel,
                None,
                "symlink",
                "symbolic links are not followed (nor files outside the project)",
            )
        )
    return read_text(path, rel)
