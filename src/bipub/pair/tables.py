"""The site-wide tables pairing joins from what each entry brings (pair/taxonomy.py
`EntryTaxa`): each language's tags (the spelling each tag page shows) and their posts, what is
wrong with the tags, and the tag-spelling and title-prefix warnings.

Every pairing moves the parts of the entries that changed out of the tables and the new ones
in, then works out again only the tags, spellings and title prefixes those parts touch: a full
build starts from empty tables (every entry is new to them), `bipub serve` from the tables the
last pairing left (kept in pair/site.py PairMemo), a `bipub build` from those the last build
left (kept in the entries file in a small shape, `tables_state`, and read back,
`tables_read_back`: restore.py). An entry has changed when it is not the
very object the last join was moved to (`Tables.joined`: the tables hold those entries with
their taxa, `Tables.taxa`, not a table of each entry again): PairMemo keeps an entry whose files,
status records and configuration are as they were as it was paired, and pairs every other one
again. The tables hold no list or dict they gave out: a table given to a `Site` is never changed
afterwards.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, count
from operator import attrgetter, itemgetter
from typing import Any

from bipub.config import SiteConfig
from bipub.diagnostics import Collector, Diagnostic
from bipub.load.content import Document
from bipub.pair.model import (
    Entry,
    EntryId,
    Site,
    Tag,
    changed_entries,
    insert_post,
    post_order_key,
    remove_post,
)
from bipub.pair.taxonomy import (
    EntryTaxa,
    TagPlaces,
    Taxa,
    tag_spelling_warnings,
    title_prefix_warnings,
)

Held = dict[EntryId, tuple[Entry, EntryTaxa]]  # entries moved out or in, with their taxa
_first, _third = itemgetter(0), itemgetter(2)  # (a title's prefix; a cached document)


@dataclass
class LangTags:
    """One language's tags, joined from the posts it lists."""

    counts: dict[str, dict[str, int]] = field(default_factory=dict)  # slug → spelling → posts
    tags: dict[str, Tag] = field(default_factory=dict)
    members: dict[str, list[Entry]] = field(default_factory=dict)  # slug → posts, newest first
    errors: dict[EntryId, tuple[Diagnostic, ...]] = field(default_factory=dict)


@dataclass
class Tables:
    """What the last pairing joined (module text); empty for a full build."""

    config: SiteConfig | None = None  # the configuration they were joined with
    langs: dict[str, LangTags] = field(default_factory=dict)
    # slug → spelling → how many parts write it (in any language; `_places` finds where)
    spellings: dict[str, dict[str, int]] = field(default_factory=dict)
    spelling: dict[str, list[str]] = field(default_factory=dict)  # slug → its warning (or none)
    # language → lower-cased prefix → file → the prefix as it writes it; and its warning
    prefixes: dict[str, dict[str, dict[str, tuple[str, Document]]]] = field(default_factory=dict)
    prefix_warnings: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    # the entries each language's posts and the titles were last moved to (`_changes`), by
    # language ("": every entry, titles are checked in drafts too), and the taxa they were
    # moved with: what the tables hold. None while a join is under way: the join after one that
    # failed starts from empty tables
    joined: dict[str, list[Entry]] = field(default_factory=dict)
    taxa: Taxa = field(default_factory=dict)


def join_tables(site: Site, taxa: Taxa, collector: Collector, tables: Tables | None) -> Tables:
    """Set `site.tags` and `site.tag_posts` and report what is wrong with the tags and how tags
    and title prefixes are spelled, from `tables` (the last pairing's, None: empty) moved to
    this pairing's entries. Returns the tables for the next pairing."""
    config = site.config
    if tables is None or tables.config != config or not tables.joined:
        tables = Tables(config)
    touched: set[str] = set()  # slugs whose tag or spellings may have changed
    joined, tables.joined = tables.joined, {}
    for lang in config.codes:
        tables.langs.setdefault(lang, LangTags())
    moves = {
        lang: _changes(joined.get(lang), tables.taxa, site.posts(lang), taxa)
        for lang in config.codes
    }
    for lang, (gone, come) in moves.items():
        delta = Counter(_written(come, "spelled", lang))
        delta.subtract(_written(gone, "spelled", lang))
        for (slug, spelling), n in delta.items():
            touched.add(slug)  # (a changed post's file may write it on another line)
            if n:
                counts = tables.spellings.setdefault(slug, {})
                counts[spelling] = counts.get(spelling, 0) + n
                if not counts[spelling]:
                    del counts[spelling]
                    if not counts:
                        del tables.spellings[slug]
    for lang, (gone, come) in moves.items():
        lt = tables.langs[lang]
        touched.update(_move_tags(config, lang, lt, gone, come))
        site.tags[lang] = dict(sorted(lt.tags.items()))
        site.tag_posts[lang] = dict(lt.members)
        for errors in lt.errors.values():
            collector.extend(errors)
    for slug in touched:
        if len(tables.spellings.get(slug, ())) < 2:  # (one spelling: nothing to say)
            tables.spelling.pop(slug, None)
            continue
        shown = {
            lang: tags.tags[slug].name for lang, tags in tables.langs.items() if slug in tags.tags
        }
        written: TagPlaces = {slug: _places(tables, slug, taxa)}
        tables.spelling[slug] = tag_spelling_warnings(config, written, {slug: shown})
    for slug in sorted(tables.spelling):  # issue 18: once, naming the posts
        for message in tables.spelling[slug]:
            collector.warning(None, None, "tag-spellings", message)
    _move_titles(config, tables, site.entries, taxa, joined.get(""))
    tables.taxa = taxa
    for lang in config.codes:
        warnings = tables.prefix_warnings.get(lang, {})
        for folded in sorted(warnings):
            for message in warnings[folded]:
                collector.warning(None, None, "title-prefix", message)
    tables.joined = {lang: site.posts(lang) for lang in config.codes}
    tables.joined[""] = site.entries
    return tables


def _changes(
    last: Sequence[Entry] | None, last_taxa: Taxa, now: Sequence[Entry], taxa: Taxa
) -> tuple[Held, Held]:
    """(the parts to move out, the parts to move in): of the entries of `last` (those the tables
    were last moved to, with their taxa `last_taxa`; None: empty tables) that are not in `now`
    as the same object, and of those of `now` that are not in `last` as such (by identity:
    `bipub serve` keeps the entries that did not change). An entry that only moved in the
    order may be in both."""
    if last is None:  # (a full build: every entry comes in)
        ids = [(e.kind, e.key) for e in now]
        return {}, {i: (e, taxa[i]) for i, e in zip(ids, now, strict=True)}
    olds, news = changed_entries(last, now)
    gone: Held = {}
    for old in olds:
        ident = (old.kind, old.key)
        gone[ident] = (old, last_taxa[ident])
    come: Held = {}
    for new in news:
        ident = (new.kind, new.key)
        come[ident] = (new, taxa[ident])
    return gone, come


def _written(parts: Held, field: str, lang: str) -> Iterator[tuple[str, str]]:
    """The (slug, spelling) of each tag the taxa of `parts` list in `lang` (`field`: their
    `tags` or `spelled`), iterated in C (a generator's step a post cost more than counting)."""
    return chain.from_iterable(
        map(itemgetter(lang), map(attrgetter(field), map(itemgetter(1), parts.values())))
    )


def _places(tables: Tables, slug: str, taxa: Taxa) -> dict[str, dict[str, tuple[str, int | None]]]:
    """Where the posts the languages list write the tag `slug`: spelling → file → (its
    language, the line of its first tag of that spelling). A post writing it lists it (its
    tag's members), unless its tags are wrong (its errors): only those are looked at, in the
    taxa the tables were moved to (`taxa`)."""
    out: dict[str, dict[str, tuple[str, int | None]]] = {}
    for lang, lt in tables.langs.items():
        idents = [(e.kind, e.key) for e in lt.members.get(slug, ())]
        for ident in [*idents, *lt.errors]:
            for s, spelling, doc, index in taxa[ident].places[lang]:
                if s == slug:
                    where = out.setdefault(spelling, {})
                    if doc.rel not in where:
                        where[doc.rel] = (doc.lang, doc.yaml.line_for(("tags", index)))
    return out


def _move_tags(config: SiteConfig, lang: str, lt: LangTags, gone: Held, come: Held) -> set[str]:
    """Move the changed posts' tags in `lang` out of (`gone`) and into (`come`) `lt`, and work
    out again each tag they touch; returns the slugs they touch."""
    delta = Counter(_written(come, "tags", lang))
    delta.subtract(_written(gone, "tags", lang))
    touched: set[str] = set()
    for (slug, spelling), n in delta.items():
        touched.add(slug)
        if n:
            counts = lt.counts.setdefault(slug, {})
            counts[spelling] = counts.get(spelling, 0) + n
            if not counts[spelling]:
                del counts[spelling]
    for ident in gone:
        lt.errors.pop(ident, None)
    listing: dict[str, list[Entry]] = {}  # slug → the posts moved in that list it
    for ident, (entry, own) in come.items():
        if lang in own.errors:
            lt.errors[ident] = own.errors[lang]
        for slug, _ in own.tags[lang]:
            posts = listing.get(slug)
            if posts is None:
                listing[slug] = [entry]
            elif posts[-1] is not entry:  # (a post listing a tag twice is in it once)
                posts.append(entry)
    for slug in touched:
        if not lt.counts.get(slug):
            lt.counts.pop(slug, None)
            lt.tags.pop(slug, None)
            lt.members.pop(slug, None)
            continue
        ranked = sorted(lt.counts[slug].items(), key=lambda kv: (-kv[1], kv[0]))
        name = config.preferred_tag(slug) or ranked[0][0]  # (tag_spellings)
        lt.tags[slug] = Tag(slug, name, tuple(s for s, _ in ranked))
        lt.members[slug] = _members(lt.members.get(slug, []), slug, lang, gone, listing)
    return touched


def _members(
    was: list[Entry], slug: str, lang: str, gone: Held, listing: dict[str, list[Entry]]
) -> list[Entry]:
    """The posts listing the tag `slug` (newest first): `was` without the posts `gone` and with
    those moved in that list it (`listing`, in post order, as `come` is). A new list: the
    last site's is not changed."""
    new = listing.get(slug, [])
    out = [e for e, own in gone.values() if any(s == slug for s, _ in own.tags.get(lang, ()))]
    if len(out) + len(new) <= 16:  # (a few: each taken out and put in its place)
        members = list(was)
        for entry in out:
            if not remove_post(members, entry):
                raise AssertionError(f"{entry.key}: not among the posts of the tag {slug}")
        for entry in new:
            insert_post(members, entry)
        return members
    kept = [e for e in was if (e.kind, e.key) not in gone]
    members = [*kept, *new]
    if kept and new:  # (both in post order already)
        members.sort(key=post_order_key, reverse=True)
    return members


def _move_titles(
    config: SiteConfig,
    tables: Tables,
    entries: list[Entry],
    taxa: Taxa,
    last: list[Entry] | None = None,
) -> None:
    """Move the changed entries' titles out of and into the title-prefix groups, and work out
    again the warnings of the groups they touch (`last`: as `_changes`)."""
    gone, come = _changes(last, tables.taxa, entries, taxa)
    touched: set[tuple[str, str]] = set()
    groups = {lang: tables.prefixes.setdefault(lang, {}) for lang in config.codes}
    for sign, parts in ((-1, gone), (1, come)):
        for _entry, own in parts.values():
            for lang, (folded, prefix, doc) in own.titles.items():
                in_lang = groups.get(lang)
                if in_lang is None:
                    continue
                group = in_lang.get(folded)
                if group is None:
                    group = in_lang[folded] = {}
                if sign < 0:
                    group.pop(doc.rel, None)
                else:
                    group[doc.rel] = (prefix, doc)
                touched.add((lang, folded))
    for lang, folded in touched:
        group = tables.prefixes[lang][folded]
        warnings = tables.prefix_warnings.setdefault(lang, {})
        if not group:
            del tables.prefixes[lang][folded]
        if len({prefix for prefix, _ in group.values()}) < 2:  # (one way: nothing to say)
            warnings.pop(folded, None)
        else:
            titles = [(d.meta.title, d.rel, d.line_of("title")) for _, d in group.values()]
            warnings[folded] = title_prefix_warnings(lang, titles)


# The tables as the entries file keeps them (restore.py, `PairMemo.tables_state`): each
# language's (counts, tags, each tag's posts by their places in the posts the tables were
# moved to, errors), the spellings and their warnings, each prefix group's files by name and
# the prefix each writes (two lists, in the group's order), the prefix warnings. Unpickling
# the tables whole, their entries named, cost more than joining them (~0.12 s against ~0.03 s
# at 5,000 posts a language); this shape is ~0.5 MB of integers and strings (~1 ms to read).
TablesState = tuple[
    dict[str, tuple[dict[str, dict[str, int]], dict[str, Tag], dict[str, list[int]], Any]],
    dict[str, dict[str, int]],
    dict[str, list[str]],
    dict[str, dict[str, tuple[list[str], list[str]]]],
    dict[str, dict[str, list[str]]],
]


def tables_state(tables: Tables) -> TablesState | None:
    """`tables` in the entries file's shape (`TablesState`), or None if no join left them (one
    under way or failed)."""
    if not tables.joined:
        return None
    langs = {}
    for lang, lt in tables.langs.items():
        place = dict(zip(map(id, tables.joined[lang]), count(), strict=False))
        members = {
            slug: list(map(place.__getitem__, map(id, es))) for slug, es in lt.members.items()
        }
        langs[lang] = (lt.counts, lt.tags, members, lt.errors)
    prefixes = {
        lang: {
            folded: (list(group), list(map(_first, group.values())))
            for folded, group in groups.items()
        }
        for lang, groups in tables.prefixes.items()
    }
    return (langs, tables.spellings, tables.spelling, prefixes, tables.prefix_warnings)


def tables_read_back(
    config: SiteConfig,
    state: TablesState,
    joined: dict[str, list[Entry]],
    taxa: Taxa,
    docs: Mapping[str, tuple[Any, str, Any]],
) -> Tables:
    """The tables `tables_state` kept, moved to the entries `joined` (each language's posts
    and every entry, "", as the last join was: read back with the pairing, pair/memo.py
    `PairMemo.restored`) with their taxa `taxa`, each prefix group's documents the build
    cache's of that file (`docs`: the last build's, as the entries were read back with)."""
    langs, spellings, spelling, prefixes, prefix_warnings = state
    tables = Tables(config, spellings=spellings, spelling=spelling)
    tables.prefix_warnings = prefix_warnings
    for lang, (counts, tags, members, errors) in langs.items():
        get = joined[lang].__getitem__
        made = {slug: list(map(get, places)) for slug, places in members.items()}
        tables.langs[lang] = LangTags(counts, tags, made, errors)
    tables.prefixes = {
        lang: {
            folded: dict(
                zip(
                    rels,
                    zip(prefixes, map(_third, map(docs.__getitem__, rels)), strict=True),
                    strict=True,
                )
            )
            for folded, (rels, prefixes) in groups.items()
        }
        for lang, groups in prefixes.items()
    }
    tables.joined, tables.taxa = joined, taxa
    return tables
