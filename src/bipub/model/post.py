"""Posts and pages: YAML front matter + Markdown body."""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime
from typing import Annotated, Any, Literal
from urllib.parse import unquote

from pydantic import AfterValidator, BeforeValidator, StrictBool, StrictInt, StrictStr

from bipub.model.fields import SHARED, Shared, Strict, Text

_SLUG_OK = re.compile(r"^[\w][\w\-.]*$", re.UNICODE)


def check_slug(value: str) -> str:
    """A slug is one path segment: no separators, no '..', no control/format/invisible characters."""
    value = unicodedata.normalize("NFC", value)
    bad = [
        ch
        for ch in value
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Co", "Cn")
        or ch in "\u3164\u115f\u1160\uffa0"
    ]
    if bad:
        names = ", ".join(f"U+{ord(ch):04X}" for ch in bad)
        raise ValueError(f"slug {value!r} contains invisible or control characters ({names})")
    if "/" in value or "\\" in value or value in (".", "..") or ".." in value:
        raise ValueError(f"slug {value!r} must be a single path segment (no '/', '\\' or '..')")
    if not _SLUG_OK.match(value):
        raise ValueError(
            f"slug {value!r} may contain only letters, digits, '-', '_' and '.', "
            "and must start with a letter or digit"
        )
    return value


Slug = Annotated[StrictStr, AfterValidator(check_slug), SHARED]


def check_lang(value: str) -> str:
    if not re.match(r"^[a-z]{2,3}(?:-[A-Z]{2})?$", value):
        raise ValueError(f"{value!r} is not a language code such as 'ko' or 'en'")
    return value


Lang = Annotated[StrictStr, AfterValidator(check_lang), SHARED]


_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATE_TIME = re.compile(
    r"^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)(Z|[+-]\d{2}:\d{2})?$"
)
POST_DATE_FORMS = "YYYY-MM-DD or an ISO 8601 date-time with offset (2026-04-08T10:00:00+09:00)"


def parse_post_date(value: Any) -> Any:
    """A post's `date`/`updated`: a date (`2026-04-08`) or an ISO 8601 date-time with an offset
    (`2026-04-08T10:00:00+09:00`, `...Z`), which orders posts of the same day and goes into the
    feeds and the sitemap. The date shown is the date as written (in its own offset)."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError(f"{value.isoformat()} has no offset; {POST_DATE_FORMS}")
        return value
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        if _DATE_ONLY.match(value):
            try:
                return date.fromisoformat(value)
            except ValueError:
                raise ValueError(f"{value} is not a valid date") from None
        m = _DATE_TIME.match(value)
        if m:
            if m.group(3) is None:
                raise ValueError(
                    f"{value} has no offset: add one, e.g. {m.group(1)}T{m.group(2)}+09:00 "
                    "(or Z for UTC), so that its time means one instant"
                )
            try:
                parsed = datetime.fromisoformat(value.replace(" ", "T", 1))
            except ValueError:
                raise ValueError(f"{value} is not a valid date-time") from None
            offset = parsed.utcoffset()
            if offset is not None and abs(offset.total_seconds()) >= 24 * 3600:
                raise ValueError(f"{value}: the offset is out of range")  # pragma: no cover
            return parsed
    raise ValueError(f"{value!r} is not a date; write it as {POST_DATE_FORMS}")


def check_image(value: str) -> str:
    if value.startswith(("https://", "http://")) and len(value) > 8:
        return value
    if value.startswith("/") and not value.startswith("//") and ".." not in value.split("/"):
        return value
    raise ValueError("must be an http(s) URL or a site path starting with '/' (e.g. /images/x.png)")


Image = Annotated[StrictStr, AfterValidator(check_image), SHARED]

# the names of files the site writes itself in a page's folder or a language's: an alias that
# makes a folder of one of them (`/ko/feed.xml/`) would need that file to be a folder
_SITE_FILES = frozenset(
    {"feed.xml", "feed.json", "card.png", "sitemap.xml", "robots.txt", "llms.txt"}
    | {"llms-full.txt", "404.html", "index.html", "favicon.ico"}
)


def check_alias(value: str) -> str:
    """An old URL of a post or page (front matter `aliases`), as a path of this site: it starts
    with '/', holds no query, fragment, scheme or host, and each of its segments is one a slug
    may be (`check_slug`: the one rule for a segment of a site path). Percent-escapes are
    decoded (an address bar's `/ko/blog/%EC%98%9B/` is `/ko/blog/옛/`). A path ending in
    `.html` is that file; any other is a folder (with or without its final '/'), written as
    its index.html. Returns the path in that form: `/ko/blog/old/` or `/ko/old.html`."""
    if value.startswith(("http://", "https://", "//")) or re.match(r"^[A-Za-z][\w+.-]*:", value):
        raise ValueError(
            f"{value!r} points outside the site: an alias is a path of this site, without "
            "scheme or host (base_url's path left out), as /<language>/blog/old-name/"
        )
    if not value.startswith("/"):
        raise ValueError(
            f"{value!r} is not a site path: write the old URL's path from the site's root, as "
            f"/<language>/blog/{value.strip('/') or 'old-name'}/ for a post's"
        )
    if "?" in value or "#" in value:
        raise ValueError(
            f"{value!r} has a query or fragment: an alias is a path only (a static site "
            "cannot tell /x?a=1 from /x)"
        )
    try:
        path = unquote(value, errors="strict")
    except UnicodeDecodeError:
        raise ValueError(f"{value!r} has percent-escapes that are not UTF-8") from None
    folder = not path.endswith(".html")
    segments = path[1:].removesuffix("/").split("/") if folder else path[1:].split("/")
    if segments == [""]:
        raise ValueError(f"{value!r} is the site's home page, which is bipub's own")
    for segment in segments:
        if segment == "":
            raise ValueError(f"{value!r} has an empty segment ('//')")
        if segment in (".", ".."):
            raise ValueError(
                f"{value!r}: '{segment}' segments are not allowed (no way out of the site)"
            )
        try:
            check_slug(segment)
        except ValueError as exc:
            said = str(exc).replace(f"slug {segment!r}", f"the segment {segment!r}", 1)
            raise ValueError(f"{value!r}: {said}") from None
    inside = len(segments) > 2 or folder  # (its file is in a folder named by segments[1])
    if inside and len(segments) > 1 and segments[1].casefold() == "pagefind":  # (Search.owns)
        raise ValueError(f"{value!r} would be inside a search index folder, the site's own")
    if folder and segments[-1].casefold() in _SITE_FILES:
        raise ValueError(f"{value!r} would make a folder of a file the site writes")
    normal = "/" + "/".join(unicodedata.normalize("NFC", s) for s in segments)
    return normal + "/" if folder else normal


Alias = Annotated[StrictStr, AfterValidator(check_alias)]

PostDate = Annotated[datetime | date, BeforeValidator(parse_post_date)]
"""A date, or a `datetime` with an offset (a subclass of date: `day_of` gives the date shown)."""


def day_of(value: date) -> date:
    """The calendar date a post date shows: a date-time's date in its own offset."""
    return value.date() if isinstance(value, datetime) else value


def instant_of(value: date) -> datetime | None:
    """The instant of a date-time with offset; None for a plain date."""
    return value if isinstance(value, datetime) else None


class FrontMatter(Strict):
    """Front matter of a post or page. In a translation, shared fields may be left out."""

    title: Text
    description: Text | None = None
    date: PostDate | None = None
    updated: PostDate | None = None
    tags: list[StrictStr] = []
    series: Text | None = None
    series_order: Annotated[StrictInt, SHARED] | None = None
    draft: Annotated[StrictBool, SHARED] = False
    slug: Slug | None = None
    key: Shared | None = None
    pdf: Annotated[StrictBool, SHARED] | None = None
    source_lang: Lang | None = None
    order: Annotated[StrictInt, SHARED] | None = None
    """Where the post goes among posts of the same day: higher is newer (listed first)."""
    image: Image | None = None
    """The link preview's picture (og:image): an http(s) URL or a site path such as
    /images/cover.png; without it a post gets a generated card (issue 19)."""
    aliases: list[Alias] = []
    """Old URLs of this version (site paths: `/ko/blog/old-name/`), each published as a page
    that sends the reader on to the version's URL (render/aliases.py)."""


Kind = Literal["posts", "pages"]
