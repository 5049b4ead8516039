"""A feed joined from its entries' bytes (render/feeds.py `entry_bytes`, which lets a build keep
each entry and encode it once, whichever feeds show it) is byte for byte what encoding the whole
feed writes: the JSON Feed what json.dumps of the whole feed writes, the Atom feed its whole
text encoded as it was (a lone surrogate written as a character reference)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from bipub.render.feeds import (
    FeedItem,
    FeedParts,
    _xml_bytes,
    atom_entry,
    entry_bytes,
    feed_xml,
    json_feed_join,
    json_item,
)

texts = st.text(max_size=12)  # any character: line breaks, quotes, Hangul, controls
# (and a lone surrogate, which UTF-8 cannot hold: the Atom feed writes a character reference;
# the load stage lets none through, load/yaml_strict.py, but the Atom feed is made for it)
any_texts = st.text(st.one_of(st.characters(), st.just("\udc80")), max_size=12)
items = st.builds(
    FeedItem,
    rel=texts,
    lang=texts,
    title=texts,
    link=texts,
    published=texts,
    updated=texts,
    summary=st.one_of(st.none(), texts),
    tags=st.lists(texts, max_size=3).map(tuple),
    state=st.sampled_from(["source", "translated", "draft", "stale", "missing"]),
    source_lang=texts,
)


def _reference(parts: FeedParts, entries: list[dict[str, object]]) -> bytes:
    """The feed as json.dumps writes it whole (what feeds.json_feed wrote before the join)."""
    feed: dict[str, object] = {
        "version": "https://jsonfeed.org/version/1.1",
        "title": parts.title,
        "home_page_url": parts.html_href,
        "feed_url": parts.json_href,
    }
    if parts.subtitle:
        feed["description"] = parts.subtitle
    feed["language"] = parts.lang
    feed["authors"] = [{"name": parts.author}]
    feed["items"] = entries
    return (json.dumps(feed, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


_END = b"\n</feed>\n"


def _atom_reference(parts: FeedParts, entries: list[str]) -> bytes:
    """The Atom feed with `entries` (atom_entry's texts) encoded whole, as one text, between
    its head and its end as the feed without entries has them (the head's own encoding: the
    pieces property below)."""
    empty = feed_xml(parts, [])
    assert empty.endswith(_END)
    return empty[: -len(_END)] + "".join(entries).encode("utf-8", "xmlcharrefreplace") + _END


@settings(max_examples=300, deadline=None)
@given(
    texts,
    st.one_of(st.none(), texts),
    texts,
    st.lists(st.tuples(items, texts, texts), max_size=4),
)
def test_joined_feed_is_json_dumps_of_the_whole(
    title: str, subtitle: str | None, author: str, shown: list[tuple[FeedItem, str, str]]
) -> None:
    parts = FeedParts("ko", title, subtitle, "id", "self", "html", "now", author, None, (), "j")
    entries = [json_item(it, body, note) for it, body, note in shown]
    joined = json_feed_join(parts, [entry_bytes(it, body, note)[1] for it, body, note in shown])
    assert joined == _reference(parts, entries)
    json.loads(joined)  # (and valid JSON)


@settings(max_examples=300, deadline=None)
@given(
    any_texts,
    st.one_of(st.none(), any_texts),
    any_texts,
    st.one_of(st.none(), any_texts),
    st.lists(st.tuples(items, texts, texts), max_size=4),
)
def test_joined_atom_feed_is_its_whole_text_encoded(
    title: str,
    subtitle: str | None,
    author: str,
    email: str | None,
    shown: list[tuple[FeedItem, str, str]],
) -> None:
    parts = FeedParts("ko", title, subtitle, "id", "self", "html", "now", author, email, (), "j")
    texts_of = [atom_entry(it, body, note) for it, body, note in shown]
    joined = feed_xml(parts, [entry_bytes(it, body, note)[0] for it, body, note in shown])
    assert joined == _atom_reference(parts, texts_of)


@settings(max_examples=300, deadline=None)
@given(any_texts, any_texts)
def test_atom_text_encoded_in_pieces_is_the_whole_encoded(a: str, b: str) -> None:
    assert _xml_bytes(a) + _xml_bytes(b) == _xml_bytes(a + b)
