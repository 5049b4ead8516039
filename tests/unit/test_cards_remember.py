"""render/cards.py: the cards a build made remembered in bulk (`remember`: their identities
unpacked in C), checked against the card-by-card rule (uptodate.file_identity of each)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from hypothesis import given, settings
from hypothesis import strategies as st

from bipub import uptodate
from bipub.render import cards
from bipub.write.record import PACKED


def _packed(mtime: int, ctime: int, size: int, ino: int) -> bytes:
    return PACKED.pack(mtime, ctime, size, ino, 0o100644)


def _reference_remember(
    entries: dict[str, tuple[str, Any]], keys: dict[str, str] | None, published: dict[str, bytes]
) -> dict[str, tuple[str, Any]]:
    """`remember` card by card (uptodate.file_identity of each published card)."""
    now: dict[str, tuple[str, Any]] = {}
    for rel, (key, (mtime, _ctime, size, ino)) in entries.items():
        ident = published.get(rel)
        if ident is not None and (keys is None or rel not in keys):
            new = uptodate.file_identity(ident)
            if (new[0], new[2], new[3]) == (mtime, size, ino):
                now[rel] = (key, new)
    for rel, key in (keys or {}).items():
        ident = published.get(rel)
        if ident is not None:
            now[rel] = (key, uptodate.file_identity(ident))
    return now


_RELS = [f"ko/blog/p{n}/card.png" for n in range(6)]


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(_RELS),
        st.tuples(st.sampled_from(["k1", "k2"]), st.tuples(*[st.integers(0, 2)] * 4)),
    ),
    st.none() | st.dictionaries(st.sampled_from(_RELS), st.sampled_from(["k1", "k3"])),
    st.dictionaries(st.sampled_from(_RELS), st.tuples(*[st.integers(0, 2)] * 4)),
)
def test_cards_are_remembered_as_card_by_card(
    entries: dict[str, tuple[str, Any]],
    keys: dict[str, str] | None,
    on_disk: dict[str, tuple[int, int, int, int]],
) -> None:
    published = {rel: _packed(*ident) for rel, ident in on_disk.items()}
    cache = SimpleNamespace(cards={"/site": dict(entries)})
    cards.remember(cast(Any, cache), Path("/site"), keys, published)
    expected = _reference_remember(entries, keys, published)
    assert list(cache.cards["/site"].items()) == list(expected.items())  # (in the same order)
