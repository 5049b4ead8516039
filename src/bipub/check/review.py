"""The reviewer's workflow over status files: what needs review, approve, reject
(check/review_reject.py), prune (which units a command names: check/review_select.py).

approve and reject decide (a `Decision`: status records and content edits); the edits are
carried out by bipub.translate.review_edits.apply — the content files first, then the status
files. Every status change goes through `dump_status` and an atomic replace; a status file that
could not be read cleanly (invalid YAML, a bad record, colliding keys) is never rewritten.

The rules (nothing reviewed is lost, nothing machine-made is recorded or shown as reviewed):
- approving a unit with a waiting machine draft adopts the draft: it is written into the
  content file and recorded as reviewed for the source it was made from (which must be the
  current one); `keep_current` records the present translation instead and dismisses the draft;
- a translation recorded for an older source and not changed since is approved for the new
  source only with `keep_current`;
- a body section's translation recorded, unchanged since, for the source section now at another
  index of its post (a section was inserted or removed before it: check/moved.py) is never
  approved for this one, not even with `keep_current`: only adopting a waiting draft is;
- a text edited by hand is recorded with origin human;
- rejecting (check/review_reject.py) drops a waiting draft (the file keeps its reviewed text),
  or removes a draft written into the content file together with its record (the unit is
  missing again); either way the rejected text is remembered for its source.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Literal

from bipub.check.findings import QA_CODES, Finding, drafting_approved
from bipub.check.moved import moved_message, moved_section
from bipub.check.renames import renamed_records
from bipub.check.review_select import error, record_of
from bipub.check.run import Analysis, inline_ignores_for, qa_findings
from bipub.check.severity import apply_policy
from bipub.codes import explain
from bipub.diagnostics import Diagnostic, DiagnosticError, Severity
from bipub.pair.status import (
    Rejections,
    StatusRecord,
    dump_status,
    rejection_of,
    stand_in_cause,
    status_rel,
)
from bipub.pair.units import Unit, nfc, text_hash
from bipub.user_files import write_atomic

#: Why a unit is in the review queue: a machine draft, a stale or edited translation, or (with
#: `--human`) a current translation that has no review record (written by hand).
ReviewState = Literal["draft", "stale", "edited", "human"]


# --------------------------------------------------------------------------- who and when


def reviewer_name(explicit: str | None, root: Path) -> str:
    """--reviewer, else `git config user.name`; an error when neither gives a name."""
    if explicit and explicit.strip():
        return explicit.strip()
    try:
        done = subprocess.run(
            ["git", "config", "user.name"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        name = done.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        name = ""
    if not name:
        raise error("no reviewer name: pass --reviewer NAME or set git config user.name")
    return name


def review_date() -> date:
    """SOURCE_DATE_EPOCH when set (reproducible), else today."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        try:
            return datetime.fromtimestamp(int(epoch), tz=UTC).date()
        except ValueError:
            raise error(f"SOURCE_DATE_EPOCH={epoch!r} is not a number of seconds") from None
    return date.today()


# --------------------------------------------------------------------------- the queue


@dataclass(frozen=True)
class Item:
    lang: str
    key: str
    unit: Unit
    states: tuple[ReviewState, ...]
    findings: tuple[Finding, ...]
    record: StatusRecord | None


def is_unreviewed_human(analysis: Analysis, lang: str, key: str) -> bool:
    """A current translation without a review record (none, or not for this text): written or
    edited by a person, never reviewed. Never a machine draft (its state is `draft`); a UI
    string is reviewed in its catalog. An edited reviewed translation is `edited` instead."""
    unit = analysis.units.get((lang, key))
    if unit is None or unit.translation is None or key.startswith("ui:"):
        return False
    if analysis.parity.states.get((lang, key)) != "translated":
        return False
    if (lang, key) in analysis.parity.reviewed:
        return False
    return not any(f.code == "edited" for f in analysis.by_unit.get((lang, key), ()))


def item(analysis: Analysis, lang: str, key: str) -> Item:
    unit = analysis.units[(lang, key)]
    findings = tuple(analysis.by_unit.get((lang, key), ()))
    codes = {f.code for f in findings}
    order: tuple[ReviewState, ...] = ("draft", "stale", "edited")
    states = tuple(s for s in order if s in codes)
    if not states and is_unreviewed_human(analysis, lang, key):
        states = ("human",)
    return Item(lang, key, unit, states, findings, record_of(analysis, lang, key))


def unreviewed_human(analysis: Analysis, langs: Sequence[str] = ()) -> list[tuple[str, str]]:
    """(lang, key) of every current translation without a review record, by language and key."""
    return [
        (lang, key)
        for (lang, key) in sorted(analysis.units)
        if (not langs or lang in langs) and is_unreviewed_human(analysis, lang, key)
    ]


def queue(analysis: Analysis, langs: Sequence[str] = (), *, human: bool = False) -> list[Item]:
    """Drafts, stale and edited units (with `human`: also current translations that have no
    review record), by language, file and line."""
    wanted = {"draft", "stale", "edited"}
    keys = {
        (f.lang, f.key)
        for f in analysis.result.findings
        if f.code in wanted and f.lang and f.key and (f.lang, f.key) in analysis.units
    }
    if human:
        keys.update(unreviewed_human(analysis, langs))
    items = [item(analysis, lang, key) for lang, key in sorted(keys) if not langs or lang in langs]
    order = {c: i for i, c in enumerate(analysis.config.codes)}
    return sorted(
        items,
        key=lambda it: (
            order.get(it.lang, 99),
            it.unit.translation_file or "",
            it.unit.translation_line or 0,
            it.key,
        ),
    )


# --------------------------------------------------------------------------- approve, reject, prune


def writable(analysis: Analysis, lang: str) -> None:
    if lang in analysis.broken_status:
        rel = status_rel(lang)
        problems = [  # (the record's key and field, as check says it)
            Diagnostic(f.file, f.line, f.code, f"{f.key}: {f.message}" if f.key else f.message)
            for f in analysis.result.findings
            if f.file == rel and f.severity is Severity.ERROR
        ]
        raise DiagnosticError(
            problems or [Diagnostic(rel, None, "status", f"{rel} has errors; fix it first")]
        )


def qa_errors(analysis: Analysis, lang: str, key: str, text: str | None = None) -> list[Finding]:
    """QA errors of a unit's translation (or of `text`, e.g. its waiting draft) against its
    current source: what approving accepts."""
    unit = analysis.units[(lang, key)]
    if text is not None:
        unit = replace(unit, translation=text)
    if unit.translation is None:
        return []
    raw = qa_findings(analysis, unit, on_draft=False)
    inline = inline_ignores_for(analysis, [(lang, key)])
    outcome = apply_policy(raw, analysis.config.check, inline=inline)
    return [f for f in outcome.findings if f.severity is Severity.ERROR and f.code in QA_CODES]


def waiting_draft(analysis: Analysis, lang: str, key: str) -> str | None:
    """The machine draft waiting beside the unit's translation in its status record, if any."""
    rec = record_of(analysis, lang, key)
    return rec.draft if rec is not None else None


def draft_is_current(unit: Unit, rec: StatusRecord) -> bool:
    """Was the waiting draft made from the unit's current source?"""
    return rec.draft is not None and rec.draft_source_hash == text_hash(unit.source)


@dataclass(frozen=True)
class ContentEdit:
    """A unit's new text in its content file (None: remove it, the unit is missing again)."""

    lang: str
    key: str
    text: str | None


@dataclass
class Decision:
    """What approve or reject does: status records (None removes one) and content edits.
    Content edits are written first, then the status files (see bipub.translate.review_edits)."""

    changes: dict[str, dict[str, StatusRecord | None]] = field(default_factory=dict)
    #: each unit's rejections after this, by language and unit key (pair/status.py)
    rejections: dict[str, dict[str, Rejections]] = field(default_factory=dict)
    edits: list[ContentEdit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the reviewer must be told
    done: list[tuple[str, str]] = field(default_factory=list)  # (lang, key) decided

    def set(self, lang: str, key: str, rec: StatusRecord | None) -> None:
        self.changes.setdefault(lang, {})[key] = rec
        self.done.append((lang, key))


def unit_where(unit: Unit) -> tuple[str | None, int | None]:
    if unit.translation is not None:
        return unit.translation_file, unit.translation_line
    return unit.source_file, unit.source_line


def approve(
    analysis: Analysis,
    targets: Sequence[tuple[str, str]],
    reviewer: str,
    day: date,
    *,
    force: bool = False,
    keep_current: bool = False,
    skip_missing: bool = False,
    interactive: bool = False,
) -> Decision:
    """Record units as reviewed for their current source. Raises DiagnosticError (nothing is
    written) on problems.

    A unit with a waiting machine draft adopts it: the draft is written into the content file
    and recorded as reviewed (it must have been made from the current source). With
    `keep_current` the present translation is recorded as reviewed for the current source
    instead and the waiting draft is dismissed (named in `notes`). A translation recorded for an
    older source and not changed since is refused without `keep_current`: approving must never
    record a text as reviewed for a source it was not made from; nor, even with `keep_current`,
    a body section's translation made from the section now at another index of its post
    (check/moved.py: a section was inserted or removed before it); nor, ever, a source text
    standing in for a translation (`options.untranslated`). With `skip_missing` (approve
    --all / --file) units refused for those reasons are skipped and named in `notes`.
    `interactive`: asked at `bipub review -i`'s prompt (a refusal names its choices)."""
    for lang in sorted({lang for lang, _ in targets}):
        writable(analysis, lang)
    problems: list[Diagnostic] = []
    out = Decision()
    # how a refusal names the way out: the command's flags, or `review -i`'s choices
    keep, reject = (
        ("choose [k]eep current", "[r]eject")
        if interactive
        else ("approve --keep-current", "reject")
    )
    for lang, key in targets:
        unit = analysis.units[(lang, key)]
        file, line = unit_where(unit)
        if key.startswith("ui:"):
            problems.append(
                Diagnostic(
                    file,
                    line,
                    "review",
                    f"{key}: UI strings are reviewed in their catalog (remove the fuzzy flag)",
                )
            )
            continue
        old = record_of(analysis, lang, key)
        source_hash = text_hash(unit.source)
        refusal: str | None = None
        adopt = old is not None and old.draft is not None and not keep_current
        text = unit.translation
        if adopt:
            assert old is not None
            if not draft_is_current(unit, old):
                refusal = (
                    f"{key}: the waiting machine draft was made from an older source; run "
                    f"bipub translate to draft it again, {keep} to keep the present "
                    f"translation, or {reject} the draft"
                )
            elif unit.translation is not None and old.translation_hash not in (
                None,
                text_hash(unit.translation),
            ):
                refusal = (
                    f"{key}: the translation was edited since its status was recorded, and a "
                    f"machine draft waits beside it; {keep} to approve the edited text (the "
                    f"draft is dismissed), or {reject} the draft first"
                )
            text = old.draft
        elif (moved := moved_section(analysis.units, lang, key, old)) is not None:
            assert old is not None
            refusal = f"{key}: " + moved_message(
                moved, lang, unit.source_lang, old, unit, approving=True, interactive=interactive
            )
        elif unit.translation is None:
            if skip_missing:
                continue
            problems.append(
                Diagnostic(
                    file, line, "review", f"{key}: there is no {lang} translation to approve"
                )
            )
            continue
        elif (cause := stand_in_cause(old, unit.translation)) is not None:
            view = analysis.status.get(lang)
            held = view is not None and rejection_of(view.rejected, key, source_hash) is not None
            again = (  # (a draft rejected for this source is not drafted again: held back)
                "bipub translate --redraft-rejected writes the rejected draft again"
                if held
                else "draft it again with bipub translate"
            )
            refusal = (  # (not even with --force or --keep-current: it is no translation)
                f"{key}: its text is the {unit.source_lang} source standing in for a "
                f"translation ({cause}), not a translation to approve; translate it by hand "
                f"(then approve it), or {again}"
            )
        elif (
            not keep_current
            and old is not None
            and old.source_hash != source_hash
            and old.translation_hash == text_hash(unit.translation)
        ):
            refusal = (
                f"{key}: the source changed since this translation was made and the translation "
                f"has not changed; edit it, run bipub translate for a new draft, or {keep} if "
                "it still fits the new source"
            )
        if refusal is not None:
            if skip_missing:
                out.notes.append(f"skipped {key} [{lang}]: {refusal.split(': ', 1)[1]}")
            else:
                problems.append(Diagnostic(file, line, "review", refusal))
            continue
        assert text is not None
        said, edited = drafting_approved(old, text, adopt, unit)
        if said and not force:
            what = "the waiting draft's drafting said" if adopt else "its drafting said"
            problems.extend(
                Diagnostic(
                    file,
                    line,
                    code,
                    f"{key}: {what}: {message} (fix it, or approve with --force)",
                )
                for code, message in said
            )
        elif said:
            out.notes.append(
                f"approved {key} [{lang}] with what its drafting said (--force): "
                + "; ".join(f"{code}: {message}" for code, message in said)
            )
        elif edited:
            out.notes.append(
                f"{key} [{lang}] was edited since it was drafted; its drafting had said: "
                + "; ".join(f"{c}: {m}" for c, m in edited)
                + " — the edit is approved as it is"
            )
        errors = qa_errors(analysis, lang, key, text if adopt else None)
        if not force:
            for f in errors:
                what = "the waiting draft: " if adopt else ""
                problems.append(
                    Diagnostic(
                        f.file,
                        f.line,
                        f.code,
                        f"{key}: {what}{f.message} (fix it, or approve with --force)",
                    )
                )
        elif errors:  # (recorded as reviewed all the same: said, as what drafting said is)
            out.notes.append(
                f"approved {key} [{lang}] with QA errors (--force): "
                + "; ".join(f"{f.code}: {f.message}" for f in errors)
            )
        origin: Literal["human", "machine"]
        if adopt:
            assert old is not None
            origin, engine, options = "machine", old.draft_engine, None
            out.edits.append(ContentEdit(lang, key, text))
        elif (
            old is not None and old.origin == "machine" and old.translation_hash == text_hash(text)
        ):
            origin, engine, options = "machine", old.engine, old.options
        else:
            origin, engine, options = "human", None, None  # written or edited by a person
        if old is not None and old.draft is not None and keep_current:
            out.notes.append(f"dismissed the waiting machine draft of {key} [{lang}]")
        out.set(
            lang,
            key,
            StatusRecord(
                source_hash=source_hash,
                source=nfc(unit.source),
                origin=origin,
                engine=engine,
                options=options,
                state="reviewed",
                reviewer=reviewer,
                reviewed=day,
                translation_hash=text_hash(text),
            ),
        )
    if problems:
        raise DiagnosticError(problems)
    return out


def drafting_errors(
    analysis: Analysis, lang: str, key: str, keep_current: bool = False
) -> list[tuple[str, str]]:
    """What the drafting said of the text `approve` would record for the unit, which refuses
    it unless forced (findings.py `drafting_approved`): for `review -i` to ask before."""
    old = record_of(analysis, lang, key)
    adopt = old is not None and old.draft is not None and not keep_current
    unit = analysis.units[(lang, key)]
    text = old.draft if adopt and old is not None else unit.translation
    return drafting_approved(old, text, adopt, unit)[0] if text is not None else []


def _whole_content(analysis: Analysis) -> None:
    """Refuse when a content file failed to load or pair: its units are not in the analysis,
    so their records would look orphaned and be pruned (a post with a front matter typo
    would lose every review record it has)."""
    problems = [
        Diagnostic(f.file, f.line, f.code, f.message)
        for f in analysis.result.findings
        if f.severity is Severity.ERROR
        and f.code != "status"
        and (code := explain(f.code)) is not None
        and code.stage in ("load", "pair")
    ]
    if problems:
        problems.append(
            Diagnostic(
                None,
                None,
                "review",
                "nothing pruned: the records of a file that did not load or pair would look "
                "orphaned and be removed; fix its errors first",
            )
        )
        raise DiagnosticError(problems)


def prune(
    analysis: Analysis, langs: Sequence[str] = ()
) -> dict[str, dict[str, StatusRecord | None]]:
    """Status records whose unit is gone (source deleted, or a UI key) → removed; those of a
    renamed post or page (check/renames.py) → moved to their unit's new key. Refused while any
    content file has a load or pairing error (`_whole_content`)."""
    _whole_content(analysis)
    changes: dict[str, dict[str, StatusRecord | None]] = {}
    for lang, view in analysis.status.items():
        if langs and lang not in langs:
            continue
        writable(analysis, lang)  # a file read only in part must not be pruned
        gone = [k for k in view.records if (lang, k) not in analysis.units or k.startswith("ui:")]
        if gone:
            changes[lang] = dict.fromkeys(gone)
            moved = renamed_records(analysis.units.values(), view.records, lang)
            for old, new in moved.items():
                changes[lang][new] = view.records[old]
    return changes


def write_changes(
    analysis: Analysis,
    changes: Mapping[str, Mapping[str, StatusRecord | None]],
    rejections: Mapping[str, Mapping[str, Rejections | None]] | None = None,
) -> list[str]:
    """Apply changes (None removes a record) and `rejections` (to the file's, pair/status.py;
    None removes one), and write each status file atomically (its other rejections kept)."""
    written: list[str] = []
    for lang in sorted({*changes, *(rejections or {})}):
        updates = changes.get(lang, {})
        forget = (rejections or {}).get(lang, {})
        if not updates and not forget:
            continue
        writable(analysis, lang)
        view = analysis.status.get(lang)
        records: dict[str, StatusRecord] = dict(view.records) if view is not None else {}
        rejected = dict(view.rejected) if view is not None else {}
        for key, rejection in forget.items():
            if rejection is None:
                rejected.pop(key, None)
            else:
                rejected[key] = rejection
        for key, rec in updates.items():
            if rec is None:
                records.pop(key, None)
            else:
                records[key] = rec
        rel = status_rel(lang)
        path = analysis.root / rel
        text = dump_status(records, rejected)
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        write_atomic(path, text)
        written.append(rel)
    return written
