"""The result of `bipub check`: its findings, the ignored ones and the coverage per language.

Made by check/run.py (the analysis), cached by check/cached.py, written by check/report.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bipub.check.findings import Finding
from bipub.diagnostics import Severity

#: The parts of a language's units (check/coverage.py): each unit counts in exactly one.
COVERAGE_PARTS = (
    "reviewed",
    "unreviewed",
    "untranslated",
    "failing_qa",
    "draft",
    "stale",
    "missing",
)
#: Per language and kind: units, its parts, and `current` (the first four parts together).
COVERAGE_FIELDS = ("units", *COVERAGE_PARTS, "current")
#: Bumped when a cached CheckResult (check/cached.py) no longer fits the code that reads it.
RESULT_FORMAT = 3  # 3: its `window`


@dataclass
class CheckResult:
    findings: list[Finding]
    ignored: list[tuple[Finding, str]]
    coverage: dict[str, dict[str, dict[str, int]]]  # lang → kind → COVERAGE_FIELDS
    langs: list[str]
    # the instants between which the posts a build would hold back are those this check found
    # (bipub/schedule.py `window`): its `scheduled-link` findings hold only then (check/cached.py)
    window: tuple[float, float] = (-math.inf, math.inf)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity is not Severity.ERROR]

    @property
    def exit_code(self) -> int:
        return 1 if self.errors else 0

    def summary(self) -> dict[str, object]:
        counts: dict[str, dict[str, int]] = {}
        for f in self.findings:
            per = counts.setdefault(f.code, {})
            per[f.lang or "-"] = per.get(f.lang or "-", 0) + 1
        return {
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "ignored": len(self.ignored),
            "counts": {code: dict(sorted(v.items())) for code, v in sorted(counts.items())},
            "coverage": self.coverage,
        }
