"""The Markdown images a body writes (line, src): found once per document, when it is read
(load/content.py `Document.image_refs`: by the workers of a cold build, and kept with the
document in the build cache), and checked and probed by the pair stage (pair/assets.py)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

HAS_IMAGE = re.compile(r"!\[")
ImageRef = tuple[int, str]  # (line, src)

__all__ = ["HAS_IMAGE", "ImageRef", "body_images", "markdown_images", "parser_version"]


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
def parser_version() -> str:
    """The version of markdown-it-py, which finds the images (kept with what it found: another
    version searches again), read from its installed metadata (the name of its `.dist-info`
    folder: dist_version.py, without `importlib.metadata`'s imports): markdown-it-py itself is
    imported only to parse a body with an image (~10 ms of a cold build's start otherwise,
    before its load stage's child is forked: load/ahead.py)."""
    from bipub.dist_version import version as dist_info_version

    found = dist_info_version("markdown-it-py", "markdown_it")
    if found is not None:
        return found
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("markdown-it-py")
    except PackageNotFoundError:  # pragma: no cover - (not installed as a distribution)
        from markdown_it import __version__

        return str(__version__)


@lru_cache(maxsize=1)
def _parser() -> Any:
    from markdown_it import MarkdownIt  # (imported here: see `parser_version`)

    md = MarkdownIt("commonmark", {"html": False})
    md.enable(["table", "strikethrough"])
    return md
