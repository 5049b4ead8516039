"""Which translation section translates which source section of a post or page: one rule.

Body units are keyed by position (`posts/x:body#2`: the source's third section), and a
translation file's sections are read by position too. While the two files are in step that is
the pairing. A section inserted in (or removed from, or moved within) the source puts them out of
step: the translation's third section is then the translation of the section now at another
index. Its status record says so: it names the source text (`source_hash`) the translation was
made from, and that text is now another source section's. `align_sections` pairs each such
translation section with the source section it was made from, so that the section inserted in
the source has no translation (missing: "not translated yet") and every reviewed text stays
beside its own source section, never beside another.

The rule, as po4a and Weblate match a unit by its source text rather than its place:

1. a translation section whose record names a source text (and whose text is the one recorded:
   a text edited since is a person's text for the place it is in) is *anchored* to the source
   section with that text (the nearest to it, if several have it);
2. if no anchor is at another index than its own, the pairing is by position (every pairing
   before: the files are in step, or nothing says otherwise);
3. otherwise the other translation sections (a text edited since its record, or with no
   record) between two anchors go, in order, to the source sections between those anchors'
   that have no translation, when there are as many of each; when there are not, which is
   whose is not known, and they stay unpaired (`extra`: none is shown beside a section it may
   not translate). The source sections left without a translation are `missing`.

Used by every consumer that puts a translation beside its source: the side-by-side view and
the bilingual PDF (render/both.py `section_rows`), the post's own page (render/both.py
`post_parts`: a source section without a translation shown in its place, marked), and the
pairing's finding (`out_of_step`, called by pair/site.py: build and check). Not yet by the units
(pair/units.py) and their status records, keyed by position: status.json, check's unit states
and the coverage.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bipub.pair.status import StatusRecord

if TYPE_CHECKING:
    from bipub.diagnostics import Collector
    from bipub.load.content import Document


@dataclass(frozen=True)
class Alignment:
    """Each source section's translation section (`of_source[j]`: its index, or None: missing)
    and the translation sections paired with none (`extra`)."""

    of_source: tuple[int | None, ...]
    extra: tuple[int, ...]
    shifted: bool  # the pairing is not by position (rule 3)

    def rows(self) -> tuple[tuple[int | None, int | None], ...]:
        """(source index, translation index) in reading order: the source's, each `extra`
        translation section after the row of the translation section before it."""
        rows: list[tuple[int | None, int | None]] = [(j, i) for j, i in enumerate(self.of_source)]
        for i in self.extra:
            at = 0
            for n, (_, t) in enumerate(rows):
                if t is not None and t < i:
                    at = n + 1
            rows.insert(at, (None, i))
        return tuple(rows)

    def moved(self) -> tuple[tuple[int, int], ...]:
        """(translation index, source index) of each translation section paired with a source
        section at another index, in the translation's order."""
        return tuple(
            sorted((i, j) for j, i in enumerate(self.of_source) if i is not None and i != j)
        )


def made_from(
    t_digests: Sequence[str], record: Callable[[int], StatusRecord | None]
) -> tuple[str | None, ...]:
    """The source hash each translation section's record names (`record(i)`: body#i's), when
    its text is still the one recorded (None: no record, or a text edited since)."""
    out: list[str | None] = []
    for i, digest in enumerate(t_digests):
        rec = record(i)
        if rec is None or rec.translation_hash not in (None, digest):
            out.append(None)
        else:
            out.append(rec.source_hash)
    return tuple(out)


def positional(n_src: int, n_tr: int) -> Alignment:
    return Alignment(
        tuple(j if j < n_tr else None for j in range(n_src)), tuple(range(n_src, n_tr)), False
    )


def align_sections(
    s_digests: Sequence[str], t_digests: Sequence[str], sources: Sequence[str | None]
) -> Alignment:
    """The pairing of the source sections (their `text_hash`es, `s_digests`) with the
    translation's (`t_digests`), `sources` the source hash each translation section was made
    from (`made_from`) — the module's rule."""
    n_src, n_tr = len(s_digests), len(t_digests)
    where: dict[str, list[int]] = {}
    for j, digest in enumerate(s_digests):
        where.setdefault(digest, []).append(j)
    anchor: dict[int, int] = {}  # translation index → source index
    taken: set[int] = set()
    for i, src_hash in enumerate(sources):
        if src_hash is None or src_hash not in where:
            continue
        if i < n_src and s_digests[i] == src_hash:
            j = i  # (in its place)
        else:
            free = [j for j in where[src_hash] if j not in taken]
            if not free:
                continue
            j = min(free, key=lambda k: (abs(k - i), k))
        if j in taken:
            continue
        anchor[i] = j
        taken.add(j)
    if all(i == j for i, j in anchor.items()):
        return positional(n_src, n_tr)
    of_source: list[int | None] = [None] * n_src
    for i, j in anchor.items():
        of_source[j] = i
    gaps: dict[tuple[int, int], list[int]] = {}  # the source range between two anchors
    for i in range(n_tr):
        if i not in anchor:
            before = max((anchor[k] for k in anchor if k < i), default=-1)
            after = min((anchor[k] for k in anchor if k > i), default=n_src)
            gaps.setdefault((before, after), []).append(i)
    extra: list[int] = []
    for (before, after), found in gaps.items():
        free = [j for j in range(before + 1, after) if of_source[j] is None]
        if len(free) == len(found):
            for i, j in zip(found, free, strict=True):
                of_source[j] = i
        else:  # (which is whose is not known: none is shown beside a section it may not be)
            extra.extend(found)
    extra.sort()
    plain = positional(n_src, n_tr)
    if tuple(of_source) == plain.of_source and tuple(extra) == plain.extra:
        return plain
    return Alignment(tuple(of_source), tuple(extra), True)


def _digests(doc: Document) -> tuple[tuple[str, int], ...]:
    """(text_hash, line) of each body section of `doc`: from where they are in its body when
    it came from the build cache (Document.unsplit_spans: not split again), else its sections."""
    spans = doc.unsplit_spans()
    if spans is not None:
        return tuple((digest, line) for _, _, line, digest in spans)
    return tuple((sec.digest, sec.line) for sec in doc.sections)


def _count(n: int) -> str:
    return f"{n} body section{'' if n == 1 else 's'}"


def _keys(base: str, indices: Sequence[int]) -> str:
    return ", ".join(f"{base}:body#{i}" for i in indices)


def out_of_step(
    base: str,
    src: Document,
    tr: Document,
    records: Mapping[str, StatusRecord],
    collector: Collector,
) -> Alignment | None:
    """Say, at the translation `tr` of `src` (its units `base:body#N`, `records` its language's
    status records), when its body sections are out of step with the source's (`sections-out-
    of-step`): which source sections have no translation, and which translation sections
    translate the source sections at other indices (`align_sections`); or, with no review
    record to tell, that the two have a different number of sections (they pair by position:
    from the first one added or removed, each may stand beside another's translation). Pairs
    them only when a section is stale or the translation has fewer sections (every build calls
    it for every translation)."""
    s_secs, t_secs = _digests(src), _digests(tr)
    lang, source_lang = tr.lang, src.lang

    def record(i: int) -> StatusRecord | None:
        return records.get(f"{base}:body#{i}")

    has_records = any(record(i) is not None for i in range(len(t_secs)))
    if not has_records:
        if len(s_secs) != len(t_secs):
            collector.warning(
                tr.rel,
                t_secs[0][1] if t_secs else tr.body_line,
                "sections-out-of-step",
                f"{lang} has {_count(len(t_secs))} and the {source_lang} source ({src.rel}) "
                f"{len(s_secs)}: sections pair by position, and no review record says which "
                f"{lang} section translates which {source_lang} one, so if a section was added "
                "or removed anywhere but at the end, each one after it stands beside another "
                "section's translation (on the side-by-side page too): make the sections match "
                "the source's, heading by heading",
                key=f"{base}:body#{min(len(s_secs), len(t_secs))}",
            )
        return None
    s_digests = [d for d, _ in s_secs]
    t_digests = [d for d, _ in t_secs]
    if all(
        (rec := record(i)) is None or rec.source_hash == s_digests[i]
        for i in range(min(len(s_digests), len(t_digests)))
    ) and len(s_digests) <= len(t_digests):
        return None  # (no stale section: the two are in step; `align_sections` would agree)
    found = align_sections(s_digests, t_digests, made_from(t_digests, record))
    if not found.shifted:
        return None
    moved = found.moved()
    missing = [j for j, i in enumerate(found.of_source) if i is None]
    first = min([i for i, _ in moved] + list(found.extra), default=0)
    said = [f"its body sections are out of step with the {source_lang} source's"]
    if missing:
        said.extend(
            f"the {source_lang} section {base}:body#{j} ({src.rel}:{s_secs[j][1]}) has no "
            f"{lang} translation yet"
            for j in missing
        )
    if moved:
        said.append(
            f"the {lang} sections at {_keys(base, [i for i, _ in moved])} translate the "
            f"{source_lang} sections now at {_keys(base, [j for _, j in moved])} (their review "
            "records name those sources)"
        )
    if found.extra:
        said.append(
            f"the {lang} sections at {_keys(base, found.extra)} translate no present "
            f"{source_lang} section that can be told"
        )
    collector.warning(
        tr.rel,
        t_secs[first][1] if first < len(t_secs) else tr.body_line,
        "sections-out-of-step",
        "; ".join(said)
        + (
            ": the page and the side-by-side view pair them so (a source section without a "
            "translation shown in its place, marked as not translated yet)"
            if base.startswith("posts/")
            else ": the page shows the translation as its file is"
        )
        + ', with the "may be outdated" notice, until the sections are put back in step (bipub '
        "translate drafts each moved section with its wording; adopt the waiting drafts, or "
        "edit the translation)",
        key=f"{base}:body#{first}",
    )
    return found
