"""What a PDF may read: the fetch policy (pure: it reads only file-system metadata).

WeasyPrint resolves every URL of a document against the page's public URL (`PdfJob.base_url`,
e.g. https://example.org/ko/blog/alpha/), as a browser resolves it on the published page, and
asks the fetcher (render/pdf/engine.py) for it. `check_url` decides:

* a URL of the site (under one of the job's mounts: the site's base URL for `static/`, its
  `assets/` for the theme's static files, a post's page URL for the post's own folder) is read
  from the first folder that has the file, after percent-decoding; a `..` segment and a symbolic
  link that leads out of the folder are refused; no file is an error listing where it looked;
* `data:image/…` URLs are allowed (self-contained; an SVG's own references come back here);
  any other `data:` type is refused;
* `file:` URLs only inside the job's roots (configured font files, bipub's own), after
  resolving symbolic links;
* everything else — http(s) outside the site, ftp, file on another host, about: — is refused
  and never opened (no network at all, so no redirects). `<link rel=attachment>` is refused too.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, unquote_to_bytes, urlsplit

_ALLOWED_DATA = re.compile(r"^data:image/(png|jpeg|gif|webp|svg\+xml)[;,]", re.I)
ATTACHMENT = re.compile(r"<(?:link|a)\b[^>]*\brel\s*=\s*[\"']?[^\"'>]*\battachment\b", re.I)


class BlockedURL(ValueError):
    """A URL the PDF renderer may not read (recorded, and the render fails)."""


def check_url(
    url: str,
    roots: Iterable[str],
    mounts: Iterable[tuple[str, str]] = (),
    shown_from: str | None = None,
) -> tuple[str, Path | None]:
    """Classify a URL WeasyPrint wants to load: ('data', None), ('file', path) or raise.

    Raises BlockedURL with the reason. `shown_from`: a folder paths in messages are shown
    relative to (the project root)."""
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme == "data":
        if _ALLOWED_DATA.match(url):
            return "data", None
        raise BlockedURL("only data: URLs of PNG, JPEG, GIF, WebP or SVG images are allowed")
    bare = url.split("#", 1)[0].split("?", 1)[0]
    matching = [(prefix, folder) for prefix, folder in mounts if bare.startswith(prefix)]
    if matching:
        return "file", _mounted(bare, matching, shown_from)
    if scheme != "file":
        raise BlockedURL(
            f"{scheme or 'relative'} URLs are not fetched: a PDF may only use files of the site "
            "(static/, the theme's assets/) and of the project"
        )
    parts = urlsplit(url)
    if parts.netloc not in ("", "localhost"):
        raise BlockedURL("file URLs on another host are not read")
    raw = Path(unquote(parts.path))
    if ".." in raw.parts:
        raise BlockedURL(_dot_dot(parts.path, "the project"))
    try:
        resolved = raw.resolve(strict=False)
    except (OSError, RuntimeError) as exc:
        raise BlockedURL(f"cannot resolve the path ({exc})") from None
    for root in roots:
        if resolved.is_relative_to(Path(root).resolve()):
            if not resolved.is_file():
                raise BlockedURL("file not found")
            return "file", resolved
    if resolved != raw.absolute():
        raise BlockedURL(f"symbolic link to {resolved}, outside the project")
    raise BlockedURL("outside the project (a PDF may only use files inside the project)")


def _dot_dot(path: str, what: str) -> str:
    written = " (written %2e%2e)" if "%2e" in path.lower() else ""
    return f"a '..' segment{written} in the path, which would lead outside {what}"


def _mounted(url: str, mounts: list[tuple[str, str]], shown_from: str | None) -> Path:
    looked: list[str] = []
    for prefix, folder in mounts:
        rest = url[len(prefix) :]
        segments = unquote(rest).split("/")
        if ".." in segments:
            raise BlockedURL(_dot_dot(rest, "the site"))
        if "\\" in rest or "\x00" in unquote(rest):
            raise BlockedURL("a backslash or NUL in the path")
        base = Path(folder)
        candidate = base.joinpath(*[s for s in segments if s not in ("", ".")])
        looked.append(_shown(candidate, shown_from))
        if candidate.is_symlink() or any(p.is_symlink() for p in candidate.parents if p != base):
            resolved = candidate.resolve()
            if not resolved.is_relative_to(base.resolve()):
                raise BlockedURL(
                    f"{_shown(candidate, shown_from)} is a symbolic link to {resolved}, outside "
                    f"{_shown(base, shown_from)}"
                )
        if candidate.is_file():
            return candidate.resolve()
    raise BlockedURL(f"file not found (looked for {', '.join(looked)})")


def _shown(path: Path, shown_from: str | None) -> str:
    if shown_from is not None and path.is_relative_to(shown_from):
        return PurePosixPath(path.relative_to(shown_from)).as_posix()
    return str(path)


def decode_data_url(url: str) -> tuple[str, bytes]:
    """(media type, bytes) of a data: URL (RFC 2397)."""
    header, _, payload = url[5:].partition(",")
    params = header.split(";")
    mime = params[0] or "text/plain"
    if "base64" in params[1:]:
        return mime, base64.b64decode(unquote_to_bytes(payload), validate=False)
    return mime, unquote_to_bytes(payload)


def site_mounts(
    base_url: str, static: Path, theme_static: Path, page: tuple[str, Path] | None = None
) -> tuple[tuple[str, str], ...]:
    """Where the PDF reads a URL of the site from, in order: the project's static/ (published
    at the site's root), the theme's static files (published under assets/), and for a post
    the folder of its Markdown file under the page's URL (images beside the post)."""
    root = base_url if base_url.endswith("/") else base_url + "/"
    out = [(root, str(static)), (root + "assets/", str(theme_static))]
    if page is not None:
        out.append((page[0], str(page[1])))
    return tuple(out)
