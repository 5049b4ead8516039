"""Tags and series, collected from the paired entries, and the warnings about how tags and
title prefixes are spelled across posts (pair/site.py calls them once the entries are paired).

What each entry brings to them is worked out once per entry (`taxa_of`: its tags' slugs and
spellings with where they are written, its titles, its series' slug): a function of the entry
and the configuration alone. A pairing after an edit takes it as it was for every entry that
the last pairing left as it was (`entry_taxa` with pair/site.py's PairMemo), so only the
changed entries' tags are slugified again; the site-wide tables are then joined from the
entries' parts by the same functions as in a full build."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import date
from typing import NamedTuple

from bipub.config import SiteConfig
from bipub.diagnostics import Collector, Diagnostic, Severity
from bipub.load.content import Document
from bipub.model.fields import slugify
from bipub.pair.model import Entry, EntryId, Series, Site, series_order_key

TagPlace = tuple[str, str, Document, int]  # slug, spelling, the file writing it, its index
TitlePlace = tuple[str, str, int | None]  # title, file, line


class EntryTaxa(NamedTuple):
    """What one entry brings to the site's tags, series and spelling checks (`taxa_of`)."""

    # language → (slug, spelling) of each tag its post in that language lists (tag-limit and
    # tags without a slug left out: `errors` says why)
    tags: dict[str, tuple[tuple[str, str], ...]]
    errors: dict[str, tuple[Diagnostic, ...]]  # language → what is wrong with its tags there
    places: dict[str, tuple[TagPlace, ...]]  # language → where its tags there are written
    spelled: dict[str, tuple[tuple[str, str], ...]]  # language → (slug, spelling) of those
    # language → the lower-cased prefix of its post's title written in that language
    # and the prefix as written (`[vLLM] …`), and the file; titles without a prefix left out
    titles: dict[str, tuple[str, str, Document]]
    series: str  # the slug of its source's series name ("" when it has none or no slug)


Taxa = dict[EntryId, EntryTaxa]
Written = tuple[tuple[tuple[str, str], ...], tuple[TagPlace, ...], tuple[str, ...]]


def taxa_of(entry: Entry, config: SiteConfig, slugs: dict[str, str] | None = None) -> EntryTaxa:
    """What `entry` brings to the tags, series and spelling checks in each language it has a
    version in (whether a language's lists show it is `Site.posts`'s to say). `slugs`: each
    tag or series name slugified so far (`slug_of`; `entry_taxa` shares one among the entries:
    posts write the same tags again and again)."""
    if slugs is None:
        slugs = {}
    tags: dict[str, tuple[tuple[str, str], ...]] = {}
    errors: dict[str, tuple[Diagnostic, ...]] = {}
    places: dict[str, tuple[TagPlace, ...]] = {}
    spelled: dict[str, tuple[tuple[str, str], ...]] = {}
    titles: dict[str, tuple[str, str, Document]] = {}
    if entry.kind != "posts":
        return EntryTaxa(tags, errors, places, spelled, titles, "")
    limit = config.limits.tags_per_post
    by_file: dict[str, Written] = {}  # (a source's tags are those of every language without)
    for lang, version in entry.versions.items():
        own = entry.docs.get(lang)
        holder = own if own is not None and "tags" in own.meta.model_fields_set else None
        writer = holder or entry.source  # (the file whose tags tags_of gives)
        listed = entry.tags_in(lang)
        written = by_file.get(writer.rel)
        if written is None:
            written = by_file[writer.rel] = _written(writer, listed, slugs)
        found, places[lang], no_slug = written
        spelled[lang] = found
        wrong: list[Diagnostic] = []
        if len(listed) > limit:
            wrong.append(
                Diagnostic(
                    writer.rel,
                    writer.line_of("tags"),
                    "tag-limit",
                    f"tags: {len(listed)} tags, more than the {limit} a post may have "
                    "(limits.tags_per_post in bipub.yaml)",
                    Severity.ERROR,
                    "tags",
                )
            )
            found, no_slug = (), ()
        doc = version.doc
        for tag in no_slug:
            wrong.append(
                Diagnostic(
                    doc.rel,
                    doc.line_of("tags"),
                    "tag",
                    f"tags: {tag!r} has no letter or digit to make its tag page's URL "
                    f"from (tags/<slug>/); add a word to it (e.g. '{tag.strip()} launch') "
                    "or remove it"
                    if tag.strip()
                    else "tags: an empty tag; remove it",
                )
            )
        tags[lang] = found
        if wrong:
            errors[lang] = tuple(wrong)
    for lang, doc in entry.docs.items():
        prefix = title_prefix(doc.meta.title)
        if prefix is not None:
            titles[lang] = (prefix.casefold(), prefix, doc)
    name = entry.source.meta.series
    return EntryTaxa(tags, errors, places, spelled, titles, slug_of(name, slugs) if name else "")


def slug_of(name: str, slugs: dict[str, str]) -> str:
    """`slugify(name)`, looked up in `slugs` (name → its slug) first and kept there: slugify is
    a function of the name alone, and a site's posts write a few hundred tags ~3 times a post."""
    slug = slugs.get(name)
    if slug is None:
        slug = slugs[name] = slugify(name)
    return slug


def _written(doc: Document, listed: Sequence[str], slugs: dict[str, str]) -> Written:
    """What `doc` writes as `listed` tags: (slug, spelling) of each that has a slug, where it
    writes each of those, and the tags that have none (`slugs`: as `taxa_of`)."""
    found: list[tuple[str, str]] = []
    places: list[TagPlace] = []
    no_slug: list[str] = []
    for i, tag in enumerate(listed):
        slug = slug_of(tag, slugs)
        if slug:
            found.append((slug, tag))
            places.append((slug, tag, doc, i))
        else:
            no_slug.append(tag)
    return tuple(found), tuple(places), tuple(no_slug)


def entry_taxa(
    entries: Iterable[Entry],
    config: SiteConfig,
    known: dict[EntryId, tuple[Entry, EntryTaxa]] | None = None,
) -> Taxa:
    """Each entry's `taxa_of`, taken from `known` (entry id → the entry it was worked out
    for, and it) for an entry that is that very entry (PairMemo: paired as it was); `known`
    is left holding this pairing's."""
    out: Taxa = {}
    kept: dict[EntryId, tuple[Entry, EntryTaxa]] = {}
    slugs: dict[str, str] = {}  # (taxa_of)
    for entry in entries:
        ident = (entry.kind, entry.key)
        last = known.get(ident) if known is not None else None
        if last is not None and last[0] is entry:
            out[ident], kept[ident] = last[1], last
        else:
            taxa = taxa_of(entry, config, slugs)
            out[ident], kept[ident] = taxa, (entry, taxa)
    if known is not None:
        known.clear()
        known.update(kept)
    return out


TagPlaces = dict[str, dict[str, dict[str, tuple[str, int | None]]]]
"""slug → spelling → file → (its language, the line of the tag)"""


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
        out.append(
            f"tags of the slug '{slug}' spelled otherwise: {'; '.join(others)}; their page {showing} ({how})"
        )
    return out


def title_prefix(title: str) -> str | None:
    """A title's prefix (`[vLLM] …` → `vLLM`), if it has one."""
    m = _TITLE_PREFIX.match(title)
    return m.group(1) if m else None


def title_prefix_warnings(lang: str, titles: Sequence[TitlePlace]) -> list[str]:
    """Warnings about title prefixes (`[vLLM] …`) that differ only in case across the posts of
    a language: one per prefix, naming the posts (file:line) that spell it unlike most."""
    groups: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for title, rel, line in titles:
        prefix = title_prefix(title)
        if prefix is not None:
            groups[prefix.casefold()][prefix].append(f"{rel}:{line}" if line else rel)
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


_TITLE_PREFIX = re.compile(r"^\s*\[([^\]]+)\]")


def collect_series(
    site: Site, collector: Collector, taxa: Taxa | None = None, named: set[int] | None = None
) -> dict[str, dict[str, Series]]:
    """Series are identified by the source's series name; each language shows its own name
    (from a translated member) and gets its own URL slug. Sources that name a series otherwise
    (a post written in English only, `series: Test series`, beside Korean posts whose English
    translations say `series: Test series`) are one series when some language's posts name
    them alike (`_alike`). Of two series whose names still make one URL in a language (the
    one begun first keeps it: `_begun`), the other gets a numbered one and a `series-clash`
    warning.
    `named`: the ids of the posts whose source names a series (`series_named`), if the caller
    has them."""
    taxa = taxa if taxa is not None else entry_taxa(site.entries, site.config)
    out: dict[str, dict[str, Series]] = {}
    said: set[str] = set()  # the files told that their series makes no URL (once each)

    def no_slug(doc: Document, name: str) -> None:
        if doc.rel not in said:
            said.add(doc.rel)
            collector.error(
                doc.rel,
                doc.line_of("series"),
                "slug",
                f"series: {name!r} has no letter or digit to make its series page's URL "
                "from (series/<slug>/); add a word to it",
                key="series",
            )

    # the posts whose source names a series, in any language (looked for once, not in each
    # language's posts: reading every post's front matter again cost more than the rest)
    named = named if named is not None else series_named(site.entries)
    one = _alike([e for e in site.entries if id(e) in named], taxa) if named else {}
    for lang in site.config.codes:
        groups: dict[str, list[Entry]] = defaultdict(list)
        for entry in site.posts(lang) if named else ():
            if id(entry) in named:
                key = taxa[(entry.kind, entry.key)].series
                if not key:
                    no_slug(entry.source, entry.source.meta.series or "")
                    continue
                groups[one.get(key, key)].append(entry)
        series_out: dict[str, Series] = {}
        # the series begun first keeps its URL in a clash, so a new series never moves the
        # page of one readers already link to (then by key: the same one every time)
        for _, members in sorted(groups.items(), key=_begun):
            members.sort(key=series_order_key)
            name = members[0].source.meta.series or ""
            named_in = members[0].source
            for e in members:
                doc = e.versions[lang].doc
                if doc.lang == lang and doc.meta.series:
                    name, named_in = doc.meta.series, doc
                    break
            _named_otherwise(collector, lang, members, name, named_in)
            slug = slugify(name)
            if not slug:  # a translated name with no letter or digit
                no_slug(named_in, name)
                continue
            clash = series_out.get(slug)
            if clash is not None:  # e.g. "C++" and "C": one series page could not show both
                n = 2
                while f"{slug}-{n}" in series_out:
                    n += 1
                _clash(collector, named_in, name, clash, f"{slug}-{n}")
                slug = f"{slug}-{n}"
            series = Series(lang, slug, name, tuple(members), named_in.lang)
            series_out[slug] = series
            for e in members:
                site.series_by_entry[(lang, e.key)] = series
        out[lang] = dict(sorted(series_out.items()))
    return out


def _begun(group: tuple[str, list[Entry]]) -> tuple[date, str]:
    """When a series began (its earliest dated post), then its key."""
    key, members = group
    return (min((e.date for e in members if e.date is not None), default=date.max), key)


def _alike(entries: Sequence[Entry], taxa: Taxa) -> dict[str, str]:
    """Source series slugs → the one their series goes by: the sources' series that a
    language's own posts (not fallbacks) name with the same words are one series."""
    parent: dict[str, str] = {}

    def find(key: str) -> str:
        while parent.get(key, key) != key:
            key = parent[key]
        return key

    first: dict[tuple[str, str], str] = {}  # (language, name) → the first series naming it so
    for entry in entries:
        key = taxa[(entry.kind, entry.key)].series
        if not key:
            continue
        for lang, doc in sorted(entry.docs.items()):
            name = (doc.meta.series or "").strip()
            if not name:
                continue
            seen = first.setdefault((lang, name), key)
            a, b = find(seen), find(key)
            if a != b:
                parent[max(a, b)] = min(a, b)
    return {key: find(key) for key in parent}


def _named_otherwise(
    collector: Collector, lang: str, members: list[Entry], name: str, named_in: Document
) -> None:
    """Each post of a series whose text in `lang` names it otherwise than `name`, the name its
    page shows there (from `named_in`, its first part written in `lang`): that name is not
    shown anywhere, so it is said (a part translated on its own, a machine draft)."""
    for e in members:
        doc = e.versions[lang].doc
        if doc is named_in or doc.lang != lang or not doc.meta.series or doc.meta.series == name:
            continue
        collector.warning(
            doc.rel,
            doc.line_of("series"),
            "series-names",
            f"series: {doc.meta.series!r} is not the name its series shows in {lang}: "
            f"{name!r}, from its first part in {lang} ({named_in.rel}:"
            f"{named_in.line_of('series') or 1}); give every part the same name",
            key=f"{e.kind}/{e.key}:series",  # (its unit's: `bipub check` lists it so)
        )


def _clash(collector: Collector, doc: Document, name: str, other: Series, slug: str) -> None:
    """`name` (written in `doc`) makes the URL of `other`, another series, in its language:
    its series gets `slug` instead."""
    first = other.entries[0].versions[other.lang].doc
    collector.warning(
        doc.rel,
        doc.line_of("series"),
        "series-clash",
        f"series: {name!r} makes the same URL in {other.lang} (series/{other.slug}/) as "
        f"another series, {other.name!r} ({first.rel}:{first.line_of('series') or 1}); its "
        f"page is series/{slug}/ there: rename one of them to give each its own URL",
        key="series",
    )


def series_named(entries: Iterable[Entry]) -> set[int]:
    """The ids of the posts of `entries` whose source names a series (`collect_series`)."""
    return {id(e) for e in entries if e.kind == "posts" and e.names_series}
