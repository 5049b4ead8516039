"""State checks: is every unit translated, up to date, reviewed — and is every translation needed?

Findings (all warnings by default, see severity.py):
- `missing`: no translation (one finding for a whole missing post, page or CV file);
- `orphan`: a translation file, field or body section, a status record, or an obsolete catalog
  entry whose source is gone;
- `untranslated`: a translation identical to its source, or a Korean one without Hangul;
- `stale`: the source changed since the translation was made (recorded `source_hash` differs);
  the finding carries the old-vs-new source diff from the recorded `source` text;
- `draft`: a machine draft (or fuzzy catalog entry) not yet reviewed;
- `edited`: a reviewed translation changed after its review (`translation_hash` differs).

UI strings are units `ui:<msgid>` read from the theme's and the project's catalogs
(`locales/<lang>/LC_MESSAGES/messages.po`; the project's entries override the theme's).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from bipub.check.findings import Finding, drafted_from, drafting_said
from bipub.check.moved import moved_message, moved_section
from bipub.check.qa import check_untranslated
from bipub.check.renames import renamed_records
from bipub.diagnostics import Collector, Severity
from bipub.load.content import Content, Document
from bipub.pair.site import Site
from bipub.pair.status import Rejections, StatusFile, StatusRecord, rejection_of
from bipub.pair.units import Unit, nfc, text_hash
from bipub.render.catalogs import DOMAIN, po_path, read_catalog

UnitState = Literal["missing", "draft", "stale", "translated"]
UI_SOURCE_LANG = "en"  # the language of the templates' msgids (as the renderer assumes)


# --------------------------------------------------------------------------- status files


@dataclass(frozen=True)
class StatusView:
    """A status file with NFC keys (an NFD key written by hand pairs with its NFC unit)."""

    lang: str
    rel: str
    records: dict[str, StatusRecord]
    lines: dict[str, int]
    rejected: dict[str, Rejections] = field(default_factory=dict)  # (pair/status.py)


def normalize_status(status: StatusFile) -> tuple[StatusView, list[Finding]]:
    records: dict[str, StatusRecord] = {}
    lines: dict[str, int] = {}
    raw_of: dict[str, str] = {}
    problems: list[Finding] = []
    for raw, rec in status.records.items():
        key = nfc(raw)
        line = status.lines.get(raw)
        if key in records:
            first = raw_of[key]
            problems.append(
                Finding(
                    "status",
                    status.lang,
                    key,
                    status.rel,
                    line,
                    f"status keys {first!r} (line {lines[key]}) and {raw!r} (line {line}) are "
                    "the same key after Unicode NFC normalization; keep one",
                    Severity.ERROR,
                )
            )
            continue
        records[key] = rec
        lines[key] = line or 0
        raw_of[key] = raw
    rejected: dict[str, Rejections] = {}
    for raw, rejections in status.rejected.items():  # (NFC twins: both kept)
        rejected[nfc(raw)] = (*rejected.get(nfc(raw), ()), *rejections)
    return StatusView(status.lang, status.rel, records, lines, rejected), problems


def _rejected(unit: Unit, view: StatusView | None) -> str | None:
    """What to say of a missing unit whose machine draft a reviewer rejected for its present
    source (`bipub translate` does not draft that text again: translate/rejected.py)."""
    if view is None:
        return None
    rejection = rejection_of(view.rejected, nfc(unit.key), text_hash(unit.source))
    if rejection is None:
        return None
    when = f" on {rejection.date.isoformat()}" if rejection.date else ""
    return (
        f"its machine draft was rejected{when}: bipub translate does not draft that text "
        "again; translate it by hand"
    )


# --------------------------------------------------------------------------- key parity


def key_parity(
    source: Mapping[str, object], translation: Mapping[str, object]
) -> tuple[list[str], list[str]]:
    """(missing, orphan): keys only in the source, keys only in the translation (NFC, sorted).

    Symmetric by construction: key_parity(a, b) == key_parity(b, a)[::-1]."""
    s = {nfc(k) for k in source}
    t = {nfc(k) for k in translation}
    return sorted(s - t), sorted(t - s)


def doc_fields(
    kind: str, key: str, meta_fields: Mapping[str, str | None], sections: int
) -> dict[str, str | None]:
    """The unit keys of one post or page version (title, description, series, body#N for each
    of its `sections`); section texts are None."""
    base = f"{kind}/{key}"
    out: dict[str, str | None] = {
        f"{base}:{name}": text for name, text in meta_fields.items() if text
    }
    for index in range(sections):
        out[f"{base}:body#{index}"] = None
    return out


# --------------------------------------------------------------------------- the check


@dataclass
class ParityResult:
    findings: list[Finding] = field(default_factory=list)
    states: dict[tuple[str, str], UnitState] = field(default_factory=dict)
    reviewed: set[tuple[str, str]] = field(default_factory=set)
    drafts: set[tuple[str, str]] = field(default_factory=set)
    excluded: set[str] = field(default_factory=set)  # unit-key prefixes of orphan documents


def stale_diff(old: str, new: str, file: str | None = None, first_line: int | None = None) -> str:
    """Unified diff of the source as translated → now; hunk lines are file lines when known."""

    offset = (first_line or 1) - 1
    lines = list(
        difflib.unified_diff(
            nfc(old).split("\n"),
            nfc(new).split("\n"),
            fromfile=f"{file or 'source'} (as translated)",
            tofile=f"{file or 'source'} (now)",
            lineterm="",
            n=1,
        )
    )

    def shift(m: re.Match[str]) -> str:
        return f"{m.group(1)}{int(m.group(2)) + offset}"

    return "\n".join(
        re.sub(r"([-+])(\d+)", shift, line) if line.startswith("@@") else line for line in lines
    )


_WORDS = re.compile(r"\s+|\w+|[^\w\s]")


def word_diff(old: str, new: str) -> tuple[tuple[str, str], ...]:
    """Word-level diff old → new: ("=", kept) / ("-", removed) / ("+", added) runs."""
    a, b = _WORDS.findall(nfc(old)), _WORDS.findall(nfc(new))
    out: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(("=", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(("-", "".join(a[i1:i2])))
        if j2 > j1:
            out.append(("+", "".join(b[j1:j2])))
    return tuple(out)


def _finding(
    code: str, unit: Unit, message: str, *, diff: str | None = None, on_draft: bool = False
) -> Finding:
    has_tr = unit.translation is not None
    return Finding(
        code,
        unit.target_lang,
        nfc(unit.key),
        unit.translation_file if has_tr else unit.source_file,
        unit.translation_line if has_tr else unit.source_line,
        message,
        source=unit.source,
        translation=unit.translation,
        diff=diff,
        on_draft=on_draft,
        source_file=unit.source_file,
        source_line=unit.source_line,
    )


def _doc_prefix(key: str) -> str | None:
    """'posts/x:' for 'posts/x:body#2', 'cv:' for CV keys, None for UI strings."""
    if key.startswith("ui:"):
        return None
    if key.startswith("cv:"):
        return "cv:"
    return key.split(":", 1)[0] + ":"


def _by_key(units: Sequence[Unit]) -> dict[tuple[str, str], Unit]:
    out: dict[tuple[str, str], Unit] = {}
    for unit in units:
        out.setdefault((unit.target_lang, nfc(unit.key)), unit)
    return out


def check_units(
    units: Sequence[Unit],
    status: Mapping[str, StatusView],
    allow: Iterable[str] = (),
    *,
    collapsed: Mapping[tuple[str, str], Finding] | None = None,
    fuzzy: set[tuple[str, str]] | None = None,
) -> ParityResult:
    """State findings for units (missing, untranslated, stale, draft, edited) and orphan records.

    `collapsed` maps (lang, unit-key prefix) of a wholly missing document to its one finding;
    `fuzzy` holds (lang, key) of UI units whose catalog entry is fuzzy (a draft)."""
    allowed = tuple(allow)
    collapsed = collapsed or {}
    fuzzy = fuzzy or set()
    result = ParityResult()
    seen: dict[tuple[str, str], str] = {}
    by_key: dict[tuple[str, str], Unit] | None = None  # (made when a unit is stale)
    emitted: set[tuple[str, str]] = set()
    for unit in units:
        key, lang = nfc(unit.key), unit.target_lang
        if (lang, key) in seen:
            if seen[(lang, key)] != unit.key:
                result.findings.append(
                    Finding(
                        "key-collision",
                        lang,
                        key,
                        unit.source_file,
                        unit.source_line,
                        f"unit keys {seen[(lang, key)]!r} and {unit.key!r} are the same key "
                        "after Unicode NFC normalization; rename one",
                        Severity.ERROR,
                    )
                )
            continue
        seen[(lang, key)] = unit.key
        if unit.translation is None:
            result.states[(lang, key)] = "missing"
            prefix = _doc_prefix(key)
            whole = collapsed.get((lang, prefix)) if prefix else None
            if whole is not None and prefix is not None:
                if (lang, prefix) not in emitted:
                    emitted.add((lang, prefix))
                    said = _rejected(unit, status.get(lang))
                    if said is not None:
                        whole = replace(whole, message=f"{whole.message}; {said}")
                    result.findings.append(whole)
                continue
            said = _rejected(unit, status.get(lang))
            what = f"no {lang} translation" + (f" ({said})" if said else "")
            result.findings.append(_finding("missing", unit, what))
            continue
        state: UnitState = "translated"
        view = status.get(lang)
        rec = view.records.get(key) if view is not None else None
        on_draft = (lang, key) in fuzzy
        if rec is not None:
            if rec.state == "draft":
                on_draft = True
                engine = f" ({rec.engine})" if rec.engine else ""
                # (memory: worded as the present translations, nothing sent: translate/memory.py)
                what = "draft" if rec.engine == "memory" else "machine draft"
                result.findings.append(
                    _finding(
                        "draft",
                        unit,
                        f"{what}{engine} not yet reviewed",
                        on_draft=True,
                    )
                )
                if rec.findings and rec.translation_hash in (None, text_hash(unit.translation)):
                    source = drafted_from(unit, rec.source_hash)  # (its lines: the file's)
                    for code, message in drafting_said(rec.findings, source):
                        result.findings.append(_finding(code, unit, message, on_draft=True))
            elif rec.draft:
                if rec.draft_source_hash == text_hash(unit.source):
                    msg = "a newer machine draft waits beside the reviewed translation"
                else:  # made from a source that changed again since (or not recorded)
                    msg = (
                        "a machine draft of an older source waits beside the reviewed "
                        "translation (bipub translate drafts it again)"
                    )
                result.findings.append(_finding("draft", unit, msg))
            if rec.source_hash != text_hash(unit.source):
                state = "stale"
                by_key = by_key if by_key is not None else _by_key(units)
                shifted = moved_section(by_key, lang, key, rec)
                if shifted is not None:  # (a diff between two different sections would mislead)
                    diff = None
                    msg = moved_message(shifted, lang, unit.source_lang, rec, unit, approving=False)
                elif rec.source:
                    diff = stale_diff(rec.source, unit.source, unit.source_file, unit.source_line)
                    msg = "the source changed since this was translated"
                else:
                    diff = None
                    msg = "the source changed since this was translated (no old text recorded)"
                result.findings.append(_finding("stale", unit, msg, diff=diff, on_draft=on_draft))
            elif rec.state == "reviewed":
                if rec.translation_hash and rec.translation_hash != unit.translation_hash:
                    who = f" by {rec.reviewer}" if rec.reviewer else ""
                    when = f" on {rec.reviewed.isoformat()}" if rec.reviewed else ""
                    result.findings.append(
                        _finding(
                            "edited",
                            unit,
                            f"the translation changed after its review{who}{when}; review it again",
                        )
                    )
                else:
                    result.reviewed.add((lang, key))
        elif on_draft:
            result.findings.append(
                _finding("draft", unit, "fuzzy catalog entry (needs review)", on_draft=True)
            )
        if on_draft:
            result.drafts.add((lang, key))
            if state == "translated":
                state = "draft"
        for problem in check_untranslated(unit.source, unit.translation, lang, allowed):
            result.findings.append(_finding("untranslated", unit, problem, on_draft=on_draft))
        result.states[(lang, key)] = state
    for lang, view in status.items():
        moved = renamed_records(units, view.records, lang)
        for key, rec in view.records.items():
            if (lang, key) not in seen:
                why = (
                    f"status record for {key}, whose source is gone (bipub review prune removes it)"
                    if key not in moved
                    else f"status record for {key}, whose post or page was renamed: it is "
                    f"{moved[key]}'s (bipub review prune moves it there)"
                )
                result.findings.append(
                    Finding(
                        "orphan",
                        lang,
                        key,
                        view.rel,
                        view.lines.get(key) or None,
                        why,
                        source=rec.source or None,
                    )
                )
    return result


# --------------------------------------------------------------------------- documents


@dataclass(frozen=True)
class DocumentParity:
    findings: list[Finding]
    collapsed: dict[tuple[str, str], Finding]  # (lang, "posts/x:") → the one missing finding
    excluded: set[str]  # unit-key prefixes of orphan documents (no source)


def check_documents(site: Site, content: Content) -> DocumentParity:
    """Orphan posts/pages and fields/sections, and one `missing` per wholly missing document."""
    config = site.config
    findings: list[Finding] = []
    collapsed: dict[tuple[str, str], Finding] = {}
    excluded: set[str] = set()
    groups: dict[tuple[str, str], list[Document]] = {}
    for doc in content.documents:
        groups.setdefault((doc.kind, nfc(doc.pair_key)), []).append(doc)
    for (kind, key), docs in sorted(groups.items()):
        default = getattr(config.source_languages, kind)
        if any(d.lang == default or d.meta.source_lang for d in docs):
            continue
        excluded.add(f"{kind}/{key}:")
        if any((kind, d.name) in content.failed for d in docs):
            continue  # its source is there but did not load: its errors say so, it is no orphan
        for doc in docs:
            findings.append(
                Finding(
                    "orphan",
                    doc.lang,
                    f"{kind}/{key}",
                    doc.rel,
                    1,
                    f"a {doc.lang} translation whose {default} source "
                    f"(content/{default}/{kind}/{doc.name}.md) is gone; delete it, or "
                    f"add 'source_lang: {doc.lang}' if it is an original",
                )
            )
    for entry in site.entries:
        prefix = f"{entry.kind}/{entry.key}:"
        if prefix in excluded:
            continue
        src = entry.source
        src_fields = doc_fields(
            entry.kind,
            entry.key,
            {
                "title": src.meta.title,
                "description": src.meta.description,
                "series": src.meta.series,
            },
            len(src.sections),
        )
        for lang in config.codes:
            if lang == entry.source_lang:
                continue
            tr = entry.docs.get(lang)
            if tr is None:
                n = len(src_fields)
                collapsed[(lang, prefix)] = Finding(
                    "missing",
                    lang,
                    f"{entry.kind}/{entry.key}",
                    src.rel,
                    1,
                    f"no {lang} translation of this {entry.kind[:-1]} "
                    f"(content/{lang}/{entry.kind}/{src.name}.md; {n} units)",
                    source_file=src.rel,
                    source_line=1,
                )
                continue
            tr_fields = doc_fields(
                entry.kind,
                entry.key,
                {
                    "title": tr.meta.title,
                    "description": tr.meta.description,
                    "series": tr.meta.series,
                },
                len(tr.sections),
            )
            _, orphans = key_parity(src_fields, tr_fields)
            if not orphans:
                continue
            t_secs = {x.index: x for x in tr.sections}
            for key in orphans:
                name = key.split(":", 1)[1]
                if name.startswith("body#"):
                    sec = t_secs.get(int(name[5:]))
                    line = sec.line if sec else None
                    text = sec.text if sec else None
                    what = "body section (the source has fewer sections)"
                else:
                    line = tr.line_of(name)
                    text = getattr(tr.meta, name, None)
                    what = f"{name} field (the source has none)"
                findings.append(
                    Finding(
                        "orphan",
                        lang,
                        key,
                        tr.rel,
                        line,
                        f"translated {what}; it has no source",
                        translation=text,
                    )
                )
    for lang, merged in site.cv.items():
        if merged.units and all(u.translation is None for u in merged.units):
            first = merged.units[0]
            collapsed[(lang, "cv:")] = Finding(
                "missing",
                lang,
                "cv:",
                first.source_file,
                1,
                f"no {lang} translation of the CV (content/{lang}/cv.yaml; "
                f"{len(merged.units)} units)",
                source_file=first.source_file,
                source_line=1,
            )
    return DocumentParity(findings, collapsed, excluded)


# --------------------------------------------------------------------------- UI catalogs


@dataclass(frozen=True)
class UiUnits:
    units: list[Unit]
    fuzzy: set[tuple[str, str]]
    findings: list[Finding]


def ui_units(
    catalog_dirs: Sequence[tuple[Path, str]],
    langs: Sequence[str],
    collector: Collector,
    pot: Path | None = None,
) -> UiUnits:
    """Units `ui:<msgid>` of every language but the msgids' own, from the merged catalogs.

    `catalog_dirs`: (locales folder, project-relative label), later folders override earlier.
    A msgid of `pot` (locales/messages.pot) that no catalog of a language has is `missing`."""

    units: list[Unit] = []
    fuzzy: set[tuple[str, str]] = set()
    findings: list[Finding] = []
    template: dict[str, int | None] = {}
    if pot is not None and pot.is_file():
        pot_catalog = read_catalog(pot, "locales/messages.pot", UI_SOURCE_LANG, collector)
        for msg in pot_catalog or []:
            if msg.id:
                msgid = msg.id[0] if isinstance(msg.id, tuple | list) else msg.id
                template[msgid] = msg.lineno
    for lang in langs:
        if lang == UI_SOURCE_LANG:
            continue
        chosen: dict[str, tuple[str, str | None, int | None, bool]] = {}
        for folder, label in catalog_dirs:
            path = po_path(folder, lang)
            if not path.is_file():
                continue
            rel = f"{label}/{lang}/LC_MESSAGES/{DOMAIN}.po"
            catalog = read_catalog(path, rel, lang, collector)
            if catalog is None:
                continue
            for msg in catalog:
                if not msg.id:
                    continue
                msgid = msg.id[0] if isinstance(msg.id, tuple | list) else msg.id
                strings = msg.string if isinstance(msg.string, tuple | list) else (msg.string,)
                text = strings[0] if strings and all(strings) else None
                previous = chosen.get(msgid)
                if text is None and previous is not None and previous[1] is not None:
                    continue  # an earlier catalog translates it
                chosen[msgid] = (rel, text or None, msg.lineno, bool(msg.fuzzy))
            for obsolete_id, msg in catalog.obsolete.items():
                key = f"ui:{obsolete_id[0] if isinstance(obsolete_id, tuple) else obsolete_id}"
                findings.append(
                    Finding(
                        "orphan",
                        lang,
                        nfc(key),
                        rel,
                        msg.lineno,
                        "obsolete catalog entry (#~): its msgid is no longer used",
                    )
                )
        for msgid, pot_line in template.items():
            if msgid not in chosen:
                chosen[msgid] = ("locales/messages.pot", None, pot_line, False)
        for msgid, (rel, text, line, is_fuzzy) in sorted(chosen.items()):
            key = nfc(f"ui:{msgid}")
            units.append(Unit(key, UI_SOURCE_LANG, lang, msgid, rel, line, text, rel, line))
            if is_fuzzy and text is not None:
                fuzzy.add((lang, key))
    return UiUnits(units, fuzzy, findings)
