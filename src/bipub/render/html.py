"""HTML pages: plan every page of every language, then render the requested languages.

Planning is cheap and covers all languages, so each page knows its counterparts (hreflang,
language switcher) even when only one language is rendered.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from functools import partial

from bipub.load.content import Document
from bipub.pair.site import Entry, Site, Tag
from bipub.pair.site_pages import list_pages
from bipub.project import Project
from bipub.render import both, urls
from bipub.render.archive import archive_spec
from bipub.render.listing_pages import blog_page, tag_page
from bipub.render.markdown import MarkdownCache
from bipub.render.page_plan import EntryId as EntryId
from bipub.render.page_plan import EntryKeyMemo, PageMemo
from bipub.render.page_plan import PageSpec as PageSpec
from bipub.render.page_plan import Plan as Plan
from bipub.render.page_plan import Route as Route
from bipub.render.page_plan import listing_values as listing_values
from bipub.render.page_plan import made_of_values as made_of_values
from bipub.render.page_views import PageViews, card_tag_slugs, og_image
from bipub.render.page_views import with_body as with_body
from bipub.render.views import View
from bipub.render.views import series_nav as series_nav

# per language of an entry: its document, its tags' slugs, whether its body draws diagrams
EntryFacts = tuple[tuple[str, Document, tuple[str, ...], bool], ...]


class HtmlRenderer(PageViews):
    """Plans every page of every language (`plan`) and works out what each page's
    fingerprint is made of (`fingerprint`, `entry_key`); the views are `PageViews`'."""

    # ------------------------------------------------------------------ planning
    _page_memo: PageMemo | None = None  # (again)
    _plan_memo: PageMemo | None = None  # (again: the same, but for a memo of one build)

    @classmethod
    def again(
        cls, memo: PageMemo | None, site: Site, rendered: MarkdownCache, url: urls.UrlBuilder
    ) -> HtmlRenderer:
        """The renderer of a build: with a `memo` (`bipub serve`), the one that planned the
        pages it keeps, started again with the new site (PageViews.start: nothing of the last
        build's is left in it); a new one otherwise, or when the configuration changed."""
        if memo is None:
            return cls(site, rendered, url)
        renderer = memo.renderer
        if not isinstance(renderer, cls) or memo.config != site.config:
            if memo.config != site.config:  # (a memo read back from disk has its keys only)
                memo.keys = EntryKeyMemo()
            renderer = cls(site, rendered, url)
            memo.renderer, memo.config, memo.pages, memo.runs = renderer, site.config, {}, {}
            memo.order, memo.members = {}, {}
        else:
            renderer.start(site, rendered, url)
        renderer._page_memo, renderer._plan_memo = memo, None if memo.once else memo
        return renderer

    def start(self, site: Site, rendered: MarkdownCache, url: urls.UrlBuilder) -> None:
        super().start(site, rendered, url)
        self._post_order: dict[str, tuple[str, ...]] | None = None  # (post_order)

    def post_order(self) -> dict[str, tuple[str, ...]]:
        """Each language's posts by key, newest first (what PageMemo and EntryKeyMemo compare
        with the last build's to find the posts whose neighbours moved): worked out once per
        build, for both."""
        order = self._post_order
        if order is None:
            site = self.site
            order = self._post_order = {
                lang: tuple([e.key for e in site.posts(lang)]) for lang in self.config.codes
            }
        return order

    def plan(self) -> Plan:
        plan = Plan()
        memo = self._plan_memo
        moved: set[tuple[str, str]] | None = None
        if memo is not None:
            memo.reused = 0
            site = self.site
            moved = memo.around(
                self.post_order(),
                {
                    key: tuple((m.kind, m.key) for m in series.entries)
                    for key, series in site.series_by_entry.items()
                },
            )
        for lang in self.config.codes:
            self._plan_lang(plan, lang, moved)
        if memo is not None:
            memo.done()
        return plan

    def _plan_lang(self, plan: Plan, lang: str, moved: set[tuple[str, str]] | None) -> None:
        site, cfg = self.site, self.config
        language = cfg.language(lang)
        posts = site.posts(lang)
        self.plan_home(plan, lang, posts)
        self.plan_cv_page(plan, lang)
        keys = self.post_order()[lang]  # (the keys of `posts`: the listings' `lists`)
        self.plan_blog(plan, lang, posts, keys)
        if cfg.outputs.archive:  # every post by year (render/archive.py)
            plan.add(archive_spec(language, posts, keys, self.shown_card, self._list_key))
        self._plan_entries(plan, lang, posts, moved, "posts")
        self._plan_entries(plan, lang, site.pages(lang), moved, "pages")
        by_tag = site.tag_posts.get(lang, {})  # each tag's posts (pair/taxonomy.py)
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
                    title_lang=series.name_lang if series.name_lang != lang else "",
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

    def plan_blog(
        self, plan: Plan, lang: str, posts: Sequence[Entry], keys: tuple[str, ...]
    ) -> None:
        """The blog's pages: `posts` (newest first; `keys`: theirs), `posts_per_page` to a page."""
        per_page, language = self.config.posts_per_page, self.config.language(lang)
        pages = list_pages(len(posts), per_page)
        specs: list[PageSpec] = []
        made = (self._listing_context, self._list_key)
        for n in range(1, pages + 1):
            at = slice((n - 1) * per_page, n * per_page)
            chunk = list(posts[at])
            make = partial(blog_page, language, chunk, keys[at], n, pages, *made)
            specs += self._specs(("blog", lang, str(n)), tuple(chunk), pages, make)
        plan.extend(lang, specs)

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
        per_page, language = self.config.posts_per_page, self.config.language(lang)
        tag_pages = list_pages(len(members), per_page)
        specs: list[PageSpec] = []
        made = (self._tag_context, self._list_key)
        for n in range(1, tag_pages + 1):
            chunk = list(members[(n - 1) * per_page : n * per_page])
            make = partial(tag_page, language, tag, chunk, n, tag_pages, len(members), *made)
            key = ("tag", lang, tag.slug, str(n))
            specs += self._specs(key, tuple(chunk), (tag, tag_pages, len(members)), make)
        plan.extend(lang, specs)

    def _plan_entries(
        self,
        plan: Plan,
        lang: str,
        entries: Sequence[Entry],
        moved: set[tuple[str, str]] | None,
        run: str = "",
    ) -> None:
        """The pages of each of `entries` (`_entry_args`). With a PageMemo that knows what
        moved (PageMemo.around), an entry that is the very object the last plan made its pages
        of, and not moved, keeps them: the last plan's run (`run`) is taken whole but for the
        others (PageMemo.carried), else entry by entry (take)."""
        memo = self._plan_memo
        if memo is None:  # (each run's pages added in one go)
            pages, made_of = self._entry_pages, self._made_of
            plan.extend(lang, [s for e in entries for s in pages(lang, e, made_of(e, lang))])
            return
        per: list[tuple[PageSpec, ...]]
        carried = memo.carried((lang, run), entries, moved) if moved is not None else None
        same = carried is not None and carried[2]
        if carried is not None:
            per, todo, _ = carried
            for i in todo:
                per[i] = self._specs(*self._entry_args(lang, entries[i]))
        else:
            per = []
            for entry in entries:
                key = entry.key
                specs = (
                    None
                    if moved is None or (lang, key) in moved
                    else memo.take(("entry", entry.kind, key, lang), entry)
                )
                per.append(
                    specs if specs is not None else self._specs(*self._entry_args(lang, entry))
                )
        memo.record((lang, run), entries, per, same)
        plan.extend(lang, [spec for specs in per for spec in specs])

    def _entry_args(
        self, lang: str, entry: Entry
    ) -> tuple[tuple[str, ...], tuple[Entry, ...], object, Callable[[], tuple[PageSpec, ...]]]:
        """A post's or page's page in `lang`, and a post's side-by-side page after it: the
        PageMemo key, entries, inputs and maker `_specs` takes."""
        made_of = self._made_of(entry, lang)
        key = ("entry", entry.kind, entry.key, lang)
        return key, (entry,), made_of, partial(self._entry_pages, lang, entry, made_of)

    def _entry_pages(
        self, lang: str, entry: Entry, made_of: tuple[EntryId, ...]
    ) -> tuple[PageSpec, ...]:
        page = self._entry_page(lang, entry, made_of)
        return page + self._both_page(lang, entry) if entry.kind == "posts" else page

    def _entry_page(
        self, lang: str, entry: Entry, made_of: tuple[EntryId, ...]
    ) -> tuple[PageSpec, ...]:
        version = entry.versions[lang]
        url = urls.post if entry.kind == "posts" else urls.page
        path = url(lang, entry.slug)
        canonical = url(entry.source_lang, entry.slug) if version.is_fallback else None
        spec = PageSpec.later(
            ("post" if entry.kind == "posts" else "page", entry.key),
            lang,
            path,
            "post.html" if entry.kind == "posts" else "page.html",
            self._page_later,
            (lang, entry),
            canonical_path=canonical,
            doc=version.doc,
            made_of=made_of,
            image=og_image(entry, path),
        )
        return (spec,)

    def _both_page(self, lang: str, entry: Entry) -> tuple[PageSpec, ...]:
        """A post's side-by-side page (issue 19, render/both.py), if it has one in `lang` (the
        language beside it is a function of the entry and the configuration)."""
        other = both.partner(self.site, entry, lang)
        if other is None:
            return ()
        spec = PageSpec.later(
            ("both", entry.key),
            lang,
            urls.both(lang, entry.slug),
            "both.html",
            self._page_later,
            (lang, entry, other),
            noindex=True,  # the post pages' text again: not for search engines
            made_of=((entry.kind, entry.key),),
        )
        return (spec,)

    def _page_later(self, lang: str, entry: Entry, other: str = "") -> dict[str, object]:
        """The `page_plan.LATER` fields of a post's or page's page (`_entry_page`), or with
        `other`, the language beside it, of a post's side-by-side page (`_both_page`)."""
        doc = entry.versions[lang].doc
        made: dict[str, object] = {
            "title": doc.meta.title,
            "description": doc.meta.description or "",
        }
        if other:
            made["context"] = lambda: {"both": self.both_view(entry, lang, other)}
            made["deps"] = partial(self._both_key, entry, lang, other)
            made["og_type"], made["content_lang"] = "website", ""
        else:
            made["context"] = lambda: {"post": self._post_view(entry, lang)}
            made["deps"] = partial(self._post_key, entry, lang)
            made["og_type"] = "article" if entry.kind == "posts" else "website"
            made["content_lang"] = doc.lang
        return made

    def _specs(
        self,
        key: tuple[str, ...],
        entries: tuple[Entry, ...],
        inputs: object,
        make: Callable[[], tuple[PageSpec, ...]],
    ) -> tuple[PageSpec, ...]:
        """The pages `make` makes of `entries` and `inputs`, or the ones the last plan made of
        the same (PageMemo: `bipub serve`); the caller adds them to the plan (Plan.extend)."""
        memo = self._plan_memo
        specs = memo.get(key, entries, inputs) if memo is not None else None
        if specs is None:
            specs = make()
            if memo is not None:
                memo.keep(key, entries, inputs, specs)
        return specs

    def _made_of(self, entry: Entry, lang: str) -> tuple[EntryId, ...]:
        """The entries a post's or page's page is made of: its own, its series' members (the
        series box shows their titles) and the posts before and after it (issue 19)."""
        made: list[EntryId] = [(entry.kind, entry.key)]
        series = self.site.series_by_entry.get((lang, entry.key))
        if series is not None:
            made += [(m.kind, m.key) for m in series.entries]
        made += [(n.kind, n.key) for n in self.neighbours(entry, lang) if n is not None]
        return tuple(made)

    # ------------------------------------------------------------------ fingerprints
    def fingerprint(self, plan: Plan, spec: PageSpec, global_key: str) -> str | None:
        """A hash of everything the page is made from, or None if it cannot be summarized."""
        known = self.known.get(spec.path)
        if known is not None:
            return known
        made = made_of_values(plan, spec, global_key)
        if made is None:
            return None
        return hashlib.sha256(repr(made).encode("utf-8")).hexdigest()

    def entry_keys(self) -> dict[EntryId, str]:
        """Every entry's `entry_key` (buildstate.py); with a PageMemo (`bipub serve`), those of
        the entries that did not change as the last build worked them out (EntryKeyMemo)."""
        memo = self._page_memo.keys if self._page_memo is not None else None
        if memo is None:
            return {(e.kind, e.key): self.entry_key(e) for e in self.site.entries}
        site = self.site
        memo.start({lang: status.records for lang, status in site.status.items()})
        moved = memo.around(
            self.post_order(),
            {key: series.facts for key, series in site.series_by_entry.items()},
            {(lang, slug): tag for lang, tags in site.tags.items() for slug, tag in tags.items()},
        )
        entries = site.entries
        # (most entries of an update: their around did not move; taken as they were)
        for i in memo.lay(entries, moved, site.images.docs):
            entry = entries[i]
            entry_id = (entry.kind, entry.key)
            kept = memo.facts(entry_id, entry)
            facts = kept if isinstance(kept, tuple) else self.entry_facts(entry)
            around = self.entry_around(entry, facts)
            review_of = partial(both.review_key, self.site, entry)
            review, key = memo.get(entry_id, entry, around, review_of)
            if key is None:
                key = self._entry_key(entry, around, review)
            memo.put(i, (entry, facts, around, review, key))
        keys = memo.laid()
        memo.done()
        return keys

    def keys_note(self) -> str:
        """How many entry keys the last `entry_keys` worked out, not taken from the memo, and
        why (for `-v`); "" without a memo."""
        memo = self._page_memo.keys if self._page_memo is not None else None
        if memo is None:
            return ""
        total = len(memo.known)
        why = "" if memo.same_status else " (status files changed: review states worked out)"
        return f"{total - memo.reused} of {total} entry keys worked out{why}"

    def entry_key(self, entry: Entry) -> str:
        """What an entry's own pages and its card are made of in every language, but for the
        site-wide key (`global_key`): its documents' bytes, translation states, dates and slug,
        its tags' shown names, its series (name and members) and its PDF. An entry with the
        same key as in the last build has the same card; its pages, if their series' members
        too have the same keys, have the same fingerprints (buildstate.py)."""
        around = self.entry_around(entry, self.entry_facts(entry))
        return self._entry_key(entry, around, both.review_key(self.site, entry))

    def entry_facts(self, entry: Entry) -> EntryFacts:
        """What `entry_around` needs that the entry alone decides (EntryKeyMemo keeps it with
        the entry): per language, its tags' slugs and whether its body draws diagrams."""
        return tuple(
            (
                lang,
                version.doc,
                card_tag_slugs(entry, lang),
                self.rendered.diagrams.body_key(version.doc.body) != "",
            )
            for lang, version in sorted(entry.versions.items())
        )

    def entry_around(self, entry: Entry, facts: EntryFacts) -> tuple[object, ...]:
        """What `entry_key` takes from the rest of the site, not from the entry and the
        configuration (EntryKeyMemo): per language, its tags' shown names, its series (name
        and members), the posts before and after it (issue 19: a post added, deleted or
        re-dated changes them), its images' sizes and variants and what draws its diagrams."""
        out: list[object] = []
        site = self.site
        for lang, doc, slugs, diagrams in facts:
            series = site.series_by_entry.get((lang, entry.key))
            out.append(
                (
                    lang,
                    tuple((link.name, link.slug) for link in self.tag_links(lang, slugs)),
                    series.facts if series is not None else None,
                    tuple(n.key if n is not None else None for n in self.neighbours(entry, lang)),
                    site.images.key(doc.rel),  # issue 19: its images' sizes, variants
                    self.rendered.diagrams.body_key(doc.body) if diagrams else "",
                )
            )
        return tuple(out)

    def _entry_key(self, entry: Entry, around: tuple[object, ...], review: object) -> str:
        """`entry_key` of what it takes from the rest of the site (`entry_around`) and the
        review states of its sections (render/both.py review_key)."""
        parts: list[object] = [entry.slug, entry.source_lang, entry.date, entry.updated]
        parts.append(entry.series_order)
        for lang, version in sorted(entry.versions.items()):
            doc = version.doc
            parts.append(
                (
                    lang,
                    doc.rel,
                    doc.digest,
                    version.state,
                    version.stale_keys,
                    version.draft_keys,
                    self._post_pdf_href(entry, lang),
                    self._both_pdf_href(entry, lang),  # issue 19: its side-by-side pages' PDF
                )
            )
        parts.append(around)
        parts.append(review)
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
        """The key of a post's card (PageViews.card_key_at)."""
        at = (entry.kind, entry.key, lang)
        key = self._card_key_memo.get(at)
        return key if key is not None else self.card_key_at(at, self._card(entry, lang))

    def _card_keys(self, entries: list[Entry], lang: str) -> tuple[object, ...]:
        # (the memo looked at here first: a listing page shows ten cards, and a big site has
        # thousands of listing pages to fingerprint after an edit, their cards all known)
        memo = self._card_key_memo
        keys = [memo.get((e.kind, e.key, lang)) for e in entries]
        if None in keys:
            made = zip(entries, keys, strict=True)
            keys = [k if k is not None else self._card_key(e, lang) for e, k in made]
        return tuple(keys)

    def _list_key(
        self, what: object, lang: str, chunk: list[Entry], n: int, pages: int, total: int = 0
    ) -> object:
        # (a blog or tag page's `PageSpec.shape` is (what, n, pages, total): listing_values)
        return (repr(what), n, pages, total, self._card_keys(chunk, lang))

    def _post_key(self, entry: Entry, lang: str) -> object:
        version = entry.versions[lang]
        series = self.site.series_by_entry.get((lang, entry.key))
        members = self._card_keys(list(series.entries), lang) if series else ()
        return (
            self._card_key(entry, lang),
            version.doc.rel,
            version.doc.digest,  # the body it shows
            self.rendered.diagrams.body_key(version.doc.body),  # what draws its diagrams
            self.site.images.key(version.doc.rel),  # and its images (issue 19)
            version.stale_keys,
            version.draft_keys,
            both.page_key(self.site, entry, lang),  # out of step: its rows, the source's body
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
        key = hashlib.sha256(data.encode("utf-8")).hexdigest()
        # the cards' HTML kept under it (in memory, and in the build cache)
        root = self.site_root
        self.keep_card_html(key, Project(root).cache if root is not None else None)
        return key
