"""The API's JSON writer (render/json_api.dumps) writes exactly what json.dumps(indent=2) does."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bipub.render.json_api import (
    PostApiEntry,
    StatusApiEntry,
    dump_record,
    dumps,
    join_encoded,
    join_records,
)

keys = st.text(min_size=0, max_size=8)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-(10**20), 10**20), st.text(max_size=30))
values = st.one_of(scalars, st.lists(st.text(max_size=10), max_size=4))
records = st.dictionaries(keys, values, max_size=6)
anything = st.recursive(
    st.one_of(scalars, st.floats(allow_nan=False)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(keys, inner, max_size=3)),
    max_leaves=10,
)


def _reference(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2) + "\n"


@settings(max_examples=400, deadline=None)
@given(st.lists(records, max_size=6))
def test_records_match_json_module(value: list[dict[str, Any]]) -> None:
    assert dumps(value) == _reference(value)


@settings(max_examples=300, deadline=None)
@given(st.lists(records.filter(bool), max_size=6))
def test_records_joined_as_text_and_as_bytes_match_json_module(
    value: list[dict[str, Any]],
) -> None:
    """join_records (status.json) and join_encoded (posts.json: records kept encoded) of each
    record's dump_record text are the file json.dumps writes (one, several or no records)."""
    texts = [dump_record(record) for record in value]
    assert join_records(texts) == _reference(value)
    assert join_encoded([text.encode() for text in texts]) == _reference(value).encode()


@settings(max_examples=200, deadline=None)
@given(anything)
def test_any_value_matches_json_module(value: Any) -> None:
    assert dumps(value) == _reference(value)


def test_demo_api_records_follow_their_schema(tmp_path, make_project) -> None:  # type: ignore[no-untyped-def]
    from bipub.pipeline import build

    project = make_project("demo")
    build(project, only={"json"})
    for lang in ("ko", "en"):
        posts = json.loads((project / "site" / "api" / lang / "posts.json").read_text())
        assert posts
        for item in posts:
            assert list(PostApiEntry.model_validate(item).model_dump()) == list(item)
        status = json.loads((project / "site" / "api" / lang / "status.json").read_text())
        assert status or lang == "ko", "the English status lists the translated units"
        for item in status:
            assert list(StatusApiEntry.model_validate(item).model_dump()) == list(item)
