"""Posts and pages: YAML front matter + Markdown body."""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime
from typing import Annotated, Any, Literal

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


Kind = Literal["posts", "pages"]
