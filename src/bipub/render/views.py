"""View models: what templates, JSON and llms.txt see — built from the paired site, never the
content models themselves. Everything here is plain, immutable and already resolved.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence, Set
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from markupsafe import Markup, escape
from pydantic import BaseModel

from bipub.load.yaml_strict import Path_
from bipub.model.fields import field_kind
from bipub.render.urls import UrlBuilder
from bipub.render.urls import post as post_path
from bipub.render.urls import series as series_path

if TYPE_CHECKING:
    from bipub.pair.model import Series


class ForeignText(str):
    """Text shown in a language other than the page's (an untranslated CV field).

    Rendered by Jinja's autoescape through `__html__`, so every template marks it with its real
    `lang` and a class — no template has to remember to.
    """

    lang: str

    def __new__(cls, value: str, lang: str) -> ForeignText:
        obj = super().__new__(cls, value)
        obj.lang = lang
        return obj

    def __html__(self) -> str:
        return str(
            Markup('<span lang="{}" class="untranslated">{}</span>').format(
                self.lang, escape(str(self))
            )
        )


class MachineText(str):
    """A CV field shown as an unreviewed machine translation: marked like a machine-drafted
    post (class `machine-draft`), with the page's note explaining the mark."""

    def __reduce__(
        self,
    ) -> tuple[Any, ...]:  # pickles as itself, not as a plain str
        return (MachineText, (str(self),))

    def __html__(self) -> str:
        return str(Markup('<span class="machine-draft">{}</span>').format(escape(str(self))))


class View:
    """Named fields that templates read as attributes (`cv.experience`, `skill.items`).

    Not a dict subclass on purpose: a CV field called `items` must not resolve to `dict.items`.
    """

    __slots__ = ("_fields",)

    def __init__(self, **fields: Any) -> None:
        object.__setattr__(self, "_fields", dict(fields))

    def __getattr__(self, name: str) -> Any:
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setitem__(self, name: str, value: Any) -> None:
        self._fields[name] = value

    def __getitem__(self, name: str) -> Any:
        return self._fields[name]

    def __contains__(self, name: object) -> bool:
        return name in self._fields

    def get(self, name: str, default: Any = None) -> Any:
        return self._fields.get(name, default)

    def as_dict(self) -> dict[str, Any]:
        return dict(self._fields)

    def __repr__(self) -> str:
        return f"View({self._fields!r})"


class AttrView(View):
    """A View whose fields are also plain attributes: read as fast as any object's (a View's
    go through `__getattr__` after the attribute lookup failed: ~0.4 µs each), for the `site`
    of every page (~30 reads a page). A field named as a View method (`get`, `as_dict`) stays
    the method, as on a View; `[]`, `in` and `get` read the fields as a View's do."""

    __slots__ = ("__dict__",)

    def __init__(self, **fields: Any) -> None:
        super().__init__(**fields)
        self.__dict__.update({k: v for k, v in fields.items() if not hasattr(View, k)})

    def __setitem__(self, name: str, value: Any) -> None:
        super().__setitem__(name, value)
        if not hasattr(View, name):
            self.__dict__[name] = value


def cv_view(
    model: type[BaseModel],
    data: dict[str, Any],
    fallbacks: set[Path_],
    source_lang: str,
    drafts: set[Path_] | frozenset[Path_] = frozenset(),
) -> View:
    """Every field present (None or [] when absent); fallback text wrapped in ForeignText,
    unreviewed machine drafts in MachineText."""
    return _obj(model, data, (), fallbacks, source_lang, drafts)


def _mark(value: Any, p: Path_, fb: set[Path_], src: str, drafts: Set[Path_]) -> Any:
    if p in fb:
        return ForeignText(value, src)
    if p in drafts:
        return MachineText(value)
    return value


def _obj(
    model: type[BaseModel],
    data: dict[str, Any],
    path: Path_,
    fb: set[Path_],
    src: str,
    drafts: Set[Path_] = frozenset(),
) -> View:
    out = View()
    for name, info in model.model_fields.items():
        kind, inner = field_kind(model, name)
        value = data.get(name)
        p = (*path, name)
        if value is None:
            out[name] = [] if kind.endswith("_list") or kind == "model_list" else None
            if info.default not in (None, []) and not kind.endswith("list"):
                out[name] = info.default
        elif kind == "model" and inner is not None:
            out[name] = _obj(inner, value, p, fb, src, drafts)
        elif kind == "model_list" and inner is not None:
            out[name] = [_obj(inner, v, (*p, i), fb, src, drafts) for i, v in enumerate(value)]
        elif kind == "text":
            out[name] = _mark(value, p, fb, src, drafts)
        elif kind == "text_list":
            out[name] = [_mark(v, (*p, i), fb, src, drafts) for i, v in enumerate(value)]
        else:
            out[name] = value
    return out


@dataclass(frozen=True)
class LangLink:
    code: str
    name: str
    href: str
    available: bool  # False: no counterpart, href is that language's home
    current: bool
    # a list page (blog, tag) past the list's last page in that language: href is that last
    # page, not a counterpart (no rel=alternate)
    nearest: bool = False


@dataclass(frozen=True)
class Alternate:
    hreflang: str
    url: str


@dataclass(frozen=True)
class PageMeta:
    lang: str
    title: str
    description: str
    path: str
    href: str
    canonical: str
    alternates: tuple[Alternate, ...]
    switcher: tuple[LangLink, ...]
    og_type: str = "website"
    content_lang: str = ""
    noindex: bool = False
    image: str = ""  # og:image, an absolute URL (issue 19)
    card: bool = False  # the image is a card bipub draws (1200×630)
    title_lang: str = ""  # the language of `title` (PageSpec.title_lang, else content_lang)


@dataclass(frozen=True)
class TagLink:
    name: str
    slug: str
    href: str


@dataclass(frozen=True)
class PostCard:
    key: str
    title: str
    description: str
    href: str
    date: dt.date | None
    updated: dt.date | None
    tags: tuple[TagLink, ...]
    series: str | None
    series_href: str | None
    state: str  # source | translated | draft | stale | missing
    content_lang: str
    reading_minutes: int
    series_lang: str = ""  # the language `series` is written in (session 29: its `lang`)


@dataclass(frozen=True)
class SeriesNav:
    name: str
    href: str
    parts: tuple[tuple[int, str, str, bool], ...]  # (number, title, href, is_current)
    prev: tuple[str, str, str] | None  # (title, href, the title's language)
    next: tuple[str, str, str] | None
    # session 29: the languages of `name` and of each part's title (a post not translated yet
    # shows its original's), for their `lang` attributes
    name_lang: str = ""
    part_langs: tuple[str, ...] = ()
    # each part's translation state in the page's language (`Version.state`): the box badges
    # a part not translated yet, machine-drafted or outdated as the post cards do
    part_states: tuple[str, ...] = ()


def series_nav(
    url: UrlBuilder,
    lang: str,
    series: Series,
    shown: Sequence[tuple[str, str, str, str]],
    at: int | None,
) -> SeriesNav:
    """The series box and pager of a post page: the `series` in `lang`, its members' slugs,
    titles as `lang` shows them, the titles' languages and the members' translation states
    (`shown`, in series order), and the place of the page's own post among them."""
    parts = tuple(
        (i + 1, title, url.href(post_path(lang, member)), i == at)
        for i, (member, title, _, _) in enumerate(shown)
    )
    langs = tuple(title_lang for _, _, title_lang, _ in shown)
    states = tuple(state for _, _, _, state in shown)
    idx = at or 0
    prev = (*parts[idx - 1][1:3], langs[idx - 1]) if idx > 0 else None
    nxt = (*parts[idx + 1][1:3], langs[idx + 1]) if idx + 1 < len(parts) else None
    href = url.href(series_path(lang, series.slug))
    return SeriesNav(series.name, href, parts, prev, nxt, series.name_lang or lang, langs, states)


@dataclass(frozen=True)
class BodyPart:
    """A piece of a translation's page whose sections are out of step with its source's
    (render/both.py `page_parts`): the translation's own sections, or a source section that
    has no translation yet, shown in its place (`missing`) in its language."""

    html: Markup
    missing: bool = False
    lang: str = ""


@dataclass(frozen=True)
class PostView:
    card: PostCard
    html: Markup
    headings: tuple[Any, ...]
    series_nav: SeriesNav | None
    source_href: str | None  # the original, when this is a translation or a fallback
    source_lang: str
    pdf_href: str | None = None
    both_href: str | None = None  # issue 19: the side-by-side view (render/both.py)
    both_pdf_href: str | None = None  # issue 19: its bilingual PDF
    prev: PostLink | None = None  # issue 19: the post published before (post order)
    next: PostLink | None = None  # issue 19: the post published after
    # `html` in the pieces the template shows instead when the translation's sections are out
    # of step with the source's (a section inserted in it: pair/align.py); () when they are not
    parts: tuple[BodyPart, ...] = ()


@dataclass(frozen=True)
class PostLink:
    """A link to a neighbouring post: its title as the page's language shows it."""

    title: str
    href: str
    lang: str  # the title's language (a fallback shows the original's)


@dataclass(frozen=True)
class Pagination:
    page: int
    pages: int
    prev_href: str | None
    next_href: str | None
    window: tuple[tuple[int, str] | None, ...] = ()  # (number, href); None = skipped pages
