"""Feeds and the sitemap: an Atom feed and a JSON Feed 1.1 per language, per tag and per series
(site/<lang>/feed.xml and feed.json, <lang>/tags/<slug>/feed.*, <lang>/series/<slug>/feed.*),
sitemap.xml with hreflang alternates, robots.txt.

A feed is made in two steps, so that its entries can be cached apart (each is a function of its
item, its rendered body and its note only): `feed_sets` lists every feed of a language with its
items; `atom_entry` / `json_item` make one entry; `feed_xml` / `json_feed_join` join them.

Each entry carries its translation state (issue 19): in Atom a `bipub:translation` extension
element (namespace `BIPUB_NS`), in JSON Feed a `_bipub` extension object, and for a machine
draft, a stale translation or a post shown in its original language a visible note at the top
of its content (templates/partials/feed_note.html), so a machine draft is never shown as
reviewed.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from operator import itemgetter
from typing import TYPE_CHECKING

from bipub.load.content import Document
from bipub.pair.site import Entry, Site
from bipub.pair.site_pages import series_feed_posts
from bipub.render import urls

if TYPE_CHECKING:
    from bipub.render.html import PageSpec, Plan

ATOM = "http://www.w3.org/2005/Atom"
SITEMAP = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML = "http://www.w3.org/1999/xhtml"
BIPUB_NS = "https://bipub.invalid/ns/feed"  # the Atom extension element's namespace
JSON_FEED_VERSION = "https://jsonfeed.org/version/1.1"
FEED_SIZE = 20
# an entry's categories: the first 30 of its post's tags (a post with thousands of tags, which
# limits.tags_per_post allows, is in thousands of tag feeds: each entry must stay small)
FEED_TAGS = 30
# what each translation state means, in the feeds' extension data (pair/site.py State)
REVIEWED = {"source": True, "translated": True, "draft": False, "stale": False, "missing": False}


def _ts(d: date) -> str:
    if isinstance(d, datetime):  # a post's date-time with offset (model/post.py PostDate)
        return d.isoformat().replace("+00:00", "Z")
    return datetime.combine(d, time(0, 0), tzinfo=UTC).isoformat().replace("+00:00", "Z")


def _instant(d: date) -> datetime:
    return d if isinstance(d, datetime) else datetime.combine(d, time(0, 0), tzinfo=UTC)


def _xml(root: ET.Element) -> bytes:
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data + b"\n"


@dataclass(frozen=True)
class FeedItem:
    rel: str  # the document whose rendered body is the entry's content
    lang: str  # the content's language (the source's, for a post not translated yet)
    title: str
    link: str  # absolute: the entry's id too (stable while the slug and base_url are)
    published: str
    updated: str
    summary: str | None
    tags: tuple[str, ...]
    state: str = "source"  # the translation state (pair/site.py State)
    source_lang: str = ""  # the language the post was written in


@dataclass(frozen=True)
class FeedParts:
    """A feed before its entries are made (`feed_xml` and `json_feed_join` join them)."""

    lang: str
    title: str
    subtitle: str | None
    id: str
    self_href: str  # the Atom feed's absolute URL
    html_href: str  # the page the feed follows
    updated: str
    author: str
    email: str | None
    items: tuple[FeedItem, ...]
    json_href: str = ""  # the JSON Feed's absolute URL
    path: str = ""  # the Atom feed's site path; the JSON Feed's is beside it (feed.json)
    # each item's document (its body is the entry's content)
    docs: tuple[Document, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class FeedSpec:
    """A feed before any of it is made (`feed_of` makes its FeedParts): its Atom feed's site
    path, the page it follows ("" for the language's own feed: its id is the home page's
    URL), its title and its posts (its first FEED_SIZE, newest first)."""

    path: str
    page: str
    title: str
    posts: tuple[Entry, ...]


def feed_sets(site: Site, lang: str, url: urls.UrlBuilder) -> list[FeedParts]:
    """Every feed of a language (`feed_specs`), made."""
    return [feed_of(site, lang, url, spec) for spec in feed_specs(site, lang)]


def feed_specs(site: Site, lang: str) -> list[FeedSpec]:
    """Every feed of a language: the language's, then each tag's and each series' (in the
    order of their slugs). Made of their first FEED_SIZE posts only: a tag's are the posts
    pairing listed for it (`Site.tag_posts`, the tag pages' own lists)."""
    posts = site.posts(lang)
    title = site.config.language(lang).title
    out = [FeedSpec(urls.feed(lang), "", title, tuple(posts[:FEED_SIZE]))]
    by_tag = site.tag_posts.get(lang, {})  # each tag's posts, newest first (pair/tables.py)
    for slug, tag in sorted(site.tags.get(lang, {}).items()):
        members = by_tag.get(slug)
        if members:
            page = urls.tag(lang, slug)
            name = f"{title} · #{tag.name}"
            out.append(FeedSpec(urls.page_feed(page), page, name, tuple(members[:FEED_SIZE])))
    for slug, series in sorted(site.series.get(lang, {}).items()):
        members = series_feed_posts(lang, series)  # (the series page links them: the same rule)
        if members:
            page = urls.series(lang, slug)
            name = f"{title} · {series.name}"
            out.append(FeedSpec(urls.page_feed(page), page, name, tuple(members[:FEED_SIZE])))
    return out


def feed_of(site: Site, lang: str, url: urls.UrlBuilder, spec: FeedSpec) -> FeedParts:
    """The FeedParts of a feed of `feed_specs`."""
    if not spec.page:
        return feed_parts(site, lang, url)
    return _scoped(site, lang, url, list(spec.posts), spec.title, spec.page)


def _scoped(
    site: Site, lang: str, url: urls.UrlBuilder, posts: list[Entry], title: str, page: str
) -> FeedParts:
    """The feed of a tag's or a series' page (`page`): its id is that page's URL."""
    cfg = site.config
    posts = posts[:FEED_SIZE]
    return FeedParts(
        lang,
        title,
        cfg.language(lang).description,
        url.absolute(page),
        url.absolute(urls.page_feed(page)),
        url.absolute(page),
        feed_updated([(e.published_at, e.modified_at) for e in posts]),
        cfg.author.name,
        cfg.author.email,
        tuple(feed_item(entry, lang, url) for entry in posts),
        url.absolute(urls.page_feed(page, json=True)),
        urls.page_feed(page),
        tuple(entry.versions[lang].doc for entry in posts),
    )


def feed_parts(site: Site, lang: str, url: urls.UrlBuilder) -> FeedParts:
    """The language's own feed (all its posts, newest first)."""
    cfg = site.config
    language = cfg.language(lang)
    posts = site.posts(lang)[:FEED_SIZE]
    return FeedParts(
        lang,
        language.title,
        language.description,
        url.absolute(urls.home(lang)),
        url.absolute(urls.feed(lang)),
        url.absolute(urls.blog(lang)),
        feed_updated([(e.published_at, e.modified_at) for e in posts]),
        cfg.author.name,
        cfg.author.email,
        tuple(feed_item(entry, lang, url) for entry in posts),
        url.absolute(urls.json_feed(lang)),
        urls.feed(lang),
        tuple(entry.versions[lang].doc for entry in posts),
    )


def feed_updated(dates: list[tuple[date | None, date | None]]) -> str:
    """The feed's `updated`: the latest date or update of its posts (date, updated)."""
    latest = [(up or day) for day, up in dates if day]
    return _ts(max(latest, key=_instant, default=date(1970, 1, 1)))


def feed_item(entry: Entry, lang: str, url: urls.UrlBuilder) -> FeedItem:
    version = entry.versions[lang]
    doc = version.doc
    assert entry.date is not None
    return FeedItem(
        doc.rel,
        doc.lang,
        doc.meta.title,
        url.absolute(urls.post(lang, entry.slug)),
        _ts(entry.published_at),
        _ts(entry.modified_at or entry.published_at),
        doc.meta.description,
        tuple(doc.meta.tags[:FEED_TAGS]),
        version.state,
        entry.source_lang,
    )


def atom_entry(it: FeedItem, body: str, note: str = "") -> str:
    """One Atom `<entry>` (indented for its place in the feed): a pure function of the item,
    its rendered body and its note, so it can be cached by them."""
    out = [
        f'\n  <entry xml:lang="{_attrib(it.lang)}">',
        f"\n    <title>{_cdata(it.title)}</title>",
        f"\n    <id>{_cdata(it.link)}</id>",
        f'\n    <link rel="alternate" href="{_attrib(it.link)}" />',
        f"\n    <published>{_cdata(it.published)}</published>",
        f"\n    <updated>{_cdata(it.updated)}</updated>",
    ]
    if it.summary:
        out.append(f"\n    <summary>{_cdata(it.summary)}</summary>")
    out.append(f'\n    <content type="html" xml:base="{_attrib(it.link)}">')
    out.append(f"{_cdata(note + body)}</content>")
    out.extend(f'\n    <category term="{_attrib(tag)}" />' for tag in it.tags)
    reviewed = "true" if REVIEWED.get(it.state, False) else "false"
    out.append(
        f'\n    <bipub:translation state="{_attrib(it.state)}" reviewed="{reviewed}" '
        f'source-lang="{_attrib(it.source_lang)}" />'
    )
    out.append("\n  </entry>")
    return "".join(out)


def entry_bytes(it: FeedItem, body: str, note: str = "") -> tuple[bytes, bytes]:
    """One entry of both feeds as `feed_xml` and `json_feed_join` write it: `atom_entry` and
    `json_item_text` encoded, each once (a post is in its language's feed and in each of its
    tags' and series' feeds: encoding each feed's whole text encoded it again in each)."""
    return (
        _xml_bytes(atom_entry(it, body, note)),
        json_item_text(json_item(it, body, note)).encode(),
    )


def _xml_bytes(text: str) -> bytes:
    """An Atom feed's text as its bytes (a character UTF-8 cannot hold, a lone surrogate,
    written as a character reference): encoded piece by piece or whole, the same bytes."""
    return text.encode("utf-8", "xmlcharrefreplace")


def feed_xml(parts: FeedParts, entries: list[bytes]) -> bytes:
    """The Atom feed: its head, then `entries` (`entry_bytes`' Atom entries) as they are."""
    out = [
        "<?xml version='1.0' encoding='utf-8'?>\n",
        f'<feed xmlns="{ATOM}" xmlns:bipub="{BIPUB_NS}" xml:lang="{_attrib(parts.lang)}">',
        f"\n  <title>{_cdata(parts.title)}</title>",
    ]
    if parts.subtitle:
        out.append(f"\n  <subtitle>{_cdata(parts.subtitle)}</subtitle>")
    out += [
        f"\n  <id>{_cdata(parts.id)}</id>",
        f'\n  <link rel="self" href="{_attrib(parts.self_href)}" />',
        f'\n  <link rel="alternate" type="text/html" href="{_attrib(parts.html_href)}" />',
        f"\n  <updated>{_cdata(parts.updated)}</updated>",
        f"\n  <author>\n    <name>{_cdata(parts.author)}</name>",
    ]
    if parts.email:
        out.append(f"\n    <email>{_cdata(parts.email)}</email>")
    out += ["\n  </author>", "\n  <generator>bipub</generator>"]
    return b"".join((_xml_bytes("".join(out)), *entries, b"\n</feed>\n"))


def json_item(it: FeedItem, body: str, note: str = "") -> dict[str, object]:
    """One JSON Feed 1.1 item (a pure function, like `atom_entry`); `_bipub` is the extension
    object with the translation state (the spec lets a publisher add objects named `_…`)."""
    item: dict[str, object] = {
        "id": it.link,
        "url": it.link,
        "title": it.title,
        "content_html": note + body,
    }
    if it.summary:
        item["summary"] = it.summary
    item["date_published"] = it.published
    item["date_modified"] = it.updated
    if it.tags:
        item["tags"] = list(it.tags)
    item["language"] = it.lang
    item["_bipub"] = {
        "about": "https://bipub.invalid/ns/feed",
        "translation_state": it.state,
        "reviewed": REVIEWED.get(it.state, False),
        "source_language": it.source_lang,
    }
    return item


ITEM_INDENT = "\n    "  # an item's lines in the feed: two levels in (the feed, its "items")


def json_item_text(item: dict[str, object]) -> str:
    """One item (`json_item`) as `json_feed_join` writes it in its list: a pure function of the
    item, so it can be cached with it (the indentation of `json.dumps(..., indent=2)` at its
    depth: JSON strings hold no raw line break)."""
    return json.dumps(item, ensure_ascii=False, indent=2).replace("\n", ITEM_INDENT)


def json_feed_join(parts: FeedParts, items: list[bytes]) -> bytes:
    """The JSON Feed 1.1 document of `parts` with `items` as `json_item_text` wrote them
    (encoded: `entry_bytes`): byte for byte `json.dumps` of the whole feed, encoded
    (tests/property/test_feed_json.py), without encoding each item again."""
    author: dict[str, object] = {"name": parts.author}
    feed: dict[str, object] = {
        "version": JSON_FEED_VERSION,
        "title": parts.title,
        "home_page_url": parts.html_href,
        "feed_url": parts.json_href,
    }
    if parts.subtitle:
        feed["description"] = parts.subtitle
    feed["language"] = parts.lang
    feed["authors"] = [author]
    head = json.dumps(feed, ensure_ascii=False, indent=2).removesuffix("\n}")
    if not items:
        return f'{head},\n  "items": []\n}}\n'.encode()
    indent = ITEM_INDENT.encode()
    listed = b"".join((indent, (b"," + indent).join(items), b"\n  ]\n}\n"))
    return f'{head},\n  "items": ['.encode() + listed


SitemapUrl = tuple[str, str | None, list[tuple[str, str]]]  # loc, lastmod, (hreflang, href)s


Route = tuple[str, ...]


SitemapPart = tuple[Route, str, bool]  # a route, its <url> elements, whether they have alternates


def sitemap_parts(
    site: Site,
    plan: Plan,
    url: urls.UrlBuilder,
    known: Mapping[Route, SitemapPart] | None = None,
    fresh: dict[Route, SitemapPart] | None = None,
) -> list[SitemapPart]:
    """The sitemap by route, in the order of the routes (`sitemap_join` makes the file);
    `known`: the parts of some routes, kept from the last build (render/parts.py); `fresh`:
    given, it gets the parts made (those of the other routes)."""
    codes = site.config.codes
    routes = plan.routes
    # (routes are tuples of strings: sorted as tuples, by their kind first)
    order = sorted(routes)
    default = site.config.default_language
    root = [root_part(codes, home, url, default)] if (home := routes.get(HOME)) else []
    if known and len(known) == len(routes):
        return root + [known[r] for r in order]
    # the routes not known (an update: few), made; the lastmod of a post's route
    # (`("post", key)`): of those only (the others' dates are not read)
    todo = routes.keys() - known.keys() if known else routes.keys()
    wanted = {r[1] for r in todo if len(r) == 2 and r[0] == "post"}
    lastmods: dict[tuple[str, ...], date | None] = {
        ("post", e.key): e.modified_at for e in site.entries if e.key in wanted
    }
    made = {r: route_part(r, codes, routes[r], url, lastmods.get(r), default) for r in todo}
    if fresh is not None:
        fresh.update(made)
    if known:
        made.update(known)
    return root + list(map(made.__getitem__, order))


HOME: Route = ("home",)


def root_part(
    codes: list[str], homes: dict[str, PageSpec], url: urls.UrlBuilder, default: str
) -> SitemapPart:
    """The language entry page (/, root.html): the x-default of the homes (session 29: it was
    not in the sitemap), with their alternates."""
    alternates = [(c, url.absolute(spec.path)) for c in codes if (spec := homes.get(c))]
    if len(alternates) > 1:
        alternates.append(("x-default", url.absolute("/")))
    else:
        alternates = []
    return (("",), _url_xml((url.absolute("/"), None, alternates)), bool(alternates))


def route_part(
    route: Route,
    codes: list[str],
    specs: dict[str, PageSpec],
    url: urls.UrlBuilder,
    lastmod: date | None,
    default: str | None = None,
) -> SitemapPart:
    """The sitemap's URLs of one route: its indexable page in each language (made only of
    each page's path, canonical_path and noindex). Its text is `_url_xml` of each URL, with
    what they share (the lastmod, the alternates) escaped once for the route: a big site has
    tens of thousands of routes, made again at every build (tests/property/test_sitemap_xml.py
    compares with ElementTree). With alternates, the `default` language's page is also the
    x-default, as on the pages (the homes': the language entry page, /)."""
    indexable = {code: s for code, s in specs.items() if s.canonical_path is None and not s.noindex}
    locs = [(code, url.absolute(spec.path)) for code in codes if (spec := indexable.get(code))]
    if not locs:
        return (route, "", False)
    alternates = locs if len(indexable) > 1 else []
    if alternates and route == HOME:
        alternates = [*alternates, ("x-default", url.absolute("/"))]
    elif alternates and default is not None and (spec := indexable.get(default)) is not None:
        alternates = [*alternates, ("x-default", url.absolute(spec.path))]
    tail = "</loc>"
    if lastmod is not None:
        tail += f"\n    <lastmod>{_cdata(lastmod.isoformat())}</lastmod>"
    for hreflang, href in alternates:
        tail += (
            f'\n    <xhtml:link rel="alternate" hreflang="{_attrib(hreflang)}" '
            f'href="{_attrib(href)}" />'
        )
    tail += "\n  </url>"
    if len(locs) == 1:
        text = f"\n  <url>\n    <loc>{_cdata(locs[0][1])}{tail}"
    else:
        text = "".join(f"\n  <url>\n    <loc>{_cdata(loc)}{tail}" for _, loc in locs)
    return (route, text, bool(alternates))


def sitemap_xml(entries: list[SitemapUrl]) -> bytes:
    """sitemap.xml as ElementTree writes it (indented, a namespace declared only if used) —
    written as text: ElementTree took ~0.4 s for a site of 14,000 pages, which every build of
    it pays (tests/property/test_sitemap_xml.py compares with ElementTree)."""
    has_alternates = any(alternates for _, _, alternates in entries)
    return sitemap_join([((), "".join(map(_url_xml, entries)), has_alternates)])


def sitemap_join(parts: list[SitemapPart]) -> bytes:
    out = ["<?xml version='1.0' encoding='utf-8'?>\n<urlset xmlns=\"", SITEMAP, '"']
    if any(map(itemgetter(2), parts)):  # (any route with alternates; C loops: ~15,000 routes)
        out += [' xmlns:xhtml="', XHTML, '"']
    if any(map(itemgetter(1), parts)):  # (the routes' texts joined once with the rest: MBs)
        out.append(">")
        out += map(itemgetter(1), parts)
        out.append("\n</urlset>\n")
    else:
        out.append(" />\n")
    return "".join(out).encode("utf-8", "xmlcharrefreplace")


def _url_xml(entry: SitemapUrl) -> str:
    loc, lastmod, alternates = entry
    out = ["\n  <url>\n    ", f"<loc>{_cdata(loc)}</loc>" if loc else "<loc />"]
    if lastmod is not None:
        out.append(
            f"\n    <lastmod>{_cdata(lastmod)}</lastmod>" if lastmod else "\n    <lastmod />"
        )
    for hreflang, href in alternates:
        out.append(
            f'\n    <xhtml:link rel="alternate" hreflang="{_attrib(hreflang)}" '
            f'href="{_attrib(href)}" />'
        )
    out.append("\n  </url>")
    return "".join(out)


def _cdata(text: str) -> str:
    """Character data escaped as ElementTree escapes it."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attrib(text: str) -> str:
    """An attribute value escaped as ElementTree escapes it."""
    return (
        _cdata(text)
        .replace('"', "&quot;")
        .replace("\r", "&#13;")
        .replace("\n", "&#10;")
        .replace("\t", "&#09;")
    )


def robots(url: urls.UrlBuilder) -> str:
    return f"User-agent: *\nAllow: /\n\nSitemap: {url.absolute('/sitemap.xml')}\n"
