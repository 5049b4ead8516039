"""What a `bipub translate` plan costs: the segments it would send, per file and in all, after
the cache and de-duplication (billable characters: tags are not billed).

    est = estimate(plan)        # nothing is sent
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bipub.translate.cache import DraftCache
from bipub.translate.deepl_client import Usage
from bipub.translate.held_answers import held_answers
from bipub.translate.plan import Plan
from bipub.translate.segments import Segment


@dataclass(frozen=True)
class Item:
    """One segment to send: its cache key, the segment, its context group."""

    key: str
    segment: Segment
    group: str


@dataclass(frozen=True)
class FileCost:
    source_lang: str
    source_file: str
    target_file: str
    units: int
    chars: int  # billable characters to send (after the cache and de-duplication)
    cached: int  # units answered from the cache


@dataclass
class Estimate:
    target: str
    files: list[FileCost]
    units: int
    chars: int
    texts: int  # distinct texts (segments) to send
    cached: int  # distinct segments answered from the cache (the run's cache hits)
    duplicates: int  # segments the same as another of this run: sent (or served) once
    free: int  # units with nothing to send (code, numbers…, or every segment kept)
    to_send: dict[str, list[Item]]  # spec → segments to send, in order
    #: units held back as rejected whose stored answers make the rejected draft: not sent
    #: (translate/held_answers.py), by unit key → those answers by request key
    held: dict[str, dict[str, str]] = field(default_factory=dict)

    def fits(self, usage: Usage | None) -> bool | None:
        if usage is None or usage.remaining is None:
            return None
        return self.chars <= usage.remaining


def estimate(plan: Plan, cache: DraftCache | None = None) -> Estimate:
    """What a run would send: billable characters (tags are not billed) per file and in all."""
    cache = cache if cache is not None else DraftCache(plan.root)
    held = held_answers(plan, cache)
    stored = {k for answers in held.values() for k in answers}
    seen: set[str] = set()
    to_send: dict[str, list[Item]] = {}
    per_file: dict[str, list[int]] = {}  # group → [units, chars, cached]
    cached = duplicates = free = chars = 0
    for job in plan.jobs:
        counts = per_file.setdefault(job.group, [0, 0, 0])
        counts[0] += 1
        segments = job.to_send()
        if not segments:
            free += 1
            continue
        hits = 0
        for seg in segments:
            key = plan.request_key(job, seg)
            in_cache = key in cache or key in stored
            hits += in_cache
            if key in seen:  # (each distinct text once: as the run counts its cache hits)
                duplicates += 1
            elif in_cache:
                seen.add(key)
                cached += 1
            else:
                seen.add(key)
                to_send.setdefault(job.spec, []).append(Item(key, seg, job.context_group))
                chars += seg.encoded.billable
                counts[1] += seg.encoded.billable
        if hits == len(segments):
            counts[2] += 1
    files = []
    for name, (units, file_chars, file_cached) in per_file.items():
        group = plan.groups[name]
        lang = next(j.unit.source_lang for j in plan.jobs if j.group == name)
        files.append(
            FileCost(lang, group.source_file, group.target_file, units, file_chars, file_cached)
        )
    texts = sum(len(v) for v in to_send.values())
    return Estimate(
        plan.target, files, len(plan.jobs), chars, texts, cached, duplicates, free, to_send, held
    )
