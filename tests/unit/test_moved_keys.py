"""render/page_plan.py `moved`: the posts whose neighbours moved are found by looking only
between the start and the end the two orders have in common (`_moved_keys`); they must be
those a comparison of every post's neighbours finds."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bipub.render.page_plan import moved


def _every(was: tuple[str, ...], keys: tuple[str, ...]) -> set[str]:
    """Each post's (the one before it, the one after it) compared, post by post."""

    def pairs(ks: tuple[str, ...]) -> dict[str, tuple[str | None, str | None]]:
        return {
            k: (ks[i - 1] if i > 0 else None, ks[i + 1] if i + 1 < len(ks) else None)
            for i, k in enumerate(ks)
        }

    old, new = pairs(was), pairs(keys)
    return {k for k, pair in new.items() if old.get(k) != pair}


_KEYS = st.lists(st.sampled_from([f"k{n}" for n in range(12)]), unique=True, max_size=12)


@given(_KEYS, _KEYS)
def test_the_posts_whose_neighbours_moved(was: list[str], keys: list[str]) -> None:
    found = moved({"ko": tuple(was)}, {"ko": tuple(keys)}, {}, {})
    assert found == {("ko", k) for k in _every(tuple(was), tuple(keys))}


@given(st.lists(st.sampled_from([f"k{n}" for n in range(40)]), unique=True, min_size=1), st.data())
def test_one_post_added_removed_or_moved(was: list[str], data: st.DataObject) -> None:
    """An update's usual change: one post in, out, or elsewhere, in a long order."""
    keys = list(was)
    kind = data.draw(st.sampled_from(["add", "remove", "move"]))
    if kind == "add":
        keys.insert(data.draw(st.integers(0, len(keys))), "new")
    else:
        key = keys.pop(data.draw(st.integers(0, len(keys) - 1)))
        if kind == "move":
            keys.insert(data.draw(st.integers(0, len(keys))), key)
    found = moved({"ko": tuple(was)}, {"ko": tuple(keys)}, {}, {})
    assert found == {("ko", k) for k in _every(tuple(was), tuple(keys))}
