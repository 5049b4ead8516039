"""Machine drafts through DeepL (`bipub translate`), for a person to review.

drafts.py        the stage: what to draft, cache and batches, where each draft is written
markdown_xml.py  Markdown ↔ XML, so DeepL never sees code, URLs, HTML, math or syntax as text
deepl_client.py  the only module that imports `deepl`: credentials, limits, faults
cache.py         .bipub-cache/deepl/: every paid answer, saved per request
cv_tree.py       where a drafted CV text goes in a translation cv.yaml
yaml_patch.py    edits YAML in place (comments and order kept)
files.py         atomic writes, Ctrl-C held while a draft and its record are saved
"""
