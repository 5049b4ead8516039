"""check/moved.py: which body section's translation was made from another section of its post."""

from __future__ import annotations

from bipub.check.moved import moved_section
from bipub.pair.status import StatusRecord
from bipub.pair.units import Unit, text_hash


def units(sources: list[str], translations: list[str | None]) -> dict[tuple[str, str], Unit]:
    out = {}
    for i, (src, tr) in enumerate(zip(sources, translations, strict=True)):
        key = f"posts/x:body#{i}"
        out[("en", key)] = Unit(key, "ko", "en", src, "ko.md", i + 1, tr, "en.md", i + 1)
    return out


def reviewed(source: str, translation: str | None) -> StatusRecord:
    return StatusRecord(
        source_hash=text_hash(source),
        source=source,
        translation_hash=text_hash(translation) if translation is not None else None,
    )


def test_a_translation_made_from_the_section_now_after_it_is_moved() -> None:
    found = units(["가", "새", "나", "다"], ["A", "B", "C", None])
    moved = moved_section(found, "en", "posts/x:body#1", reviewed("나", "B"))
    assert moved is not None and (moved.index, moved.made_from, moved.machine) == (1, 2, False)
    assert moved.document == "posts/x"
    # the nearest of two sections with that text
    found = units(["나", "새", "다", "나"], ["A", "B", "C", "D"])
    moved = moved_section(found, "en", "posts/x:body#2", reviewed("나", "C"))
    assert moved is not None and moved.made_from == 3


def test_what_is_not_a_moved_translation() -> None:
    found = units(["가", "새", "나"], ["A", "B", "C"])
    # edited since its record: the reviewer's text for this section
    assert moved_section(found, "en", "posts/x:body#1", reviewed("나", "other")) is None
    # its recorded source is nowhere in the post now: an ordinary stale unit
    assert moved_section(found, "en", "posts/x:body#1", reviewed("사라짐", "B")) is None
    # current, no record, no translation, not a body section
    assert moved_section(found, "en", "posts/x:body#2", reviewed("나", "C")) is None
    assert moved_section(found, "en", "posts/x:body#1", None) is None
    empty = units(["가", "새", "나"], ["A", None, "C"])
    assert moved_section(empty, "en", "posts/x:body#1", reviewed("나", None)) is None
    title = Unit("posts/x:title", "ko", "en", "제목", "ko.md", 2, "T", "en.md", 2)
    found[("en", "posts/x:title")] = title
    assert moved_section(found, "en", "posts/x:title", reviewed("가", "T")) is None
