"""Units held back as rejected are not asked again for the answer that was rejected.

An answer that failed its checks (a lost tag: translate/cache.py) is kept in the cache but not
served, so the next run asks DeepL again. For a unit whose draft a reviewer rejected for the
same source (translate/rejected.py), that request was billed on every run and its answer —
DeepL's, mostly the same again — was held back again: a cost nobody was told about. So when a
unit has a rejection for its present source and its stored answers (the failed ones among
them) make the very draft that was rejected, those answers stand in for the request: the unit
is held back as before, nothing is sent for it, and the summary says so. `--fresh` asks again
(a new answer is what it is for); `--redraft-rejected` clears the rejections, so the answer is
asked for and written. A segment another unit (not held back) needs is asked for as before:
that request is needed, and the summary says what of its cost went to held-back units.
"""

from __future__ import annotations

from bipub.pair.units import text_hash
from bipub.translate.cache import DraftCache
from bipub.translate.plan import Plan
from bipub.translate.rejected import rejection_for
from bipub.translate.writers import Answers, _draft


def held_answers(plan: Plan, cache: DraftCache) -> dict[str, dict[str, str]]:
    """Per unit key held back: the stored answers (request key → text) that make its rejected
    draft, for the segments the cache would not serve (their answers failed their checks)."""
    if cache.fresh or not plan.rejected:
        return {}
    found: dict[str, dict[str, str]] = {}
    others: set[str] = set()  # request keys of the units not held back
    for job in plan.jobs:
        keys = [plan.request_key(job, s) for s in job.to_send()]
        rejection = rejection_for(plan, job.unit)
        failed = {k: cache.failed[k] for k in keys if k not in cache and k in cache.failed}
        stored = all(k in cache or k in failed for k in keys)
        if rejection is None or not failed or not stored:
            others.update(keys)
            continue
        texts = {k: failed.get(k) or cache.get(k) or "" for k in keys}
        draft = _draft(plan, job, Answers(texts, {}))
        if isinstance(draft, str) or text_hash(draft.text) not in rejection.drafts:
            others.update(keys)
            continue
        found[job.key] = failed
    return {unit: answers for unit, answers in found.items() if not others & answers.keys()}
