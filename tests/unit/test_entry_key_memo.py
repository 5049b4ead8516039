"""render/page_plan.py EntryKeyMemo: an entry's key is taken from the last build only when the
entry is the very object it was, what it takes from the rest of the site (`around`) is equal
and its review states are (worked out again when the status files changed). Each case below is
one way a stale key would be returned; tests/integration/test_incremental_pairing.py compares
the memo's keys with keys worked out anew after real edits."""

from __future__ import annotations

from bipub.render.page_plan import EntryKeyMemo


class _Entry:  # (identity is what the memo compares)
    pass


def _never() -> object:
    raise AssertionError("review states worked out again with the same status files")


def _memo(entry: object, around: object, review: object, status: object) -> EntryKeyMemo:
    memo = EntryKeyMemo()
    memo.start(status)
    got = memo.get(("posts", "a"), entry, around, lambda: review)
    assert got == (review, None)  # nothing known yet
    memo.keep(("posts", "a"), (entry, "facts", around, review, "KEY"))
    memo.done()
    return memo


def test_the_same_entry_and_inputs_take_the_last_key() -> None:
    entry = _Entry()
    memo = _memo(entry, ("tags", "x"), ("en", ()), {"en": {}})
    memo.start({"en": {}})
    assert memo.facts(("posts", "a"), entry) == "facts"
    assert memo.get(("posts", "a"), entry, ("tags", "x"), _never) == (("en", ()), "KEY")
    assert memo.reused == 1


def test_another_entry_object_is_worked_out_again() -> None:
    memo = _memo(_Entry(), ("tags", "x"), (), {})
    memo.start({})
    other = _Entry()
    assert memo.facts(("posts", "a"), other) is None
    assert memo.get(("posts", "a"), other, ("tags", "x"), lambda: ()) == ((), None)


def test_what_it_takes_from_the_site_changed() -> None:
    entry = _Entry()
    memo = _memo(entry, ("tags", "x"), (), {})
    memo.start({})  # e.g. a tag's most used spelling changed on other posts
    assert memo.get(("posts", "a"), entry, ("tags", "X"), lambda: ()) == ((), None)


def test_status_files_changed_review_states_worked_out_again() -> None:
    entry = _Entry()
    memo = _memo(entry, "around", ("en", ("draft",)), {"en": {"k": "draft"}})
    memo.start({"en": {"k": "reviewed"}})
    assert not memo.same_status
    got = memo.get(("posts", "a"), entry, "around", lambda: ("en", ("reviewed",)))
    assert got == (("en", ("reviewed",)), None)
    # a status change that leaves this entry's states as they were keeps its key
    memo = _memo(entry, "around", ("en", ("draft",)), {"en": {"k": "draft"}})
    memo.start({"en": {"k": "draft", "other": "reviewed"}})
    assert memo.get(("posts", "a"), entry, "around", lambda: ("en", ("draft",))) == (
        ("en", ("draft",)),
        "KEY",
    )


def test_done_forgets_entries_not_kept() -> None:
    entry = _Entry()
    memo = _memo(entry, "around", (), {})
    memo.start({})
    memo.done()  # the entry is gone from the site
    memo.start({})
    assert memo.facts(("posts", "a"), entry) is None
