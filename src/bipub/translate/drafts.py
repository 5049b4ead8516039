"""The `translate` stage: draft every missing or stale unit of a language through DeepL.

    plan = make_plan(root, "en", only=["posts/"])   # read everything, decide what to draft
    report = plan.dry_run()                          # what would be sent (nothing is)
    result = run(plan, client_factory)               # send, save, write drafts

What gets drafted: units of the target language that are `missing` (no translation) or `stale`
(the source changed since the recorded `source_hash`), whose source is another language, plus
missing msgstr of the project's gettext catalog. Identical texts are sent once; texts answered
before (the cache, bipub.translate.cache) are not sent at all; texts with nothing to translate
(only code, numbers, URLs) are never sent.

Where drafts go:
* a post or page missing in the target language → a new file with the translated title,
  description, series and body, and no shared front matter (the translation takes it from
  its source; `key` is copied when the source has one, since pairing needs it);
* a missing field or body section of an existing translation → filled in; a stale unit whose
  recorded translation is an unedited machine draft → replaced;
* CV units → the target cv.yaml, edited in place (comments and order kept; see yaml_patch);
* UI strings → msgstr in locales/<lang>/LC_MESSAGES/messages.po, marked fuzzy;
* a reviewed translation (or a human or hand-edited one) is never overwritten: the new draft
  goes into the status record's `draft` field and the content file stays as it is.
Every draft is recorded in status/<lang>.yaml (state draft, origin machine, engine deepl, the
source text and hash, options, glossary, QA codes) and checked like `bipub check` checks
translations; a draft with findings is still written and its findings are reported.

Writes are atomic (temp file + rename). Each completed request is cached before anything is
written from it; a document is written as soon as all its units are translated, its status
record first. A run that stops (456, 403, network, timeout, malformed answer, Ctrl-C) keeps all
of that, and the next run sends only what is left.
"""

from __future__ import annotations

import copy
import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from bipub.check.glossary import Glossary, load_glossary
from bipub.config import SiteConfig
from bipub.diagnostics import Collector, ConfigError, Diagnostic, DiagnosticError
from bipub.load.content import Content, CvFile, Document
from bipub.load.front_matter import split_front_matter
from bipub.load.yaml_strict import YamlError, load_yaml
from bipub.pair.status import StatusRecord, dump_status, load_status, status_rel
from bipub.pair.units import Unit, nfc, split_sections, text_hash
from bipub.project import Project
from bipub.translate import markdown_xml as mx
from bipub.translate.cache import DraftCache, cache_key
from bipub.translate.deepl_client import (
    DeepL,
    DeepLError,
    MissingKeyError,
    RequestOptions,
    Translation,
    Usage,
    deepl_source,
    deepl_target,
    fits,
    plan_batches,
    sent_formality,
)
from bipub.translate.files import interrupts_deferred, write_atomic

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

ENGINE = "deepl"
Mode = Literal["fill", "replace", "beside"]
UI_SOURCE_LANG = "en"  # msgids are English (bipub.check.parity.UI_SOURCE_LANG)


# --------------------------------------------------------------------------- the plan


@dataclass(frozen=True)
class Job:
    """One unit to draft."""

    unit: Unit  # key NFC
    group: str  # what is written together: "posts/<key>", "pages/<key>", "cv", "ui"
    mode: Mode
    encoded: mx.Encoded
    spec: str  # request spec id (languages + options), see Plan.specs
    record: StatusRecord | None

    @property
    def key(self) -> str:
        return self.unit.key

    @property
    def needs_request(self) -> bool:
        return self.encoded.has_prose


@dataclass(frozen=True)
class Spec:
    """How texts from one source language are requested."""

    options: RequestOptions
    glossary: dict[tuple[str, str], dict[str, str]]  # dictionaries to sync (all pairs)
    glossary_pair: dict[str, str]  # the entries that apply to this language pair
    glossary_name: str | None

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


@dataclass(frozen=True)
class Problem:
    """A QA finding (or a placement problem) of one draft."""

    key: str
    file: str | None
    code: str
    message: str
    written: bool = True

    def format(self, lang: str) -> str:
        where = self.file or "bipub"
        return f"{where}: warning: [{lang}] {self.key}: {self.code}: {self.message}"


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
    _keys: dict[tuple[str, str], str] = field(default_factory=dict, repr=False)

    def request_key(self, job: Job) -> str:
        """The cache key of the job's text under its request spec."""
        ident = (job.spec, job.encoded.xml)
        key = self._keys.get(ident)
        if key is None:
            key = self._keys[ident] = cache_key(self.specs[job.spec].fingerprint(), job.encoded.xml)
        return key


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


def _mode(unit: Unit, record: StatusRecord | None) -> Mode | None:
    if unit.translation is None:
        return "fill"
    if record is None or record.source_hash == text_hash(unit.source):
        return None  # current (a human translation without a record counts as current)
    if (
        record.state == "draft"
        and record.origin == "machine"
        and record.translation_hash == text_hash(unit.translation)
    ):
        return "replace"  # our own unedited draft
    return "beside"  # reviewed, or written or edited by a person: never overwritten


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
    import hashlib
    import json

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
    name = None
    if dictionaries:
        blob = json.dumps(
            sorted((f"{s}-{t}", sorted(e.items())) for (s, t), e in dictionaries.items())
        )
        name = "bipub " + hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]
    return Spec(options, dictionaries, pair, name)


def make_plan(root: Path, target: str, only: Sequence[str] = ()) -> Plan:
    """Read the project and decide what to draft. DiagnosticError when the content has errors
    (nothing is drafted from a broken project); ConfigError (exit 2) for a bad --to."""
    from bipub.check.parity import check_documents, normalize_status
    from bipub.pipeline import load, pair

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

    plan = Plan(root, config, target, [], {}, {}, glossary)

    def spec_id(source_lang: str) -> str:
        if source_lang not in plan.specs:
            plan.specs[source_lang] = _spec(config, glossary, source_lang, target)
        return source_lang

    candidates = [u for u in site.units if u.target_lang == target and u.source_lang != target]
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
        title = key.endswith(":title")
        encoded = mx.encode_markdown(unit.source, keep, title=title)
        plan.jobs.append(Job(unit, group, mode, encoded, spec_id(unit.source_lang), record))

    ui_jobs, ui_group = _ui_jobs(project, config, target, only, keep, spec_id)
    if ui_group is not None and ui_jobs:
        plan.groups["ui"] = ui_group
        plan.jobs.extend(ui_jobs)

    for job in plan.jobs:
        if job.needs_request and not fits(job.encoded.xml):
            plan.notes.append(
                f"{job.key}: too long for one DeepL request ({len(job.encoded.xml):,} "
                "characters); split it at a heading — left out"
            )
    plan.jobs = [j for j in plan.jobs if not j.needs_request or fits(j.encoded.xml)]
    wanted = config.translate.formality
    for spec in plan.specs.values():
        if wanted != "default" and spec.options.formality != wanted:
            plan.notes.append(
                f"DeepL has no formality for {spec.options.target_lang}: formality {wanted!r} "
                f"is sent as {spec.options.formality!r}, which DeepL accepts and ignores there"
            )
    return plan


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
) -> tuple[list[Job], Group | None]:
    """Missing msgstr of the project's catalog for the target language (msgids are English)."""
    from bipub.render.catalogs import po_path, read_catalog

    if target == UI_SOURCE_LANG:
        return [], None
    path = po_path(project.locales, target)
    if not path.is_file():
        return [], None
    rel = path.relative_to(project.root).as_posix()
    collector = Collector()
    catalog = read_catalog(path, rel, target, collector)
    collector.raise_if_errors()
    if catalog is None:
        return [], None
    jobs: list[Job] = []
    for msg in catalog:
        if not msg.id or isinstance(msg.id, tuple | list) or msg.pluralizable:
            continue
        if msg.string:
            continue
        unit = Unit(
            nfc(f"ui:{msg.id}"),
            UI_SOURCE_LANG,
            target,
            msg.id,
            rel,
            msg.lineno,
            None,
            rel,
            msg.lineno,
        )
        if not _matches(unit, only):
            continue
        jobs.append(
            Job(unit, "ui", "fill", mx.encode_ui(msg.id, keep), spec_id(UI_SOURCE_LANG), None)
        )
    group = Group("ui", "ui", rel, rel)
    return jobs, group


# --------------------------------------------------------------------------- cost


@dataclass(frozen=True)
class FileCost:
    source_lang: str
    source_file: str
    target_file: str
    units: int
    chars: int  # characters to send (after the cache and de-duplication)
    cached: int  # units answered from the cache


@dataclass
class Estimate:
    target: str
    files: list[FileCost]
    units: int
    chars: int
    texts: int  # distinct texts to send
    cached: int
    duplicates: int
    free: int  # units with nothing to translate (code, numbers…): never sent
    to_send: dict[str, list[tuple[str, str]]]  # spec → [(request key, xml)] in order

    def fits(self, usage: Usage | None) -> bool | None:
        if usage is None or usage.remaining is None:
            return None
        return self.chars <= usage.remaining


def estimate(plan: Plan, cache: DraftCache | None = None) -> Estimate:
    cache = cache if cache is not None else DraftCache(plan.root)
    seen: set[str] = set()
    to_send: dict[str, list[tuple[str, str]]] = {}
    per_file: dict[str, list[int]] = {}  # group → [units, chars, cached]
    cached = duplicates = free = chars = 0
    for job in plan.jobs:
        counts = per_file.setdefault(job.group, [0, 0, 0])
        counts[0] += 1
        if not job.needs_request:
            free += 1
            continue
        key = plan.request_key(job)
        if key in cache:
            cached += 1
            counts[2] += 1
        elif key in seen:
            duplicates += 1
        else:
            seen.add(key)
            to_send.setdefault(job.spec, []).append((key, job.encoded.xml))
            chars += len(job.encoded.xml)
            counts[1] += len(job.encoded.xml)
    files = []
    for name, (units, file_chars, file_cached) in per_file.items():
        group = plan.groups[name]
        lang = next(j.unit.source_lang for j in plan.jobs if j.group == name)
        files.append(
            FileCost(lang, group.source_file, group.target_file, units, file_chars, file_cached)
        )
    texts = sum(len(v) for v in to_send.values())
    return Estimate(
        plan.target, files, len(plan.jobs), chars, texts, cached, duplicates, free, to_send
    )


# --------------------------------------------------------------------------- the run


@dataclass
class Result:
    target: str
    drafted: int = 0  # units written (content file or the status record's `draft`)
    billed: int = 0  # characters DeepL billed in this run
    sent: int = 0  # texts sent
    requests: int = 0
    cache_hits: int = 0
    problems: list[Problem] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    stopped: str | None = None  # one-line reason the run stopped early
    budget_reached: bool = False
    left: int = 0  # units not drafted
    unchanged: int = 0  # drafts beside reviewed text that an earlier run already stored
    usage: Usage | None = None

    @property
    def findings(self) -> int:
        return len(self.problems)

    def summary(self) -> str:
        def n(count: int, word: str) -> str:
            return f"{count:,} {word}{'' if count == 1 else 's'}"

        line = (
            f"Drafted {n(self.drafted, 'unit')} ({self.target}), {n(self.billed, 'character')} "
            f"billed, {n(self.cache_hits, 'cache hit')}, {n(self.findings, 'finding')}"
        )
        if self.unchanged:
            line += f"; {n(self.unchanged, 'stored draft')} unchanged"
        if self.left:
            line += f"; {n(self.left, 'unit')} left"
        return line


ClientFactory = Callable[[], DeepL]
Progress = Callable[[int], None]


def run(
    plan: Plan,
    client_factory: ClientFactory = DeepL.from_env,
    *,
    max_chars: int | None = None,
    on_start: Callable[[int], None] | None = None,
    on_progress: Progress | None = None,
) -> Result:
    """Draft every job of the plan. DeepL failures and Ctrl-C end the run early with
    `Result.stopped` set (what was done is kept); MissingKeyError propagates before anything is
    written."""
    cache = DraftCache(plan.root)
    est = estimate(plan, cache)
    result = Result(plan.target, cache_hits=est.cached, notes=list(plan.notes))
    answers: dict[str, str] = {}
    for job in plan.jobs:
        if job.needs_request:
            hit = cache.get(plan.request_key(job))
            if hit is not None:
                answers[plan.request_key(job)] = hit
    remaining_groups = {j.group for j in plan.jobs}
    client: DeepL | None = None
    glossary_ids: dict[str, str] = {}

    def flush() -> None:
        for name in [g for g in plan.groups if g in remaining_groups]:
            jobs = [j for j in plan.jobs if j.group == name]
            if all(not j.needs_request or plan.request_key(j) in answers for j in jobs):
                remaining_groups.discard(name)
                _write_group(plan, plan.groups[name], jobs, answers, result)

    try:
        if est.to_send:
            client = client_factory()  # MissingKeyError: nothing is written
            result.usage = client.usage()  # a bad key stops here, before any file is written
            if result.usage.remaining is not None and est.chars > result.usage.remaining:
                result.notes.append(
                    f"{est.chars:,} characters to send, {result.usage.remaining:,} left in the "
                    "DeepL quota: the run will stop when it runs out (see --max-chars)"
                )
        if on_start is not None:
            on_start(est.chars)
        flush()
        sent_chars = 0
        for spec_name, items in est.to_send.items():
            assert client is not None
            spec = plan.specs[spec_name]
            glossary_id = None
            if spec.glossary_pair and spec.glossary_name:
                if spec.glossary_name not in glossary_ids:
                    glossary_ids[spec.glossary_name] = client.sync_glossary(
                        spec.glossary_name, spec.glossary
                    )
                glossary_id = glossary_ids[spec.glossary_name]
            for batch in plan_batches([xml for _, xml in items]):
                chosen = [items[i] for i in batch]
                if max_chars is not None:
                    room = max_chars - sent_chars
                    fitting: list[tuple[str, str]] = []
                    for item in chosen:
                        if len(item[1]) > room:
                            break
                        fitting.append(item)
                        room -= len(item[1])
                    if len(fitting) < len(chosen):
                        result.budget_reached = True
                    chosen = fitting
                if not chosen:
                    break
                translations = client.translate(
                    [xml for _, xml in chosen], spec.options, glossary_id
                )
                batch_billed = sum(t.billed for t in translations)
                cache.put_batch(
                    {key: t.text for (key, _), t in zip(chosen, translations, strict=True)},
                    batch_billed,
                )
                _record(answers, chosen, translations)
                result.requests += 1
                result.sent += len(chosen)
                result.billed += batch_billed
                sent = sum(len(xml) for _, xml in chosen)
                sent_chars += sent
                if on_progress is not None:
                    on_progress(sent)
                flush()
                if result.budget_reached:
                    break
            if result.budget_reached:
                break
    except MissingKeyError:
        raise
    except DeepLError as exc:
        result.stopped = exc.reason
    except KeyboardInterrupt:
        result.stopped = "interrupted (Ctrl-C)"
    finally:
        if client is not None:
            client.close()
    done = {j.group for j in plan.jobs} - remaining_groups
    result.left = sum(1 for j in plan.jobs if j.group not in done)
    return result


def _record(
    answers: dict[str, str], chosen: Sequence[tuple[str, str]], translations: Sequence[Translation]
) -> None:
    for (key, _), translation in zip(chosen, translations, strict=True):
        answers[key] = translation.text


# --------------------------------------------------------------------------- QA


def qa_problems(unit: Unit, draft: str, glossary: Glossary) -> list[tuple[str, str]]:
    """The checks `bipub check` runs on a translation (bipub.check.qa), on one draft."""
    from bipub.check import qa

    s = unit.source
    if unit.key.startswith("ui:"):
        checks = [
            ("placeholders", qa.check_placeholders(s, draft)),
            ("numbers", qa.check_numbers(s, draft)),
        ]
    else:
        checks = [
            ("numbers", qa.check_numbers(s, draft)),
            ("links", qa.check_links(s, draft)),
            ("code", qa.check_code(s, draft)),
            ("refs", qa.check_refs(s, draft)),
            ("markup", qa.check_markup(s, draft)),
        ]
        if unit.key.endswith(":title"):
            checks.append(("prefix", qa.check_prefix(s, draft)))
    if glossary.terms or glossary.keep:
        checks.append(
            ("glossary", qa.check_glossary(s, draft, glossary, unit.source_lang, unit.target_lang))
        )
    return [(code, message) for code, messages in checks for message in messages]


# --------------------------------------------------------------------------- writing


class _NotWritten(Exception):
    """A group cannot be written safely; its jobs are reported and left for the next run."""


@dataclass(frozen=True)
class _Draft:
    job: Job
    text: str
    problems: tuple[tuple[str, str], ...]


def _drafts(plan: Plan, jobs: Iterable[Job], answers: dict[str, str]) -> list[_Draft]:
    out = []
    for job in jobs:
        if job.needs_request:
            decoded = mx.decode(answers[plan.request_key(job)], job.encoded.slots)
            text, lost = decoded.text, [("markup", p) for p in decoded.problems]
        else:
            text, lost = job.unit.source, []
        out.append(_Draft(job, text, (*lost, *qa_problems(job.unit, text, plan.glossary))))
    return out


def _options(spec: Spec, qa_codes: Iterable[str], sent: bool = True) -> dict[str, str]:
    import hashlib

    o = spec.options
    out = {"source_lang": o.source_lang, "target_lang": o.target_lang}
    if o.formality:
        out["formality"] = o.formality
    if o.model_type:
        out["model_type"] = o.model_type
    if o.context:
        out["context"] = hashlib.sha256(o.context.encode("utf-8")).hexdigest()[:12]
    out["glossary"] = spec.glossary_name if spec.glossary_pair and spec.glossary_name else "none"
    if not sent:
        out["copied"] = "nothing to translate (code, numbers, URLs only)"
    codes = sorted(set(qa_codes))
    if codes:
        out["qa"] = ",".join(codes)
    return out


def _draft_record(plan: Plan, draft: _Draft) -> StatusRecord:
    unit = draft.job.unit
    return StatusRecord(
        source_hash=text_hash(unit.source),
        source=nfc(unit.source),
        origin="machine",
        engine=ENGINE,
        options=_options(
            plan.specs[draft.job.spec],
            (c for c, _ in draft.problems),
            sent=draft.job.needs_request,
        ),
        state="draft",
        translation_hash=text_hash(draft.text),
    )


def _status_text(root: Path, lang: str, updates: dict[str, StatusRecord]) -> str | None:
    """The status file with `updates` applied, or None when nothing changes."""
    from bipub.check.parity import normalize_status

    collector = Collector()
    current = load_status(root, lang, collector)
    collector.raise_if_errors()
    view, problems = normalize_status(current)
    if problems:
        raise DiagnosticError(Diagnostic(p.file, p.line, p.code, p.message) for p in problems)
    records = dict(view.records)
    records.update(updates)
    text = dump_status(records)
    path = root / status_rel(lang)
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return None
    return text


def _write_group(
    plan: Plan, group: Group, jobs: list[Job], answers: dict[str, str], result: Result
) -> None:
    drafts = _drafts(plan, jobs, answers)
    unchanged = [
        d
        for d in drafts
        if d.job.mode == "beside"
        and d.job.record is not None
        and d.job.record.draft == d.text
        and d.job.record.draft_source_hash == text_hash(d.job.unit.source)
    ]
    if unchanged:  # drafted by an earlier run: nothing to write, nothing new to report
        result.unchanged += len(unchanged)
        drafts = [d for d in drafts if d not in unchanged]
        if not drafts:
            return
    content: str | bytes | None
    try:
        if group.kind == "doc":
            content = _doc_text(plan, group, drafts)
        elif group.kind == "cv":
            content = _cv_text(plan, group, drafts)
        else:
            content = _po_bytes(plan, group, drafts)
    except _NotWritten as exc:
        for d in drafts:
            result.problems.append(
                Problem(d.job.key, group.target_file, "not-written", str(exc), written=False)
            )
        return
    updates: dict[str, StatusRecord] = {}
    for d in drafts:
        if group.kind == "ui":
            continue  # a UI draft is marked by the catalog's fuzzy flag
        if d.job.mode == "beside":
            assert d.job.record is not None
            updates[d.job.key] = d.job.record.model_copy(
                update={
                    "draft": d.text,
                    "draft_source_hash": text_hash(d.job.unit.source),
                    "draft_engine": ENGINE,
                }
            )
        else:
            updates[d.job.key] = _draft_record(plan, d)
    status_text = _status_text(plan.root, plan.target, updates) if updates else None
    target_path = plan.root / group.target_file
    with interrupts_deferred():
        # the status record first: a run stopped between the two writes leaves a unit that
        # is still missing (drafted again next time), never machine text without its record
        if status_text is not None:
            write_atomic(plan.root / status_rel(plan.target), status_text)
            _note_written(result, status_rel(plan.target))
        if content is not None:
            write_atomic(target_path, content)
            _note_written(result, group.target_file)
    result.drafted += len(drafts)
    for d in drafts:
        where = group.target_file if d.job.mode != "beside" else status_rel(plan.target)
        for code, message in d.problems:
            result.problems.append(Problem(d.job.key, where, code, message))


def _note_written(result: Result, rel: str) -> None:
    if rel not in result.written:
        result.written.append(rel)


# -- posts and pages


_FM_TEXT = ("title", "description", "series")


def _doc_text(plan: Plan, group: Group, drafts: list[_Draft]) -> str | None:
    """The new text of a post or page file (None: the file stays as it is)."""
    from bipub.translate.yaml_patch import PatchError, patch_yaml, quote

    src = group.source_doc
    assert src is not None
    base = group.name
    texts = {d.job.key.split(":", 1)[1]: d.text for d in drafts if d.job.mode != "beside"}
    if not texts:
        return None
    n_src = len(split_sections(src.body, src.body_line))
    src_fields = list(src.yaml.data) if isinstance(src.yaml.data, dict) else []
    if group.target_doc is None:
        if (plan.root / group.target_file).exists():
            raise _NotWritten(f"{group.target_file} exists but pairs with another document")
        if "title" not in texts or any(f"body#{i}" not in texts for i in range(n_src)):
            raise _NotWritten(f"{base}: a new translation needs every unit of the source")
        lines = ["---"]
        for name in src_fields:
            if name in _FM_TEXT and name in texts:
                lines.append(f"{name}: {quote(texts[name])}")
            elif name == "key" and src.meta.key:
                lines.append(f"key: {quote(src.meta.key)}")
        lines.append("---")
        body = "\n\n".join(texts[f"body#{i}"] for i in range(n_src))
        text = "\n".join(lines) + "\n" + ("\n" + body + "\n" if body else "")
    else:
        from bipub.load.text import read_text

        rel = group.target_file
        current = read_text(plan.root / rel, rel)
        parts = split_front_matter(current, rel)
        all_lines = current.split("\n")
        try:
            old_fm = load_yaml(parts.yaml_text, rel).data or {}
        except YamlError as exc:
            raise _NotWritten(f"{rel}: {exc}") from None
        new_fm = copy.deepcopy(old_fm)
        for name in _FM_TEXT:
            if name in texts:
                new_fm[name] = texts[name]
        order = {k: i for i, k in enumerate(src_fields)}
        new_fm = dict(sorted(new_fm.items(), key=lambda kv: order.get(kv[0], len(order))))
        try:
            fm_text = patch_yaml(parts.yaml_text, old_fm, new_fm)
        except PatchError as exc:
            raise _NotWritten(f"{rel}: cannot edit the front matter ({exc})") from None
        body = _edit_body(parts.body, texts, rel)
        closing = all_lines[parts.body_line - 2]
        text = all_lines[0] + "\n" + fm_text + closing + "\n" + body
    _verify_doc(text, group.target_file, texts)
    return text


def _edit_body(body: str, texts: dict[str, str], rel: str) -> str:
    sections = split_sections(body, 1)
    lines = body.split("\n")
    wanted = sorted(
        (int(name[5:]), text) for name, text in texts.items() if name.startswith("body#")
    )
    for index, text in reversed([w for w in wanted if w[0] < len(sections)]):
        sec = sections[index]
        start, count = sec.line - 1, len(sec.text.split("\n"))
        if "\n".join(lines[start : start + count]) != sec.text:
            raise _NotWritten(f"{rel}: cannot locate body section {index}")
        lines[start : start + count] = text.split("\n")
    out = "\n".join(lines)
    expected = len(sections)
    for index, text in (w for w in wanted if w[0] >= len(sections)):
        if index != expected:
            raise _NotWritten(
                f"{rel}: body section {index} needs the sections before it (draft them too)"
            )
        out = out.rstrip("\n") + "\n\n" + text + "\n"
        expected += 1
    return out


def _verify_doc(text: str, rel: str, texts: dict[str, str]) -> None:
    """The written file must pair exactly as intended: same section boundaries, same fields."""
    parts = split_front_matter(text, rel)
    try:
        fm = load_yaml(parts.yaml_text, rel).data or {}
    except YamlError as exc:
        raise _NotWritten(f"{rel}: the drafted front matter does not load ({exc})") from None
    sections = split_sections(parts.body, parts.body_line)
    for name, value in texts.items():
        if name.startswith("body#"):
            index = int(name[5:])
            if index >= len(sections) or sections[index].text != value.strip("\n"):
                raise _NotWritten(
                    f"{rel}: the draft of {name} would change where sections begin "
                    "(a heading moved in translation)"
                )
        elif fm.get(name) != value:
            raise _NotWritten(f"{rel}: the drafted {name} does not load back unchanged")


# -- the CV


def _cv_text(plan: Plan, group: Group, drafts: list[_Draft]) -> str | None:
    from bipub.load.text import read_text
    from bipub.pair.cv_merge import merge_cv
    from bipub.translate.cv_tree import apply_cv_drafts
    from bipub.translate.yaml_patch import PatchError, dump_yaml, patch_yaml

    src = group.source_cv
    assert src is not None
    texts = {d.job.key: d.text for d in drafts if d.job.mode != "beside"}
    if not texts:
        return None
    rel = group.target_file
    path = plan.root / rel
    current = read_text(path, rel) if path.is_file() else None
    old_data = load_yaml(current, rel).data if current is not None else None
    new_data, placed, problems = apply_cv_drafts(src.raw, old_data, texts)
    if problems:
        key, why = next(iter(sorted(problems.items())))
        raise _NotWritten(f"{rel}: {key}: {why}")
    if current is None or not isinstance(old_data, dict):
        text = dump_yaml(new_data)
    else:
        try:
            text = patch_yaml(current, old_data, new_data)
        except PatchError:
            text = dump_yaml(new_data)
            plan.notes.append(f"{rel}: rewritten in full (its layout could not be edited in place)")
    try:
        doc = load_yaml(text, rel)
    except YamlError as exc:
        raise _NotWritten(f"{rel}: the drafted file does not load ({exc})") from None
    if doc.data != new_data:
        raise _NotWritten(f"{rel}: the drafted file does not load back as intended")
    merged = merge_cv(
        plan.config.source_languages.cv, src.rel, src.yaml, plan.target, rel, doc, Collector()
    )
    got = {nfc(u.key): u.translation for u in merged.units}
    for key in placed:
        if got.get(key) != texts[key]:
            raise _NotWritten(f"{rel}: {key} would not pair with its source")
    return text


# -- gettext catalogs


def _po_bytes(plan: Plan, group: Group, drafts: list[_Draft]) -> bytes | None:
    from babel.messages.pofile import write_po

    from bipub.render.catalogs import read_catalog

    rel = group.target_file
    collector = Collector()
    catalog: Catalog | None = read_catalog(plan.root / rel, rel, plan.target, collector)
    if catalog is None:
        raise _NotWritten(f"{rel}: cannot be read")
    changed = False
    for d in drafts:
        msgid = d.job.unit.source
        msg = catalog.get(msgid)
        if msg is None or msg.string:
            continue  # edited since the plan: leave it
        msg.string = d.text
        msg.flags.add("fuzzy")
        changed = True
    if not changed:
        return None
    buf = io.BytesIO()
    write_po(buf, catalog, width=100, sort_output=True, omit_header=False, include_lineno=False)
    return buf.getvalue()
