"""The date of a language's latest content, which the header of llms.txt and llms-full.txt
shows (render/llms.py `header`): kept by its posts' keys in a build (render/parts.py
`Parts.updated`), worked out here."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, date, datetime, time

from bipub.pair.site import Entry

Latest = Callable[[Sequence[Entry]], date | None]  # `updated`, or one that keeps it


def _instant(d: date) -> datetime:
    return d if isinstance(d, datetime) else datetime.combine(d, time(0, 0), tzinfo=UTC)


def updated(posts: Iterable[Entry]) -> date | None:
    """The date of the latest content: the latest date or update of the posts, as the Atom
    feed's `updated` (a reproducible date: no clock is read). None without posts."""
    days = [e.modified_at or e.published_at for e in posts if e.date is not None]
    if not days:
        return None
    plain = all(type(d) is date for d in days)  # (no date-time: their order is the instants')
    latest = max(days) if plain else max(days, key=_instant)
    return latest.date() if isinstance(latest, datetime) else latest
