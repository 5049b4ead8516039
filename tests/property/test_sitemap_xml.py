"""sitemap.xml is written as text (render/feeds.py sitemap_xml): byte for byte what ElementTree
wrote before (the reference below is the code it replaced), whatever the URLs hold."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from hypothesis import given, settings
from hypothesis import strategies as st

from bipub.render.feeds import SITEMAP, XHTML, SitemapUrl, _xml, sitemap_xml


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
