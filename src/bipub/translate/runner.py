"""The run loop of `bipub translate`: send the plan's segments, save every answer, write drafts.

Segments are asked per context group (one body section, or a document's front matter) with the
group's neighbouring text as DeepL `context`, in requests within DeepL's limits. Every answer is
saved in the cache (marked failed when it did not pass its checks, so the next run asks again)
before anything is written from it; Ctrl-C during a request waits for that answer and saves it
(a second Ctrl-C stops at once). A document is written as soon as all its segments have an
answer or a cause.

Faults: a request DeepL refused as such (HTTP 400, 413) or answered malformed is asked again one
segment at a time, so only the segment at fault goes without a translation; a segment answer
that is not well-formed XML is asked again once, alone. Faults of the service (quota 456, key
403, 429 after the client's retries, 5xx, no connection, timeouts) and three failed requests in
a row stop the run: what was answered before is kept and written.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bipub.translate import markdown_xml as mx
from bipub.translate.cache import DraftCache
from bipub.translate.cost import Item, estimate
from bipub.translate.deepl_client import DeepL, DeepLError, MissingKeyError, fits, plan_batches
from bipub.translate.files import interrupts_held
from bipub.translate.outcome import NotWritten, Result
from bipub.translate.plan import Job, Plan, Spec, too_long
from bipub.translate.writers import Answers, write_groups

#: Documents written together (one status file write for all of them): answers are cached
#: before, so a stop between writes loses nothing.
WRITE_BATCH = 20
NOT_SENT_STOPPED = "not sent: the run stopped"
NOT_SENT_BUDGET = "not sent: --max-chars reached"
ClientFactory = Callable[[], DeepL]
Progress = Callable[[int], None]
#: Requests refused one after another before the run stops (the service, not a segment, is
#: likely at fault).
MAX_FAILED_IN_A_ROW = 3
_NOTICE = "\nbipub translate: Ctrl-C — saving the answer in flight, then stopping (Ctrl-C again: stop now)\n"


class _Sender:
    """Sends items of one spec, records answers, failures and costs."""

    def __init__(
        self,
        plan: Plan,
        client: DeepL,
        cache: DraftCache,
        result: Result,
        texts: dict[str, str],
        failures: dict[str, str],
        on_progress: Progress | None,
    ) -> None:
        self.plan = plan
        self.client = client
        self.cache = cache
        self.result = result
        self.texts = texts
        self.failures = failures
        self.on_progress = on_progress
        self.failed_in_a_row = 0
        self.glossary_ids: dict[str, str] = {}

    def glossary(self, spec: Spec) -> str | None:
        if not (spec.glossary_pair and spec.glossary_name):
            return None
        if spec.glossary_name not in self.glossary_ids:
            glossary_id, deleted = self.client.sync_glossary(
                spec.glossary_name, spec.glossary, family=spec.glossary_family
            )
            self.glossary_ids[spec.glossary_name] = glossary_id
            for old in deleted:
                self.result.notes.append(f"deleted the DeepL glossary {old!r} (glossary changed)")
        return self.glossary_ids[spec.glossary_name]

    def send(
        self,
        spec: Spec,
        items: Sequence[Item],
        context: str | None,
        *,
        again: bool = True,
        counted: bool = True,
    ) -> bool:
        """One request (True: answered). A refused request is asked again one segment at a
        time (those single requests do not count towards MAX_FAILED_IN_A_ROW: only a request
        none of whose segments could be answered does); with `again`, a malformed answer is
        asked for once more, alone."""
        try:
            with interrupts_held(_NOTICE):
                answers = self.client.translate(
                    [i.segment.encoded.xml for i in items],
                    spec.options,
                    self.glossary(spec),
                    context=context,
                )
                self._save(items, [a.text for a in answers], [a.billed for a in answers])
            # (never silently: the drafts hold *** where the key was; said once, at the end)
            self.result.scrubbed += sum(a.scrubbed for a in answers)
        except DeepLError as exc:
            if not exc.local:
                raise
            if len(items) > 1:
                answered = [
                    self.send(spec, [i], context, again=again, counted=False) for i in items
                ]
                if any(answered):
                    self.failed_in_a_row = 0
                    return True
            else:
                self.failures[items[0].key] = exc.reason
            if counted or len(items) > 1:
                self._failed(exc)
            return False
        self.failed_in_a_row = 0
        if again:
            retry = [i for i in items if mx.decode(self.texts[i.key], i.segment.encoded).malformed]
            for item in retry:  # a malformed answer: asked again once, alone (the first
                self.send(spec, [item], context, again=False, counted=False)  # answer stays
                self.failures.pop(item.key, None)  # when the second request fails)
        return True

    def _failed(self, exc: DeepLError) -> None:
        self.failed_in_a_row += 1
        if self.failed_in_a_row >= MAX_FAILED_IN_A_ROW:
            raise DeepLError(
                f"{MAX_FAILED_IN_A_ROW} requests in a row failed, the last: {exc.reason}",
                status=exc.status,
            ) from None

    def _save(self, items: Sequence[Item], answers: Sequence[str], each: Sequence[int]) -> None:
        entries: dict[str, tuple[str, bool]] = {}
        for item, text, chars in zip(items, answers, each, strict=True):
            ok = not mx.decode(text, item.segment.encoded).losses
            entries[item.key] = (text, ok)
            self.result.billed_keys[item.key] = self.result.billed_keys.get(item.key, 0) + chars
        billed = sum(each)
        self.cache.put_batch(entries, billed)
        self.texts.update((k, t) for k, (t, _) in entries.items())
        for key in entries:
            self.failures.pop(key, None)
        self.result.requests += 1
        self.result.sent += len(items)
        self.result.billed += billed
        if self.on_progress is not None:
            self.on_progress(sum(i.segment.encoded.billable for i in items))


def run(
    plan: Plan,
    client_factory: ClientFactory = DeepL.from_env,
    *,
    max_chars: int | None = None,
    on_start: Callable[[int], None] | None = None,
    on_progress: Progress | None = None,
    fresh: bool = False,
) -> Result:
    """Draft every job of the plan (`fresh`: no answer served from the cache). DeepL failures
    and Ctrl-C end the run early with `Result.stopped` set (what was answered is kept and
    written); MissingKeyError propagates before anything is written."""
    cache = DraftCache(plan.root, fresh=fresh)
    est = estimate(plan, cache)
    result = Result(plan.target)
    left_out: set[str] = set()  # (their notes: said as units not written instead)
    for key, job in plan.too_long.items():
        cause = too_long(next(s for s in job.to_send() if not fits(s.encoded.xml)))
        left_out.add(f"{key}: {cause} — the unit is left out")
        source = (job.unit.source_file, job.unit.source_line) if job.unit.source_line else None
        target = plan.groups[job.group].target_file if job.group in plan.groups else None
        result.not_written.append(NotWritten(key, target, cause, source, retry=False))
    result.notes = [n for n in plan.notes if n not in left_out]
    texts: dict[str, str] = {}
    failures: dict[str, str] = {}
    for job in plan.jobs:  # (kept segments and series names: counted as written, writers.py)
        for seg in job.to_send():
            key = plan.request_key(job, seg)
            hit = cache.get(key)
            if hit is not None and key not in texts:
                texts[key] = hit
                result.cache_hits += 1
    for stored in est.held.values():  # (held back as rejected: not asked again)
        texts.update(stored)
    result.held_unsent = len(est.held)
    answers = Answers(texts, failures)
    needed: dict[str, list[str]] = {}
    jobs_of: dict[str, list[Job]] = {}
    for job in plan.jobs:
        jobs_of.setdefault(job.group, []).append(job)
        keys = needed.setdefault(job.group, [])
        keys.extend(plan.request_key(job, s) for s in job.to_send())
    remaining = [g for g in plan.groups if g in jobs_of]
    pending: list[str] = []

    def flush(cause: str | None = None, *, every: int = WRITE_BATCH) -> None:
        """Write the groups whose segments are all answered, `every` groups at a time (one
        status file write each time). With `cause`: every group, segments without an answer
        get that cause."""
        for name in list(remaining):
            keys = needed[name]
            if cause is not None:
                for key in keys:
                    if key not in texts:
                        failures.setdefault(key, cause)
            elif not all(k in texts or k in failures for k in keys):
                continue
            remaining.remove(name)
            pending.append(name)
        if pending and (len(pending) >= every or cause is not None):
            batch = [(plan.groups[n], jobs_of[n]) for n in pending]
            pending.clear()
            write_groups(plan, batch, answers, result)

    client: DeepL | None = None
    try:
        if est.to_send:
            client = client_factory()  # MissingKeyError: nothing is written
            result.usage = client.usage()  # a bad key stops here, before any file is written
            if result.usage.remaining is not None and est.chars > result.usage.remaining:
                result.notes.append(
                    f"{est.chars:,} characters to send, {result.usage.remaining:,} left in the "
                    "DeepL quota: the run will stop when it runs out (see --max-chars)"
                )
        if on_start is not None:
            on_start(est.chars)
        flush()
        sent_chars = 0
        for spec_name, items in est.to_send.items():
            assert client is not None
            spec = plan.specs[spec_name]
            sender = _Sender(plan, client, cache, result, texts, failures, on_progress)
            by_group: dict[str, list[Item]] = {}
            for item in items:
                by_group.setdefault(item.group, []).append(item)
            for group, group_items in by_group.items():
                context = plan.context(group)
                for batch in plan_batches([i.segment.encoded.xml for i in group_items]):
                    chosen = [group_items[i] for i in batch]
                    if max_chars is not None:
                        room = max_chars - sent_chars
                        fitting: list[Item] = []
                        for item in chosen:
                            if item.segment.encoded.billable > room:
                                break
                            fitting.append(item)
                            room -= item.segment.encoded.billable
                        if len(fitting) < len(chosen):
                            result.budget_reached = True
                        chosen = fitting
                    if chosen:
                        sender.send(spec, chosen, context)
                        sent_chars += sum(i.segment.encoded.billable for i in chosen)
                        flush()
                    if result.budget_reached:
                        break
                if result.budget_reached:
                    break
            if result.budget_reached:
                break
    except MissingKeyError:
        raise
    except DeepLError as exc:
        result.stopped = exc.reason
    except KeyboardInterrupt:
        result.stopped = "interrupted (Ctrl-C)"
    finally:
        if client is not None:
            client.close()
    if result.stopped is not None:
        flush(NOT_SENT_STOPPED)
    elif result.budget_reached:
        flush(NOT_SENT_BUDGET)
    else:
        flush("no answer from DeepL")
    result.held_billed = _billed_for_held(plan, result)
    return result


def _billed_for_held(plan: Plan, result: Result) -> int:
    """Characters billed for segments only units held back as rejected needed (their new
    answer made the rejected draft again): said in the summary, not hidden in the total."""
    held = {h.key for h in result.held}
    if not held or not result.billed_keys:
        return 0
    theirs: set[str] = set()
    others: set[str] = set()
    for job in plan.jobs:
        keys = {plan.request_key(job, s) for s in job.to_send()}
        (theirs if job.key in held else others).update(keys)
    return sum(result.billed_keys.get(k, 0) for k in theirs - others)
