"""Which units a review command names: keys (a unit's, a document's, `cv:`), a file's units,
a language's units not reviewed yet; and what an unknown key probably meant (check/review.py).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from pathlib import Path

from bipub.check.run import Analysis
from bipub.diagnostics import Diagnostic, DiagnosticError
from bipub.pair.status import StatusRecord
from bipub.pair.units import nfc


def error(message: str, file: str | None = None, line: int | None = None) -> DiagnosticError:
    """A refusal of the review commands (code `review`)."""
    return DiagnosticError([Diagnostic(file, line, "review", message)])


def record_of(analysis: Analysis, lang: str, key: str) -> StatusRecord | None:
    view = analysis.status.get(lang)
    return view.records.get(key) if view is not None else None


def resolve(
    analysis: Analysis, keys: Iterable[str], langs: Sequence[str] = ()
) -> list[tuple[str, str]]:
    """Unit keys (or a document key such as posts/x, or cv:) → (lang, key). Unknown → error."""
    out: list[tuple[str, str]] = []
    unknown: list[str] = []
    for raw in keys:
        key = nfc(raw.strip())
        found = [
            (lang, k)
            for (lang, k) in sorted(analysis.units)
            if (k == key or k.startswith(key + ":") or (key.endswith(":") and k.startswith(key)))
            and (not langs or lang in langs)
        ]
        if not found:
            unknown.append(raw)
        out.extend(f for f in found if f not in out)
    if unknown:
        raise DiagnosticError(
            [Diagnostic(None, None, "review", _unknown(analysis, k)) for k in unknown]
        )
    return out


def _unknown(analysis: Analysis, raw: str) -> str:
    """Why `raw` selects no unit, with what the user probably meant: the key of a file given
    as a path (`--file` takes paths), or the keys closest to a mistyped one."""
    said = f"unknown unit key {raw!r}"
    name = raw.strip().replace("\\", "/")
    files = {
        file: k.split(":", 1)[0]
        for (_, k), u in analysis.units.items()
        for file in (u.source_file, u.translation_file)
        if file
    }
    for file, document in files.items():
        if name == file or name.endswith("/" + file) or file.endswith("/" + name):
            return f"{said}: that is a file; use --file {raw} or its key {document}"
    documents = sorted(
        {k.split(":", 1)[0] for _, k in analysis.units} | {k for _, k in analysis.units}
    )
    wanted = nfc(name)
    scored = sorted((-difflib.SequenceMatcher(None, wanted, key).ratio(), key) for key in documents)
    close = [key for score, key in scored[:3] if -score >= 0.75]
    if close:
        return f"{said}: did you mean {', '.join(close)}?"
    return f"{said} (bipub review list shows the keys)"


def by_file(
    analysis: Analysis, path: Path, cwd: Path, langs: Sequence[str] = ()
) -> list[tuple[str, str]]:
    full = path if path.is_absolute() else (cwd / path)
    try:
        rel = nfc(full.resolve().relative_to(analysis.root.resolve()).as_posix())
    except ValueError:
        raise error(f"{path} is not inside the project {analysis.root}") from None
    found = [
        (lang, k)
        for (lang, k), u in sorted(analysis.units.items())
        if rel in (u.translation_file, u.source_file) and (not langs or lang in langs)
    ]
    if not found:
        if not full.is_file():  # (a typo, or a file a rejection removed)
            raise error(f"{rel}: no such file")
        which = f" of {', '.join(langs)}" if langs else ""
        raise error(f"no translatable units{which} in {rel}")
    return found


def reviewed_already(
    analysis: Analysis, targets: Sequence[tuple[str, str]]
) -> list[tuple[str, str]]:
    """Those of `targets` reviewed for their current source, unchanged since and with no
    machine draft waiting beside them: approving a file leaves them (and who reviewed them,
    and when) as they are."""
    return [
        (lang, key)
        for lang, key in targets
        if (lang, key) in analysis.parity.reviewed
        and (rec := record_of(analysis, lang, key)) is not None
        and rec.draft is None
    ]


def every(analysis: Analysis, langs: Sequence[str]) -> list[tuple[str, str]]:
    """Translated units of these languages that are not reviewed and current (UI excluded)."""
    return [
        (lang, k)
        for (lang, k), u in sorted(analysis.units.items())
        if lang in langs
        and u.translation is not None
        and not k.startswith("ui:")
        and (lang, k) not in analysis.parity.reviewed
    ]
