"""What the numbers finding says: both sides, as a reviewer needs them. A number on one side
only used to be said alone ("numbers differ: the source has 1"), the translation's side left
out: now where it is (the words around it), that the translation has none in its place, and a
name on the other side with that number glued to a word (`x2`, `H100`, `v0.6.3`: read as a
name, not as a number). Numbers glued to words are read as before: no new finding."""

from __future__ import annotations

import pytest

from bipub.check.qa_numbers import check_numbers


def test_a_number_only_the_source_has_is_said_with_its_place_and_the_translations_side() -> None:
    assert check_numbers("GPU는 8개, 노드는 2개다.", "There are 8 GPUs and nodes.") == [
        "numbers differ: the source has 2 in «GPU는 8개, 노드는 2개다.» but the translation "
        "has no number in its place"
    ]


def test_a_number_only_the_translation_has_is_said_the_same_way() -> None:
    assert check_numbers("노드를 늘렸다.", "We added 3 nodes.") == [
        "numbers differ: the translation has 3 in «We added 3 nodes.» but the source has no "
        "number in its place"
    ]


def test_several_numbers_on_one_side_say_their_place() -> None:
    (said,) = check_numbers("배치 16, 스텝 300.", "batch and steps.")
    assert said.startswith("numbers differ: the source has 16 in «")
    assert "300 in «" in said and said.endswith("but the translation has no number in their place")


@pytest.mark.parametrize(
    ("source", "translation", "glued"),
    [
        ("성능이 2배로 늘었다.", "Performance went up x2.", "x2"),  # (Korean 2배, English x2)
        ("H100 2대", "H100 x2", "x2"),
        ("버전 0.6 출시", "v0.6.3 released", "v0.6.3"),
        ("카드 100장", "a H100 card", "H100"),
    ],
)
def test_a_number_glued_to_a_word_on_the_other_side_is_named(
    source: str, translation: str, glued: str
) -> None:
    (said,) = check_numbers(source, translation)
    assert said.endswith(
        f"but the translation has no number in its place (it has {glued}: a number glued to a "
        "word is read as a name, not as a number)"
    ), said


@pytest.mark.parametrize(
    ("source", "translation"),
    [
        ("2배 빨라졌다", "2x faster"),
        ("2배 빨라졌다", "twice as fast"),
        ("H100 2대", "two H100s"),
        ("H100 2대", "2 H100 GPUs"),
        ("v0.6.3에서 고쳤다", "fixed in v0.6.3"),
        ("x2 배율", "the x2 scale"),
        ("GPU 1개로 충분하다.", "One GPU is enough for the H100."),
    ],
)
def test_numbers_glued_to_words_bring_no_new_finding(source: str, translation: str) -> None:
    assert check_numbers(source, translation) == []


def test_a_name_without_the_number_is_not_named() -> None:
    (said,) = check_numbers("노드 4개", "nodes on the H100")
    assert "it has" not in said  # (H100 does not hold a 4)


def test_numbers_on_both_sides_are_said_as_before() -> None:
    assert check_numbers("처리량 382", "throughput 328") == [
        "numbers differ: the source has 382 but the translation has 328"
    ]
