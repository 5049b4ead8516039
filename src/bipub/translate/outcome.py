"""What a `bipub translate` run did: units drafted, units not written (each with its real
cause), findings, billing. Read by translate_cmd for the summary and the exit status."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from bipub.check.findings import in_source
from bipub.pair.status import Rejection
from bipub.translate.deepl_client import Usage


@dataclass(frozen=True)
class Problem:
    """A QA or markup finding of one draft (`written`: the draft was written anyway).
    `source`: the unit's source file and its first line there."""

    key: str
    file: str | None
    code: str
    message: str
    written: bool = True
    source: tuple[str, int] | None = None

    def format(self, lang: str) -> str:
        where = self.file or "bipub"
        said = in_source(self.message, self.source)
        return f"{where}: warning: [{lang}] {self.key}: {self.code}: {said}"


#: The option that writes drafts a reviewer rejected anyway (translate/rejected.py).
REDRAFT = "--redraft-rejected"


@dataclass(frozen=True)
class Held:
    """A unit whose draft was the one rejected for its source: not written (translate/
    rejected.py). `stand_in`: its source text stands in (a new file needs every unit; or
    an earlier run's stand-in stays)."""

    key: str
    file: str | None
    rejection: Rejection
    stand_in: bool = False

    def cause(self) -> str:
        when = self.rejection.date.isoformat() if self.rejection.date else "an earlier day"
        by = f" by {self.rejection.reviewer}" if self.rejection.reviewer else ""
        then = (
            "its source text stands in, marked as a draft to redo"
            if self.stand_in
            else "not drafted again"
        )
        return (
            f"its draft is the one rejected on {when}{by} (same source): {then}; translate it "
            f"by hand, or run again with {REDRAFT}"
        )

    def format(self, lang: str) -> str:
        return f"{self.file or 'bipub'}: warning: [{lang}] {self.key}: rejected: {self.cause()}"


@dataclass(frozen=True)
class Skipped:
    """A UI string's draft not put into its catalog, which no longer wanted it (filled in by
    hand during the run, or the entry gone: translate/po_fill.py). Not counted as drafted;
    not a failure (the exit status stays 0)."""

    key: str
    file: str | None
    cause: str

    def format(self, lang: str) -> str:
        return f"{self.file or 'bipub'}: warning: [{lang}] {self.key}: skipped: {self.cause}"


@dataclass(frozen=True)
class NotWritten:
    """A unit in scope that this run did not write, and why (`source` as in Problem).
    `retry`: running again may write it (not when it waits for a unit held back as rejected:
    translate/blocked.py)."""

    key: str
    file: str | None
    cause: str
    source: tuple[str, int] | None = None
    retry: bool = True

    def format(self, lang: str) -> str:
        where = self.file or "bipub"
        said = in_source(self.cause, self.source)
        return f"{where}: error: [{lang}] {self.key}: not-written: {said}"


def _n(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


@dataclass
class Result:
    target: str
    drafted: int = 0  # units written (content file or the status record's `draft`)
    billed: int = 0  # characters DeepL billed in this run
    sent: int = 0  # texts (segments) sent
    requests: int = 0
    cache_hits: int = 0  # segments answered from the cache
    kept: int = 0  # segments of stale units written that kept their present translation
    named: int = 0  # series names taken from the series' other parts (translate/plan.py)
    problems: list[Problem] = field(default_factory=list)
    not_written: list[NotWritten] = field(default_factory=list)
    held: list[Held] = field(default_factory=list)  # drafts a reviewer rejected: not written
    skipped: list[Skipped] = field(default_factory=list)  # UI drafts a catalog no longer wanted
    written: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    stopped: str | None = None  # one-line reason the run stopped early
    budget_reached: bool = False
    unchanged: int = 0  # drafts beside reviewed text that an earlier run already stored
    usage: Usage | None = None
    scrubbed: int = 0  # answers that held DEEPL_AUTH_KEY (or a piece of it): *** in its place
    billed_keys: dict[str, int] = field(default_factory=dict)  # characters billed per segment
    held_unsent: int = 0  # held units whose stored answers make the rejected draft: not sent
    held_billed: int = 0  # characters billed for segments only held-back units needed

    @property
    def findings(self) -> int:
        return len(self.problems)

    @property
    def left(self) -> int:
        return len(self.not_written)

    @property
    def ok(self) -> bool:
        """True when every unit in scope was written (the exit status is 0)."""
        return not self.not_written and self.stopped is None

    def causes(self) -> dict[str, int]:
        """Units not written per cause (for the summary)."""
        out: dict[str, int] = {}
        for item in self.not_written:
            out[item.cause] = out.get(item.cause, 0) + 1
        return out

    def _billed_for(self) -> str:
        """What the billed characters were for, when some went to nothing written."""
        if not self.billed:
            return ""
        said = f" ({_n(self.sent, 'segment')} in {_n(self.requests, 'request')}"
        if self.held_billed:
            said += (
                f"; {self.held_billed:,} of those characters for units then held back as rejected: DeepL's "
                "answer made the rejected draft again"
            )
        return said + ")"

    def summary(self) -> str:
        line = (
            f"Drafted {_n(self.drafted, 'unit')} ({self.target}), {_n(self.billed, 'character')} "
            f"billed{self._billed_for()}, {_n(self.cache_hits, 'cache hit')}, "
            f"{_n(self.findings, 'finding')}"
        )
        if self.kept:
            verb = "kept its" if self.kept == 1 else "kept their"
            line += f"; {_n(self.kept, 'unchanged segment')} {verb} translation"
        if self.named:
            line += f"; {_n(self.named, 'series name')} as the series' other parts have it"
        if self.unchanged:
            line += f"; {_n(self.unchanged, 'stored draft')} unchanged"
        if self.held:
            line += (
                f"; {_n(len(self.held), 'unit')} whose draft was the one rejected for the same "
                f"source NOT drafted again (translate by hand, or {REDRAFT})"
            )
        if self.held_unsent:
            line += (
                f"; {self.held_unsent:,} of them not sent to DeepL again: the cache holds the "
                "answer that made the rejected draft (it failed its checks, so it is not served "
                "as a draft; --fresh asks again)"
            )
        if self.skipped:
            why = "; ".join(
                f"{count} {cause}"
                for cause, count in sorted(Counter(s.cause for s in self.skipped).items())
            )
            line += f"; {_n(len(self.skipped), 'UI string')} NOT drafted: {why}"
        if self.not_written:
            why = "; ".join(
                f"{count} {cause}" for cause, count in sorted(self.causes().items())[:5]
            )
            line += f"; {_n(len(self.not_written), 'unit')} NOT written ({why})"
        return line
