"""Where drafts go: each unit's segments decoded and filled into its skeleton, checked, and
written — posts and pages, the CV (in place), gettext catalogs — with its status record.

Writes are atomic (temp file + rename), the status record before the content file, Ctrl-C held
in between. A unit whose segments have no answer (its request failed) is not written and is
reported with that cause; the other units of its file are written (a new translation file,
which needs every unit, is then not written at all). A group that cannot be written as a whole
is written one unit at a time, so one unit's fault never holds back the others.
"""

from __future__ import annotations

import copy
import hashlib
import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from babel.messages.pofile import write_po

from bipub.check import page_links, qa
from bipub.check.parity import normalize_status
from bipub.diagnostics import Collector, Diagnostic, DiagnosticError
from bipub.load.front_matter import split_front_matter
from bipub.load.text import read_text
from bipub.load.yaml_strict import YamlError, load_yaml
from bipub.pair.cv_merge import merge_cv
from bipub.pair.status import UNTRANSLATED, StatusRecord, dump_status, load_status, status_rel
from bipub.pair.units import Unit, nfc, split_sections, text_hash
from bipub.render.catalogs import read_catalog
from bipub.translate import markdown_xml as mx
from bipub.translate.anchors import anchored
from bipub.translate.blocked import blocked
from bipub.translate.cv_tree import apply_cv_drafts
from bipub.translate.doc_edit import Gap, NotWritable, edit_body, verify_doc
from bipub.translate.files import interrupts_deferred
from bipub.translate.links import localize
from bipub.translate.memory import kept_words
from bipub.translate.outcome import NotWritten, Problem, Result, Skipped
from bipub.translate.plan import Group, Job, Plan, Spec
from bipub.translate.po_fill import fill
from bipub.translate.rejected import held_back
from bipub.translate.segments import structure, with_titles
from bipub.translate.yaml_patch import PatchError, dump_yaml, patch_yaml, quote
from bipub.user_files import write_atomic

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

#: A segment whose translation is this many times longer or shorter (plus a margin) than its
#: source is reported: likely another segment's text (an engine that swapped two answers).
LENGTH_RATIO = 4
LENGTH_MARGIN = 40


@dataclass(frozen=True)
class Answers:
    """The engine's answers by request key, and the cause for keys that have none."""

    texts: Mapping[str, str]
    failures: Mapping[str, str]


# --------------------------------------------------------------------------- writing


@dataclass(frozen=True)
class _Draft:
    job: Job
    text: str
    problems: tuple[tuple[str, str], ...]
    stand_in: str | None = None  # why the source text stands in for a translation
    said: tuple[str, ...] = ()  # the drafting's own findings (not QA `check` makes again)

    @property
    def findings(self) -> list[str] | None:
        """The status record's `findings`: what only the drafting can say."""
        return list(self.said) or None


def _segment_problems(index: int, line: int, source: str, body: str) -> list[tuple[str, str]]:
    """A translated segment grossly unlike its source: numbers or code spans that differ, or
    a length far off (e.g. two segments' answers swapped by the engine)."""

    where = f"segment {index} (line {line})"
    out = [("mismatch", f"{where}: {m}") for m in qa.check_numbers(source, body)]
    if qa.facts(source).code_spans != qa.facts(body).code_spans:
        out.append(("mismatch", f"{where}: its code spans differ from the source's"))
    a, b = len(source.strip()), len(body.strip())
    if b > LENGTH_RATIO * a + LENGTH_MARGIN or a > LENGTH_RATIO * b + LENGTH_MARGIN:
        out.append(
            (
                "mismatch",
                f"{where}: {b:,} characters for a source of {a:,} — possibly another "
                "segment's text",
            )
        )
    return out


def _draft(plan: Plan, job: Job, answers: Answers) -> _Draft | str:
    """The job's draft text and findings, or the cause it has none."""
    lay = job.layout
    bodies: list[str | None] = [None] * len(lay.segments)
    problems: list[tuple[str, str]] = []
    titles: dict[int, dict[int, str]] = {}  # segment → its links' translated titles by slot
    sent = job.to_send()
    # link titles first: a paragraph's answer is decoded with its translated titles in place
    for seg in sorted(sent, key=lambda s: s.parent is None):
        key = plan.request_key(job, seg)
        answer = answers.texts.get(key)
        if answer is None:
            cause = answers.failures.get(key, "no answer from DeepL")
            if cause.startswith("not sent:"):
                return cause
            return f"segment {seg.index} (line {seg.line}): {cause}"
        decoded = mx.decode(answer, with_titles(seg, titles.get(seg.index, {})))
        bodies[seg.index] = decoded.text
        if seg.parent is not None:
            titles.setdefault(seg.parent[0], {})[seg.parent[1]] = decoded.text
        for loss in decoded.losses:
            problems.append(("markup", f"segment {seg.index} (line {seg.line}): {loss.describe()}"))
        if not decoded.malformed:
            problems.extend(_segment_problems(seg.index, seg.line, seg.body, decoded.text))
    for seg in lay.segments:  # kept translations of segments not sent, with what was said
        if seg.index < len(job.kept) and job.kept[seg.index] is not None:
            bodies[seg.index] = job.kept[seg.index]
            for code, what in job.said[seg.index] if seg.index < len(job.said) else ():
                problems.append((code, f"segment {seg.index} (line {seg.line}): {what}"))
    problems.sort(key=lambda p: int(p[1].split(" ", 2)[1]) if p[1].startswith("segment ") else 0)
    text = lay.fill(bodies)
    kind_text = all(s.kind == "text" for s in lay.segments)
    if not kind_text and lay.segments and structure(text) != structure(job.unit.source):
        want = structure(job.unit.source)
        for seg in lay.segments:
            body = bodies[seg.index]
            if body is None:
                continue
            alone: list[str | None] = [None] * len(bodies)
            alone[seg.index] = body
            if structure(lay.fill(alone)) != want:
                bodies[seg.index] = None
                problems.append(
                    (
                        "structure",
                        f"segment {seg.index} (line {seg.line}): its translation would change "
                        "the block structure; the source text is kept there",
                    )
                )
        text = lay.fill(bodies)
        if structure(text) != want:
            return "the drafted text would not keep the source's block structure"
    if plan.pages is not None and not job.key.startswith("ui:"):  # (translate/links.py)
        text, kept_links = localize(text, plan.pages, plan.target)
        problems.extend(("links", message) for message in kept_links)
    for line in lay.html:
        problems.append(
            (
                "untranslated",
                f"line {line}: an HTML block is never sent to DeepL; translate its words by hand",
            )
        )
    for line in lay.diagrams:
        problems.append(
            (
                "untranslated",
                f"line {line}: a Mermaid diagram is never sent to DeepL; translate its labels "
                "by hand",
            )
        )
    for line in lay.unlocated:
        problems.append(
            (
                "untranslated",
                f"line {line}: a block bipub could not take apart is kept in the source language",
            )
        )
    unit = job.unit  # (the checks bipub check runs on a translation: check/qa.py)
    langs = (unit.source_lang, unit.target_lang)
    kind = qa.unit_kind(unit.key)
    unit_checks = qa.unit_problems(
        unit.source, text, kind, langs, plan.glossary, plan.config.base_url
    )
    unit_checks = page_links.site_matched(unit_checks, job.unit, text, plan.pages)  # (as check)
    if any(code == "numbers" for code, _ in unit_checks):  # said once, for the whole unit
        problems = [p for p in problems if not (p[0] == "mismatch" and "numbers" in p[1])]
    said = tuple(f"{code}: {message}" for code, message in problems)
    problems.extend(unit_checks)
    return _Draft(job, text, tuple(problems), said=said)


def _options(
    spec: Spec, qa_codes: Iterable[str], sent: bool = True, kept: tuple[int, int] = (0, 0)
) -> dict[str, str]:
    """The record's `options`: the request's, and what of the draft was not the engine's
    (`kept`: segments with words kept from the present translations, of all such)."""
    o = spec.options
    out = {"source_lang": o.source_lang, "target_lang": o.target_lang}
    if o.formality:
        out["formality"] = o.formality
    if o.model_type:
        out["model_type"] = o.model_type
    if o.context:
        out["context"] = hashlib.sha256(o.context.encode("utf-8")).hexdigest()[:12]
    out["glossary"] = spec.glossary_name if spec.glossary_pair and spec.glossary_name else "none"
    if kept[0]:  # (translate/memory.py: a moved section's, the series' name, its own)
        out["kept"] = (
            f"{kept[0]} of {kept[1]} segments worded as the present translations have them "
            "(not sent)"
        )
    elif not sent:
        out["copied"] = "nothing to translate (code, numbers, URLs only)"
    codes = sorted(set(qa_codes))
    if codes:
        out["qa"] = ",".join(codes)
    return out


def _beside(draft: _Draft) -> dict[str, object]:
    """The fields of a draft waiting beside a reviewed translation: the text, and (where the
    status format has them: the review loop's `draft_source_hash`, `draft_engine`) what it
    was made from."""
    update: dict[str, object] = {"draft": draft.text}
    if "draft_source_hash" in StatusRecord.model_fields:
        update["draft_source_hash"] = text_hash(draft.job.unit.source)
        update["draft_engine"] = draft.job.engine
    update["draft_findings"] = list(draft.said)  # (the text in the file keeps its `findings`)
    return update


def _draft_record(plan: Plan, draft: _Draft) -> StatusRecord:
    unit = draft.job.unit
    record = StatusRecord(
        source_hash=text_hash(unit.source),
        source=nfc(unit.source),
        origin="machine",
        engine=draft.job.engine,
        options=_options(
            plan.specs[draft.job.spec],
            (c for c, _ in draft.problems),
            sent=draft.job.needs_request,
            kept=kept_words(draft.job.layout, draft.job.kept),
        ),
        state="draft",
        translation_hash=text_hash(draft.text),
        findings=draft.findings,
    )
    if draft.stand_in is not None:
        assert record.options is not None
        record.options[UNTRANSLATED] = draft.stand_in
    return record


def _status_text(root: Path, lang: str, updates: dict[str, StatusRecord]) -> str | None:
    """The status file with `updates` applied, or None when nothing changes."""

    collector = Collector()
    current = load_status(root, lang, collector)
    collector.raise_if_errors()
    view, problems = normalize_status(current)
    if problems:
        raise DiagnosticError(Diagnostic(p.file, p.line, p.code, p.message) for p in problems)
    text = dump_status({**view.records, **updates}, view.rejected)  # (rejections kept)
    path = root / status_rel(lang)
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return None
    return text


def write_groups(
    plan: Plan, batch: list[tuple[Group, list[Job]]], answers: Answers, result: Result
) -> None:
    """Draft and write groups (documents, the CV, the catalog) with one status file write for
    all of them; report every unit not written and why."""
    ready: list[tuple[Group, list[_Draft]]] = []
    for group, jobs in batch:
        drafts = _group_drafts(plan, group, jobs, answers, result)
        if drafts:
            ready.append((group, drafts))
    prepared: list[tuple[Group, list[_Draft], str | bytes | None]] = []
    for group, drafts in ready:
        try:
            content = _content(plan, group, drafts, result)
            prepared.append((group, _unskipped(drafts, result), content))
        except NotWritable as exc:
            if len(drafts) == 1 or (group.kind == "doc" and group.target_doc is None):
                for d in drafts:
                    result.not_written.append(_not_written(plan, group, d, exc, result))
                continue
            for d in drafts:  # one at a time: one unit's fault does not hold back the others
                try:
                    one_content = _content(plan, group, [d], result)
                    _write(plan, [(group, _unskipped([d], result), one_content)], result)
                except NotWritable as one:
                    result.not_written.append(_not_written(plan, group, d, one, result))
    if prepared:
        _write(plan, prepared, result)


def _not_written(
    plan: Plan, group: Group, draft: _Draft, exc: NotWritable, result: Result
) -> NotWritten:
    if not isinstance(exc, Gap):
        return NotWritten(draft.job.key, group.target_file, str(exc))
    why = blocked(plan, group, exc.missing, result, new=exc.new)  # (that unit, and its cause)
    return NotWritten(draft.job.key, group.target_file, why.cause, retry=why.retry)


def _group_drafts(
    plan: Plan, group: Group, jobs: list[Job], answers: Answers, result: Result
) -> list[_Draft]:
    drafts: list[_Draft] = []
    failed: list[tuple[Job, str]] = []
    for job in jobs:
        got = _draft(plan, job, answers)
        if isinstance(got, str):
            failed.append((job, got))
        else:
            drafts.append(got)
    new_doc = group.kind == "doc" and group.target_doc is None
    stopped = [c for _, c in failed if c.startswith("not sent:")]
    for job, cause in failed:
        note = ""
        if new_doc and not stopped:
            note = " (its source text stands in the new file, marked as a draft to redo)"
        result.not_written.append(
            NotWritten(job.key, group.target_file, cause + note, _source_of(job.unit))
        )
    if failed and new_doc:
        if stopped:  # the run stopped: the whole file waits for the next run
            cause = stopped[0]
            for d in drafts:
                result.not_written.append(NotWritten(d.job.key, group.target_file, cause))
            return []
        # a new file needs every unit: the source text stands in for a unit DeepL refused,
        # recorded as a draft to redo (the next run drafts it again; check reports it)
        for job, why in failed:
            drafts.append(_Draft(job, job.unit.source, (), stand_in=why))
    drafts = anchored(group, drafts)  # (translate/anchors.py: before a stored draft is compared)
    drafts = held_back(plan, group, drafts, result, new_doc)  # (one rejected: not written)
    unchanged = [
        d
        for d in drafts
        if d.job.mode == "beside"
        and d.job.record is not None
        and d.job.record.draft == d.text
        and _beside(d) == {k: getattr(d.job.record, k, None) for k in _beside(d)}
    ]
    if unchanged:  # drafted by an earlier run: nothing to write, nothing new to report
        result.unchanged += len(unchanged)
        drafts = [d for d in drafts if d not in unchanged]
    return drafts


def _content(plan: Plan, group: Group, drafts: list[_Draft], result: Result) -> str | bytes | None:
    if group.kind == "doc":
        return _doc_text(plan, group, drafts)
    if group.kind == "cv":
        return _cv_text(plan, group, drafts)
    skipped: list[tuple[_Draft, str]] = []
    content = _po_bytes(plan, group, drafts, skipped)
    result.skipped.extend(Skipped(d.job.key, group.target_file, why) for d, why in skipped)
    return content


def _unskipped(drafts: list[_Draft], result: Result) -> list[_Draft]:
    """The drafts written: without those a catalog no longer wanted (not counted drafted)."""
    gone = {s.key for s in result.skipped}
    return [d for d in drafts if d.job.key not in gone]


def _write(
    plan: Plan, prepared: list[tuple[Group, list[_Draft], str | bytes | None]], result: Result
) -> None:
    updates: dict[str, StatusRecord] = {}
    for group, drafts, _ in prepared:
        for d in drafts:
            if group.kind == "ui":
                continue  # a UI draft is marked by the catalog's fuzzy flag
            if d.job.mode == "beside":
                assert d.job.record is not None
                updates[d.job.key] = d.job.record.model_copy(update=_beside(d))
            else:
                updates[d.job.key] = _draft_record(plan, d)
    status_text = _status_text(plan.root, plan.target, updates) if updates else None
    with interrupts_deferred():
        # the status records first: a run stopped between the writes leaves a unit that
        # is still missing (drafted again next time), never machine text without its record
        if status_text is not None:
            write_atomic(plan.root / status_rel(plan.target), status_text)
            _note_written(result, status_rel(plan.target))
        for group, _, content in prepared:
            if content is not None:
                write_atomic(plan.root / group.target_file, content)
                _note_written(result, group.target_file)
    for group, drafts, _ in prepared:
        result.drafted += sum(1 for d in drafts if d.stand_in is None)
        for d in drafts:
            if d.stand_in is None and d.job.named:  # (only what was written is counted)
                result.named += 1
            elif d.stand_in is None:
                result.kept += sum(1 for k in d.job.kept if k is not None)
            where = group.target_file if d.job.mode != "beside" else status_rel(plan.target)
            for code, message in d.problems:
                result.problems.append(
                    Problem(d.job.key, where, code, message, source=_source_of(d.job.unit))
                )


def _source_of(unit: Unit) -> tuple[str, int] | None:
    """The unit's source file and the line its text starts at there (Problem.source)."""
    return (unit.source_file, unit.source_line) if unit.source_line else None


def _note_written(result: Result, rel: str) -> None:
    if rel not in result.written:
        result.written.append(rel)


# -- posts and pages


_FM_TEXT = ("title", "description", "series")


def _doc_text(plan: Plan, group: Group, drafts: list[_Draft]) -> str | None:
    """The new text of a post or page file (None: the file stays as it is)."""

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
            raise NotWritable(f"{group.target_file} exists but pairs with another document")
        gone = [n for n in ("title", *(f"body#{i}" for i in range(n_src))) if n not in texts]
        if gone:
            raise Gap(
                f"{base}: a new translation needs every unit of the source", gone[0], new=True
            )
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
        rel = group.target_file
        current = read_text(plan.root / rel, rel)
        parts = split_front_matter(current, rel)
        all_lines = current.split("\n")
        try:
            old_fm = load_yaml(parts.yaml_text, rel).data or {}
        except YamlError as exc:
            raise NotWritable(f"{rel}: {exc}") from None
        new_fm = copy.deepcopy(old_fm)
        for name in _FM_TEXT:
            if name in texts:
                new_fm[name] = texts[name]
        order = {k: i for i, k in enumerate(src_fields)}
        new_fm = dict(sorted(new_fm.items(), key=lambda kv: order.get(kv[0], len(order))))
        try:
            fm_text = patch_yaml(parts.yaml_text, old_fm, new_fm)
        except PatchError as exc:
            raise NotWritable(f"{rel}: cannot edit the front matter ({exc})") from None
        body = edit_body(parts.body, texts, rel)
        closing = all_lines[parts.body_line - 2]
        text = all_lines[0] + "\n" + fm_text + closing + "\n" + body
    verify_doc(text, group.target_file, texts)
    return text


# -- the CV


def _cv_text(plan: Plan, group: Group, drafts: list[_Draft]) -> str | None:

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
        raise NotWritable(f"{rel}: {key}: {why}")
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
        raise NotWritable(f"{rel}: the drafted file does not load ({exc})") from None
    if doc.data != new_data:
        raise NotWritable(f"{rel}: the drafted file does not load back as intended")
    merged = merge_cv(
        plan.config.source_languages.cv, src.rel, src.yaml, plan.target, rel, doc, Collector()
    )
    got = {nfc(u.key): u.translation for u in merged.units}
    for key in placed:
        if got.get(key) != texts[key]:
            raise NotWritable(f"{rel}: {key} would not pair with its source")
    return text


# -- gettext catalogs


def _po_bytes(
    plan: Plan, group: Group, drafts: list[_Draft], skipped: list[tuple[_Draft, str]]
) -> bytes | None:
    """The catalog with the drafts filled in; those it no longer wants go to `skipped`."""
    rel = group.target_file
    collector = Collector()
    catalog: Catalog | None = read_catalog(plan.root / rel, rel, plan.target, collector)
    if catalog is None:
        raise NotWritable(f"{rel}: cannot be read")
    left = fill(catalog, drafts)  # (translate/po_fill.py)
    skipped.extend(left)
    if len(left) == len(drafts):
        return None
    buf = io.BytesIO()
    write_po(buf, catalog, width=100, sort_output=True, omit_header=False, include_lineno=False)
    return buf.getvalue()
