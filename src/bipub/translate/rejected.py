"""Drafts a reviewer rejected are not written again: `bipub translate`'s side of the status
file's `rejected` (pair/status.py `Rejection`, written by `bipub review reject`).

DeepL's answers are cached by segment text (translate/cache.py), and asking again mostly gives
the same text: without this, the run after a rejection writes the very text the reviewer
rejected, as a fresh draft. So a draft whose text is one rejected for the same source (same
hashes: pair/units.py `text_hash`, NFC, trailing spaces ignored) is held back: not written,
and said per unit and in the summary. A new file (every unit of a post rejected, the file
removed) is not written when all its drafts are held back; when only some are, the source
text stands in for those, as for a segment DeepL refused (a draft to redo, never the rejected
text). `--redraft-rejected` writes them anyway. A changed source is drafted as any (its hash
no longer matches); the rejection stays remembered, for the source it was made from: a source
that comes back to that text (an edit undone) would get the same answer from the cache again.
A different answer (`--fresh`, a changed glossary) is a new draft and is written.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Protocol, TypeVar

from bipub.pair.status import Rejection, rejection_of, stand_in_cause
from bipub.pair.units import Unit, text_hash
from bipub.translate.outcome import Held, Result

if TYPE_CHECKING:
    from bipub.translate.plan import Group, Job, Plan


class _Draft(Protocol):  # (translate/writers.py `_Draft`)
    @property
    def job(self) -> Job: ...
    @property
    def text(self) -> str: ...
    @property
    def stand_in(self) -> str | None: ...


D = TypeVar("D", bound=_Draft)


def rejection_for(plan: Plan, unit: Unit) -> Rejection | None:
    """The unit's rejection if it is for its present source."""
    return rejection_of(plan.rejected, unit.key, text_hash(unit.source))


def held_back(plan: Plan, group: Group, drafts: list[D], result: Result, new_doc: bool) -> list[D]:
    """`drafts` without those whose text was rejected for the same source (each added to
    `result.held`); in a new file the source text stands in for them, unless all are held
    (then nothing is written)."""
    rejected: dict[int, Rejection] = {}
    for d in drafts:
        rejection = rejection_for(plan, d.job.unit) if d.stand_in is None else None
        if rejection is not None and text_hash(d.text) in rejection.drafts:
            rejected[id(d)] = rejection
    if not rejected:
        return drafts
    stand_in = new_doc and len(rejected) < len(drafts)
    out: list[D] = []
    for d in drafts:
        if id(d) not in rejected:
            out.append(d)
            continue
        unit = d.job.unit
        standing = stand_in or stand_in_cause(d.job.record, unit.translation) is not None
        result.held.append(Held(d.job.key, group.target_file, rejected[id(d)], standing))
        if stand_in:
            out.append(
                dataclasses.replace(  # type: ignore[type-var]
                    d, text=unit.source, problems=(), said=(), stand_in="its draft was rejected"
                )
            )
    return [] if new_doc and not stand_in else out


def pending(plan: Plan) -> list[tuple[str, Rejection]]:
    """The units in the plan with a rejection for their present source (`--dry-run`: drafted,
    but not written if DeepL's answer is the rejected text)."""
    out = []
    for job in plan.jobs:
        rejection = rejection_for(plan, job.unit)
        if rejection is not None:
            out.append((job.key, rejection))
    return out
