"""sitemap.xml is written as text (render/feeds.py sitemap_xml): byte for byte what ElementTree
wrote before (the reference below is the code it replaced), whatever the URLs hold."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import date

from hypothesis import given, settings
from hypothesis import strategies as st

from bipub.render.feeds import (
    SITEMAP,
    XHTML,
    SitemapUrl,
    _url_xml,
    _xml,
    route_part,
    sitemap_xml,
)
from bipub.render.page_plan import PageSpec
from bipub.render.urls import UrlBuilder


def _reference(entries: list[SitemapUrl]) -> bytes:
    ET.register_namespace("", SITEMAP)
    ET.register_namespace("xhtml", XHTML)
    root = ET.Element(f"{{{SITEMAP}}}urlset")
    for loc, lastmod, alternates in entries:
        el = ET.SubElement(root, f"{{{SITEMAP}}}url")
        ET.SubElement(el, f"{{{SITEMAP}}}loc").text = loc
        if lastmod is not None:
            ET.SubElement(el, f"{{{SITEMAP}}}lastmod").text = lastmod
        for hreflang, href in alternates:
            ET.SubElement(
                el, f"{{{XHTML}}}link", {"rel": "alternate", "hreflang": hreflang, "href": href}
            )
    return _xml(root)


# XML 1.0 cannot hold most control characters at all (neither can the reference's output)
text = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs",),
        blacklist_characters=[chr(c) for c in range(32) if c not in (9, 10, 13)],
    ),
    max_size=12,
)
special = st.sampled_from(["", "&", "<", ">", '"', "'", "\r", "\n", "\t", "한", "a&b<c>", "x y"])
value = st.one_of(text, special, st.lists(special, max_size=4).map("".join))
entries = st.lists(
    st.tuples(value, st.one_of(st.none(), value), st.lists(st.tuples(value, value), max_size=3)),
    max_size=5,
)


@settings(max_examples=500, deadline=None)
@given(entries)
def test_sitemap_xml_is_what_elementtree_writes(urls: list[SitemapUrl]) -> None:
    assert sitemap_xml(urls) == _reference(urls)


def test_a_typical_sitemap() -> None:
    urls: list[SitemapUrl] = [
        ("https://x.org/ko/", None, [("ko", "https://x.org/ko/"), ("en", "https://x.org/en/")]),
        ("https://x.org/ko/blog/a/", "2026-01-02", []),
    ]
    assert sitemap_xml(urls) == _reference(urls)
    assert sitemap_xml([]) == _reference([])
    assert sitemap_xml(urls[1:]) == _reference(urls[1:])  # no alternates: no xhtml namespace


def _route_reference(
    codes: list[str],
    specs: dict[str, PageSpec],
    url: UrlBuilder,
    lastmod: date | None,
    default: str | None = None,
) -> tuple[str, bool]:
    """route_part as it was before it escaped what a route's URLs share once (the reference),
    with the default language's page as x-default (session 29)."""
    indexable = {code: s for code, s in specs.items() if s.canonical_path is None and not s.noindex}
    alternates = (
        [(other, url.absolute(indexable[other].path)) for other in codes if other in indexable]
        if len(indexable) > 1
        else []
    )
    if alternates and default in indexable:
        alternates.append(("x-default", url.absolute(indexable[default].path)))
    urls: list[SitemapUrl] = [
        (url.absolute(spec.path), lastmod.isoformat() if lastmod else None, alternates)
        for code in codes
        if (spec := indexable.get(code)) is not None
    ]
    return "".join(map(_url_xml, urls)), bool(urls and alternates)


def _spec(lang: str, path: str, canonical: bool, noindex: bool) -> PageSpec:
    return PageSpec(
        ("post", "x"),
        lang,
        path,
        "post.html",
        "t",
        "",
        dict,
        canonical_path="/c/" if canonical else None,
        noindex=noindex,
    )


pages = st.dictionaries(
    st.sampled_from(["ko", "en", "ja", "a&b", 'q"']),
    st.tuples(st.one_of(text, special).map(lambda p: "/" + p), st.booleans(), st.booleans()),
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(
    pages,
    st.sampled_from(["https://x.org/", "https://x.org/a&b/", "http://h/<p>/"]),
    st.one_of(st.none(), st.dates()),
    st.permutations(["ko", "en", "ja", "a&b", 'q"']),
    st.one_of(st.none(), st.sampled_from(["ko", "en", "a&b"])),
)
def test_a_routes_part_is_its_urls_as_url_xml_writes_them(
    given_pages: dict[str, tuple[str, bool, bool]],
    base: str,
    lastmod: date | None,
    codes: list[str],
    default: str | None,
) -> None:
    specs = {lang: _spec(lang, *page) for lang, page in given_pages.items()}
    url = UrlBuilder(base)
    codes = codes[:3]  # (a language the specs have may not be one of the site's)
    _, text, has_alternates = route_part(("post", "x"), codes, specs, url, lastmod, default)
    assert (text, has_alternates) == _route_reference(codes, specs, url, lastmod, default)
