"""The output kinds of a build, each one object with one interface.

    kind.render(job, tree)   # write this kind's files of the build into the staged tree
    kind.owns(path)          # whether a published file is one of this kind's (build --only)

HTML pages (with the site's static files), feeds (Atom feeds, sitemap, robots.txt), the JSON
API, llms.txt and the PDFs. A `RenderJob` carries what they all render from: the paired site,
the languages to render, the planned pages, the Jinja environments, the Markdown cache. The
outputs shared by every language (the sitemap, the schemas, the root pages, the bilingual CV)
are written only when every language is built; llms.txt and llms-full.txt at the root, copies
of the default language's, whenever that language is built.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from operator import itemgetter
from pathlib import Path
from typing import Protocol

import jinja2

from bipub.cache import BuildCache, user_cache_dir
from bipub.diagnostics import Collector, Diagnostic, DiagnosticError
from bipub.pair.site import Site
from bipub.project import Project
from bipub.render import feeds, json_api, llms, llms_full, llms_parts, urls
from bipub.render.aliases import Redirect, redirect_html
from bipub.render.cards import Cards
from bipub.render.first_pages import FirstPages
from bipub.render.html import HtmlRenderer, Plan
from bipub.render.images import encode_variants, variant_files
from bipub.render.kept_pages import KeepMemo
from bipub.render.markdown import MarkdownCache
from bipub.render.parts import Parts as Parts
from bipub.render.parts import digest
from bipub.render.pdf.links import any_pdf
from bipub.render.search_shards import SearchRecord, index_site
from bipub.render.templates import THEME_DIR, template_error, text_gettext
from bipub.render.workers import render_pages
from bipub.write.output import OutputTree, Pieces, published_files


@dataclass(frozen=True)
class RenderJob:
    """What every output kind of one build renders from."""

    project: Project
    site: Site
    langs: list[str]  # the languages this build renders
    url: urls.UrlBuilder
    markdown: MarkdownCache
    envs: dict[str, jinja2.Environment]  # every language's
    renderer: HtmlRenderer
    plan: Plan
    collector: Collector
    cache: BuildCache | None  # None: --no-cache
    parts: Parts = field(default_factory=Parts)  # the aggregates' parts of the last build
    # the pages at the posts' and pages' old URLs (front matter `aliases`: render/aliases.py)
    redirects: Sequence[Redirect] = ()

    @property
    def every_language(self) -> bool:
        """Whether the outputs shared by all languages are built too."""
        return self.langs == self.site.config.codes


class Output(Protocol):
    kind: str  # its `build --only` name

    def render(self, job: RenderJob, tree: OutputTree) -> None: ...

    def owns(self, path: str) -> bool: ...


_FEED_FILES = ("feed.xml", "feed.json", "sitemap.xml", "robots.txt")  # (Feeds.owns)
_LLMS_FILES = ("llms.txt", "llms-full.txt")  # (Llms.owns)


class Feeds:
    kind = "feeds"
    after_pages = True  # its bodies: the pages' renders (HtmlPages)

    def __init__(self) -> None:
        # each language's feeds (feeds.feed_specs) of the job they were made for, with the
        # key each is kept by and its files if kept (`plan`): `wanted` plans them before the
        # pages, `render` makes those not kept after
        self._plans: tuple[RenderJob, dict[str, list[Planned]]] | None = None

    def plan(self, job: RenderJob, lang: str, tree: OutputTree) -> list[Planned]:
        if self._plans is None or self._plans[0] is not job:
            self._plans = (job, {})
        made = self._plans[1]
        if lang not in made:
            site = feeds_site(job, lang)
            made[lang] = [
                (spec, mark, _published(job, tree, spec, mark))
                for spec in feeds.feed_specs(job.site, lang)
                for mark in (job.parts.feed_mark(spec, site),)
            ]
        return made[lang]

    def render(self, job: RenderJob, tree: OutputTree) -> None:
        for lang in job.langs:
            notes = feed_notes(job, lang)
            # each entry is made once, whichever feeds show it, and kept by its values (a pure
            # function of its item, its body and its note: Parts.feed_entry); a feed whose
            # posts' keys did not change is kept as published (Parts.feed_mark: the hashes of
            # its files' bytes, which the output's record has: `_published`)
            entries: dict[feeds.FeedItem, tuple[bytes, bytes]] = {}
            for spec, mark, kept in self.plan(job, lang, tree):
                paths = _feed_files(spec)
                if kept is not None:  # (what rendering its bodies warned about: said again)
                    for entry in spec.posts:
                        job.markdown.replay(entry.versions[lang].doc)
                    for path, found in zip(paths, kept, strict=True):
                        tree.add_published(path, found, lang, "feed")
                    continue
                parts = feeds.feed_of(job.site, lang, job.url, spec)
                for it, doc in zip(parts.items, parts.docs, strict=True):
                    if it not in entries:
                        entries[it] = job.parts.feed_entry(
                            it, doc, notes.get(it.state, ""), job.markdown
                        )
                xml = feeds.feed_xml(parts, [entries[it][0] for it in parts.items])
                items = [entries[it][1] for it in parts.items]
                tree.add(paths[0], xml, lang, "feed")
                tree.add(paths[1], feeds.json_feed_join(parts, items), lang, "feed")
                if mark is not None:
                    job.parts.keep(mark, tuple(tree.files[path].digest for path in paths))
        if job.every_language:
            # (each route's part of an unchanged entry kept by its key: Parts.routes)
            routes = job.parts.routes(job.site, job.plan, job.url)
            sitemap = feeds.sitemap_join(routes)
            tree.add("sitemap.xml", sitemap, None, "sitemap")
            tree.add("robots.txt", feeds.robots(job.url), None, "robots")

    def wanted(self, job: RenderJob, tree: OutputTree) -> set[str]:
        """The documents whose bodies the feeds not kept show (their paths)."""
        return {
            entry.versions[lang].doc.rel
            for lang in job.langs
            for spec, _mark, kept in self.plan(job, lang, tree)
            if kept is None
            for entry in spec.posts
        }

    def owns(self, path: str) -> bool:  # (asked of every published file: endswith first)
        return path.endswith(_FEED_FILES) and path.rsplit("/", 1)[-1] in _FEED_FILES


# a feed of feeds.feed_specs, the key it is kept by (None: none, Parts.feed_mark) and the
# hashes of its Atom and JSON Feed files if they are kept as published (`_published`)
Planned = tuple[feeds.FeedSpec, bytes | None, tuple[bytes, ...] | None]


def _feed_files(spec: feeds.FeedSpec) -> tuple[str, str]:
    """A feed's Atom and JSON Feed files."""
    path = spec.path[1:]
    return path, path[: -len("xml")] + "json"


def _published(
    job: RenderJob, tree: OutputTree, spec: feeds.FeedSpec, mark: bytes | None
) -> tuple[bytes, ...] | None:
    """The hashes of the bytes of a feed's two files (kept by `mark`: the last build's, of the
    same posts' keys and site values), if the published files are those bytes (the output's
    record says so: OutputTree.published); else None: the feed is made again from its
    entries. (Its texts are not kept: tens of MB on a big site, read back at every build.)"""
    kept = job.parts.kept(mark) if mark is not None else None
    if not isinstance(kept, tuple) or len(kept) != 2:
        return None
    paths = _feed_files(spec)
    return kept if all(map(tree.published, paths, kept)) else None


def feeds_site(job: RenderJob, lang: str) -> tuple[object, ...]:
    """Every value of the site a feed of `lang` reads besides its posts' (Parts.feed_mark)."""
    cfg = job.site.config
    language = cfg.language(lang)
    author = (cfg.author.name, cfg.author.email)
    notes = tuple(sorted(feed_notes(job, lang).items()))
    return (
        lang,
        language.title,
        language.description,
        author,
        job.url.base_url,
        notes,
        job.markdown.renderer(),
        job.markdown.raw_html,
    )


def feed_notes(job: RenderJob, lang: str) -> dict[str, str]:
    """The note each translation state puts at the top of a feed entry in `lang`
    (templates/partials/feed_note.html; nothing for a reviewed text)."""
    out = {}
    for state in ("source", "translated", "draft", "stale", "missing"):
        try:
            template = job.envs[lang].get_template("partials/feed_note.html")
            note = template.render(state=state, lang=lang).strip()
        except jinja2.TemplateError as exc:
            raise DiagnosticError([template_error(exc, job.project.root)]) from exc
        if note:
            out[state] = note + "\n"
    return out


class JsonApi:
    kind = "json"

    def render(self, job: RenderJob, tree: OutputTree) -> None:
        site, url = job.site, job.url
        hidden = json_api.drafts(site, job.langs)  # (a draft's units are not named)
        # each entry's records kept by its key (Parts.status_files), else each made again, in
        # one pass over the units
        statuses = job.parts.status_files(site, job.langs, hidden)
        if statuses is None:
            texts = json_api.status_texts_of(site.units, site.status, job.langs, hidden)
            statuses = {lang: json_api.join_records(texts[lang]).encode() for lang in job.langs}
        for lang in job.langs:
            cv = json_api.cv_json(site, lang)
            if cv is not None:
                tree.add(urls.api(lang, "cv")[1:], cv, lang, "cv.json")
            # each record kept by its values (Parts.post_records): an update makes again those
            # of the posts it changed and joins them with the others as they were
            posts = json_api.join_encoded(job.parts.post_records(site.posts(lang), lang, url))
            tree.add(urls.api(lang, "posts")[1:], posts, lang, "api")
            tree.add(urls.api(lang, "status")[1:], statuses[lang], lang, "api")
        if job.every_language:
            for name, text in job.parts.get(digest("json-schemas"), json_api.schemas).items():
                tree.add(f"api/schema/{name}", text, None, "schema")

    def owns(self, path: str) -> bool:
        return path.startswith("api/") and not path.endswith(".pdf")


class Llms:
    kind = "llms"
    after_pages = True  # the posts' Outlines: from the pages' renders (HtmlPages)

    def render(self, job: RenderJob, tree: OutputTree) -> None:
        site, url = job.site, job.url
        default = site.config.default_language
        raw_html = site.config.outputs.raw_html
        outlines = job.markdown.outlines  # by path: those of the bodies rendered in this build
        for lang in job.langs:
            _ = text_gettext(job.envs[lang])
            shown = llms.names(site, lang)
            labels = digest(tuple(_(label) for label in llms_parts.POST_LABELS))
            # each post's two parts, kept by their values (Parts.llms_posts): an update makes
            # again those of the posts it changed and joins them with the others as they were
            posts = site.posts(lang)
            parts, keys, remake = job.parts.llms_posts(
                posts, lang, url, _, shown, labels, raw_html, outlines
            )
            lines, fulls = list(map(itemgetter(0), parts)), list(map(itemgetter(1), parts))
            head = llms.header(site, lang, url, _, job.parts.updated)  # (both files start with it)
            index = llms.llms_txt(site, lang, url, _, head=head, lines_of_posts=lines)
            tree.add(urls.llms(lang)[1:], index, lang, "llms.txt")
            if lang == default:  # the root copies are the default language's: built with it
                tree.add("llms.txt", index, None, "llms.txt")
            # llms-full.txt (tens of MB on a big site): the published file, if it has the bytes
            # of the same parts in the same frame (Parts.file_mark), else joined again
            full: list[tuple[str, str | None, str]] = [(urls.llms(lang, True)[1:], lang, "llms")]
            if lang == default:
                full.append(("llms-full.txt", None, "llms-full.txt"))
            frame = llms.llms_full_txt(site, lang, url, _, head=head, texts_of_posts=[])
            mark = job.parts.file_mark(("llms-full", lang), frame, keys)
            known = job.parts.kept(mark) if mark is not None else None
            if known is not None and all(tree.published(f[0], known) for f in full):
                for path, of, origin in full:
                    tree.add_published(path, known, of, origin)
                job.parts.keep_layout(known)
                continue
            # each post's text: as made or read by this process, else where the published file
            # has it (its layout, render/llms_full.py), else made again
            texts, fulls, again, why, at, data = llms_full.texts_at(
                fulls, posts, partial(_published_full, job, tree, full[0][0]), remake
            )
            if again:
                job.parts.say(
                    f"{full[0][0]}: {again} of {len(posts)} posts' texts made again ({why})"
                )
            # the file as pieces: the texts in a row in the published file, one slice of it
            # (llms_full.join, after its bytes before the posts: those of the file with one
            # post, b"x"); else joined (as a full build joins it)
            one = llms.llms_full_txt(site, lang, url, _, head=head, texts_of_posts=[b"x"])
            joined = None
            if one.endswith(b"\n\nx\n"):
                joined = llms_full.join(one.removesuffix(b"\n\nx\n"), texts, fulls, at, data)
            if joined is None:
                text = llms.llms_full_txt(site, lang, url, _, head=head, texts_of_posts=texts)
                joined = (Pieces([text]), llms_full.layout(text, frame, fulls, texts))
            for path, of, origin in full:
                tree.add(path, joined[0], of, origin)
            made = tree.files[full[0][0]].digest
            if mark is not None and made is not None:
                job.parts.keep(mark, made)
            if made is not None:
                job.parts.keep_layout(made, joined[1])

    def owns(self, path: str) -> bool:  # (asked of every published file: endswith first)
        return path.endswith(_LLMS_FILES) and path.rsplit("/", 1)[-1] in _LLMS_FILES


def _published_full(
    job: RenderJob, tree: OutputTree, path: str
) -> tuple[bytes | memoryview | None, llms_full.Layout | None, str]:
    """The published llms-full.txt at `path` if its bytes are those the output's record has,
    with the layout kept for them (llms_full.texts), else None and why not."""
    recorded = tree.published_digest(path)
    written = tree.live.files.get(path) if tree.live is not None else None
    raw, why = llms_full.read_published(tree.out / path, recorded, written)
    if raw is None or recorded is None:
        return None, None, why
    return raw, job.parts.layout(recorded), ""


class Pdfs:
    """CVs, the bilingual CV (every language built) and opted-in posts, rendered in parallel
    by render/pdf.py; the build's fixed time comes from SOURCE_DATE_EPOCH."""

    kind = "pdf"

    def render(self, job: RenderJob, tree: OutputTree) -> None:
        if not any_pdf(job.site, job.langs, bilingual=job.every_language):
            return  # (what makes PDFs is not even loaded: ~20 ms)
        # imported here: only a build that makes PDFs loads what makes them (render/pdf/)
        from bipub.render.pdf.documents import render_pdfs
        from bipub.render.pdf.jobs import build_time

        for path, data, owner, origin in render_pdfs(
            job.project,
            job.site,
            job.langs,
            job.envs,
            job.markdown,
            job.collector,
            bilingual=job.every_language,
            now=build_time(os.environ),
            cache_dir=user_cache_dir() if job.cache is not None else None,  # --no-cache: None
        ):
            tree.add(path, data, owner, origin)

    def owns(self, path: str) -> bool:
        return path.endswith(".pdf")


class Search:
    """Issue 19: the search index of each language (render/search.py), made from the built
    pages that mark text for it (`data-pagefind-body`: the theme's posts and pages in their own
    language). It runs after the pages: with them in this build (`fresh`) it reads the staged
    pages, else (`build --only search`) the published ones."""

    kind = "search"

    def __init__(self, fresh: bool = True) -> None:
        self.fresh = fresh
        self.notes: list[str] = []  # what each language's index did (build -v)

    def render(self, job: RenderJob, tree: OutputTree) -> None:
        if not job.site.config.outputs.search:
            return
        folder = tree.staging if self.fresh else tree.out
        paths = tree.paths() if self.fresh else published_files(tree.out)
        record = None
        if job.cache is not None:  # --no-cache: every shard is made again, nothing is recorded
            record = SearchRecord.path(job.project.cache, tree.out)
        done = index_site(
            tree,
            folder,
            paths,
            job.langs,
            lambda rel: job.url.href("/" + rel),
            job.site.config.outputs.search_shard_pages,
            record,
            job.collector,
        )
        self.notes.extend(done)

    def owns(self, path: str) -> bool:
        return path.split("/")[1:2] == ["pagefind"]


class HtmlPages:
    """Every planned page, the root pages (/ and 404.html) and the static files. The pages
    are rendered (or kept: their fingerprint did not change) by render/workers.py; the
    `others` kinds (not PDFs) are rendered in this process while workers work, but those that
    show what rendering the pages worked out (`after_pages`: feeds, llms files), after them."""

    kind = "html"

    def __init__(
        self,
        others: Sequence[Output],
        global_key: str,
        previous: dict[str, tuple[str, tuple[int, int, int, int]]] | None,
        entries: dict[tuple[str, str], str],
        on_pages: Callable[[int], None] | None = None,
        on_start: Callable[[int], None] | None = None,
        first: FirstPages | None = None,
        memo: KeepMemo | None = None,
    ) -> None:
        self.others = others
        self.memo = memo  # what the last build's pages kept (`bipub serve`: kept_pages.py)
        self.first = first  # `bipub serve`'s fast render: the pages published first
        self.global_key = global_key
        self.previous = previous  # the last build's pages (build cache), None: render all
        self.entries = entries  # the entries' keys the fingerprints are made from
        self.on_pages = on_pages
        self.on_start = on_start
        self.counts: dict[str, int] = {}  # pages per language, once rendered
        self.fingerprints: dict[str, str] = {}  # of every page rendered or kept
        # the other kinds' `owns`, asked by this one's (made once: build --only asks about
        # every file of the site, twice)
        kinds: tuple[Output, ...] = (Feeds(), JsonApi(), Llms(), Pdfs(), Search(), Cards())
        self._others_own = tuple(other.owns for other in kinds)

    def render(self, job: RenderJob, tree: OutputTree) -> None:
        # issue 19: the image variants not encoded yet (render/images.py), before any thread
        cache_dir = user_cache_dir() if job.cache is not None else None
        quality = job.site.config.images.quality
        images, fresh = job.site.images, {}
        if job.every_language:
            fresh = encode_variants(
                images, cache_dir, quality, job.collector, tree.release_in_child
            )

        # the outputs that show what rendering a page works out (its body's render, where its
        # headings are) are made after the pages, from what the render workers sent back (each
        # body is parsed once per build: MarkdownCache.merge); the others while they work
        after = [other for other in self.others if getattr(other, "after_pages", False)]
        wanted: set[str] = set()
        for other in after:
            if isinstance(other, Feeds):
                wanted |= other.wanted(job, tree)
        job.markdown.wanted = frozenset(wanted)

        def meanwhile() -> None:
            for other in self.others:
                if other not in after:
                    other.render(job, tree)
            if job.every_language:
                default = job.site.config.default_language
                for path, html in job.renderer.render_root_pages(
                    job.plan, job.envs[default], job.collector
                ):
                    tree.add(urls.output_file(path), html, None, path)
                _static(job.project, tree)
                for rel, data in variant_files(images, cache_dir, quality, job.collector, fresh):
                    tree.add(rel, data, None, "image variant")
            for redirect in job.redirects:  # (of the languages built: render/aliases.py)
                try:
                    page = redirect_html(redirect, job.url, job.envs[redirect.lang])
                except jinja2.TemplateError as exc:
                    job.collector.add(template_error(exc, job.project.root))
                    break  # (the same template for every one: said once)
                tree.add(redirect.file, page, redirect.owner, redirect.origin)

        self.counts, self.fingerprints = render_pages(
            job.renderer,
            job.markdown,
            job.plan,
            job.envs,
            job.langs,
            tree,
            job.collector,
            self.on_pages,
            self.previous,
            self.global_key,
            self.on_start,
            meanwhile=meanwhile,
            fast=self.first,
            memo=self.memo,
        )
        for other in after:
            other.render(job, tree)

    def owns(self, path: str) -> bool:
        for owns in self._others_own:  # noqa: SIM110 (a loop: half the cost of any(generator))
            if owns(path):
                return False
        return True


def _static(project: Project, tree: OutputTree) -> None:
    theme_static = THEME_DIR / "static"
    project_files: dict[str, Path] = {}
    if project.static.is_dir():
        for path in sorted(project.static.rglob("*")):
            if path.is_symlink():
                raise DiagnosticError(
                    [
                        Diagnostic(
                            path.relative_to(project.root).as_posix(),
                            None,
                            "symlink",
                            "symbolic links are not followed",
                        )
                    ]
                )
            if path.is_file():
                project_files[path.relative_to(project.static).as_posix()] = path
    if theme_static.is_dir():
        for path in sorted(theme_static.rglob("*")):
            if path.is_file():
                rel = "assets/" + path.relative_to(theme_static).as_posix()
                if rel not in project_files:
                    tree.add(rel, path.read_bytes(), None, f"theme {rel}")
    # files of the site's root (/favicon.ico: session 29), unless the project's static/ has them
    for path in sorted((THEME_DIR / "root").glob("*")):
        if path.is_file() and path.name not in project_files:
            tree.add(path.name, path.read_bytes(), None, f"theme {path.name}")
    for rel, path in project_files.items():
        tree.add(rel, path.read_bytes(), None, f"static/{rel}")
