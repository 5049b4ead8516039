"""Which PDFs a site has and the links its pages show to them: the CV PDFs, the short CV
PDFs, each post's PDF and bilingual PDF. Plain functions of the paired site.

The HTML pages and llms.txt link the PDFs whether or not this build makes them (`build --only`):
they import this module, which imports none of the PDF machinery (render/pdf/documents.py and
what it uses: print templates, fonts, line breaking, the worker pool), so a build without PDFs
does not load it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bipub.pair.site_pages import wants_pdf as wants_pdf
from bipub.render import urls
from bipub.render.both import partner

if TYPE_CHECKING:
    from bipub.pair.site import Entry, Site

__all__ = [
    "any_pdf",
    "both_pdf_document",
    "both_pdf_entries",
    "both_pdf_langs",
    "both_pdf_path",
    "pdf_links",
    "post_pdf_entries",
    "post_pdf_path",
    "short_pdf_links",
    "short_wanted",
    "wants_pdf",
]


def both_pdf_langs(site: Site, entry: Entry, lang: str) -> tuple[str, str] | None:
    """The languages of the bilingual PDF a post's pages in `lang` link (issue 19), in
    bipub.yaml's order, or None: a post that gets a PDF (wants_pdf) and has a side-by-side
    view (render/both.py partner)."""
    if not wants_pdf(site, entry, lang):  # (first: the cheaper test, every post of a build)
        return None
    other = partner(site, entry, lang)
    if other is None:
        return None
    codes = site.config.codes
    first, second = sorted((lang, other), key=codes.index)
    return first, second


def both_pdf_path(site: Site, entry: Entry, lang: str) -> str | None:
    """The site path of the bilingual PDF a post's pages in `lang` link, or None."""
    langs = both_pdf_langs(site, entry, lang)
    return urls.both_pdf(entry.slug, *langs) if langs is not None else None


def both_pdf_document(entry: Entry, first: str, second: str) -> str:
    """Output path of a post's bilingual PDF."""
    return urls.both_pdf(entry.slug, first, second).lstrip("/")


def both_pdf_entries(site: Site) -> list[tuple[Entry, str, str]]:
    """Every bilingual post PDF of the site: (post, first language, second language)."""
    out: dict[tuple[str, str, str], tuple[Entry, str, str]] = {}
    for lang in site.config.codes:
        for entry in site.posts(lang):
            langs = both_pdf_langs(site, entry, lang)
            if langs is not None:
                out.setdefault((entry.key, *langs), (entry, *langs))
    return list(out.values())


def post_pdf_entries(site: Site, lang: str) -> list[Entry]:
    """Posts of `lang` that get a PDF (see wants_pdf)."""
    return [entry for entry in site.posts(lang) if wants_pdf(site, entry, lang)]


def post_pdf_path(lang: str, slug: str) -> str:
    """Output path of a post's PDF: <lang>/blog/<slug>/<slug>.pdf."""
    return urls.post_pdf(lang, slug).lstrip("/")


def short_wanted(site: Site) -> bool:
    """Whether the build has short CV PDFs (bipub.yaml pdf.short; items marked `short: true`)."""
    if not site.cv:
        return False
    # (imported here: short.py imports model/cv.py's models, ~3 % of a build's imports, which
    # only a site with a CV uses)
    from bipub.render.pdf.short import has_marks

    return site.config.pdf.short.wanted(any(has_marks(merged.data) for merged in site.cv.values()))


def short_pdf_links(site: Site, lang: str, url: urls.UrlBuilder) -> list[dict[str, str]]:
    """The short CV PDFs a page in `lang` links (issue 18): this language's first."""
    if not short_wanted(site):
        return []
    codes = [c for c in site.config.codes if c in site.cv]
    return [
        {
            "label": site.config.language(code).name,
            "lang": code,
            "href": url.href(urls.cv_pdf(f"{code}-short")),
        }
        for code in sorted(codes, key=lambda c: c != lang)
    ]


def pdf_links(site: Site, lang: str, url: urls.UrlBuilder) -> list[dict[str, Any]]:
    """The PDFs a page in `lang` links: its CV, the other languages' CVs, the bilingual CV."""
    links: list[dict[str, Any]] = []
    codes = [c for c in site.config.codes if c in site.cv]
    for code in sorted(codes, key=lambda c: c != lang):
        links.append(
            {
                "label": site.config.language(code).name,
                "lang": code,
                "href": url.href(urls.cv_pdf(code)),
            }
        )
    if "ko" in site.cv and "en" in site.cv:
        names = [(c, site.config.language(c).name) for c in ("ko", "en")]
        label = " + ".join(name for _, name in names)
        href = url.href(urls.cv_pdf("ko-en"))
        # (`names`: each language's name with its code, for its `lang` on the page: session 29)
        links.append({"label": label, "lang": "ko-en", "href": href, "names": names})
    return links


def any_pdf(site: Site, langs: list[str], *, bilingual: bool) -> bool:
    """Whether a build of `langs` has any PDF: a CV, a post's PDF, or (`bilingual`: every
    language built) a post's bilingual PDF (of a post that `wants_pdf` in a language of the
    site: with every language in `langs`, its own PDF answers first)."""
    for lang in langs:
        if lang in site.cv or any(wants_pdf(site, entry, lang) for entry in site.posts(lang)):
            return True
    if not bilingual or set(site.config.codes) <= set(langs):
        return False  # (every language asked above: a bilingual PDF's post is among them)
    return bool(both_pdf_entries(site))
