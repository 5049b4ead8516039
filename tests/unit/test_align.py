"""pair/align.py: which translation section translates which source section — by position
while the two are in step, by the source text its record names when a section was inserted,
removed or moved in the source."""

from __future__ import annotations

from bipub.pair.align import align_sections


def align(src: str, tr: str, sources: list[str | None]) -> tuple[object, ...]:
    """Each letter a section's hash: `src` the source's, `tr` the translation's, `sources`
    what each translation section's record names (None: no record, or edited since)."""
    found = align_sections(list(src), list(tr), sources)
    return found.rows(), found.shifted


def test_in_step_is_by_position() -> None:
    assert align("ABC", "abc", ["A", "B", "C"]) == (((0, 0), (1, 1), (2, 2)), False)
    # a section added at the end of the source: missing there
    assert align("ABC", "ab", ["A", "B"]) == (((0, 0), (1, 1), (2, None)), False)
    # a source section rewritten (its record names the old text): still beside it, stale
    assert align("AXC", "abc", ["A", "B", "C"]) == (((0, 0), (1, 1), (2, 2)), False)


def test_an_inserted_section_is_missing_in_its_own_place() -> None:
    assert align("ANBC", "abc", ["A", "B", "C"]) == (
        ((0, 0), (1, None), (2, 1), (3, 2)),
        True,
    )
    # a section with no record after the moved ones goes to the one source section left
    assert align("ANBC", "abc", ["A", "B", None]) == (
        ((0, 0), (1, None), (2, 1), (3, 2)),
        True,
    )


def test_a_removed_section_leaves_its_translation_unpaired() -> None:
    assert align("AC", "abc", ["A", "B", "C"]) == (((0, 0), (None, 1), (1, 2)), True)


def test_swapped_sections_each_keep_their_translation() -> None:
    assert align("BA", "ab", ["A", "B"]) == (((0, 1), (1, 0)), True)
    assert align("ABDC", "abcd", ["A", "B", "C", "D"]) == (
        ((0, 0), (1, 1), (2, 3), (3, 2)),
        True,
    )


def test_without_records_the_pairing_is_by_position() -> None:
    """Nothing says otherwise (a translation written by hand): pair/align.py `out_of_step` says
    that the counts differ instead."""
    assert align("ANBC", "abc", [None, None, None]) == (
        ((0, 0), (1, 1), (2, 2), (3, None)),
        False,
    )


def test_an_edited_section_is_never_put_beside_a_section_it_may_not_translate() -> None:
    """`b` was edited since its review: between the anchors `a` (A) and `c` (C) are two source
    sections and one translation section, so which it translates is not known: unpaired."""
    rows, shifted = align("ANBC", "abc", ["A", None, "C"])
    assert shifted and rows == ((0, 0), (None, 1), (1, None), (2, None), (3, 2))
    # as many of each between the anchors: paired in order
    assert align("ANBC", "anbc", ["A", None, None, "C"]) == (
        ((0, 0), (1, 1), (2, 2), (3, 3)),
        False,
    )
