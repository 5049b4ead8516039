"""Atom feeds (site/<lang>/feed.xml), sitemap.xml with hreflang alternates, robots.txt."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from typing import TYPE_CHECKING

from bipub.load.content import Document
from bipub.pair.site import Entry, Site
from bipub.render import urls
from bipub.render.markdown import RenderedMarkdown

if TYPE_CHECKING:
    from bipub.render.html import PageSpec, Plan

ATOM = "http://www.w3.org/2005/Atom"
SITEMAP = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML = "http://www.w3.org/1999/xhtml"
FEED_SIZE = 20


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
    lang: str
    title: str
    link: str
    published: str
    updated: str
    summary: str | None
    tags: tuple[str, ...]


@dataclass(frozen=True)
class FeedParts:
    """An Atom feed before its entries' bodies are rendered in (`feed_xml` joins them)."""

    lang: str
    title: str
    subtitle: str | None
    id: str
    self_href: str
    html_href: str
    updated: str
    author: str
    email: str | None
    items: tuple[FeedItem, ...]


def feed_parts(site: Site, lang: str, url: urls.UrlBuilder) -> FeedParts:
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
    )


def feed_updated(dates: list[tuple[date | None, date | None]]) -> str:
    """The feed's `updated`: the latest date or update of its posts (date, updated)."""
    latest = [(up or day) for day, up in dates if day]
    return _ts(max(latest, key=_instant, default=date(1970, 1, 1)))


def feed_item(entry: Entry, lang: str, url: urls.UrlBuilder) -> FeedItem:
    doc = entry.versions[lang].doc
    assert entry.date is not None
    return FeedItem(
        doc.rel,
        doc.lang,
        doc.meta.title,
        url.absolute(urls.post(lang, entry.slug)),
        _ts(entry.published_at),
        _ts(entry.modified_at or entry.published_at),
        doc.meta.description,
        tuple(doc.meta.tags),
    )


def atom_feed(
    site: Site,
    lang: str,
    url: urls.UrlBuilder,
    render: RenderFn,
) -> bytes:
    """The language's Atom feed."""
    parts = feed_parts(site, lang, url)
    bodies = {}
    for entry in site.posts(lang)[:FEED_SIZE]:
        doc = entry.versions[lang].doc
        bodies[doc.rel] = render(doc).html
    return feed_xml(parts, bodies)


def feed_xml(parts: FeedParts, bodies: dict[str, str]) -> bytes:
    """The feed, with each entry's content from `bodies` (document → rendered HTML)."""
    ET.register_namespace("", ATOM)
    xml_lang = "{http://www.w3.org/XML/1998/namespace}lang"
    feed = ET.Element(f"{{{ATOM}}}feed", {xml_lang: parts.lang})
    ET.SubElement(feed, f"{{{ATOM}}}title").text = parts.title
    if parts.subtitle:
        ET.SubElement(feed, f"{{{ATOM}}}subtitle").text = parts.subtitle
    ET.SubElement(feed, f"{{{ATOM}}}id").text = parts.id
    ET.SubElement(feed, f"{{{ATOM}}}link", {"rel": "self", "href": parts.self_href})
    ET.SubElement(
        feed,
        f"{{{ATOM}}}link",
        {"rel": "alternate", "type": "text/html", "href": parts.html_href},
    )
    ET.SubElement(feed, f"{{{ATOM}}}updated").text = parts.updated
    author = ET.SubElement(feed, f"{{{ATOM}}}author")
    ET.SubElement(author, f"{{{ATOM}}}name").text = parts.author
    if parts.email:
        ET.SubElement(author, f"{{{ATOM}}}email").text = parts.email
    ET.SubElement(feed, f"{{{ATOM}}}generator").text = "bipub"
    for it in parts.items:
        item = ET.SubElement(feed, f"{{{ATOM}}}entry", {xml_lang: it.lang})
        ET.SubElement(item, f"{{{ATOM}}}title").text = it.title
        ET.SubElement(item, f"{{{ATOM}}}id").text = it.link
        ET.SubElement(item, f"{{{ATOM}}}link", {"rel": "alternate", "href": it.link})
        ET.SubElement(item, f"{{{ATOM}}}published").text = it.published
        ET.SubElement(item, f"{{{ATOM}}}updated").text = it.updated
        if it.summary:
            ET.SubElement(item, f"{{{ATOM}}}summary").text = it.summary
        ET.SubElement(item, f"{{{ATOM}}}content", {"type": "html"}).text = bodies[it.rel]
        for tag in it.tags:
            ET.SubElement(item, f"{{{ATOM}}}category", {"term": tag})
    return _xml(feed)


SitemapUrl = tuple[str, str | None, list[tuple[str, str]]]  # loc, lastmod, (hreflang, href)s


Route = tuple[str, ...]


SitemapPart = tuple[Route, str, bool]  # a route, its <url> elements, whether they have alternates


def sitemap_parts(
    site: Site, plan: Plan, url: urls.UrlBuilder, part: RoutePartFn | None = None
) -> list[SitemapPart]:
    """The sitemap by route, in its order (`sitemap_join` makes the file); `part`: `route_part`
    or a memo of it (render/outputs.py)."""
    part = part or route_part
    lastmods: dict[tuple[str, ...], date | None] = {
        ("post", e.key): e.modified_at for e in site.entries
    }
    codes = site.config.codes
    return [
        part(route, codes, plan.routes[route], url, lastmods.get(route))
        for route in sorted(plan.routes, key=route_order)
    ]


def route_order(route: Route) -> tuple[str, Route]:
    return (route[0], route[1:])


def route_part(
    route: Route,
    codes: list[str],
    specs: dict[str, PageSpec],
    url: urls.UrlBuilder,
    lastmod: date | None,
) -> SitemapPart:
    """The sitemap's URLs of one route: its indexable page in each language (made only of
    each page's path, canonical_path and noindex: render/outputs.py keeps parts by them)."""
    indexable = {code: s for code, s in specs.items() if s.canonical_path is None and not s.noindex}
    alternates = (
        [(other, url.absolute(indexable[other].path)) for other in codes if other in indexable]
        if len(indexable) > 1
        else []
    )
    entries: list[SitemapUrl] = [
        (url.absolute(spec.path), lastmod.isoformat() if lastmod else None, alternates)
        for code in codes
        if (spec := indexable.get(code)) is not None
    ]
    return (route, "".join(map(_url_xml, entries)), bool(entries and alternates))


def sitemap_xml(entries: list[SitemapUrl]) -> bytes:
    """sitemap.xml as ElementTree writes it (indented, a namespace declared only if used) —
    written as text: ElementTree took ~0.4 s for a site of 14,000 pages, which every build of
    it pays (tests/property/test_sitemap_xml.py compares with ElementTree)."""
    has_alternates = any(alternates for _, _, alternates in entries)
    return sitemap_join([((), "".join(map(_url_xml, entries)), has_alternates)])


def sitemap_join(parts: list[SitemapPart]) -> bytes:
    out = ["<?xml version='1.0' encoding='utf-8'?>\n<urlset xmlns=\"", SITEMAP, '"']
    if any(has_alternates for _, _, has_alternates in parts):
        out += [' xmlns:xhtml="', XHTML, '"']
    body = "".join(text for _, text, _ in parts)
    out.append(f">{body}\n</urlset>" if body else " />")
    return "".join(out).encode("utf-8", "xmlcharrefreplace") + b"\n"


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


from collections.abc import Callable  # noqa: E402

RenderFn = Callable[[Document], RenderedMarkdown]  # render/markdown.py MarkdownCache
RoutePartFn = Callable[
    [Route, list[str], "dict[str, PageSpec]", urls.UrlBuilder, date | None], SitemapPart
]
