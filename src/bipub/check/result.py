"""The result of `bipub check`, and `run_check`: the check with its result cache.

Kept apart from check/run.py (the analysis) so that a check whose inputs did not change loads
only this, the findings and the cache — not the models, parsers and QA rules.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bipub.check.findings import Finding
from bipub.diagnostics import Severity
from bipub.project import Project

COVERAGE_FIELDS = ("units", "current", "reviewed", "draft", "stale", "missing")


@dataclass
class CheckResult:
    findings: list[Finding]
    ignored: list[tuple[Finding, str]]
    coverage: dict[str, dict[str, dict[str, int]]]  # lang → kind → COVERAGE_FIELDS
    langs: list[str]

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


def run_check(
    root: Path,
    *,
    langs: Sequence[str] = (),
    only: Sequence[str] = (),
    strict: bool = False,
    use_cache: bool = True,
) -> CheckResult:
    """`bipub check`. When no input file changed since the last check with the same options,
    its result is reused (src/bipub/uptodate.py says what counts as an input)."""
    from bipub import uptodate
    from bipub.cache import CACHE_FORMAT, load_signed, save_signed

    project = Project(root)
    key = uptodate.options_key("check", CACHE_FORMAT, sorted(langs), sorted(only), strict)
    path = project.cache / f"check-{key[:16]}.pickle"
    stamp = b""
    if use_cache:
        inputs = uptodate.scan_inputs(project)
        stamp = hashlib.sha256(repr((key, sorted(inputs.items()))).encode()).hexdigest().encode()
        try:
            with path.open("rb") as f:
                fresh = f.read(len(stamp)) == stamp  # the result's inputs: read before the rest
        except OSError:
            fresh = False
        if fresh:
            try:
                seen_stamp, result = load_signed(path, skip=len(stamp))
            except Exception:  # an unreadable cache only costs time: check again
                seen_stamp = None
            if seen_stamp == stamp and isinstance(result, CheckResult):
                return result
    from bipub.check import run

    result = run.analyze(root, langs=langs, only=only, strict=strict).result
    if use_cache:
        save_signed(path, (stamp, result), prefix=stamp)
    return result
