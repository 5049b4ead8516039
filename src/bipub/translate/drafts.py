"""The `translate` stage: draft every missing or stale unit of a language through DeepL.

    plan = make_plan(root, "en", only=["posts/"])   # read everything, decide what to draft
    est = estimate(plan)                             # what would be sent (nothing is)
    result = run(plan, client_factory)               # send, save, write drafts

The stage in three parts: plan.py (what to draft, its segments; cost.py: its cost), runner.py (requests,
cache, faults), writers.py (each draft filled into its skeleton, checked and written, with its
status record). See those modules; this one names the stage's public interface.

Where drafts go:
* a post or page missing in the target language → a new file with the translated title,
  description, series and body, and no shared front matter (the translation takes it from
  its source; `key` is copied when the source has one, since pairing needs it);
* a missing field or body section of an existing translation → filled in; a stale unit whose
  recorded translation is an unedited machine draft → replaced;
* CV units → the target cv.yaml, edited in place (comments and order kept; see yaml_patch);
* UI strings → msgstr in locales/<lang>/LC_MESSAGES/messages.po, marked fuzzy;
* a reviewed translation (or a human or hand-edited one) is never overwritten: the new draft
  goes into the status record's `draft` field and the content file stays as it is.
Every draft is recorded in status/<lang>.yaml (state draft, origin machine, engine deepl, the
source text and hash, options, glossary, QA codes) and checked like `bipub check` checks
translations; a draft with findings is still written and its findings are reported.
"""

from __future__ import annotations

from bipub.translate.cost import Estimate, FileCost, estimate
from bipub.translate.doc_edit import NotWritable as _NotWritten
from bipub.translate.outcome import NotWritten, Problem, Result
from bipub.translate.plan import Group, Job, Plan, make_plan
from bipub.translate.runner import ClientFactory, run
from bipub.translate.writers import _cv_text, _doc_text, _Draft

# (_Draft, _doc_text, _cv_text, _NotWritten: the document writers translate/review_edits.py
# of the review loop reuses, from the time they lived here)

__all__ = [
    "ClientFactory",
    "Estimate",
    "FileCost",
    "Group",
    "Job",
    "NotWritten",
    "Plan",
    "Problem",
    "Result",
    "_Draft",
    "_NotWritten",
    "_cv_text",
    "_doc_text",
    "estimate",
    "make_plan",
    "run",
]
