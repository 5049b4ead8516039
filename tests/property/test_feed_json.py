"""A JSON Feed joined from its items' texts (render/feeds.json_feed_join, which lets a build
keep each item's text) is byte for byte what json.dumps of the whole feed writes."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from bipub.render.feeds import FeedItem, FeedParts, json_feed_join, json_item, json_item_text

texts = st.text(max_size=12)  # any character: line breaks, quotes, Hangul, controls
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
    joined = json_feed_join(parts, [json_item_text(e) for e in entries])
    assert joined == _reference(parts, entries)
    json.loads(joined)  # (and valid JSON)
