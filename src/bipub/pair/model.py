"""What pairing produces: the `Site` the renderers read, its entries, their versions in each
language, tags and series; and the orders every list of posts follows (pair/site.py makes it)."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from itertools import compress, count
from operator import is_not
from typing import TYPE_CHECKING, Literal, TypeVar

from bipub.config import SiteConfig
from bipub.diagnostics import Collector
from bipub.load.content import Document
from bipub.model.post import Kind
from bipub.pair.images import Images
from bipub.pair.status import StatusFile
from bipub.pair.units import Unit
from bipub.schedule import OPEN, window

if TYPE_CHECKING:  # the CV's modules load when a CV is paired
    from bipub.pair.cv_merge import MergedCv

State = Literal["source", "translated", "draft", "stale", "missing"]
EntryId = tuple[str, str]  # (kind, key) of a post or page
T = TypeVar("T")


@dataclass(frozen=True)
class Version:
    """What the page of one entry shows in one language."""

    lang: str  # the page's language (its URL)
    doc: Document  # the document shown: the translation, or the source when missing
    state: State
    stale_keys: tuple[str, ...] = ()
    draft_keys: tuple[str, ...] = ()

    @property
    def content_lang(self) -> str:
        return self.doc.lang

    @cached_property
    def is_fallback(self) -> bool:
        """The page shows another language's text (its source's). Worked out once per Version
        object and pickled with it (the entries file, restore.py: every plan reads it of each
        post and page in each language, render/html.py `_entry_page`, without its document)."""
        return self.doc.lang != self.lang


@dataclass(frozen=True)
class Entry:
    """A post or page across languages."""

    kind: Kind
    key: str
    slug: str
    source_lang: str
    docs: dict[str, Document]
    versions: dict[str, Version]
    date: dt.date | None  # the day shown (a date-time's date in its own offset)
    updated: dt.date | None
    series_order: int | None
    published: dt.datetime | None = None  # `date` given as a date-time with offset
    modified: dt.datetime | None = None  # `updated` given as a date-time with offset
    order: int | None = None  # front matter `order`: place among posts of the same day
    # when a post (or a page with a `date:`) is published (bipub/schedule.py `publish_instant`:
    # seconds since 1970), and whether that is after the pairing's "now": a scheduled post is
    # published nowhere yet
    publish_at: float | None = None
    scheduled: bool = False

    @property
    def source(self) -> Document:
        return self.docs[self.source_lang]

    def shown_in(self, lang: str) -> bool:
        """Whether a post or page is published in `lang`: it is not scheduled (a post dated
        after the build's "now", bipub/schedule.py: in no language yet), it has a version
        there, and neither that version's document nor its source is a draft (`draft: true`
        in the source keeps it out of every language, a translation's own keeps it out of that
        one; a source draft's translation, a machine draft say, was published alone before,
        and a page was published whatever its `draft` said)."""
        return not self.scheduled and lang in self._shown_langs

    @cached_property
    def _shown_langs(self) -> frozenset[str]:
        """The languages of `shown_in` but for `scheduled`: those with a version whose document
        is not a draft, none if the source is one. Worked out once per entry and kept with it
        in the entries file (restore.py), as the plan's facts below: a build in a new process
        reads no unchanged document's front matter for it (load/doc_state.py)."""
        if self.docs[self.source_lang].meta.draft:
            return frozenset()
        return frozenset(lang for lang, v in self.versions.items() if not v.doc.meta.draft)

    @property
    def published_at(self) -> dt.date:
        """When the post was published, as exactly as its front matter says (feeds)."""
        return self.published or self.date or date.min

    @property
    def modified_at(self) -> dt.date | None:
        """When the post last changed, as exactly as its front matter says (feeds, sitemap)."""
        if self.updated is not None:
            return self.modified or self.updated
        return self.published or self.date

    def tags_in(self, lang: str) -> tuple[str, ...]:
        """`tags_of`: the post's tags in `lang` (worked out once per entry and language: the
        renderers ask for them ~14 times a post)."""
        found = self._tags.get(lang)
        return found if found is not None else self._tags[self.source_lang]

    @cached_property
    def _tags(self) -> dict[str, tuple[str, ...]]:
        source = tuple(self.source.meta.tags)
        return {
            lang: tuple(doc.meta.tags) if "tags" in doc.meta.model_fields_set else source
            for lang, doc in self.docs.items()
        }

    # What the plan reads of every entry at every build (pipeline.py `plan`): worked out once
    # per Entry object and kept in its __dict__, so pickled with it in the entries file
    # (restore.py): a build in a new process reads them back for each unchanged entry instead
    # of walking its documents' front matter and bodies (an entry is kept only with the very
    # documents it was paired from: pair/memo.py PairMemo).
    @cached_property
    def source_image(self) -> str | None:
        """The source's front matter `image:` (every language's og:image, render/page_views.py
        `og_image`; none: a post's own card, pair/site_pages.py `own_card`)."""
        return self.source.meta.image

    @cached_property
    def names_series(self) -> bool:
        """Whether its source's front matter names a `series` (pair/taxonomy.py
        `series_named`: a build in a new process reads no unchanged document's front matter
        for it, load/doc_state.py `body_apart`)."""
        return bool(self.source.meta.series)

    @cached_property
    def aliased(self) -> tuple[Document, ...]:
        """Its documents that name `aliases` (render/aliases.py `redirects`), in `docs` order."""
        return tuple(doc for doc in self.docs.values() if doc.meta.aliases)

    @cached_property
    def mermaid_docs(self) -> tuple[Document, ...]:
        """Its versions' documents whose body names mermaid (`Document.mentions_mermaid`: those
        render/markdown.py `prepare_diagrams` looks into), in `versions` order."""
        return tuple(v.doc for v in self.versions.values() if v.doc.mentions_mermaid)

    @cached_property
    def order_key(self) -> tuple[dt.date, int, float, str]:
        """`post_order_key`, worked out once per entry (every pairing sorts the posts again)."""
        when = self.published.timestamp() if self.published is not None else float("-inf")
        return (self.date or date.min, self.order or 0, when, self.key)


@dataclass(frozen=True)
class Tag:
    slug: str
    name: str  # most used spelling
    spellings: tuple[str, ...]


@dataclass(frozen=True)
class Series:
    lang: str
    slug: str
    name: str
    entries: tuple[Entry, ...]  # in series order
    name_lang: str = ""  # the language `name` is written in (a member's source's, untranslated)

    @property
    def facts(self) -> tuple[str, str, str, tuple[str, ...]]:
        """What a member's page and card show of the series (render/html.py's entry keys):
        its name and the language it is written in (a `lang` attribute where it is not the
        page's), its slug and its members."""
        return (self.name, self.name_lang, self.slug, tuple(e.key for e in self.entries))


@dataclass
class Site:
    config: SiteConfig
    cv: dict[str, MergedCv]  # per language
    entries: list[Entry]
    units: list[Unit]
    status: dict[str, StatusFile]
    tags: dict[str, dict[str, Tag]] = field(default_factory=dict)  # lang → slug → Tag
    series: dict[str, dict[str, Series]] = field(default_factory=dict)  # lang → slug → Series
    series_by_entry: dict[tuple[str, str], Series] = field(default_factory=dict)
    # lang → tag slug → the posts listing it, newest first (pair/taxonomy.py collect_tags)
    tag_posts: dict[str, dict[str, list[Entry]]] = field(default_factory=dict)
    _posts: dict[str, list[Entry]] = field(default_factory=dict, repr=False)
    # (`pages`: each language's, and every entry that is a page, found in one pass)
    _pages: dict[str, list[Entry]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _every_page: list[Entry] | None = field(default=None, init=False, repr=False, compare=False)
    # the CV the PDFs show: `cv` with the bipub.yaml private_fields marked pdf_only (issue 18)
    pdf_cv: dict[str, MergedCv] = field(default_factory=dict)
    images: Images = field(default_factory=Images)  # the local images (pair/images.py)
    # the posts not published yet (bipub/schedule.py), soonest first, and the instants between
    # which every post is published or scheduled as in this pairing (`schedule.window`)
    scheduled: list[Entry] = field(default_factory=list)
    window: tuple[float, float] = OPEN

    def posts(self, lang: str) -> list[Entry]:
        """Posts shown in a language, newest first (drafts excluded). Do not mutate the list."""
        cached = self._posts.get(lang)
        if cached is None:
            out = [e for e in self.entries if e.kind == "posts" and e.shown_in(lang)]
            cached = sorted(out, key=post_order_key, reverse=True)
            self._posts[lang] = cached
        return cached

    def schedule(self, now: float) -> None:
        """The posts scheduled as at `now` (`scheduled`, soonest first) and the window of
        instants this holds for (bipub/schedule.py `window`)."""
        at = [e.publish_at for e in self.entries if e.publish_at is not None]
        self.window = window(at, now)
        if self.window[1] != math.inf:  # (some post is scheduled)
            later = [e for e in self.entries if e.scheduled]
            self.scheduled = sorted(later, key=lambda e: (e.publish_at or 0.0, e.kind, e.key))

    def pages(self, lang: str) -> list[Entry]:
        """Pages shown in a language (drafts excluded: `Entry.shown_in`), in the entries' order.
        Do not mutate the list. Worked out once per language, of the entries that are pages,
        found once (the plan, each language's navigation and status.json ask: ~2 ms a pass
        over 10,000 entries)."""
        cached = self._pages.get(lang)
        if cached is None:
            every = self._every_page
            if every is None:
                every = self._every_page = [e for e in self.entries if e.kind == "pages"]
            cached = self._pages[lang] = [e for e in every if e.shown_in(lang)]
        return cached


def tags_of(entry: Entry, lang: str) -> list[str]:
    """A post's tags in `lang`: its own front matter's if it sets them, else the source's
    (`Entry.tags_in`, as a list)."""
    return list(entry.tags_in(lang))


def version_key(entry: Entry, lang: str) -> tuple[object, ...]:
    """Every value of a post's version in `lang` that its derived parts (posts.json record,
    llms line and text) read, cheaply: its document by its file's digest (title, description,
    series, body; the document itself where it has none), its tags in `lang`, dates, slug and
    translation state. Parts kept by this key are made again when it moves."""
    version = entry.versions[lang]
    doc = version.doc
    return (
        lang,
        entry.slug,
        entry.date,
        entry.updated,
        version.state,
        doc.rel,
        doc.lang,
        doc.digest or (doc.meta, doc.body),
        entry.tags_in(lang),
    )


def changed_entries(
    before: Sequence[T], now: Sequence[T], at_most: int = 256
) -> tuple[list[T], list[T]]:
    """The entries (or documents) of `before` not in `now`, and those of `now` not in
    `before`, by identity (an entry paired again is another object); where both are as long
    and at most `at_most` places differ, the entries in those places (an entry that only
    moved may then be in both)."""
    if len(before) == len(now):  # (the usual update: the same places)
        places = list(compress(count(), map(is_not, before, now)))
        if len(places) <= at_most:
            return [before[i] for i in places], [now[i] for i in places]
    # (else what lies between the same entries at the start and at the end)
    n = min(len(before), len(now))
    head = next(compress(count(), map(is_not, before, now)), n)
    tail = min(next(compress(count(), map(is_not, reversed(before), reversed(now))), n), n - head)
    was, got = before[head : len(before) - tail], now[head : len(now) - tail]
    ids = set(map(id, got))
    gone = [e for e in was if id(e) not in ids]
    ids = set(map(id, was))
    return gone, [e for e in got if id(e) not in ids]


def _place(posts: Sequence[Entry], key: tuple[dt.date, int, float, str]) -> int:
    """Where an entry of order key `key` goes in `posts` (newest first: sorted by
    `post_order_key` in reverse)."""
    lo, hi = 0, len(posts)
    while lo < hi:
        mid = (lo + hi) // 2
        if posts[mid].order_key > key:
            lo = mid + 1
        else:
            hi = mid
    return lo


def insert_post(posts: list[Entry], entry: Entry) -> None:
    """Put `entry` into `posts` (sorted as `Site.posts` sorts) where sorting puts it (the order
    key is unique per entry: the list is the one sorting gives)."""
    posts.insert(_place(posts, entry.order_key), entry)


def remove_post(posts: list[Entry], entry: Entry) -> bool:
    """Take `entry` out of `posts` (sorted as `Site.posts` sorts), if it is there."""
    at = _place(posts, entry.order_key)
    if at < len(posts) and posts[at] is entry:
        del posts[at]
        return True
    return False


def neighbour_table(posts: Sequence[Entry]) -> dict[str, tuple[Entry | None, Entry | None]]:
    """Each of `posts`' (sorted as `Site.posts` sorts) `post_neighbours`, by its key."""
    return {
        e.key: (posts[i + 1] if i + 1 < len(posts) else None, posts[i - 1] if i > 0 else None)
        for i, e in enumerate(posts)
    }


def post_neighbours(posts: Sequence[Entry], entry: Entry) -> tuple[Entry | None, Entry | None]:
    """The posts just before and just after `entry` in `posts` (sorted as `Site.posts` sorts:
    the one published before it, then the one after); (None, None) if no post there has its
    key (found where its order key puts it, else by its key)."""
    at: int | None = _place(posts, entry.order_key)
    if at is None or at >= len(posts) or posts[at].key != entry.key:
        key = entry.key
        at = next((i for i, e in enumerate(posts) if e.key == key), None)
    if at is None:
        return (None, None)
    return (posts[at + 1] if at + 1 < len(posts) else None, posts[at - 1] if at > 0 else None)


def post_order_key(entry: Entry) -> tuple[dt.date, int, float, str]:
    """Where a post goes in the lists (sorted by this, newest first, i.e. in reverse): by the
    day shown; on the same day by `order` (higher first; none counts as 0), then by the time of
    a date-time (its instant; a plain date comes after every timed post of that day), then by
    key (reverse alphabetical) — the tie rule documented in docs/content.md."""
    return entry.order_key


def series_order_key(entry: Entry) -> tuple[int, date, str]:
    """Where a post goes in its series: by `series_order`, then date, then key."""
    return (entry.series_order or 0, entry.date or date.min, entry.key)


def report_fallbacks(site: Site, langs: list[str], collector: Collector) -> None:
    """Say what each language shows untranslated or as a machine draft: never a silent fallback."""
    for lang in langs:
        parts = []
        merged = site.cv.get(lang)
        if merged is not None and merged.fallbacks:
            n = len(merged.fallbacks)
            parts.append(f"{n} CV field{'s' if n != 1 else ''} in {merged.source_lang}")
        if merged is not None and merged.drafts:
            n = len(merged.drafts)
            parts.append(f"{n} CV field{'s' if n != 1 else ''} machine draft")
        shown: dict[str, list[str]] = {"missing": [], "draft": [], "stale": []}
        for e in site.entries:  # (one pass for the three states: every entry, every build)
            version = e.versions.get(lang)
            if version is not None and version.state in shown:
                if not e.shown_in(lang):
                    continue  # (not shown at all: Site.posts, Site.pages)
                shown[version.state].append(f"{e.kind}/{e.key}")
        for state, one, many in (
            ("missing", "untranslated", "untranslated"),
            ("draft", "machine draft", "machine drafts"),
            ("stale", "outdated translation", "outdated translations"),
        ):
            names = shown[state]
            if names:
                label = one if len(names) == 1 else many
                parts.append(
                    f"{len(names)} {label} ({', '.join(names[:3])}{' …' if len(names) > 3 else ''})"
                )
        if parts:
            collector.warning(
                None,
                None,
                "translation-state",
                f"[{lang}] shown with a notice: {'; '.join(parts)} — see `bipub check`",
            )
