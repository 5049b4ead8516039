"""The path of each page the site has in each language, and how a path is encoded: made here,
below every stage that needs them (render/urls.py has the site's other URLs, the PDFs and the
cards, and re-exports these; pair/site_pages.py reads a link to one of these pages by making
the paths of the pages the site has with these same functions)."""

from __future__ import annotations

import re
from urllib.parse import quote

# what quote() leaves as it is with safe="/-._~": a path made only of these is its own encoding
_UNRESERVED = re.compile(r"[A-Za-z0-9_.~/-]*")


def encode(path: str) -> str:
    """Percent-encode a path (Korean slugs become %XX), keeping '/'."""
    if _UNRESERVED.fullmatch(path):  # most paths (tens of thousands on a big site): unchanged
        return path
    return quote(path, safe="/-._~")


def post(lang: str, slug: str) -> str:
    return f"/{lang}/blog/{slug}/"


def page(lang: str, slug: str) -> str:
    return f"/{lang}/{slug}/"


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


def tags(lang: str) -> str:
    return f"/{lang}/tags/"


def archive(lang: str) -> str:
    """Every post the language lists, by year (bipub.yaml `outputs.archive`)."""
    return f"/{lang}/blog/archive/"


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


def page_feed(page: str, json: bool = False) -> str:
    """The Atom feed (`json`: the JSON Feed) of a tag's or a series' page, in its folder."""
    return page + ("feed.json" if json else "feed.xml")


def site_card(lang: str) -> str:
    """A language's social card (issue 19: render/cards.py): its home page and every page
    without a card of its own show it."""
    return f"/{lang}/card.png"


def post_card(page_path: str) -> str:
    """A post's own social card, next to its page (`/<lang>/blog/<slug>/card.png`)."""
    return f"{page_path}card.png"


def cv_pdf(langs: str) -> str:
    """A CV's PDF: `ko`, `ko-short` (the short CV), `ko-en` (the bilingual CV)."""
    return f"/pdf/cv-{langs}.pdf"


def post_pdf(lang: str, slug: str) -> str:
    """A post's PDF, beside its page."""
    return f"{post(lang, slug)}{slug}.pdf"
