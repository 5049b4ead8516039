"""How serious each finding is, and which findings are silenced.

Defaults:
- QA findings (numbers, links, code, refs, markup, placeholders, glossary, prefix) are errors on
  reviewed or human translations and warnings on unreviewed machine drafts (a link to the
  other language's URL of a page the translation's language has: a warning, check/page_links.py);
- missing, orphan, untranslated, stale, draft, edited and the pairing warnings are warnings;
- errors of the load and pair stages (invalid YAML, schema, a corrupt status file) stay errors.

`bipub.yaml` can change this:

    check:
      severity: {untranslated: off, markup: warning, stale: error}   # error | warning | off
      ignore:
        - {code: numbers, key: "cv:stats*", reason: "figures are rounded in Korean"}
        - {file: "content/en/pages/legal*.md", reason: "legal text is reviewed elsewhere"}
      allow_untranslated: [vLLM, Nuri AI]      # texts and terms that need no translation

A QA code set to `error` still gives warnings on machine drafts. A unit can carry its own ignore
with a reason, in Markdown as an invisible link-reference comment (or an HTML comment where raw
HTML is allowed) anywhere in the section:

    [//]: # (bipub-ignore: numbers,links the Korean text rounds these figures)

and for YAML fields (CV, front matter) as a comment on the field's line or the line above it:

    context: "사내 평가 프롬프트 1.2만 개"  # bipub-ignore: numbers 1.2만 = 12,000

`--strict` turns every remaining warning into an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

from bipub.check.findings import KNOWN_CODES, QA_CODES, Finding
from bipub.config import CheckOptions
from bipub.diagnostics import ConfigError, Diagnostic, Severity
from bipub.load.text import read_text
from bipub.load.yaml_strict import load_yaml

_INLINE = re.compile(
    r"bipub-ignore:\s*(?P<codes>[\w-]+(?:\s*,\s*[\w-]+)*)(?P<reason>[^\n]*?)\s*(?:\)|-->|$)",
    re.MULTILINE,
)


@dataclass(frozen=True)
class InlineIgnore:
    codes: tuple[str, ...]
    reason: str


def parse_inline(text: str) -> list[InlineIgnore]:
    """Every `bipub-ignore: CODE[,CODE] reason` marker of a text."""
    out: list[InlineIgnore] = []
    for m in _INLINE.finditer(text):
        codes = tuple(c.strip() for c in m.group("codes").split(","))
        out.append(InlineIgnore(codes, m.group("reason").strip()))
    return out


def inline_problems(markers: Iterable[InlineIgnore]) -> list[str]:
    problems: list[str] = []
    for marker in markers:
        unknown = [c for c in marker.codes if c not in KNOWN_CODES]
        if unknown:
            problems.append(f"bipub-ignore: unknown finding code(s) {', '.join(unknown)}")
        if not marker.reason:
            problems.append("bipub-ignore needs a reason after the code(s); it is not applied")
    return problems


def default_severity(finding: Finding) -> Severity:
    if finding.code in QA_CODES:
        return Severity.WARNING if finding.on_draft or finding.advisory else Severity.ERROR
    if finding.code in KNOWN_CODES:
        return Severity.WARNING
    return finding.severity


@dataclass
class Outcome:
    findings: list[Finding]
    ignored: list[tuple[Finding, str]] = field(default_factory=list)  # (finding, reason)


def apply_policy(
    findings: Iterable[Finding],
    options: CheckOptions,
    *,
    strict: bool = False,
    inline: dict[tuple[str | None, str | None], dict[str, str]] | None = None,
) -> Outcome:
    """Final severities: defaults, then config severity, ignores, inline ignores, --strict.

    `inline` maps (lang, key) to {code: reason} for units that carry an inline ignore.
    """
    inline = inline or {}
    overrides = options.overrides  # `diagnostics:` and `check.severity:` of bipub.yaml
    outcome = Outcome([])
    for f in findings:
        sev = default_severity(f)
        fixed = f.code not in KNOWN_CODES and f.severity is Severity.ERROR
        if not fixed:
            configured = overrides.get(f.code)
            if configured == "off":
                outcome.ignored.append((f, "severity: off in bipub.yaml"))
                continue
            if configured is not None:
                sev = Severity(configured)
                if f.code in QA_CODES and f.on_draft:
                    sev = Severity.WARNING
            reason = _config_ignore(f, options)
            if reason is None:
                reason = inline.get((f.lang, f.key), {}).get(f.code)
            if reason is not None:
                outcome.ignored.append((f, reason))
                continue
        if strict and sev is Severity.WARNING:
            sev = Severity.ERROR
        outcome.findings.append(f.with_severity(sev))
    return outcome


def _config_ignore(f: Finding, options: CheckOptions) -> str | None:
    for rule in options.ignore:
        if rule.code is not None and rule.code != f.code:
            continue
        if rule.key is not None and not (f.key and fnmatchcase(f.key, rule.key)):
            continue
        if rule.file is not None:
            files = [p for p in (f.file, f.source_file) if p]
            if not any(fnmatchcase(p, rule.file) for p in files):
                continue
        return rule.reason
    return None


def validate_options(root: Path, options: CheckOptions) -> None:
    """Unknown finding codes in `check:` are config errors (exit 2) naming bipub.yaml:line."""
    bad: list[tuple[tuple[str | int, ...], str]] = []
    for code in options.severity:
        if code not in KNOWN_CODES:
            bad.append((("check", "severity", code), code))
    for i, rule in enumerate(options.ignore):
        if rule.code is not None and rule.code not in KNOWN_CODES:
            bad.append((("check", "ignore", i, "code"), rule.code))
    if not bad:
        return
    lines: dict[tuple[str | int, ...], int | None] = {}
    try:
        doc = load_yaml(read_text(root / "bipub.yaml", "bipub.yaml"), "bipub.yaml")
        lines = {path: doc.line_for(path) for path, _ in bad}
    except Exception:  # line numbers are a nicety; the file loaded before
        lines = {}
    raise ConfigError(
        [
            Diagnostic(
                "bipub.yaml",
                lines.get(path),
                "config",
                f"check: unknown finding code {code!r} (known: {', '.join(KNOWN_CODES)})",
            )
            for path, code in bad
        ]
    )
