"""Tags and series, collected from the paired entries, and the warnings about how tags and
title prefixes are spelled across posts (pair/site.py calls them once the entries are paired)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from bipub.config import SiteConfig
from bipub.diagnostics import Collector
from bipub.load.content import Document
from bipub.model.fields import slugify
from bipub.pair.model import Entry, Series, Site, Tag, series_order_key, tags_of


def collect_tags(site: Site, collector: Collector) -> dict[str, dict[str, Tag]]:
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


def warn_tag_spellings(site: Site, collector: Collector) -> None:
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


_TITLE_PREFIX = re.compile(r"^\s*\[([^\]]+)\]")


def collect_series(site: Site, collector: Collector) -> dict[str, dict[str, Series]]:
    """Series are identified by the source's series name; each language shows its own name
    (from a translated member) and gets its own URL slug."""
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

    for lang in site.config.codes:
        groups: dict[str, list[Entry]] = defaultdict(list)
        for entry in site.posts(lang):
            if entry.source.meta.series:
                key = slugify(entry.source.meta.series)
                if not key:
                    no_slug(entry.source, entry.source.meta.series)
                    continue
                groups[key].append(entry)
        series_out: dict[str, Series] = {}
        for members in groups.values():
            members.sort(key=series_order_key)
            name = members[0].source.meta.series or ""
            named_in = members[0].source
            for e in members:
                doc = e.versions[lang].doc
                if doc.lang == lang and doc.meta.series:
                    name, named_in = doc.meta.series, doc
                    break
            slug = slugify(name)
            if not slug:  # a translated name with no letter or digit
                no_slug(named_in, name)
                continue
            series = Series(lang, slug, name, tuple(members))
            series_out[slug] = series
            for e in members:
                site.series_by_entry[(lang, e.key)] = series
        out[lang] = dict(sorted(series_out.items()))
    return out
