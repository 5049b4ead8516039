"""Posts and pages: YAML front matter + Markdown body."""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Literal

from pydantic import AfterValidator, StrictBool, StrictInt, StrictStr

from bipub.model.fields import SHARED, IsoDate, Shared, Strict, Text

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


class FrontMatter(Strict):
    """Front matter of a post or page. In a translation, shared fields may be left out."""

    title: Text
    description: Text | None = None
    date: IsoDate | None = None
    updated: IsoDate | None = None
    tags: list[StrictStr] = []
    series: Text | None = None
    series_order: Annotated[StrictInt, SHARED] | None = None
    draft: Annotated[StrictBool, SHARED] = False
    slug: Slug | None = None
    key: Shared | None = None
    pdf: Annotated[StrictBool, SHARED] | None = None
    source_lang: Lang | None = None


Kind = Literal["posts", "pages"]
