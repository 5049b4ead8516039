"""Machine drafts through DeepL (`bipub translate`), for a person to review.

drafts.py          the stage's public interface (make_plan, estimate, run, Result)
plan.py            what to draft: units, their segments, request specs
cost.py            what a plan would send and bill (after the cache and de-duplication)
runner.py          the run loop: requests per context group, cache, faults, Ctrl-C
writers.py         each draft filled into its skeleton, checked (check/qa.py unit_problems,
                   as `bipub check` checks a translation), written with its record
blocked.py         why a body section cannot be appended (a section before it not written)
outcome.py         what a run did: drafted, not written (and why), findings, billing
segments.py        a unit's Markdown as a local skeleton + one segment per block of prose
markdown_xml.py    one segment's inline Markdown ↔ XML; every loss reported
markdown_inline.py the inline scanner (code, URLs, HTML, math, emphasis, links)
deepl_client.py    the only module that imports `deepl`: credentials, limits, faults
cache.py           .bipub-cache/deepl/: every paid answer, per segment
cv_tree.py         where a drafted CV text goes in a translation cv.yaml
yaml_patch.py      edits YAML in place (comments and order kept)
files.py           atomic writes, Ctrl-C held while a draft and its record are saved
"""
