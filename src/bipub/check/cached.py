"""`bipub check` with its result cache: `CheckRun`, `run_check`.

Kept apart from check/run.py (the analysis) so that a check whose inputs did not change loads
only this, the findings and the cache — not the models, parsers and QA rules.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bipub import schedule, uptodate
from bipub.cache import CACHE_FORMAT, UNREADABLE, load_signed, save_signed
from bipub.check.result import RESULT_FORMAT, CheckResult
from bipub.project import Project


class CheckRun:
    """One `bipub check` with its caches. When no input file changed since the last check with
    the same options (src/bipub/uptodate.py says what counts as an input), its result is reused,
    and so is a report it already wrote in the same format: a warm check on a big site then
    reads one file instead of unpickling tens of thousands of findings and formatting them."""

    def __init__(
        self,
        root: Path,
        *,
        langs: Sequence[str] = (),
        only: Sequence[str] = (),
        strict: bool = False,
        use_cache: bool = True,
    ) -> None:
        self.root = root
        self.langs, self.only, self.strict = langs, only, strict
        self.use_cache = use_cache
        project = Project(root)
        key = uptodate.options_key(
            "check", CACHE_FORMAT, RESULT_FORMAT, sorted(langs), sorted(only), strict
        )
        self.path = project.cache / f"check-{key[:16]}.pickle"
        self.window = schedule.OPEN  # (the result's, once read or made)
        self.stamp = b""
        if use_cache:
            inputs = uptodate.scan_inputs(project)
            self.stamp = (
                hashlib.sha256(repr((key, sorted(inputs.items()))).encode()).hexdigest().encode()
            )

    def _load(self, path: Path) -> object:
        """What a fresh cache file holds, or None (missing, stale, damaged or not ours)."""
        if not self.use_cache:
            return None
        try:
            with path.open("rb") as f:
                if f.read(len(self.stamp)) != self.stamp:  # its inputs: read before the rest
                    return None
            seen_stamp, value = load_signed(path, skip=len(self.stamp))
        except UNREADABLE:  # an unreadable cache only costs time: check again
            return None
        return value if seen_stamp == self.stamp else None

    def result(self) -> CheckResult:
        cached = self._load(self.path)
        if isinstance(cached, CheckResult) and _holds(cached.window):
            self.window = cached.window
            return cached
        # imported here: the analysis loads the models, parsers and QA rules, which a check whose
        # inputs did not change never needs (start-up time of a warm `bipub check`)
        from bipub.check import run

        analysis = run.analyze(self.root, langs=self.langs, only=self.only, strict=self.strict)
        self.window = analysis.result.window
        if self.use_cache:
            save_signed(self.path, (self.stamp, analysis.result), prefix=self.stamp)
        return analysis.result

    def _report_path(self, fmt: str) -> Path:
        return self.path.with_name(f"{self.path.stem}-{fmt}.report")

    def cached_report(self, fmt: str) -> CachedReport | None:
        """The report in `fmt` (without colour) of the last check, if nothing changed since."""
        cached = self._load(self._report_path(fmt))
        return cached if isinstance(cached, CachedReport) and _holds(cached.window) else None

    def save_report(self, fmt: str, report: CachedReport) -> None:
        """Keep `report`, made of this run's `result` (and so true in its window)."""
        if self.use_cache:
            report = replace(report, window=self.window)
            save_signed(self._report_path(fmt), (self.stamp, report), prefix=self.stamp)


@dataclass(frozen=True)
class CachedReport:
    text: str  # the report as written
    total: str  # report.total_line of its result
    exit_code: int
    window: tuple[float, float] = schedule.OPEN  # (its result's: CheckResult.window)


def _holds(window: tuple[float, float]) -> bool:
    """Whether a result found in `window` holds now: "now" (SOURCE_DATE_EPOCH, else the clock:
    the clock is no input, and a scheduled post's date may have passed since) is in it. A
    SOURCE_DATE_EPOCH that is no number: not (the check says why)."""
    if window == schedule.OPEN:  # (publish_future, or no dated post: the clock is not read)
        return True
    try:
        return schedule.holds(window, schedule.build_now())
    except ValueError:
        return False


def run_check(
    root: Path,
    *,
    langs: Sequence[str] = (),
    only: Sequence[str] = (),
    strict: bool = False,
    use_cache: bool = True,
) -> CheckResult:
    """`bipub check`'s result (the last one, if no input changed since: see CheckRun)."""
    return CheckRun(root, langs=langs, only=only, strict=strict, use_cache=use_cache).result()
