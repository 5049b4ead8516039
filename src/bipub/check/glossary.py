"""`glossary.yaml`: terms every translation (human or machine) must respect.

    # glossary.yaml (project root; optional)
    terms:                      # term pairs: language code → rendering, or a list of renderings
      - en: KV cache
        ko: [KV cache, KV 캐시]  # any rendering satisfies the check; the first is preferred
      - en: preemption
        ko: 선점
        note: scheduler sense   # optional, for humans
    keep:                       # do-not-translate terms: written the same in every language
      - vLLM
      - PagedAttention

Checks (`glossary` finding): when a source contains a term (ASCII terms as whole words, case
insensitive; Korean terms as substrings, since Korean attaches particles), the translation must
contain one of the target language's renderings; a `keep` term in the source must appear verbatim.
`keep` terms also count as words that need no translation (`untranslated` allowlist).
The drafting feature uses the first rendering of each pair and protects `keep` terms.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, Field, StrictStr, ValidationError, model_validator

from bipub.diagnostics import Collector
from bipub.load.text import TextDecodeError, read_text
from bipub.load.yaml_strict import YamlError, load_yaml
from bipub.model.fields import Strict
from bipub.model.validate import validation_diagnostics

GLOSSARY_FILE = "glossary.yaml"


class GlossaryTerm(Strict):
    """One term: `<lang>: rendering | [renderings]` for two or more languages, and a note."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)
    note: StrictStr | None = None

    @model_validator(mode="before")
    @classmethod
    def _languages(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        langs = [k for k in data if k != "note"]
        for lang in langs:
            value = data[lang]
            ok = (isinstance(value, str) and value.strip()) or (
                isinstance(value, list)
                and value
                and all(isinstance(v, str) and v.strip() for v in value)
            )
            if not ok:
                raise ValueError(f"{lang}: expected a term or a non-empty list of terms")
        if len(langs) < 2:
            raise ValueError("a term needs renderings in at least two languages")
        return data

    def renderings(self, lang: str) -> tuple[str, ...]:
        value = (self.model_extra or {}).get(lang)
        if value is None:
            return ()
        return (value,) if isinstance(value, str) else tuple(value)

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(self.model_extra or {})


class Glossary(Strict):
    terms: list[GlossaryTerm] = []
    keep: list[StrictStr] = Field(default_factory=list)

    def fingerprint(self) -> str:

        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:12]


EMPTY = Glossary()


def load_glossary(root: Path, languages: list[str], collector: Collector) -> Glossary:
    """Read ROOT/glossary.yaml (missing → empty). Problems are errors with file:line."""
    path = root / GLOSSARY_FILE
    if not path.is_file():
        return EMPTY
    try:
        doc = load_yaml(read_text(path, GLOSSARY_FILE), GLOSSARY_FILE)
    except TextDecodeError as exc:
        collector.add(exc.diagnostic)
        return EMPTY
    except YamlError as exc:
        collector.extend(exc.diagnostics)
        return EMPTY
    data = doc.data if doc.data is not None else {}
    if not isinstance(data, dict):
        collector.error(GLOSSARY_FILE, 1, "glossary", "glossary.yaml must be a mapping")
        return EMPTY
    try:
        glossary = Glossary.model_validate(data)
    except ValidationError as exc:
        collector.extend(validation_diagnostics(exc, doc, GLOSSARY_FILE, code="glossary"))
        return EMPTY
    ok = True
    for i, term in enumerate(glossary.terms):
        for lang in term.languages:
            if lang not in languages:
                collector.error(
                    GLOSSARY_FILE,
                    doc.line_for(("terms", i, lang)),
                    "glossary",
                    f"terms[{i}].{lang}: {lang!r} is not a language of this site "
                    f"({', '.join(languages)})",
                )
                ok = False
    return glossary if ok else EMPTY
