"""table_diff.changes (what the files saved as deltas write: cache.py `save_delta`) is the
same key-by-key comparison whether or not the two tables hold the same keys in the same order
(its fast path), and applied to the old table gives the new one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bipub.table_diff import changes, sample_differs

KEYS = st.sampled_from([f"k{i}" for i in range(12)])
VALUES = st.one_of(st.integers(0, 3), st.tuples(st.text(max_size=2), st.integers(0, 2)))
TABLES = st.dictionaries(KEYS, VALUES, max_size=12)


def _slow(
    was: dict[object, object], now: dict[object, object]
) -> tuple[dict[object, object], set[object]]:
    return {k: v for k, v in now.items() if k not in was or was[k] != v}, set(was) - set(now)


@given(TABLES, TABLES, st.booleans())
def test_changes_are_those_of_a_key_by_key_comparison(
    was: dict[object, object], now: dict[object, object], same_keys: bool
) -> None:
    if same_keys:  # (the fast path: the same keys in the same order, some values changed)
        now = {k: now.get(k, v) for k, v in was.items()}
    changed, gone = changes(was, now)
    assert (changed, set(gone)) == _slow(was, now)
    applied = {k: v for k, v in was.items() if k not in gone}
    applied.update(changed)
    assert applied == now
    assert 0 <= sample_differs(was, now) <= len(now)


@given(TABLES, st.sets(KEYS, max_size=4), st.sets(KEYS, max_size=2))
def test_rows_written_again_at_the_end_and_rows_gone_are_found(
    was: dict[object, object], moved: set[object], gone: set[object]
) -> None:
    """A record's hashes of the files written again move to the end of their table (write/
    record.py `_changed_record`): the same keys in another order, some rows gone."""
    now = {k: v for k, v in was.items() if k not in moved and k not in gone}
    now.update((k, ("again", 1)) for k in moved if k not in gone)
    changed, left = changes(was, now)
    assert (changed, set(left)) == _slow(was, now)
