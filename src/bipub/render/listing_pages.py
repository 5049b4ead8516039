"""The blog's and each tag's numbered list pages of a language (render/html.py
`HtmlRenderer.plan_blog` and `plan_tag` plan them, as render/archive.py makes the archive's
page): a page's `PageSpec` from its posts (`chunk`, newest first), their keys (`lists`, what
buildstate.carry compares) and the renderer's context and `_list_key` (what its fingerprint is
made of: `shape` holds its values but for the cards, render/page_plan.py `listing_values`)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from bipub.config import Language
from bipub.pair.site import Entry, Tag
from bipub.render import urls
from bipub.render.page_plan import PageSpec


def blog_page(
    language: Language,
    chunk: list[Entry],
    keys: tuple[str, ...],
    n: int,
    pages: int,
    context: Callable[..., dict[str, Any]],
    list_key: Callable[..., object],
) -> tuple[PageSpec]:
    """Page `n` of `pages` of the blog of `language`, listing `chunk` (`keys`: theirs)."""
    lang = language.code
    spec = PageSpec(
        ("blog", str(n)),
        lang,
        urls.blog(lang, n),
        "blog.html",
        language.title,
        language.description,
        partial(context, lang, chunk, n, pages),
        noindex=n > 1,
        deps=partial(list_key, "blog", lang, chunk, n, pages),
        lists=keys,
        shape=("blog", n, pages, 0),
    )
    return (spec,)


def tag_page(
    language: Language,
    tag: Tag,
    chunk: list[Entry],
    n: int,
    tag_pages: int,
    total: int,
    context: Callable[..., dict[str, Any]],
    list_key: Callable[..., object],
) -> tuple[PageSpec]:
    """Page `n` of `tag_pages` of `tag` in `language`, listing `chunk` of its `total` posts."""
    lang = language.code
    spec = PageSpec(
        ("tag", tag.slug, str(n)),
        lang,
        urls.tag(lang, tag.slug, n),
        "tag.html",
        f"#{tag.name}",
        language.description,
        partial(context, lang, tag, chunk, n, tag_pages, total),
        noindex=n > 1,
        deps=partial(list_key, tag, lang, chunk, n, tag_pages, total),
        lists=tuple([e.key for e in chunk]),
        shape=(tag, n, tag_pages, total),
    )
    return (spec,)
