"""llms_updated.updated (the header's date of the latest content): the latest date or update of the
posts by its instant, whether they give plain dates only (compared as dates) or date-times
with offsets too."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, timezone
from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bipub.render.llms_updated import updated

days = st.dates(min_value=date(2000, 1, 1), max_value=date(2030, 12, 31))
offsets = st.integers(-14, 14).map(lambda h: timezone(timedelta(hours=h)))
instants = st.builds(lambda d, t, tz: datetime.combine(d, t, tzinfo=tz), days, st.times(), offsets)
when = st.one_of(days, instants)


def _post(day: Any, up: Any) -> SimpleNamespace:
    plain = day.date() if isinstance(day, datetime) else day
    return SimpleNamespace(date=plain, published_at=day, modified_at=up or day)


def _reference(posts: list[SimpleNamespace]) -> date | None:
    def instant(d: date) -> datetime:
        return d if isinstance(d, datetime) else datetime.combine(d, time(0, 0), tzinfo=UTC)

    found = [p.modified_at or p.published_at for p in posts if p.date is not None]
    if not found:
        return None
    latest = max(found, key=instant)
    return latest.date() if isinstance(latest, datetime) else latest


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(when, st.one_of(st.none(), when)), max_size=8), st.booleans())
def test_the_latest_content_is_the_latest_instant(
    given_posts: list[tuple[Any, Any]], plain_only: bool
) -> None:
    posts = [_post(d, u) for d, u in given_posts]
    if plain_only:
        posts = [_post(_day(d), _day(u) if u else None) for d, u in given_posts]
    assert updated(posts) == _reference(posts)


def _day(d: Any) -> date:
    return d.date() if isinstance(d, datetime) else d
