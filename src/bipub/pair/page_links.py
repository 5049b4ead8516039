"""Which page of the site a link names, and that page's URL in another language.

A post is published at `/<lang>/blog/<slug>/` and a page at `/<lang>/<slug>/` in each language
that shows it (`Entry.shown_in`: its translation, the source with a notice under
`outputs.untranslated: show`, nothing under `omit`). A translation's link to the source
language's URL of a page that the translation's language has sends its reader to the other
language: the drafter writes the translation's own URL instead (translate/links.py) and QA says
when a translation still links the other one (check/qa.py `check_page_links`). One reading of a
link for both, here.

A link names a page of the site when it is root-relative (`/ko/blog/x/`, under the path of
`base_url` when it has one: `/sub/ko/blog/x/`) or absolute under `base_url`
(`https://example.org/ko/blog/x/`); with or without its last `/`, percent-encoded or not, with a
`?query` or `#fragment` kept as they are. Relative links (`../x/`) work in every language and are
not read.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from bipub.pair.model import Site
from bipub.text import site_urls


@dataclass(frozen=True)
class Counterpart:
    """A link to a post or page of the site in language `lang`: `path`, the page's path there;
    `target_href`, the link to the same page in the target language, written as the link is
    (None: the site has no such page in the target language)."""

    lang: str
    path: str
    target_href: str | None


class PageLinks:
    """The posts and pages of a paired site, by language, for reading links."""

    def __init__(self, site: Site, codes: tuple[str, ...] | list[str], base_url: str) -> None:
        self.codes = tuple(codes)
        self.base = base_url.rstrip("/")
        self.prefix = urlsplit(self.base + "/").path.rstrip("/")
        self.shown: set[tuple[str, str, str]] = set()  # (lang, kind, slug)
        for entry in site.entries:
            for lang in self.codes:
                if entry.shown_in(lang):
                    self.shown.add((lang, entry.kind, unicodedata.normalize("NFC", entry.slug)))

    def _site_path(self, href: str) -> tuple[str, str] | None:
        """(what comes before the path as written, the path as written), for a link to the site."""
        for head in (self.base, self.prefix):
            if head and href.startswith(head + "/"):
                return head, href[len(head) :]
        if not self.prefix and href.startswith("/") and not href.startswith("//"):
            return "", href
        return None

    def counterpart(self, href: str, target: str) -> Counterpart | None:
        """The post or page of another language than `target` that `href` links to (published
        there), with its link in `target`; None for any other link."""
        split = self._site_path(href)
        if split is None:
            return None
        head, written = split
        path = written.split("#", 1)[0].split("?", 1)[0]
        parts = unicodedata.normalize("NFC", unquote(path)).strip("/").split("/")
        lang = parts[0]
        if lang == target or lang not in self.codes or not written.startswith(f"/{lang}/"):
            return None
        if len(parts) == 3 and parts[1] == "blog":
            kind, slug, make = "posts", parts[2], site_urls.post
        elif len(parts) == 2:
            kind, slug, make = "pages", parts[1], site_urls.page
        else:
            return None
        if (lang, kind, slug) not in self.shown:
            return None
        there = None
        if (target, kind, slug) in self.shown:
            there = head + f"/{target}/" + written[len(lang) + 2 :]
        return Counterpart(lang, make(lang, slug), there)
