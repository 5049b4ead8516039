from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bipub.load.yaml_strict import MAX_DEPTH, YamlError, load_yaml


def load(text: str) -> object:
    return load_yaml(text, "x.yaml").data


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("a: no", "no"),
        ("a: NO", "NO"),
        ("a: yes", "yes"),
        ("a: on", "on"),
        ("a: 012", "012"),
        ("a: 1:30", "1:30"),
        ("a: 2024-02-30", "2024-02-30"),
        ("a: 0o17", "0o17"),
        ("a: 0x1F", "0x1F"),
        ("a: true", True),
        ("a: False", False),
        ("a: 12", 12),
        ("a: -3", -3),
        ("a: 2.5", 2.5),
        ("a: ~", None),
        ("a:", None),
        ("a: '12'", "12"),
        ('a: "true"', "true"),
    ],
)
def test_scalars_follow_the_core_schema_only(text: str, value: object) -> None:
    assert load(text) == {"a": value}
    assert type(load(text)["a"]) is type(value)  # type: ignore[index]


def test_lines_are_recorded_per_path() -> None:
    doc = load_yaml("a: 1\nb:\n  - c: 2\n    d: [3]\n", "x.yaml", line_offset=1)
    assert doc.lines[("a",)] == 2
    assert doc.lines[("b", 0, "c")] == 4
    assert doc.lines[("b", 0, "d")] == 5
    assert doc.line_for(("b", 0, "d", 0, "missing")) == 5


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: 1\nb: 2\na: 3\n", "x.yaml:3: duplicate key 'a' (first defined on line 1)"),
        ("a: &x [1]\nb: *x\n", "x.yaml:1: YAML anchors (&x) are not allowed"),
        ("a: !!python/object:os.system x\n", "not allowed"),
        ("a: [1\n", "x.yaml:1: invalid YAML"),  # (where the bracket opens)
        ('a: 1\nb: "open\nc: 2\n', "x.yaml:2: invalid YAML"),  # (where the quote opens)
        ("a: 1\n---\nb: 2\n", "only one YAML document"),
        ("a: !!int x\n", "'x' is not a valid int"),
        ("[" * 3000, f"nesting deeper than {MAX_DEPTH}"),
        ("a: " + "[" * 3000 + "]" * 3000, f"nesting deeper than {MAX_DEPTH}"),
        ("a: \x07\n", "invalid YAML"),
    ],
)
def test_bad_yaml_is_a_located_error(text: str, message: str) -> None:
    with pytest.raises(YamlError) as info:
        load(text)
    assert message in str(info.value)


def test_alias_bomb_is_rejected_before_expansion() -> None:
    bomb = "a: &a [x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(20)
    )
    with pytest.raises(YamlError, match="anchors"):
        load(bomb)


@given(st.text(max_size=200))
def test_any_text_loads_or_raises_yaml_error(text: str) -> None:
    with contextlib.suppress(YamlError):
        load(text)


@given(st.dictionaries(st.text("abcdefgh", min_size=1, max_size=5), st.integers(), max_size=8))
def test_round_trips_plain_mappings(data: dict[str, int]) -> None:
    text = "".join(f"{k}: {v}\n" for k, v in data.items())
    assert load(text) == (data or None)


@pytest.mark.parametrize("loader", ["SafeLoader", "CSafeLoader"])
@pytest.mark.parametrize(
    "text",
    ['a: "x \\ud800"\n', 'a: 1\n"\\udc00": 2\n', 'a: ["\\ud83d\\ude00"]\n', 'a: "\\U0000D800"\n'],
)
def test_lone_surrogates_are_a_located_error(
    loader: str, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """libyaml refuses a surrogate escape; PyYAML's Python scanner keeps it — both are errors."""
    import yaml

    if not hasattr(yaml, loader):
        pytest.skip(f"no {loader}")
    monkeypatch.setattr("bipub.load.yaml_strict._Loader", getattr(yaml, loader))
    with pytest.raises(YamlError, match=r"x\.yaml:[12]: invalid YAML: .*surrogate"):
        load(text)
    assert load('a: "\\U0001F600"\n') == {"a": "😀"}
