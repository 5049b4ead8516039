"""HTML pages: plan every page of every language, then render the requested languages.

Planning is cheap and covers all languages, so each page knows its counterparts (hreflang,
language switcher) even when only one language is rendered.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from bipub.diagnostics import Collector, Diagnostic, DiagnosticError
from bipub.load.content import Document
from bipub.model.fields import slugify
from bipub.pair.site import Entry, Series, Site, Tag, tags_of
from bipub.render import both, urls
from bipub.render.markdown import MarkdownCache, RenderedMarkdown
from bipub.render.templates import template_error
from bipub.render.views import (
    Alternate,
    LangLink,
    PageMeta,
    Pagination,
    PostCard,
    PostLink,
    PostView,
    SeriesNav,
    TagLink,
    View,
    cv_view,
)

Route = tuple[str, ...]
EntryId = tuple[str, str]  # (kind, key) of a post or page


@dataclass(frozen=True)
class PageSpec:
    route: Route
    lang: str
    path: str
    template: str
    title: str
    description: str
    context: Callable[[], dict[str, Any]]
    og_type: str = "website"
    content_lang: str = ""
    canonical_path: str | None = None  # another page is canonical (fallback content)
    noindex: bool = False
    deps: Callable[[], object] | None = None  # cheap summary of what the page is made from
    doc: Document | None = None  # the document whose body the page shows (posts and pages)
    lists: tuple[str, ...] = ()  # the keys of the posts whose cards it shows (listings)
    made_of: tuple[EntryId, ...] = ()  # a post's or page's: its entry and its series' members
    image: str | None = None  # og:image: a URL or site path (None: the language's site card)


@dataclass
class Plan:
    pages: dict[str, list[PageSpec]] = field(default_factory=dict)  # lang → pages
    routes: dict[Route, dict[str, PageSpec]] = field(default_factory=dict)  # route → lang → page

    paths: dict[str, PageSpec] = field(default_factory=dict)
    # each entry → the pages made of it (its own, its series' members') and showing its card
    shows: dict[EntryId, list[str]] = field(default_factory=dict)

    def add(self, spec: PageSpec) -> None:
        clash = self.paths.get(spec.path)
        if clash is not None:
            raise DiagnosticError(
                [
                    Diagnostic(
                        None,
                        None,
                        "url-clash",
                        f"two pages map to {spec.path}: {clash.template} {clash.route} "
                        f"and {spec.template} {spec.route}",
                    )
                ]
            )
        self.paths[spec.path] = spec
        self.pages.setdefault(spec.lang, []).append(spec)
        self.routes.setdefault(spec.route, {})[spec.lang] = spec
        for made_of in spec.made_of:
            self.shows.setdefault(made_of, []).append(spec.path)
        for key in spec.lists:
            self.shows.setdefault(("posts", key), []).append(spec.path)


def with_body(shell: PostView, rendered: RenderedMarkdown) -> PostView:
    """A post's view: its shell (HtmlRenderer.post_shell) with the rendered body."""
    return replace(
        shell,
        html=Markup(rendered.html),  # noqa: S704 - markdown-it output, raw HTML off by default
        headings=rendered.headings,
    )


def series_nav(
    url: urls.UrlBuilder,
    lang: str,
    name: str,
    slug: str,
    shown: Sequence[tuple[str, str]],
    at: int | None,
) -> SeriesNav:
    """The series box and pager of a post page: the series' `name` and `slug` in `lang`, its
    members' slugs and titles as `lang` shows them (`shown`, in series order), and the place of
    the page's own post among them."""
    parts = tuple(
        (i + 1, title, url.href(urls.post(lang, member)), i == at)
        for i, (member, title) in enumerate(shown)
    )
    idx = at or 0
    prev = parts[idx - 1][1:3] if idx > 0 else None
    nxt = parts[idx + 1][1:3] if idx + 1 < len(parts) else None
    return SeriesNav(name, url.href(urls.series(lang, slug)), parts, prev, nxt)


class HtmlRenderer:
    def __init__(
        self,
        site: Site,
        rendered: MarkdownCache,  # each body rendered once per build
        url: urls.UrlBuilder,
    ) -> None:
        self.site = site
        self.config = site.config
        self.rendered = rendered
        self.url = url
        self.site_root: Path | None = None
        self._site_cache: dict[str, View] = {}
        self._cards: dict[tuple[str, str, str], PostCard] = {}
        self._card_key_memo: dict[tuple[str, str, str], str] = {}
        self._made_card_keys: list[tuple[tuple[str, str, str], str]] = []  # (made_card_keys)
        self._slugs: dict[tuple[str, str, str], set[str]] = {}
        self._tag_links: dict[tuple[str, str], TagLink] = {}  # (lang, slug) → its link
        self._pdf_posts: dict[str, set[str]] = {}
        self._sections = both.SectionCache(site.config.outputs.raw_html, rendered)  # issue 19
        # lang → post key → (the post before it, the post after it), in post order
        self._neighbours: dict[str, dict[str, tuple[Entry | None, Entry | None]]] = {}
        # page (its URL path) → its fingerprint, known without working it out (buildstate.py:
        # its entries did not change since the build that worked it out)
        self.known: dict[str, str] = {}

    # ------------------------------------------------------------------ planning
    def plan(self) -> Plan:
        plan = Plan()
        for lang in self.config.codes:
            self._plan_lang(plan, lang)
        return plan

    def _plan_lang(self, plan: Plan, lang: str) -> None:
        site, cfg = self.site, self.config
        language = cfg.language(lang)
        posts = site.posts(lang)
        self.plan_home(plan, lang, posts)
        self.plan_cv_page(plan, lang)
        self.plan_blog(plan, lang, posts)
        for entry in posts:
            self._plan_entry(plan, lang, entry)
            self._plan_both(plan, lang, entry)
        for entry in site.pages(lang):
            self._plan_entry(plan, lang, entry)
        by_tag: dict[str, list[Entry]] = {}
        for entry in posts:
            for slug in sorted(self._tag_slugs(entry, lang)):
                by_tag.setdefault(slug, []).append(entry)
        tags = site.tags.get(lang, {})
        self.plan_tag_cloud(plan, lang, tags, {slug: len(by_tag.get(slug, ())) for slug in tags})
        for slug, tag in tags.items():
            self.plan_tag(plan, lang, tag, by_tag.get(slug, []))
        if cfg.outputs.search:  # issue 19: the search page (render/search.py builds its index)
            bundle = self.url.href(urls.search(lang)[: -len("search/")] + "pagefind/")
            plan.add(
                PageSpec(
                    ("search",),
                    lang,
                    urls.search(lang),
                    "search.html",
                    language.title,
                    language.description,
                    lambda: {"search": View(bundle=bundle)},
                    noindex=True,
                    deps=lambda: ("search", bundle),
                )
            )
        for series in site.series.get(lang, {}).values():
            plan.add(
                PageSpec(
                    ("series", series.entries[0].key),
                    lang,
                    urls.series(lang, series.slug),
                    "series.html",
                    series.name,
                    language.description,
                    partial(self.series_context, lang, series),
                    deps=partial(self._list_key, series.name, lang, list(series.entries), 1, 1),
                )
            )

    def plan_home(self, plan: Plan, lang: str, posts: Sequence[Entry]) -> None:
        """The home page: the CV and the latest of `posts` (newest first)."""
        language = self.config.language(lang)
        latest = list(posts[: self.config.outputs.latest_posts])
        plan.add(
            PageSpec(
                ("home",),
                lang,
                urls.home(lang),
                "home.html",
                language.title,
                language.description,
                lambda: self._home_context(lang, latest),
                og_type="profile",
                deps=lambda: ("home", self._cv_key(lang), self._card_keys(latest, lang)),
                lists=tuple(e.key for e in latest),
            )
        )

    def plan_cv_page(self, plan: Plan, lang: str) -> None:
        """bipub.yaml `home: blog`: the full CV at /<lang>/cv/ (issue 18)."""
        if self.config.home != "blog" or lang not in self.site.cv:
            return
        language = self.config.language(lang)
        plan.add(
            PageSpec(
                ("cv",),
                lang,
                urls.cv(lang),
                "home.html",
                language.title,
                language.description,
                lambda: {**self._home_context(lang, []), "home_mode": "cv"},
                og_type="profile",
                deps=lambda: ("cv", self._cv_key(lang)),
            )
        )

    def plan_blog(self, plan: Plan, lang: str, posts: Sequence[Entry]) -> None:
        """The blog's pages: `posts` (newest first), `posts_per_page` to a page."""
        language = self.config.language(lang)
        per_page = self.config.posts_per_page
        pages = max(1, math.ceil(len(posts) / per_page))
        for n in range(1, pages + 1):
            chunk = list(posts[(n - 1) * per_page : n * per_page])
            plan.add(
                PageSpec(
                    ("blog", str(n)),
                    lang,
                    urls.blog(lang, n),
                    "blog.html",
                    language.title,
                    language.description,
                    partial(self._listing_context, lang, chunk, n, pages),
                    noindex=n > 1,
                    deps=partial(self._list_key, "blog", lang, chunk, n, pages),
                    lists=tuple(e.key for e in chunk),
                )
            )

    def plan_tag_cloud(
        self, plan: Plan, lang: str, tags: dict[str, Tag], counts: dict[str, int]
    ) -> None:
        """The page of all tags of a language (`counts`: how many posts have each)."""
        language = self.config.language(lang)
        plan.add(
            PageSpec(
                ("tags",),
                lang,
                urls.tags(lang),
                "tags.html",
                language.title,
                language.description,
                lambda: {"tags": self.tag_cloud(lang, tags, counts)},
                deps=lambda: ("tags", self.tag_cloud(lang, tags, counts)),
            )
        )

    def plan_tag(self, plan: Plan, lang: str, tag: Tag, members: Sequence[Entry]) -> None:
        """A tag's pages: its posts (`members`, newest first), `posts_per_page` to a page."""
        language = self.config.language(lang)
        per_page = self.config.posts_per_page
        slug = tag.slug
        tag_pages = max(1, math.ceil(len(members) / per_page))
        for n in range(1, tag_pages + 1):
            chunk = list(members[(n - 1) * per_page : n * per_page])
            plan.add(
                PageSpec(
                    ("tag", slug, str(n)),
                    lang,
                    urls.tag(lang, slug, n),
                    "tag.html",
                    f"#{tag.name}",
                    language.description,
                    partial(self._tag_context, lang, tag, chunk, n, tag_pages, len(members)),
                    noindex=n > 1,
                    deps=partial(self._list_key, tag, lang, chunk, n, tag_pages, len(members)),
                    lists=tuple(e.key for e in chunk),
                )
            )

    def _plan_entry(self, plan: Plan, lang: str, entry: Entry) -> None:
        version = entry.versions[lang]
        doc = version.doc
        path = urls.post(lang, entry.slug) if entry.kind == "posts" else urls.page(lang, entry.slug)
        canonical = None
        if version.is_fallback:
            src = entry.source_lang
            canonical = (
                urls.post(src, entry.slug) if entry.kind == "posts" else urls.page(src, entry.slug)
            )
        plan.add(
            PageSpec(
                ("post" if entry.kind == "posts" else "page", entry.key),
                lang,
                path,
                "post.html" if entry.kind == "posts" else "page.html",
                doc.meta.title,
                doc.meta.description or "",
                lambda: {"post": self._post_view(entry, lang)},
                deps=partial(self._post_key, entry, lang),
                og_type="article" if entry.kind == "posts" else "website",
                content_lang=doc.lang,
                canonical_path=canonical,
                doc=doc,
                made_of=self._made_of(entry, lang),
                image=_og_image(entry, path),
            )
        )

    def _plan_both(self, plan: Plan, lang: str, entry: Entry) -> None:
        """A post's side-by-side page (issue 19, render/both.py), if it has one in `lang`."""
        other = both.partner(self.site, entry, lang)
        if other is None:
            return
        doc = entry.versions[lang].doc
        plan.add(
            PageSpec(
                ("both", entry.key),
                lang,
                urls.both(lang, entry.slug),
                "both.html",
                doc.meta.title,
                doc.meta.description or "",
                lambda: {"both": self.both_view(entry, lang, other)},
                noindex=True,  # the post pages' text again: not for search engines
                deps=partial(self._both_key, entry, lang, other),
                made_of=((entry.kind, entry.key),),
            )
        )

    def both_view(self, entry: Entry, lang: str, other: str) -> both.BothView:
        """The view of a post's side-by-side page in `lang`, `other` beside it."""
        return both.both_view(
            self.site,
            entry,
            lang,
            other,
            self._sections,
            lambda code: self.url.href(urls.post(code, entry.slug)),
            self._both_pdf_href(entry, lang),
        )

    def _both_key(self, entry: Entry, lang: str, other: str) -> object:
        docs = tuple((d.rel, d.digest) for d in (entry.docs[lang], entry.docs[other]))
        names = tuple(self.config.language(code).name for code in (lang, other))
        return (
            docs,
            names,
            both.review_key(self.site, entry),
            self.config.outputs.raw_html,
            self._both_pdf_href(entry, lang),
        )

    def _both_pdf_href(self, entry: Entry, lang: str) -> str | None:  # issue 19
        from bipub.render.pdf import both_pdf_path  # (does not import WeasyPrint)

        path = both_pdf_path(self.site, entry, lang)
        return self.url.href(path) if path is not None else None

    def neighbours(self, entry: Entry, lang: str) -> tuple[Entry | None, Entry | None]:
        """The posts published just before and just after `entry` in `lang`'s post order
        (drafts left out, as the listings leave them out); (None, None) for a page."""
        table = self._neighbours.get(lang)
        if table is None:
            posts = self.site.posts(lang)  # newest first
            table = self._neighbours[lang] = {
                e.key: (
                    posts[i + 1] if i + 1 < len(posts) else None,
                    posts[i - 1] if i > 0 else None,
                )
                for i, e in enumerate(posts)
            }
        return table.get(entry.key, (None, None)) if entry.kind == "posts" else (None, None)

    def _post_link(self, entry: Entry | None, lang: str) -> PostLink | None:
        if entry is None:
            return None
        card = self._card(entry, lang)
        return PostLink(card.title, card.href, card.content_lang)

    def _made_of(self, entry: Entry, lang: str) -> tuple[EntryId, ...]:
        """The entries a post's or page's page is made of: its own, its series' members (the
        series box shows their titles) and the posts before and after it (issue 19)."""
        made: list[EntryId] = [(entry.kind, entry.key)]
        series = self.site.series_by_entry.get((lang, entry.key))
        if series is not None:
            made.extend((m.kind, m.key) for m in series.entries)
        made.extend((n.kind, n.key) for n in self.neighbours(entry, lang) if n is not None)
        return tuple(made)

    # ------------------------------------------------------------------ fingerprints
    def fingerprint(self, plan: Plan, spec: PageSpec, global_key: str) -> str | None:
        """A hash of everything the page is made from, or None if it cannot be summarized."""
        known = self.known.get(spec.path)
        if known is not None:
            return known
        if spec.deps is None:
            return None
        siblings = plan.routes.get(spec.route, {})
        meta = tuple(
            (code, s.path, s.canonical_path, s.noindex) for code, s in sorted(siblings.items())
        )
        summary = (global_key, spec.template, spec.path, spec.title, spec.canonical_path, meta)
        data = repr((summary, spec.deps())).encode("utf-8")
        return hashlib.sha256(data).hexdigest()

    def entry_key(self, entry: Entry) -> str:
        """What an entry's own pages and its card are made of in every language, but for the
        site-wide key (`global_key`): its documents' bytes, translation states, dates and slug,
        its tags' shown names, its series (name and members) and its PDF. An entry with the
        same key as in the last build has the same card; its pages, if their series' members
        too have the same keys, have the same fingerprints (buildstate.py)."""
        parts: list[object] = [entry.slug, entry.source_lang, entry.date, entry.updated]
        parts.append(entry.series_order)
        for lang, version in sorted(entry.versions.items()):
            doc = version.doc
            series = self.site.series_by_entry.get((lang, entry.key))
            parts.append(
                (
                    lang,
                    doc.rel,
                    doc.digest,
                    self.site.images.key(doc.rel),  # issue 19: its images' sizes, variants
                    version.state,
                    version.stale_keys,
                    version.draft_keys,
                    tuple((link.name, link.slug) for link in self.card_tags(entry, lang)),
                    (series.name, series.slug, tuple(e.key for e in series.entries))
                    if series is not None
                    else None,
                    self._post_pdf_href(entry, lang),
                    # issue 19: its neighbours in the post order (a post added, deleted or
                    # re-dated changes them) and what its side-by-side pages show
                    tuple(n.key if n is not None else None for n in self.neighbours(entry, lang)),
                    self._both_pdf_href(entry, lang),
                )
            )
        parts.append(both.review_key(self.site, entry))
        return hashlib.sha256(repr(parts).encode("utf-8")).hexdigest()

    def card_keys(self) -> dict[tuple[str, str, str], str]:
        """The keys of the cards made so far, by (kind, key, language)."""
        return dict(self._card_key_memo)

    def reuse_card_keys(self, keys: dict[tuple[str, str, str], str]) -> None:
        """Card keys from the last build of entries whose `entry_key` did not change (or made
        by a render worker: `made_card_keys`)."""
        self._card_key_memo.update(keys)

    def made_card_keys(self) -> list[tuple[tuple[str, str, str], str]]:
        """The card keys made since the last call: a worker that fingerprints pages sends them
        to the build's process, so that the BuildState keeps every card key (buildstate.py)."""
        made, self._made_card_keys = self._made_card_keys, []
        return made

    def _card_key(self, entry: Entry, lang: str) -> str:
        """What a post's card shows, as a string (memoized: a card is on many pages). The card
        itself, not its document's digest: an edit that leaves the card as it was (a typo fixed
        in the body) changes no listing's fingerprint."""
        memo = (entry.kind, entry.key, lang)
        key = self._card_key_memo.get(memo)
        if key is None:
            # a digest, not the repr itself: the fingerprints of the pages that show the card
            # repr it again, and a short ASCII string costs far less to repr than a Korean one
            card = repr(self._card(entry, lang)).encode("utf-8")
            key = self._card_key_memo[memo] = hashlib.sha256(card).hexdigest()
            self._made_card_keys.append((memo, key))
        return key

    def _card_keys(self, entries: list[Entry], lang: str) -> tuple[object, ...]:
        return tuple(self._card_key(e, lang) for e in entries)

    def _list_key(
        self, what: object, lang: str, chunk: list[Entry], n: int, pages: int, total: int = 0
    ) -> object:
        return (repr(what), n, pages, total, self._card_keys(chunk, lang))

    def _post_key(self, entry: Entry, lang: str) -> object:
        version = entry.versions[lang]
        series = self.site.series_by_entry.get((lang, entry.key))
        members = self._card_keys(list(series.entries), lang) if series else ()
        return (
            self._card_key(entry, lang),
            version.doc.rel,
            version.doc.digest,  # the body it shows
            self.site.images.key(version.doc.rel),  # and its images (issue 19)
            version.stale_keys,
            version.draft_keys,
            entry.source_lang,
            members,
            self._post_pdf_href(entry, lang),
            # issue 19: the side-by-side view and its PDF, the posts before and after it
            both.partner(self.site, entry, lang),
            self._both_pdf_href(entry, lang),
            tuple(
                self._card_key(n, lang) if n is not None else None
                for n in self.neighbours(entry, lang)
            ),
        )

    def _cv_key(self, lang: str) -> object:
        merged = self.site.cv.get(lang)
        if merged is None:
            return None
        return (
            self.site.images.cv_key(),  # issue 19: the CV images' sizes and variants
            repr(merged.data),
            tuple(sorted(map(repr, merged.fallbacks))),
            merged.source_lang,
            tuple(sorted(map(repr, merged.drafts))),
        )

    def global_key(self, extra: str) -> str:
        """Everything every page depends on: `extra` (templates, catalogs, config, version) and
        the site-wide context of each language."""
        data = repr((extra, [self.site_view(lang) for lang in self.config.codes]))
        return hashlib.sha256(data.encode("utf-8")).hexdigest()

    # ------------------------------------------------------------------ contexts
    def _listing_context(self, lang: str, chunk: list[Entry], n: int, pages: int) -> dict[str, Any]:
        return {
            "posts": [self._card(e, lang) for e in chunk],
            "pagination": self._pagination(partial(urls.blog, lang), n, pages),
        }

    def _tag_context(
        self, lang: str, tag: Tag, chunk: list[Entry], n: int, pages: int, total: int
    ) -> dict[str, Any]:
        return {
            "tag": tag,
            "posts": [self._card(e, lang) for e in chunk],
            "total": total,
            "pagination": self._pagination(partial(urls.tag, lang, tag.slug), n, pages),
            "feeds": self.feed_links(urls.tag(lang, tag.slug)) if total else [],
        }

    def series_context(self, lang: str, series: Series) -> dict[str, Any]:
        """A series page's: the series and its members' cards (and its feeds: issue 19)."""
        posts = [self._card(e, lang) for e in series.entries]
        shown = any(not e.versions[lang].doc.meta.draft for e in series.entries)
        feeds = self.feed_links(urls.series(lang, series.slug)) if shown else []
        return {"series": series, "posts": posts, "feeds": feeds}

    def feed_links(self, page: str) -> list[View]:
        """The feeds of a tag's or series' page (render/feeds.py: beside the page)."""
        return [
            View(type="application/atom+xml", href=self.url.href(page + "feed.xml")),
            View(type="application/feed+json", href=self.url.href(page + "feed.json")),
        ]

    # ------------------------------------------------------------------ view pieces
    def _tag_slugs(self, entry: Entry, lang: str) -> set[str]:
        key = (entry.kind, entry.key, lang)
        slugs = self._slugs.get(key)
        if slugs is None:
            slugs = self._slugs[key] = {slugify(t) for t in tags_of(entry, lang)}
        return slugs

    def tag_cloud(
        self, lang: str, tags: dict[str, Tag], counts: dict[str, int]
    ) -> list[tuple[TagLink, int]]:
        out = [(self._tag_link(lang, slug, tag), counts.get(slug, 0)) for slug, tag in tags.items()]
        return sorted(out, key=lambda tc: (-tc[1], tc[0].slug))

    def _tag_link(self, lang: str, slug: str, tag: Tag) -> TagLink:
        """The link to a tag's page (the same on every card that shows the tag: made once)."""
        key = (lang, slug)
        link = self._tag_links.get(key)
        if link is None:
            link = self._tag_links[key] = TagLink(
                tag.name, slug, self.url.href(urls.tag(lang, slug))
            )
        return link

    def card(self, entry: Entry, lang: str) -> PostCard:
        """A post's card (as every listing shows it)."""
        return self._card(entry, lang)

    def _card(self, entry: Entry, lang: str) -> PostCard:
        key = (entry.kind, entry.key, lang)
        card = self._cards.get(key)
        if card is None:
            card = self._cards[key] = self._make_card(entry, lang)
        return card

    def _make_card(self, entry: Entry, lang: str) -> PostCard:
        version = entry.versions[lang]
        doc = version.doc
        tag_links = self.card_tags(entry, lang)
        series = self.site.series_by_entry.get((lang, entry.key))
        series_name = series.name if series else None
        series_href = self.url.href(urls.series(lang, series.slug)) if series else None
        href = self.url.href(
            urls.post(lang, entry.slug) if entry.kind == "posts" else urls.page(lang, entry.slug)
        )
        return PostCard(
            entry.key,
            doc.meta.title,
            doc.meta.description or "",
            href,
            entry.date,
            entry.updated,
            tag_links,
            series_name,
            series_href,
            version.state,
            doc.lang,
            self.minutes_of(doc),
        )

    def card_tags(self, entry: Entry, lang: str) -> tuple[TagLink, ...]:
        """The links to the tags of a post's card, in its front matter's order."""
        tags = self.site.tags.get(lang, {})
        tag_links: list[TagLink] = []
        seen: set[str] = set()
        for t in tags_of(entry, lang):
            slug = slugify(t)
            if slug in tags and slug not in seen:
                seen.add(slug)
                tag_links.append(self._tag_link(lang, slug, tags[slug]))
        return tuple(tag_links)

    def minutes_of(self, doc: Document) -> int:
        """The document's reading time (worked out once per document, kept with it in the
        build cache: load/content.py)."""
        return doc.reading_minutes

    def _post_view(self, entry: Entry, lang: str) -> PostView:
        doc = entry.versions[lang].doc
        rendered = self.rendered(doc)
        return with_body(self.post_shell(entry, lang), rendered)

    def post_shell(self, entry: Entry, lang: str) -> PostView:
        """The view of a post or page without its body (`with_body` adds it): all the page
        shows that is not its document's Markdown."""
        version = entry.versions[lang]
        nav = None
        series = self.site.series_by_entry.get((lang, entry.key))
        if entry.kind == "posts" and series is not None:
            at = next((i for i, member in enumerate(series.entries) if member is entry), None)
            shown = [(m.slug, m.versions[lang].doc.meta.title) for m in series.entries]
            nav = series_nav(self.url, lang, series.name, series.slug, shown, at)
        source_href = None
        if version.state != "source":
            src = entry.source_lang
            source_href = self.url.href(
                urls.post(src, entry.slug) if entry.kind == "posts" else urls.page(src, entry.slug)
            )
        other = both.partner(self.site, entry, lang)
        before, after = self.neighbours(entry, lang)
        return PostView(
            self._card(entry, lang),
            Markup(""),
            (),
            nav,
            source_href,
            entry.source_lang,
            self._post_pdf_href(entry, lang),  # issue 5: the post's PDF, if it has one
            # issue 19: the side-by-side view, its PDF, the posts before and after it
            self.url.href(urls.both(lang, entry.slug)) if other is not None else None,
            self._both_pdf_href(entry, lang),
            self._post_link(before, lang),
            self._post_link(after, lang),
        )

    def _post_pdf_href(self, entry: Entry, lang: str) -> str | None:  # issue 5 (render/pdf.py)
        from bipub.render.pdf import post_pdf_entries, post_pdf_path

        wanted = self._pdf_posts.get(lang)
        if wanted is None:
            wanted = self._pdf_posts[lang] = {e.key for e in post_pdf_entries(self.site, lang)}
        if entry.kind != "posts" or entry.key not in wanted:
            return None
        return self.url.href("/" + post_pdf_path(lang, entry.slug))

    def _pagination(self, href: Callable[[int], str], n: int, pages: int) -> Pagination:
        shown = sorted({1, pages, *range(max(1, n - 2), min(pages, n + 2) + 1)})
        window: list[tuple[int, str] | None] = []
        for i, number in enumerate(shown):
            if i and number != shown[i - 1] + 1:
                window.append(None)
            window.append((number, self.url.href(href(number))))
        return Pagination(
            n,
            pages,
            self.url.href(href(n - 1)) if n > 1 else None,
            self.url.href(href(n + 1)) if n < pages else None,
            tuple(window),
        )

    def _home_context(self, lang: str, latest: list[Entry]) -> dict[str, Any]:
        """The home's CV and the cards of the `latest` posts (plan_home chose them)."""
        merged = self.site.cv.get(lang)
        cv = None
        untranslated = drafts = 0
        if merged is not None:
            from bipub.model.cv import CV

            cv = cv_view(CV, merged.data, merged.fallbacks, merged.source_lang, merged.drafts)
            untranslated, drafts = len(merged.fallbacks), len(merged.drafts)
        return {
            "cv": cv,
            "cv_untranslated": untranslated,
            "cv_drafts": drafts,
            "cv_source_lang": merged.source_lang if merged else None,
            "posts": [self._card(e, lang) for e in latest],
            # issue 18: 'blog' shows a short CV summary above the latest posts
            "home_mode": self.config.home,
            "cv_image": self.cv_image,  # issue 19: a CV image's size and variants
        }

    def cv_image(self, kind: str, ref: object) -> View | None:
        """A CV `logo` or award `image` (`kind`): its width, height and srcset (pair/images.py),
        or None (remote)."""
        image = self.site.images.cv_image(kind, str(ref or "").strip())
        if image is None:
            return None
        info = image.info
        href = {v.path: self.url.href(v.path) for v in image.variants}
        fmt = "webp" if "webp" in image.formats() else None  # an <img srcset>: the safe format
        return View(
            width=info.width,
            height=info.height,
            srcset=image.srcset(fmt, href) if fmt else "",
            sizes=image.sizes,
        )

    # ------------------------------------------------------------------ rendering
    def page_meta(self, plan: Plan, spec: PageSpec) -> PageMeta:
        siblings = plan.routes.get(spec.route, {})
        alternates = []
        for code in self.config.codes:
            other = siblings.get(code)
            if other is not None and other.canonical_path is None:
                alternates.append(Alternate(code, self.url.absolute(other.path)))
        default = siblings.get(self.config.default_language)
        if alternates and default is not None and default.canonical_path is None:
            alternates.append(Alternate("x-default", self.url.absolute(default.path)))
        switcher = []
        for language in self.config.languages:
            other = siblings.get(language.code)
            switcher.append(
                LangLink(
                    language.code,
                    language.name,
                    self.url.href(other.path if other else urls.home(language.code)),
                    other is not None,
                    language.code == spec.lang,
                )
            )
        canonical = self.url.absolute(spec.canonical_path or spec.path)
        image = spec.image or urls.site_card(spec.lang)  # issue 19: social cards
        return PageMeta(
            spec.lang,
            spec.title,
            spec.description,
            spec.path,
            self.url.href(spec.path),
            canonical,
            tuple(alternates) if spec.canonical_path is None else (),
            tuple(switcher),
            spec.og_type,
            spec.content_lang or spec.lang,
            spec.noindex,
            image if image.startswith(("https://", "http://")) else self.url.absolute(image),
            image == urls.site_card(spec.lang) or image == urls.post_card(spec.path),
        )

    def site_context(self, lang: str) -> View:
        cfg = self.config
        language = cfg.language(lang)
        return View(
            title=language.title,
            description=language.description,
            lang=lang,
            lang_name=language.name,
            languages=[View(code=x.code, name=x.name) for x in cfg.languages],
            author=cfg.author,
            base_url=cfg.site_url,
            home_href=self.url.href(urls.home(lang)),
            blog_href=self.url.href(urls.blog(lang)),
            tags_href=self.url.href(urls.tags(lang)),
            feed_href=self.url.href(urls.feed(lang)),
            feed_url=self.url.absolute(urls.feed(lang)),
            json_feed_href=self.url.href(urls.json_feed(lang)),  # issue 19: JSON Feed 1.1
            llms_href=self.url.href(urls.llms(lang)),
            api_href=self.url.href(urls.api(lang, "cv")),
            # issue 18: where the full CV is (the home page unless bipub.yaml home: blog)
            cv_href=self.url.href(
                urls.cv(lang) if cfg.home == "blog" and lang in self.site.cv else urls.home(lang)
            ),
            home_mode=cfg.home,
            css_href=self.url.href("/assets/site.css"),
            js_href=self.url.href("/assets/reader.js"),  # issue 19: copy buttons, colour toggle
            search_href=self.url.href(urls.search(lang)) if cfg.outputs.search else None,
            root_href=self.url.href("/"),
            nav_pages=[
                View(
                    title=e.versions[lang].doc.meta.title,
                    href=self.url.href(urls.page(lang, e.slug)),
                )
                for e in self.site.pages(lang)
            ],
            names=[lang_code for lang_code in cfg.codes],
            # issue 5: the CV PDFs (this language first, then the others, then ko+en):
            # View(label, lang, href) each; see render/pdf.py pdf_links.
            pdf_links=[View(**link) for link in self._pdf_links(lang)],
            # issue 18: the short CV PDFs (render/pdf/documents.py short_pdf_links)
            short_pdf_links=[View(**link) for link in self._short_pdf_links(lang)],
        )

    def _pdf_links(self, lang: str) -> list[dict[str, str]]:
        from bipub.render.pdf import pdf_links  # issue 5 (does not import WeasyPrint)

        return pdf_links(self.site, lang, self.url)

    def _short_pdf_links(self, lang: str) -> list[dict[str, str]]:
        from bipub.render.pdf import short_pdf_links  # (does not import WeasyPrint)

        return short_pdf_links(self.site, lang, self.url)

    def render_page(
        self, plan: Plan, spec: PageSpec, env: jinja2.Environment, collector: Collector
    ) -> str | None:
        """Render one planned page; a template problem becomes a diagnostic naming file and line."""
        context = {
            "site": self.site_view(spec.lang),
            "page": self.page_meta(plan, spec),
            **spec.context(),
        }
        try:
            return env.get_template(spec.template).render(context)
        except jinja2.TemplateError as exc:
            collector.add(template_error(exc, self.site_root))
        except Exception as exc:
            located = template_error(exc, self.site_root)
            if located.file is None:
                raise  # not raised from a template: a bug in bipub, not a user error
            collector.add(located)
        return None

    def render_root_pages(
        self, plan: Plan, env: jinja2.Environment, collector: Collector
    ) -> list[tuple[str, str]]:
        """The language entry page (/) and 404.html, in the default language's environment."""
        cfg = self.config
        default = cfg.language(cfg.default_language)
        languages = [
            View(
                code=x.code,
                name=x.name,
                title=x.title,
                description=x.description,
                href=self.url.href(urls.home(x.code)),
            )
            for x in cfg.languages
        ]
        homes = plan.routes.get(("home",), {})
        alternates = (
            *tuple(Alternate(code, self.url.absolute(spec.path)) for code, spec in homes.items()),
            Alternate("x-default", self.url.absolute("/")),
        )
        out = []
        for template, path in (("root.html", "/"), ("404.html", "/404.html")):
            spec = PageSpec(
                (template,), default.code, path, template, default.title, default.description, dict
            )
            meta = replace(
                self.page_meta(plan, spec),
                alternates=alternates if template == "root.html" else (),
                noindex=template == "404.html",
            )
            context = {"site": self.site_view(default.code), "page": meta, "languages": languages}
            try:
                out.append((path, env.get_template(template).render(context)))
            except jinja2.TemplateError as exc:
                collector.add(template_error(exc, self.site_root))
        return out

    def site_view(self, lang: str) -> View:
        cached = self._site_cache.get(lang)
        if cached is None:
            cached = self._site_cache[lang] = self.site_context(lang)
        return cached


def _og_image(entry: Entry, path: str) -> str | None:
    """A post's og:image: its `image:` (shared: the source's), else its own generated card
    (render/cards.py); a page: None (the language's site card)."""
    if entry.kind != "posts":
        return None
    return entry.source.meta.image or urls.post_card(path)
