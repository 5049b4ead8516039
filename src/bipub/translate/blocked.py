"""Why a body section cannot be appended to an existing translation: a section before it is
not in the file, and this run does not write it either (translate/writers.py `_Gap`).

Sections are paired by position, so section 3 can only be added after section 2. When 2 is
not written, the cause of 3 is 2's cause, said with 2's key and the line of its source: held
back because its draft is the one a reviewer rejected (translate it by hand, or
--redraft-rejected: running again does not help), refused by DeepL, too long for a request,
not sent because the run stopped, or outside --only. The later section's answer is cached:
the run that writes the one before it writes it without sending it again (an answer that failed
its checks excepted: translate/cache.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bipub.check.findings import in_source
from bipub.pair.units import split_sections
from bipub.translate.outcome import Result

if TYPE_CHECKING:
    from bipub.translate.plan import Group, Plan


@dataclass(frozen=True)
class Blocked:
    """The cause to report for the later section; `retry`: running again may write it."""

    cause: str
    retry: bool = True


def blocked(plan: Plan, group: Group, missing: int, result: Result) -> Blocked:
    """Why body section `missing` of `group` (the first one not in its translation file) is
    not there after this run, for the sections after it."""
    key = f"{group.name}:body#{missing}"
    where = group.source_file
    src = group.source_doc
    if src is not None:
        secs = split_sections(src.body, src.body_line)
        if missing < len(secs):
            where = f"{group.source_file}:{secs[missing].line}"
    before = f"body section {missing} before it ({key}, {where})"
    held = next((h for h in result.held if h.key == key), None)
    if held is not None:
        return Blocked(f"{before} is held back: {held.cause()}", retry=False)
    failed = next((n for n in result.not_written if n.key == key), None)
    if failed is not None:
        if failed.cause.startswith("not sent:"):  # (resumed by the next run: counted, not said)
            return Blocked(failed.cause)
        said = in_source(failed.cause, failed.source)
        return Blocked(f"{before} is not written: {said}", retry=failed.retry)
    if not any(j.key == key for j in plan.jobs):
        return Blocked(
            f"{before} is not drafted in this run (outside --only): draft it too (--only {key})"
        )
    return Blocked(f"{before} is not written")
