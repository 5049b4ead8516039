"""pair/model.py post_neighbours: a post's neighbours found alone (where its order key puts
it, else by its key) are those of the table of every post's (`neighbour_table`, which the
renderer makes once it is asked for many: render/page_views.py `neighbours`)."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from typing import Any, cast

from bipub.pair.model import Entry, neighbour_table, post_neighbours


@dataclass(eq=False)
class _Post:  # (what the two read of an Entry: its key and its order key)
    key: str
    order_key: tuple[dt.date, int, float, str]


def _posts(n: int, rng: random.Random) -> list[Any]:
    days = [dt.date(2024, 1, 1) + dt.timedelta(days=rng.randrange(40)) for _ in range(n)]
    made = [
        _Post(f"p{i:03d}", (day, rng.choice((0, 0, 1)), float("-inf"), f"p{i:03d}"))
        for i, day in enumerate(days)
    ]
    return sorted(made, key=lambda p: p.order_key, reverse=True)  # (as Site.posts sorts)


def test_alone_as_in_the_table() -> None:
    rng = random.Random(3)
    for n in (0, 1, 2, 3, 50):
        posts = _posts(n, rng)
        table = neighbour_table(cast(list[Entry], posts))
        for post in posts:
            got = post_neighbours(cast(list[Entry], posts), cast(Entry, post))
            assert got == table[post.key]
        gone = _Post("absent", (dt.date(2024, 1, 20), 0, float("-inf"), "absent"))
        assert post_neighbours(cast(list[Entry], posts), cast(Entry, gone)) == (None, None)


def test_another_object_of_the_same_key_is_found_by_its_key() -> None:
    posts = _posts(20, random.Random(5))
    table = neighbour_table(cast(list[Entry], posts))
    for post in posts:  # (its order key another one's: found by its key, as the table finds it)
        stale = _Post(post.key, (dt.date(1999, 1, 1), 0, float("-inf"), post.key))
        assert post_neighbours(cast(list[Entry], posts), cast(Entry, stale)) == table[post.key]
