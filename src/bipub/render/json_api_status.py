"""status.json joined from each entry's part (render/parts.py `Parts.status_files`): the
records of an entry's units in each language, kept by the entry's key, so that a build after
an edit makes again only the records of the entries whose key changed (a big site has ~30,000
units, each looked at by `json_api.status_texts_of` at every build: ~25 ms, and after the
render helpers fork the pages of every unit are faulted in again, ~35 ms).

The file is what `json_api.status_texts_of` makes, byte for byte (tests/unit/
test_status_parts.py): its units sorted by key. An entry's units' keys are `kind/key:field`
(pair/units.py `doc_units`), so with no `:` in any entry's key each entry's units are a run of
that order, the runs in the order of their `kind/key:` prefixes; the CV's units (not of an
entry: made again at every build) go where their first key falls, if no run of an entry
straddles them. Else the file is made by `status_texts_of` (and `-v` says why).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from operator import attrgetter, itemgetter
from typing import cast

from bipub.pair.site import Entry, Site
from bipub.pair.status import StatusFile
from bipub.pair.units import Unit, entry_units
from bipub.render.json_api import RECORD_SEP, join_encoded, status_texts, status_texts_of

# An entry's part: for each of the configuration's languages, in its order, how many units the
# entry has there (none in its source's), then for each their records (`status_texts`, in key
# order) joined with RECORD_SEP, UTF-8 (b"" for none): one flat tuple, the least to read back
# with the build state. A pure function of the entry's documents (their bytes), the
# configuration's languages and the status files' records
StatusPart = tuple[int | bytes, ...]

_BY_KEY = attrgetter("key")
_SEP = RECORD_SEP.encode()


# from how many entries whose parts are made their units are taken from the site's units, in
# one pass (`units_by_entry`: ~10 ms at 5,000 posts a language), rather than each entry's made
# again from its documents (`entry_units`: ~25 us an entry): a first build, or the first after a
# status file changed (every part is keyed by the status files' digests)
FROM_THE_SITE = 256


def entry_units_of(entry: Entry, codes: Sequence[str]) -> list[Unit]:
    """The units of `entry` as pairing makes them for the site (pair/units.py `entry_units`)."""
    by_lang = entry_units(entry.kind, entry.key, entry.source_lang, entry.docs, codes)
    return [unit for units in by_lang.values() for unit in units]


def units_by_entry(units: Iterable[Unit]) -> dict[str, list[Unit]]:
    """`units` by the entry each is of (`kind/key`, the part of its key before the field's name,
    as json_api `drafts` leaves a draft's units out; the CV's by "cv")."""
    out: dict[str, list[Unit]] = {}
    for unit in units:
        of = unit.key.rpartition(":")[0]
        found = out.get(of)
        if found is None:
            out[of] = [unit]
        else:
            found.append(unit)
    return out


def entry_part(
    units: Sequence[Unit], codes: Sequence[str], status: Mapping[str, StatusFile]
) -> StatusPart:
    """The records of an entry's `units` in each of `codes`."""
    by_lang: dict[str, list[Unit]] = {}
    for unit in units:
        by_lang.setdefault(unit.target_lang, []).append(unit)
    counts: list[int] = []
    texts: list[bytes] = []
    for lang in codes:
        there = by_lang.get(lang)
        if there:
            there.sort(key=_BY_KEY)
            counts.append(len(there))
            texts.append(RECORD_SEP.join(status_texts(there, status.get(lang))).encode())
        else:
            counts.append(0)
            texts.append(b"")
    return (*counts, *texts)


def covered(entry: Entry) -> bool:
    """Whether the entry's key (render/html.py `entry_key`: its versions' documents by their
    digests) holds every document its units are made of: not so for a translation shown as
    its source (a machine draft while `publish_drafts` is off), whose part is then made at
    every build, never kept by the entry's key."""
    versions = entry.versions
    for lang, doc in entry.docs.items():
        version = versions.get(lang)
        if version is None or version.doc is not doc or not doc.digest:
            return False
    return True


def joined(
    site: Site,
    langs: Sequence[str],
    hidden: Mapping[str, frozenset[str]],
    parts: Sequence[StatusPart],
) -> tuple[dict[str, bytes] | None, str]:
    """status.json of each of `langs` (`json_api.status_texts_of`'s records joined, UTF-8)
    from `parts`, those of `site.entries` in their order, and the CV's units; else None and
    why not (module text)."""
    entries = site.entries
    prefixes = [f"{e.kind}/{e.key}:" for e in entries]
    if "".join(prefixes).count(":") != len(prefixes):
        return None, "an entry's key has a ':'"
    cv_units = [u for merged in site.cv.values() for u in merged.units]
    codes = list(site.config.codes)
    width = len(codes)
    counts = cast(Iterable[tuple[int, ...]], map(itemgetter(slice(0, width)), parts))
    if set(map(len, parts)) - {2 * width} or len(site.units) != len(cv_units) + sum(
        map(sum, counts)
    ):
        return None, "the site's units are not its entries' and its CV's"
    order = sorted(range(len(entries)), key=prefixes.__getitem__)
    left_out = {lang: hidden.get(lang, frozenset()) for lang in langs}
    runs: dict[str, list[bytes]] = {}
    at: dict[str, list[int]] = {}  # (the entry of each run)
    for lang in langs:
        column, drafted = width + codes.index(lang), left_out[lang]
        at[lang] = [
            i for i in order if parts[i][column] and not (drafted and prefixes[i][:-1] in drafted)
        ]
        runs[lang] = [cast(bytes, parts[i][column]) for i in at[lang]]
    cv = status_texts_of(cv_units, site.status, langs, hidden)
    cv_keys = _keys(cv_units, langs, hidden)
    out: dict[str, bytes] = {}
    for lang in langs:
        found = runs[lang]
        if cv[lang]:
            first, last = cv_keys[lang][0], cv_keys[lang][-1]
            # (the runs before it: of the entries whose prefixes sort before its first key)
            place = bisect_left([prefixes[i] for i in at[lang]], first)
            ordered = [prefixes[i] for i in order]
            n = bisect_left(ordered, first)
            before = ordered[n - 1] if n else None
            after = ordered[n] if n < len(ordered) else None
            if (before is not None and first.startswith(before)) or (
                after is not None and last >= after
            ):
                return None, "the CV's units' keys fall among an entry's"
            found.insert(place, _SEP.join(text.encode() for text in cv[lang]))
        out[lang] = join_encoded(found)
    return out, ""


def _keys(
    units: Sequence[Unit], langs: Sequence[str], hidden: Mapping[str, frozenset[str]]
) -> dict[str, list[str]]:
    """The keys of `units` each language's status.json lists, sorted (as `status_texts_of`)."""
    out: dict[str, list[str]] = {}
    for lang in langs:
        drafted = hidden.get(lang, frozenset())
        out[lang] = sorted(
            u.key
            for u in units
            if u.target_lang == lang and not (drafted and u.key.rpartition(":")[0] in drafted)
        )
    return out
