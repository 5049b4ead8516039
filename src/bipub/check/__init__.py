"""`bipub check` and `bipub review`: is every unit translated, current, reviewed and sound?

run.py        load → pair → parity → QA → severity (`analyze`); renders nothing
cached.py     `run_check` / `CheckRun`: the check with its result cache (a warm check reads one file)
result.py     `CheckResult`: findings, ignored findings, coverage
coverage.py   where each unit stands (reviewed, unreviewed, untranslated, failing QA, …), counts
parity.py     state findings: missing, orphan, untranslated, stale, draft, edited; UI catalogs
moved.py      a body section whose translation was made from another section (one inserted before it)
qa.py         QA of a translation against its source, one small function per finding code
glossary.py   glossary.yaml: term pairs and do-not-translate terms
severity.py   default severities, `check:` in bipub.yaml, inline ignores, --strict
findings.py   the Finding record and its JSON shape (findings.schema.json)
report.py     text, json, github and html output
review.py     the reviewer's workflow: queue, approve, reject, prune (status files)
"""
