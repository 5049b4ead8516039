"""The pages each language of the site publishes besides its posts' and pages' own, and what
each is in another language: the home, the CV page, the blog's pages, the archive, the tag
cloud, each tag's pages and feeds, each series' page and feeds, the search page, each post's
side-by-side page, the language's feeds, its JSON API and its llms.txt, a post's PDF and the CV's PDFs.

Their paths are made by the functions the renderer makes them with (bipub.text.site_urls,
re-exported by render/urls.py), for the pages the renderer plans (render/html.py, with
`list_pages` and `partner` from here): a link is read by looking its path up among the paths
made so, never by a second reading of how a path is spelled. pair/page_links.py reads a link
of a post with it (a post's or page's own page is read there).

A page is the same page in every language (`Ident`) but for a tag's: a tag has a spelling, and
so a slug, in each language (`tags:` of a translation, or the source's). The tag of `ko`'s
`/ko/tags/분산/` in `en` is the tag each post listing 분산 in `ko` lists at its place in `en`
(the two lists as long); a translation that writes its own tags says it before one that takes
the source's; none says it (no post of the tag shown in `en`): the tag `en` spells alike, if it
has one. None, or two (the posts disagree): the page has no counterpart, and `why` says it.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable, Iterator

from bipub.pair.model import Entry, Series, Site, post_order_key
from bipub.pair.taxonomy import slug_of
from bipub.text import site_urls

#: what a page is, in every language: ("home",), ("cv",), ("blog", n), ("archive",), ("tags",),
#: ("tag", slug, n) and ("tag-feed", slug, "xml"|"json") (slug: the tag's in the page's
#: language), ("series", its first post's key), ("series-feed", key, "xml"|"json"),
#: ("search",), ("both", post slug), ("feed",), ("json-feed",), ("api", name), ("llms",),
#: ("llms-full",), ("pdf", post slug), ("cv-pdf",), ("cv-pdf-short",), ("card",) (the
#: language's social card), ("post-card", post slug) (a post's own)
Ident = tuple[str, ...]


def list_pages(count: int, per_page: int) -> int:
    """How many pages a list of `count` posts has (the blog's, a tag's): one at least."""
    return max(1, math.ceil(count / per_page))


def series_feed_posts(lang: str, series: Series) -> list[Entry]:
    """The posts of a series' feeds in `lang`, newest first: its members listed in `lang` as
    `Site.posts` lists them (not a draft, not scheduled; a member shown untranslated, in its
    source's text, is). The one rule of whether a series has feeds in a language: render/feeds.py
    writes them, the series page links them (render/page_views.py) and a link to them is read
    (`SitePages`) only when this is not empty (tests/integration/test_feed_links.py)."""
    listed = (e for e in series.entries if e.kind == "posts" and e.shown_in(lang))
    return sorted(listed, key=post_order_key, reverse=True)


def own_card(entry: Entry) -> bool:
    """Whether a post's pages show a social card of their own (render/cards.py draws it beside
    each, in every language that shows the post: `/<lang>/blog/<slug>/card.png`): a post whose
    source names no `image:` (the og:image of every language's page: render/page_views.py
    `og_image`). A page shows its language's card."""
    return entry.kind == "posts" and not entry.source_image


def shows_own(entry: Entry, lang: str) -> bool:
    """The post is shown in `lang` in its own text (not a fallback) and is not a draft."""
    version = entry.versions.get(lang)
    return version is not None and not version.is_fallback and entry.shown_in(lang)


def partner(site: Site, entry: Entry, lang: str) -> str | None:
    """The language shown beside `lang` on the post's side-by-side page (render/both.py), or
    None: no page (bipub.yaml `outputs.side_by_side: false` turns every one off). Worked out
    for every language of the entry at the first question (`partners`)."""
    if not site.config.outputs.side_by_side:
        return None
    return partners(site, entry).get(lang)


# where an entry keeps `partners` (in its __dict__, as its cached properties: pickled with it
# in the entries file, restore.py, so a build in a new process reads each unchanged post's
# partners back instead of its documents' drafts: ~0.05 s at 5,000 posts a language)
PARTNERS = "_partners"


def partners(site: Site, entry: Entry) -> dict[str, str | None]:
    """`partner` of each language of `entry`'s versions, with side-by-side pages on (the
    language beside it: its source, or for the source the first other language of bipub.yaml
    that shows its own text; None: no page). Worked out once per Entry object: an entry is
    kept (pair/memo.py PairMemo, restore.py) only under the same configuration and with the
    very documents it was paired from, which are all this reads (its drafts, fallbacks and
    schedule) besides the configuration's languages."""
    found: dict[str, str | None] | None = entry.__dict__.get(PARTNERS)
    if found is None:
        codes = site.config.codes
        found = {lang: _partner(codes, entry, lang) for lang in entry.versions}
        entry.__dict__[PARTNERS] = found
    return found


def _partner(codes: list[str], entry: Entry, lang: str) -> str | None:
    if entry.kind != "posts" or not shows_own(entry, lang):
        return None
    if lang != entry.source_lang:
        return entry.source_lang if shows_own(entry, entry.source_lang) else None
    return next((c for c in codes if c != lang and shows_own(entry, c)), None)


def wants_pdf(site: Site, entry: Entry, lang: str) -> bool:
    """Whether a post has a PDF in `lang` (render/pdf/links.py): front matter `pdf: true`, or
    config `pdf.posts` unless `pdf: false`; only where the page shows its own language (a
    fallback has no PDF of its own) and not for drafts. Worked out for every language of the
    entry at the first question (`pdf_langs`)."""
    found: tuple[str, ...] | None = entry.__dict__.get(PDF_LANGS)
    return lang in (found if found is not None else pdf_langs(site, entry))


# where an entry keeps `pdf_langs` (as `PARTNERS`: pickled with it in the entries file, so a
# build in a new process asks `any_pdf` of every post without its source's front matter:
# ~0.015 s at 5,000 posts a language)
PDF_LANGS = "_pdf_langs"


def pdf_langs(site: Site, entry: Entry) -> tuple[str, ...]:
    """The languages of `entry`'s versions in which it has a PDF (`wants_pdf`), in `versions`
    order (most posts: none, the empty tuple). Worked out once per Entry object, as `partners`:
    it reads the entry's documents (their `pdf`, drafts and languages), its schedule and the
    configuration's `pdf.posts`, with which an entry is kept (pair/memo.py PairMemo)."""
    found: tuple[str, ...] | None = entry.__dict__.get(PDF_LANGS)
    if found is None:
        found = tuple(lang for lang in entry.versions if _wants_pdf(site, entry, lang))
        entry.__dict__[PDF_LANGS] = found
    return found


def _wants_pdf(site: Site, entry: Entry, lang: str) -> bool:
    if entry.kind != "posts":
        return False
    flag = entry.source.meta.pdf
    if not (flag if flag is not None else site.config.pdf.posts):  # (most posts: asked first)
        return False
    version = entry.versions.get(lang)
    return version is not None and not version.is_fallback and entry.shown_in(lang)


def _nfc(path: str) -> str:
    return unicodedata.normalize("NFC", path)


class SitePages:
    """The site's pages of `Ident`, by language (made at the first look)."""

    def __init__(
        self, site: Site, codes: tuple[str, ...], short_cv: Callable[[Site], bool] | None = None
    ) -> None:
        self.site = site
        self.codes = codes
        # whether the site has short CV PDFs (render/pdf/links.py short_wanted: asked once a
        # link is read, with the tables; None: it has not)
        self.short_cv = short_cv
        self._short = False
        self._paths: dict[str, dict[Ident, str]] | None = None  # lang → ident → path
        self._read: dict[str, tuple[str, Ident]] = {}  # path (NFC) → (lang, ident)
        self._unmade: dict[str, tuple[str, Ident, str]] | None = None  # (unmade)
        self._slugs: dict[str, str] = {}  # (taxonomy.slug_of)

    def _made(self, lang: str, written_as: str = "") -> Iterator[tuple[Ident, str]]:
        """Each page `lang` has, as render/html.py plans it and render/outputs.py writes it
        (`written_as`: its path with another language's code in it, the path that page would
        have there)."""
        site, cfg, su = self.site, self.site.config, site_urls
        w = written_as or lang
        per_page = cfg.posts_per_page
        posts = site.posts(lang)
        yield ("home",), su.home(w)
        yield ("card",), su.site_card(w)
        if cfg.home == "blog" and lang in site.cv:
            yield ("cv",), su.cv(w)
        for n in range(1, list_pages(len(posts), per_page) + 1):
            yield ("blog", str(n)), su.blog(w, n)
        if cfg.outputs.archive:
            yield ("archive",), su.archive(w)
        yield ("tags",), su.tags(w)
        by_tag = site.tag_posts.get(lang, {})
        for slug in site.tags.get(lang, {}):
            members = by_tag.get(slug, ())
            for n in range(1, list_pages(len(members), per_page) + 1):
                yield ("tag", slug, str(n)), su.tag(w, slug, n)
            if members:
                yield ("tag-feed", slug, "xml"), su.page_feed(su.tag(w, slug))
                yield ("tag-feed", slug, "json"), su.page_feed(su.tag(w, slug), json=True)
        for slug, series in site.series.get(lang, {}).items():
            key = series.entries[0].key
            yield ("series", key), su.series(w, slug)
            if series_feed_posts(lang, series):
                yield ("series-feed", key, "xml"), su.page_feed(su.series(w, slug))
                yield ("series-feed", key, "json"), su.page_feed(su.series(w, slug), True)
        if cfg.outputs.search:
            yield ("search",), su.search(w)
        for entry in posts:
            if partner(site, entry, lang) is not None:
                yield ("both", entry.slug), su.both(w, entry.slug)
            if wants_pdf(site, entry, lang):
                yield ("pdf", entry.slug), su.post_pdf(w, entry.slug)
            if own_card(entry):
                yield ("post-card", entry.slug), su.post_card(su.post(w, entry.slug))
        if lang in site.cv:
            yield ("cv-pdf",), su.cv_pdf(w)
            if self._short:
                yield ("cv-pdf-short",), su.cv_pdf(f"{w}-short")
        yield ("feed",), su.feed(w)
        yield ("json-feed",), su.json_feed(w)
        yield ("api", "posts"), su.api(w, "posts")
        yield ("api", "status"), su.api(w, "status")
        if lang in site.cv:
            yield ("api", "cv"), su.api(w, "cv")
        yield ("llms",), su.llms(w)
        yield ("llms-full",), su.llms(w, full=True)

    def _tables(self) -> dict[str, dict[Ident, str]]:
        if self._paths is None:
            self._short = self.short_cv is not None and self.short_cv(self.site)
            self._paths = {lang: dict(self._made(lang)) for lang in self.codes}
            for lang, paths in self._paths.items():
                for ident, path in paths.items():
                    self._read[_nfc(path)] = (lang, ident)
        return self._paths

    def read(self, path: str) -> tuple[str, Ident] | None:
        """The language and page of a site path (decoded; its last `/` may be left out)."""
        self._tables()
        path = _nfc(path)
        return self._read.get(path) or self._read.get(path + "/")

    def unmade(self, path: str) -> tuple[str, Ident, str] | None:
        """For a site path (as `read`) that is no page of the site but that of a page of a
        language written with another's code in it (`/en/tags/분산/`: the `ko` page of the tag
        분산 written as `en`, which lists it as `distributed`): that language, the page and the
        language it is written as."""
        if self._unmade is None:
            self._tables()
            self._unmade = {}
            for lang in self.codes:
                for other in self.codes:
                    for ident, made in self._made(lang, other) if other != lang else ():
                        made = _nfc(made)
                        if made not in self._read:
                            self._unmade.setdefault(made, (lang, ident, other))
        path = _nfc(path)
        return self._unmade.get(path) or self._unmade.get(path + "/")

    def path(self, lang: str, ident: Ident) -> str | None:
        return self._tables()[lang].get(ident)

    def _tag_there(self, slug: str, lang: str, target: str) -> list[str]:
        """The slugs of the tags `target` has that the posts listing the tag `slug` in `lang`
        list at its place there (see the module's text)."""
        own: set[str] = set()
        taken: set[str] = set()
        for entry in self.site.tag_posts.get(lang, {}).get(slug, ()):
            if not entry.shown_in(target):
                continue
            ours = [slug_of(t, self._slugs) for t in entry.tags_in(lang)]
            theirs = [slug_of(t, self._slugs) for t in entry.tags_in(target)]
            if slug in ours and len(ours) == len(theirs):
                (taken if ours == theirs else own).add(theirs[ours.index(slug)])
        has = self.site.tags.get(target, {})
        found = [s for s in sorted(own or taken) if s in has]
        return found or ([slug] if slug in has else [])

    def counterpart(self, lang: str, ident: Ident, target: str) -> tuple[str | None, str]:
        """The path of the page `ident` of `lang` in `target`, and "" ; or None and why the
        site has no such page there."""
        there = ident
        if ident[0] in ("tag", "tag-feed"):
            slugs = self._tag_there(ident[1], lang, target)
            if len(slugs) != 1:
                said = ", ".join(f"'{s}'" for s in slugs)
                return None, (
                    f"its posts list the tag '{ident[1]}' in {target} as {said} (one tag page "
                    "cannot be chosen)"
                    if slugs
                    else f"no {target} tag page lists the posts of the tag '{ident[1]}' (no "
                    f"{target} post lists a tag at its place, and no {target} tag is spelled "
                    "alike)"
                )
            there = (ident[0], slugs[0], *ident[2:])
        found = self._tables()[target].get(there)
        if found is not None:
            return found, ""
        return None, self._absent(lang, ident, there, target)

    def _absent(self, lang: str, ident: Ident, there: Ident, target: str) -> str:
        """Why `target` has no page `there` (the page `ident` of `lang`)."""
        kind = ident[0]
        if kind in ("blog", "tag"):
            count = sum(1 for i in self._tables()[target] if i[:-1] == there[:-1])
            what = "blog" if kind == "blog" else f"tag '{there[1]}'"
            return f"the {target} {what} has {count} page{'s' if count != 1 else ''}"
        if kind == "cv":
            return f"the site has no {target} CV"
        if kind == "pdf":
            return f"the post has no {target} PDF (not shown in its own text there)"
        if kind == "post-card":
            return f"the post has no {target} page (not shown in {target}), and so no card there"
        if kind == "both":
            return (
                f"the post has no side-by-side page in {target} (not shown in its own text there)"
            )
        if kind in ("series", "series-feed"):
            return f"the series has no {target} page (none of its posts is shown in {target})"
        return f"the site has no {target} page of {self.path(lang, ident)}"
