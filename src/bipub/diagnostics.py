"""Errors are data: every problem bipub finds is a `Diagnostic` naming file, line and key.

User errors (bad content, config, templates) are collected into a `DiagnosticError`; the CLI prints
them as ``path:line: message`` and exits 1 (content/build) or 2 (config/invocation). Internal bugs
stay ordinary exceptions with a traceback.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding. `file` is relative to the project root (POSIX separators)."""

    file: str | None
    line: int | None
    code: str
    message: str
    severity: Severity = Severity.ERROR
    key: str | None = None
    lang: str | None = None

    def location(self) -> str:
        if self.file is None:
            return "bipub"
        return f"{self.file}:{self.line}" if self.line else self.file

    def format(self) -> str:
        prefix = "" if self.severity is Severity.ERROR else f"{self.severity.value}: "
        return f"{self.location()}: {prefix}{self.message}"

    def as_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "file": self.file,
            "line": self.line,
            "key": self.key,
            "lang": self.lang,
            "message": self.message,
        }


class DiagnosticError(Exception):
    """A user error: one or more diagnostics, all reported together."""

    exit_code = 1

    def __init__(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.diagnostics = sorted(set(diagnostics), key=_sort_key)
        super().__init__("\n".join(d.format() for d in self.diagnostics))

    def __reduce__(self) -> tuple[type[DiagnosticError], tuple[list[Diagnostic]]]:
        # pickled with its diagnostics, not its text: raised in a forked helper, it is raised
        # again in the build's process (parallel.py) as the same error
        return type(self), (self.diagnostics,)


class ConfigError(DiagnosticError):
    """bipub.yaml is missing, unreadable or invalid: exit code 2."""

    exit_code = 2


def _sort_key(d: Diagnostic) -> tuple[str, int, str, str]:
    return (d.file or "", d.line or 0, d.code, d.message)


@dataclass
class Collector:
    """Collects diagnostics from a stage so that one run reports all of them."""

    items: list[Diagnostic] = field(default_factory=list)

    def add(self, diagnostic: Diagnostic) -> None:
        self.items.append(diagnostic)

    def error(
        self, file: str | None, line: int | None, code: str, message: str, key: str | None = None
    ) -> None:
        self.items.append(Diagnostic(file, line, code, message, Severity.ERROR, key))

    def warning(
        self, file: str | None, line: int | None, code: str, message: str, key: str | None = None
    ) -> None:
        self.items.append(Diagnostic(file, line, code, message, Severity.WARNING, key))

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.items.extend(diagnostics)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity is Severity.WARNING]

    def apply_levels(self, levels: Mapping[str, str]) -> list[Diagnostic]:
        """Apply `diagnostics:` of bipub.yaml (code → error | warning | off) to the warnings
        collected so far; returns the silenced ones. An error stays an error."""
        kept: list[Diagnostic] = []
        silenced: list[Diagnostic] = []
        for d in self.items:
            level = levels.get(d.code)
            if d.severity is Severity.ERROR or level is None or level == "warning":
                kept.append(d)
            elif level == "off":
                silenced.append(d)
            else:
                kept.append(
                    Diagnostic(
                        d.file,
                        d.line,
                        d.code,
                        f"{d.message} (an error by `diagnostics:` in bipub.yaml)",
                        Severity.ERROR,
                        d.key,
                        d.lang,
                    )
                )
        self.items = kept
        return silenced

    def raise_if_errors(self, error_type: type[DiagnosticError] = DiagnosticError) -> None:
        if self.errors:
            raise error_type(self.errors)

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.items)
