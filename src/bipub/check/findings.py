"""A finding of `bipub check`: one record per problem, with a stable JSON shape.

The JSON shape of one finding (see findings.schema.json, version 1):

    {"code": "numbers", "severity": "error", "lang": "en", "key": "posts/x:body#2",
     "file": "content/en/posts/x.md", "line": 14, "message": "...", "diff": null}

`file` and `line` are the translation's when it exists, else the source's. `diff` is the unified
old-vs-new diff of the source text for `stale` findings and null otherwise. A `draft` finding of
a machine draft waiting beside a reviewed translation also has `waiting_draft`: the draft's
text, its word diff against the present translation ([-removed-]{+added+}), the source diff
that made the unit stale, and the draft's QA findings. The source and
translation texts are kept on the record for the text and HTML reports but are not part of the
JSON contract.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from bipub.diagnostics import Severity
from bipub.pair.units import text_hash

if TYPE_CHECKING:
    from bipub.pair.status import StatusRecord
    from bipub.pair.units import Unit

JSON_VERSION = 1

#: QA of a translation against its source (errors on reviewed/human text, warnings on drafts).
QA_CODES: tuple[str, ...] = (
    "numbers",
    "links",
    "code",
    "refs",
    "markup",
    "placeholders",
    "glossary",
    "prefix",
)
#: Translation state (warnings by default).
STATE_CODES: tuple[str, ...] = ("missing", "orphan", "untranslated", "stale", "draft", "edited")
#: Warnings of the load/pair stages that concern parity, passed through by `bipub check`.
PAIR_CODES: tuple[str, ...] = (
    "pairing",
    "list-length",
    "sections-out-of-step",  # a body section inserted, removed or moved (pair/align.py)
    "shared-differs",
    "source-lang",
    "duplicate",
    "missing-source",
    "series-names",  # a translation naming its series otherwise than the series shows
)
#: Warnings of the site as a build would publish it, passed through by `bipub check` (session 34:
#: a link to a post not published yet, bipub/scheduled_links.py).
SITE_CODES: tuple[str, ...] = ("scheduled-link",)
#: What only the drafting can say of a machine draft (kept in its status record's `findings`).
DRAFTING_CODES: tuple[str, ...] = ("mismatch", "structure")
#: A malformed inline ignore.
OTHER_CODES: tuple[str, ...] = ("ignore",)
KNOWN_CODES: tuple[str, ...] = (
    QA_CODES + STATE_CODES + PAIR_CODES + SITE_CODES + DRAFTING_CODES + OTHER_CODES
)


#: A line of the unit's source text at a drafting message's start (translate/writers.py):
#: "segment 2 (line 5)", or "line 5: " before a block never sent (HTML, a diagram, a block
#: not taken apart; a link's "line N" is one of the draft's, not of the source).
_UNIT_LINE = re.compile(
    r"^(?:segment (\d+) \(line (\d+)\)|line (\d+): (?=an HTML block|a Mermaid diagram|a block ))"
)


#: A drafting message's lines are of an older source text than the file has (`drafted_from`).
OLDER = ("", 0)


def in_source(message: str, source: tuple[str, int] | None) -> str:
    """The message with its line in the unit's text made a line of the source file
    ("segment 2 (content/ko/posts/x.md:41)"): the line a reader can open. `source`: the
    unit's source file and the line its text starts at there; OLDER: said to be a line of the
    source the draft was made from."""
    if source is None:
        return message
    rel, first = source

    def there(m: re.Match[str]) -> str:
        if source == OLDER:
            line = m[2] or m[3]
            at = f"line {line} of the source it was drafted from"
            return f"segment {m[1]} ({at})" if m[1] is not None else f"{at}: "
        if m[1] is not None:
            return f"segment {m[1]} ({rel}:{first + int(m[2]) - 1})"
        return f"{rel}:{first + int(m[3]) - 1}: "

    return _UNIT_LINE.sub(there, message, count=1)


def drafted_from(unit: Unit | None, source_hash: str | None) -> tuple[str, int] | None:
    """Where the lines of a drafting message are (`in_source`): the unit's source, if the
    draft was made from the source it has now; OLDER if from another (a source changed since:
    its lines are not the file's)."""
    if unit is None or not unit.source_line:
        return None
    if source_hash != text_hash(unit.source):
        return OLDER
    return unit.source_file, unit.source_line


def drafting_findings(
    lines: list[str] | None, source: tuple[str, int] | None = None
) -> list[tuple[str, str]]:
    """A status record's `findings` (`code: message` each) as (code, message); with `source`
    (`drafted_from`), their lines are the source file's."""
    out: list[tuple[str, str]] = []
    for line in lines or ():
        code, sep, message = line.partition(": ")
        if not sep or not code or " " in code:
            code, message = "markup", line
        out.append((code, in_source(message, source)))
    return out


def drafting_said(
    lines: list[str] | None, source: tuple[str, int] | None = None
) -> list[tuple[str, str]]:
    """`drafting_findings`, each message saying it was found when the draft was made (`check`
    cannot find a lost tag again)."""
    found = drafting_findings(lines, source)
    return [(code, f"{message} (said when drafted)") for code, message in found]


def drafting_approved(
    old: StatusRecord | None, text: str, adopt: bool, unit: Unit | None = None
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """What the drafting said of a text being approved (its status record's, which `check`
    cannot find again in the text: a lost tag, a segment kept in the source language), as
    (accepted, edited). `accepted`: the waiting draft's (`draft_findings`) when it is adopted,
    the machine draft's in the file (`findings`) while its text is the one drafted. `edited`:
    the machine draft's in the file when it was edited by hand since (the edit is approved as
    it is), with or without a draft waiting beside. Nothing of a dismissed waiting draft
    (approve --keep-current), nor of a reviewed text. With `unit`, their lines are its source
    file's (`drafted_from`)."""
    if old is None:
        return [], []
    if adopt:
        return drafting_findings(old.draft_findings, drafted_from(unit, old.draft_source_hash)), []
    if old.state != "draft" or not old.findings:
        return [], []
    said = drafting_findings(old.findings, drafted_from(unit, old.source_hash))
    if old.translation_hash in (None, text_hash(text)):
        return said, []
    return [], said


def kind_of(key: str | None) -> str:
    """Content kind of a unit key: cv, posts, pages, ui (or 'other')."""
    if not key:
        return "other"
    if key.startswith("cv:"):
        return "cv"
    if key.startswith("ui:"):
        return "ui"
    head = key.split("/", 1)[0]
    return head if head in ("posts", "pages") else "other"


@dataclass(frozen=True)
class WaitingDraft:
    """A machine draft waiting beside a unit's translation (its status record's `draft`), with
    what a reviewer needs to decide: the text, its word diff against the present translation,
    the source diff that made the unit stale, and the draft's own QA findings."""

    text: str
    current: bool  # made from the unit's current source (False: an older one)
    word_diff: tuple[tuple[str, str], ...]  # ("=" | "-" | "+", text): present → draft
    source_diff: str | None  # the source as translated → now (unified diff)
    qa: tuple[tuple[str, str], ...]  # (code, message) of the draft against the current source

    def word_diff_text(self) -> str:
        """The word diff in git's plain style: [-removed-]{+added+}."""
        return "".join(
            t if op == "=" else f"[-{t}-]" if op == "-" else f"{{+{t}+}}"
            for op, t in self.word_diff
        )

    def as_json(self) -> dict[str, object]:
        return {
            "text": self.text,
            "from_current_source": self.current,
            "word_diff": self.word_diff_text(),
            "source_diff": self.source_diff,
            "qa": [{"code": c, "message": m} for c, m in self.qa],
        }


@dataclass(frozen=True)
class Finding:
    code: str
    lang: str | None
    key: str | None
    file: str | None
    line: int | None
    message: str
    severity: Severity = Severity.WARNING
    source: str | None = None
    translation: str | None = None
    diff: str | None = None
    on_draft: bool = False  # the translation is an unreviewed machine draft (QA → warning)
    source_file: str | None = None
    source_line: int | None = None
    waiting: WaitingDraft | None = None  # `draft` findings of a draft waiting beside
    advisory: bool = False  # a QA finding that is a warning on reviewed text too

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def __reduce__(self) -> tuple[object, tuple[tuple[object, ...]]]:
        # pickled as a plain tuple of field values (the result cache of `bipub check` holds tens
        # of thousands): about twice as fast to load as the default for dataclasses
        return (_finding_from_fields, (tuple(self.__dict__[name] for name in _FIELDS),))

    def with_severity(self, severity: Severity) -> Finding:
        if severity is self.severity:
            return self
        # a shallow copy with one field changed: dataclasses.replace re-runs __init__, which
        # costs seconds over the tens of thousands of findings of a big site
        changed = copy.copy(self)
        object.__setattr__(changed, "severity", severity)
        return changed

    def location(self) -> str:
        if self.file is None:
            return "bipub"
        return f"{self.file}:{self.line}" if self.line else self.file

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "code": self.code,
            "severity": self.severity.value,
            "lang": self.lang,
            "key": self.key,
            "file": self.file,
            "line": self.line,
            "message": self.message,
            "diff": self.diff,
        }
        if self.waiting is not None:
            out["waiting_draft"] = self.waiting.as_json()
        return out

    def sort_key(self) -> tuple[str, int, str, str, str]:
        return (self.file or "~", self.line or 0, self.lang or "", self.key or "", self.code)


_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Finding))


def _finding_from_fields(values: tuple[object, ...]) -> Finding:
    finding = object.__new__(Finding)
    finding.__dict__.update(zip(_FIELDS, values, strict=True))
    return finding
