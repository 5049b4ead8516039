"""The output writer's shortcuts (src/bipub/write/): each one gives the answer of the full
check it stands for."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bipub.write import folders, output
from bipub.write.output import publish, staged


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet="ab./\\\x00", max_size=12))
def test_a_plain_path_is_one_the_full_check_accepts(path: str) -> None:
    """`check_relative` accepts plain paths with one regular expression: never one the full
    check refuses (an absolute path, `..`, a backslash, a NUL, nothing but dots)."""
    if folders._PLAIN.fullmatch(path):
        folders.check_relative_in_full(path)  # (raises ValueError if it refuses it)
    for check in (folders.check_relative, folders.check_relative_in_full):
        try:
            check(path)
            accepted = True
        except ValueError:
            accepted = False
        assert accepted == _accepted_in_full(path)


def _accepted_in_full(path: str) -> bool:
    try:
        folders.check_relative_in_full(path)
    except ValueError:
        return False
    return True


def test_a_big_text_added_twice_is_encoded_once_and_others_are_not_mistaken_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`OutputTree.add` keeps the bytes and hash of the last big texts added (llms-full.txt
    is written at the root too): the same object again is not encoded again, an equal or
    another one is, and every file holds its own text."""
    hashed: list[int] = []
    real = output.record_digest

    def digest(raw: bytes) -> bytes:
        hashed.append(len(raw))
        return real(raw)

    monkeypatch.setattr(output, "record_digest", digest)
    big = "한국어 " * 40_000
    texts = {
        "ko/llms-full.txt": big,
        "llms-full.txt": big,  # the same object
        "en/llms-full.txt": "English " * 40_000,
        "again.txt": "".join(["한국어 "] * 40_000),  # equal, another object
        "small.txt": "x",
    }
    out = tmp_path / "site"
    with staged(out) as tree:
        for path, text in texts.items():
            tree.add(path, text, None, path)
        publish(tree)
    for path, text in texts.items():
        assert (out / path).read_text(encoding="utf-8") == text
    sizes = [len(big.encode()), len(b"English ") * 40_000, len(big.encode()), 1]
    assert sorted(hashed) == sorted([*sizes, len(output.MARKER_TEXT.encode())])
