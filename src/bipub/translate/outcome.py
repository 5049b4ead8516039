"""What a `bipub translate` run did: units drafted, units not written (each with its real
cause), findings, billing. Read by translate_cmd for the summary and the exit status."""

from __future__ import annotations

from dataclasses import dataclass, field

from bipub.translate.deepl_client import Usage


@dataclass(frozen=True)
class Problem:
    """A QA or markup finding of one draft (`written`: the draft was written anyway)."""

    key: str
    file: str | None
    code: str
    message: str
    written: bool = True

    def format(self, lang: str) -> str:
        where = self.file or "bipub"
        return f"{where}: warning: [{lang}] {self.key}: {self.code}: {self.message}"


@dataclass(frozen=True)
class NotWritten:
    """A unit in scope that this run did not write, and why."""

    key: str
    file: str | None
    cause: str

    def format(self, lang: str) -> str:
        where = self.file or "bipub"
        return f"{where}: error: [{lang}] {self.key}: not-written: {self.cause}"


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
    kept: int = 0  # segments of stale units that kept their present translation
    problems: list[Problem] = field(default_factory=list)
    not_written: list[NotWritten] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    stopped: str | None = None  # one-line reason the run stopped early
    budget_reached: bool = False
    unchanged: int = 0  # drafts beside reviewed text that an earlier run already stored
    usage: Usage | None = None

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

    def summary(self) -> str:
        line = (
            f"Drafted {_n(self.drafted, 'unit')} ({self.target}), {_n(self.billed, 'character')} "
            f"billed, {_n(self.cache_hits, 'cache hit')}, {_n(self.findings, 'finding')}"
        )
        if self.kept:
            line += f"; {_n(self.kept, 'unchanged segment')} kept their translation"
        if self.unchanged:
            line += f"; {_n(self.unchanged, 'stored draft')} unchanged"
        if self.not_written:
            why = "; ".join(
                f"{count} {cause}" for cause, count in sorted(self.causes().items())[:5]
            )
            line += f"; {_n(len(self.not_written), 'unit')} NOT written ({why})"
        return line
