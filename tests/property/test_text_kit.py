"""The quick-rebuild kit keeps posts.json records and llms lines packed in one string
(src/bipub/quick.py `TextKit`): unpacked, they are the items it was given, whatever they hold."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bipub.quick import ITEM_SEP, TextKit, _pack


@given(st.lists(st.text()))
def test_packed_items_unpack_to_themselves(items: list[str]) -> None:
    assert TextKit("lines", "ko", _pack(items), {}).items == items


def test_an_item_with_the_separator_is_kept_as_a_list() -> None:
    items = ["a", f"b{ITEM_SEP}c"]
    assert _pack(items) == items
    assert _pack([]) == []
    assert isinstance(_pack(["a", "b"]), str)
