"""What the templates are given: the views and contexts of every page kind (cards, tag links,
post shells, listings, the site-wide context), and rendering one planned page. `HtmlRenderer`
(render/html.py) adds the page plan and the keys its fingerprints are made of."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from bipub.diagnostics import Collector
from bipub.load.content import Document
from bipub.model.fields import slugify
from bipub.pair.site import Entry, Series, Site, Tag, neighbour_table, post_neighbours, tags_of
from bipub.pair.site_pages import own_card, series_feed_posts
from bipub.render import both, urls
from bipub.render.card_html import KeptCard, KeptCardHtml
from bipub.render.markdown import MarkdownCache, RenderedMarkdown
from bipub.render.page_plan import PageSpec, Plan, counterpart
from bipub.render.pdf.links import (
    both_pdf_path,
    post_pdf_path,
    wants_pdf,
)
from bipub.render.site_view import site_context
from bipub.render.template_fast import render_released
from bipub.render.templates import CardHtml, template_error
from bipub.render.views import (
    Alternate,
    LangLink,
    PageMeta,
    Pagination,
    PostCard,
    PostLink,
    PostView,
    TagLink,
    View,
    cv_view,
    series_nav,
)

FEW_NEIGHBOURS = 64  # posts' neighbours found alone before the table (`PageViews.neighbours`)


def with_body(shell: PostView, rendered: RenderedMarkdown) -> PostView:
    """A post's view: its shell (HtmlRenderer.post_shell) with the rendered body."""
    # (dataclasses.replace's result, without its look at every field's definition: once a page)
    body = {"html": Markup(rendered.html), "headings": rendered.headings}  # noqa: S704 - markdown-it
    return PostView(**{**shell.__dict__, **body})


class PageViews:
    """The views of a site's pages (the state they share is made here)."""

    def __init__(
        self,
        site: Site,
        rendered: MarkdownCache,  # each body rendered once per build
        url: urls.UrlBuilder,
    ) -> None:
        # the cards' HTML, kept from build to build (a resident caller's renderer is started
        # again for each: `start`) under the site-wide key (`keep_card_html`)
        self.card_html = KeptCardHtml()
        self.card_html.key_of = self._card_html_key
        self._cards: dict[tuple[str, str, str], PostCard] = {}
        self._card_key_memo: dict[tuple[str, str, str], str] = {}
        self.builds = 0  # the builds this renderer made (`start`)
        self.start(site, rendered, url)

    def start(self, site: Site, rendered: MarkdownCache, url: urls.UrlBuilder) -> None:
        """Start from nothing, for `site` (__init__; html.py `HtmlRenderer.again` starts a
        kept renderer again for a new build: nothing of the last one's is left in it but its
        cards, each taken again only under the same card key, and the cards' HTML, kept under
        the site-wide key: `keep_card_html`)."""
        self.builds += 1
        self.site = site
        self.config = site.config
        self.rendered = rendered
        self.url = url
        self.site_root: Path | None = None
        self._site_cache: dict[str, View] = {}
        # the last build's cards with their keys (a resident caller's renderer: `_card` takes
        # the one whose key this build knows already, as `reuse_card_keys` gave it)
        keys = self._card_key_memo
        self._last_cards = {at: (keys[at], c) for at, c in self._cards.items() if at in keys}
        self._cards = {}
        self._kept_cards: dict[tuple[str, str, str], KeptCard] = {}  # (shown_card)
        self._card_key_memo = {}
        self._made_card_keys: list[tuple[tuple[str, str, str], str]] = []  # (made_card_keys)
        self._slugs: dict[tuple[str, str, str], set[str]] = {}
        self._tag_links: dict[tuple[str, str], TagLink] = {}  # (lang, slug) → its link
        # (lang, a post's tags) → its card's tag links: the same for every post with those
        # tags (a site's posts share a few hundred sets of tags)
        self._card_tags: dict[tuple[str, tuple[str, ...]], tuple[TagLink, ...]] = {}
        self._listing_hrefs: dict[str, str] = {}  # a listing page's path → its href
        self._sections = both.SectionCache(site.config.outputs.raw_html, rendered)  # issue 19
        # lang → post key → (the post before it, the post after it), in post order
        self._neighbours: dict[str, dict[str, tuple[Entry | None, Entry | None]]] = {}
        self._neighbours_asked: dict[str, int] = {}  # lang → neighbours asked for
        # page (its URL path) → its fingerprint, known without working it out (buildstate.py:
        # its entries did not change since the build that worked it out)
        self.known: dict[str, str] = {}
        self._card_html_on = False  # (keep_card_html)

    def both_view(self, entry: Entry, lang: str, other: str) -> both.BothView:
        """The view of a post's side-by-side page in `lang`, `other` beside it."""
        return both.both_view(
            self.site,
            entry,
            lang,
            other,
            self._sections.rebased,
            lambda code: self.url.href(urls.post(code, entry.slug)),
            self._both_pdf_href(entry, lang),
        )

    def _both_key(self, entry: Entry, lang: str, other: str) -> object:
        docs = tuple(
            (d.rel, d.digest, self.rendered.diagrams.body_key(d.body))
            for d in (entry.docs[lang], entry.docs[other])
        )
        names = tuple(self.config.language(code).name for code in (lang, other))
        return (
            docs,
            names,
            both.review_key(self.site, entry),
            self.config.outputs.raw_html,
            self._both_pdf_href(entry, lang),
        )

    def _both_pdf_href(self, entry: Entry, lang: str) -> str | None:  # issue 19
        path = both_pdf_path(self.site, entry, lang)
        return self.url.href(path) if path is not None else None

    def neighbours(self, entry: Entry, lang: str) -> tuple[Entry | None, Entry | None]:
        """The posts published just before and just after `entry` in `lang`'s post order
        (drafts left out, as the listings leave them out); (None, None) for a page."""
        if entry.kind != "posts":
            return (None, None)
        table = self._neighbours.get(lang)
        if table is None:
            posts = self.site.posts(lang)  # newest first
            # an update asks for a few posts': each found alone (the table of every post's:
            # ~5 ms a language at 5,000 posts), the table from the `FEW_NEIGHBOURS`th on
            asked = self._neighbours_asked[lang] = self._neighbours_asked.get(lang, 0) + 1
            if asked <= FEW_NEIGHBOURS:
                return post_neighbours(posts, entry)
            table = self._neighbours[lang] = neighbour_table(posts)
        return table.get(entry.key, (None, None))

    def _post_link(self, entry: Entry | None, lang: str) -> PostLink | None:
        if entry is None:
            return None
        card = self._card(entry, lang)
        return PostLink(card.title, card.href, card.content_lang)

    # ------------------------------------------------------------------ contexts
    def _listing_context(self, lang: str, chunk: list[Entry], n: int, pages: int) -> dict[str, Any]:
        return {
            "posts": [self.shown_card(e, lang) for e in chunk],
            "pagination": self._pagination(partial(urls.blog, lang), n, pages),
        }

    def _tag_context(
        self, lang: str, tag: Tag, chunk: list[Entry], n: int, pages: int, total: int
    ) -> dict[str, Any]:
        return {
            "tag": tag,
            "posts": [self.shown_card(e, lang) for e in chunk],
            "total": total,
            "pagination": self._pagination(partial(urls.tag, lang, tag.slug), n, pages),
            "feeds": self.feed_links(urls.tag(lang, tag.slug)) if total else [],
        }

    def series_context(self, lang: str, series: Series) -> dict[str, Any]:
        """A series page's: the series and its members' cards (and its feeds: issue 19)."""
        posts = [self.shown_card(e, lang) for e in series.entries]
        # (its feeds: only where render/feeds.py writes them, by the same rule)
        written = series_feed_posts(lang, series)
        feeds = self.feed_links(urls.series(lang, series.slug)) if written else []
        return {"series": series, "posts": posts, "feeds": feeds}

    def feed_links(self, page: str) -> list[View]:
        """The feeds of a tag's or series' page (render/feeds.py: beside the page)."""
        return [
            View(type="application/atom+xml", href=self.url.href(urls.page_feed(page))),
            View(type="application/feed+json", href=self.url.href(urls.page_feed(page, json=True))),
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

    def keep_card_html(self, global_key: str, folder: Path | None) -> None:
        """This build's site-wide key (HtmlRenderer.global_key): the cards' HTML that the
        last builds kept under it is used, and the cards rendered now are kept under it
        (render/card_html.py; `folder`: the build cache's, where they are read from, and
        saved to by the renderer's first build). Without it (--no-cache) nothing is kept."""
        self.card_html.start(global_key, folder, save=self.builds == 1)
        self._card_html_on = True

    def save_card_html(self) -> None:
        """Save the cards' HTML for the next `bipub build` (render/card_html.py), with the
        cards of this build only."""
        self.card_html.save(set(self._card_key_memo.values()))

    def _card_html_key(self, card: object, lang: str) -> str | None:
        """The key of `card` if this build made it (its card key: `card_key_at`), else None
        (its HTML then is not kept)."""
        if type(card) is not PostCard:
            return None
        for kind in ("posts", "pages"):
            at = (kind, card.key, lang)
            if self._cards.get(at) is card:
                return self.card_key_at(at, card)
        return None

    def card_key_at(self, at: tuple[str, str, str], card: PostCard) -> str:
        """The key of the card of (kind, key, language) `at`, `card`: what it shows, as a
        string (memoized: a card is on many pages; or the last build's, for an entry whose
        `entry_key` did not change: `reuse_card_keys`). The card itself, not its document's
        digest: an edit that leaves the card as it was (a typo fixed in the body) changes no
        listing's fingerprint, and its HTML is kept (`keep_card_html`)."""
        key = self._card_key_memo.get(at)
        if key is None:
            # a digest, not the repr itself: the fingerprints of the pages that show the card
            # repr it again, and a short ASCII string costs far less to repr than a Korean one
            data = repr(card).encode("utf-8")
            key = self._card_key_memo[at] = hashlib.sha256(data).hexdigest()
            self._made_card_keys.append((at, key))
        return key

    def card(self, entry: Entry, lang: str) -> PostCard:
        """A post's card (as every listing shows it)."""
        return self._card(entry, lang)

    def _card(self, entry: Entry, lang: str) -> PostCard:
        at = (entry.kind, entry.key, lang)
        card = self._cards.get(at)
        if card is None:
            # the last build's card, if its key is this build's: the entry did not change
            # (buildstate.carry: `reuse_card_keys`), so neither did what its card shows
            key = self._card_key_memo.get(at)
            last = self._last_cards.get(at) if key is not None else None
            if last is not None and last[0] == key:
                card = self._cards[at] = last[1]
            else:
                card = self._cards[at] = self._make_card(entry, lang)
        return card

    def shown_card(self, entry: Entry, lang: str) -> PostCard | KeptCard:
        """A post's card as a listing page (blog, tag, series, home) or the archive shows it:
        its card if it is made already, else, when its key is known (`reuse_card_keys`: the
        entry did not change) and the cards' HTML is kept (`keep_card_html`), a KeptCard that
        makes the card only if a template reads a field it does not keep or if no HTML is kept
        for it at the level it is shown at (a build after a new post shows the other posts on
        every blog and tag page, and the archive's rows, without making their cards)."""
        at = (entry.kind, entry.key, lang)
        card = self._cards.get(at)
        if card is not None:
            return card
        if self._card_html_on:
            shown = self._kept_cards.get(at)
            if shown is not None:
                return shown
            key = self._card_key_memo.get(at)
            if key is not None:
                # (the card's key and date as `_make_card` gives them: the entry's)
                make = partial(self._card, entry, lang)
                shown = self._kept_cards[at] = KeptCard(entry.key, entry.date, lang, key, make)
                return shown
        return self._card(entry, lang)

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
            (series.name_lang or lang) if series else "",
        )

    def card_tags(self, entry: Entry, lang: str) -> tuple[TagLink, ...]:
        """The links to the tags of a post's card, in its front matter's order (made once per
        set of tags and language)."""
        tags = tuple(tags_of(entry, lang))
        at = (lang, tags)
        links = self._card_tags.get(at)
        if links is None:
            links = self._card_tags[at] = self.tag_links(lang, tag_slugs(tags))
        return links

    def tag_links(self, lang: str, slugs: tuple[str, ...]) -> tuple[TagLink, ...]:
        """The links to the tags of `card_tag_slugs` that `lang` has (HtmlRenderer.entry_key
        keeps the slugs of an entry that did not change)."""
        tags = self.site.tags.get(lang, {})
        return tuple(self._tag_link(lang, slug, tags[slug]) for slug in slugs if slug in tags)

    def minutes_of(self, doc: Document) -> int:
        """The document's reading time (worked out once per document, kept with it in the
        build cache: load/content.py)."""
        return doc.reading_minutes

    def _post_view(self, entry: Entry, lang: str) -> PostView:
        doc = entry.versions[lang].doc
        rendered = self.rendered(doc)
        view = with_body(self.post_shell(entry, lang), rendered)
        parts = both.post_parts(self.site, entry, lang, self.rendered, self.url)
        return replace(view, parts=parts) if parts else view

    def post_shell(self, entry: Entry, lang: str) -> PostView:
        """The view of a post or page without its body (`with_body` adds it): all the page
        shows that is not its document's Markdown."""
        version = entry.versions[lang]
        nav = None
        series = self.site.series_by_entry.get((lang, entry.key))
        if entry.kind == "posts" and series is not None:
            at = next((i for i, member in enumerate(series.entries) if member is entry), None)
            shown = [
                (
                    m.slug,
                    m.versions[lang].doc.meta.title,
                    m.versions[lang].doc.lang,
                    m.versions[lang].state,
                )
                for m in series.entries
            ]
            nav = series_nav(self.url, lang, series, shown, at)
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
        # (the rule of render/pdf post_pdf_entries for this one post: an update works out the
        # keys of a few entries, and the list of every post's would be made for each build)
        if not wants_pdf(self.site, entry, lang):
            return None
        return self.url.href("/" + post_pdf_path(lang, entry.slug))

    def _pagination(self, path: Callable[[int], str], n: int, pages: int) -> Pagination:
        shown = sorted({1, pages, *range(max(1, n - 2), min(pages, n + 2) + 1)})
        # (each listing page's href is on the pages around it: made once per build)
        hrefs = self._listing_hrefs
        url = self.url

        def href(number: int) -> str:
            at = path(number)
            found = hrefs.get(at)
            if found is None:
                found = hrefs[at] = url.href(at)
            return found

        window: list[tuple[int, str] | None] = []
        for i, number in enumerate(shown):
            if i and number != shown[i - 1] + 1:
                window.append(None)
            window.append((number, href(number)))
        return Pagination(
            n,
            pages,
            href(n - 1) if n > 1 else None,
            href(n + 1) if n < pages else None,
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
            "posts": [self.shown_card(e, lang) for e in latest],
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
        if alternates and spec.route == ("home",):  # the language entry page (root.html)
            alternates.append(Alternate("x-default", self.url.absolute("/")))
        elif alternates and default is not None and default.canonical_path is None:
            alternates.append(Alternate("x-default", self.url.absolute(default.path)))
        switcher = []
        for language in self.config.languages:
            other, same = counterpart(plan, spec, language.code)
            switcher.append(
                LangLink(
                    language.code,
                    language.name,
                    self.url.href(other.path if other else urls.home(language.code)),
                    other is not None,
                    language.code == spec.lang,
                    other is not None and not same,
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
            spec.title_lang or spec.content_lang or spec.lang,
        )

    def site_context(self, lang: str) -> View:
        """The site-wide context of `lang`'s pages (render/site_view.py)."""
        return site_context(self.site, self.url, lang)

    def render_page(
        self, plan: Plan, spec: PageSpec, env: jinja2.Environment, collector: Collector
    ) -> str | None:
        """Render one planned page; a template problem becomes a diagnostic naming file and line."""
        context = {
            "site": self.site_view(spec.lang),
            "page": self.page_meta(plan, spec),
            **spec.context(),
        }
        cards = env.globals.get("post_card")
        if isinstance(cards, CardHtml):
            cards.kept = self.card_html if self._card_html_on else None
        try:
            return render_released(env.get_template(spec.template), context)
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
                out.append((path, render_released(env.get_template(template), context)))
            except jinja2.TemplateError as exc:
                collector.add(template_error(exc, self.site_root))
        return out

    def site_view(self, lang: str) -> View:
        cached = self._site_cache.get(lang)
        if cached is None:
            cached = self._site_cache[lang] = self.site_context(lang)
        return cached


def card_tag_slugs(entry: Entry, lang: str) -> tuple[str, ...]:
    """The slugs of a post's tags in `lang` (pair/model.py tags_of), in its front matter's
    order, each once: its card links those the site has (PageViews.tag_links)."""
    return tag_slugs(tags_of(entry, lang))


def tag_slugs(tags: Sequence[str]) -> tuple[str, ...]:
    """The slugs of `tags`, in their order, each once (`card_tag_slugs`)."""
    return tuple(dict.fromkeys(slugify(t) for t in tags))


def og_image(entry: Entry, path: str) -> str | None:
    """A post's og:image: its `image:` (shared: the source's), else its own generated card
    (render/cards.py); a page: None (the language's site card)."""
    if entry.kind != "posts":
        return None
    return urls.post_card(path) if own_card(entry) else entry.source_image
