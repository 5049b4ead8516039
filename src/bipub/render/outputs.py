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

import hashlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol

import jinja2

from bipub.cache import BuildCache, user_cache_dir
from bipub.diagnostics import Collector, Diagnostic, DiagnosticError
from bipub.load.content import Document
from bipub.pair.model import version_key
from bipub.pair.site import Entry, Site
from bipub.project import Project
from bipub.render import feeds, json_api, llms, llms_parts, urls
from bipub.render.cards import Cards
from bipub.render.html import HtmlRenderer, Plan
from bipub.render.images import encode_variants, variant_files
from bipub.render.markdown import MarkdownCache
from bipub.render.markdown_sections import Outline
from bipub.render.pdf.links import any_pdf
from bipub.render.search_shards import SearchRecord, index_site
from bipub.render.templates import THEME_DIR, template_error, text_gettext
from bipub.render.workers import render_pages
from bipub.write.output import OutputTree, published_files


@dataclass
class Parts:
    """The texts of the aggregate outputs' parts — a post's posts.json record, its line in
    llms.txt and its text in llms-full.txt, a feed entry — by the values they are made from,
    worked out by the same functions as ever (json_api.post_record, llms.post_line and
    full_post, feeds.atom_entry). A build after an edit takes the text of every part whose
    values did not change from the last build (buildstate.py keeps them; `bipub serve` in
    memory) and joins them as a full build does.

    Each key is cheap to work out (a document by its file's digest, never its text), and what
    a post's version is made of (pair/model.py `version_key`) is digested once per build
    (`version`) for every aggregate that shows the post: a part's key is that digest with the
    values of the site its kind reads (`site_key`). `bipub serve` pairs an unchanged entry
    into the very object it was (pair/site.py PairMemo): its digest is taken as it was, by
    that object, without reading the entry again. status.json's records and the sitemap's
    routes cost no more to make again than such a key, and are made again."""

    earlier: dict[bytes, Any] = field(default_factory=dict)
    now: dict[bytes, Any] = field(default_factory=dict)
    # each post version's digest, by (kind, key, language), with the entry it was worked out
    # from (reused only for that very object): this build's, and the last build's in this
    # process (never saved: an object's identity means nothing in another process)
    versions: dict[tuple[str, str, str], Held] = field(
        default_factory=dict, compare=False, repr=False
    )
    versions_before: dict[tuple[str, str, str], Held] = field(
        default_factory=dict, compare=False, repr=False
    )
    _sites: dict[object, bytes] = field(default_factory=dict, compare=False, repr=False)
    made: int = field(default=0, compare=False, repr=False)  # parts made by this build
    _shown: dict[str, llms.Names] = field(default_factory=dict, compare=False, repr=False)
    _names: dict[str, dict[tuple[str, tuple[str, ...]], bytes]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def get(self, key: bytes, make: Callable[[], Any]) -> Any:
        found = self.now.get(key)
        if found is None:
            found = self.earlier.get(key)
            if found is None:
                found = make()
                self.made += 1
            self.now[key] = found
        return found

    def note(self) -> str:
        """What this build took from the last one's parts, for `-v`."""
        if not self.now:
            return ""
        kept = len(self.now) - self.made
        return (
            f"aggregate parts (posts.json records, llms parts, feed entries): {kept:,} of "
            f"{len(self.now):,} kept, {self.made:,} made"
        )

    def next(self) -> Parts:
        """What the next build starts from: the parts this one used (or, if it used none,
        as it found them)."""
        return Parts(
            self.now or self.earlier, versions_before=self.versions or self.versions_before
        )

    def again(self) -> Parts:
        """A build's parts, from those a state kept (`next`'s): the same texts and digests."""
        return Parts(self.earlier, versions_before=self.versions_before)

    def version(self, entry: Entry, lang: str) -> bytes:
        """The digest of what a post's version in `lang` is made of (pair/model.py
        `version_key`, and its original language), worked out once per build; the last
        build's for the very same entry object (module text)."""
        return self._held(entry, lang).digest

    def _held(self, entry: Entry, lang: str) -> Held:
        ident = (entry.kind, entry.key, lang)
        held = self.versions.get(ident)
        if held is None:
            held = self.versions_before.get(ident)
            if held is None or held.entry is not entry:
                held = _hold(entry, lang)
            self.versions[ident] = held
        elif held.entry is not entry:  # (two entries of one key in a build: never, but not kept)
            return _hold(entry, lang)
        return held

    def names(self, entry: Entry, lang: str, shown: llms.Names) -> bytes:
        """The digest of the names the site shows for a post's tags and its document's
        language in `lang` (llms_parts.names_key), once per build for each such pair."""
        held = self._held(entry, lang)
        if self._shown.get(lang) is not shown:  # (each language's names: one object a build)
            self._shown[lang] = shown
            self._names[lang] = {}
        memo = self._names[lang]
        found = memo.get((held.doc_lang, held.tags))
        if found is None:
            names = llms_parts.names_key(held.doc_lang, held.tags, shown)
            found = memo[held.doc_lang, held.tags] = _digest(("llms-names", names))
        return found

    def site_key(self, values: tuple[object, ...]) -> bytes:
        """The digest of the site's values a kind of part reads (its name first), once per
        build."""
        found = self._sites.get(values)
        if found is None:
            found = self._sites[values] = _digest(values)
        return found

    def post_record(self, entry: Entry, lang: str, url: urls.UrlBuilder) -> str:
        """A post's record in posts.json (json_api.post_record, as dump_record writes it), by
        the values it reads (its version and json_api.site_key: the site's URL)."""

        def make() -> str:
            return json_api.dump_record(json_api.post_record(entry, lang, url))

        site = self.site_key(("json-post", *json_api.site_key(url)))
        text: str = self.get(_pair(site, self.version(entry, lang)), make)
        return text

    def llms_post(
        self,
        entry: Entry,
        lang: str,
        url: urls.UrlBuilder,
        _: llms.Gettext,
        shown: llms.Names,
        labels: bytes,
        raw_html: bool,
        outlines: dict[str, Outline],
    ) -> tuple[str, bytes]:
        """A post's line in llms.txt (llms.post_line) and its text in llms-full.txt
        (llms.full_post, UTF-8: the file is joined as bytes), by its values
        (its version; llms_parts.names_key: the names the site shows for its tags and its
        language; llms_parts.site_key) and `labels` (the digest of this language's
        translations of llms_parts.POST_LABELS). Its body is made with the Outline its page's
        render found (`outlines`, by path), else parsed."""

        def make() -> tuple[str, bytes]:
            doc = entry.versions[lang].doc
            body = partial(llms.post_body, raw_html=raw_html, outline=outlines.get(doc.rel))
            line = llms.post_line(entry, lang, url, _, shown)
            return line, llms.full_post(entry, lang, url, _, shown, body).encode("utf-8")

        site = self.site_key(("llms-post-utf8", labels, *llms_parts.site_key(url, raw_html)))
        key = _pair(site, self.version(entry, lang), self.names(entry, lang, shown))
        made: tuple[str, bytes] = self.get(key, make)
        return made

    def feed_entry(
        self, item: feeds.FeedItem, doc: Document, note: str, markdown: MarkdownCache
    ) -> tuple[str, str]:
        """feeds.atom_entry and feeds.json_item_text of one feed entry, by its item, its body
        (MarkdownCache.key: what its rendering depends on) and its note. A body kept from the
        last build is not rendered again; what rendering it warned about is said again
        (MarkdownCache.replay), as for a page kept."""

        def make() -> tuple[str, str]:
            html = markdown(doc).html
            atom = feeds.atom_entry(item, html, note)
            return atom, feeds.json_item_text(feeds.json_item(item, html, note))

        key = _digest(("feed-entry", item, markdown.key(doc), note))
        fresh = key not in self.now and key not in self.earlier
        entry: tuple[str, str] = self.get(key, make)
        if not fresh:
            markdown.replay(doc)
        return entry


@dataclass(frozen=True)
class Held:
    """What Parts keeps of a post's version: the entry it was worked out from, the digest of
    its values (Parts.version), its document's language and its tags (tags_of)."""

    entry: Entry
    digest: bytes
    doc_lang: str
    tags: tuple[str, ...]


def _hold(entry: Entry, lang: str) -> Held:
    digest = _digest(("version", version_key(entry, lang), entry.source_lang))
    doc = entry.versions[lang].doc
    return Held(entry, digest, doc.lang, entry.tags_in(lang))


def _pair(*digests: bytes) -> bytes:
    """A part's key from digests of its values (each `_digest`'s: 16 bytes, so that their
    concatenation says where each one ends)."""
    return hashlib.blake2b(b"".join(digests), digest_size=16).digest()


def _digest(values: object) -> bytes:
    """A part's key: a digest of its values' repr (a repr, not the values: True and 1 are
    equal keys; a digest: the state keeps ~50,000 parts on a big site, saved at every build)."""
    return hashlib.blake2b(repr(values).encode("utf-8"), digest_size=16).digest()


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

    @property
    def every_language(self) -> bool:
        """Whether the outputs shared by all languages are built too."""
        return self.langs == self.site.config.codes


class Output(Protocol):
    kind: str  # its `build --only` name

    def render(self, job: RenderJob, tree: OutputTree) -> None: ...

    def owns(self, path: str) -> bool: ...


class Feeds:
    kind = "feeds"
    after_pages = True  # its bodies: the pages' renders (HtmlPages)

    def __init__(self) -> None:
        # each language's feeds (feeds.feed_sets) of the job they were made for: `wanted`
        # makes them before the pages, `render` joins them after
        self._sets: tuple[RenderJob, dict[str, list[feeds.FeedParts]]] | None = None

    def sets(self, job: RenderJob, lang: str) -> list[feeds.FeedParts]:
        if self._sets is None or self._sets[0] is not job:
            self._sets = (job, {})
        made = self._sets[1]
        if lang not in made:
            made[lang] = feeds.feed_sets(job.site, lang, job.url)
        return made[lang]

    def render(self, job: RenderJob, tree: OutputTree) -> None:
        for lang in job.langs:
            notes = feed_notes(job, lang)
            # each entry is made once, whichever feeds show it, and kept by its values (a pure
            # function of its item, its body and its note: Parts.feed_entry)
            entries: dict[feeds.FeedItem, tuple[str, str]] = {}
            for parts in self.sets(job, lang):
                for it, doc in zip(parts.items, parts.docs, strict=True):
                    if it not in entries:
                        entries[it] = job.parts.feed_entry(
                            it, doc, notes.get(it.state, ""), job.markdown
                        )
                path = parts.path[1:]
                xml = feeds.feed_xml(parts, [entries[it][0] for it in parts.items])
                tree.add(path, xml, lang, "feed")
                json_feed = feeds.json_feed_join(parts, [entries[it][1] for it in parts.items])
                tree.add(path[: -len("xml")] + "json", json_feed, lang, "feed")
        if job.every_language:
            # (each route's part made again: as cheap as working out a key it could be kept by)
            routes = feeds.sitemap_parts(job.site, job.plan, job.url)
            sitemap = feeds.sitemap_join(routes)
            tree.add("sitemap.xml", sitemap, None, "sitemap")
            tree.add("robots.txt", feeds.robots(job.url), None, "robots")

    def wanted(self, job: RenderJob) -> set[str]:
        """The documents whose bodies the feeds show (their paths)."""
        return {
            it.rel for lang in job.langs for parts in self.sets(job, lang) for it in parts.items
        }

    def owns(self, path: str) -> bool:
        return path.rsplit("/", 1)[-1] in ("feed.xml", "feed.json", "sitemap.xml", "robots.txt")


def feed_notes(job: RenderJob, lang: str) -> dict[str, str]:
    """The note each translation state puts at the top of a feed entry in `lang`
    (templates/partials/feed_note.html; nothing for a reviewed text)."""
    out = {}
    for state in ("source", "translated", "draft", "stale", "missing"):
        try:
            template = job.envs[lang].get_template("partials/feed_note.html")
            note = template.render(state=state).strip()
        except jinja2.TemplateError as exc:
            raise DiagnosticError([template_error(exc, job.project.root)]) from exc
        if note:
            out[state] = note + "\n"
    return out


class JsonApi:
    kind = "json"

    def render(self, job: RenderJob, tree: OutputTree) -> None:
        site, url = job.site, job.url
        for lang in job.langs:
            cv = json_api.cv_json(site, lang)
            if cv is not None:
                tree.add(urls.api(lang, "cv")[1:], cv, lang, "cv.json")
            posts = json_api.posts_json(site, lang, url, text=job.parts.post_record)
            tree.add(urls.api(lang, "posts")[1:], posts, lang, "api")
            # (each record made again: as cheap as working out a key it could be kept by)
            status = json_api.status_json(json_api.status_records(site, lang))
            tree.add(urls.api(lang, "status")[1:], status, lang, "api")
        if job.every_language:
            for name, text in job.parts.get(_digest("json-schemas"), json_api.schemas).items():
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
            labels = _digest(tuple(_(label) for label in llms_parts.POST_LABELS))
            # each post's two parts, kept by their values (Parts.llms_post): an update makes
            # again those of the posts it changed and joins them with the others as they were
            made = {
                entry.key: job.parts.llms_post(
                    entry, lang, url, _, shown, labels, raw_html, outlines
                )
                for entry in site.posts(lang)
            }

            def line(
                entry: Entry, *_args: object, made: dict[str, tuple[str, bytes]] = made
            ) -> str:
                return made[entry.key][0]

            def full(
                entry: Entry, *_args: object, made: dict[str, tuple[str, bytes]] = made
            ) -> bytes:
                return made[entry.key][1]

            head = llms.header(site, lang, url, _)  # (both files start with it)
            index = llms.llms_txt(site, lang, url, _, part=line, head=head).encode("utf-8")
            text = llms.llms_full_txt(site, lang, url, _, part=full, head=head)  # (root: same)
            tree.add(urls.llms(lang)[1:], index, lang, "llms.txt")
            tree.add(urls.llms(lang, True)[1:], text, lang, "llms")
            if lang == default:  # the root copies are the default language's: built with it
                tree.add("llms.txt", index, None, "llms.txt")
                tree.add("llms-full.txt", text, None, "llms-full.txt")

    def owns(self, path: str) -> bool:
        return path.rsplit("/", 1)[-1] in ("llms.txt", "llms-full.txt")


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
    ) -> None:
        self.others = others
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
                wanted |= other.wanted(job)
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
    for rel, path in project_files.items():
        tree.add(rel, path.read_bytes(), None, f"static/{rel}")
