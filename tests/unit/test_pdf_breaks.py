"""The Korean line-breaking pre-pass of the PDF renderer (render/pdf/breaks.py)."""

from __future__ import annotations

from bipub.render.pdf.breaks import (
    MAX_RUN,
    WORD_JOINER,
    join_word,
    korean_line_breaks,
    wrap_words,
)

WJ = WORD_JOINER


def test_hangul_word_gets_joiners_between_all_characters() -> None:
    assert wrap_words("해결하는 방법") == f"해{WJ}결{WJ}하{WJ}는 방{WJ}법"


def test_particles_and_punctuation_stay_with_their_word() -> None:
    out = wrap_words("「PagedAttention은 (2.4×).")
    first, second = out.split(" ")
    assert first.replace(WJ, "") == "「PagedAttention은"
    assert WJ in first and first.endswith(f"{WJ}은")
    assert second.replace(WJ, "") == "(2.4×)."
    assert WJ not in second  # no Hangul: Latin runs keep their normal break rules


def test_latin_text_and_long_runs_are_untouched() -> None:
    assert wrap_words("Latin words wrap normally") == "Latin words wrap normally"
    long_run = "가" * (MAX_RUN + 1)
    assert wrap_words(long_run) == long_run


def test_text_is_escaped_again() -> None:
    assert korean_line_breaks("<p>a &lt; b &amp; 한글</p>") == f"<p>a &lt; b &amp; 한{WJ}글</p>"


def test_code_pre_style_and_head_are_left_alone() -> None:
    html = (
        "<html><head><title>제목 글</title><style>p > a { content: '한글' }</style></head>"
        "<body><pre>코드 블록</pre><p><code>코드</code></p></body></html>"
    )
    assert korean_line_breaks(html) == html


def test_particle_after_inline_code_is_joined_to_it() -> None:
    out = korean_line_breaks("<p>값은 <code>max_len</code>만큼 늘었다</p>")
    assert f"<code>max_len</code>{WJ}만{WJ}큼" in out


def test_word_continuing_into_a_link_is_joined() -> None:
    out = korean_line_breaks('<p>한국어<a href="x">link</a> 끝</p>')
    assert f'한{WJ}국{WJ}어{WJ}<a href="x">link</a>' in out


def test_closing_punctuation_after_an_element_is_joined() -> None:
    out = korean_line_breaks("<p>see <b>bold</b>. next</p>")
    assert f"<b>bold{WJ}</b>." in out


def test_block_boundaries_do_not_join() -> None:
    out = korean_line_breaks("<li>하나</li><li>둘</li>")
    assert out == f"<li>하{WJ}나</li><li>둘</li>"


def test_grapheme_clusters_are_not_split() -> None:
    old_hangul = "\u1100\u119e\u11a8"  # conjoining jamo: one syllable block
    assert join_word(old_hangul + "가") == old_hangul + WJ + "가"
    combining = "가\u0301나"
    assert join_word(combining) == f"가\u0301{WJ}나"


def test_span_mode_wraps_words() -> None:
    assert wrap_words("해결 방법 ok", spans=True) == (
        '<span class="kw">해결</span> <span class="kw">방법</span> ok'
    )


def test_doctype_comments_and_attributes_survive() -> None:
    html = '<!doctype html><!-- 주석 --><p title="한 글" class=x>가</p>'
    assert korean_line_breaks(html) == html
