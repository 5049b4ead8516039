"""Coverage of `bipub check`: where each unit stands, and the counts per language and kind.

Every unit is counted once, in the first of these parts that applies (result.COVERAGE_PARTS):

- missing       no translation;
- stale         the source changed since the translation was recorded;
- draft         a machine draft (or fuzzy catalog entry) not reviewed yet;
- failing_qa    the translation has a QA error (numbers, code, links, markup, …);
- untranslated  check reports it `untranslated` (identical to a source with words to
                translate, or a Korean text without Hangul), or it is identical to a source
                with letters and not reviewed (a name stays the same: approving it says so;
                a number or a date range like "2016 – 2020" is the same in every language);
- reviewed      recorded as reviewed for the current source (a UI string: a catalog entry
                that is not fuzzy — the catalog is its review record);
- unreviewed    a current translation without a review record: written by hand, or edited
                after its review (`bipub review --human` lists them).

`current` (translated, not draft, not stale) is the sum of the four parts before `draft` in
the reading order reviewed, unreviewed, untranslated, failing_qa; a machine draft is never
`reviewed` nor `unreviewed`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence

from bipub.check.findings import QA_CODES, Finding, kind_of
from bipub.check.parity import ParityResult
from bipub.check.result import COVERAGE_FIELDS
from bipub.diagnostics import Severity
from bipub.pair.units import Unit, nfc

KINDS = ("cv", "posts", "pages", "ui", "other")


def _same_words(source: str, translation: str) -> bool:
    """The translation is its source, and the source has letters (a number, a date range or a
    symbol is the same in every language)."""
    src = unicodedata.normalize("NFC", source).strip()
    return src == unicodedata.normalize("NFC", translation).strip() and any(
        ch.isalpha() for ch in src
    )


def standing(unit: Unit, parity: ParityResult, findings: Sequence[Finding] = ()) -> str | None:
    """The part of the coverage one unit counts in (COVERAGE_PARTS); None when parity did not
    look at it (a duplicate key)."""
    lang, key = unit.target_lang, nfc(unit.key)
    state = parity.states.get((lang, key))
    if state is None:
        return None
    if state != "translated":
        return state  # missing, stale, draft
    if any(f.code in QA_CODES and f.severity is Severity.ERROR for f in findings):
        return "failing_qa"
    if key.startswith("ui:"):
        reviewed = (lang, key) not in parity.drafts  # a catalog entry that is not fuzzy
    else:
        reviewed = (lang, key) in parity.reviewed
    if any(f.code == "untranslated" for f in findings):
        return "untranslated"
    if not reviewed and unit.translation is not None and _same_words(unit.source, unit.translation):
        return "untranslated"
    return "reviewed" if reviewed else "unreviewed"


def standings(
    units: Sequence[Unit],
    parity: ParityResult,
    by_unit: Mapping[tuple[str, str], Sequence[Finding]],
) -> dict[tuple[str, str], str]:
    out: dict[tuple[str, str], str] = {}
    for unit in units:
        ident = (unit.target_lang, nfc(unit.key))
        part = standing(unit, parity, by_unit.get(ident, ()))
        if part is not None:
            out.setdefault(ident, part)
    return out


def tally(
    parts: Mapping[tuple[str, str], str], codes: Sequence[str], langs: Sequence[str]
) -> dict[str, dict[str, dict[str, int]]]:
    """lang → kind → COVERAGE_FIELDS (languages in the site's order)."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    for (lang, key), part in parts.items():
        per = out.setdefault(lang, {}).setdefault(kind_of(key), dict.fromkeys(COVERAGE_FIELDS, 0))
        per["units"] += 1
        per[part] += 1
        if part in ("reviewed", "unreviewed", "untranslated", "failing_qa"):
            per["current"] += 1
    order = {c: i for i, c in enumerate(codes)}
    return {
        lang: {k: out[lang][k] for k in KINDS if k in out[lang]}
        for lang in sorted(out, key=lambda c: order.get(c, 99))
        if not langs or lang in langs
    }


def done(counts: Mapping[str, int]) -> int:
    """Units translated and sound: reviewed or unreviewed (not identical, no QA error)."""
    return counts["reviewed"] + counts["unreviewed"]


#: Errors that leave a file's units out of the coverage: the file could not be read as content.
UNREAD_CODES = frozenset({"encoding", "yaml", "front-matter", "schema"})


def left_out(findings: Sequence[Finding]) -> list[str]:
    """The files the coverage does not count, because an error above kept them from loading
    (a CV with a schema error has no units: without this its row would just be missing)."""
    return sorted(
        {
            f.file
            for f in findings
            if f.file and f.code in UNREAD_CODES and f.severity is Severity.ERROR
        }
    )
