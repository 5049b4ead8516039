"""The JSON API schemas bipub ships (render/api_schemas.json) are what pydantic makes of the
models; a build uses them only when the installed pydantic is the one that made them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bipub.render import json_api


def test_the_shipped_schemas_are_what_pydantic_makes_of_the_models(update_golden: bool) -> None:
    made = json_api.made_schemas()
    if update_golden:
        json_api.SHIPPED_SCHEMAS.write_text(json_api.shipped_file(made), encoding="utf-8")
    text = json_api.SHIPPED_SCHEMAS.read_text(encoding="utf-8")
    assert text == json_api.shipped_file(made), (
        f"{json_api.SHIPPED_SCHEMAS} is not what pydantic makes of the models now "
        "(run pytest --update-golden)"
    )
    assert json_api.shipped_schemas() == made


def test_a_build_takes_the_shipped_schemas_without_making_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    json_api._schemas.cache_clear()
    monkeypatch.setattr(json_api, "made_schemas", lambda: pytest.fail("made again"))
    try:
        assert json_api.schemas()["posts.schema.json"].startswith("{\n")
        assert json_api.schemas_note() == ""
    finally:
        json_api._schemas.cache_clear()


@pytest.mark.parametrize(
    "text",
    [
        None,  # no file
        "{not json",
        '{"made_by": {"pydantic": "0.1", "pydantic-core": "0.1"}, "files": {"a": "b"}}',
        '{"made_by": MADE_BY, "files": {"a": 1}}',
        '{"made_by": MADE_BY, "files": []}',
        "[]",
    ],
)
def test_schemas_made_by_another_pydantic_are_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str | None
) -> None:
    shipped = tmp_path / "api_schemas.json"
    if text is not None:
        made_by = json_api.dumps(json_api.pydantic_versions()).strip()
        shipped.write_text(text.replace("MADE_BY", made_by), encoding="utf-8")
    read = json_api.shipped_schemas
    assert read(shipped) is None
    monkeypatch.setattr(json_api, "shipped_schemas", lambda: read(shipped))
    json_api._schemas.cache_clear()
    try:
        assert json_api.schemas() == dict(json_api.made_schemas())  # (the stock path)
        note = json_api.schemas_note()
        assert "were not made by the installed pydantic" in note, note
    finally:
        json_api._schemas.cache_clear()


def test_the_states_are_enumerated_in_the_schemas() -> None:
    """Session 29: `translation` (posts.json) and `state` (status.json) were any string in the
    published schemas; their values are the ones docs/outputs.md lists."""
    schemas = {name: json.loads(text) for name, text in json_api.made_schemas()}
    posts = schemas["posts.schema.json"]["items"]["properties"]
    assert posts["translation"]["enum"] == ["source", "translated", "draft", "stale", "missing"]
    status = schemas["status.schema.json"]["items"]["properties"]
    assert status["state"]["enum"] == [
        "missing", "untracked", "stale", "draft", "edited", "reviewed"
    ]  # fmt: skip
