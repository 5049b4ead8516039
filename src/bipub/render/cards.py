"""Social cards (issue 19): the 1200×630 PNG a link preview shows (og:image, twitter:card).

A post without an `image:` in its front matter gets a card drawn with Pillow: its title in the
post's language (in the PDF text font, render/pdf/fonts.py: Korean is drawn with the Korean font,
never as boxes), the site's name and the date. Each language's home page (the CV, or the blog)
gets a site card (the site's title and description) that every other page of the language uses.

Titles wrap at spaces only (CSS `word-break: keep-all`, as Korean typesetting wants: a word and
its particles stay on one line); a word too long for a line is the only thing cut, by characters.
A title too long for the card ends in an ellipsis.

Cards are cached by content in the user's cache folder (`cards/<key>.png`): the key is the text
drawn, the font files' identity, the identity of the compiled code that draws and writes a card
(`drawing_code`: Pillow's text and imaging modules, with FreeType, HarfBuzz and raqm; ISA-L's
deflate) and CARD_VERSION, so a build draws only new or changed cards, and a card drawn by
another Pillow or ISA-L (other pixels or bytes) is drawn again, never kept.
The build cache records each published card's key with its file's identity (`remember`): a
build after an edit keeps every card whose key did not change as the published file
(OutputTree.keep), without reading it or its cached copy. With the entries' keys (render/
parts.py), a post's card key and the characters its title's font lacks are kept by its
entry's key: an update works out what the cards of the changed posts show, and no other's
(their `card-glyph` warnings are said again).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Final, Protocol
from urllib.parse import unquote, urlsplit

from bipub import uptodate
from bipub.cache import user_cache_dir, write_cache_file
from bipub.parallel import can_fork, fork_map, worker_count
from bipub.render.locale_format import format_date
from bipub.render.pdf.fonts import choose_fonts, cmap, describe, uncovered
from bipub.render.urls import post_card, site_card
from bipub.uptodate import Identity as Published
from bipub.write.output import Identity, OutputFile, OutputTree

if TYPE_CHECKING:
    from PIL import Image, ImageFont

    from bipub.cache import BuildCache
    from bipub.diagnostics import Collector
    from bipub.load.content import Document
    from bipub.pair.site import Entry, Site
    from bipub.project import Project
    from bipub.render.html import Plan
    from bipub.render.page_plan import PageSpec
    from bipub.render.parts import Parts

CARD_VERSION: Final = "2"  # 2: the PNG compressed by ISA-L (other bytes, the same pixels)
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
ORIGIN: Final = "social card"  # (what made the file, for a clash's message)


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


@dataclass
class CardMaker:
    """Cards from the cache, or drawn (`cache_dir` None: --no-cache, nothing kept)."""

    cache_dir: Path | None
    regular: FontFile
    bold: FontFile
    _fonts: str = ""  # the font files' identity, read once per build
    _canvas: Canvas = field(default_factory=Canvas)  # (each draw worker has its own: forked)

    def fonts(self) -> str:
        """The font files' and the drawing code's identity (read once per build): part of
        every card's key."""
        if not self._fonts:
            fonts = f"{self.regular.identity()}|{self.bold.identity()}"
            self._fonts = f"{fonts}|{drawing_code()}"
        return self._fonts

    def key(self, text: CardText) -> str:
        self.fonts()
        h = hashlib.sha256()
        parts: Sequence[str] = (
            CARD_VERSION,
            self._fonts,
            text.title,
            text.footer_left,
            text.footer_right,
        )
        for part in parts:
            h.update(part.encode("utf-8"))
            h.update(b"\0")
        return h.hexdigest()[:32]

    def _path(self, text: CardText) -> Path | None:
        return (
            None if self.cache_dir is None else self.cache_dir / "cards" / f"{self.key(text)}.png"
        )

    def cached(self, text: CardText) -> bytes | None:
        path = self._path(text)
        if path is None:
            return None
        try:
            return path.read_bytes()
        except OSError:
            return None  # not drawn yet

    def draw(self, text: CardText) -> bytes:
        return draw(text, self.regular, self.bold, self._canvas)

    def store(self, text: CardText, data: bytes) -> None:
        """Keep a card in the cache (atomically; a cache that cannot be written only costs
        the next build the drawing)."""
        path = self._path(text)
        if path is None:
            return
        try:
            write_cache_file(path, data)
        except OSError:
            return  # this build has the card: the output is the same


DRAW_CHUNK: Final = 32
MIN_CARDS_FOR_WORKERS: Final = 96  # below this, forking costs more than it saves


class CardJob(Protocol):
    """What the cards read of a build's RenderJob (render/outputs.py)."""

    @property
    def project(self) -> Project: ...
    @property
    def site(self) -> Site: ...
    @property
    def langs(self) -> list[str]: ...
    @property
    def plan(self) -> Plan: ...
    @property
    def collector(self) -> Collector: ...
    @property
    def cache(self) -> BuildCache | None: ...
    @property
    def parts(self) -> Parts: ...


class Cards:
    """The output kind `cards` (render(job, tree) / owns(path), as in render/outputs.py): each
    language's site card (`/<lang>/card.png`) and a card per post page without `image:`
    (`/<lang>/blog/<slug>/card.png`). Cards not in the cache are drawn on every core."""

    kind = "cards"

    def __init__(self) -> None:
        self.drawn = 0  # cards this build drew (not from the cache)
        self.kept = 0  # published cards kept as they were (their key did not change)
        self.keys: dict[str, str] = {}  # output path → key of every card of this build

    def render(self, job: CardJob, tree: OutputTree) -> None:
        config = job.site.config
        fonts, font_warnings = choose_fonts(config.pdf, job.project.root)
        # said here too: a build without PDFs (`--only html`, a site without a CV or PDF posts)
        # would otherwise draw the titles in the regular face without a word; when the PDFs
        # say the same, the build reports the warning once (it reports a set of them)
        job.collector.extend(font_warnings)
        text_font = fonts.text
        regular = FontFile(text_font.regular.path, text_font.regular.index)
        bold_face = text_font.bold or text_font.regular
        cache_dir = user_cache_dir() if job.cache is not None else None
        maker = CardMaker(
            cache_dir,
            regular,
            FontFile(bold_face.path, bold_face.index),
        )
        fonts_cache = cache_dir / "fonts" if cache_dir is not None else None  # (as the PDFs)
        covers: list[frozenset[int]] = []  # (the faces' characters: read if needed)

        def cover() -> frozenset[int]:
            if not covers:
                covers.append(cmap(bold_face, fonts_cache) | cmap(text_font.regular, fonts_cache))
            return covers[0]

        found: dict[tuple[str, str], Entry] = {}

        def entry_of(spec: PageSpec) -> Entry | None:  # (asked for the cards made only)
            if not spec.made_of:
                return None
            if not found:
                found.update(((e.kind, e.key), e) for e in job.site.entries)
            return found.get(spec.made_of[0])

        host = urlsplit(config.site_url).hostname or ""
        todo: list[tuple[str, str | None, CardText]] = []
        # the characters of the titles looked at so far that a face draws (or that need none):
        # a title made only of them has none drawn as a box (most titles, after the first few)
        covered: set[str] = set()
        parts, keys = job.parts, job.parts.entry_keys
        previous = job.cache.cards.get(str(tree.out), {}) if job.cache is not None else {}
        for lang in job.langs:
            language = config.language(lang)
            todo.append(
                (site_card(lang), lang, CardText(language.title, language.description, host))
            )
            # a post's card is what its entry's key holds (title, date, language shown) with
            # the language's title and the fonts: kept by them, with its key and the
            # characters its fonts lack (Parts.each's way: an unchanged entry is not read),
            # and its published file kept if its key did not change (`_kept`)
            slot, encoded = b"", {}
            if keys is not None:
                encoded = parts.key_bytes(keys)
                slot = parts.site_key(("card", parts.global_key, maker.fonts(), language.title))
            info = OutputFile(lang, ORIGIN)  # (one for every card kept in this language)
            for spec in job.plan.pages.get(lang, ()):
                image = spec.image
                if image is None:
                    continue
                if image != post_card(spec.path):  # the post's own image: (the source's)
                    entry = entry_of(spec)
                    _check_image(job, image, entry.source if entry else spec.doc)
                    continue
                mark = None
                if keys is not None and spec.made_of:
                    mark = slot + encoded[spec.made_of[0]] + image.encode()
                    known = parts.kept(mark)
                    if known is not None:
                        key, missing = known
                        if missing:
                            _warn_glyphs(job, spec, text_font.css_family, missing)
                        if not self._kept(image, key, previous, tree, info):
                            # (a card changed in the output: made again)
                            todo.append(
                                (
                                    image,
                                    lang,
                                    _post_text(spec, entry_of(spec), lang, language.title),
                                )
                            )
                        continue
                text = _post_text(spec, entry_of(spec), lang, language.title)
                todo.append((image, lang, text))
                missing = ()
                chars = set(spec.title)
                if not chars <= covered:
                    missing = tuple(uncovered(spec.title, cover()))
                    covered.update(chars.difference(missing))
                    if missing:
                        _warn_glyphs(job, spec, text_font.css_family, missing)
                if mark is not None:
                    parts.keep(mark, (maker.key(text), missing))
        todo = [
            item
            for item in todo
            if not self._kept(
                item[0], maker.key(item[2]), previous, tree, OutputFile(item[1], ORIGIN)
            )
        ]
        datas: list[bytes | None] = [maker.cached(text) for _path, _lang, text in todo]
        misses = [n for n, data in enumerate(datas) if data is None]
        texts = [todo[n][2] for n in misses]
        if len(misses) >= MIN_CARDS_FOR_WORKERS and worker_count() > 1 and can_fork():
            drawn = fork_map(
                maker.draw, texts, DRAW_CHUNK, worker_count(), setup=tree.release_in_child
            )
        else:
            drawn = [maker.draw(text) for text in texts]
        for n, text, card in zip(misses, texts, drawn, strict=True):
            maker.store(text, card)
            datas[n] = card
        self.drawn += len(misses)
        for (path, owner, _text), data in zip(todo, datas, strict=True):
            assert data is not None
            tree.add(path.lstrip("/"), data, owner, ORIGIN)

    def _kept(
        self,
        path: str,
        key: str,
        previous: dict[str, tuple[str, Identity]],
        tree: OutputTree,
        info: OutputFile,
    ) -> bool:
        """Keep the published card if its key did not change and it is still the file the
        last build published (OutputTree.keep: two lstats, no open: an edit build reads and
        compares only the cards that changed), recorded as `info`."""
        rel = path[1:] if path[:1] == "/" else path
        self.keys[rel] = key
        old = previous.get(rel)
        if old is None or old[0] != key or not tree.keep(rel, old[1]):
            return False
        tree.record_kept(rel, info)
        self.kept += 1
        return True

    def owns(self, path: str) -> bool:
        return path.endswith("/card.png") and (
            path.count("/") == 1 or path.split("/")[1:2] == ["blog"]
        )


def remember(
    cache: BuildCache, out: Path, keys: dict[str, str] | None, published: dict[str, Published]
) -> None:
    """After publishing: each published card's key with the identity of its file (`published`:
    uptodate.output_state's, of every published file), for the next build's `Cards._kept`.
    `keys`: the cards this build made (None: it made none, `build --only html`). A card this
    build did not make but carried over (by hard link: only its ctime moved) keeps its key
    with its new identity; a card no longer published is forgotten."""
    entries = cache.cards.get(str(out), {})
    now: dict[str, tuple[str, Identity]] = {}
    for rel, (key, (mtime, _ctime, size, ino)) in entries.items():
        ident = published.get(rel)
        if ident is not None and (keys is None or rel not in keys):
            new = uptodate.file_identity(ident)
            if (new[0], new[2], new[3]) == (mtime, size, ino):
                now[rel] = (key, new)
    for rel, key in (keys or {}).items():
        ident = published.get(rel)
        if ident is not None:
            now[rel] = (key, uptodate.file_identity(ident))
    cache.cards[str(out)] = now


def _post_text(spec: PageSpec, entry: Entry | None, lang: str, site_title: str) -> CardText:
    """What a post's card shows: its title, the site's title, its date in the language its
    page shows it in."""
    day = entry.date if entry is not None else None
    shown = spec.content_lang or lang
    when = format_date(day, shown) if day is not None else ""
    return CardText(spec.title, site_title, when)


def _warn_glyphs(job: CardJob, spec: PageSpec, family: str, missing: Sequence[str]) -> None:
    """A `card-glyph` warning: the card of `spec` draws `missing` as boxes."""
    if spec.doc is None:
        return
    job.collector.warning(
        spec.doc.rel,
        spec.doc.line_of("title"),
        "card-glyph",
        f"the social card's font ({family}) has no "
        f"{', '.join(describe(ch) for ch in missing)}: drawn as a box on the "
        "card (give the post an image: or set pdf.fonts)",
    )


def _check_image(job: CardJob, image: str, doc: Document | None) -> None:
    """A post's `image:` site path must be a file of static/ (the link preview would show
    nothing): a `missing-asset` warning at its line."""
    if not image.startswith("/") or doc is None:
        return
    rel = unquote(image.split("?", 1)[0].split("#", 1)[0]).lstrip("/")
    if (job.project.static / rel).is_file():
        return
    job.collector.warning(
        doc.rel,
        doc.line_of("image"),
        "missing-asset",
        f"image: {image} is not a file of static/ ({rel}); link previews would show no picture",
    )
