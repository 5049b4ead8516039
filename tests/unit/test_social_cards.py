"""Issue 19: social cards (render/cards.py): size, Korean glyphs drawn (not boxes), keep-all line
breaks, the cache key."""

from __future__ import annotations

from io import BytesIO
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from bipub.config import PdfOptions
from bipub.parallel import fork_map
from bipub.render import card_draw, cards
from bipub.render.card_draw import CardText, FontFile, wrap
from bipub.render.cards import CardMaker
from bipub.render.pdf.fonts import choose_fonts

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")  # no Hangul


@pytest.fixture(scope="module")
def noto() -> tuple[FontFile, FontFile]:
    fonts, _ = choose_fonts(PdfOptions(), Path("."))  # as the PDFs find them (fontconfig)
    bold = fonts.text.bold or fonts.text.regular
    return (
        FontFile(fonts.text.regular.path, fonts.text.regular.index),
        FontFile(bold.path, bold.index),
    )


def _image(data: bytes) -> Image.Image:
    image = Image.open(BytesIO(data))
    image.load()
    return image.convert("L")


def _title_area(data: bytes) -> Image.Image:
    return _image(data).crop(
        (card_draw.MARGIN, card_draw.MARGIN, card_draw.WIDTH - card_draw.MARGIN, 420)
    )


def test_a_card_is_a_1200_by_630_png(noto: tuple[FontFile, FontFile]) -> None:
    data = card_draw.draw(
        CardText("어텐션을 수식으로 다시 읽기", "기술 블로그", "2026년 2월 20일"), *noto
    )
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    image = Image.open(BytesIO(data))
    assert image.size == (1200, 630)
    assert len(data) < 60_000


def _drawn_by_pillow(text: CardText, regular: FontFile, bold: FontFile) -> Image.Image:
    """The card as bipub drew it before issue 17's speed-ups (one image in the card's order,
    then Pillow's PNG writer): what `draw` must still show, pixel for pixel."""
    from PIL import ImageDraw

    image = Image.new("L", (card_draw.WIDTH, card_draw.HEIGHT), 255)
    pen = ImageDraw.Draw(image)
    pen.rectangle((0, 0, card_draw.WIDTH, 14), fill=0)
    inner = card_draw.WIDTH - 2 * card_draw.MARGIN
    lines, font = card_draw._fit(" ".join(text.title.split()), inner, bold)
    y = card_draw.MARGIN + 20
    for line in lines:
        pen.text((card_draw.MARGIN, y), line, font=font, fill=1)
        y += round(font.size * 1.3)
    small = card_draw._font(regular.path, regular.index, 30)
    base = card_draw.HEIGHT - card_draw.MARGIN
    room = inner - small.getlength(text.footer_right) - 40
    left = text.footer_left
    while left and small.getlength(left) > room:
        left = left[:-2].rstrip() + card_draw.ELLIPSIS
    muted, rule = card_draw._level(card_draw.MUTED), card_draw._level(card_draw.RULE)
    pen.line(
        (card_draw.MARGIN, base - 56, card_draw.WIDTH - card_draw.MARGIN, base - 56),
        fill=rule,
        width=2,
    )
    pen.text((card_draw.MARGIN, base), left, font=small, fill=muted, anchor="ls")
    pen.text(
        (card_draw.WIDTH - card_draw.MARGIN, base),
        text.footer_right,
        font=small,
        fill=muted,
        anchor="rs",
    )
    card = Image.frombytes("P", image.size, image.tobytes())
    card.putpalette(list(card_draw._palette()))
    out = BytesIO()
    card.save(out, "PNG")
    return Image.open(BytesIO(out.getvalue())).convert("RGB")


@pytest.mark.parametrize(
    "text",
    [
        CardText("어텐션을 수식으로 다시 읽기: KV 캐시의 경우", "기술 블로그", "2026년 2월 20일"),
        CardText("Reading attention as equations, again " * 3, "A tech blog " * 9, "Feb 20, 2026"),
    ],
)
def test_a_card_looks_as_pillow_drew_it_in_an_8_bit_palette_png(
    text: CardText, noto: tuple[FontFile, FontFile]
) -> None:
    """`draw` writes the PNG itself (render/cards.py `png`) from parts drawn once: Pillow reads
    it back as an 8-bit palette image of the card's size, with the card's colours, and its
    pixels are those of the card drawn the plain way."""
    canvas = card_draw.Canvas()  # (as a build draws: on the image of the card before)
    card_draw.draw(CardText("먼저 그린 카드 " * 12, "사이트", "2026년 1월 1일"), *noto, canvas)
    data = card_draw.draw(text, *noto, canvas)
    image = Image.open(BytesIO(data))
    image.load()
    assert (image.format, image.mode, image.size) == ("PNG", "P", (1200, 630))
    palette = image.getpalette()
    assert palette is not None and tuple(palette[:3]) == card_draw.ACCENT
    assert (
        tuple(palette[3:6]) == card_draw.FOREGROUND and tuple(palette[-3:]) == card_draw.BACKGROUND
    )
    reference = _drawn_by_pillow(text, *noto)
    assert ImageChops.difference(image.convert("RGB"), reference).getbbox() is None


def test_png_is_read_back_by_pillow_as_written() -> None:
    width, height = 7, 3
    rows = [bytes([0, *((x * 37 + y * 11) % 256 for x in range(width))]) for y in range(height)]
    palette = bytes(range(256)) * 3
    image = Image.open(BytesIO(card_draw.png(b"".join(rows), width, height, palette)))
    assert (image.mode, image.size) == ("P", (width, height))
    assert image.tobytes() == b"".join(row[1:] for row in rows)
    assert bytes(image.getpalette() or []) == palette


def test_korean_is_drawn_in_the_korean_font_not_as_boxes(noto: tuple[FontFile, FontFile]) -> None:
    """Two different Korean titles draw differently with the Korean font; with a font that has
    no Hangul both are rows of the same box (.notdef), so they draw the same: the test can
    tell boxes from glyphs."""
    one, other = CardText("가나다라 마바사", "", ""), CardText("하파타카 차자아", "", "")
    with_noto = [_title_area(card_draw.draw(text, *noto)) for text in (one, other)]
    assert ImageChops.difference(*with_noto).getbbox() is not None
    if not DEJAVU.is_file():
        pytest.skip("needs fonts-dejavu-core for the counter-example")
    dejavu = FontFile(str(DEJAVU), 0)
    boxes = [_title_area(card_draw.draw(text, dejavu, dejavu)) for text in (one, other)]
    assert ImageChops.difference(*boxes).getbbox() is None  # the counter-example: all boxes
    ink = with_noto[0].histogram()[:128]
    assert sum(ink) > 3000  # and the title is drawn at all


def test_titles_break_at_spaces_only(noto: tuple[FontFile, FontFile]) -> None:
    font = card_draw._font(noto[1].path, noto[1].index, 68)
    title = "스케줄러의 선점 정책을 처음부터 다시 읽어 보기: continuous batching의 경우"
    lines = wrap(title, 600, font)
    assert len(lines) > 2
    assert " ".join(lines) == title  # every break at a space: no word was cut
    assert all(font.getlength(line) <= 600 for line in lines)
    long_word = "가" * 40  # wider than a line: the only case cut by characters
    cut = wrap(long_word, 600, font)
    assert "".join(cut) == long_word and len(cut) > 1


def test_a_title_too_long_ends_in_an_ellipsis(noto: tuple[FontFile, FontFile]) -> None:
    font = card_draw._font(noto[1].path, noto[1].index, 46)
    lines, used = card_draw._fit(
        "아주 긴 제목 " * 40, card_draw.WIDTH - 2 * card_draw.MARGIN, noto[1]
    )
    assert len(lines) == card_draw.MAX_LINES and lines[-1].endswith(card_draw.ELLIPSIS)
    assert used.size == font.size  # the smallest size was tried first


def test_cards_are_cached_by_what_they_show_and_the_font(
    tmp_path: Path, noto: tuple[FontFile, FontFile]
) -> None:
    maker = CardMaker(tmp_path, *noto)
    text = CardText("제목", "사이트", "2026년 1월 1일")
    assert maker.cached(text) is None
    data = maker.draw(text)
    maker.store(text, data)
    assert CardMaker(tmp_path, *noto).cached(text) == data  # the next build: no drawing
    keys = {
        maker.key(text),
        maker.key(CardText("제목!", "사이트", "2026년 1월 1일")),
        maker.key(CardText("제목", "다른 사이트", "2026년 1월 1일")),
        maker.key(CardText("제목", "사이트", "2026년 1월 2일")),
        CardMaker(tmp_path, noto[0], noto[0]).key(text),  # another font file
    }
    assert len(keys) == 5
    assert CardMaker(None, *noto).cached(text) is None  # --no-cache


def test_a_cards_key_holds_the_code_that_draws_it(
    tmp_path: Path, noto: tuple[FontFile, FontFile], monkeypatch: pytest.MonkeyPatch
) -> None:
    # another Pillow (FreeType, HarfBuzz) or ISA-L can draw or compress the same text into
    # other bytes: a card kept in the user cache or the output by the old key would then differ
    # from a clean build's
    code = card_draw.drawing_code()
    assert "PIL/_imagingft" in code and "PIL/_imaging." in code and "isal/isal_zlib" in code
    text = CardText("제목", "사이트", "2026년 1월 1일")
    before = CardMaker(tmp_path, *noto).key(text)
    monkeypatch.setattr(cards, "drawing_code", lambda: code + "|another build of Pillow")
    assert CardMaker(tmp_path, *noto).key(text) != before


def test_cards_drawn_by_workers_in_any_order_are_each_cards_own_bytes(
    noto: tuple[FontFile, FontFile],
) -> None:
    # a build draws its cards in chunks on every core, each process on one image kept from card
    # to card (Canvas): whichever cards came before in that process, a card's bytes are those of
    # the card drawn alone (two builds split the cards between their workers differently)
    texts = [
        CardText(title, site, day)
        for title, site, day in (
            ("짧은 제목", "사이트", "2026년 1월 1일"),
            ("[vLLM] 서빙 프리필 병렬화 구현 74 " * 4, "벤치마크", "2024년 3월 15일"),
            ("A title in English that wraps over two lines at least", "Bench", "March 1, 2026"),
            ("한" * 90, "사이트", ""),
            ("W", "a long description of the site " * 6, "example.org"),
            ("제목 " * 40, "Benchmark", "2025년 12월 31일"),
        )
    ]
    alone = [card_draw.draw(text, *noto, card_draw.Canvas()) for text in texts]
    order = [5, 0, 3, 1, 4, 2, 1, 5, 0, 2, 3, 4]  # each card after others, some twice
    maker = CardMaker(None, *noto)
    drawn = fork_map(maker.draw, [texts[n] for n in order], 3, 2)
    assert [alone[n] for n in order] == drawn
    assert [maker.draw(texts[n]) for n in reversed(order)] == [alone[n] for n in reversed(order)]
