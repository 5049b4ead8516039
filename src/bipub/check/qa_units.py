"""The units of QA rule `numbers` (bipub.check.qa_numbers): time and data size after a number.

A number's unit is read when it follows the digits (a space at most between): time (`ns`, `µs`/
`us`, `ms`/`msec`, `s`/`sec`, `min`, `h`/`hr`, the words "seconds", "minutes", "hours", …, and
`나노초`, `마이크로초`, `밀리초`, `초`, `분`, `시간`) and data size (`kB`/`KB`, `MB`, `GB`, `TB`,
`PB`, `KiB` … `PiB`, "bytes", "gigabytes", …, `바이트`, `킬로바이트` … `페타바이트`; bits: `Mb`,
`Gb`, `Gbps`, `kbps`, `Gbit`, "bits", `비트`, `기가비트`; a `/s` after it is not read, so `GB/s`
is `GB`). Each unit has a canonical name (`초` = `s` = "seconds", `기가바이트` = `GB`).

Not read, on purpose: a bare `B` (`64B` is 64 billion, bipub.check.qa_numbers; `64 B` is left
alone too), lowercase `kb`/`mb`/`gb` (bits or bytes, as the writer pleases), `m` (metres, not
minutes), an `s` glued to a decade (`1990s`, `'90s`), `초과`/`초반`, `3분의 1`, `3분기`, `4분할`.

Two uses (`check_numbers`):

* a conversion keeps the number's quantity (`0.5초` = `500 ms`, `1 GB` = `1,024 MB`): such a
  pair is not a changed number; nor is a duration in two or more units said in one (`2시간 30분`
  = `2.5 hours` = `150 minutes`: `compound`). A decimal-named unit (`KB` … `PB`, and the bits) may mean 1000
  or 1024 of the next smaller (writers mix them); a binary one (`KiB` … `PiB`) only 1024.
* the same number with another unit of its dimension (`0.5초` / `0.5 ms`, `10GB` / `10MB`,
  `80GB` / `80 GiB`, `10 Gbps` / `10 GB/s`) is a changed number (`changed_units`), compared as
  multisets of (number, unit): a unit on one side only (`10GB와 80GB` / "10 and 80 GB") is not.
  GB and GiB are different units: the same number in both is said, even though a conversion may
  take 1 GB for 1 GiB.
"""

from __future__ import annotations

import re
from collections import Counter
from decimal import Decimal
from itertools import pairwise

#: A unit of time or data size just after a number (see the module docstring).
_UNIT = re.compile(
    r"\s?(?:(?P<ko>나노초|마이크로초|밀리초|초(?![과반기])|분(?![의기할석야산류])|시간"
    r"|(?:킬로|메가|기가|테라|페타)?(?:바이트|비트))"
    r"|(?P<en>ms|msec|[µμu]s|ns|s|secs?|mins?|h|hrs?"
    r"|(?i:milli|micro|nano)?(?i:seconds?)|(?i:minutes?|hours?)"
    r"|[kKMGTP]B|[KMGTP]iB|[KMGT]b(?:ps)?|kbps|[kKMGT]bits?"
    r"|(?i:(?:kilo|mega|giga|tera|peta)?(?:bytes?|bits?)))(?![A-Za-z]))"
)
#: A time unit's seconds and name: the first whose spelling the unit starts with.
_SECONDS = (
    *(("밀리", "0.001", "ms"), ("마이크로", "0.000001", "µs"), ("나노", "1e-9", "ns")),
    *(("분", "60", "min"), ("시간", "3600", "h"), ("초", "1", "s")),
    *(("ms", "0.001", "ms"), ("milli", "0.001", "ms"), ("µs", "0.000001", "µs")),
    *(("μs", "0.000001", "µs"), ("us", "0.000001", "µs"), ("micro", "0.000001", "µs")),
    *(("ns", "1e-9", "ns"), ("nano", "1e-9", "ns"), ("min", "60", "min"), ("h", "3600", "h")),
    ("s", "1", "s"),
)
_TIME = {name: Decimal(seconds) for _, seconds, name in _SECONDS}
_PREFIXES = (
    *(("킬로", "K"), ("메가", "M"), ("기가", "G"), ("테라", "T"), ("페타", "P")),
    *(("kilo", "K"), ("mega", "M"), ("giga", "G"), ("tera", "T"), ("peta", "P")),
)
_WORDS = re.compile(
    r"(?:kilo|mega|giga|tera|peta|킬로|메가|기가|테라|페타)?(?:bytes?|bits?|바이트|비트)"
)
_PLAIN = re.compile(r"-?\d+(?:\.\d+)?")


def _name(unit: str) -> str:
    """The canonical name of a unit `_UNIT` read: `s`, `ms`, `min`, `h`, …; `B`, `KB`, `GiB`,
    `b` (bits), `Gb`, …"""
    low = unit.lower()
    if _WORDS.fullmatch(low):
        prefix = next((p for word, p in _PREFIXES if low.startswith(word)), "")
        return prefix + ("B" if low.endswith(("byte", "bytes", "바이트")) else "b")
    if unit[-1] in "Bb" or unit.endswith(("bps", "bit", "bits")):
        binary = unit[1] == "i"
        return unit[0].upper() + ("iB" if binary else unit[1])
    return next(name for spelled, _, name in _SECONDS if low.startswith(spelled))


def unit_at(prose: str, start: int, end: int) -> tuple[str, int] | None:
    """The canonical name and the end of a unit of time or data size just after the number at
    `prose[start:end]`, if any (not the `s` of a decade: `1990s`, `'90s`)."""
    m = _UNIT.match(prose, end)
    if m is None:
        return None
    unit = m.group("ko") or m.group("en")
    decade = (start and prose[start - 1] in "'’") or re.fullmatch(r"\d{3}0", prose[start:end])
    if unit == "s" and m.start("en") == end and decade:
        return None
    return _name(unit), m.end()


def _quantities(token: str, unit: str) -> frozenset[tuple[str, Decimal]]:
    """What `token` `unit`s may measure: (dimension, seconds or bytes)."""
    value = Decimal(token)
    if unit in _TIME:
        return frozenset([("time", value * _TIME[unit])])
    exponent = "KMGTP".find(unit[0]) + 1  # (0 for `B`, `b`)
    per = Decimal(1) if unit.endswith("B") else Decimal("0.125")
    bases = (1024,) if "i" in unit else (1000, 1024)
    return frozenset(("data", value * per * base**exponent) for base in bases)


def measurable(token: str) -> bool:
    """Whether a number's token can have a unit (a plain number: not `3%`, `1/2`, `2×`)."""
    return _PLAIN.fullmatch(token) is not None


def same_quantity(a: tuple[str, str], b: tuple[str, str]) -> bool:
    """Whether two (number, unit) may measure the same (`0.5`, `s` / `500`, `ms`)."""
    return not _quantities(*a).isdisjoint(_quantities(*b))


def _dimension(unit: str) -> str:
    return "time" if unit in _TIME else "data"


def converted(
    lost: Counter[str],
    added: Counter[str],
    ours: Counter[tuple[str, str]],
    theirs: Counter[tuple[str, str]],
) -> None:
    """Take out of `lost` and `added` the numbers said in two units (0.5초 / 500 ms)."""
    left = Counter(theirs)
    for (token, unit), n in sorted(ours.items()):
        for other in sorted(left):
            while (
                n
                and left[other]
                and lost[token]
                and added[other[0]]
                and same_quantity((token, unit), other)
            ):
                n, left[other] = n - 1, left[other] - 1
                lost[token] -= 1
                added[other[0]] -= 1


def changed_units(
    ours: Counter[tuple[str, str]], theirs: Counter[tuple[str, str]]
) -> tuple[Counter[tuple[str, str]], Counter[tuple[str, str]]]:
    """The (number, unit) of each side whose number the other side has with another unit of
    its dimension, once the ones on both sides and the conversions are taken out. The number
    is compared by its value: `3.0 ms` / `3 s` is a changed unit."""
    a, b = ours - theirs, theirs - ours
    for x in sorted(a):  # (a conversion: another number, the same quantity)
        for y in sorted(b):
            while a[x] and b[y] and x[0] != y[0] and same_quantity(x, y):
                a[x], b[y] = a[x] - 1, b[y] - 1
    was: Counter[tuple[str, str]] = Counter()
    now: Counter[tuple[str, str]] = Counter()
    for x in sorted(a):
        for y in sorted(b):
            while (
                a[x]
                and b[y]
                and Decimal(x[0]) == Decimal(y[0])
                and _dimension(x[1]) == _dimension(y[1])
            ):
                a[x], b[y] = a[x] - 1, b[y] - 1
                was[x] += 1
                now[y] += 1
    return was, now


def compound(parts: list[tuple[str, str]]) -> tuple[str, str] | None:
    """A duration written in two or more units, the largest first (`2시간 30분`, `1 h 2 min 3 s`):
    its sum in the smallest (`150`, `min`); None if they are not that."""
    if len(parts) < 2 or any(u not in _TIME or t.startswith("-") for t, u in parts):
        return None
    if any(_TIME[a] <= _TIME[b] for (_, a), (_, b) in pairwise(parts)):
        return None
    smallest = parts[-1][1]
    total = sum(Decimal(t) * _TIME[u] for t, u in parts) / _TIME[smallest]
    return format(total.normalize(), "f"), smallest


def compounds_converted(
    lost: Counter[str],
    added: Counter[str],
    compounds: tuple[tuple[tuple[str, ...], tuple[str, str]], ...],
    theirs: Counter[tuple[str, str]],
) -> None:
    """Take out of `lost` the parts of each duration in two units (`2시간 30분`) and out of
    `added` the number that says it in one on the other side (`2.5 hours`, `150 minutes`)."""
    for parts, total in compounds:
        need = Counter(parts)
        if any(lost[p] < n for p, n in need.items()):
            continue
        match = next((m for m in sorted(theirs) if added[m[0]] and same_quantity(total, m)), None)
        if match is not None:
            lost.subtract(need)
            added[match[0]] -= 1
