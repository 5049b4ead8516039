"""Quick rebuild: the outputs of an edited post, without rebuilding the site.

Most edits while writing change a post's body, or its title, description, tags or dates, and
nothing else the site shows about it: not its series or draft state, not a translation's state.
Such an edit changes only the pages that show that post, the feeds that carry it, the language's
status.json (each unit's hash and line), the home, blog and tag pages whose card of the post
changed (title, description, reading time, tags, dates) or whose posts moved (tags, dates), the
tag clouds, the sitemap and the post's item in posts.json and the llms files; for a post in a
series, its series page (its card) and, when its title changed, every member's page (the series
box and pager show the members' titles). A full build finds
that out by loading, pairing, planning and fingerprinting the whole site (seconds on 10,000
posts); this module does it from a *kit* the last full build left:

* per post and page: the view it was rendered from without its body (render/html.py
  `post_shell`), its page metadata and template, the documents it pairs, their translation
  states and reading times, and the listing pages that show its card;
* per home, blog and tag page: its context (the cards it lists, its pagination) and metadata;
* per language: the site view, the feed before its bodies (render/feeds.py `FeedParts`),
  status.json's records, posts.json's records and the llms files' lines, with each post's place;
* per language, read only when a post's tags or dates change (`ListsKit`): the posts in order
  with their dates, each tag's posts and spellings, every post's card; and the sitemap by route;
* per series and language, read only when a member's card changes (`SeriesKit`): its members
  in order (each one's slug, shown document and title, place and card) and its page's metadata;
* the documents' front-matter digests (whole, without title and description, and without title,
  description, tags and dates), the build's inputs, options, configuration, status files and
  warnings.

The kit is kept in `.bipub-cache/quick-*.pickle` (signed like every cache file: cache.py), per
output folder and build options, its entries and listing pages spread over shard files so a
rebuild reads few; a shard is keyed by what it is made of (page fingerprints and the entries'
facts), and a full build writes only the shards whose key changed.

A quick rebuild runs only when every input that differs from the kit's is an existing post or
page whose front matter is the same but for a post's title, description, tags and dates,
pairing it again gives the same translation states, it has no PDF, no tag's shown name or
spellings change, no post moves in its series (a new date in a series ordered by date) and no
series' title-prefix warning comes or goes (`_same_series`), and the output folder is exactly
as the last build left it. Then it renders those documents' bodies again, and with them their
pages, feeds, status.json, posts.json, the llms files, the listings of a changed card or of
moved posts (`_relist`: tag pages paginated again, made or removed), the series pages of a
changed card and, for a new title, the pages of its series' other members with their new series
box (each language that shows the edited document: a translation's, or an untranslated post's
source shown in its place) — the same functions and views a full build uses (render/html.py
`series_nav`, `series_context`), so the bytes are the same (tests/integration/test_quick.py,
test_quick_lists.py and test_quick_series.py compare with clean builds) — and
writes the files whose bytes changed in place (output.replace_files; a vanished tag's pages are
removed: output.remove_files). The warnings are the kit's, with those about the edited files
found again. Anything else — and any error — runs the full build, and `-v` says why.

A rebuild is always computed from the kit (not from the previous quick rebuild), so edits since
the last full build add up without drifting; past MAX_EDITED files the full build runs (and
leaves a new kit). What earlier quick rebuilds changed besides the edited posts' own pages (a
card on listing and series pages, the posts a listing shows, a tag's pages, the series boxes
of a series, a line of posts.json or llms.txt) is recorded (`Touched`), so that an edit that is
undone is undone in those files too; without that record the full build runs.
"""

from __future__ import annotations

import hashlib
import pickle
import re
import secrets
import stat
import zlib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from bipub import uptodate
from bipub.cache import UNREADABLE, load_signed, save_signed, user_cache_dir
from bipub.diagnostics import Collector, Diagnostic, Severity
from bipub.model.post import instant_of
from bipub.pair.assets import check_document_assets
from bipub.pair.site import TagPlaces, add_tag_places, tag_spelling_sources, tag_spelling_warnings

if TYPE_CHECKING:
    import datetime as dt

    from bipub.config import SiteConfig
    from bipub.load.content import Document
    from bipub.model.post import Kind
    from bipub.pair.site import Entry, Site, Tag
    from bipub.pair.status import StatusFile
    from bipub.project import Project
    from bipub.render.feeds import FeedParts, SitemapPart
    from bipub.render.html import HtmlRenderer, Plan
    from bipub.render.views import PageMeta, PostCard, PostView, SeriesNav, View

KIT_FORMAT = 14  # 14: titles and tag places (issue 18)
_T = TypeVar("_T")
SHARDS = 128  # a quick rebuild reads one or two (~90 KB each on a 5,000-post site)
MAX_EDITED = 24  # more edited files than this since the last full build: build in full

VersionState = tuple[str, str, str, tuple[str, ...], tuple[str, ...]]  # lang, doc, state, …
Dates = tuple["dt.date | None", "dt.date | None"]  # a post's date and update


@dataclass(frozen=True)
class PageKit:
    """One post or page page without its body."""

    path: str  # output file
    lang: str
    template: str
    meta: PageMeta
    shell: PostView
    doc: str  # the document whose body it shows


@dataclass(frozen=True)
class ListingKit:
    """A page that lists post cards (home, blog and tag pages), without its site view."""

    path: str
    lang: str
    template: str
    meta: PageMeta
    context: dict[str, Any]  # what the template gets besides `site` and `page`


LISTED = ("home", "blog", "tag")  # (series pages: `SeriesKit`)


@dataclass(frozen=True)
class EntryKit:
    """What the site shows of one post or page, as the last full build saw it."""

    kind: str
    key: str
    rels: tuple[str, ...]  # its documents, in pairing order
    versions: tuple[VersionState, ...]  # what each language shows, and in which state
    minutes: tuple[tuple[str, int], ...]  # reading time of each document shown (cards)
    pages: tuple[PageKit, ...]
    pdf: bool  # a post PDF is made of it: always built in full
    listings: tuple[tuple[str, str], ...] = ()  # (language, listing page) showing its card
    series: tuple[tuple[str, str], ...] = ()  # (language, series slug) of each series it is in


@dataclass(frozen=True)
class SeriesMember:
    """A post of a series, as the series' language shows it."""

    key: str
    slug: str  # its page's (the series box links to it)
    rel: str  # the document the language shows of it
    title: str  # that document's title (the series box of every member shows it)
    order: tuple[int, dt.date, str]  # its place (pair/site.py series_order_key)
    card: PostCard | None  # as the series page lists it (None: no HTML was built)


@dataclass(frozen=True)
class SeriesKit:
    """A series in one language: its members in order, and its page without their cards
    (`.bipub-cache/quick-<kit>-series.pickle`, read only when a member's card changes)."""

    lang: str
    slug: str
    name: str
    members: tuple[SeriesMember, ...]
    path: str  # its page (output file; "": no HTML was built)
    template: str
    meta: PageMeta | None


@dataclass(frozen=True)
class TextKit:
    """A file with one item per post (posts.json records, llms lines), as the items it joins."""

    kind: str  # "records" (posts.json), "lines" (llms.txt), "full" (llms-full.txt)
    lang: str  # the language whose posts it lists
    # the items joined with ITEM_SEP (one string unpickles far faster than 10,000), or the list
    # itself when an item holds ITEM_SEP or there is none
    packed: str | list[str]
    posts: dict[str, int]  # entry key → its item

    @cached_property
    def items(self) -> list[str]:
        return self.packed.split(ITEM_SEP) if isinstance(self.packed, str) else self.packed


ITEM_SEP = "\x00"


def _pack(items: list[str]) -> str | list[str]:
    return ITEM_SEP.join(items) if items and all(ITEM_SEP not in i for i in items) else items


@dataclass
class Kit:
    key: str  # the build options (uptodate.options_key)
    inputs: dict[str, uptodate.Identity]  # the full build's input identities
    only: tuple[str, ...] | None  # the output kinds it built (None: all)
    config: SiteConfig
    status: dict[str, StatusFile]
    # document → (kind, entry key, front-matter digest, digest of its fields but title and
    # description: `meta_rest`, and but title, description and tags: `Document.meta_fixed`)
    docs: dict[str, tuple[str, str, str, str, str]]
    site_views: dict[str, View]
    feeds: dict[str, tuple[FeedParts, dict[str, str]]]
    status_runs: dict[str, StatusRuns]  # language → status.json's records, by entry
    warnings: list[Diagnostic]
    pages: dict[str, int]
    entry_shards: list[str]  # the key of each entry shard this kit goes with
    list_shards: list[str]  # and of each listing shard
    token: str = ""  # this kit's own (random): a `Touched` record names the kit it goes with
    # issue 18: each post document → (language, title, its line, the lines of its tags): the
    # title-prefix and tag-spelling warnings name files and lines (pair/site.py)
    titles: dict[str, tuple[str, str, int | None]] = field(default_factory=dict)
    tag_places: TagPlaces = field(default_factory=dict)  # pair/site.py tag_spelling_sources
    tag_shown: dict[str, dict[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class LangLists:
    """One language's posts and tags as the last full build listed them (what a post's new tags
    or dates change)."""

    order: list[str]  # the keys of its posts, newest first (pair/site.py `Site.posts`)
    dates: dict[str, Dates]  # entry key → its date and update
    tags: dict[str, Tag]  # slug → the tag (pair/site.py `_collect_tags`)
    spellings: dict[str, dict[str, int]]  # slug → each spelling → how often posts use it
    members: dict[str, list[str]]  # slug → the keys of its posts, newest first
    written: dict[str, tuple[str, ...]]  # entry key → its tags as written (pair/site.py `_tags_of`)
    # the posts' cards in `order`, CARD_BLOCK to a pickled block (a block is unpickled only when
    # a listing shows one of its posts besides the edited ones); None: no HTML was built
    card_blocks: list[bytes] | None

    @cached_property
    def rank(self) -> dict[str, int]:  # entry key → its place among the language's posts
        return {key: i for i, key in enumerate(self.order)}

    @cached_property
    def _blocks(self) -> dict[int, list[PostCard]]:
        return {}

    def card(self, key: str) -> PostCard:
        if self.card_blocks is None:
            raise AssertionError("listings are rendered only when the kit has HTML")
        at = self.rank[key]
        block = self._blocks.get(at // CARD_BLOCK)
        if block is None:
            # (bytes inside the signed lists kit: cache.load_signed checked them)
            data = self.card_blocks[at // CARD_BLOCK]
            block = self._blocks[at // CARD_BLOCK] = pickle.loads(data)  # noqa: S301
        return block[at % CARD_BLOCK]


CARD_BLOCK = 64


@dataclass(frozen=True)
class ListsKit:
    """The posts and tags of every language and the sitemap by route (read only when a post's
    tags or dates change: `.bipub-cache/quick-<kit>-lists.pickle`)."""

    langs: dict[str, LangLists]
    sitemap: list[SitemapPart] | None  # None: the build made no sitemap


@dataclass(frozen=True)
class StatusRuns:
    """One status.json as runs of records: the records of one entry (unit keys
    `<kind>/<entry key>:<field>`, no field name has a colon) sort together, so each entry's are
    one run, and the file is the runs joined (json_api.join_records)."""

    runs: list[str]  # each run's records, joined as the file joins them (json_api.RECORD_SEP)
    index: dict[str, int]  # "<kind>/<entry key>:" → its run (-1: its records are not one run)

    def text(self) -> str:
        from bipub.render.json_api import join_records

        return join_records(self.runs)


def _status_runs(records: list[tuple[str, str]]) -> StatusRuns:
    runs: list[list[str]] = []
    index: dict[str, int] = {}
    last = None
    for key, text in records:
        prefix = key.rpartition(":")[0] + ":"
        if prefix != last:
            index[prefix] = len(runs) if prefix not in index else -1
            runs.append([])
            last = prefix
        runs[-1].append(text)
    from bipub.render.json_api import RECORD_SEP

    return StatusRuns([RECORD_SEP.join(run) for run in runs], index)


@dataclass(frozen=True)
class Touched:
    """What the quick rebuilds since the kit's full build left different from the kit in the
    output besides the edited posts' own pages: the cards (shown on listing and series pages),
    the series boxes and the posts.json/llms files. A later rebuild must render those again
    even if the edit that changed them was undone (`.bipub-cache/quick-<kit>-touched.pickle`)."""

    token: str  # the kit's
    cards: frozenset[tuple[str, str, str]]  # (kind, entry key, language)
    texts: frozenset[str]  # output paths
    # (language, tag slug, fewest pages, most pages) of each tag whose posts differed from the
    # kit's: its pages, and those of the other languages in between, are rendered again
    tags: frozenset[tuple[str, str, int, int]] = frozenset()
    chunks: frozenset[str] = frozenset()  # home, blog and tag pages that listed other posts
    relisted: bool = False  # a post's tags or dates differed: its lists must be made again
    # (language, series slug) of each series a member's title of differed in: the series box
    # on every member's page is rendered again
    navs: frozenset[tuple[str, str]] = frozenset()


@dataclass
class Rebuilt:
    """What a quick rebuild did."""

    edited: list[str]
    rendered: int  # pages rendered again
    written: list[str]  # output files whose bytes changed
    warnings: list[Diagnostic]
    pages: dict[str, int]
    removed: list[str] = field(default_factory=list)  # output files removed (tag pages)


# ---------------------------------------------------------------------------- the kit


def _name(target: Path, key: str) -> str:
    return hashlib.sha256(f"{target.absolute()}\0{key}".encode()).hexdigest()[:16]


def _stamp() -> tuple[int, str]:
    from bipub import __version__

    return (KIT_FORMAT, __version__)


def _shard(kind: str, key: str) -> int:
    return zlib.crc32(f"{kind}/{key}".encode()) % SHARDS


_PAGED = re.compile(r"(.*/)page/(\d+)/index\.html")


def _list_shard(path: str) -> int:
    """The shard of a listing page: neighbouring pages of one listing share one (a post that
    moves a few places changes a run of them)."""
    paged = _PAGED.fullmatch(path)
    if paged is None:
        return _shard("list", f"{path}#0")  # (a listing's first page)
    return _shard("list", f"{paged.group(1)}index.html#{int(paged.group(2)) // 16}")


@dataclass
class KitSource:
    """What a full build hands over for its kit (render() fills it; `save_kit` uses it after
    the output is published)."""

    site: Site
    renderer: HtmlRenderer
    plan: Plan
    feeds: dict[str, tuple[FeedParts, dict[str, str]]]
    status_records: dict[str, list[tuple[str, str]]]  # language → (unit key, record text)
    fingerprints: dict[str, str] | None  # output page → fingerprint (html builds)
    texts: dict[str, Any]  # output path → posts.json records or llms Lines (pipeline.render)
    sitemap: list[SitemapPart] | None  # (pipeline.render; None: not built)


def save_kit(
    project: Project,
    target: Path,
    key: str,
    inputs: dict[str, uptodate.Identity],
    only: set[str] | None,
    source: KitSource,
    warnings: list[Diagnostic],
    pages: dict[str, int],
) -> None:
    """Leave the kit of this full build. The per-entry and per-listing shards are keyed by
    what they are made of (page fingerprints, translation states, reading times, which
    listings show a post); a shard whose key did not change is neither made nor written again
    (each file starts with its key in the clear), so a full build after a small change writes
    a few files."""
    from bipub.render import urls
    from bipub.render.pdf import post_pdf_entries

    site, renderer, plan, fps = source.site, source.renderer, source.plan, source.fingerprints
    html = only is None or "html" in only
    name = _name(target, key)
    folder = project.cache
    pdf = {(lang, e.key) for lang in site.config.codes for e in post_pdf_entries(site, lang)}
    # listing pages (home, blog, tag) and which cards each shows
    listing_specs: list[list[tuple[str, Any]]] = [[] for _ in range(SHARDS)]
    listed: dict[str, list[tuple[str, str]]] = defaultdict(list)  # entry key → (lang, page)
    for route, specs in plan.routes.items():
        if not html or route[0] not in LISTED:
            continue
        for lang, spec in specs.items():
            path = urls.output_file(spec.path)
            listing_specs[_list_shard(path)].append((path, spec))
            for entry_key in spec.lists:
                listed[entry_key].append((lang, path))
    # entries: the cheap facts first, their pages' views only for shards that changed
    entry_shards: list[list[tuple[Entry, tuple[Any, ...]]]] = [[] for _ in range(SHARDS)]
    docs: dict[str, tuple[str, str, str, str, str]] = {}
    for entry in site.entries:
        route_kind = "post" if entry.kind == "posts" else "page"
        specs = plan.routes.get((route_kind, entry.key), {}) if html else {}
        facts = (
            entry.kind,
            entry.key,
            tuple(doc.rel for doc in entry.docs.values()),
            version_states(entry),
            tuple(
                sorted({(v.doc.rel, renderer.minutes_of(v.doc)) for v in entry.versions.values()})
            ),
            any((lang, entry.key) in pdf for lang in entry.versions) and entry.kind == "posts",
            tuple(listed.get(entry.key, ())) if entry.kind == "posts" else (),
            tuple(
                (lang, site.series_by_entry[(lang, entry.key)].slug)
                for lang in entry.versions
                if (lang, entry.key) in site.series_by_entry
            ),
            tuple(
                (lang, spec.path, (fps or {}).get(urls.output_file(spec.path)))
                for lang, spec in sorted(specs.items())
            ),
        )
        entry_shards[_shard(entry.kind, entry.key)].append((entry, facts))
        for doc in entry.docs.values():
            docs[doc.rel] = (entry.kind, entry.key, doc.head, meta_rest(doc), doc.meta_fixed)

    def entry_kits(members: list[tuple[Entry, tuple[Any, ...]]]) -> dict[Any, EntryKit]:
        out = {}
        for entry, facts in members:
            route_kind = "post" if entry.kind == "posts" else "page"
            specs = plan.routes.get((route_kind, entry.key), {}) if html else {}
            page_kits = tuple(
                PageKit(
                    urls.output_file(spec.path),
                    lang,
                    spec.template,
                    renderer.page_meta(plan, spec),
                    renderer.post_shell(entry, lang),
                    entry.versions[lang].doc.rel,
                )
                for lang, spec in specs.items()
            )
            kind, key, rels, versions, minutes, has_pdf, listings, series, _ = facts
            out[(kind, key)] = EntryKit(
                kind, key, rels, versions, minutes, page_kits, has_pdf, listings, series
            )
        return out

    def listing_kits(members: list[tuple[str, Any]]) -> dict[str, ListingKit]:
        return {
            path: ListingKit(
                path, spec.lang, spec.template, renderer.page_meta(plan, spec), spec.context()
            )
            for path, spec in members
        }

    entry_keys = []
    for i, members in enumerate(entry_shards):
        facts_key = _digest([facts for _, facts in members], fps is not None or not html)
        entry_keys.append(facts_key)
        _save_shard(_shard_path(folder, name, "", i), name, facts_key, entry_kits, members)
    list_keys = []
    for i, listing_members in enumerate(listing_specs):
        pages_key = _digest(
            [(path, (fps or {}).get(path)) for path, _ in sorted(listing_members)], fps is not None
        )
        list_keys.append(pages_key)
        _save_shard(
            _shard_path(folder, name, "list-", i),
            name,
            pages_key,
            listing_kits,
            listing_members,
        )
    kit = Kit(
        key,
        inputs,
        tuple(sorted(only)) if only is not None else None,
        site.config,
        site.status,
        docs,
        {lang: renderer.site_view(lang) for lang in site.config.codes},
        source.feeds,
        {lang: _status_runs(records) for lang, records in source.status_records.items()},
        warnings,
        pages,
        entry_keys,
        list_keys,
        secrets.token_hex(16),
        _title_lines(site.entries),
        *tag_spelling_sources(site),
    )
    _save_touched(folder, name, Touched(kit.token, frozenset(), frozenset()))
    # posts.json and the llms files by item: only a title or description edit needs them (tens
    # of MB on a big site: a body edit does not read them)
    save_signed(
        _part_path(folder, name, "texts"),
        (_stamp(), name, kit.token, _text_kits(site, source.texts)),
    )
    save_signed(
        _part_path(folder, name, "lists"),
        (_stamp(), name, kit.token, _lists_kit(site, renderer, html, source.sitemap)),
    )
    save_signed(
        _part_path(folder, name, "series"),
        (_stamp(), name, kit.token, _series_kits(site, renderer, plan if html else None)),
    )
    save_signed(folder / f"quick-{name}.pickle", (_stamp(), name, kit))  # the last: it names
    # the shards it goes with, so a kit is only ever read whole
    _prune_kits(folder)


KEEP_KITS = 4  # kits of other output folders or options (serve keeps two) beyond these go


def _prune_kits(folder: Path) -> None:
    """Remove all but the KEEP_KITS most recently written kits (each is tens of MB on a big
    site, and every `--out`/`--only` combination ever built would otherwise leave one)."""
    mains = []
    for path in folder.glob("quick-*.pickle"):
        stem = path.name.removeprefix("quick-").removesuffix(".pickle")
        if len(stem) == 16 and all(c in "0123456789abcdef" for c in stem):
            mains.append((path.stat().st_mtime_ns, stem))
    for _, stem in sorted(mains, reverse=True)[KEEP_KITS:]:
        (folder / f"quick-{stem}.pickle").unlink(missing_ok=True)
        for shard in folder.glob(f"quick-{stem}-*.pickle"):
            shard.unlink(missing_ok=True)


def _lists_kit(
    site: Site,
    renderer: HtmlRenderer,
    html: bool,
    sitemap: list[SitemapPart] | None,
) -> ListsKit:
    from bipub.model.fields import slugify
    from bipub.pair.site import _tags_of

    langs = {}
    for lang in site.config.codes:
        posts = site.posts(lang)
        spellings: dict[str, dict[str, int]] = {}
        members: dict[str, list[str]] = {}
        written: dict[str, tuple[str, ...]] = {}
        for entry in posts:  # (as pair/site.py _collect_tags and render/html.py _plan_lang)
            tags = written[entry.key] = tuple(_tags_of(entry, lang))
            for tag in tags:
                counts = spellings.setdefault(slugify(tag), {})
                counts[tag] = counts.get(tag, 0) + 1
            for slug in sorted({slugify(tag) for tag in tags}):
                members.setdefault(slug, []).append(entry.key)
        langs[lang] = LangLists(
            [entry.key for entry in posts],
            {entry.key: (entry.date, entry.updated) for entry in posts},
            dict(site.tags.get(lang, {})),
            spellings,
            members,
            written,
            [
                pickle.dumps([renderer.card(e, lang) for e in posts[i : i + CARD_BLOCK]], 5)
                for i in range(0, len(posts), CARD_BLOCK)
            ]
            if html
            else None,
        )
    return ListsKit(langs, sitemap)


def _series_kits(
    site: Site, renderer: HtmlRenderer, plan: Plan | None
) -> dict[tuple[str, str], SeriesKit]:
    """Every series of every language (`plan`: the build's, None when it made no HTML)."""
    from bipub.pair.site import series_order_key
    from bipub.render import urls

    out = {}
    for lang, by_slug in site.series.items():
        for slug, series in by_slug.items():
            members = tuple(
                SeriesMember(
                    e.key,
                    e.slug,
                    e.versions[lang].doc.rel,
                    e.versions[lang].doc.meta.title,
                    series_order_key(e),
                    renderer.card(e, lang) if plan is not None else None,
                )
                for e in series.entries
            )
            spec = plan.routes[("series", series.entries[0].key)][lang] if plan else None
            out[(lang, slug)] = SeriesKit(
                lang,
                slug,
                series.name,
                members,
                urls.output_file(spec.path) if spec else "",
                spec.template if spec else "",
                renderer.page_meta(plan, spec) if plan and spec else None,
            )
    return out


def _part_path(folder: Path, name: str, part: str) -> Path:
    """A kit file read only when needed: "texts", "lists" or "series"."""
    return folder / f"quick-{name}-{part}.pickle"


def _load_part(folder: Path, name: str, kit: Kit, part: str, kind: type[_T]) -> _T:
    """The kit file `part` (`_part_path`) of `kit`; NotQuick if it is missing, unreadable, not
    a `kind` or another kit's."""
    try:
        stamp, owner, token, value = load_signed(_part_path(folder, name, part))
    except UNREADABLE:
        value = None
    else:
        if (stamp, owner, token) != (_stamp(), name, kit.token):
            value = None
    if not isinstance(value, kind):
        raise NotQuick(f"the quick-rebuild kit's {part} file is missing or unreadable")
    return value


def _load_series(folder: Path, name: str, kit: Kit) -> dict[tuple[str, str], SeriesKit]:
    return _load_part(folder, name, kit, "series", dict)


def _load_lists(folder: Path, name: str, kit: Kit) -> ListsKit:
    return _load_part(folder, name, kit, "lists", ListsKit)


def _text_kits(site: Site, texts: dict[str, Any]) -> dict[str, TextKit]:
    from bipub.render import urls
    from bipub.render.llms import Lines

    out = {}
    for path, value in texts.items():
        if isinstance(value, Lines):
            parts = path.split("/")
            lang = parts[0] if len(parts) > 1 else site.config.default_language
            kind = "full" if parts[-1] == "llms-full.txt" else "lines"
            out[path] = TextKit(kind, lang, _pack(value.lines), value.posts)
        else:  # posts.json: (entry key, record) pairs
            lang = next(code for code in site.config.codes if urls.api(code, "posts")[1:] == path)
            posts = {key: i for i, (key, _) in enumerate(value)}
            out[path] = TextKit("records", lang, _pack([text for _, text in value]), posts)
    return out


def meta_rest(doc: Document) -> str:
    """A digest of a document's front matter without its title and description: equal digests,
    the same site but for what shows those two (the post's pages and cards, the feeds, posts.json
    and the llms files). Worked out when the document is parsed and kept with it in the build
    cache (`Document.meta_rest`): a full build's kit needs it for every document."""
    return doc.meta_rest


def version_states(entry: Entry) -> tuple[VersionState, ...]:
    return tuple(
        (lang, v.doc.rel, v.state, v.stale_keys, v.draft_keys)
        for lang, v in sorted(entry.versions.items())
    )


def _digest(parts: list[Any], reusable: bool) -> str:
    """A shard's key: what it is made of; a random one when that cannot be told (no page
    fingerprints), so the shard is written again."""
    if not reusable:
        return secrets.token_hex(32)
    return hashlib.sha256(repr((_stamp(), parts)).encode("utf-8")).hexdigest()


def _save_shard(
    path: Path, name: str, key: str, make: Callable[[Any], dict[Any, Any]], members: Any
) -> None:
    """Write a shard unless the file there already holds this key (its first 64 bytes)."""
    try:
        with open(path, "rb") as f:
            if f.read(64) == key.encode("ascii"):
                return
    except OSError:
        pass
    save_signed(path, (_stamp(), name, key, make(members)), prefix=key.encode("ascii"))


def _load_texts(folder: Path, name: str, kit: Kit) -> dict[str, TextKit]:
    return _load_part(folder, name, kit, "texts", dict)


def _touched_path(folder: Path, name: str) -> Path:
    return folder / f"quick-{name}-touched.pickle"


def _save_touched(folder: Path, name: str, touched: Touched) -> None:
    save_signed(_touched_path(folder, name), (_stamp(), name, touched))


def _load_touched(folder: Path, name: str, kit: Kit) -> Touched | None:
    """What earlier quick rebuilds changed, or None if that cannot be told (then the full build
    runs: an edit undone since could not be put back everywhere)."""
    touched = _load(_touched_path(folder, name), name)
    if isinstance(touched, Touched) and touched.token == kit.token:
        return touched
    return None


def _load(path: Path, name: str) -> Any:
    try:
        stamp, owner, value = load_signed(path)
    except UNREADABLE:  # unreadable or unsigned: the full build runs and writes a new one
        return None
    if stamp != _stamp() or owner != name:
        return None
    return value


def _load_shard(path: Path, name: str, key: str) -> Any:
    """A shard written with `_save_shard`, if it is the one with `key` (else None)."""
    try:
        stamp, owner, shard_key, value = load_signed(path, skip=64)
    except UNREADABLE:
        return None
    if stamp != _stamp() or owner != name or shard_key != key:
        return None
    return value


# ---------------------------------------------------------------------------- the rebuild


# what pairing an entry warns about a document of it that was not edited (pair/site.py
# _pair_group: a translation's shared field, such as its date, that is not its source's)
PAIRING = "shared-differs"


class NotQuick(Exception):
    """Why this build cannot be a quick rebuild (the full build runs)."""


def rebuild(
    project: Project,
    target: Path,
    key: str,
    inputs: dict[str, uptodate.Identity],
    intact: Callable[[], bool],
    check_warnings: Callable[[list[Diagnostic]], None] = lambda warnings: None,
) -> Rebuilt:
    """Rebuild what the inputs edited since the last full build feed, from its kit. Raises
    NotQuick (nothing written) when only a full build can say what changed. `intact` says
    whether the output folder is as the last build left it (uptodate.Prescan: asked only
    before writing). The build's warnings go to `check_warnings` before anything is written
    (--strict raises there)."""
    name = _name(target, key)
    kit_file = project.cache / f"quick-{name}.pickle"
    if not kit_file.is_file():
        raise NotQuick("no quick-rebuild kit for these options yet")
    return _rebuild(project, target, name, key, inputs, kit_file, intact, check_warnings)


def _rebuild(
    project: Project,
    target: Path,
    name: str,
    key: str,
    inputs: dict[str, uptodate.Identity],
    kit_file: Path,
    intact: Callable[[], bool],
    check_warnings: Callable[[list[Diagnostic]], None],
) -> Rebuilt:
    kit = _load(kit_file, name)
    if not isinstance(kit, Kit) or kit.key != key:
        raise NotQuick("the quick-rebuild kit is unreadable or from another bipub")
    edited = _edited(kit, inputs)
    collector = Collector()
    docs = {rel: _load_doc(project, rel, collector) for rel in edited}
    for doc in docs.values():  # (as pair/site.py pair_site: its warnings are the file's)
        check_document_assets(project.root, doc, collector)
    retitled: set[str] = set()  # documents whose title, description, tags or dates changed
    relisted: set[str] = set()  # … whose tags or dates changed
    for rel, doc in docs.items():
        kind, _, head, rest, fixed = kit.docs[rel]
        if doc.head != head:
            if kind != "posts":
                raise NotQuick(f"{rel}: a page's front matter changed (its title is in the menu)")
            if meta_rest(doc) != rest:
                if doc.meta_fixed != fixed:
                    raise NotQuick(
                        f"{rel}: its front matter changed (more than title, description, tags or "
                        "dates)"
                    )
                if doc.meta.order is not None or any(  # issue 18: the order within a day
                    instant_of(d) is not None for d in (doc.meta.date, doc.meta.updated) if d
                ):  # (a full build places it: pair/site.py post_order_key)
                    raise NotQuick(f"{rel}: a post with a date-time or order: changed")
                relisted.add(rel)
            retitled.add(rel)
    tag_messages = None
    if retitled:
        _same_title_warnings(kit, {rel: docs[rel] for rel in retitled})
        tag_messages = _tag_spelling_messages(kit, {rel: docs[rel] for rel in retitled})
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for rel in edited:
        kind, entry_key, _, _, _ = kit.docs[rel]
        groups[(kind, entry_key)].append(rel)
    touched = _load_touched(project.cache, name, kit)
    if touched is None:  # (an edit undone since, of tags among others, could not be put back)
        raise NotQuick("the record of what earlier quick rebuilds changed is missing")
    for kind, entry_key, _ in touched.cards:
        if (kind, entry_key) not in groups:  # (an edited file stays edited: its identity moved)
            raise NotQuick(f"{kind}/{entry_key}: an earlier quick rebuild's edit was undone")
    entry_kits = _entry_kits(project, kit, name, list(groups))
    entries: list[tuple[EntryKit, Entry, dict[str, int]]] = []
    paired: list[Entry] = []
    units = []
    series_kits: dict[tuple[str, str], SeriesKit] | None = None
    in_series: list[tuple[EntryKit, Entry]] = []  # … whose card may differ from the kit's
    for ident, rels in groups.items():
        entry_kit = entry_kits[ident]
        entry, entry_units, minutes = _pair(project, kit, entry_kit, docs, collector)
        entries.append((entry_kit, entry, minutes))
        paired.append(entry)
        units.extend(entry_units)
        if entry_kit.series and (
            retitled.intersection(rels)
            or minutes
            or any((ident[0], ident[1], lang) in touched.cards for lang, _ in entry_kit.series)
        ):
            in_series.append((entry_kit, entry))
    _no_errors(collector)
    if in_series or touched.navs:
        series_kits = _load_series(project.cache, name, kit)
        _same_series(series_kits, in_series)
    from bipub.render.markdown import MarkdownCache

    blocks = _load_blocks(project)
    known = len(blocks)
    markdown = MarkdownCache(kit.config.outputs.raw_html, collector, blocks=blocks)
    files: list[tuple[str, bytes]] = []
    rendered = 0
    now = Touched(kit.token, frozenset(), frozenset())  # what differs from the kit after this
    html = kit.only is None or "html" in kit.only
    feeds = kit.only is None or "feeds" in kit.only  # (the sitemap with them)
    relist: Relist | None = None
    removed: list[str] = []
    page_counts = kit.pages
    if relisted or touched.relisted:
        relist = _relist(kit, _load_lists(project.cache, name, kit), paired, touched)
        removed = relist.removed if html else []
        page_counts = relist.page_counts(kit.pages) if html else kit.pages
        now = replace(now, tags=relist.tags, chunks=frozenset(relist.chunks), relisted=True)
    if html:
        pages, cards, navs = _pages(
            project, kit, name, entries, docs, markdown, touched, relist, series_kits, collector
        )
        files += pages
        rendered = len(files)
        now = replace(now, cards=frozenset(cards), navs=frozenset(navs))
    differ: set[str] = set()  # feeds, sitemap, posts.json and llms files that now differ
    if feeds:
        feed_files, feeds_differ = _feeds(kit, docs, paired, markdown, relist, touched)
        files += feed_files
        differ |= feeds_differ
        if relist is not None and relist.sitemap is not None:
            files.append(("sitemap.xml", relist.sitemap))
            differ.add("sitemap.xml")  # (a superset: it may be the kit's again)
    if kit.only is None or "json" in kit.only:
        files += _status(kit, list(groups), units)
    kinds = [
        text_kind
        for text_kind, output_kind in (("records", "json"), ("lines", "llms"), ("full", "llms"))
        if kit.only is None or output_kind in kit.only
    ]
    if kinds and (retitled or touched.texts):  # else no item can change
        texts = _load_texts(project.cache, name, kit)
        text_files, texts_differ = _texts(kit, texts, paired, touched, relist, *kinds)
        files += text_files
        differ |= texts_differ
    now = replace(now, texts=frozenset(differ))
    _no_errors(collector)
    from bipub.write.output import remove_files, replace_files

    edited_set = set(edited)
    # the other documents of the edited entries were paired again: what pairing warns about
    # them (a translation's date that is not its source's any more) is found again too
    paired_again = {(doc.rel, PAIRING) for e in paired for doc in e.docs.values()}

    def found_again(w: Diagnostic) -> bool:
        return w.file in edited_set or (w.file, w.code) in paired_again

    warnings = [w for w in kit.warnings if not found_again(w)]
    warnings += [w for w in collector.warnings if found_again(w)]
    if tag_messages is not None:  # (they name files and lines: issue 18)
        warnings = [w for w in warnings if w.code != "tag-spellings"]
        warnings += [
            Diagnostic(None, None, "tag-spellings", m, Severity.WARNING) for m in tag_messages
        ]
    warnings = sorted(set(warnings), key=lambda d: (d.file or "", d.line or 0, d.message))
    check_warnings(warnings)
    if not intact():
        raise NotQuick("the output folder is not as the last build left it")
    if not (
        now.cards <= touched.cards
        and now.texts <= touched.texts
        and now.tags <= touched.tags
        and now.chunks <= touched.chunks
        and now.relisted <= touched.relisted
        and now.navs <= touched.navs
    ):
        # before writing, a record that covers both what was and what will be (a kill while
        # writing leaves the next rebuild knowing all it may have to put back)
        _save_touched(
            project.cache,
            name,
            Touched(
                kit.token,
                touched.cards | now.cards,
                touched.texts | now.texts,
                touched.tags | now.tags,
                touched.chunks | now.chunks,
                touched.relisted or now.relisted,
                touched.navs | now.navs,
            ),
        )
    written = replace_files(target, files)
    gone = remove_files(target, removed)
    if now != touched:
        _save_touched(project.cache, name, now)
    if len(blocks) != known:
        _save_blocks(project, blocks)
    return Rebuilt(sorted(edited), rendered, written, warnings, page_counts, gone)


BLOCKS_FILE = "quick-blocks.pickle"
MAX_BLOCKS = 2048


def _blocks_stamp() -> tuple[int, str, str]:
    from pygments import __version__ as pygments_version

    return (KIT_FORMAT, _stamp()[1], pygments_version)


def _load_blocks(project: Project) -> dict[tuple[str, str], str | None]:
    """Code blocks highlighted by earlier quick rebuilds: editing a post again and again
    re-highlights nothing (compiling a Pygments lexer's patterns costs more than the rest of
    a quick rebuild)."""
    path = project.cache / BLOCKS_FILE
    try:
        stamp, blocks = load_signed(path)
    except UNREADABLE:  # none yet, unreadable or unsigned: start empty
        return {}
    return blocks if stamp == _blocks_stamp() and isinstance(blocks, dict) else {}


def _save_blocks(project: Project, blocks: dict[tuple[str, str], str | None]) -> None:
    keep = dict(list(blocks.items())[-MAX_BLOCKS:])  # the newest
    save_signed(project.cache / BLOCKS_FILE, (_blocks_stamp(), keep))


def _no_errors(collector: Collector) -> None:
    """An error while rebuilding quickly: the full build runs and reports it properly."""
    if collector.errors:
        first = collector.errors[0]
        raise NotQuick(f"{first.location()}: {first.message}")


def _is_dir(ident: uptodate.Identity) -> bool:
    return stat.S_ISDIR(uptodate.mode(ident))


def _edited(kit: Kit, inputs: dict[str, uptodate.Identity]) -> list[str]:
    """The input files that differ from the kit's (folders only count through their files)."""
    old, new = kit.inputs, inputs
    if old.keys() != new.keys():
        old_files = {p for p, ident in old.items() if not _is_dir(ident)}
        new_files = {p for p, ident in new.items() if not _is_dir(ident)}
        if old_files != new_files:
            changed = sorted(old_files ^ new_files)
            more = " …" if changed[1:] else ""
            raise NotQuick(f"files were added or removed ({changed[0]}{more})")
    edited = []
    for p, ident in new.items():
        if ident != old.get(p):
            if _is_dir(ident) and p in old and _is_dir(old[p]):
                continue  # a folder's own identity (an editor's save renames into it)
            edited.append(p)  # (a folder where a file was is caught below: not a document)
    edited.sort()
    if len(edited) > MAX_EDITED:
        raise NotQuick(f"{len(edited)} files changed since the last full build")
    for rel in edited:
        if rel not in kit.docs:
            raise NotQuick(f"{rel} changed (only posts and pages are rebuilt quickly)")
        if not stat.S_ISREG(uptodate.mode(new[rel])):
            raise NotQuick(f"{rel} is no longer a regular file")
    return edited


def _load_doc(project: Project, rel: str, collector: Collector) -> Document:
    from bipub.load.content import load_document

    doc = load_document(project.root, rel, collector)
    if doc is None:
        raise NotQuick(f"{rel} does not load (the full build reports why)")
    return doc


def _from_shards(
    project: Project, name: str, stem: str, keys: list[str], shards: set[int]
) -> dict[Any, Any]:
    """The kits kept in these shards of the kit (entries: stem "", listings: "list-")."""
    found: dict[Any, Any] = {}
    for shard in sorted(shards):
        kits = _load_shard(_shard_path(project.cache, name, stem, shard), name, keys[shard])
        if not isinstance(kits, dict):
            raise NotQuick("a quick-rebuild kit file is missing or unreadable")
        found.update(kits)
    return found


def _shard_path(folder: Path, name: str, stem: str, shard: int) -> Path:
    return folder / f"quick-{name}-{stem}{shard:02d}.pickle"


def _entry_kits(
    project: Project, kit: Kit, name: str, idents: list[tuple[str, str]]
) -> dict[tuple[str, str], EntryKit]:
    shards = {_shard(*ident) for ident in idents}
    found = _from_shards(project, name, "", kit.entry_shards, shards)
    missing = [ident for ident in idents if ident not in found]
    if missing:
        raise NotQuick(f"{missing[0][0]}/{missing[0][1]} is not in the quick-rebuild kit")
    return found


def _pair(
    project: Project,
    kit: Kit,
    entry_kit: EntryKit,
    edited: dict[str, Document],
    collector: Collector,
) -> tuple[Entry, list[Any], dict[str, int]]:
    """Pair the edited entry again: its translation states must not change. Returns it, its
    units and the new reading time of each language whose card shows another one."""
    from bipub.pair.site import pair_entry

    docs: dict[str, Document] = {}
    for rel in entry_kit.rels:
        doc = edited.get(rel) or _load_doc(project, rel, collector)
        docs[doc.lang] = doc
    kind: Kind = "posts" if entry_kit.kind == "posts" else "pages"
    entry, units = pair_entry(kit.config, kind, entry_kit.key, docs, kit.status, collector)
    where = next(rel for rel in entry_kit.rels if rel in edited)
    if entry is None:
        raise NotQuick(f"{where}: {entry_kit.kind}/{entry_kit.key} does not pair any more")
    if version_states(entry) != entry_kit.versions:
        raise NotQuick(f"{where}: the edit changes what a language shows or a translation state")
    if entry_kit.pdf:
        raise NotQuick(f"{where}: the post has a PDF")
    before = dict(entry_kit.minutes)
    changed: dict[str, int] = {}
    for lang, version in entry.versions.items():
        doc = version.doc
        if doc.rel in edited:
            minutes = doc.reading_minutes
            if minutes != before.get(doc.rel):
                changed[lang] = minutes
    return entry, units, changed


def _title_lines(entries: list[Entry]) -> dict[str, tuple[str, str, int | None]]:
    """Kit.titles: what the title-prefix warnings of a full build read."""
    return {
        doc.rel: (lang, doc.meta.title, doc.line_of("title"))
        for entry in entries
        if entry.kind == "posts"
        for lang, doc in entry.docs.items()
    }


def _tag_spelling_messages(kit: Kit, edited: dict[str, Document]) -> list[str]:
    """The tag-spelling warnings with the edited documents' tags (their lines may have moved).
    Raises NotQuick if a tag's spellings change (what its pages show may change)."""
    places: TagPlaces = {
        slug: {spelling: dict(where) for spelling, where in spellings.items()}
        for slug, spellings in kit.tag_places.items()
    }
    for spellings in places.values():
        for where in spellings.values():
            for rel in edited:
                where.pop(rel, None)
    for doc in edited.values():
        if doc.kind == "posts" and not doc.meta.draft and "tags" in doc.meta.model_fields_set:
            add_tag_places(places, doc)
    for slug in kit.tag_places.keys() | places.keys():
        then = {t for t, where in kit.tag_places.get(slug, {}).items() if where}
        now = {t for t, where in places.get(slug, {}).items() if where}
        if then != now and len(then | now) > 1:
            raise NotQuick(f"the spellings of tag '{slug}' change")
    places = {
        slug: {t: where for t, where in spellings.items() if where}
        for slug, spellings in places.items()
    }
    return tag_spelling_warnings(kit.config, places, kit.tag_shown)


def _same_title_warnings(kit: Kit, edited: dict[str, Document]) -> None:
    """Raises NotQuick if the edited documents change a title-prefix warning (pair/site.py,
    issue 18)."""
    from bipub.pair.site import title_prefix_warnings

    for lang in sorted({kit.titles[rel][0] for rel in edited if rel in kit.titles}):
        then = [(t, rel, line) for rel, (code, t, line) in kit.titles.items() if code == lang]
        now = [
            (edited[rel].meta.title, rel, edited[rel].line_of("title")) if rel in edited else item
            for item in then
            for rel in (item[1],)
        ]
        if title_prefix_warnings(lang, then) != title_prefix_warnings(lang, now):
            raise NotQuick(f"[{lang}] the warning about title prefixes changes")


def _same_series(
    series_kits: dict[tuple[str, str], SeriesKit], in_series: list[tuple[EntryKit, Entry]]
) -> None:
    """Raises NotQuick, naming the edited files, if the edited posts' new dates move a post in
    its series (every member's series box and the series page in another order, and the page's
    route and alternates may change), or their new titles change a series' title-prefix
    warning (`in_series`: the edited posts in a series)."""
    from bipub.pair.site import series_order_key, series_prefix_warning

    edited = {entry.key: entry for _, entry in in_series}
    for lang, slug in sorted({ident for entry_kit, _ in in_series for ident in entry_kit.series}):
        series = series_kits.get((lang, slug))
        if series is None:
            raise NotQuick(f"series '{slug}' [{lang}] is not in the quick-rebuild kit")
        orders: list[tuple[int, dt.date, str]] = []
        then: list[tuple[str, str]] = []
        now: list[tuple[str, str]] = []
        moved, retitled = [], []
        for member in series.members:
            then.append((member.title, member.rel))
            entry = edited.get(member.key)
            if entry is None:
                orders.append(member.order)
                now.append((member.title, member.rel))
                continue
            doc = entry.versions[lang].doc
            orders.append(series_order_key(entry))
            now.append((doc.meta.title, doc.rel))
            if orders[-1] != member.order:
                moved.append(entry.source.rel)  # (the dates are the source's)
            if doc.meta.title != member.title:
                retitled.append(doc.rel)
        if [order[2] for order in sorted(orders)] != [m.key for m in series.members]:
            raise NotQuick(
                f"{', '.join(moved)}: a new date moves a post in series '{series.name}' [{lang}]"
            )
        if series_prefix_warning(lang, series.name, then) != series_prefix_warning(
            lang, series.name, now
        ):
            raise NotQuick(
                f"{', '.join(retitled)}: the warning about the title prefixes of series "
                f"'{series.name}' [{lang}] changes"
            )


def _pages(
    project: Project,
    kit: Kit,
    name: str,
    entries: list[tuple[EntryKit, Entry, dict[str, int]]],
    edited: dict[str, Document],
    markdown: Any,
    touched: Touched,
    relist: Relist | None,
    series_kits: dict[tuple[str, str], SeriesKit] | None,
    collector: Collector,
) -> tuple[list[tuple[str, bytes]], set[tuple[str, str, str]], set[tuple[str, str]]]:
    """The edited documents' pages, the pages of a post whose card changed (a new title,
    description, reading time, tags or dates), the listings whose posts changed (`relist`),
    the listings and series pages whose card of the post differs from the kit's or did after
    an earlier quick rebuild (`touched`), and every page of a series whose member's title
    differs from the kit's or did (its series box), rendered as the full build renders them.
    Returns them, the cards that now differ from the kit's and the series whose boxes do."""
    from bipub.render import urls
    from bipub.render.html import series_nav, with_body
    from bipub.render.templates import bytecode_cache, site_environment
    from bipub.render.views import PostCard

    bytecode = bytecode_cache(user_cache_dir() / "jinja")
    envs: dict[str, Any] = {}

    def render(template: str, lang: str, context: dict[str, Any]) -> str:
        env = envs.get(lang)
        if env is None:  # catalog warnings are the kit's already
            env = envs[lang] = site_environment(
                project, lang, Collector(), bytecode, warn_untranslated=False
            )
        try:
            return str(env.get_template(template).render(context))
        except Exception as exc:  # the full build reports it with file and line
            raise NotQuick(f"{template}: {type(exc).__name__}") from exc

    def post_page(page: PageKit, doc: Document, shell: PostView) -> tuple[str, bytes]:
        meta = replace(page.meta, title=doc.meta.title, description=doc.meta.description or "")
        post_context: dict[str, Any] = {
            "site": kit.site_views[page.lang],
            "page": meta,
            "post": with_body(shell, markdown(doc)),
        }
        return (page.path, render(page.template, page.lang, post_context).encode("utf-8"))

    out = []
    cards: dict[tuple[str, str], PostCard] = {}  # (entry key, language) → its new card
    titles: dict[tuple[str, str], str] = {}  # (entry key, language) → its title now
    differ: set[tuple[str, str, str]] = set()
    listing_paths: set[str] = set()
    series_pages: set[tuple[str, str]] = set()  # (language, series slug) to render again
    navs: set[tuple[str, str]] = set()  # … whose series box differs from the kit's
    planned: list[tuple[PageKit, Document, PostView, bool]] = []  # the edited entries' pages
    for entry_kit, entry, minutes in entries:
        in_series = dict(entry_kit.series)
        for page in entry_kit.pages:
            doc = entry.versions[page.lang].doc
            shell = page.shell
            card = replace(
                shell.card,
                title=doc.meta.title,  # as render/html.py _make_card and _plan_entry take them
                description=doc.meta.description or "",
                reading_minutes=minutes.get(page.lang, shell.card.reading_minutes),
                tags=relist.card_tags(entry, page.lang) if relist else shell.card.tags,
                date=entry.date,
                updated=entry.updated,
            )
            ident = (entry_kit.kind, entry_kit.key, page.lang)
            new_card = card != shell.card
            if new_card:
                cards[(entry_kit.key, page.lang)] = card
                shell = replace(shell, card=card)
                differ.add(ident)
            titles[(entry_kit.key, page.lang)] = card.title
            again = new_card or ident in touched.cards
            if again:
                listing_paths.update(p for lang, p in entry_kit.listings if lang == page.lang)
            slug = in_series.get(page.lang)
            if slug is not None:
                if again:
                    series_pages.add((page.lang, slug))
                if card.title != page.shell.card.title:
                    navs.add((page.lang, slug))
            planned.append((page, doc, shell, doc.rel in edited or again))
    # the series boxes of every member of a series whose member's title differs or did
    boxes: dict[tuple[str, str], SeriesNav] = {}  # (entry key, language) → its series box
    if series_pages or navs or touched.navs:
        if series_kits is None:  # (cannot be: loaded for each edited member and touched.navs)
            raise NotQuick("the series of the quick-rebuild kit were not read")
        url = urls.UrlBuilder(kit.config.base_url)
        for lang, slug in sorted(navs | touched.navs):
            series = series_kits[(lang, slug)]
            shown = [(m.slug, titles.get((m.key, lang), m.title)) for m in series.members]
            for i, member in enumerate(series.members):
                boxes[(member.key, lang)] = series_nav(
                    url, lang, series.name, series.slug, shown, i
                )
    for page, doc, shell, again in planned:
        box = boxes.pop((page.shell.card.key, page.lang), None)
        if box is not None:
            shell = replace(shell, series_nav=box)
        elif not again:
            continue  # shows another document of the entry, the same card and series box
        out.append(post_page(page, doc, shell))
    if boxes:  # the other members' pages, with the new series box
        members = _entry_kits(project, kit, name, sorted({("posts", key) for key, _ in boxes}))
        for (key, lang), box in sorted(boxes.items()):
            page = next(p for p in members[("posts", key)].pages if p.lang == lang)
            doc = _load_doc(project, page.doc, collector)
            out.append(post_page(page, doc, replace(page.shell, series_nav=box)))
    if series_pages and series_kits is not None:
        out += _series_pages(kit, series_kits, sorted(series_pages), cards, render)
    done: set[str] = set()
    chunks: dict[str, tuple[str, list[str]]] = {}
    if relist is not None:
        for path, template, lang, context in relist.pages(cards):
            context.update(site=kit.site_views[lang])
            out.append((path, render(template, lang, context).encode("utf-8")))
        done = relist.paths
        chunks = relist.chunks
        listing_paths.update(chunks)
    for listing in _listing_kits(project, kit, name, sorted(listing_paths - done)):
        context = dict(listing.context)
        listed: list[Any] = context["posts"]
        chunk = chunks.get(listing.path)
        if chunk is not None and relist is not None:  # other posts than the kit's
            lang, keys = chunk
            context["posts"] = [relist.card(lang, key, cards) for key in keys]
        else:
            context["posts"] = [
                cards.get((card.key, listing.lang), card) if isinstance(card, PostCard) else card
                for card in listed
            ]
        context.update(site=kit.site_views[listing.lang], page=listing.meta)
        html = render(listing.template, listing.lang, context)
        out.append((listing.path, html.encode("utf-8")))
    return out, differ, navs


def _series_pages(
    kit: Kit,
    series_kits: dict[tuple[str, str], SeriesKit],
    which: list[tuple[str, str]],
    cards: dict[tuple[str, str], PostCard],
    render: Callable[[str, str, dict[str, Any]], str],
) -> list[tuple[str, bytes]]:
    """The pages of these series (language, slug) with the edited posts' new `cards`, their
    context made by render/html.py `series_context` from stand-ins of their members."""
    from bipub.pair.site import Series, Site
    from bipub.render import urls
    from bipub.render.html import HtmlRenderer

    renderer = HtmlRenderer(
        Site(kit.config, {}, [], [], {}), _no_body, urls.UrlBuilder(kit.config.base_url)
    )
    out = []
    for lang, slug in which:
        series = series_kits[(lang, slug)]
        if series.meta is None:  # (cannot be: series pages are rendered only with HTML)
            raise NotQuick(f"series '{slug}' [{lang}]: the kit has no page of it")
        for member in series.members:
            card = cards.get((member.key, lang), member.card)
            if card is None:
                raise NotQuick(f"series '{slug}' [{lang}]: the kit has no card of {member.key}")
            renderer._cards[("posts", member.key, lang)] = card
        stand_ins = tuple(_Listed("posts", m.key) for m in series.members)
        context = renderer.series_context(
            lang,
            Series(lang, slug, series.name, stand_ins),  # type: ignore[arg-type]
        )
        context.update(site=kit.site_views[lang], page=series.meta)
        out.append((series.path, render(series.template, lang, context).encode("utf-8")))
    return out


@dataclass(frozen=True)
class _Listed:
    """A post on a tag page, as render/html.py `plan_tag` needs it (its card is given)."""

    kind: str
    key: str


@dataclass
class Relist:
    """What the edited posts' new tags and dates change in the listings (`_relist`), from the
    kit's lists and what earlier quick rebuilds changed (`Touched.tags`, `Touched.chunks`)."""

    renderer: HtmlRenderer  # of the tags alone: plans and views the tag pages
    plan: Plan  # the tag cloud of every language; every page of the tags rendered again
    kit: ListsKit
    render: list[tuple[str, str]]  # (language, output path) of the planned pages to render
    paths: set[str]  # every tag page path rendered or removed from the plan
    removed: list[str]  # the tag pages that are no longer
    delta: dict[str, int]  # language → how many pages more it has
    chunks: dict[str, tuple[str, list[str]]]  # listing kept in the kit → (language, its posts)
    orders: dict[str, list[str]]  # language → its posts now, newest first (where they moved)
    dates: dict[str, dict[str, Dates]]  # language → entry key → its dates now (edited ones)
    sitemap: bytes | None  # when a tag page came or went, or a post's date changed
    tags: frozenset[tuple[str, str, int, int]]  # for `Touched`

    def card_tags(self, entry: Entry, lang: str) -> tuple[Any, ...]:
        return self.renderer.card_tags(entry, lang)

    def page_counts(self, pages: dict[str, int]) -> dict[str, int]:
        return {lang: count + self.delta.get(lang, 0) for lang, count in pages.items()}

    def order(self, lang: str) -> list[str]:
        found = self.orders.get(lang)
        return found if found is not None else self.kit.langs[lang].order

    def date_of(self, lang: str, key: str) -> Dates:
        found = self.dates.get(lang, {}).get(key)
        return found if found is not None else self.kit.langs[lang].dates[key]

    def card(self, lang: str, key: str, cards: dict[tuple[str, str], PostCard]) -> PostCard:
        return cards.get((key, lang)) or self.kit.langs[lang].card(key)

    def pages(
        self, cards: dict[tuple[str, str], PostCard]
    ) -> list[tuple[str, str, str, dict[str, Any]]]:
        """(output path, template, language, context but `site`) of each planned page to render;
        `cards` are the edited posts' cards (the others are the kit's)."""
        from bipub.render import urls

        renderer, plan = self.renderer, self.plan
        by_path = {
            (lang, urls.output_file(spec.path)): spec
            for specs in plan.routes.values()
            for lang, spec in specs.items()
        }
        out = []
        for lang, path in self.render:
            spec = by_path[(lang, path)]
            for key in spec.lists:
                renderer._cards[("posts", key, lang)] = self.card(lang, key, cards)
            context = {"page": renderer.page_meta(plan, spec), **spec.context()}
            out.append((path, spec.template, lang, context))
        return out


def _pages_of(count: int, per_page: int) -> int:
    return -(-count // per_page) if count else 0


def _chunk(keys: list[str], n: int, per_page: int) -> list[str]:
    return keys[(n - 1) * per_page : n * per_page]


def _relist(kit: Kit, lists: ListsKit, paired: list[Entry], touched: Touched) -> Relist:
    """The posts and tags of each language after the edited posts' tags and dates changed: the
    tag pages to plan and render again or remove, and the home, blog and tag pages kept in the
    kit that now list other posts. Raises NotQuick when a tag's name or spellings change (every
    card that shows the tag, and the build's warnings, would change)."""
    from bipub.model.fields import slugify
    from bipub.pair.site import Site, Tag, _tags_of
    from bipub.render import urls
    from bipub.render.feeds import route_order, route_part, sitemap_join
    from bipub.render.html import HtmlRenderer, Plan

    config = kit.config
    per_page = config.posts_per_page
    tags: dict[str, dict[str, Tag]] = {}
    members: dict[tuple[str, str], list[str]] = {}  # (language, slug) → its posts, where changed
    counted: set[tuple[str, str]] = set()  # … whose number of posts changed
    orders: dict[str, list[str]] = {}
    dates: dict[str, dict[str, Dates]] = {}
    lastmods: dict[str, tuple[str, str]] = {}  # entry key → its sitemap lastmod, then and now
    for lang, lang_lists in lists.langs.items():
        listed = [e for e in paired if e.kind == "posts" and e.key in lang_lists.rank]
        # (an edited post not listed in this language stays so: its states did not change)
        lang_dates = dates[lang] = {e.key: (e.date, e.updated) for e in listed}
        moved = {e.key for e in listed if e.date != lang_lists.dates[e.key][0]}
        for e in listed:
            before, now = (_lastmod(lang_lists.dates[e.key]), _lastmod(lang_dates[e.key]))
            if before != now:
                lastmods[e.key] = (before, now)
        rank = lang_lists.rank
        if moved:
            order = [key for key in lang_lists.order if key not in moved]
            for key in sorted(moved):  # (as pair/site.py Site.posts sorts them)
                at = _sort_key(lang_dates[key][0], key)
                lo, hi = 0, len(order)  # the first place whose post sorts after it (newest first)
                while lo < hi:
                    mid = (lo + hi) // 2
                    if _sort_key(_day(lang_lists, lang_dates, order[mid]), order[mid]) < at:
                        hi = mid
                    else:
                        lo = mid + 1
                order.insert(lo, key)
            orders[lang] = order
            rank = {key: i for i, key in enumerate(order)}
        spellings: dict[str, dict[str, int]] = {}
        joined: dict[str, set[str]] = defaultdict(set)
        left: dict[str, set[str]] = defaultdict(set)
        resorted: set[str] = set()
        for entry in listed:
            old = lang_lists.written[entry.key]
            new = tuple(_tags_of(entry, lang))
            if entry.key in moved:
                resorted.update(slugify(t) for t in old + new)
            if old == new:
                continue
            for spelling, step in [(t, -1) for t in old] + [(t, 1) for t in new]:
                slug = slugify(spelling)
                if not slug:  # (the full build reports it)
                    rel = entry.versions[lang].doc.rel
                    raise NotQuick(f"{rel}: tags: {spelling!r} is empty")
                counts = spellings.get(slug)
                if counts is None:
                    counts = spellings[slug] = dict(lang_lists.spellings.get(slug, {}))
                counts[spelling] = counts.get(spelling, 0) + step
            old_slugs = {slugify(t) for t in old}
            new_slugs = {slugify(t) for t in new}
            for slug in new_slugs - old_slugs:
                joined[slug].add(entry.key)
            for slug in old_slugs - new_slugs:
                left[slug].add(entry.key)
        lang_now = dict(lang_lists.tags)
        for slug, counts in spellings.items():  # (as pair/site.py _collect_tags)
            ranked = sorted(((t, c) for t, c in counts.items() if c > 0), key=_by_use)
            name = config.preferred_tag(slug) or (ranked[0][0] if ranked else "")
            tag = Tag(slug, name, tuple(t for t, _ in ranked)) if ranked else None
            before_tag = lang_lists.tags.get(slug)
            if tag != before_tag:
                came = before_tag is None and tag is not None and len(tag.spellings) == 1
                went = tag is None and before_tag is not None and len(before_tag.spellings) == 1
                if not (came or went):
                    raise NotQuick(f"[{lang}] the name or spellings of tag '{slug}' change")
            if tag is None:
                lang_now.pop(slug, None)
            else:
                lang_now[slug] = tag
        tags[lang] = dict(sorted(lang_now.items()))
        for slug in joined.keys() | left.keys() | resorted:
            came_in, went_out = joined.get(slug, set()), left.get(slug, set())
            now_set = (set(lang_lists.members.get(slug, ())) - went_out) | came_in
            members[(lang, slug)] = sorted(now_set, key=rank.__getitem__)
            if came_in or went_out:
                counted.add((lang, slug))

    def now_of(lang: str, slug: str) -> list[str]:
        found = members.get((lang, slug))
        return found if found is not None else lists.langs[lang].members.get(slug, [])

    def kit_pages(lang: str, slug: str) -> int:
        return _pages_of(len(lists.langs[lang].members.get(slug, ())), per_page)

    bounds: dict[tuple[str, str], tuple[int, int]] = {}  # (language, slug) → fewest, most pages
    for lang, slug in counted:
        bounds[(lang, slug)] = (kit_pages(lang, slug), kit_pages(lang, slug))
    for lang, slug, lo, hi in touched.tags:
        fewest, most = bounds.get((lang, slug), (kit_pages(lang, slug), kit_pages(lang, slug)))
        bounds[(lang, slug)] = (min(fewest, lo), max(most, hi))
    url = urls.UrlBuilder(config.base_url)
    site = Site(config, {}, [], [], {}, tags=tags)
    renderer = HtmlRenderer(site, _no_body, url)
    plan = Plan()
    for lang in config.codes:
        counts_now = {slug: len(now_of(lang, slug)) for slug in tags[lang]}
        renderer.plan_tag_cloud(plan, lang, tags[lang], counts_now)
    for slug in sorted({slug for _, slug in bounds}):
        for lang in config.codes:
            shown = tags[lang].get(slug)
            if shown is not None:
                stand_ins = [_Listed("posts", key) for key in now_of(lang, slug)]
                renderer.plan_tag(plan, lang, shown, stand_ins)  # type: ignore[arg-type]
    render: list[tuple[str, str]] = []
    paths: set[str] = set()
    removed: list[str] = []
    delta: dict[str, int] = defaultdict(int)
    record: set[tuple[str, str, int, int]] = set()
    came_or_went: set[str] = set()
    for (lang, slug), (lo, hi) in sorted(bounds.items()):
        pages_now = _pages_of(len(now_of(lang, slug)), per_page)
        lo, hi = min(lo, pages_now), max(hi, pages_now)
        record.add((lang, slug, lo, hi))
        delta[lang] += pages_now - kit_pages(lang, slug)
        if lo == 0:
            came_or_went.add(slug)
        for n in range(1, hi + 1):
            path = urls.output_file(urls.tag(lang, slug, n))
            paths.add(path)
            if n <= pages_now:
                render.append((lang, path))
            else:
                removed.append(path)
        for other in config.codes:  # their pages whose counterpart in `lang` came or went
            if other == lang or (other, slug) in bounds:
                continue
            has = _pages_of(len(now_of(other, slug)), per_page)
            for n in range(lo + 1, min(hi, has) + 1):
                path = urls.output_file(urls.tag(other, slug, n))
                if path not in paths:
                    paths.add(path)
                    render.append((other, path))
    for lang in sorted({lang for lang, _ in bounds}):
        render.append((lang, urls.output_file(urls.tags(lang))))
    # the listing pages kept in the kit (their number did not change) that list other posts
    # now, or did after an earlier quick rebuild
    chunks: dict[str, tuple[str, list[str]]] = {}
    latest = config.outputs.latest_posts
    for lang, lang_lists in lists.langs.items():
        order_now = orders.get(lang)
        if order_now is not None:
            if order_now[:latest] != lang_lists.order[:latest]:
                chunks[urls.output_file(urls.home(lang))] = (lang, order_now[:latest])
            for n in range(1, _pages_of(len(order_now), per_page) + 1):
                if _chunk(order_now, n, per_page) != _chunk(lang_lists.order, n, per_page):
                    chunks[urls.output_file(urls.blog(lang, n))] = (
                        lang,
                        _chunk(order_now, n, per_page),
                    )
        for (of_lang, slug), keys in members.items():
            if of_lang != lang or (lang, slug) in bounds:
                continue  # (a tag whose number of posts changed is planned above)
            before_keys = lang_lists.members.get(slug, [])
            for n in range(1, _pages_of(len(keys), per_page) + 1):
                if _chunk(keys, n, per_page) != _chunk(before_keys, n, per_page):
                    chunks[urls.output_file(urls.tag(lang, slug, n))] = (
                        lang,
                        _chunk(keys, n, per_page),
                    )
    for path in touched.chunks:
        if path in chunks or path in paths:
            continue
        found = _listing_of(path, lists, config.codes, latest, per_page, orders, now_of)
        if found is None:  # (cannot be: the number of home and blog pages does not change,
            # and a tag page that came or went is planned above)
            raise NotQuick(f"{path}: a page an earlier quick rebuild changed is not there now")
        chunks[path] = found
    sitemap = None
    if (came_or_went or lastmods or "sitemap.xml" in touched.texts) and lists.sitemap is not None:
        parts = [part for part in lists.sitemap if not _tag_route(part[0], came_or_went)]
        for slug in sorted(came_or_went):
            route = ("tag", slug, "1")
            specs = plan.routes.get(route)
            if specs:
                parts.append(route_part(route, config.codes, specs, url, None))
        parts.sort(key=lambda part: route_order(part[0]))
        for i, (part_route, text, alternates) in enumerate(parts):
            if part_route[0] == "post" and part_route[1] in lastmods:
                then, now = lastmods[part_route[1]]
                if f"<lastmod>{then}</lastmod>" not in text:  # (every post has a date)
                    raise NotQuick(f"sitemap.xml: no lastmod {then!r} for post {part_route[1]}")
                text = text.replace(f"<lastmod>{then}</lastmod>", f"<lastmod>{now}</lastmod>")
                parts[i] = (part_route, text, alternates)
        sitemap = sitemap_join(parts)
    return Relist(
        renderer,
        plan,
        lists,
        render,
        paths,
        removed,
        dict(delta),
        chunks,
        orders,
        dates,
        sitemap,
        frozenset(record),
    )


def _day(lists: LangLists, dates: dict[str, Dates], key: str) -> dt.date | None:
    found = dates.get(key)
    return (found if found is not None else lists.dates[key])[0]


def _sort_key(day: dt.date | None, key: str) -> tuple[dt.date, str]:
    import datetime as dt

    return (day or dt.date.min, key)


def _lastmod(dates: Dates) -> str:
    day, updated = dates
    when = updated or day
    return when.isoformat() if when else ""


def _listing_of(
    path: str,
    lists: ListsKit,
    codes: list[str],
    latest: int,
    per_page: int,
    orders: dict[str, list[str]],
    now_of: Callable[[str, str], list[str]],
) -> tuple[str, list[str]] | None:
    """The language and posts now of a home, blog or tag page kept in the kit (a page an
    earlier quick rebuild changed), or None if there is no such page."""
    from bipub.render import urls

    for lang in codes:
        order = orders.get(lang, lists.langs[lang].order)
        if path == urls.output_file(urls.home(lang)):
            return (lang, order[:latest])
        for n in range(1, _pages_of(len(order), per_page) + 1):
            if path == urls.output_file(urls.blog(lang, n)):
                return (lang, _chunk(order, n, per_page))
        prefix = urls.output_file(urls.tags(lang)).removesuffix("index.html")
        if path.startswith(prefix):
            for slug in lists.langs[lang].tags:
                keys = now_of(lang, slug)
                for n in range(1, _pages_of(len(keys), per_page) + 1):
                    if path == urls.output_file(urls.tag(lang, slug, n)):
                        return (lang, _chunk(keys, n, per_page))
    return None


def _tag_route(route: tuple[str, ...], slugs: set[str]) -> bool:
    return route[0] == "tag" and route[1] in slugs


def _by_use(spelling: tuple[str, int]) -> tuple[int, str]:
    return (-spelling[1], spelling[0])


def _no_body(doc: Document) -> Any:
    raise AssertionError("a tag page shows no document's body")


def _listing_kits(project: Project, kit: Kit, name: str, paths: list[str]) -> list[ListingKit]:
    shards = {_list_shard(path) for path in paths}
    found = _from_shards(project, name, "list-", kit.list_shards, shards)
    missing = [path for path in paths if path not in found]
    if missing:
        raise NotQuick(f"{missing[0]} is not in the quick-rebuild kit")
    return [found[path] for path in paths]


def _feeds(
    kit: Kit,
    edited: dict[str, Document],
    entries: list[Entry],
    markdown: Any,
    relist: Relist | None,
    touched: Touched,
) -> tuple[list[tuple[str, bytes]], set[str]]:
    """The feeds with the edited posts' entries made again, in the posts' order now (`relist`):
    those that show an edited post, or differ from the kit's (`touched`). Returns them and the
    feeds whose posts or order now differ from the kit's."""
    from dataclasses import replace

    from bipub.render import urls
    from bipub.render.feeds import FEED_SIZE, feed_item, feed_updated, feed_xml

    url = urls.UrlBuilder(kit.config.base_url)
    out = []
    differ = set()
    for lang, (parts, bodies) in kit.feeds.items():
        path = urls.feed(lang)[1:]
        items = parts.items
        updated = parts.updated
        joined: dict[str, Document] = {}  # documents the kit's feed did not show
        if relist is not None and lang in relist.kit.langs:
            window = relist.order(lang)[:FEED_SIZE]
            kept = {kit.docs[item.rel][1]: item for item in items}
            new_items = []
            for key in window:
                entry = next((e for e in entries if e.key == key and e.kind == "posts"), None)
                if entry is not None:
                    new_items.append(feed_item(entry, lang, url))
                    doc = entry.versions[lang].doc
                    if doc.rel not in bodies:
                        joined[doc.rel] = doc
                elif key in kept:
                    new_items.append(kept[key])
                else:  # (the kit keeps the entries of the posts in the feed only)
                    raise NotQuick(f"{urls.feed(lang)[1:]}: a post the feed did not show joins it")
            items = tuple(new_items)
            updated = feed_updated([relist.date_of(lang, key) for key in window])
            if items != parts.items or updated != parts.updated:  # (its posts, order or dates)
                differ.add(path)
        shown = [item.rel for item in items if item.rel in edited]
        if shown or path in differ or path in touched.texts:
            new = dict(bodies)
            for rel in shown:
                new[rel] = markdown(edited[rel]).html
            for rel, doc in joined.items():
                new[rel] = markdown(doc).html
            items = tuple(
                replace(
                    item,
                    title=edited[item.rel].meta.title,
                    summary=edited[item.rel].meta.description,
                    tags=tuple(edited[item.rel].meta.tags),
                )
                if item.rel in edited
                else item
                for item in items
            )  # (as render/feeds.py feed_item takes them)
            out.append((path, feed_xml(replace(parts, items=items, updated=updated), new)))
    return out, differ


def _texts(
    kit: Kit,
    texts: dict[str, TextKit],
    entries: list[Entry],
    touched: Touched,
    relist: Relist | None,
    *kinds: str,
) -> tuple[list[tuple[str, bytes]], set[str]]:
    """posts.json and the llms files with the edited posts' items made again (the same
    functions make them in a full build), in the posts' order now (`relist`): the files that
    differ from the kit's, or did after an earlier quick rebuild (`touched`). Returns them and
    the paths that now differ."""
    from bipub.render import json_api, llms, urls

    url = urls.UrlBuilder(kit.config.base_url)
    make: dict[str, Callable[[Entry, str, urls.UrlBuilder], str]] = {
        "records": lambda e, lang, u: json_api.dump_record(json_api.post_record(e, lang, u)),
        "lines": llms.post_line,
        "full": llms.full_post_line,
    }
    out = []
    differ = set()
    for path, text in texts.items():
        if text.kind not in kinds:
            continue
        items = text.items
        where = text.posts
        order = relist.orders.get(text.lang) if relist is not None else None
        if order is not None:  # the posts' items in their new order, in the same places
            places = sorted(where.values())
            keys = [key for key in order if key in where]
            items = list(items)
            for place, key in zip(places, keys, strict=True):
                items[place] = text.items[where[key]]
            where = dict(zip(keys, places, strict=True))
            if items == text.items:
                items = text.items
        for entry in entries:
            i = where.get(entry.key)
            if entry.kind == "posts" and i is not None:
                item = make[text.kind](entry, text.lang, url)
                if item != items[i]:
                    items = items if items is not text.items else list(items)
                    items[i] = item
        if items is not text.items:
            differ.add(path)
        if path in differ or path in touched.texts:
            if text.kind == "records":
                data = json_api.join_records(items)
            else:
                data = llms.Lines(items, where).text()
            out.append((path, data.encode("utf-8")))
    return out, differ


def _status(kit: Kit, idents: list[tuple[str, str]], units: list[Any]) -> list[tuple[str, bytes]]:
    """status.json of each language with the edited entries' runs of records replaced by
    their new records (sorted by unit key, as the full build writes them)."""
    from bipub.render import json_api, urls

    out = []
    for lang, status_runs in kit.status_runs.items():
        status = kit.status.get(lang)
        runs = list(status_runs.runs)
        touched = False
        for kind, key in idents:
            prefix = f"{kind}/{key}:"
            fresh = sorted(
                (u.key, json_api.dump_record(json_api.unit_record(u, status)))
                for u in units
                if u.target_lang == lang and u.key.rpartition(":")[0] == prefix[:-1]
            )
            at = status_runs.index.get(prefix)
            if at is None:
                if fresh:
                    raise NotQuick(f"status.json has no records of {prefix[:-1]} to replace")
                continue
            if at < 0:
                raise NotQuick(f"the records of {prefix[:-1]} are not together in status.json")
            if not fresh:
                raise NotQuick(f"the records of {prefix[:-1]} would leave status.json")
            runs[at] = json_api.RECORD_SEP.join(record for _, record in fresh)
            touched = True
        if touched:  # (compared with the published file, not the kit's: replace_files)
            text = StatusRuns(runs, status_runs.index).text()
            out.append((urls.api(lang, "status")[1:], text.encode("utf-8")))
    return out
