"""Scheduled posts: a post whose publish instant is after the build's "now" is not published
yet, in any language (Hugo's `buildFuture = false`), unless the build is asked to publish
them all (`bipub build --future`, bipub.yaml `outputs.publish_future: true`). A page
(`content/<lang>/pages/`) with a `date:` is scheduled as a post is (session 34: its date was
read and ignored, and a page written ahead was published at once); one without is published.

* The publish instant of a post is its source's `date`: a date-time with offset is that
  instant; a plain `YYYY-MM-DD` is the start of that day in bipub.yaml `time_zone` (default
  +09:00, Korea's: a post dated 2026-05-01 appears at 00:00 in Seoul, whatever zone the
  machine that builds it is set to — a CI runner's is UTC).
* "Now" is SOURCE_DATE_EPOCH when it is set (a reproducible build: the same inputs and epoch
  give the same site), else the clock (`build_now`).
* Whether a post is scheduled is decided once, by pairing (pair/site.py `_pair_group` sets
  `Entry.scheduled`), and read by one rule, pair/model.py `Entry.shown_in`, as `draft: true`
  is: every list, page, feed, the sitemap, JSON API, llms.txt and search go through it.
* What a build decided holds for a `Window` of instants: from the latest publish instant
  that is not after its "now" up to (not including) the earliest one that is. A later build
  whose "now" is outside the window is not up to date (uptodate.py), and pairs again the
  posts whose state changed (pair/memo.py), though no file changed.

This module imports nothing of the build's stages: the up-to-date check reads it first.
"""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from functools import lru_cache

PUBLISH_ALL = math.inf  # the "now" of a build that publishes every post (--future)
OPEN: tuple[float, float] = (-math.inf, math.inf)  # the window of such a build
DEFAULT_ZONE = "+09:00"
_OFFSET = re.compile(r"^([+-])(\d{2}):(\d{2})$")


def source_date_epoch(environ: Mapping[str, str] = os.environ) -> int | None:
    """SOURCE_DATE_EPOCH (reproducible-builds.org): the build's fixed time in whole seconds since
    1970, or None when it is not set. The one reader of it (the scheduled posts' "now", the
    PDFs' dates, the catalogs' dates). Raises ValueError, said as the users see it, if it is
    not a number of seconds a date can have."""
    value = environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not value:
        return None
    try:
        seconds = int(value)
        datetime.fromtimestamp(seconds, tz=UTC)  # (a date: not out of the calendar's range)
    except (ValueError, OverflowError, OSError):
        raise ValueError(
            f"SOURCE_DATE_EPOCH={value!r} is not a number of seconds since 1970"
        ) from None
    return seconds


def build_now(environ: Mapping[str, str] = os.environ) -> float:
    """The build's "now", in seconds since 1970: SOURCE_DATE_EPOCH if set, else the clock.
    Raises ValueError if SOURCE_DATE_EPOCH is not a number of seconds."""
    seconds = source_date_epoch(environ)
    return time.time() if seconds is None else float(seconds)


@lru_cache(maxsize=16)
def zone_of(name: str) -> tzinfo:
    """The zone bipub.yaml `time_zone` names: an offset (`+09:00`, `-05:00`), `UTC` or `Z`,
    or an IANA name (`Asia/Seoul`, `America/New_York`: its offset on each date, summer time
    included). Raises ValueError for anything else."""
    if name in ("UTC", "Z"):
        return UTC
    m = _OFFSET.match(name)
    if m:
        hours, minutes = int(m.group(2)), int(m.group(3))
        if hours > 23 or minutes > 59:
            raise ValueError(f"{name!r}: the offset is out of range")
        sign = -1 if m.group(1) == "-" else 1
        return timezone(sign * timedelta(hours=hours, minutes=minutes))
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(
            f"{name!r} is not a time zone: write an offset such as '+09:00', 'UTC', "
            "or an IANA name such as 'Asia/Seoul'"
        ) from None


def publish_instant(value: date, zone: tzinfo) -> float:
    """When a post dated `value` is published, in seconds since 1970: a date-time's instant;
    a plain date's day begun in `zone`."""
    if isinstance(value, datetime):
        return value.timestamp()
    return datetime(value.year, value.month, value.day, tzinfo=zone).timestamp()


def is_scheduled(instant: float | None, now: float) -> bool:
    """Whether a post or page published at `instant` is not yet published at `now` (one
    without a publish instant, no `date:`, never is)."""
    return instant is not None and instant > now


def window(instants: Iterable[float], now: float) -> tuple[float, float]:
    """The instants between which every post of `instants` is published or scheduled as at
    `now`: (the latest not after `now`, the earliest after it); -inf and inf where there is
    none. A build that publishes every post (`PUBLISH_ALL`) holds at any time (`OPEN`)."""
    if now == PUBLISH_ALL:
        return OPEN
    since, until = -math.inf, math.inf
    for at in instants:
        if at > now:
            until = min(until, at)
        else:
            since = max(since, at)
    return (since, until)


def holds(found: tuple[float, float] | None, now: float) -> bool:
    """Whether every post is published or scheduled at `now` as where `found` was worked out
    (`window`; None: not known)."""
    return found is not None and found[0] <= now < found[1]


def when(instant: float, zone: tzinfo) -> str:
    """An instant as the summary says it: in `zone`, to the minute (2026-05-01 00:00 +09:00)."""
    moment = datetime.fromtimestamp(instant, zone)
    offset = moment.strftime("%z")
    return f"{moment:%Y-%m-%d %H:%M} {offset[:3]}:{offset[3:5]}"
