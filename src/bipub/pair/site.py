"""Pair documents across languages and decide what each language shows.

Input: the loaded `Content` and status files. Output: a `Site` (pair/model.py) — complete,
immutable values that the renderers read; its tags and series are collected by
pair/taxonomy.py. Nothing here formats or writes.
"""

from __future__ import annotations

import copy
import dataclasses
from collections import defaultdict
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from bipub.config import SiteConfig
from bipub.diagnostics import Collector
from bipub.load.content import Content, Document
from bipub.model.post import Kind, check_slug, day_of, instant_of
from bipub.model.validate import validation_diagnostics
from bipub.pair.align import out_of_step
from bipub.pair.assets import check_assets
from bipub.pair.memo import Group, Last, Paired, doc_ids
from bipub.pair.memo import PairMemo as PairMemo  # (pipeline.py imports it from here)
from bipub.pair.memo import url_keys as _url_keys

# what pairing produces, and its orders (pair/model.py), as the renderers import them from here
from bipub.pair.model import Entry as Entry
from bipub.pair.model import Series as Series
from bipub.pair.model import Site as Site
from bipub.pair.model import State as State
from bipub.pair.model import Tag as Tag
from bipub.pair.model import Version as Version
from bipub.pair.model import changed_entries
from bipub.pair.model import neighbour_table as neighbour_table
from bipub.pair.model import post_neighbours as post_neighbours
from bipub.pair.model import post_order_key as post_order_key
from bipub.pair.model import series_order_key as series_order_key
from bipub.pair.model import tags_of as tags_of
from bipub.pair.slugs import RESERVED_SLUGS, reserved_slug
from bipub.pair.status import StatusCache, StatusFile, load_status
from bipub.pair.tables import join_tables
from bipub.pair.taxonomy import collect_series, entry_taxa
from bipub.pair.units import Unit, entry_units, nfc
from bipub.schedule import PUBLISH_ALL, is_scheduled, publish_instant, zone_of

if TYPE_CHECKING:  # the CV's modules load when a CV is paired
    from bipub.pair.cv_merge import MergedCv

# front matter fields a translation takes from its source (`shared-differs` when it writes another)
SHARED_FIELDS = ("date", "updated", "slug", "series_order", "draft", "pdf", "order", "image")


def _as_written(value: object) -> str:
    """A shared field's value in a `shared-differs` message, as YAML writes it (`true`, not
    Python's `True`; one not written: "not set")."""
    if value is None:
        return "not set"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def pair_site(
    root: Path,
    config: SiteConfig,
    content: Content,
    collector: Collector,
    memo: PairMemo | None = None,
    status_cache: StatusCache | None = None,
    now: float = PUBLISH_ALL,
) -> Site:
    """Pair the loaded content. `memo`: what the last pairing worked out per entry (`PairMemo`),
    updated with this one's. `status_cache`: the status files as last parsed (else the memo's).
    `now`: the build's "now" in seconds since 1970, after which a post is scheduled (not
    published yet: bipub/schedule.py); PUBLISH_ALL (`bipub check`, `translate`, `--future`):
    none is."""
    parsed = status_cache if status_cache is not None else memo.status if memo else None
    status = {lang: load_status(root, lang, collector, parsed) for lang in config.codes}
    cv = _pair_cv(config, content, status, collector)
    if cv:  # machine-drafted CV fields get the drafts' notice (or show the source)
        from bipub.pair.cv_merge import mark_drafts

        for lang, merged in cv.items():
            states = {nfc(k): r.state for k, r in status[lang].records.items()}
            mark_drafts(merged, states, config.outputs.publish_drafts)
    units: list[Unit] = [u for merged in cv.values() for u in merged.units]
    entries = _pair_documents(config, content, status, collector, units, memo, now)
    site = Site(config, without_private(cv, config, pdf=False), entries, units, status)
    site.schedule(now)
    if memo is not None:
        memo.window = site.window
    if memo is not None:  # each language's posts in order: the last pairing's, where they hold
        memo.carry_posts(site)
    site.pdf_cv = without_private(cv, config, pdf=True)
    # what each entry brings to the tags and series (kept for the entries paired as they were)
    taxa = entry_taxa(entries, config, memo.taxa if memo is not None else None)
    # the tags and the spelling warnings: the last pairing's tables, with the changed entries
    # moved out and in (pair/tables.py), or new ones
    tables = join_tables(site, taxa, collector, memo.tables if memo is not None else None)
    if memo is not None:
        memo.tables = tables
    named = memo.series_named(entries) if memo is not None else None
    site.series = collect_series(site, collector, taxa, named)
    # issue 18/19: images that name a missing or unreadable local file; the others, probed
    with_images = memo.with_images(content.documents) if memo is not None else None
    site.images = check_assets(root, content, collector, config, with_images)
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
    src_lang = config.source_languages.cv
    src = content.cv.get(src_lang)
    if src_lang in content.failed_cv or any(lang in content.failed_cv for lang in content.cv):
        return {}  # reported while loading
    if not content.cv:  # (a site without a CV: its models not imported, ~4 ms of a cold build)
        return {}
    from bipub.model.cv import CV
    from bipub.pair.cv_merge import MergedCv, merge_cv

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


def _pair_documents(
    config: SiteConfig,
    content: Content,
    status: dict[str, StatusFile],
    collector: Collector,
    units: list[Unit],
    memo: PairMemo | None = None,
    now: float = PUBLISH_ALL,
) -> list[Entry]:
    if memo is not None:
        memo.start(config, status, now)
        again = _pair_again(config, content, status, collector, units, memo, now)
        if again is not None:
            memo.done()
            return again
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
    # what `_pair_again` starts from next time: every group paired, none failed or clashed
    last = Last(content.documents, [], [], [], {}, entries, [], {})
    whole = not content.failed and not collector.errors
    for (kind, key), docs in sorted(groups.items()):
        if content.failed and (
            any((kind, d.name) in content.failed for d in docs.values())
            or (kind, key) in content.failed
        ):
            continue  # a version failed to load and was reported; pairing it would only cascade
        paired = memo.get((kind, key), docs, status) if memo is not None else None
        if paired is None:
            first = len(collector.items)
            found: list[Unit] = []
            entry = _pair_group(config, kind, key, docs, status, collector, found, now)
            paired = Paired(doc_ids(docs), entry, tuple(found), tuple(collector.items[first:]))
            if memo is not None:
                memo.keep((kind, key), paired, status)
        else:
            collector.extend(paired.diagnostics)
        units.extend(paired.units)
        if paired.entry is None:
            whole = False
            continue
        said = len(collector.items)
        _check_urls(paired.entry, config, urls, collector)
        whole = whole and len(collector.items) == said
        if memo is not None and whole:
            last.index[(kind, key)] = len(last.keys)
            last.keys.append((kind, key))
            last.docs.append(docs)
            last.paired.append(paired)
            last.units.append(paired.units)
            if paired.diagnostics:
                last.diags[len(last.keys) - 1] = paired.diagnostics
        entries.append(paired.entry)
    if memo is not None:
        last.urls = set(urls)
        memo.last = last if whole else None
        memo.done()
    return entries


# from how many documents edited, added or removed pairing goes through every group again (a big
# change costs as much either way)
AGAIN_AT_MOST = 64


def _pair_again(
    config: SiteConfig,
    content: Content,
    status: dict[str, StatusFile],
    collector: Collector,
    units: list[Unit],
    memo: PairMemo,
    now: float,
) -> list[Entry] | None:
    """The entries, where only posts and pages were edited, added or removed since the last
    pairing and it paired every group without an error (`memo.last`): the groups of those
    documents, and the posts published or scheduled at `now` unlike then (bipub/schedule.py),
    are paired again by `_pair_group`, as `_pair_documents` would, a group left
    without documents is dropped, and the others' entries, units and what they said are the
    last pairing's, taken in their places. No URL may be claimed twice (a clash is the full
    pass's to say). None (nothing done) otherwise: `_pair_documents` goes through every
    group."""
    last = memo.last
    if last is None or content.failed or not memo.same_status:
        return None
    before, current = last.documents, content.documents
    olds, news = changed_entries(before, current, AGAIN_AT_MOST)  # (the documents)
    if len(olds) + len(news) > 2 * AGAIN_AT_MOST:
        return None
    groups: dict[Group, dict[str, Document]] = {}  # the groups changed: their documents now
    for doc, come in chain(((d, False) for d in olds), ((d, True) for d in news)):
        group = (doc.kind, doc.pair_key)
        docs = groups.get(group)
        if docs is None:
            at = last.index.get(group)
            docs = groups[group] = dict(last.docs[at]) if at is not None else {}
        if come:
            if doc.lang in docs:
                return None  # (two versions of one language: the full pass says it)
            docs[doc.lang] = doc
        elif docs.pop(doc.lang, None) is not doc:
            return None
    due = last.due(memo.window, now)  # (their documents as they were)
    for group in due:
        if group not in groups:
            groups[group] = dict(last.docs[last.index[group]])
    made: dict[Group, Paired | None] = {}  # None: the group is gone
    claimed = set(last.urls)
    for group, docs in groups.items():
        at = last.index.get(group)
        if at is not None:
            claimed.difference_update(_url_keys(last.paired[at].entry))
        if not docs:
            made[group] = None
            continue
        docs = groups[group] = dict(sorted(docs.items(), key=lambda kv: _place(kv[1])))
        if at is not None and group not in due and last.paired[at].docs == doc_ids(docs):
            # (as `PairMemo.get`)
            last.docs[at] = docs
            continue
        scratch = Collector()
        found: list[Unit] = []
        entry = _pair_group(config, group[0], group[1], docs, status, scratch, found, now)
        if entry is None or scratch.errors:
            return None
        made[group] = Paired(doc_ids(docs), entry, tuple(found), tuple(scratch.items))
    for paired in made.values():
        if paired is not None:
            keys = _url_keys(paired.entry)
            if not claimed.isdisjoint(keys):
                return None  # (a clash: the full pass says it)
            claimed.update(keys)
    memo.take_all()
    # (the last site's lists are not changed: the tables and plans compare them with these)
    last.entries, last.units = list(last.entries), list(last.units)
    for group in sorted(made):
        paired = made[group]
        at = last.index.get(group)
        if paired is None:
            assert at is not None
            memo.forget(group)
            last.remove(at)
            continue
        if at is not None:
            memo.reused -= 1
        else:
            at = last.insert(group)
        memo.keep(group, paired, status)
        last.set(at, groups[group], paired)
    last.urls = claimed
    for at in sorted(last.diags):
        collector.extend(last.diags[at])
    units.extend(chain.from_iterable(last.units))
    last.documents = current
    return last.entries


def _place(doc: Document) -> tuple[str, str, str]:
    """Where `load_content` puts `doc` among the documents (in that order, and so each entry's
    documents are in that order)."""
    return (doc.kind, doc.name, doc.lang)


def _check_urls(
    entry: Entry,
    config: SiteConfig,
    urls: dict[tuple[str, str, str], Document],
    collector: Collector,
) -> None:
    """An error for each version of `entry` whose URL an earlier entry took (`urls`: each
    language's URLs so far, by kind and case-folded slug)."""
    for lang, version in entry.versions.items():
        url_key = (lang, entry.kind, entry.slug.casefold())
        clash = urls.get(url_key)
        shown = version.doc
        if clash is not None:
            collector.error(
                shown.rel,
                shown.line_of("slug") or 1,
                "url-clash",
                f"{shown.rel} and {clash.rel} both map to the {lang} URL of "
                f"{entry.kind} '{entry.slug}'; give one of them another slug",
            )
        else:
            urls[url_key] = shown


def _pair_group(
    config: SiteConfig,
    kind: Kind,
    key: str,
    docs: dict[str, Document],
    status: dict[str, StatusFile],
    collector: Collector,
    units: list[Unit],
    now: float = PUBLISH_ALL,
) -> Entry | None:
    """Pair one entry's documents (language → document); its units are added to `units`
    (its URLs are checked against the other entries' by `_check_urls`). A post dated after
    `now` is scheduled (bipub/schedule.py)."""
    declared = {d.meta.source_lang for d in docs.values() if d.meta.source_lang}
    default = getattr(config.source_languages, kind)
    codes = config.codes
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
    if source_lang not in codes:
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
        if len(only) == 1 and kind == "posts" and docs[only[0]].meta.date is None:
            doc = docs[only[0]]  # (a translation carries no date: its source's is gone)
            collector.error(
                doc.rel,
                1,
                "missing-source",
                f"{kind}/{key} exists only in {only[0]} and has no date: a translation whose "
                f"{source_lang} source (content/{source_lang}/{kind}/{key}.md, or the file whose "
                f"key is {key!r}) is gone: renamed, rename this file to match (or give both "
                f"the same 'key:'); deleted, delete it; an original, give it a date and "
                f"'source_lang: {only[0]}'",
            )
            return None
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
        written = doc.meta.model_fields_set
        for fname in SHARED_FIELDS:
            if fname not in written:
                continue
            tv, sv = getattr(doc.meta, fname), getattr(src.meta, fname)
            if fname == "draft" and tv != sv:
                if sv:  # (a translation may hold itself back; it cannot publish a source draft)
                    collector.warning(
                        doc.rel,
                        doc.line_of(fname),
                        "shared-differs",
                        f"draft: {_as_written(tv)} here but true in {src.rel}: a post whose source "
                        "is a draft is published in no language",
                        key=fname,
                    )
            elif tv != sv:
                collector.warning(
                    doc.rel,
                    doc.line_of(fname),
                    "shared-differs",
                    f"{fname}: {_as_written(tv)} here but {_as_written(sv)} in {src.rel}; "
                    "shared fields come from the source",
                    key=fname,
                )
    slug = src.meta.slug or key.rsplit("/", 1)[-1]
    slug_ok = True
    try:
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
    by_lang = entry_units(kind, key, source_lang, docs, codes)
    for lang in codes:
        if lang == source_lang:
            versions[lang] = Version(lang, src, "source")
        else:
            doc_units = by_lang[lang]
            units.extend(doc_units)
            version = _resolve_version(config, lang, src, docs.get(lang), doc_units, status[lang])
            if (tr := docs.get(lang)) is not None:  # (pair/align.py: said at build and check)
                out_of_step(f"{kind}/{key}", src, tr, status[lang].records, collector)
            if version is not None:
                versions[lang] = version
    meta = src.meta
    instant = None
    if meta.date is not None:  # (a page's too, since session 34: bipub/schedule.py)
        instant = publish_instant(meta.date, zone_of(config.time_zone))
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
        instant,
        is_scheduled(instant, now),
    )


def _resolve_version(
    config: SiteConfig,
    lang: str,
    src: Document,
    tr: Document | None,
    doc_units: list[Unit],
    status: StatusFile,
) -> Version | None:
    """What `lang` shows of the entry. Of a status record it reads the state and source hash
    only (pair/memo.py `status_read` keys on them: keep the two in step)."""
    if tr is None:
        if config.outputs.untranslated == "omit":
            return None
        return Version(lang, src, "missing")
    draft_keys: list[str] = []
    stale_keys: list[str] = []
    for unit in doc_units:
        rec = status.records.get(unit.key)
        if rec is None or not unit.translated:
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
