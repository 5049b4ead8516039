"""The site-wide context of a language's pages (`site` in the templates): its titles, the
hrefs of its sections, feeds and assets, its pages' menu and its CV PDFs. PageViews
(render/page_views.py) makes it once per language and build."""

from __future__ import annotations

from bipub.pair.site import Site
from bipub.render import urls
from bipub.render.pdf.links import pdf_links, short_pdf_links
from bipub.render.views import AttrView, View


def site_context(site: Site, url: urls.UrlBuilder, lang: str) -> AttrView:
    """`site` in the templates: what every page of `lang` shows of the site (the same object
    for each of its pages: PageViews.site_view)."""
    cfg = site.config
    language = cfg.language(lang)
    return AttrView(
        title=language.title,
        description=language.description,
        lang=lang,
        lang_name=language.name,
        languages=[View(code=x.code, name=x.name) for x in cfg.languages],
        author=cfg.author,
        base_url=cfg.site_url,
        home_href=url.href(urls.home(lang)),
        blog_href=url.href(urls.blog(lang)),
        tags_href=url.href(urls.tags(lang)),
        # every post by year (render/archive.py); None: bipub.yaml `outputs.archive: false`
        archive_href=url.href(urls.archive(lang)) if cfg.outputs.archive else None,
        feed_href=url.href(urls.feed(lang)),
        feed_url=url.absolute(urls.feed(lang)),
        json_feed_href=url.href(urls.json_feed(lang)),  # issue 19: JSON Feed 1.1
        llms_href=url.href(urls.llms(lang)),
        # the CV's JSON where the language has a CV (json_api.cv_json), else its posts'
        api_href=url.href(urls.api(lang, "cv" if lang in site.cv else "posts")),
        # issue 18: where the full CV is (the home page unless bipub.yaml home: blog)
        cv_href=url.href(
            urls.cv(lang) if cfg.home == "blog" and lang in site.cv else urls.home(lang)
        ),
        home_mode=cfg.home,
        css_href=url.href("/assets/site.css"),
        favicon_href=url.href("/favicon.ico"),  # (session 29: partials/icons.html)
        js_href=url.href("/assets/reader.js"),  # issue 19: copy buttons, colour toggle
        search_href=url.href(urls.search(lang)) if cfg.outputs.search else None,
        root_href=url.href("/"),
        nav_pages=[
            View(
                title=e.versions[lang].doc.meta.title,
                href=url.href(urls.page(lang, e.slug)),
            )
            for e in site.pages(lang)
        ],
        names=[lang_code for lang_code in cfg.codes],
        # issue 5: the CV PDFs (this language first, then the others, then ko+en):
        # View(label, lang, href) each; see render/pdf.py pdf_links.
        pdf_links=[View(**link) for link in pdf_links(site, lang, url)],
        # issue 18: the short CV PDFs (render/pdf/documents.py short_pdf_links)
        short_pdf_links=[View(**link) for link in short_pdf_links(site, lang, url)],
    )
