"""Atom feeds (site/<lang>/feed.xml), sitemap.xml with hreflang alternates, robots.txt."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, date, datetime, time

from bipub.pair.site import Site
from bipub.render import urls
from bipub.render.html import Plan
from bipub.render.markdown import RenderedMarkdown

ATOM = "http://www.w3.org/2005/Atom"
SITEMAP = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML = "http://www.w3.org/1999/xhtml"
FEED_SIZE = 20


def _ts(d: date) -> str:
    return datetime.combine(d, time(0, 0), tzinfo=UTC).isoformat().replace("+00:00", "Z")


def _xml(root: ET.Element) -> bytes:
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data + b"\n"


def atom_feed(site: Site, lang: str, url: urls.UrlBuilder, render: RenderFn) -> bytes:
    ET.register_namespace("", ATOM)
    cfg = site.config
    language = cfg.language(lang)
    posts = site.posts(lang)[:FEED_SIZE]
    feed = ET.Element(f"{{{ATOM}}}feed", {"{http://www.w3.org/XML/1998/namespace}lang": lang})
    ET.SubElement(feed, f"{{{ATOM}}}title").text = language.title
    if language.description:
        ET.SubElement(feed, f"{{{ATOM}}}subtitle").text = language.description
    ET.SubElement(feed, f"{{{ATOM}}}id").text = url.absolute(urls.home(lang))
    ET.SubElement(feed, f"{{{ATOM}}}link", {"rel": "self", "href": url.absolute(urls.feed(lang))})
    ET.SubElement(
        feed,
        f"{{{ATOM}}}link",
        {"rel": "alternate", "type": "text/html", "href": url.absolute(urls.blog(lang))},
    )
    newest = max(((e.updated or e.date) for e in posts if e.date), default=date(1970, 1, 1))
    ET.SubElement(feed, f"{{{ATOM}}}updated").text = _ts(newest)
    author = ET.SubElement(feed, f"{{{ATOM}}}author")
    ET.SubElement(author, f"{{{ATOM}}}name").text = cfg.author.name
    if cfg.author.email:
        ET.SubElement(author, f"{{{ATOM}}}email").text = cfg.author.email
    ET.SubElement(feed, f"{{{ATOM}}}generator").text = "bipub"
    for entry in posts:
        doc = entry.versions[lang].doc
        link = url.absolute(urls.post(lang, entry.slug))
        item = ET.SubElement(
            feed, f"{{{ATOM}}}entry", {"{http://www.w3.org/XML/1998/namespace}lang": doc.lang}
        )
        ET.SubElement(item, f"{{{ATOM}}}title").text = doc.meta.title
        ET.SubElement(item, f"{{{ATOM}}}id").text = link
        ET.SubElement(item, f"{{{ATOM}}}link", {"rel": "alternate", "href": link})
        assert entry.date is not None
        ET.SubElement(item, f"{{{ATOM}}}published").text = _ts(entry.date)
        ET.SubElement(item, f"{{{ATOM}}}updated").text = _ts(entry.updated or entry.date)
        if doc.meta.description:
            ET.SubElement(item, f"{{{ATOM}}}summary").text = doc.meta.description
        ET.SubElement(item, f"{{{ATOM}}}content", {"type": "html"}).text = render(
            doc.rel, doc.body, doc.body_line
        ).html
        for tag in doc.meta.tags:
            ET.SubElement(item, f"{{{ATOM}}}category", {"term": tag})
    return _xml(feed)


def sitemap(site: Site, plan: Plan, url: urls.UrlBuilder) -> bytes:
    ET.register_namespace("", SITEMAP)
    ET.register_namespace("xhtml", XHTML)
    root = ET.Element(f"{{{SITEMAP}}}urlset")
    codes = site.config.codes
    lastmods: dict[tuple[str, ...], date | None] = {
        ("post", e.key): (e.updated or e.date) for e in site.entries
    }
    for route in sorted(plan.routes, key=lambda r: (r[0], r[1:])):
        specs = plan.routes[route]
        indexable = {
            code: s for code, s in specs.items() if s.canonical_path is None and not s.noindex
        }
        for code in codes:
            spec = indexable.get(code)
            if spec is None:
                continue
            el = ET.SubElement(root, f"{{{SITEMAP}}}url")
            ET.SubElement(el, f"{{{SITEMAP}}}loc").text = url.absolute(spec.path)
            lastmod = lastmods.get(route)
            if lastmod:
                ET.SubElement(el, f"{{{SITEMAP}}}lastmod").text = lastmod.isoformat()
            if len(indexable) > 1:
                for other in codes:
                    alt = indexable.get(other)
                    if alt is not None:
                        ET.SubElement(
                            el,
                            f"{{{XHTML}}}link",
                            {
                                "rel": "alternate",
                                "hreflang": other,
                                "href": url.absolute(alt.path),
                            },
                        )
    return _xml(root)


def robots(url: urls.UrlBuilder) -> str:
    return f"User-agent: *\nAllow: /\n\nSitemap: {url.absolute('/sitemap.xml')}\n"


from collections.abc import Callable  # noqa: E402

RenderFn = Callable[..., RenderedMarkdown]  # (rel, body, first_line)
