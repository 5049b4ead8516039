"""render/llms_full.py `join`: after an edit, llms-full.txt is written as pieces — the texts
that follow each other in the published file as one slice of it, the others as made — and must
be byte for byte the file llms.llms_full_txt joins (a full build's), with the layout a full
build keeps for it: whatever texts were changed, added, removed or moved, and whatever spaces
end the last one (the file's strip)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bipub.render import llms
from bipub.render.llms_full import FullText, join, layout, texts_at

FRAME = [b"# Site", "## 글".encode()]
ENDS = ["", " ", "\n", "  \n", "\u3000"]  # (str.rstrip strips U+3000 too: bytes.rstrip not)


def _text(n: int, end: str) -> bytes:
    return f"### post {n}\n\n본문 {n}{end}".encode()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(ENDS), min_size=1, max_size=8),
    st.data(),
)
def test_the_file_joined_as_pieces_is_the_full_builds(ends: list[str], data: st.DataObject) -> None:
    old = [_text(n, end) for n, end in enumerate(ends)]
    published = llms._joined(list(FRAME), old)
    kept = layout(published, llms._joined(list(FRAME)), [FullText.of(t) for t in old], old)
    # the next build's posts: some of the old ones (in any order), some changed, some new
    picks = data.draw(st.lists(st.integers(0, len(old) + 3), min_size=1, max_size=10))
    new = [
        old[n] if n < len(old) else _text(100 + n, data.draw(st.sampled_from(ENDS))) for n in picks
    ]
    changed = data.draw(st.sets(st.integers(0, len(new) - 1)))
    new = [t + b" edited" if n in changed else t for n, t in enumerate(new)]
    fulls = [FullText(None, f.digest, f.size) for f in map(FullText.of, new)]
    pieces, used, _, _, at, mapped = texts_at(
        fulls, new, lambda: (memoryview(published), kept, ""), lambda t: t
    )
    expected = llms._joined(list(FRAME), list(new))
    before = llms._joined(list(FRAME), [b"x"]).removesuffix(b"\n\nx\n")
    joined = join(before, pieces, used, at, mapped)
    assert joined is not None
    assert bytes(joined[0]) == expected and len(joined[0]) == len(expected)
    assert joined[1] == layout(expected, llms._joined(list(FRAME)), used, pieces)
    # (pieces: the frame, then a slice of the file or the texts between two slices joined)
    assert len(joined[0].parts) <= 2 + 2 * sum(found >= 0 for found in at)


def test_texts_in_a_row_in_the_published_file_are_one_slice_of_it() -> None:
    old = [_text(n, "") for n in range(6)]
    published = llms._joined(list(FRAME), old)
    kept = layout(published, llms._joined(list(FRAME)), [FullText.of(t) for t in old], old)
    new = [*old[:3], b"### new\n\nmade", *old[3:]]  # (a post added in the middle)
    fulls = [FullText(None, f.digest, f.size) for f in map(FullText.of, new)]
    fulls[3] = FullText.of(new[3])  # (made by this build: its bytes held)
    pieces, used, again, _, at, mapped = texts_at(
        fulls, new, lambda: (memoryview(published), kept, ""), lambda t: t
    )
    before = llms._joined(list(FRAME), [b"x"]).removesuffix(b"\n\nx\n")
    joined = join(before, pieces, used, at, mapped)
    assert again == 0 and joined is not None
    assert bytes(joined[0]) == llms._joined(list(FRAME), list(new))
    # the frame, posts 0-2 (one slice), the new one (a blank line and its text: one piece),
    # posts 3-4 (one slice), the last one (a blank line and its text, stripped: one piece)
    assert len(joined[0].parts) == 5


def test_a_last_text_of_spaces_only_is_left_to_the_full_join() -> None:
    """The strip would reach the text before it: `join` gives None (llms_full_txt joins it)."""
    new = [_text(0, ""), b" \n"]
    assert join(b"# Site", new, [FullText.of(t) for t in new], [-1, -1], None) is None


def test_texts_held_by_this_process_are_one_piece() -> None:
    """`bipub serve` holds every text's bytes: the file is two pieces (the frame, the posts
    joined), not a write call a text."""
    new = [_text(n, "") for n in range(5)]
    joined = join(b"# Site", new, [FullText.of(t) for t in new], [-1] * 5, None)
    assert joined is not None and len(joined[0].parts) == 2
    assert bytes(joined[0]) == llms._joined([b"# Site"], list(new))
