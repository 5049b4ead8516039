"""What `bipub translate` drafts: the plan (units, their segments, request specs) and its cost.

    plan = make_plan(root, "en", only=["posts/"])   # read everything, decide what to draft
    est = estimate(plan)                             # what would be sent (translate/cost.py)

What gets drafted: units of the target language that are `missing` (no translation) or `stale`
(the source changed since the recorded `source_hash`), whose source is another language, plus
missing msgstr of the project's gettext catalog that the bundled theme does not translate.
Each unit is split into segments (translate/segments.py); a segment is what one DeepL text
holds. Identical segments are sent once; segments answered before (the cache) are not sent;
segments with nothing to translate (only code, numbers, URLs) are never sent; in a stale unit,
a segment whose source did not change keeps the translation it has.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Literal

from bipub.check.glossary import Glossary, load_glossary
from bipub.check.parity import check_documents, normalize_status
from bipub.config import SiteConfig
from bipub.diagnostics import Collector, ConfigError, Diagnostic, DiagnosticError
from bipub.load.content import Content, CvFile, Document
from bipub.pair.page_links import PageLinks
from bipub.pair.status import UNTRANSLATED, Rejections, StatusRecord
from bipub.pair.units import Unit, nfc, text_hash
from bipub.pipeline import load, pair
from bipub.project import Project
from bipub.render.catalogs import po_path, read_catalog
from bipub.render.pdf.links import short_wanted
from bipub.render.templates import THEME_DIR
from bipub.translate import markdown_xml as mx
from bipub.translate.cache import cache_key
from bipub.translate.deepl_client import (
    RequestOptions,
    deepl_source,
    deepl_target,
    fits,
    sent_formality,
)
from bipub.translate.memory import (
    MEMORY,
    Said,
    document_pools,
    from_document,
    kept_said,
    kept_words,
    series_kept,
    series_names,
)
from bipub.translate.segments import Layout, Segment, layout, ui_layout

ENGINE = "deepl"
Mode = Literal["fill", "replace", "beside"]
UI_SOURCE_LANG = "en"  # msgids are English (bipub.check.parity.UI_SOURCE_LANG)
#: At most this much neighbouring text goes in DeepL's `context` (free, but in the request body).
CONTEXT_CHARS = 2000


# --------------------------------------------------------------------------- the plan


@dataclass(frozen=True)
class Job:
    """One unit to draft: its layout (skeleton and segments) and, per segment, a translation
    kept from the unit's present translation (None: to be translated)."""

    unit: Unit  # key NFC
    group: str  # what is written together: "posts/<key>", "pages/<key>", "cv", "ui"
    mode: Mode
    layout: Layout
    spec: str  # request spec id (languages + options), see Plan.specs
    record: StatusRecord | None
    kept: tuple[str | None, ...] = ()
    po: tuple[str, tuple[int, ...]] | None = None  # a plural UI entry: msgid, msgstr indexes
    named: bool = False  # a series name kept as the series' other parts have (memory.py)
    #: per segment, what drafting said of the present translation it keeps (memory.py)
    said: tuple[tuple[tuple[str, str], ...], ...] = ()

    @property
    def key(self) -> str:
        return self.unit.key

    def to_send(self) -> list[Segment]:
        """The segments that need an answer from the engine."""

        def kept(index: int) -> bool:
            return index < len(self.kept) and self.kept[index] is not None

        return [
            s
            for s in self.layout.segments
            if s.needs_request
            and not kept(s.index)
            and not (s.parent is not None and kept(s.parent[0]))  # its link's text is kept
        ]

    @property
    def needs_request(self) -> bool:
        return bool(self.to_send())

    @property
    def engine(self) -> str:
        """The engine, or MEMORY: nothing sent, words kept (translate/memory.py)."""
        kept = not self.needs_request and kept_words(self.layout, self.kept)[0]
        return MEMORY if kept else ENGINE

    @property
    def context_group(self) -> str:
        """Segments asked together, with the same neighbours as DeepL `context`: one body
        section, or a document's front matter fields together."""
        key = self.unit.key
        if key.startswith(("cv:", "ui:")):
            return key.split(":", 1)[0]
        doc, _, name = key.partition(":")
        return key if name.startswith("body#") else f"{doc}:front"


@dataclass(frozen=True)
class Spec:
    """How texts from one source language are requested."""

    options: RequestOptions
    glossary: dict[tuple[str, str], dict[str, str]]  # dictionaries to sync (all pairs)
    glossary_pair: dict[str, str]  # the entries that apply to this language pair
    glossary_name: str | None  # "bipub <site> <content hash>": one glossary per content
    glossary_family: str | None = None  # "bipub <site> ": this site's glossaries on DeepL

    def fingerprint(self) -> dict[str, Any]:
        return {
            **self.options.fingerprint(),
            "glossary": sorted(self.glossary_pair.items()),
            "encoder": mx.VERSION,
        }


@dataclass(frozen=True)
class Group:
    name: str
    kind: Literal["doc", "cv", "ui"]
    source_file: str
    target_file: str
    source_doc: Document | None = None
    target_doc: Document | None = None
    source_cv: CvFile | None = None
    target_cv: CvFile | None = None


@dataclass
class Plan:
    root: Path
    config: SiteConfig
    target: str
    jobs: list[Job]
    groups: dict[str, Group]
    specs: dict[str, Spec]
    glossary: Glossary
    notes: list[str] = field(default_factory=list)
    too_long: dict[str, Job] = field(default_factory=dict)  # left out: a segment too large
    pages: PageLinks | None = None  # the site's pages per language
    rejected: dict[str, Rejections] = field(default_factory=dict)  # (translate/rejected.py)
    _keys: dict[tuple[str, str], str] = field(default_factory=dict, repr=False)
    _groups: dict[str, list[Job]] = field(default_factory=dict, repr=False)

    def request_key(self, job: Job, segment: Segment) -> str:
        """The cache key of one segment's text under its job's request spec."""
        ident = (job.spec, segment.encoded.xml)
        key = self._keys.get(ident)
        if key is None:
            fingerprint = self.specs[job.spec].fingerprint()
            key = self._keys[ident] = cache_key(fingerprint, segment.encoded.xml)
        return key

    def context(self, group: str) -> str | None:
        """DeepL `context` for the segments of one context group: bipub.yaml's context, then
        the group's source text without markup (not translated, not billed)."""
        if not self._groups:
            for j in self.jobs:
                self._groups.setdefault(j.context_group, []).append(j)
        parts = [self.config.translate.context or ""]
        texts = [
            mx.plain(s.encoded.xml)
            for j in self._groups.get(group, [])
            for s in j.layout.segments
            if s.needs_request
        ]
        joined = "\n".join(t for t in texts if t)
        if len(joined) > CONTEXT_CHARS:
            joined = joined[:CONTEXT_CHARS]
        parts.append(joined)
        text = "\n\n".join(p for p in parts if p)
        return text or None


def _matches(unit: Unit, only: Sequence[str]) -> bool:
    """`--only`: a unit-key prefix, or a glob/prefix of its source or translation file."""
    if not only:
        return True
    key = nfc(unit.key)
    files = [unit.source_file, unit.translation_file]
    for pattern in only:
        pat = nfc(pattern)
        if key.startswith(pat):
            return True
        if any(p and (fnmatchcase(p, pat) or p.startswith(pat)) for p in files):
            return True
    return False


def _only_matches(only: Sequence[str], units: Sequence[Unit], target: str) -> None:
    """Each `--only` names some unit of the site (a typo drafted nothing, said "Nothing to
    draft" and exited 0): ConfigError (exit 2) naming the pattern, and the keys it was likely
    meant for. UI keys and the catalog (`ui:`, locales/) are not checked here."""
    unmatched = [
        p
        for p in only
        if not nfc(p).startswith("ui:")
        and "locales/" not in p
        and not any(_matches(u, [p]) for u in units)
    ]
    if not unmatched:
        return
    docs = sorted({nfc(u.key).split(":", 1)[0] for u in units})
    problems = []
    for pattern in unmatched:
        close = difflib.get_close_matches(nfc(pattern).split(":", 1)[0], docs, n=3, cutoff=0.75)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        problems.append(
            Diagnostic(
                None,
                None,
                "usage",
                f"--only {pattern}: no unit of the site translated into {target} matches{hint}",
            )
        )
    raise ConfigError(problems)


def _mode(unit: Unit, record: StatusRecord | None) -> Mode | None:
    if unit.translation is None:
        return "fill"
    if (
        record is not None
        and record.options
        and UNTRANSLATED in record.options
        and record.state == "draft"
        and record.translation_hash == text_hash(unit.translation)
    ):
        return "replace"  # a stand-in source text an earlier run could not translate
    if record is None or record.source_hash == text_hash(unit.source):
        return None  # current (a human translation without a record counts as current)
    if (
        record.state == "draft"
        and record.origin == "machine"
        and record.translation_hash == text_hash(unit.translation)
    ):
        return "replace"  # our own unedited draft
    return "beside"  # reviewed, or written or edited by a person: never overwritten


def _kept(
    lay: Layout, unit: Unit, record: StatusRecord | None, keep: Sequence[str]
) -> tuple[str | None, ...]:
    """For a stale unit: per segment, the present translation of a segment whose source did
    not change (None: translate it). Needs the recorded old source and a present translation
    with the same segment shape as that old source; otherwise every segment is translated."""
    if record is None or not record.source or unit.translation is None:
        return ()
    if record.options and UNTRANSLATED in record.options:
        return ()  # the present text is the source standing in: nothing to keep
    title = unit.key.endswith(":title")
    old = layout(record.source, keep, title=title)
    now = layout(unit.translation, keep, title=title)
    if [s.kind for s in old.segments] != [s.kind for s in now.segments]:
        return ()
    if text_hash(record.source) != record.source_hash:
        return ()
    pool: dict[str, list[str]] = {}
    for o, t in zip(old.segments, now.segments, strict=True):
        pool.setdefault(o.body, []).append(t.body)
    out: list[str | None] = []
    for seg in lay.segments:
        hits = pool.get(seg.body)
        out.append(hits.pop(0) if hits and seg.needs_request else None)
    return tuple(out)


def _glossary_dictionaries(
    glossary: Glossary, langs: Sequence[str]
) -> dict[tuple[str, str], dict[str, str]]:
    """DeepL glossary entries per language pair: every rendering of a term → its first rendering
    in the other language (`keep` terms are protected in the XML instead)."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    for src in langs:
        for tgt in langs:
            if src == tgt:
                continue
            entries: dict[str, str] = {}
            for term in glossary.terms:
                targets = term.renderings(tgt)
                if not targets:
                    continue
                for rendering in term.renderings(src):
                    if rendering.strip() and rendering not in entries:
                        entries[rendering.strip()] = targets[0].strip()
            if entries:
                out[(deepl_source(src).lower(), deepl_source(tgt).lower())] = entries
    return out


def _spec(config: SiteConfig, glossary: Glossary, source: str, target: str) -> Spec:
    opts = config.translate
    tgt = deepl_target(target, opts.english)
    options = RequestOptions(
        source_lang=deepl_source(source),
        target_lang=tgt,
        formality=sent_formality(opts.formality, tgt),
        model_type=opts.model_type,
        context=opts.context,
        tag_handling="xml",
        ignore_tags=mx.IGNORE_TAGS,
        splitting_tags=mx.SPLITTING_TAGS,
        non_splitting_tags=mx.NON_SPLITTING_TAGS,
    )
    dictionaries = _glossary_dictionaries(glossary, config.codes) if opts.glossary else {}
    pair = dictionaries.get((deepl_source(source).lower(), deepl_source(target).lower()), {})
    name = family = None
    if dictionaries:
        blob = json.dumps(
            sorted((f"{s}-{t}", sorted(e.items())) for (s, t), e in dictionaries.items())
        )
        site = hashlib.sha256(str(config.base_url).encode("utf-8")).hexdigest()[:8]
        family = f"bipub {site} "
        name = family + hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]
    return Spec(options, dictionaries, pair, name, family)


def make_plan(root: Path, target: str, only: Sequence[str] = ()) -> Plan:
    """Read the project and decide what to draft. DiagnosticError when the content has errors
    (nothing is drafted from a broken project); ConfigError (exit 2) for a bad --to. A
    relative `root` (`Path(".")`) is taken from the working directory: the plan's root, and
    every path it writes under, is absolute (the loader cut a relative root's length off the
    content paths: `ntent/ko/posts/…`)."""

    root = root.resolve()
    project = Project(root)
    collector = Collector()
    config, content = load(project, collector)
    if target not in config.codes:
        raise ConfigError(
            [
                Diagnostic(
                    "bipub.yaml",
                    None,
                    "usage",
                    f"--to {target}: not a language of this site ({', '.join(config.codes)})",
                )
            ]
        )
    site = pair(project, config, content, collector)
    glossary = load_glossary(root, config.codes, collector)
    collector.raise_if_errors()
    view, problems = normalize_status(site.status[target])
    if problems:
        raise DiagnosticError(Diagnostic(p.file, p.line, p.code, p.message) for p in problems)
    excluded = check_documents(site, content).excluded
    keep = tuple(glossary.keep)

    docs: dict[tuple[str, str], tuple[Document, Document | None]] = {}
    for entry in site.entries:
        docs[(entry.kind, nfc(entry.key))] = (entry.source, entry.docs.get(target))

    pages = PageLinks(site, config.codes, config.base_url, short_wanted)  # (translate/links.py)
    plan = Plan(root, config, target, [], {}, {}, glossary, pages=pages, rejected=view.rejected)

    def spec_id(source_lang: str) -> str:
        if source_lang not in plan.specs:
            plan.specs[source_lang] = _spec(config, glossary, source_lang, target)
        return source_lang

    candidates = [u for u in site.units if u.target_lang == target and u.source_lang != target]
    _only_matches(only, candidates, target)
    named = series_names(candidates, view.records)
    said: dict[str, Said] = {}  # (what drafting said of kept translations: memory.py)
    pools = document_pools(candidates, view.records, keep, said)
    # a document missing in the target is drafted whole: --only naming any unit of it is enough
    missing_docs = {f"{kind}/{key}" for (kind, key), (_, tgt) in docs.items() if tgt is None}
    wanted_docs = {
        nfc(u.key).split(":", 1)[0]
        for u in candidates
        if nfc(u.key).split(":", 1)[0] in missing_docs and _matches(u, only)
    }
    for unit in candidates:
        key = nfc(unit.key)
        unit = replace(unit, key=key)
        if any(key.startswith(prefix) for prefix in excluded):
            continue
        record = view.records.get(key)
        mode = _mode(unit, record)
        if mode is None:
            continue
        group = "cv" if key.startswith("cv:") else key.split(":", 1)[0]
        if not _matches(unit, only) and not (group in wanted_docs and mode == "fill"):
            continue
        if group not in plan.groups:
            plan.groups[group] = _group(group, content, docs, config, target)
        lay = layout(unit.source, keep, title=key.endswith(":title"))
        kept = _kept(lay, unit, record, keep) if mode != "fill" else ()
        kept = from_document(lay, kept, pools.get(key.rsplit(":", 1)[0]))  # (moved sections)
        known = named.get(nfc(unit.source)) if key.endswith(":series") else None
        kept_name = series_kept(lay, known[0], keep) if known is not None else ()
        if known is not None and kept_name:
            kept = kept_name
            plan.notes.append(
                f"{key}: the series' name in {target} as {known[1]} has it, reviewed: "
                f"{known[0]!r} (not sent)"
            )
        sid = spec_id(unit.source_lang)
        again = () if kept_name else kept_said(lay, kept, said.get(key.rsplit(":", 1)[0]))
        plan.jobs.append(
            Job(unit, group, mode, lay, sid, record, kept, named=bool(kept_name), said=again)
        )

    ui_jobs, ui_group, ui_notes = _ui_jobs(project, config, target, only, keep, spec_id)
    plan.notes.extend(ui_notes)
    if ui_group is not None and ui_jobs:
        plan.groups["ui"] = ui_group
        plan.jobs.extend(ui_jobs)

    for job in plan.jobs:
        for seg in job.to_send():
            if not fits(seg.encoded.xml):
                plan.too_long[job.key] = job
                plan.notes.append(f"{job.key}: {too_long(seg)} — the unit is left out")
                break
    plan.jobs = [j for j in plan.jobs if j.key not in plan.too_long]
    wanted = config.translate.formality
    for spec in plan.specs.values():
        if wanted != "default" and spec.options.formality != wanted:
            plan.notes.append(
                f"DeepL has no formality for {spec.options.target_lang}: formality {wanted!r} "
                f"is sent as {spec.options.formality!r}, which DeepL accepts and ignores there"
            )
    return plan


def too_long(seg: Segment) -> str:
    """Why a unit is left out (Plan.too_long): its segment `seg` does not fit a request."""
    return (
        f"segment {seg.index} (line {seg.line}) is too long for one DeepL request "
        f"({len(seg.encoded.xml):,} characters); split the paragraph"
    )


def _group(
    name: str,
    content: Content,
    docs: dict[tuple[str, str], tuple[Document, Document | None]],
    config: SiteConfig,
    target: str,
) -> Group:
    if name == "cv":
        src_lang = config.source_languages.cv
        src = content.cv[src_lang]
        tgt = content.cv.get(target)
        return Group(
            "cv",
            "cv",
            src.rel,
            tgt.rel if tgt else f"content/{target}/cv.yaml",
            source_cv=src,
            target_cv=tgt,
        )
    kind, key = name.split("/", 1)
    src_doc, tgt_doc = docs[(kind, key)]
    target_file = tgt_doc.rel if tgt_doc else f"content/{target}/{kind}/{src_doc.name}.md"
    return Group(name, "doc", src_doc.rel, target_file, source_doc=src_doc, target_doc=tgt_doc)


def _ui_jobs(
    project: Project,
    config: SiteConfig,
    target: str,
    only: Sequence[str],
    keep: Sequence[str],
    spec_id: Callable[[str], str],
) -> tuple[list[Job], Group | None, list[str]]:
    """Missing msgstr of the project's catalog for the target language (msgids are English),
    except msgids the bundled theme's catalog translates (its translation is used). A plural
    entry gets one job per msgid form the language needs: Korean has one plural form (the
    plural msgid's translation), English two (singular, plural)."""

    if target == UI_SOURCE_LANG:
        return [], None, []
    path = po_path(project.locales, target)
    if not path.is_file():
        return [], None, []
    rel = path.relative_to(project.root).as_posix()
    collector = Collector()
    catalog = read_catalog(path, rel, target, collector)
    collector.raise_if_errors()
    if catalog is None:
        return [], None, []
    theme_path = po_path(THEME_DIR / "locales", target)
    theme = None
    if theme_path.is_file():
        theme = read_catalog(theme_path, "(bipub theme)", target, Collector())
    by_theme = {
        str(m.id[0] if isinstance(m.id, tuple | list) else m.id)
        for m in (theme or [])
        if m.id and not m.fuzzy and _complete(m.string)
    }
    jobs: list[Job] = []
    skipped: list[str] = []
    plurals = max(catalog.num_plurals, 1)
    for msg in catalog:
        if not msg.id or _complete(msg.string) or (msg.string and not msg.pluralizable):
            continue
        ids = tuple(msg.id) if isinstance(msg.id, tuple | list) else (msg.id,)
        singular = str(ids[0])
        if singular in by_theme:
            skipped.append(singular)
            continue
        forms: list[tuple[str, str, tuple[int, ...]]]
        if len(ids) == 1:
            forms = [(singular, f"ui:{singular}", (0,))]
        elif plurals == 1:
            forms = [(str(ids[1]), f"ui:{singular}", (0,))]
        else:
            rest = tuple(range(1, plurals))
            forms = [
                (singular, f"ui:{singular}", (0,)),
                (str(ids[1]), f"ui:{singular}#plural", rest),
            ]
        for text, key, indexes in forms:
            unit = Unit(
                nfc(key), UI_SOURCE_LANG, target, text, rel, msg.lineno, None, rel, msg.lineno
            )
            if not _matches(unit, only):
                continue
            lay = ui_layout(text, keep)
            po = (singular, indexes) if len(ids) > 1 else None
            jobs.append(Job(unit, "ui", "fill", lay, spec_id(UI_SOURCE_LANG), None, po=po))
    notes = []
    if skipped:
        notes.append(
            f"{rel}: {len(skipped)} msgid(s) without msgstr are translated by the bundled theme "
            f"(its translation is used): not drafted ({', '.join(repr(s) for s in skipped[:3])}"
            + (", …)" if len(skipped) > 3 else ")")
        )
    return jobs, Group("ui", "ui", rel, rel), notes


def _complete(string: object) -> bool:
    if isinstance(string, tuple | list):
        return bool(string) and all(string)
    return bool(string)
