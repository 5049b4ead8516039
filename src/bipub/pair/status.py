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

The drafting (`bipub translate`) and review (`bipub review`) features write these files; the build
only reads them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Literal

import yaml
from pydantic import StrictStr, ValidationError

from bipub.diagnostics import Collector
from bipub.load.text import TextDecodeError, read_inside
from bipub.load.yaml_strict import YamlError, load_yaml
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


@dataclass(frozen=True)
class StatusFile:
    lang: str
    rel: str
    records: dict[str, StatusRecord]
    lines: dict[str, int]


def status_rel(lang: str) -> str:
    return f"{STATUS_DIR}/{lang}.yaml"


def load_status(root: Path, lang: str, collector: Collector) -> StatusFile:
    rel = status_rel(lang)
    path = root / rel
    if not path.is_file():
        return StatusFile(lang, rel, {}, {})
    try:
        doc = load_yaml(read_inside(path, rel, root), rel)
    except TextDecodeError as exc:
        collector.add(exc.diagnostic)
        return StatusFile(lang, rel, {}, {})
    except YamlError as exc:
        collector.extend(exc.diagnostics)
        return StatusFile(lang, rel, {}, {})
    data = doc.data or {}
    if not isinstance(data, dict):
        collector.error(rel, 1, "status", "a status file must be a mapping of unit keys")
        return StatusFile(lang, rel, {}, {})
    records: dict[str, StatusRecord] = {}
    lines: dict[str, int] = {}
    for key, value in data.items():
        try:
            records[key] = StatusRecord.model_validate(value)
            lines[key] = doc.line_for((key,)) or 0
        except ValidationError as exc:
            collector.extend(
                validation_diagnostics(exc, doc, rel, code="status", path_prefix=(key,))
            )
    return StatusFile(lang, rel, records, lines)


def dump_status(records: dict[str, StatusRecord]) -> str:
    """Deterministic text of a status file (sorted keys, fixed field order)."""

    out: dict[str, dict[str, object]] = {}
    for key in sorted(records):
        rec = records[key].model_dump(exclude_none=True, exclude_defaults=False)
        out[key] = {k: (v.isoformat() if isinstance(v, date) else v) for k, v in rec.items()}
    header = "# Translation status, written by bipub. One record per translated unit; see docs.\n"
    body = yaml.safe_dump(out, allow_unicode=True, sort_keys=False, width=100)
    return header + body
