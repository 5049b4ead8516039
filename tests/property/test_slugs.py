"""Slugs: `slugify` (tags, series) is idempotent and stays one path segment inside the output root;
`check_slug` (front matter `slug:`) accepts only what is safe as a path segment, NFC (never NFKC)."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bipub.model.fields import slugify
from bipub.model.post import check_slug
from bipub.render import urls
from bipub.write.output import check_relative, inside

# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 15): invisible when
# rendered, so a URL holding one looks like another URL.
DEFAULT_IGNORABLE = [
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
]


def is_default_ignorable(ch: str) -> bool:
    return any(lo <= ord(ch) <= hi for lo, hi in DEFAULT_IGNORABLE)


IGNORABLES = [chr(lo) for lo, _ in DEFAULT_IGNORABLE] + ["\u200b", "\u202e", "\u3164", "\u2066"]

# Text with the characters that matter here more often than hypothesis would pick them.
tricky = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from(
            [*IGNORABLES, "/", "\\", ".", "-", "_", " ", "\x00", "\n", "İ", "ẞ", "ㄱ", "ᄀ"]
        ),
        st.sampled_from(list("한글abcXYZ019")),
    ),
    max_size=40,
)


def _inside_root(slug: str, tmp_path: Path) -> None:
    for path in (urls.tag("ko", slug), urls.series("en", slug), urls.post("ko", slug)):
        rel = urls.output_file(path)
        check_relative(rel)
        assert inside(tmp_path, tmp_path / rel), rel


@given(tricky)
@example("a\u3164b")
@example("İ")
@example("KV 캐시")
@example("../../etc/passwd")
def test_slugify_is_idempotent_and_one_safe_segment(value: str) -> None:
    slug = slugify(value)
    assert slugify(slug) == slug
    assert slug == unicodedata.normalize("NFC", slug)
    assert "/" not in slug and "\\" not in slug and slug not in (".", "..")
    assert not any(is_default_ignorable(ch) for ch in slug), ascii(slug)
    assert not any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in slug)
    if slug:
        _inside_root(slug, Path("/nonexistent-root"))


def test_slugify_keeps_korean_and_compatibility_jamo() -> None:
    assert slugify("KV 캐시") == "kv-캐시"
    assert slugify("ㄱ 자") == "ㄱ-자"  # NFKC would turn U+3131 into U+1100


@given(tricky)
@example("/etc/x")
@example("a/b")
@example("alpha\u200bbeta")
@example("alpha\u202etxt")
@example("a\u3164b")
@example("..")
def test_check_slug_accepts_only_safe_segments(value: str) -> None:
    try:
        slug = check_slug(value)
    except ValueError:
        return
    assert check_slug(slug) == slug
    assert slug == unicodedata.normalize("NFC", value)  # NFC, never NFKC
    assert "/" not in slug and "\\" not in slug and ".." not in slug
    assert not any(is_default_ignorable(ch) for ch in slug), ascii(slug)
    _inside_root(slug, Path("/nonexistent-root"))


@pytest.mark.parametrize(
    "bad", ["/etc/x", "a/b", "../../x", "..", "a\u200bb", "a\u202eb", "a\u3164b"]
)
def test_bad_slugs_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        check_slug(bad)


def test_default_ignorable_table_matches_the_slug_checks() -> None:
    """Every default-ignorable code point is refused by check_slug and removed by slugify."""
    for lo, hi in DEFAULT_IGNORABLE:
        for cp in range(lo, min(hi, lo + 300) + 1):
            ch = chr(cp)
            with pytest.raises(ValueError):
                check_slug(f"a{ch}b")
            assert ch not in slugify(f"a{ch}b"), f"U+{cp:04X}"
