"""Why a body section cannot be appended to an existing translation: a section before it is
not in the file, and this run does not write it either (translate/doc_edit.py `Gap`).

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


def blocked(plan: Plan, group: Group, missing: str, result: Result, *, new: bool) -> Blocked:
    """Why unit `missing` of `group` ("body#3", "title") is not in its translation file after
    this run: for the sections after it (`new`: for the other units of a new file, which needs
    every unit)."""
    key = f"{group.name}:{missing}"
    where = _where(plan, group, key, missing)
    if new:
        before = f"a new translation needs every unit of the source: {key} ({where})"
    else:
        before = f"body section {missing.removeprefix('body#')} before it ({key}, {where})"
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


def _where(plan: Plan, group: Group, key: str, name: str) -> str:
    """The source file and line of unit `key` (`name` its part: "body#3", "title")."""
    for job in (*plan.jobs, *plan.too_long.values()):
        if job.key == key and job.unit.source_line:
            return f"{job.unit.source_file}:{job.unit.source_line}"
    src = group.source_doc
    if src is not None and name.startswith("body#"):
        secs = split_sections(src.body, src.body_line)
        index = int(name.removeprefix("body#"))
        if index < len(secs):
            return f"{group.source_file}:{secs[index].line}"
    return group.source_file
