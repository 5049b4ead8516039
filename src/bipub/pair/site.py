"""Pair documents across languages and decide what each language shows.

Input: the loaded `Content` and status files. Output: a `Site` — complete, immutable values that
the renderers read. Nothing here formats or writes.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import ValidationError

from bipub.config import SiteConfig
from bipub.diagnostics import Collector
from bipub.load.content import Content, Document
from bipub.model.fields import slugify
from bipub.model.post import Kind, day_of, instant_of
from bipub.model.validate import validation_diagnostics
from bipub.pair.assets import check_assets
from bipub.pair.images import Images
from bipub.pair.status import StatusFile, load_status
from bipub.pair.units import Unit, nfc

if TYPE_CHECKING:  # the CV's modules load when a CV is paired
    from bipub.pair.cv_merge import MergedCv

State = Literal["source", "translated", "draft", "stale", "missing"]
# Names a post's or page's slug may not take (compared case-insensitively: some file systems
# are): its folder would be, or sit beside, a file or folder of the site's own — a page at
# /ko/feed.xml/ turns the feed into a folder, a post at /ko/blog/index.html/ the blog listing.
RESERVED_SLUGS = frozenset(
    {
        # folders of the site's own
        "api",
        "assets",
        "blog",
        "index",
        "page",
        "pdf",
        "series",
        "static",
        "tags",
        # files of the site's own
        "404.html",
        "feed.xml",
        "index.html",
        "robots.txt",
        "sitemap.xml",
    }
)


def reserved_slug(slug: str) -> bool:
    """Whether a post or page may not use `slug` (RESERVED_SLUGS, and every llms*.txt)."""
    name = slug.casefold()
    return name in RESERVED_SLUGS or (name.startswith("llms") and name.endswith(".txt"))


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

    @property
    def is_fallback(self) -> bool:
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

    @property
    def source(self) -> Document:
        return self.docs[self.source_lang]

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
    _posts: dict[str, list[Entry]] = field(default_factory=dict, repr=False)
    # the CV the PDFs show: `cv` with the bipub.yaml private_fields marked pdf_only (issue 18)
    pdf_cv: dict[str, MergedCv] = field(default_factory=dict)
    images: Images = field(default_factory=Images)  # the local images (pair/images.py)

    def posts(self, lang: str) -> list[Entry]:
        """Posts shown in a language, newest first (drafts excluded). Do not mutate the list."""
        cached = self._posts.get(lang)
        if cached is None:
            out = [
                e
                for e in self.entries
                if e.kind == "posts" and lang in e.versions and not e.versions[lang].doc.meta.draft
            ]
            cached = sorted(out, key=post_order_key, reverse=True)
            self._posts[lang] = cached
        return cached

    def pages(self, lang: str) -> list[Entry]:
        return [e for e in self.entries if e.kind == "pages" and lang in e.versions]


def pair_site(root: Path, config: SiteConfig, content: Content, collector: Collector) -> Site:
    status = {lang: load_status(root, lang, collector) for lang in config.codes}
    cv = _pair_cv(config, content, status, collector)
    if cv:  # machine-drafted CV fields get the drafts' notice (or show the source)
        from bipub.pair.cv_merge import mark_drafts

        for lang, merged in cv.items():
            states = {nfc(k): r.state for k, r in status[lang].records.items()}
            mark_drafts(merged, states, config.outputs.publish_drafts)
    units: list[Unit] = [u for merged in cv.values() for u in merged.units]
    entries = _pair_documents(config, content, status, collector, units)
    site = Site(config, without_private(cv, config, pdf=False), entries, units, status)
    site.pdf_cv = without_private(cv, config, pdf=True)
    site.tags = _collect_tags(site, collector)
    site.series = _collect_series(site, collector)
    _warn_tag_spellings(site, collector)  # issue 18: once, naming the posts
    for lang in config.codes:
        for message in title_prefix_warnings(lang, title_prefixes(site.entries, lang)):
            collector.warning(None, None, "title-prefix", message)
    # issue 18/19: images that name a missing or unreadable local file; the others, probed
    site.images = check_assets(root, content, collector, config)
    return site


def without_private(cv: dict[str, MergedCv], config: SiteConfig, pdf: bool) -> dict[str, MergedCv]:
    """The CVs without the fields bipub.yaml `private_fields` keeps out (of the PDFs too,
    `pdf`, unless marked pdf_only)."""
    paths = [p for p, pdf_only in config.private_paths().items() if not (pdf and pdf_only)]
    if not paths:
        return cv
    out = {}
    for lang, merged in cv.items():
        data = copy.deepcopy(merged.data)
        for path in paths:
            _drop(data, path.split("."))
        dropped = {tuple(path.split(".")) for path in paths}
        fallbacks = {
            fb
            for fb in merged.fallbacks
            if not any(tuple(n for n in fb if isinstance(n, str))[: len(d)] == d for d in dropped)
        }
        out[lang] = dataclasses.replace(merged, data=data, fallbacks=fallbacks)
    return out


def _drop(data: object, names: list[str]) -> None:
    if isinstance(data, list):
        for item in data:
            _drop(item, names)
    elif isinstance(data, dict):
        if len(names) == 1:
            data.pop(names[0], None)
        elif names[0] in data:
            _drop(data[names[0]], names[1:])


def _pair_cv(
    config: SiteConfig, content: Content, status: dict[str, StatusFile], collector: Collector
) -> dict[str, MergedCv]:
    from bipub.model.cv import CV
    from bipub.pair.cv_merge import MergedCv, merge_cv

    src_lang = config.source_languages.cv
    src = content.cv.get(src_lang)
    if src_lang in content.failed_cv or any(lang in content.failed_cv for lang in content.cv):
        return {}  # reported while loading
    if src is None:
        for lang, other in content.cv.items():
            collector.error(
                other.rel,
                None,
                "missing-source",
                f"content/{src_lang}/cv.yaml (the CV's source language, source_languages.cv) "
                f"is missing, so this {lang} translation has no source",
            )
        return {}
    try:
        CV.model_validate(src.raw)
    except ValidationError as exc:
        collector.extend(validation_diagnostics(exc, src.yaml, src.rel, model=CV))
        return {}
    out: dict[str, MergedCv] = {}
    for lang in config.codes:
        tr = content.cv.get(lang) if lang != src_lang else None
        if lang == src_lang:
            out[lang] = MergedCv(lang, src_lang, src.raw)
            continue
        merged = merge_cv(
            src_lang,
            src.rel,
            src.yaml,
            lang,
            tr.rel if tr else None,
            tr.yaml if tr else None,
            collector,
            status[lang].records if lang in status else None,
        )
        try:
            CV.model_validate(merged.data)
        except ValidationError as exc:
            collector.extend(
                validation_diagnostics(
                    exc, tr.yaml if tr else src.yaml, tr.rel if tr else src.rel, model=CV
                )
            )
            continue
        out[lang] = merged
    return out


def _doc_units(
    entry_key: str, kind: str, src: Document, tr: Document | None, target: str
) -> list[Unit]:
    base = f"{kind}/{entry_key}"
    units: list[Unit] = []

    def add(
        key: str,
        s: str | None,
        sl: int | None,
        t: str | None,
        tl: int | None,
        source_hash: str | None = None,
    ) -> None:
        if s is None:
            return
        unit = Unit(
            key,
            src.lang,
            target,
            s,
            src.rel,
            sl,
            t,
            tr.rel if tr is not None and t is not None else None,
            tl if t is not None else None,
        )
        if source_hash is not None:  # text_hash(s), kept with the section (Section.digest)
            vars(unit)["source_hash"] = source_hash
        units.append(unit)

    add(
        f"{base}:title",
        src.meta.title,
        src.line_of("title"),
        tr.meta.title if tr else None,
        tr.line_of("title") if tr else None,
    )
    add(
        f"{base}:description",
        src.meta.description,
        src.line_of("description"),
        tr.meta.description if tr else None,
        tr.line_of("description") if tr else None,
    )
    if src.meta.series:
        add(
            f"{base}:series",
            src.meta.series,
            src.line_of("series"),
            tr.meta.series if tr else None,
            tr.line_of("series") if tr else None,
        )
    s_secs = src.sections
    t_secs = tr.sections if tr else ()
    for sec in s_secs:
        t = t_secs[sec.index] if sec.index < len(t_secs) else None
        add(
            f"{base}:body#{sec.index}",
            sec.text,
            sec.line,
            t.text if t else None,
            t.line if t else None,
            sec.digest,
        )
    return units


def _pair_documents(
    config: SiteConfig,
    content: Content,
    status: dict[str, StatusFile],
    collector: Collector,
    units: list[Unit],
) -> list[Entry]:
    groups: dict[tuple[Kind, str], dict[str, Document]] = defaultdict(dict)
    for doc in content.documents:
        group = groups[(doc.kind, doc.pair_key)]
        if doc.lang in group:
            other = group[doc.lang]
            if other.rel == doc.rel:  # names equal after NFC: one of them is NFD (macOS)
                message = (
                    f"two files are named {doc.rel} (one in NFC, one in NFD, as macOS writes "
                    f"Hangul names) and both map to the {doc.lang} URL of "
                    f"{doc.kind}/{doc.pair_key}; keep one of them"
                )
            else:
                message = (
                    f"{doc.rel} and {other.rel} are both the {doc.lang} version of "
                    f"{doc.kind}/{doc.pair_key}"
                )
            collector.error(doc.rel, doc.line_of("key"), "duplicate", message)
            continue
        group[doc.lang] = doc

    entries: list[Entry] = []
    urls: dict[tuple[str, str, str], Document] = {}
    for (kind, key), docs in sorted(groups.items()):
        if (
            any((kind, d.name) in content.failed for d in docs.values())
            or (kind, key) in content.failed
        ):
            continue  # a version failed to load and was reported; pairing it would only cascade
        entry = _pair_group(config, kind, key, docs, status, collector, units, urls)
        if entry is not None:
            entries.append(entry)
    return entries


def _pair_group(
    config: SiteConfig,
    kind: Kind,
    key: str,
    docs: dict[str, Document],
    status: dict[str, StatusFile],
    collector: Collector,
    units: list[Unit],
    urls: dict[tuple[str, str, str], Document],
) -> Entry | None:
    """Pair one entry's documents (language → document); its units are added to `units`."""
    declared = {d.meta.source_lang for d in docs.values() if d.meta.source_lang}
    default = getattr(config.source_languages, kind)
    if len(declared) > 1:
        first = next(iter(docs.values()))
        collector.error(
            first.rel,
            first.line_of("source_lang"),
            "source-lang",
            f"{kind}/{key}: versions disagree on source_lang ({', '.join(sorted(declared))})",
        )
        return None
    source_lang = declared.pop() if declared else default
    if source_lang not in config.codes:
        first = next(iter(docs.values()))
        collector.error(
            first.rel,
            first.line_of("source_lang"),
            "source-lang",
            f"source_lang: {source_lang!r} is not one of the languages in bipub.yaml",
        )
        return None
    if source_lang not in docs:
        only = sorted(docs)
        if len(only) == 1:
            doc = docs[only[0]]
            collector.warning(
                doc.rel,
                1,
                "source-lang",
                f"{kind}/{key} exists only in {only[0]}, but the default source language "
                f"of {kind} is {source_lang}; treating {only[0]} as its source "
                f"(add 'source_lang: {only[0]}' to say so)",
            )
            source_lang = only[0]
        else:
            doc = docs[only[0]]
            collector.error(
                doc.rel,
                1,
                "missing-source",
                f"{kind}/{key}: no {source_lang} source, only translations "
                f"({', '.join(only)}); add source_lang to name the source",
            )
            return None
    src = docs[source_lang]
    if src.meta.date is None and kind == "posts":
        collector.error(src.rel, 2, "schema", "date: required field is missing")
        return None
    for lang, doc in docs.items():
        if lang == source_lang:
            continue
        for fname in ("date", "updated", "slug", "series_order", "draft", "pdf", "order"):
            tv, sv = getattr(doc.meta, fname), getattr(src.meta, fname)
            if fname in doc.meta.model_fields_set and tv != sv:
                collector.warning(
                    doc.rel,
                    doc.line_of(fname),
                    "shared-differs",
                    f"{fname}: {tv!s} here but {sv!s} in {src.rel}; "
                    "shared fields come from the source",
                    key=fname,
                )
    slug = src.meta.slug or key.rsplit("/", 1)[-1]
    slug_ok = True
    try:
        from bipub.model.post import check_slug

        check_slug(slug)
    except ValueError as exc:
        collector.error(src.rel, src.line_of("slug") or 1, "slug", f"slug: {exc}")
        slug_ok = False
    if not slug_ok:
        return None
    if reserved_slug(slug):
        collector.error(
            src.rel,
            src.line_of("slug") or 1,
            "slug",
            f"slug {slug!r} is reserved for the site's own files and folders "
            f"({', '.join(sorted(RESERVED_SLUGS))}, llms*.txt); give this "
            f"{kind.removesuffix('s')} another slug",
        )
        return None
    versions: dict[str, Version] = {}
    for lang in config.codes:
        tr = docs.get(lang)
        url_key = (lang, kind, slug.casefold())
        if lang == source_lang:
            versions[lang] = Version(lang, src, "source")
        else:
            doc_units = _doc_units(key, kind, src, tr, lang)
            units.extend(doc_units)
            version = _resolve_version(config, lang, src, tr, doc_units, status[lang])
            if version is None:
                continue
            versions[lang] = version
        clash = urls.get(url_key)
        shown = versions[lang].doc
        if clash is not None:
            collector.error(
                shown.rel,
                shown.line_of("slug") or 1,
                "url-clash",
                f"{shown.rel} and {clash.rel} both map to the {lang} URL of "
                f"{kind} '{slug}'; give one of them another slug",
            )
        else:
            urls[url_key] = shown
    meta = src.meta
    return Entry(
        kind,
        key,
        slug,
        source_lang,
        dict(docs),
        versions,
        day_of(meta.date) if meta.date is not None else None,
        day_of(meta.updated) if meta.updated is not None else None,
        meta.series_order,
        instant_of(meta.date) if meta.date is not None else None,
        instant_of(meta.updated) if meta.updated is not None else None,
        meta.order,
    )


def _resolve_version(
    config: SiteConfig,
    lang: str,
    src: Document,
    tr: Document | None,
    doc_units: list[Unit],
    status: StatusFile,
) -> Version | None:
    if tr is None:
        if config.outputs.untranslated == "omit":
            return None
        return Version(lang, src, "missing")
    draft_keys: list[str] = []
    stale_keys: list[str] = []
    for unit in doc_units:
        rec = status.records.get(unit.key)
        if rec is None or unit.translation is None:
            continue
        if rec.state == "draft":
            draft_keys.append(unit.key)
        if rec.source_hash != unit.source_hash:
            stale_keys.append(unit.key)
    if draft_keys:
        if not config.outputs.publish_drafts:
            return Version(lang, src, "missing", draft_keys=tuple(draft_keys))
        return Version(lang, tr, "draft", tuple(stale_keys), tuple(draft_keys))
    if stale_keys:
        return Version(lang, tr, "stale", tuple(stale_keys))
    return Version(lang, tr, "translated")


def _collect_tags(site: Site, collector: Collector) -> dict[str, dict[str, Tag]]:
    out: dict[str, dict[str, Tag]] = {}
    for lang in site.config.codes:
        spellings: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        where: dict[str, list[str]] = defaultdict(list)
        limit = site.config.limits.tags_per_post
        for entry in site.posts(lang):
            doc = entry.versions[lang].doc
            tags = tags_of(entry, lang)
            if len(tags) > limit:
                own = entry.docs.get(lang)
                holder = own if own is not None and "tags" in own.meta.model_fields_set else None
                holder = holder or entry.source
                collector.error(
                    holder.rel,
                    holder.line_of("tags"),
                    "tag-limit",
                    f"tags: {len(tags)} tags, more than the {limit} a post may have "
                    "(limits.tags_per_post in bipub.yaml)",
                    key="tags",
                )
                continue
            for tag in tags:
                slug = slugify(tag)
                if not slug:
                    collector.error(
                        doc.rel,
                        doc.line_of("tags"),
                        "tag",
                        f"tags: {tag!r} has no letter or digit to make its tag page's URL "
                        f"from (tags/<slug>/); add a word to it (e.g. '{tag.strip()} launch') "
                        "or remove it"
                        if tag.strip()
                        else "tags: an empty tag; remove it",
                    )
                    continue
                spellings[slug][tag] += 1
                where[slug].append(doc.rel)
        tags_out: dict[str, Tag] = {}
        for slug, counts in sorted(spellings.items()):
            ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
            name = site.config.preferred_tag(slug) or ranked[0][0]  # (tag_spellings)
            tags_out[slug] = Tag(slug, name, tuple(s for s, _ in ranked))
        out[lang] = tags_out
    return out


TagPlaces = dict[str, dict[str, dict[str, tuple[str, int | None]]]]
"""slug → spelling → file → (its language, the line of the tag)"""


def _warn_tag_spellings(site: Site, collector: Collector) -> None:
    """One warning per tag written in more than one spelling (in any language), naming the
    file and line of each post that writes a spelling the tag's page does not show."""
    written, shown = tag_spelling_sources(site)
    for message in tag_spelling_warnings(site.config, written, shown):
        collector.warning(None, None, "tag-spellings", message)


def tag_spelling_sources(site: Site) -> tuple[TagPlaces, dict[str, dict[str, str]]]:
    """Where each tag spelling is written (slug → spelling → file → line of the tag) and the
    spelling each language's tag page shows (slug → language → name)."""
    written: TagPlaces = defaultdict(lambda: defaultdict(dict))
    for lang in site.config.codes:
        for entry in site.posts(lang):
            own = entry.docs.get(lang)
            writer = own if own is not None and "tags" in own.meta.model_fields_set else None
            writer = writer or entry.source
            add_tag_places(written, writer)
    shown: dict[str, dict[str, str]] = defaultdict(dict)
    for lang, tags in site.tags.items():
        for slug, tag in tags.items():
            shown[slug][lang] = tag.name
    return {k: {s: dict(p) for s, p in v.items()} for k, v in written.items()}, dict(shown)


def add_tag_places(written: TagPlaces, doc: Document) -> None:
    """Add the tags `doc` writes to `written` (tag_spelling_sources)."""
    for i, tag in enumerate(doc.meta.tags):
        slug = slugify(tag)
        if slug:
            spellings = written.setdefault(slug, {})
            where = spellings.setdefault(tag, {})
            where.setdefault(doc.rel, (doc.lang, doc.yaml.line_for(("tags", i))))


def tag_spelling_warnings(
    config: SiteConfig, written: TagPlaces, shown: dict[str, dict[str, str]]
) -> list[str]:
    """The tag-spelling warnings (tag_spelling_sources gives `written` and `shown`)."""
    out = []
    for slug, by_spelling in sorted(written.items()):
        if len(by_spelling) < 2:
            continue
        names = sorted(set(shown.get(slug, {}).values()))
        others = []  # spellings unlike the one shown in the language of the file
        for spelling, where in sorted(by_spelling.items()):
            places = ", ".join(
                f"{rel}:{line}" if line else rel
                for rel, (lang, line) in sorted(where.items())
                if shown.get(slug, {}).get(lang, spelling) != spelling
            )
            if places:
                others.append(f"{spelling!r} in {places}")
        if not others:  # (each language consistent: 'KV cache' in ko, 'kv-cache' in en)
            continue
        if len(names) == 1:
            showing = f"shows {names[0]!r}"
        else:
            showing = "shows " + ", ".join(
                f"{name!r} [{lang}]" for lang, name in sorted(shown.get(slug, {}).items())
            )
        how = (
            "bipub.yaml tag_spellings"
            if config.preferred_tag(slug)
            else "the most used; choose with tag_spellings in bipub.yaml"
        )
        out.append(f"tag '{slug}' is spelled {'; '.join(others)}; its page {showing} ({how})")
    return out


def title_prefixes(entries: Sequence[Entry], lang: str) -> list[tuple[str, str, int | None]]:
    """(title, file, line) of every post written in `lang` (title-prefix check)."""
    out = []
    for entry in entries:
        doc = entry.docs.get(lang)
        if entry.kind == "posts" and doc is not None:
            out.append((doc.meta.title, doc.rel, doc.line_of("title")))
    return out


def title_prefix_warnings(lang: str, titles: Sequence[tuple[str, str, int | None]]) -> list[str]:
    """Warnings about title prefixes (`[vLLM] …`) that differ only in case across the posts of
    a language: one per prefix, naming the posts (file:line) that spell it unlike most."""
    groups: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for title, rel, line in titles:
        m = _TITLE_PREFIX.match(title)
        if m:
            groups[m.group(1).casefold()][m.group(1)].append(f"{rel}:{line}" if line else rel)
    out = []
    for _, spellings in sorted(groups.items()):
        if len(spellings) < 2:
            continue
        ranked = sorted(spellings.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        major, used = ranked[0]
        minority = "; ".join(f"[{p}] in {', '.join(sorted(places))}" for p, places in ranked[1:])
        out.append(
            f"[{lang}] title prefixes differ in spelling: {minority}; "
            f"{len(used)} post{'s' if len(used) != 1 else ''} write{'s' if len(used) == 1 else ''}"
            f" [{major}]"
        )
    return out


def tags_of(entry: Entry, lang: str) -> list[str]:
    """A post's tags in `lang`: its own front matter's if it sets them, else the source's."""
    own = entry.docs.get(lang)
    if own is not None and "tags" in own.meta.model_fields_set:
        return list(own.meta.tags)
    return list(entry.source.meta.tags)


def post_order_key(entry: Entry) -> tuple[dt.date, int, float, str]:
    """Where a post goes in the lists (sorted by this, newest first, i.e. in reverse): by the
    day shown; on the same day by `order` (higher first; none counts as 0), then by the time of
    a date-time (its instant; a plain date comes after every timed post of that day), then by
    key (reverse alphabetical) — the tie rule documented in docs/_incoming/real-content.md."""
    when = entry.published.timestamp() if entry.published is not None else float("-inf")
    return (entry.date or date.min, entry.order or 0, when, entry.key)


def series_order_key(entry: Entry) -> tuple[int, date, str]:
    """Where a post goes in its series: by `series_order`, then date, then key."""
    return (entry.series_order or 0, entry.date or date.min, entry.key)


_TITLE_PREFIX = re.compile(r"^\s*\[([^\]]+)\]")


def _collect_series(site: Site, collector: Collector) -> dict[str, dict[str, Series]]:
    """Series are identified by the source's series name; each language shows its own name
    (from a translated member) and gets its own URL slug."""
    out: dict[str, dict[str, Series]] = {}
    for lang in site.config.codes:
        groups: dict[str, list[Entry]] = defaultdict(list)
        for entry in site.posts(lang):
            if entry.source.meta.series:
                groups[slugify(entry.source.meta.series)].append(entry)
        series_out: dict[str, Series] = {}
        for members in groups.values():
            members.sort(key=series_order_key)
            name = members[0].source.meta.series or ""
            for e in members:
                doc = e.versions[lang].doc
                if doc.lang == lang and doc.meta.series:
                    name = doc.meta.series
                    break
            slug = slugify(name)
            series = Series(lang, slug, name, tuple(members))
            series_out[slug] = series
            for e in members:
                site.series_by_entry[(lang, e.key)] = series
        out[lang] = dict(sorted(series_out.items()))
    return out
