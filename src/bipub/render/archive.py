"""The archive: one page a language (/<lang>/blog/archive/, bipub.yaml `outputs.archive`) listing
every post the language lists, newest first, under a heading for each year.

It is a listing page as the blog's are (render/html.py `_list_key`, `PageSpec.lists` and
`shape`): its fingerprint is made of its posts' card keys, so a new, deleted or re-dated post, or
a new title, renders it again, and an edit of a body alone does not (buildstate.carry keeps it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bipub.config import Language
from bipub.pair.model import Entry
from bipub.render import urls
from bipub.render.card_html import KeptCard
from bipub.render.page_plan import PageSpec
from bipub.render.views import PostCard


@dataclass(frozen=True)
class ArchiveYear:
    """The posts of one year, as the page lists them (`year` None: posts without a date)."""

    year: int | None
    posts: tuple[PostCard | KeptCard, ...]  # (a KeptCard shows as its card: card_html.py)


def by_year(cards: Sequence[PostCard | KeptCard]) -> list[ArchiveYear]:
    """`cards` (newest first) under their years, the latest year first and the posts without a
    date last. A post keeps its place in the list within its year: the post order goes by the
    instant a post is published, the year by the day it shows (a date-time written in another
    offset may show the day before or after)."""
    years: dict[int | None, list[PostCard | KeptCard]] = {}
    for card in cards:
        years.setdefault(card.date.year if card.date is not None else None, []).append(card)
    dated = sorted((y for y in years if y is not None), reverse=True)
    order: list[int | None] = [*dated, None] if None in years else list(dated)
    return [ArchiveYear(year, tuple(years[year])) for year in order]


def archive_spec(
    language: Language,
    posts: Sequence[Entry],
    keys: tuple[str, ...],
    card: Callable[[Entry, str], PostCard | KeptCard],
    list_key: Callable[[object, str, list[Entry], int, int, int], object],
) -> PageSpec:
    """The archive page of `language` listing `posts` (`keys`: theirs, in order; `card`: a
    post's card in the language, `list_key`: what a listing's fingerprint is made of, both the
    renderer's; `card` is `PageViews.shown_card`: a post's card, or a KeptCard whose row's
    HTML may be kept)."""
    lang = language.code
    listed = list(posts)
    total = len(listed)

    def context() -> dict[str, object]:
        return {"years": by_year([card(e, lang) for e in listed]), "total": total}

    return PageSpec(
        ("archive",),
        lang,
        urls.archive(lang),
        "archive.html",
        language.title,
        language.description,
        context,
        deps=lambda: list_key("archive", lang, listed, 1, 1, total),
        lists=keys,
        shape=("archive", 1, 1, total),
    )
