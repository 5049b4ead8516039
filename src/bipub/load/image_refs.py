"""The Markdown images a body writes (line, src): found once per document, when it is read
(load/content.py `Document.image_refs`: by the workers of a cold build, and kept with the
document in the build cache), and checked and probed by the pair stage (pair/assets.py)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it import __version__ as PARSER_VERSION

HAS_IMAGE = re.compile(r"!\[")
ImageRef = tuple[int, str]  # (line, src)

__all__ = ["HAS_IMAGE", "PARSER_VERSION", "ImageRef", "body_images", "markdown_images"]


def body_images(body: str) -> tuple[ImageRef, ...]:
    """The images of a body (line in the body from 0, src); a body without `![` (most of
    them) is not parsed."""
    return tuple(markdown_images(body, 0)) if HAS_IMAGE.search(body) else ()


def markdown_images(body: str, body_line: int) -> list[ImageRef]:
    """(line, src) of every image in a Markdown body (code spans and blocks excluded)."""
    tokens = _parser().parse(body)
    lines = body.splitlines()
    out: list[ImageRef] = []
    for token in tokens:
        if token.type != "inline" or not token.children:
            continue
        start, end = token.map if token.map else (0, 1)
        for child in token.children:
            if child.type != "image":
                continue
            src = str(child.attrs.get("src", ""))
            line = start
            for n in range(start, min(end, len(lines))):  # the line that writes it, if found
                if src in lines[n] or unquote(src) in lines[n]:
                    line = n
                    break
            out.append((body_line + line, src))
    return out


@lru_cache(maxsize=1)
def _parser() -> Any:
    md = MarkdownIt("commonmark", {"html": False})
    md.enable(["table", "strikethrough"])
    return md
