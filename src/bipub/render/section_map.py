"""Where a reader who switches language lands: the heading at the same place in the other
language's text.

A post's headings pair by position in its languages, as its sections do (load/sections.py:
each heading starts a body unit; translate/anchors.py writes a draft's in-page links so). A
post page carries, for each other language that shows the post, the ids of that page's
headings in order, when it has as many as this page (`sections`); the page's script
(theme/static/reader.js) points the language switcher's link at the heading the reader has
scrolled to. A translation with another number of headings gets no list: the switcher goes to
the top of the page, as it did before.
"""

from __future__ import annotations

from collections.abc import Sequence

from bipub.pair.model import Entry
from bipub.text.headings import heading_ids


def sections(entry: Entry, lang: str, own: Sequence[str]) -> dict[str, object] | None:
    """`{"ids": own, "to": {language: its page's heading ids}}` for the post page of `entry` in
    `lang`, whose headings' ids are `own` (as rendered, in order); None when no other language
    has a page of the post with as many headings (or the page has none)."""
    if not own:
        return None
    to: dict[str, list[str]] = {}
    for code, version in sorted(entry.versions.items()):
        if code == lang or not entry.shown_in(code):
            continue
        theirs = heading_ids(version.doc.body)  # (the text that page shows: its own, or the
        # original's where it is shown untranslated)
        if len(theirs) == len(own):
            to[code] = theirs
    return {"ids": list(own), "to": to} if to else None


def sections_key(entry: Entry, lang: str) -> tuple[object, ...]:
    """What `sections` of the post page in `lang` is made of besides its own text: the texts
    the other languages' pages show (a page's fingerprint takes it: render/html.py)."""
    return tuple(
        (code, version.doc.digest)
        for code, version in sorted(entry.versions.items())
        if code != lang and entry.shown_in(code)
    )
