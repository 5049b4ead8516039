"""Translatable units: the smallest pieces of text whose translation state is tracked.

A unit has a stable key (`cv:experience[company=Acme].details[0].breakdown.problem`,
`posts/kv-cache:title`, `posts/kv-cache:body#2`), its source text and, when it exists, the
translation's text, each with file and line.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from bipub.load.content import Document, SectionSpan
from bipub.load.sections import Section, nfc, split_sections, text_hash

__all__ = ["Section", "Unit", "doc_units", "entry_units", "nfc", "split_sections", "text_hash"]


@dataclass(frozen=True)
class Unit:
    key: str
    source_lang: str
    target_lang: str
    source: str
    source_file: str
    source_line: int | None
    translation: str | None
    translation_file: str | None
    translation_line: int | None

    @cached_property
    def source_hash(self) -> str:
        return text_hash(self.source)

    @cached_property
    def translation_hash(self) -> str | None:
        """`text_hash` of the translation (None: not translated), as a review records it; a
        body unit's is its section's digest, kept with the document."""
        text = self.translation
        return text_hash(text) if text is not None else None

    @property
    def translated(self) -> bool:
        """`translation is not None`, without slicing the text of a body unit made from where
        it is in its document (`_span_units`: whether it has one is known)."""
        found = self.__dict__
        return "translation" not in found or found["translation"] is not None

    if not TYPE_CHECKING:  # (for mypy, a Unit has its fields only)

        def __getattr__(self, name: str) -> str:
            """The `source` or `translation` of a body unit made from where its text is in
            its document's body (`_span_units`), sliced from it when first read; a field of
            a body unit read back from the entries file as a row (entry_rows.py `_paired`:
            its fields made whole when one it does not hold is first read)."""
            found = self.__dict__
            if "_at" in found:
                found["_at"].expand(self)
                found = self.__dict__
                if name in found:
                    return found[name]  # type: ignore[no-any-return]
            where = _WHERE.get(name)
            if where is None or where[0] not in found:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            body, start, end = where
            text = found[name] = found[body].body[found[start] : found[end]]
            return text

    def __getstate__(self) -> dict[str, object]:
        """The unit with its texts, not the bodies they are sliced from (`__getattr__`)."""
        if "_at" in self.__dict__:  # (read back as a row: made whole first)
            self.__dict__["_at"].expand(self)
        state = dict(self.__dict__)
        if "_body" in state:
            state["source"], state["translation"] = self.source, self.translation
            for name in _LAZY:
                state.pop(name, None)
        return state

    @classmethod
    def made(
        cls,
        key: str,
        source_lang: str,
        target_lang: str,
        source: str,
        source_file: str,
        source_line: int | None,
        translation: str | None,
        translation_file: str | None,
        translation_line: int | None,
    ) -> Unit:
        """`Unit(...)`, made at a third of the cost of the frozen dataclass's `__init__` (which
        sets each field through object.__setattr__): pairing makes ~6 units a post at every
        build (`doc_units`)."""
        unit = object.__new__(cls)
        unit.__dict__.update(
            key=key,
            source_lang=source_lang,
            target_lang=target_lang,
            source=source,
            source_file=source_file,
            source_line=source_line,
            translation=translation,
            translation_file=translation_file,
            translation_line=translation_line,
        )
        return unit


def doc_units(
    entry_key: str, kind: str, src: Document, tr: Document | None, target: str
) -> list[Unit]:
    """The units of `src`'s title, description, series and body sections, with `tr`'s texts
    (its translation into `target`, if there is one). (Every build makes ~6 a post: made as
    `Unit.made` makes them, with each body section's hash as its document keeps it.)"""
    base = f"{kind}/{entry_key}"
    units: list[Unit] = []
    lang, rel = src.lang, src.rel
    meta, tr_meta = src.meta, tr.meta if tr is not None else None
    tr_rel = tr.rel if tr is not None else None
    for name in ("title", "description", "series") if meta.series else ("title", "description"):
        text: str | None = getattr(meta, name)
        if text is None:
            continue
        found: str | None = getattr(tr_meta, name) if tr_meta is not None else None
        there = tr is not None and found is not None
        units.append(
            Unit.made(
                f"{base}:{name}",
                lang,
                target,
                text,
                rel,
                src.line_of(name),
                found,
                tr_rel if there else None,
                tr.line_of(name) if tr is not None and there else None,
            )
        )
    spans = src.unsplit_spans()
    t_spans = tr.unsplit_spans() if tr is not None else ()
    if spans is not None and t_spans is not None:  # (a cached document: see _span_units)
        units.extend(_span_units(base, src, tr, target, spans, t_spans))
        return units
    t_secs = tr.sections if tr is not None else ()
    count = len(t_secs)
    for sec in src.sections:
        index = sec.index
        t = t_secs[index] if index < count else None
        unit = Unit.made(
            f"{base}:body#{index}",
            lang,
            target,
            sec.text,
            rel,
            sec.line,
            t.text if t is not None else None,
            tr_rel if t is not None else None,
            t.line if t is not None else None,
        )
        vars(unit)["source_hash"] = sec.digest  # text_hash(sec.text), kept with the section
        if t is not None:
            vars(unit)["translation_hash"] = t.digest
        units.append(unit)
    return units


# where a body unit's texts are (`_span_units`): the body, and the start and end of the text
# in it, as values of its own (strings and numbers: a dict holding no container is not
# tracked by Python's garbage collector, which would go through ~20,000 more at 5,000 posts)
_WHERE = {"source": ("_body", "_start", "_end"), "translation": ("_tbody", "_tstart", "_tend")}
_LAZY = ("_body", "_start", "_end", "_tbody", "_tstart", "_tend")


def _span_units(
    base: str,
    src: Document,
    tr: Document | None,
    target: str,
    spans: tuple[SectionSpan, ...],
    t_spans: tuple[SectionSpan, ...],
) -> Iterator[Unit]:
    """The body units `doc_units` makes of `src.sections` (and `tr`'s), made from where the
    sections are in the bodies (Document.unsplit_spans: a document from the build cache, whose
    sections an update's pairing would otherwise make again, for every document of the site,
    only to read their texts, lines and digests: the same values; test_units_spans.py checks
    it). Their texts are sliced from the bodies when first read (`Unit.__getattr__`): a build
    reads the texts of none (their keys, hashes and whether they are translated only), and
    copying every body of the site into them cost more than the rest of the units."""
    lang, rel = src.lang, src.rel
    tr_rel = tr.rel if tr is not None else None
    count = len(t_spans)
    new = object.__new__
    for index, (start, end, line, digest) in enumerate(spans):
        unit = new(Unit)
        fields = unit.__dict__
        fields.update(
            key=f"{base}:body#{index}",
            source_lang=lang,
            target_lang=target,
            source_file=rel,
            source_line=line,
            source_hash=digest,  # text_hash of the text, kept with the document
            _body=src,  # (the document: its body is decoded when first read, load/content.py)
            _start=start,
            _end=end,
        )
        if index < count:  # (translated: its text sliced from the translation when read)
            t_start, t_end, t_line, t_digest = t_spans[index]
            fields.update(
                translation_file=tr_rel,
                translation_line=t_line,
                _tbody=tr,
                _tstart=t_start,
                _tend=t_end,
                translation_hash=t_digest,
            )
        else:
            fields.update(translation=None, translation_file=None, translation_line=None)
        yield unit


def entry_units(
    kind: str, key: str, source_lang: str, docs: dict[str, Document], langs: Iterable[str]
) -> dict[str, list[Unit]]:
    """The units of an entry (`docs`: its documents by language) in each of `langs` but its
    source language, in that order: what pairing gives the site for it (pair/site.py)."""
    src = docs[source_lang]
    return {
        lang: doc_units(key, kind, src, docs.get(lang), lang)
        for lang in langs
        if lang != source_lang
    }
