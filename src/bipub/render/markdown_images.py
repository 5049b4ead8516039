"""Local images in a rendered body (issue 19): their site paths, sizes, lazy loading and
variants (`mark_images`, on the parsed tokens), rendered as a <picture> with their sources
(`render_image`, the parser's `image` rule: render/markdown.py)."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any
from urllib.parse import quote

from markdown_it.token import Token

from bipub.pair.images import LocalImage


def mark_images(tokens: list[Token], images: Mapping[str, LocalImage], prefix: str) -> None:
    """Issue 19: a local image gets its width and height (no layout shift), `decoding="async"`,
    `loading="lazy"` unless it is the body's first image (likely in view), and its variants
    (rendered as <picture> sources by `render_image`), and its `src` is its site path. Remote
    images are left as written."""
    first = True
    for tok in tokens:
        if tok.type != "inline" or not tok.children:
            continue
        for child in tok.children:
            if child.type != "image":
                continue
            image = images.get(str(child.attrGet("src") or ""))
            lazy = not first
            first = False
            if image is None:
                continue
            # the file's site path, not the path as written: the body is also shown on pages at
            # other URLs (another language's page while it is untranslated, the side-by-side
            # view, feeds), where a relative path would name a file that is not there
            child.attrSet("src", prefix + quote(image.site_path, safe="/:@!$&'()*+,;=~-._"))
            info = image.info
            if info.width and info.height:
                child.attrSet("width", str(info.width))
                child.attrSet("height", str(info.height))
            if lazy:
                child.attrSet("loading", "lazy")
            child.attrSet("decoding", "async")
            if image.variants:
                href = {v.path: prefix + v.path for v in image.variants}
                child.meta["sources"] = [
                    (f"image/{fmt}", image.srcset(fmt, href)) for fmt in image.formats()
                ]
                child.meta["sizes"] = image.sizes


def render_image(
    self: Any, tokens: list[Token], idx: int, options: Any, env: Any
) -> str:  # a renderer rule: `self` is the renderer (RendererHTML)
    html: str = self.image(tokens, idx, options, env)
    sources = tokens[idx].meta.get("sources")
    if not sources:
        return html
    sizes = escape(tokens[idx].meta.get("sizes") or "")
    parts = [
        f'<source type="{escape(mime)}" srcset="{escape(srcset)}" sizes="{sizes}">'
        for mime, srcset in sources
    ]
    return f"<picture>{''.join(parts)}{html}</picture>"
