"""Drawing a social card (render/cards.py): a 1200×630 8-bit palette PNG of a title (wrapped at
spaces, keep-all; cut with an ellipsis when too long), the site's name and a date, drawn with
Pillow in the PDF text font and compressed by ISA-L. Pure drawing: what a card shows
(`CardText`) and the fonts (`FontFile`) make its bytes, whatever was drawn before it in the
process (`Canvas` keeps only what every card of a site shares)."""

from __future__ import annotations

import importlib.util
import os
import struct
import zlib
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from PIL import Image, ImageFont

WIDTH: Final = 1200
HEIGHT: Final = 630
MARGIN: Final = 80
BACKGROUND: Final = (255, 255, 255)
FOREGROUND: Final = (26, 29, 35)  # the theme's --fg
MUTED: Final = (90, 98, 112)  # --fg-muted
ACCENT: Final = (34, 82, 201)  # --accent
RULE: Final = (226, 229, 234)  # --border
TITLE_SIZES: Final = (68, 60, 52, 46)  # the largest that fits in MAX_LINES
MAX_LINES: Final = 4
ELLIPSIS: Final = "…"
X: Final = 1  # where the card starts in the image drawn (`_base`: column 0 is the filter bytes)


@dataclass(frozen=True)
class FontFile:
    path: str
    index: int  # the face in a .ttc collection

    def identity(self) -> str:
        st = os.stat(self.path)
        return f"{self.path}:{self.index}:{st.st_size}:{st.st_mtime_ns}"


DRAWING_CODE: Final = (("PIL", ("_imaging.", "_imagingft.")), ("isal", ("isal_zlib.",)))


def drawing_code() -> str:
    """The identity (name, size, mtime) of the compiled modules that draw a card's pixels
    (Pillow's imaging core and its text module, which holds or links FreeType, HarfBuzz and
    raqm) and compress them (ISA-L): an upgrade of either can change a card's bytes for the
    same text (other antialiasing, another deflate stream), so it is part of every card's key
    (found without importing them: a build that keeps every card imports neither)."""
    found = []
    for package, stems in DRAWING_CODE:
        spec = importlib.util.find_spec(package)
        folders = spec.submodule_search_locations if spec is not None else None
        if not folders:  # (not installed: drawing raises ImportError, the build says so)
            found.append(f"{package}:none")
            continue
        for name in sorted(os.listdir(folders[0])):
            if name.startswith(stems) and name.endswith((".so", ".pyd")):
                st = os.stat(os.path.join(folders[0], name))
                found.append(f"{package}/{name}:{st.st_size}:{st.st_mtime_ns}")
    return "|".join(found)


@dataclass(frozen=True)
class CardText:
    """What a card shows."""

    title: str
    footer_left: str  # the site's name (a post's card) or its description (the site card)
    footer_right: str = ""  # the date, in the card's language


@lru_cache(maxsize=32)
def _font(path: str, index: int, size: int) -> ImageFont.FreeTypeFont:
    from PIL import ImageFont  # (Pillow loads only for a build that draws cards)

    return ImageFont.truetype(path, size, index=index)


@lru_cache(maxsize=256)
def _small_length(regular: FontFile, text: str) -> float:
    """The width of a footer's text (the site's name, a date) in the footer's font: the same
    few texts on every card of a site, each measured once per process (~0.15 ms each)."""
    return float(_font(regular.path, regular.index, 30).getlength(text))


def wrap(text: str, width: float, measure: ImageFont.FreeTypeFont) -> list[str]:
    """Lines of at most `width` pixels, broken at spaces (keep-all); a word wider than a line
    is broken by characters."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if measure.getlength(candidate) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        line = ""
        while measure.getlength(word) > width:  # one word wider than the card: cut it
            cut = len(word) - 1
            while cut > 1 and measure.getlength(word[:cut]) > width:
                cut -= 1
            lines.append(word[:cut])
            word = word[cut:]
        line = word
    if line:
        lines.append(line)
    return lines


def _fit(text: str, width: float, bold: FontFile) -> tuple[list[str], ImageFont.FreeTypeFont]:
    """The title's lines in the largest size that fits MAX_LINES (else cut with an ellipsis)."""
    for size in TITLE_SIZES:
        font = _font(bold.path, bold.index, size)
        lines = wrap(text, width, font)
        if len(lines) <= MAX_LINES:
            return lines, font
    lines = lines[:MAX_LINES]
    last = lines[-1]
    while last and font.getlength(last + ELLIPSIS) > width:
        last = last[:-1].rstrip()
    lines[-1] = last + ELLIPSIS
    return lines, font


@lru_cache(maxsize=1)
def _palette() -> bytes:
    """Index 0: the accent; 1–255: a ramp from the text colour to the background, so that the
    card is drawn in 8-bit grey levels (antialiased) and saved as a palette PNG as it is (no
    quantizing: ~10 ms a card, not ~170)."""
    out = list(ACCENT)
    for i in range(1, 256):
        t = (i - 1) / 254
        out += [round(f + (b - f) * t) for f, b in zip(FOREGROUND, BACKGROUND, strict=True)]
    return bytes(out)


def _level(colour: tuple[int, int, int]) -> int:
    """The ramp index nearest to a grey-ish colour of the theme."""
    t = sum(c - f for c, f in zip(colour, FOREGROUND, strict=True)) / sum(
        b - f for b, f in zip(BACKGROUND, FOREGROUND, strict=True)
    )
    return 1 + round(254 * min(1.0, max(0.0, t)))


def draw(text: CardText, regular: FontFile, bold: FontFile, canvas: Canvas | None = None) -> bytes:
    """The card as PNG bytes (an 8-bit palette PNG: small, and quick to write), drawn on
    `canvas` (a process's, kept from card to card: CardMaker) or a new one."""
    from PIL import ImageDraw

    inner = WIDTH - 2 * MARGIN
    small = _font(regular.path, regular.index, 30)
    right = text.footer_right
    right_width = _small_length(regular, right) if right else 0
    left = text.footer_left
    room = inner - right_width - (40 if right else 0)
    while left and _small_length(regular, left) > room:  # a long description: cut with "…"
        left = left[:-2].rstrip() + ELLIPSIS
    image = (canvas or Canvas()).start(left, regular)
    pen = ImageDraw.Draw(image)
    lines, font = _fit(" ".join(text.title.split()), inner, bold)
    size = font.size
    y = MARGIN + 20
    for line in lines:
        pen.text((X + MARGIN, y), line, font=font, fill=1)
        y += round(size * 1.3)
    if right:
        pen.text(
            (X + WIDTH - MARGIN, HEIGHT - MARGIN),
            right,
            font=small,
            fill=_level(MUTED),
            anchor="rs",
        )
    return png(image.tobytes(), WIDTH, HEIGHT, _palette())


class Canvas:
    """Where a process draws its cards (a CardMaker's: no module-level state). What every card
    of a site shares is drawn once (`_base`, ~0.3 ms a card before) and pasted onto one image
    kept from card to card (as quick as a new copy, measured; one allocation fewer)."""

    def __init__(self) -> None:
        self._bases: dict[tuple[str, FontFile], Image.Image] = {}
        self._image: Image.Image | None = None

    def start(self, left: str, regular: FontFile) -> Image.Image:
        """The image to draw a card on: the shared parts with `left` (the site's name)."""
        base = self._bases.get((left, regular))
        if base is None:
            if len(self._bases) >= 16:  # (a site has a few: its languages' names)
                self._bases.clear()
            base = self._bases[left, regular] = _base(left, regular)
        if self._image is None:
            self._image = base.copy()
        else:
            self._image.paste(base)
        return self._image


def _base(left: str, regular: FontFile) -> Image.Image:
    """The background, the accent bar, the rule and the site's name (`left`), in the grey
    levels that are the palette's indexes. The title and the date are drawn apart from them
    (the order changes no pixel). The image is one column wider than the card (`X`): its
    first column is each PNG scanline's filter byte (0: none), so that its bytes are the PNG's
    pixel data."""
    from PIL import Image, ImageDraw

    image = Image.new("L", (X + WIDTH, HEIGHT), 255)
    pen = ImageDraw.Draw(image)
    pen.rectangle((0, 0, 0, HEIGHT), fill=0)  # (the filter bytes)
    pen.rectangle((X, 0, X + WIDTH, 14), fill=0)  # the accent bar
    base = HEIGHT - MARGIN
    pen.line((X + MARGIN, base - 56, X + WIDTH - MARGIN, base - 56), fill=_level(RULE), width=2)
    small = _font(regular.path, regular.index, 30)
    pen.text((X + MARGIN, base), left, font=small, fill=_level(MUTED), anchor="ls")
    return image


PNG_SIGNATURE: Final = b"\x89PNG\r\n\x1a\n"


def png(scanlines: bytes, width: int, height: int, palette: bytes) -> bytes:
    """An 8-bit palette PNG (colour type 3): `scanlines` are `height` rows of a filter byte
    and `width` palette indexes. Written here rather than by Pillow, for its compressor: zlib
    (Pillow's) takes ~1.5 ms for a card's 760 KB, half the cost of a card; ISA-L's deflate
    (isal) ~0.15 ms, into a smaller stream. Any PNG reader reads it (a standard zlib stream)."""
    from isal import isal_zlib

    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)  # 8 bits, palette
    return b"".join(
        (
            PNG_SIGNATURE,
            _chunk(b"IHDR", header),
            _chunk(b"PLTE", palette),
            _chunk(b"IDAT", isal_zlib.compress(scanlines, 1)),
            _chunk(b"IEND", b""),
        )
    )


def _chunk(kind: bytes, data: bytes) -> bytes:
    return b"".join(
        (
            struct.pack(">I", len(data)),
            kind,
            data,
            struct.pack(">I", zlib.crc32(data, zlib.crc32(kind))),
        )
    )
