"""Every URL of the site in one place. Paths are site-relative (start with '/').

The path of each page a language has of its own (a post, a page, the home, the blog, a tag, a
series, the feeds, the JSON API, llms.txt, the social cards…) and the encoding of a path are
made in bipub.text.site_urls, which the stages below rendering read too (pair/site_pages.py: which page
of the site a link of a post names, and that page in another language); re-exported here."""

from __future__ import annotations

from urllib.parse import urlsplit

from bipub.text.site_urls import api as api
from bipub.text.site_urls import archive as archive
from bipub.text.site_urls import blog as blog
from bipub.text.site_urls import both as both
from bipub.text.site_urls import cv as cv
from bipub.text.site_urls import cv_pdf as cv_pdf
from bipub.text.site_urls import encode as encode
from bipub.text.site_urls import feed as feed
from bipub.text.site_urls import home as home
from bipub.text.site_urls import json_feed as json_feed
from bipub.text.site_urls import llms as llms
from bipub.text.site_urls import page as page
from bipub.text.site_urls import page_feed as page_feed
from bipub.text.site_urls import post as post
from bipub.text.site_urls import post_card as post_card
from bipub.text.site_urls import post_pdf as post_pdf
from bipub.text.site_urls import search as search
from bipub.text.site_urls import series as series
from bipub.text.site_urls import site_card as site_card
from bipub.text.site_urls import tag as tag
from bipub.text.site_urls import tags as tags


def both_pdf(slug: str, first: str, second: str) -> str:
    """A post's bilingual PDF (the side-by-side view's layout, as the bilingual CV's)."""
    return f"/pdf/blog/{slug}-{first}-{second}.pdf"


def output_file(path: str) -> str:
    """The file a URL path is written to, relative to the output folder."""
    rel = path.lstrip("/")
    return rel + "index.html" if rel == "" or rel.endswith("/") else rel


class UrlBuilder:
    """Turns site paths into hrefs (with the base URL's path prefix) and absolute URLs."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url.rstrip("/") + "/"
        self.prefix = urlsplit(self.base_url).path.rstrip("/")

    def href(self, path: str) -> str:
        return self.prefix + encode(path)

    def absolute(self, path: str) -> str:
        return self.base_url.rstrip("/") + encode(path)
