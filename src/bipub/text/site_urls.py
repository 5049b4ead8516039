"""The paths of a post's and a page's pages, and how a path is encoded: made here, below every
stage that needs them (render/urls.py has every other URL of the site and re-exports these)."""

from __future__ import annotations

import re
from urllib.parse import quote

# what quote() leaves as it is with safe="/-._~": a path made only of these is its own encoding
_UNRESERVED = re.compile(r"[A-Za-z0-9_.~/-]*")


def encode(path: str) -> str:
    """Percent-encode a path (Korean slugs become %XX), keeping '/'."""
    if _UNRESERVED.fullmatch(path):  # most paths (tens of thousands on a big site): unchanged
        return path
    return quote(path, safe="/-._~")


def post(lang: str, slug: str) -> str:
    return f"/{lang}/blog/{slug}/"


def page(lang: str, slug: str) -> str:
    return f"/{lang}/{slug}/"
