"""The reviewer's workflow over status files: what needs review, approve, reject, prune.

Every change goes through `dump_status` and an atomic replace; a status file that could not be
read cleanly (invalid YAML, a bad record, colliding keys) is never rewritten. Content files are
never edited here: rejecting a machine draft that was written into a content file removes its
status record and names the file to revert.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Literal

from bipub.check.findings import QA_CODES, Finding
from bipub.check.run import Analysis, inline_ignores_for, qa_findings
from bipub.check.severity import apply_policy
from bipub.diagnostics import Diagnostic, DiagnosticError, Severity
from bipub.pair.status import StatusRecord, dump_status, status_rel
from bipub.pair.units import Unit, nfc, text_hash

ReviewState = Literal["draft", "stale", "edited"]


def _error(message: str, file: str | None = None, line: int | None = None) -> DiagnosticError:
    return DiagnosticError([Diagnostic(file, line, "review", message)])


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
        raise _error("no reviewer name: pass --reviewer NAME or set git config user.name")
    return name


def review_date() -> date:
    """SOURCE_DATE_EPOCH when set (reproducible), else today."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        try:
            return datetime.fromtimestamp(int(epoch), tz=UTC).date()
        except ValueError:
            raise _error(f"SOURCE_DATE_EPOCH={epoch!r} is not a number of seconds") from None
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


def item(analysis: Analysis, lang: str, key: str) -> Item:
    unit = analysis.units[(lang, key)]
    findings = tuple(analysis.by_unit.get((lang, key), ()))
    codes = {f.code for f in findings}
    order: tuple[ReviewState, ...] = ("draft", "stale", "edited")
    states = tuple(s for s in order if s in codes)
    view = analysis.status.get(lang)
    record = view.records.get(key) if view is not None else None
    return Item(lang, key, unit, states, findings, record)


def queue(analysis: Analysis, langs: Sequence[str] = ()) -> list[Item]:
    """Drafts, stale and edited units, by language, file and line."""
    wanted = {"draft", "stale", "edited"}
    keys = sorted(
        {
            (f.lang, f.key)
            for f in analysis.result.findings
            if f.code in wanted and f.lang and f.key and (f.lang, f.key) in analysis.units
        }
    )
    items = [item(analysis, lang, key) for lang, key in keys if not langs or lang in langs]
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


# --------------------------------------------------------------------------- selecting units


def resolve(
    analysis: Analysis, keys: Iterable[str], langs: Sequence[str] = ()
) -> list[tuple[str, str]]:
    """Unit keys (or a document key such as posts/x, or cv:) → (lang, key). Unknown → error."""
    out: list[tuple[str, str]] = []
    unknown: list[str] = []
    for raw in keys:
        key = nfc(raw.strip())
        found = [
            (lang, k)
            for (lang, k) in sorted(analysis.units)
            if (k == key or k.startswith(key + ":") or (key.endswith(":") and k.startswith(key)))
            and (not langs or lang in langs)
        ]
        if not found:
            unknown.append(raw)
        out.extend(f for f in found if f not in out)
    if unknown:
        raise DiagnosticError(
            [
                Diagnostic(None, None, "review", f"unknown unit key {k!r} (see bipub check)")
                for k in unknown
            ]
        )
    return out


def by_file(
    analysis: Analysis, path: Path, cwd: Path, langs: Sequence[str] = ()
) -> list[tuple[str, str]]:
    full = path if path.is_absolute() else (cwd / path)
    try:
        rel = nfc(full.resolve().relative_to(analysis.root.resolve()).as_posix())
    except ValueError:
        raise _error(f"{path} is not inside the project {analysis.root}") from None
    found = [
        (lang, k)
        for (lang, k), u in sorted(analysis.units.items())
        if rel in (u.translation_file, u.source_file) and (not langs or lang in langs)
    ]
    if not found:
        raise _error(f"no translatable units in {rel}")
    return found


def every(analysis: Analysis, langs: Sequence[str]) -> list[tuple[str, str]]:
    """Translated units of these languages that are not reviewed and current (UI excluded)."""
    return [
        (lang, k)
        for (lang, k), u in sorted(analysis.units.items())
        if lang in langs
        and u.translation is not None
        and not k.startswith("ui:")
        and (lang, k) not in analysis.parity.reviewed
    ]


# --------------------------------------------------------------------------- approve, reject, prune


def _writable(analysis: Analysis, lang: str) -> None:
    if lang in analysis.broken_status:
        rel = status_rel(lang)
        problems = [
            Diagnostic(f.file, f.line, f.code, f.message)
            for f in analysis.result.findings
            if f.file == rel and f.severity is Severity.ERROR
        ]
        raise DiagnosticError(
            problems or [Diagnostic(rel, None, "status", f"{rel} has errors; fix it first")]
        )


def qa_errors(analysis: Analysis, lang: str, key: str) -> list[Finding]:
    """QA errors of a unit's translation against its current source (what approving accepts)."""
    unit = analysis.units[(lang, key)]
    if unit.translation is None:
        return []
    raw = qa_findings(analysis, unit, on_draft=False)
    inline = inline_ignores_for(analysis, [(lang, key)])
    outcome = apply_policy(raw, analysis.config.check, inline=inline)
    return [f for f in outcome.findings if f.severity is Severity.ERROR and f.code in QA_CODES]


def approve(
    analysis: Analysis,
    targets: Sequence[tuple[str, str]],
    reviewer: str,
    day: date,
    *,
    force: bool = False,
    skip_missing: bool = False,
) -> dict[str, dict[str, StatusRecord]]:
    """New status records per language. Raises DiagnosticError (nothing written) on problems."""
    for lang in sorted({lang for lang, _ in targets}):
        _writable(analysis, lang)
    problems: list[Diagnostic] = []
    changes: dict[str, dict[str, StatusRecord]] = {}
    for lang, key in targets:
        unit = analysis.units[(lang, key)]
        if key.startswith("ui:"):
            problems.append(
                Diagnostic(
                    unit.translation_file,
                    unit.translation_line,
                    "review",
                    f"{key}: UI strings are reviewed in their catalog (remove the fuzzy flag)",
                )
            )
            continue
        if unit.translation is None:
            if skip_missing:
                continue
            problems.append(
                Diagnostic(
                    unit.source_file,
                    unit.source_line,
                    "review",
                    f"{key}: there is no {lang} translation to approve",
                )
            )
            continue
        if not force:
            for f in qa_errors(analysis, lang, key):
                problems.append(
                    Diagnostic(
                        f.file,
                        f.line,
                        f.code,
                        f"{key}: {f.message} (fix it, or approve with --force)",
                    )
                )
        view = analysis.status.get(lang)
        old = view.records.get(key) if view is not None else None
        changes.setdefault(lang, {})[key] = StatusRecord(
            source_hash=text_hash(unit.source),
            source=nfc(unit.source),
            origin=old.origin if old else "human",
            engine=old.engine if old else None,
            options=old.options if old else None,
            state="reviewed",
            reviewer=reviewer,
            reviewed=day,
            translation_hash=text_hash(unit.translation),
        )
    if problems:
        raise DiagnosticError(problems)
    return changes


@dataclass(frozen=True)
class Rejected:
    lang: str
    key: str
    revert: str | None  # a content file that still holds the rejected draft text


def reject(
    analysis: Analysis, targets: Sequence[tuple[str, str]]
) -> tuple[dict[str, dict[str, StatusRecord | None]], list[Rejected]]:
    """Drop drafts: a draft record is removed (its text stays in the content file, named in
    the result); a newer draft kept beside a reviewed translation is dropped from the record."""
    for lang in sorted({lang for lang, _ in targets}):
        _writable(analysis, lang)
    problems: list[Diagnostic] = []
    changes: dict[str, dict[str, StatusRecord | None]] = {}
    done: list[Rejected] = []
    for lang, key in targets:
        unit = analysis.units[(lang, key)]
        view = analysis.status.get(lang)
        rec = view.records.get(key) if view is not None else None
        if rec is None or (rec.state != "draft" and not rec.draft):
            problems.append(
                Diagnostic(
                    unit.translation_file or unit.source_file,
                    unit.translation_line or unit.source_line,
                    "review",
                    f"{key}: not a draft; nothing to reject",
                )
            )
            continue
        if rec.state == "draft":
            changes.setdefault(lang, {})[key] = None
            done.append(Rejected(lang, key, unit.translation_file))
        else:
            changes.setdefault(lang, {})[key] = rec.model_copy(update={"draft": None})
            done.append(Rejected(lang, key, None))
    if problems:
        raise DiagnosticError(problems)
    return changes, done


def prune(
    analysis: Analysis, langs: Sequence[str] = ()
) -> dict[str, dict[str, StatusRecord | None]]:
    """Status records whose unit is gone (source deleted, or a UI key) → removed."""
    changes: dict[str, dict[str, StatusRecord | None]] = {}
    for lang, view in analysis.status.items():
        if langs and lang not in langs:
            continue
        _writable(analysis, lang)  # a file read only in part must not be pruned
        gone = [k for k in view.records if (lang, k) not in analysis.units or k.startswith("ui:")]
        if gone:
            changes[lang] = dict.fromkeys(gone)
    return changes


def write_changes(
    analysis: Analysis, changes: Mapping[str, Mapping[str, StatusRecord | None]]
) -> list[str]:
    """Apply changes (None removes a record) and write each status file atomically."""
    written: list[str] = []
    for lang, updates in sorted(changes.items()):
        if not updates:
            continue
        _writable(analysis, lang)
        view = analysis.status.get(lang)
        records: dict[str, StatusRecord] = dict(view.records) if view is not None else {}
        for key, rec in updates.items():
            if rec is None:
                records.pop(key, None)
            else:
                records[key] = rec
        rel = status_rel(lang)
        path = analysis.root / rel
        text = dump_status(records)
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(text, encoding="utf-8", newline="\n")
        os.replace(tmp, path)
        written.append(rel)
    return written
