"""UI string drafts filled into a gettext catalog, and those the catalog no longer wants.

The catalog is read again when its drafts are written: an entry filled in (by hand) since the
plan was made, or gone from the catalog, is left as it is. Such a draft is not written, so it
is not counted as drafted: it is said (translate/outcome.py `Skipped`) with its reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

    from bipub.translate.plan import Job

FILLED = "filled in by hand during the run (kept)"
GONE = "no longer in the catalog (kept as it is)"


class _Draft(Protocol):  # (translate/writers.py `_Draft`)
    @property
    def job(self) -> Job: ...
    @property
    def text(self) -> str: ...


D = TypeVar("D", bound=_Draft)


def fill(catalog: Catalog, drafts: Sequence[D]) -> list[tuple[D, str]]:
    """Put each draft into its empty msgstr, marked fuzzy; the drafts not put in, with why."""
    plurals = max(catalog.num_plurals, 1)
    skipped: list[tuple[D, str]] = []
    for d in drafts:
        if d.job.po is None:
            msg = catalog.get(d.job.unit.source)
            if msg is None or msg.pluralizable:
                skipped.append((d, GONE))
                continue
            if msg.string:
                skipped.append((d, FILLED))
                continue
            msg.string = d.text
        else:
            msgid, indexes = d.job.po
            msg = catalog.get(msgid)
            if msg is None or not msg.pluralizable:
                skipped.append((d, GONE))
                continue
            strings = list(msg.string) if isinstance(msg.string, tuple | list) else []
            strings += [""] * (plurals - len(strings))
            if any(strings[i] for i in indexes):
                skipped.append((d, FILLED))
                continue
            for i in indexes:
                strings[i] = d.text
            msg.string = tuple(strings)
        msg.flags.add("fuzzy")
    return skipped
