"""Field types shared by the content models, and the TEXT/SHARED markers.

Every string field of a content model is declared once as either
* `Text`   — prose to translate (each language has its own value), or
* `Shared` — the same in every language (URLs, images, e-mail, refs, icons, figures); a translation
  file leaves it out and gets the source's value.
The pairing and parity stages read these markers; nothing else decides what is translatable.
"""

from __future__ import annotations

import re
import types
import unicodedata
from datetime import date
from functools import lru_cache
from typing import Annotated, Any, ClassVar, Union, get_args, get_origin
from typing import Annotated as _A

from pydantic import BaseModel, BeforeValidator, ConfigDict, StrictBool, StrictInt, StrictStr


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


TEXT = _Marker("TEXT")
SHARED = _Marker("SHARED")

Text = Annotated[StrictStr, TEXT]
Shared = Annotated[StrictStr, SHARED]
SharedBool = Annotated[StrictBool, SHARED]
SharedInt = Annotated[StrictInt, SHARED]

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _parse_iso_date(value: Any) -> Any:
    if isinstance(value, date):
        return value
    if isinstance(value, str) and _ISO_DATE.match(value):
        try:
            return date.fromisoformat(value)
        except ValueError:
            raise ValueError(f"{value} is not a valid date") from None
    raise ValueError(f"{value!r} is not a date; write it as YYYY-MM-DD")


IsoDate = Annotated[date, BeforeValidator(_parse_iso_date)]


class Strict(BaseModel):
    """Base of every content and config model: unknown keys are errors, no type coercion."""

    # defer_build: a schema is built when a model first validates, not at import (a build
    # after one edit validates one front matter and no CV; `bipub --help` validates nothing)
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)


class ListItem(Strict):
    """An item of a list in a data file.

    `identity` names the shared fields (in order of preference) that identify the item across
    languages when it has no explicit `id`; with none, items pair by position.
    """

    identity: ClassVar[tuple[str, ...]] = ()
    id: Annotated[StrictStr | None, SHARED] = None
    # issue 18: whether the item is in the short CV PDF (true: shown even when its section is
    # not listed in bipub.yaml pdf.short.sections; false: left out even when it is). bipub's
    # own, like `id`: never in the JSON API (render/pdf/short.py reads it).
    short: Annotated[StrictBool | None, SHARED] = None


def marker_of(annotation_metadata: list[Any]) -> _Marker | None:
    for m in annotation_metadata:
        if m is TEXT or m is SHARED:
            return m
    return None


_SLUG_BAD = re.compile(r"[^\w\-]+", re.UNICODE)
_DASHES = re.compile(r"-{2,}")


# Unicode's Default_Ignorable_Code_Point: invisible, so a slug holding one looks like another.
# Most are Cf/Mn (dropped below anyway); the Hangul fillers are letters (Lo) and must go by name.
DEFAULT_IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)


@lru_cache(maxsize=65536)  # pure; a site's few tags are slugified for every post that has them
def slugify(value: str) -> str:
    """Lower-case, NFC, spaces and punctuation to '-'. Korean letters are kept (`KV 캐시` → `kv-캐시`).

    Idempotent; the result is one path segment without control or invisible characters."""
    value = unicodedata.normalize("NFC", unicodedata.normalize("NFC", value).strip().lower())
    value = DEFAULT_IGNORABLE.sub("", value)
    value = "".join(ch for ch in value if unicodedata.category(ch) not in ("Cf", "Cc"))
    value = _SLUG_BAD.sub("-", value.replace("_", "-"))
    return _DASHES.sub("-", value).strip("-")


FieldKind = str  # "text" | "shared" | "text_list" | "shared_list" | "model" | "model_list"


def classify(annotation: Any) -> tuple[FieldKind, type[BaseModel] | None]:
    """What a field holds, from its annotation: text, shared value, nested model, or lists of those."""

    origin = get_origin(annotation)
    if origin is _A:
        args = get_args(annotation)
        inner_kind, model = classify(args[0])
        if inner_kind == "shared" and TEXT in annotation.__metadata__:
            return "text", None
        return inner_kind, model
    if origin is list:
        (item,) = get_args(annotation)
        kind, model = classify(item)
        return f"{kind}_list", model
    if origin is Union or (origin is not None and str(origin) == "<class 'types.UnionType'>"):
        members = [a for a in get_args(annotation) if a is not type(None)]
        kinds = [classify(a) for a in members]
        for kind, model in kinds:
            if kind != "shared":
                return kind, model
        return "shared", None

    if isinstance(annotation, types.UnionType):
        return classify(__import__("typing").Union[annotation.__args__])
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "model", annotation
    return "shared", None


def field_kind(model: type[BaseModel], name: str) -> tuple[FieldKind, type[BaseModel] | None]:
    """Like `classify`, for a declared field (pydantic moves top-level Annotated metadata)."""
    info = model.model_fields[name]
    kind, inner = classify(info.annotation)
    if kind == "shared" and TEXT in info.metadata:
        return "text", None
    return kind, inner
