"""Translation status files: `status/<lang>.yaml`, one per target language.

Plain YAML, keys sorted, one record per translated unit key:

    posts/kv-cache:title:
      source_hash: 3f2a9c0d1e4b     # hash of the source text the translation was made from
      source: "KV 캐시 페이징"       # that source text (so a reviewer sees the old-vs-new diff)
      origin: human                 # or machine
      engine: deepl                 # for machine drafts
      state: reviewed               # or draft
      reviewer: jiwon               # when reviewed
      reviewed: 2026-04-07
      translation_hash: 91be0c77aa10  # hash of the translation as reviewed (detects later edits)
      draft: "KV cache paging, …"     # a newer machine draft waiting beside the reviewed text
      draft_source_hash: 77c0e1d2a9b3  # hash of the source that waiting draft was made from
      draft_engine: deepl
      draft_findings:               # what `bipub translate` said of that waiting draft
        - "markup: segment 1 (line 3): lost '`x`' (put back at the end of the segment)"
      findings: [...]               # what it said of a machine draft in the content file

Each machine text carries what its own drafting said: `findings` the draft in the content file
(kept while it is edited by hand and a newer draft waits beside it), `draft_findings` the
waiting draft (always written with one, `[]` when its drafting said nothing). A record of an
older bipub with a `draft` but no `draft_findings` kept one `findings`, the waiting draft's:
it is read as such (`_one_findings_field`).

One key is not a unit's (unit keys hold a `:`): `rejected`, what reviewers rejected, by unit
key and by the source the rejected drafts were made from, kept after the unit's record is
removed (`bipub review reject`) and after its source changed (a source that comes back to the
text would otherwise get the very same draft again from the DeepL cache), so that `bipub
translate` does not write the very same machine text again for that source
(translate/rejected.py). Only `bipub review prune` removes them, with their unit:

    rejected:
      posts/kv-cache:body#2:
      - source_hash: 3f2a9c0d1e4b   # the source the rejected drafts were made from
        drafts: [91be0c77aa10]      # hashes of the rejected texts (a later one appended)
        reviewer: jiwon             # who rejected the last of them, and when
        date: 2026-12-04

A file without it (any older bipub's) loads as having no rejections.

The drafting (`bipub translate`) and review (`bipub review`) features write these files; the build
only reads them — through a `StatusCache` when it has one: a site whose posts are all reviewed has
~6 records a post (30,000 on a 5,000-post site: ~1.8 s to parse and validate), and an edit to a
post does not change them.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Literal

import yaml
from pydantic import StrictStr, ValidationError, model_validator

from bipub.cache import UNREADABLE, digest_bytes, load_signed, save_signed
from bipub.code_stamp import CODE
from bipub.diagnostics import Collector, Diagnostic, Severity
from bipub.load.sections import text_hash
from bipub.load.text import TextDecodeError, read_inside
from bipub.load.yaml_strict import YamlDoc, YamlError, load_yaml
from bipub.model.fields import IsoDate, Strict
from bipub.model.validate import validation_diagnostics

STATUS_DIR = "status"


class StatusRecord(Strict):
    source_hash: StrictStr
    source: StrictStr = ""
    origin: Literal["human", "machine"] = "human"
    engine: StrictStr | None = None
    options: dict[StrictStr, StrictStr] | None = None
    state: Literal["draft", "reviewed"] = "reviewed"
    reviewer: StrictStr | None = None
    reviewed: IsoDate | None = None
    translation_hash: StrictStr | None = None
    draft: StrictStr | None = None  # a newer machine draft kept beside a reviewed translation
    draft_source_hash: StrictStr | None = None  # the source that draft was made from
    draft_engine: StrictStr | None = None
    #: what drafting said of the machine draft in the content file (state draft), `code:
    #: message` each, shown by `check` and `review` until that text is reviewed or rejected (a
    #: lost tag put back, a segment kept in its source text); kept while a draft waits beside
    findings: list[StrictStr] | None = None
    #: what drafting said of the draft waiting beside (`draft`); [] when nothing
    draft_findings: list[StrictStr] | None = None

    @model_validator(mode="before")
    @classmethod
    def _one_findings_field(cls, data: object) -> object:
        """A record written before `draft_findings`: its `findings` were the waiting draft's
        (those of the text in the file were lost then), and are read as such."""
        if (
            isinstance(data, dict)
            and data.get("draft") is not None
            and data.get("draft_findings") is None
        ):
            data = dict(data)
            data["draft_findings"] = data.pop("findings", None) or []
        return data


class Rejection(Strict):
    """The machine drafts a reviewer rejected for one unit, for one source text."""

    source_hash: StrictStr
    drafts: list[StrictStr]
    reviewer: StrictStr | None = None
    date: IsoDate | None = None


#: Status option of a machine draft that is its source text standing in a new translation
#: file (its value: why; DeepL gave no translation, or its draft was rejected: translate/
#: rejected.py). The next `bipub translate` drafts it again (translate/plan.py); approving it
#: is refused (it is no translation: check/review.py).
UNTRANSLATED = "untranslated"


def stand_in_cause(record: StatusRecord | None, translation: str | None) -> str | None:
    """Why the unit's present text is its source standing in (None: it is not)."""
    if record is None or translation is None or record.state != "draft":
        return None
    if not record.options or UNTRANSLATED not in record.options:
        return None
    if record.translation_hash not in (None, text_hash(translation)):
        return None  # written over by hand since: a translation of a person's
    return str(record.options[UNTRANSLATED])


#: The status file's key of the rejections (no unit key: those hold a `:`).
REJECTED = "rejected"
#: A unit's rejections, one per source text (in the order first rejected).
Rejections = tuple[Rejection, ...]


def rejection_of(
    rejected: Mapping[str, Rejections], key: str, source_hash: str
) -> Rejection | None:
    """The unit's rejection for this source, if any."""
    return next((r for r in rejected.get(key, ()) if r.source_hash == source_hash), None)


def with_rejection(rejections: Rejections, rejection: Rejection) -> Rejections:
    """`rejections` with `rejection` in place of the one for its source (else added)."""
    same = [i for i, r in enumerate(rejections) if r.source_hash == rejection.source_hash]
    if not same:
        return (*rejections, rejection)
    return tuple(rejection if i == same[0] else r for i, r in enumerate(rejections))


def rejected_again(
    rejections: Rejections, source_hash: str, draft_hash: str, who: str | None, day: date | None
) -> Rejections:
    """A unit's rejections after one more draft (`draft_hash`) made from `source_hash` is
    rejected by `who` on `day`; those for other sources are kept."""
    old = next((r for r in rejections if r.source_hash == source_hash), None)
    drafts = list(old.drafts) if old is not None else []
    if draft_hash not in drafts:
        drafts.append(draft_hash)
    new = Rejection(source_hash=source_hash, drafts=drafts, reviewer=who, date=day)
    return with_rejection(rejections, new)


@dataclass(frozen=True)
class StatusFile:
    lang: str
    rel: str
    records: dict[str, StatusRecord]
    lines: dict[str, int]
    rejected: dict[str, Rejections] = field(default_factory=dict)


def status_rel(lang: str) -> str:
    return f"{STATUS_DIR}/{lang}.yaml"


def load_status(
    root: Path, lang: str, collector: Collector, cache: StatusCache | None = None
) -> StatusFile:
    """The status file of `lang` (an empty one if there is none; its problems in `collector`).
    `cache`: the files as last parsed, taken instead of parsing while the text is the same."""
    rel = status_rel(lang)
    path = root / rel
    if not path.is_file():
        return cache.missing(lang, rel) if cache is not None else StatusFile(lang, rel, {}, {})
    try:
        text = read_inside(path, rel, root)
    except TextDecodeError as exc:
        collector.add(exc.diagnostic)
        return StatusFile(lang, rel, {}, {})
    digest = digest_bytes(text.encode("utf-8")) if cache is not None else ""
    hit = cache.get(lang, digest) if cache is not None else None
    if hit is not None:
        collector.extend(hit[1])
        return hit[0]
    found = Collector()
    parsed = _parse(text, rel, lang, found)
    collector.extend(found.items)
    if cache is not None:
        problem = cache.keep(lang, digest, parsed, tuple(found.items))
        if problem is not None:
            collector.add(problem)
    return parsed


def _parse(text: str, rel: str, lang: str, collector: Collector) -> StatusFile:
    try:
        doc = load_yaml(text, rel)
    except YamlError as exc:
        collector.extend(exc.diagnostics)
        return StatusFile(lang, rel, {}, {})
    data = doc.data or {}
    if not isinstance(data, dict):
        collector.error(rel, 1, "status", "a status file must be a mapping of unit keys")
        return StatusFile(lang, rel, {}, {})
    records: dict[str, StatusRecord] = {}
    lines: dict[str, int] = {}
    rejected: dict[str, Rejections] = {}
    for key, value in data.items():
        if key == REJECTED:
            rejected = _rejections(value, doc, rel, collector)
            continue
        try:
            records[key] = StatusRecord.model_validate(value)
            lines[key] = doc.line_for((key,)) or 0
        except ValidationError as exc:  # (each named with its record: `posts/x:body#2: state: …`)
            collector.extend(
                replace(d, key=f"{key}: {d.key}" if d.key else key, message=f"{key}: {d.message}")
                for d in validation_diagnostics(exc, doc, rel, code="status", path_prefix=(key,))
            )
    return StatusFile(lang, rel, records, lines, rejected)


def _rejections(
    value: object, doc: YamlDoc, rel: str, collector: Collector
) -> dict[str, Rejections]:
    line = doc.line_for((REJECTED,)) or 0
    if not isinstance(value, dict):
        collector.error(rel, line, "status", f"{REJECTED}: must be a mapping of unit keys")
        return {}
    out: dict[str, Rejections] = {}
    for key, items in value.items():
        if not isinstance(items, list):
            where = doc.line_for((REJECTED, key)) or line
            collector.error(
                rel, where, "status", f"{REJECTED}: {key}: must be a list (one item per source)"
            )
            continue
        for i, item in enumerate(items):
            try:
                rejection = Rejection.model_validate(item)
            except ValidationError as exc:
                collector.extend(
                    replace(d, message=f"{REJECTED}: {key}: {d.message}")
                    for d in validation_diagnostics(
                        exc, doc, rel, code="status", path_prefix=(REJECTED, key, i)
                    )
                )
                continue
            old = rejection_of(out, str(key), rejection.source_hash)
            if old is not None:  # (the same source twice, by hand: one rejection of both)
                drafts = [*old.drafts, *(d for d in rejection.drafts if d not in old.drafts)]
                rejection = rejection.model_copy(update={"drafts": drafts})
            out[str(key)] = with_rejection(out.get(str(key), ()), rejection)
    return out


STATUS_CACHE_FORMAT = 3
Parsed = tuple[str, StatusFile, tuple[Diagnostic, ...]]  # text digest, the file, what was said


@dataclass
class StatusCache:
    """The status files as last parsed, by language, with the digest of their text and what
    parsing them said (`load_status` repeats it). `bipub serve` keeps one in memory (pair/memo.py
    PairMemo: an unchanged file is then the very object of the last pairing); `bipub build`
    keeps them in the build cache folder (`folder`: `status-<hash of lang>.pickle`, signed
    as every cache file, cache.py, with the bipub and Python versions that parsed them: a file
    missing, damaged, not signed by this user or of another version is parsed again)."""

    folder: Path | None = None
    parsed: dict[str, Parsed] = field(default_factory=dict)

    def get(self, lang: str, digest: str) -> tuple[StatusFile, tuple[Diagnostic, ...]] | None:
        kept = self.parsed.get(lang)
        if kept is None:
            kept = self._read(lang)
        if kept is None or kept[0] != digest:
            return None
        self.parsed[lang] = kept
        return kept[1], kept[2]

    def missing(self, lang: str, rel: str) -> StatusFile:
        """The empty status file of a language that has none (the last pairing's, if it had
        none either: in memory only)."""
        kept = self.parsed.get(lang)
        if kept is not None and kept[0] == "" and kept[1].rel == rel:
            return kept[1]
        empty = StatusFile(lang, rel, {}, {})
        self.parsed[lang] = ("", empty, ())
        return empty

    def keep(
        self, lang: str, digest: str, parsed: StatusFile, said: tuple[Diagnostic, ...]
    ) -> Diagnostic | None:
        """Keep a file as parsed now; the warning to report if it could not be saved."""
        self.parsed[lang] = (digest, parsed, said)
        if self.folder is None:
            return None
        try:
            save_signed(_path(self.folder, lang), (_stamp(), self.parsed[lang]))
        except OSError as exc:
            return Diagnostic(
                None,
                None,
                "cache-not-saved",
                f"the parsed status file of {lang} could not be saved in {self.folder} "
                f"({exc.strerror or type(exc).__name__}); the next build parses it again",
                Severity.WARNING,
            )
        return None

    def digests(self, files: dict[str, StatusFile]) -> dict[str, str] | None:
        """The digest of the text of each of `files` as parsed here ("": no file), or None if
        one of them is not the file parsed here (pair/memo.py `PairMemo.saved`)."""
        out: dict[str, str] = {}
        for lang, file in files.items():
            kept = self.parsed.get(lang)
            if kept is None or kept[1] is not file:
                return None
            out[lang] = kept[0]
        return out

    def same(self, files: dict[str, StatusFile], digests: dict[str, str]) -> bool:
        """Whether `files` are the files parsed here from texts of these `digests` (the status
        files a pairing read back by pair/memo.py `PairMemo.restored` read)."""
        return files.keys() == digests.keys() and self.digests(files) == digests

    def _read(self, lang: str) -> Parsed | None:
        if self.folder is None:
            return None
        try:
            stamp, parsed = load_signed(_path(self.folder, lang))
        except UNREADABLE:  # (none yet, damaged or foreign: parsed again, and saved)
            return None
        if stamp != _stamp() or not (isinstance(parsed, tuple) and len(parsed) == 3):
            return None
        found: Parsed = parsed
        return found


def _path(folder: Path, lang: str) -> Path:
    return folder / f"status-{hashlib.sha256(lang.encode('utf-8')).hexdigest()[:12]}.pickle"


def _stamp() -> tuple[int, str, str]:
    return (STATUS_CACHE_FORMAT, CODE, sys.version)


def dump_status(
    records: dict[str, StatusRecord], rejected: Mapping[str, Rejections] | None = None
) -> str:
    """Deterministic text of a status file (sorted keys, fixed field order; the rejections
    last)."""

    out: dict[str, dict[str, object]] = {}
    for key in sorted(records):
        rec = records[key].model_dump(exclude_none=True, exclude_defaults=False)
        out[key] = {k: (v.isoformat() if isinstance(v, date) else v) for k, v in rec.items()}
    kept = {key: items for key, items in (rejected or {}).items() if items}
    if kept:
        out[REJECTED] = {
            key: [
                {
                    k: (v.isoformat() if isinstance(v, date) else v)
                    for k, v in one.model_dump(exclude_none=True).items()
                }
                for one in kept[key]
            ]
            for key in sorted(kept)
        }
    header = "# Translation status, written by bipub. One record per translated unit; see docs.\n"
    body = yaml.safe_dump(out, allow_unicode=True, sort_keys=False, width=100)
    return header + body
