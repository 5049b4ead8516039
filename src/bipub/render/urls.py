"""Every URL of the site in one place. Paths are site-relative (start with '/').

A post's and a page's path (and the encoding of a path) are made in bipub.text.site_urls, which
the stages below rendering read too (pair/page_links.py: which page a link of a post names)."""

from __future__ import annotations

from urllib.parse import urlsplit

from bipub.text.site_urls import encode as encode
from bipub.text.site_urls import page as page
from bipub.text.site_urls import post as post


def home(lang: str) -> str:
    return f"/{lang}/"


def cv(lang: str) -> str:
    """The full CV's page when bipub.yaml says `home: blog` (else the CV is the home page)."""
    return f"/{lang}/cv/"


def blog(lang: str, page: int = 1) -> str:
    return f"/{lang}/blog/" if page == 1 else f"/{lang}/blog/page/{page}/"


def both(lang: str, slug: str) -> str:
    """A post's side-by-side reading view (render/both.py)."""
    return f"/{lang}/blog/{slug}/both/"


def both_pdf(slug: str, first: str, second: str) -> str:
    """A post's bilingual PDF (the side-by-side view's layout, as the bilingual CV's)."""
    return f"/pdf/blog/{slug}-{first}-{second}.pdf"


def tags(lang: str) -> str:
    return f"/{lang}/tags/"


def tag(lang: str, slug: str, page: int = 1) -> str:
    return f"/{lang}/tags/{slug}/" if page == 1 else f"/{lang}/tags/{slug}/page/{page}/"


def series(lang: str, slug: str) -> str:
    return f"/{lang}/series/{slug}/"


def search(lang: str) -> str:
    return f"/{lang}/search/"


def feed(lang: str) -> str:
    return f"/{lang}/feed.xml"


def json_feed(lang: str) -> str:
    """The language's JSON Feed (a tag's or series' feeds are in its page's folder)."""
    return f"/{lang}/feed.json"


def api(lang: str, name: str) -> str:
    return f"/api/{lang}/{name}.json"


def llms(lang: str | None, full: bool = False) -> str:
    name = "llms-full.txt" if full else "llms.txt"
    return f"/{lang}/{name}" if lang else f"/{name}"


def cv_pdf(langs: str) -> str:
    return f"/pdf/cv-{langs}.pdf"


def site_card(lang: str) -> str:
    """A language's social card (issue 19: render/cards.py): its home page and every page
    without a card of its own show it."""
    return f"/{lang}/card.png"


def post_card(page_path: str) -> str:
    """A post's own social card, next to its page (`/<lang>/blog/<slug>/card.png`)."""
    return f"{page_path}card.png"


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
