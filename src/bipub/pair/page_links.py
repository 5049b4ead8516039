"""Which page of the site a link names, and that page's URL in another language.

A post is published at `/<lang>/blog/<slug>/` and a page at `/<lang>/<slug>/` in each language
that shows it (`Entry.shown_in`: its translation, the source with a notice under
`outputs.untranslated: show`, nothing under `omit`). The site's other pages of a language (the
home `/<lang>/`, the blog's pages, the tag cloud, a tag's pages and feeds, a series' page, the
CV page, a post's side-by-side page and PDF, the feeds, the JSON API, llms.txt, the CV's PDFs)
are read by pair/site_pages.py, with what each is in another language (a tag's page: the tag
its posts list at its place there). A translation's link to the source language's URL of a
page that the translation's language has sends its reader to the other language: the drafter
writes the translation's own URL instead (translate/links.py) and QA says when a translation
still links the other one (check/page_links.py). One reading of a link for both, here.

A link names a page of the site when it is root-relative (`/ko/blog/x/`, under the path of
`base_url` when it has one: `/sub/ko/blog/x/`) or absolute under `base_url`
(`https://example.org/ko/blog/x/`); with or without its last `/`, percent-encoded or not, a
`?query` kept as written. A `#fragment` naming a heading (`#h-결론`) names, in the other
language's page, the heading at the same place (headings pair by position, as sections do;
bipub.text.headings): known when the two pages have as many headings. Any other fragment is
kept. Relative links (`../x/`) work in every language and are not read.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace
from urllib.parse import quote, unquote, urlsplit

from bipub.pair.model import Entry, Site
from bipub.pair.site_pages import SitePages
from bipub.text import site_urls
from bipub.text.headings import HEADING_PREFIX, heading_ids


@dataclass(frozen=True)
class Counterpart:
    """A link to a page of the site in language `lang`: `path`, the page's path there;
    `target_href`, the link to the same page in the target language, written as the link is
    (None: the site has no such page in the target language; `why`, when said, says why);
    `anchor_lost`: the link names a heading whose place in the target language's page is not
    known (`target_href` is then the page's link without it)."""

    lang: str
    path: str
    target_href: str | None
    anchor_lost: bool = False
    why: str = ""


@dataclass(frozen=True)
class _Link:
    head: str  # what comes before the path as written ("", base_url, or its path)
    written: str  # the path as written, with its query and fragment
    lang: str
    kind: str
    slug: str
    fragment: str | None  # decoded, NFC

    @property
    def heading(self) -> bool:
        return self.fragment is not None and self.fragment.startswith(HEADING_PREFIX)

    def path(self) -> str:
        return (site_urls.post if self.kind == "posts" else site_urls.page)(self.lang, self.slug)


class PageLinks:
    """The posts and pages of a paired site, by language, for reading links."""

    def __init__(
        self,
        site: Site,
        codes: tuple[str, ...] | list[str],
        base_url: str,
        short_cv: Callable[[Site], bool] | None = None,
    ) -> None:
        self.codes = tuple(codes)
        self.base = base_url.rstrip("/")
        self.prefix = urlsplit(self.base + "/").path.rstrip("/")
        self.entries: dict[tuple[str, str], Entry] = {}
        self.shown: set[tuple[str, str, str]] = set()  # (lang, kind, slug)
        self.site_pages = SitePages(site, self.codes, short_cv)  # (site_pages.py)
        self._ids: dict[tuple[str, str, str], list[str]] = {}
        for entry in site.entries:
            slug = unicodedata.normalize("NFC", entry.slug)
            self.entries[(entry.kind, slug)] = entry
            for lang in self.codes:
                if entry.shown_in(lang):
                    self.shown.add((lang, entry.kind, slug))

    def may_link(self, text: str, other_than: str = "") -> bool:
        """Whether `text` may hold a link to a page of a language of the site (but
        `other_than`): every such link has `/<lang>` as written (`/ko/blog/x/`, `/api/ko/…`,
        the home without its last `/`: `https://example.org/ko`) or is a CV's PDF
        (`/pdf/cv-ko.pdf`)."""
        return any(
            f"/{code}" in text or f"cv-{code}" in text for code in self.codes if code != other_than
        )

    def _split(self, href: str) -> tuple[str, str] | None:
        """A link to the site, root-relative or under `base_url`: what comes before its path
        as written (`_Link.head`), and the rest; None for any other link."""
        head = next((h for h in (self.base, self.prefix) if h and href.startswith(h + "/")), None)
        if head is None:
            if self.prefix or not href.startswith("/") or href.startswith("//"):
                return None
            head = ""
        return head, href[len(head) :]

    def _read(self, href: str, shown: bool = True) -> _Link | None:
        """A link to a post or page the site shows (in the link's language), read (`shown`
        False: a post's or page's URL in any language of the site)."""
        split = self._split(href)
        if split is None:
            return None
        head, written = split
        path, hash_, fragment = written.partition("#")
        parts = unicodedata.normalize("NFC", unquote(path.split("?", 1)[0])).strip("/").split("/")
        lang = parts[0]
        if lang not in self.codes or not written.startswith(f"/{lang}/"):
            return None
        if len(parts) == 3 and parts[1] == "blog":
            kind, slug = "posts", parts[2]
        elif len(parts) == 2:
            kind, slug = "pages", parts[1]
        else:
            return None
        if (lang, kind, slug) not in self.shown if shown else (kind, slug) not in self.entries:
            return None
        name = unicodedata.normalize("NFC", unquote(fragment)) if hash_ else None
        return _Link(head, written, lang, kind, slug, name)

    def _heading_ids(self, lang: str, kind: str, slug: str) -> list[str]:
        """The heading ids of the page `lang` shows of a post or page (its translation, or the
        source standing in)."""
        key = (lang, kind, slug)
        if key not in self._ids:
            version = self.entries[(kind, slug)].versions.get(lang)
            self._ids[key] = heading_ids(version.doc.body) if version is not None else []
        return self._ids[key]

    def _heading_in(self, link: _Link, lang: str) -> str | None:
        """The id of the heading of `lang`'s page at the place of the heading the link names in
        its own page (None: not a heading there, or the pages' headings are not as many)."""
        ours = self._heading_ids(link.lang, link.kind, link.slug)
        theirs = self._heading_ids(lang, link.kind, link.slug)
        if link.fragment not in ours or len(ours) != len(theirs):
            return None
        return theirs[ours.index(link.fragment)]

    def counterpart(self, href: str, target: str) -> Counterpart | None:
        """The post or page of another language than `target` that `href` links to (published
        there), with its link in `target`; None for any other link."""
        link = self._read(href)
        if link is None:
            return self._site_page(href, target)
        if link.lang == target:
            return None
        if (target, link.kind, link.slug) not in self.shown:
            return Counterpart(link.lang, link.path(), None)
        page, _, fragment = link.written.partition("#")
        there = link.head + f"/{target}/" + page[len(link.lang) + 2 :]
        if not link.heading:
            return Counterpart(link.lang, link.path(), there + link.written[len(page) :])
        new = self._heading_in(link, target)
        if new is None:
            return Counterpart(link.lang, link.path(), there, anchor_lost=True)
        return Counterpart(
            link.lang,
            link.path(),
            there + "#" + (quote(new, safe="-_.~") if "%" in fragment else new),
        )

    def _site_path(self, href: str) -> tuple[str, str, str] | None:
        """A link to the site (`_split`): its head, its path, its `?query#fragment`."""
        split = self._split(href)
        if split is None:
            return None
        head, written = split
        cut = min((i for i in (written.find("?"), written.find("#")) if i >= 0), default=None)
        return (head, written[:cut], written[cut:]) if cut is not None else (head, written, "")

    def _site_page(self, href: str, target: str) -> Counterpart | None:
        """`counterpart` for a link to one of the site's other pages (pair/site_pages.py): the
        page's path in `target`, encoded if the link is, its `?query` and `#fragment` kept."""
        split = self._site_path(href)
        if split is None:
            return None
        head, path, rest = split
        found = self.site_pages.read(unquote(path))
        if found is None or found[0] == target:
            return None
        lang, ident = found
        own = self.site_pages.path(lang, ident) or path
        there, why = self.site_pages.counterpart(lang, ident, target)
        if there is None:
            return Counterpart(lang, own, None, why=why)
        return Counterpart(
            lang, own, head + (site_urls.encode(there) if "%" in path else there) + rest
        )

    def broken_anchor(self, href: str) -> str | None:
        """For a link to a heading (`#h-…`) of a page of the site that names no heading of that
        page: what to say of it (with the heading at the place of the one it names in another
        language's page, when known); None otherwise."""
        link = self._read(href)
        if link is None or not link.heading:
            return None
        if link.fragment in self._heading_ids(link.lang, link.kind, link.slug):
            return None
        said = f"#{link.fragment} names no heading of {link.path()}"
        for other in self.codes:
            if other != link.lang and (other, link.kind, link.slug) in self.shown:
                there = self._heading_in(replace(link, lang=other), link.lang)
                if there is not None:
                    return f"{said}: the heading at the place of {other}'s #{link.fragment} is #{there}"
        return said

    def absent(self, href: str) -> str | None:
        """For a link to a post's or page's URL in a language the site does not show it in (no
        such page: `outputs.untranslated: omit`, a `draft: true`), or to one of the site's other
        pages with the code of a language that has no such page (`/en/tags/분산/`, its language
        swapped by hand: `SitePages.unmade`): what to say of it (with its page in a language
        that has it); None otherwise."""
        link = self._read(href, shown=False)
        if link is None:
            return self._site_absent(href)
        if (link.lang, link.kind, link.slug) in self.shown:
            return None
        what = "post" if link.kind == "posts" else "page"
        said = f"{link.path()} does not exist: the site has no {link.lang} page of this {what}"
        for other in self.codes:
            if (other, link.kind, link.slug) in self.shown:
                return f"{said}; its {other} page is {replace(link, lang=other).path()}"
        return said

    def _site_absent(self, href: str) -> str | None:
        """`absent` for the site's other pages."""
        split = self._site_path(href)
        if split is None:
            return None
        path = unquote(split[1])
        found = self.site_pages.unmade(path)
        if found is None:
            return None
        lang, ident, written_as = found
        own = self.site_pages.path(lang, ident)
        said = f"{path} does not exist"
        there, why = self.site_pages.counterpart(lang, ident, written_as)
        if there is not None:
            return f"{said}: the {written_as} page of {own} is {there}"
        return f"{said}: the site has no {written_as} page of {own}: {why}"
