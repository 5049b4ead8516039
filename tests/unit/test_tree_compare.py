"""A failed comparison of two site snapshots says which files differ, briefly
(tests/conftest.py pytest_assertrepr_compare), instead of printing every file's bytes."""

from __future__ import annotations

from tests.conftest import pytest_assertrepr_compare


def test_a_tree_comparison_names_the_files_and_the_first_differing_line() -> None:
    left = {"a.html": b"same\nold line\n", "only-left.txt": b"x" * 10_000, "same": b"s"}
    right = {"a.html": b"same\nnew line\n", "only-right.txt": b"y", "same": b"s"}
    said = pytest_assertrepr_compare("==", left, right)
    assert said is not None
    text = "\n".join(said)
    assert "left 3 files, right 3 files" in text
    assert "only left (1): only-left.txt" in text
    assert "only right (1): only-right.txt" in text
    assert "differs: a.html at line 2:" in text
    assert "b'old line'" in text and "b'new line'" in text
    assert len(text) < 1000  # (not the 10,000 bytes of the file only one side has)


def test_an_empty_tree_against_a_site_lists_what_is_missing() -> None:
    said = pytest_assertrepr_compare("==", {}, {"llms.txt": b"# site\n", "sitemap.xml": b"<x/>"})
    assert said is not None
    assert "only right (2): llms.txt, sitemap.xml" in "\n".join(said)


def test_other_comparisons_keep_pytests_own_explanation() -> None:
    assert pytest_assertrepr_compare("==", {"a": 1}, {"a": 2}) is None
    assert pytest_assertrepr_compare("==", [b"a"], [b"b"]) is None
    assert pytest_assertrepr_compare("!=", {"a": b"x"}, {"a": b"x"}) is None


def test_binary_files_are_named_with_their_sizes() -> None:
    said = pytest_assertrepr_compare("==", {"a.png": b"\x89PNG\0\0ab"}, {"a.png": b"\x89PNG\0\0"})
    assert said is not None
    assert "differs: a.png (8 bytes against 6, binary)" in "\n".join(said)


def test_a_tree_against_a_dict_of_other_values_keeps_pytests_own_explanation() -> None:
    """(Before, one side being a tree was enough, and the other's values were read as bytes.)"""
    assert pytest_assertrepr_compare("==", {"a.html": b"x"}, {"a.html": "x"}) is None
    assert pytest_assertrepr_compare("==", {}, {}) is None
