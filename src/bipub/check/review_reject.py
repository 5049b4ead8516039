"""`bipub review reject`: machine drafts rejected, and each rejected text remembered for the
source it was made from (the status file's `rejected`, pair/status.py), so that `bipub
translate` does not bring the same text back (translate/rejected.py). Its decisions are
carried out as approve's (check/review.py `Decision`, translate/review_edits.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path

from bipub.check.review import ContentEdit, Decision, reviewer_name, unit_where, writable
from bipub.check.review_select import record_of
from bipub.check.run import Analysis
from bipub.diagnostics import Diagnostic, DiagnosticError
from bipub.pair.status import Rejections, rejected_again
from bipub.pair.units import text_hash


def rejecter_name(explicit: str | None, root: Path) -> str | None:
    """Who rejects: as `reviewer_name`, or None when nothing gives a name (a rejection needs
    none: it is kept without)."""
    try:
        return reviewer_name(explicit, root)
    except DiagnosticError:
        return None


def drafts_of(analysis: Analysis, targets: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """Those of `targets` that have a machine draft to reject (written into the content file,
    or waiting beside a translation)."""
    out = []
    for lang, key in targets:
        rec = record_of(analysis, lang, key)
        if rec is not None and (rec.draft is not None or rec.state == "draft"):
            out.append((lang, key))
    return out


def _rejection(
    analysis: Analysis,
    lang: str,
    key: str,
    source_hash: str,
    draft: str,
    who: str | None,
    day: date | None,
) -> Rejections:
    """The unit's rejections with `draft` added to the one for its source (pair/status.py:
    those for other sources are kept, in case the source comes back)."""
    view = analysis.status.get(lang)
    old = view.rejected.get(key, ()) if view is not None else ()
    return rejected_again(old, source_hash, text_hash(draft), who, day)


def reject(
    analysis: Analysis,
    targets: Sequence[tuple[str, str]],
    reviewer: str | None = None,
    day: date | None = None,
) -> Decision:
    """Reject machine drafts. A draft waiting beside a translation is dropped from its record,
    with what its drafting said (the file keeps its text, and a draft there its `findings`).
    A draft written into the content file is removed from the file, and its record with it:
    the unit is missing again. Machine text never stays behind without its record: where the
    text cannot be removed on its own (a post's title, a body section before others, a draft
    edited by hand), nothing is done and the problem is reported. Each rejected text is
    remembered (`Decision.rejections`, by `reviewer` on `day`) with the source it was made
    from."""
    for lang in sorted({lang for lang, _ in targets}):
        writable(analysis, lang)
    problems: list[Diagnostic] = []
    out = Decision()
    for lang, key in targets:
        unit = analysis.units[(lang, key)]
        file, line = unit_where(unit)
        rec = record_of(analysis, lang, key)
        if rec is not None and rec.draft is not None:
            made_from = rec.draft_source_hash or text_hash(unit.source)
            out.rejections.setdefault(lang, {})[key] = _rejection(
                analysis, lang, key, made_from, rec.draft, reviewer, day
            )
            out.set(
                lang,
                key,
                rec.model_copy(
                    update={
                        "draft": None,
                        "draft_source_hash": None,
                        "draft_engine": None,
                        "draft_findings": None,
                    }
                ),
            )
            continue
        if rec is None or rec.state != "draft" or unit.translation is None:
            problems.append(
                Diagnostic(file, line, "review", f"{key}: not a draft; nothing to reject")
            )
            continue
        if rec.translation_hash not in (None, text_hash(unit.translation)):
            problems.append(
                Diagnostic(
                    file,
                    line,
                    "review",
                    f"{key}: the machine draft was edited by hand since it was written; approve "
                    "it (it is then your translation) or undo the edit before rejecting it",
                )
            )
            continue
        out.edits.append(ContentEdit(lang, key, None))
        out.set(lang, key, None)
        out.rejections.setdefault(lang, {})[key] = _rejection(
            analysis, lang, key, rec.source_hash, unit.translation, reviewer, day
        )
    if problems:
        raise DiagnosticError(problems)
    return out


def gone_rejections(analysis: Analysis, langs: Sequence[str] = ()) -> dict[str, list[str]]:
    """The rejections (pair/status.py) of units that are gone, by language (`prune`'s
    conditions hold: it is called after it)."""
    out: dict[str, list[str]] = {}
    for lang, view in analysis.status.items():
        gone = [k for k in view.rejected if (lang, k) not in analysis.units]
        if gone and (not langs or lang in langs):
            out[lang] = sorted(gone)
    return out
