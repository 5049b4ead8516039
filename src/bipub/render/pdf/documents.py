"""The PDF documents of a build: the CV per language, the bilingual CV (ko+en) and opted-in
posts, from their print templates (templates/pdf/*.html) to rendered bytes.

`render_pdfs` (called once from the pipeline): fonts are found (render/pdf/fonts.py; no usable
font is a build error); each document's print HTML is rendered and passed through the Korean
line-breaking pre-pass (render/pdf/breaks.py); coverage is checked (render/pdf/coverage.py);
unchanged PDFs come from the cache (render/pdf/cache.py), the others are rendered by the worker
pool (render/pdf/pool.py, render/pdf/engine.py). A PDF's links and images resolve against its
page's public URL (render/pdf/fetch.py), so links are absolute URLs under `base_url`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import datetime
from itertools import zip_longest
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from bipub import __version__
from bipub.diagnostics import Collector, DiagnosticError
from bipub.render import urls
from bipub.render.both import SectionCache, rebase, section_rows
from bipub.render.highlight import pygments_css
from bipub.render.markdown import MarkdownCache
from bipub.render.mathml import for_print as math_for_print
from bipub.render.pdf.breaks import korean_line_breaks
from bipub.render.pdf.cache import RenderCache
from bipub.render.pdf.coverage import check_documents, cv_sources, place, post_sources
from bipub.render.pdf.engine import fast_subsetting_available
from bipub.render.pdf.fetch import site_mounts
from bipub.render.pdf.fonts import Fonts, choose_fonts
from bipub.render.pdf.jobs import PdfDoc, PdfJob, PdfResult, w3c
from bipub.render.pdf.links import (
    any_pdf,
    both_pdf_document,
    both_pdf_entries,
    post_pdf_entries,
    post_pdf_path,
    short_wanted,
)
from bipub.render.pdf.log import SUBSETTING_MESSAGE
from bipub.render.pdf.pool import WORKERS, run_jobs
from bipub.render.pdf.short import count_marked, short_cv
from bipub.render.templates import template_error
from bipub.render.views import View, cv_view

if TYPE_CHECKING:
    import jinja2

    from bipub.load.content import Document
    from bipub.pair.site import Site
    from bipub.project import Project
    from bipub.render.markdown import RenderedMarkdown

THEME_STATIC = Path(__file__).resolve().parent.parent.parent / "theme" / "static"


_BACKREF = re.compile(r'(<a [^>]*class="footnote-backref"[^>]*>)\u21a9\ufe0e?(</a>)')


def for_print(html: str, scope: str = "") -> str:
    """A body's HTML as the PDFs draw it: formulas as SVG (render/mathml.py; `scope`: what
    tells this piece's formulas from the other pieces' of the same PDF), and a footnote's
    way back as ↑ (markdown-it writes ↩︎, U+21A9, which no CJK font has: the PDF would show a
    box, and the font check stops the build)."""
    return _BACKREF.sub(r"\1↑\2", math_for_print(html, scope))


def _font_css(fonts: Fonts) -> Markup:
    return Markup(fonts.css())  # noqa: S704 - built from CSS-escaped strings (fonts.css_string)


def pairs(a: list[Any] | None, b: list[Any] | None) -> list[tuple[Any, Any]]:
    """Items of two language versions side by side (the CV merge keeps them aligned)."""
    return list(zip_longest(a or [], b or []))


def _keywords(cv: Mapping[str, Any]) -> str:
    words: list[str] = []
    for skill in cv.get("skills") or []:
        words.extend(str(x) for x in skill.get("items") or [])
    for job in cv.get("experience") or []:
        words.extend(str(x) for x in job.get("tags") or [])
    unique = [" ".join(w.replace(",", " ").split()) for w in dict.fromkeys(words) if w.strip()]
    return ", ".join(unique[:20])


def render_pdfs(
    project: Project,
    site: Site,
    langs: list[str],
    envs: Mapping[str, jinja2.Environment],
    markdown: Callable[[Document], RenderedMarkdown],
    collector: Collector,
    *,
    bilingual: bool,
    now: datetime | None,
    cache_dir: Path | None = None,
    workers: int = WORKERS,
) -> list[tuple[str, bytes, str | None, str]]:
    """Every PDF of the build as (output path, bytes, owning language, origin).

    Problems go to `collector` (errors stop the build in the pipeline, as for every output).
    `cache_dir` (the user's bipub cache, never the project: a cloned repository could plant
    files there) keeps font cmaps and rendered PDFs between builds; None: no cache.
    """
    prepared = prepare_pdfs(
        project, site, langs, envs, markdown, collector, bilingual=bilingual, now=now
    )
    if prepared is None:
        return []
    fonts, docs = prepared
    sources = {doc.job.document: doc.sources for doc in docs}
    limits = {doc.job.document: doc.page_limit for doc in docs if doc.page_limit is not None}
    jobs = check_documents(docs, fonts, collector, cache_dir / "fonts" if cache_dir else None)
    if not jobs or collector.errors:
        return []  # the build fails anyway: do not spend seconds rendering
    cache = RenderCache(cache_dir / "pdf" if cache_dir else None, project.root, fonts)
    results: list[PdfResult | None] = [cache.get(job) for job in jobs]
    todo = [job for job, hit in zip(jobs, results, strict=True) if hit is None]
    if todo:
        if not fast_subsetting_available():
            collector.warning(None, None, "pdf-subsetting", SUBSETTING_MESSAGE)
        rendered = iter(run_jobs(todo, workers))
        for i, hit in enumerate(results):
            if hit is None:
                fresh = next(rendered)
                results[i] = fresh
                problem = cache.put(jobs[i], fresh)
                if problem is not None:
                    collector.warning(None, None, "cache-not-saved", problem)
    out: list[tuple[str, bytes, str | None, str]] = []
    subsetting_reported = any(d.code == "pdf-subsetting" for d in collector.items)
    for job, result in zip(jobs, results, strict=True):
        if result is None:  # pragma: no cover - every job has a result by now
            continue
        for d in result.diagnostics:
            if d.code == "pdf-subsetting":
                if subsetting_reported:
                    continue
                subsetting_reported = True
            collector.add(place(d, job, sources.get(job.document, [])))
        if result.data is not None:
            out.append((job.document, result.data, job.lang, job.origin))
            limit = limits.get(job.document)
            if limit is not None and result.pages > limit[0]:  # issue 18: the short CV
                collector.warning(
                    job.document,
                    None,
                    "short-cv-overflow",
                    f"the short CV has {result.pages} pages, over its budget of {limit[0]} "
                    f"(bipub.yaml pdf.short.pages): {limit[1]}",
                )
    return out


def prepare_pdfs(
    project: Project,
    site: Site,
    langs: list[str],
    envs: Mapping[str, jinja2.Environment],
    markdown: Callable[[Document], RenderedMarkdown],
    collector: Collector,
    *,
    bilingual: bool,
    now: datetime | None,
) -> tuple[Fonts, list[PdfDoc]] | None:
    """Fonts and the print HTML of every PDF (templates rendered, Korean pre-pass applied)."""
    from bipub.model.cv import CV  # (the CV model loads only when PDFs are built)

    config = site.config
    if not any_pdf(site, langs, bilingual=bilingual):
        return None  # nothing to render: no font needed
    try:
        fonts, font_warnings = choose_fonts(config.pdf, project.root)
    except DiagnosticError as exc:
        collector.extend(exc.diagnostics)
        return None
    collector.extend(font_warnings)
    base_url = urls.UrlBuilder(config.base_url)
    roots = (str(project.root.resolve()), str(THEME_STATIC))
    mounts = site_mounts(base_url.absolute("/"), project.static.resolve(), THEME_STATIC)
    docs: list[PdfDoc] = []

    def common(lang: str) -> dict[str, Any]:
        return {
            "lang": lang,
            "font_css": _font_css(fonts),
            "page_size": config.pdf.page_size,
            "author": config.author,
            "site_url": config.site_url,
            "generator": f"bipub {__version__}",
            "pairs": pairs,
            "highlight_untranslated": config.pdf.highlight_untranslated,  # issue 18
        }

    def render_template(name: str, env: jinja2.Environment, context: dict[str, Any]) -> str | None:
        import jinja2

        try:
            return str(env.get_template(name).render(context))
        except (jinja2.TemplateError, TypeError, AttributeError, ValueError) as exc:
            collector.add(template_error(exc, project.root))
            return None

    created = w3c(now)
    for lang in langs:
        merged = site.pdf_cv.get(lang)  # (bipub.yaml private_fields: pdf_only kept)
        if merged is None:
            continue
        cv = cv_view(CV, merged.data, merged.fallbacks, merged.source_lang, merged.drafts)
        document = urls.cv_pdf(lang).lstrip("/")
        html = render_template(
            "pdf/cv.html",
            envs[lang],
            {
                **common(lang),
                "cv": cv,
                "doc": View(
                    created=created,
                    keywords=_keywords(merged.data),
                    href=base_url.absolute(urls.home(lang)),
                ),
                "untranslated": len(merged.fallbacks),
                "drafts": len(merged.drafts),
            },
        )
        if html is not None:
            job = PdfJob(
                document,
                korean_line_breaks(html),
                base_url.absolute(urls.home(lang)),
                roots,
                lang,
                f"cv ({lang})",
                mounts=mounts,
            )
            docs.append(PdfDoc(job, cv_sources(site, lang)))
        if short_wanted(site):  # issue 18: the short edition (render/pdf/short.py)
            options = config.pdf.short
            brief = short_cv(cv, options.sections)
            untranslated, drafts = count_marked(brief)
            html = render_template(
                "pdf/cv.html",
                envs[lang],
                {
                    **common(lang),
                    "cv": brief,
                    "short": True,
                    "doc": View(
                        created=created,
                        keywords=_keywords(merged.data),
                        href=base_url.absolute(urls.home(lang)),
                    ),
                    "untranslated": untranslated,
                    "drafts": drafts,
                },
            )
            if html is not None:
                job = PdfJob(
                    urls.cv_pdf(f"{lang}-short").lstrip("/"),
                    korean_line_breaks(html),
                    base_url.absolute(urls.home(lang)),
                    roots,
                    lang,
                    f"short cv ({lang})",
                    mounts=mounts,
                )
                advice = (
                    f"mark fewer items `short: true` in content/{merged.source_lang}/cv.yaml "
                    "or list fewer sections in pdf.short.sections"
                )
                docs.append(PdfDoc(job, cv_sources(site, lang), (options.pages, advice)))
    if bilingual and "ko" in site.cv and "en" in site.cv and "ko" in envs and "en" in envs:
        ko, en = site.pdf_cv["ko"], site.pdf_cv["en"]
        en_template = envs["en"].from_string("{{ _(message) }}")
        en_labels: dict[str, Markup] = {}

        def en_gettext(message: str) -> Markup:
            """The English column's labels: `_` of the English environment."""
            if message not in en_labels:
                en_labels[message] = Markup(en_template.render(message=message))  # noqa: S704
            return en_labels[message]

        html = render_template(
            "pdf/cv-bilingual.html",
            envs["ko"],
            {
                **common("ko"),
                "ko": cv_view(CV, ko.data, ko.fallbacks, ko.source_lang, ko.drafts),
                "en": cv_view(CV, en.data, en.fallbacks, en.source_lang, en.drafts),
                "drafts": len(ko.drafts) + len(en.drafts),
                "en_": en_gettext,
                "doc": View(
                    created=created,
                    keywords=_keywords(en.data),
                    href=base_url.absolute(urls.home("ko")),
                    href_en=base_url.absolute(urls.home("en")),
                ),
            },
        )
        if html is not None:
            job = PdfJob(
                urls.cv_pdf("ko-en").lstrip("/"),
                korean_line_breaks(html),
                base_url.absolute(urls.home("ko")),
                roots,
                None,
                "cv (ko+en)",
                mounts=mounts,
            )
            docs.append(PdfDoc(job, cv_sources(site, "ko") + cv_sources(site, "en")))
    for lang in langs:
        for entry in post_pdf_entries(site, lang):
            version = entry.versions[lang]
            doc = version.doc
            rendered = markdown(doc)
            document = post_pdf_path(lang, entry.slug)
            html = render_template(
                "pdf/post.html",
                envs[lang],
                {
                    **common(lang),
                    "post": View(
                        title=doc.meta.title,
                        description=doc.meta.description or "",
                        date=entry.date,
                        updated=entry.updated,
                        tags=list(doc.meta.tags or entry.source.meta.tags),
                        state=version.state,
                        content_lang=doc.lang,
                        # issue 19: math as SVG (WeasyPrint draws no MathML)
                        html=Markup(for_print(rendered.html)),  # noqa: S704 - markdown-it output
                        href=base_url.absolute(urls.post(lang, entry.slug)),
                    ),
                    "pygments_css": Markup(pygments_css()),  # noqa: S704 - Pygments' own CSS
                    "doc": View(
                        created=w3c(entry.date) or created,
                        modified=w3c(entry.updated or entry.date) or created,
                        keywords=", ".join(doc.meta.tags or entry.source.meta.tags),
                    ),
                },
            )
            if html is not None:
                page = base_url.absolute(urls.post(lang, entry.slug))
                post_dir = (project.root / doc.rel).parent.resolve()
                job = PdfJob(
                    document,
                    korean_line_breaks(html),
                    page,
                    roots,
                    lang,
                    f"{doc.rel} (pdf)",
                    mounts=(*mounts, (page, str(post_dir))),
                )
                docs.append(PdfDoc(job, post_sources(entry, lang)))
    # issue 19: a post in two languages, side by side section by section (render/both.py), in
    # the bilingual CV's two-column layout; built when every language is, as that CV is
    # (the build's MarkdownCache: the same images and drawn diagrams as the post's own PDF)
    sections = SectionCache(
        config.outputs.raw_html, markdown if isinstance(markdown, MarkdownCache) else None
    )
    for entry, first, second in both_pdf_entries(site) if bilingual else ():
        if first not in envs or second not in envs:
            continue
        other_template = envs[second].from_string("{{ _(message) }}")

        def other_gettext(message: str, _template: Any = other_template) -> Markup:
            """The second column's labels: `_` of its language's environment."""
            return Markup(_template.render(message=message))  # noqa: S704 - a catalog's text

        target = second if first == entry.source_lang else first
        section = section_rows(site, entry, target)
        cols = []
        for code in (first, second):
            doc = entry.docs[code]
            parts, notes = sections(doc)
            own = base_url.absolute(urls.post(code, entry.slug))  # (its relative URLs' base)
            cols.append(
                View(
                    lang=code,
                    title=doc.meta.title,
                    description=doc.meta.description or "",
                    href=own,
                    source=code == entry.source_lang,
                    parts=[
                        Markup(for_print(rebase(p, own), f"{code}{i}."))  # noqa: S704
                        for i, p in enumerate(parts)
                    ],
                    notes=Markup(for_print(rebase(notes, own), f"{code}n.")),  # noqa: S704
                )
            )
        rows = []
        for n, row in enumerate(section):
            cells = []
            for col in cols:
                i = row.index(col.lang == entry.source_lang)
                part = col.parts[i] if i is not None and i < len(col.parts) else None
                cells.append(View(lang=col.lang, html=part, translation=col.lang == target))
            rows.append(
                View(
                    number=n + 1,
                    state=row.state.state,
                    machine=row.state.machine,
                    target=target,
                    cells=cells,
                )
            )
        html = render_template(
            "pdf/post-bilingual.html",
            envs[first],
            {
                **common(first),
                "columns": cols,
                "rows": rows,
                "other_": other_gettext,
                "post": View(date=entry.date, updated=entry.updated),
                "pygments_css": Markup(pygments_css()),  # noqa: S704 - Pygments' own CSS
                "doc": View(
                    created=w3c(entry.date) or created,
                    modified=w3c(entry.updated or entry.date) or created,
                    keywords=", ".join(entry.source.meta.tags),
                ),
            },
        )
        if html is not None:
            page = base_url.absolute(urls.post(first, entry.slug))
            # each column's relative images (made absolute by `rebase`): from its post's folder
            own_dirs = tuple(
                (
                    base_url.absolute(urls.post(code, entry.slug)),
                    str((project.root / entry.docs[code].rel).parent.resolve()),
                )
                for code in (first, second)
            )
            job = PdfJob(
                both_pdf_document(entry, first, second),
                korean_line_breaks(html),
                page,
                roots,
                None,
                f"{entry.source.rel} (pdf, {first}+{second})",
                mounts=(*mounts, *own_dirs),
            )
            docs.append(PdfDoc(job, post_sources(entry, first) + post_sources(entry, second)))
    return fonts, docs
