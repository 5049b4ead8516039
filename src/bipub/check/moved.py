"""Body sections whose translation was made from another section of the same post or page.

A post's sections pair by position (`posts/x:body#2` is the source's third section and the
translation's third), so a section inserted in the source (or removed from it) moves every later
source section to another key while the translation keeps its sections where they were: until
the translation is put back in step, `body#3`'s translation is the one made from the section now
at `body#4`. Its status record still names the source it was made from, and that source is now
another unit's of the same document. `bipub check` says so at the unit instead of showing a
stale diff between two different sections (check/parity.py), and `bipub review approve` refuses
to record that text as the translation of this section (check/review.py), unless it adopts a
waiting draft: `bipub translate` drafts each moved section with the wording it had
(translate/memory.py), and adopting those drafts puts the sections back in step.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from bipub.pair.status import StatusRecord
from bipub.pair.units import Unit, text_hash

_BODY = re.compile(r"^(.+):body#(\d+)$")


@dataclass(frozen=True)
class Moved:
    """A body unit whose present translation is recorded as made from the source section now
    at another index of its document (`made_from`)."""

    key: str
    index: int
    made_from: int
    machine: bool  # the recorded translation is an unreviewed machine draft

    @property
    def document(self) -> str:
        return self.key.rsplit(":", 1)[0]


def body_index(key: str) -> tuple[str, int] | None:
    """('posts/x', 2) for 'posts/x:body#2'; None for any other key."""
    found = _BODY.match(key)
    return (found.group(1), int(found.group(2))) if found else None


def moved_section(
    units: Mapping[tuple[str, str], Unit], lang: str, key: str, rec: StatusRecord | None
) -> Moved | None:
    """Whether the `lang` translation of body unit `key` (of `units`, by (lang, NFC key)) is,
    unchanged since its record `rec` was written, the translation of the source section now at
    another index of the same document (the nearest, if several have that text). A translation
    edited since is a person's text for this section, not a moved one."""
    where = body_index(key)
    unit = units.get((lang, key))
    if where is None or rec is None or unit is None or unit.translation is None:
        return None
    if rec.source_hash == unit.source_hash or rec.translation_hash not in (
        None,
        unit.translation_hash,
    ):
        return None
    document, index = where
    found: list[int] = []
    at = 0
    while (other := units.get((lang, f"{document}:body#{at}"))) is not None:
        if at != index and other.source_hash == rec.source_hash:
            found.append(at)
        at += 1
    if not found:
        return None
    nearest = min(found, key=lambda j: (abs(j - index), j))
    return Moved(key, index, nearest, rec.state == "draft")


def moved_message(
    moved: Moved,
    lang: str,
    source_lang: str,
    rec: StatusRecord,
    unit: Unit,
    *,
    approving: bool,
    interactive: bool = False,
) -> str:
    """What to say of a moved unit: where its translation belongs and how to put the sections
    back in step (`approving`: why approve refuses it; `interactive`: refused at `bipub review
    -i`'s prompt, where a waiting draft is adopted by its `[a]dopt` choice, not by a flag)."""
    what = "machine draft" if moved.machine else "reviewed translation"
    how = (
        f"a section was inserted before it in the {source_lang} source"
        if moved.made_from > moved.index
        else f"a section before it was removed from the {source_lang} source"
    )
    said = (
        f"this {lang} text is the {what} of the {source_lang} section now at "
        f"{moved.document}:body#{moved.made_from}, not of this one ({how}; sections pair by "
        "position)"
    )
    waiting = rec.draft is not None and rec.draft_source_hash == text_hash(unit.source)
    if approving:
        said += "; approving it would record it as the translation of another section"
    step = "to put the sections back in step"
    if waiting and approving and interactive:
        fix = (
            "choose [a]dopt the draft (not [k]eep current) to adopt its waiting draft, and adopt "
            f"those of the sections after it, {step}"
        )
    elif waiting and approving:
        fix = (
            "approve it without --keep-current to adopt its waiting draft, and adopt those of "
            f"the sections after it, {step}"
        )
    elif waiting:
        fix = (
            f"adopt the waiting drafts (bipub review approve {moved.key} and the sections after "
            f"it) {step}"
        )
    else:
        fix = (
            "run bipub translate (it drafts the moved sections with the wording they had), then "
            f"adopt the waiting drafts (bipub review approve {moved.key} and the sections after "
            f"it) {step}, or edit the translation"
        )
    return f"{said}: {fix}"
