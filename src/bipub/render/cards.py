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
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import filterfalse
from pathlib import Path
from typing import TYPE_CHECKING, Final, Protocol, cast
from urllib.parse import unquote, urlsplit

from bipub.cache import user_cache_dir, write_cache_file
from bipub.parallel import can_fork, fork_map, worker_count
from bipub.render.card_draw import Canvas, CardText, FontFile, draw, drawing_code
from bipub.render.locale_format import format_date
from bipub.render.pdf.fonts import FontsAhead, choose_fonts, cmap, describe, uncovered
from bipub.render.urls import post_card, site_card
from bipub.uptodate import Identity as Published
from bipub.write.output import Identity, OutputFile, OutputTree
from bipub.write.record import unpack_four

if TYPE_CHECKING:
    from bipub.cache import BuildCache
    from bipub.diagnostics import Collector
    from bipub.load.content import Document
    from bipub.pair.site import Entry, Site
    from bipub.project import Project
    from bipub.render.html import Plan
    from bipub.render.page_plan import PageSpec
    from bipub.render.parts import Parts

CARD_VERSION: Final = "2"  # 2: the PNG compressed by ISA-L (other bytes, the same pixels)
ORIGIN: Final = "social card"  # (what made the file, for a clash's message)


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
        self._ahead: FontsAhead | None = None  # fontconfig's runs started by `start`

    def start(self, job: CardJob) -> None:
        """At the start of the render stage (pipeline.py `render`): the `fc-list` runs
        `choose_fonts` asks first started now (pdf/fonts.py `FontsAhead`), read by `render`,
        after the pages, instead of waited for there one after the other (~10 ms)."""
        self.stop()
        self._ahead = FontsAhead(job.site.config.pdf)

    def stop(self) -> None:
        """The runs `start` started that `render` did not read: waited for."""
        ahead, self._ahead = self._ahead, None
        if ahead is not None:
            ahead.close()

    def render(self, job: CardJob, tree: OutputTree) -> None:
        config = job.site.config
        try:
            fonts, font_warnings = choose_fonts(config.pdf, job.project.root, self._ahead)
        finally:
            self.stop()
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
        # (kept by the fonts in the build state: an edit build reads no font's characters for
        # a changed post whose title has none new; any subset of them is right, so a state
        # that saved a smaller one costs a look only)
        parts, keys = job.parts, job.parts.entry_keys
        seen = parts.site_key(("card-covered", maker.fonts()))
        covered: set[str] = set(parts.kept(seen) or ())
        known_covered = len(covered)
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
            own: list[tuple[str, PageSpec]] = []  # (card, page) of each post's own card
            for spec in job.plan.pages.get(lang, ()):
                image = spec.image
                if image is None:
                    continue
                if image != post_card(spec.path):  # the post's own image: (the source's)
                    entry = entry_of(spec)
                    _check_image(job, image, entry.source if entry else spec.doc)
                    continue
                own.append((image, spec))
            marks: list[bytes] = [b""] * len(own)  # (b"": none)
            known: list[tuple[str, tuple[str, ...]] | None] = [None] * len(own)
            if keys is not None:
                marks = [
                    slot + encoded[spec.made_of[0]] + image.encode() if spec.made_of else b""
                    for image, spec in own
                ]
                known = _kept_parts(parts, marks)
            hits: list[tuple[str, str, PageSpec]] = []  # (card, key, page): found by its mark
            for (image, spec), mark, part in zip(own, marks, known, strict=True):
                if part is not None:
                    key, missing = part
                    if missing:
                        _warn_glyphs(job, spec, text_font.css_family, missing)
                    hits.append((image, key, spec))
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
                if mark:
                    parts.keep(mark, (maker.key(text), missing))
            for image, spec in self._keep_each(hits, previous, tree, info):
                # (a card changed in the output: made again)
                todo.append((image, lang, _post_text(spec, entry_of(spec), lang, language.title)))
        if len(covered) > known_covered:
            parts.keep(seen, frozenset(covered))
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

    def _keep_each(
        self,
        hits: list[tuple[str, str, PageSpec]],
        previous: dict[str, tuple[str, Identity]],
        tree: OutputTree,
        info: OutputFile,
    ) -> list[tuple[str, PageSpec]]:
        """`_kept` for the cards `hits` (card, key, page) of a language at once (one
        OutputTree.keep_each and one record_kept_all, not a call of each per card); returns
        the (card, page) of those not kept, to be made again."""
        keys = self.keys
        wanted: list[tuple[str, Identity]] = []
        for image, key, _spec in hits:
            rel = image[1:]  # (a page's path + card.png: always from the root)
            keys[rel] = key
            old = previous.get(rel)
            if old is not None and old[0] == key:
                wanted.append((rel, old[1]))
        kept = tree.keep_each(wanted) if wanted else set()
        tree.record_kept_all(dict.fromkeys(kept, info))
        self.kept += len(kept)
        if len(kept) == len(hits):
            return []
        return [(image, spec) for image, _key, spec in hits if image[1:] not in kept]

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
    with its new identity; a card no longer published is forgotten. (The cards this build
    made, all published: in C, each identity unpacked as OutputTree.keep_each does.)"""
    entries = cache.cards.get(str(out), {})
    now: dict[str, tuple[str, Identity]] = {}
    for rel in entries if keys is None else filterfalse(keys.__contains__, entries):
        key, (mtime, _ctime, size, ino) = entries[rel]
        ident = published.get(rel)
        if ident is not None:
            new = unpack_four(ident)
            if (new[0], new[2], new[3]) == (mtime, size, ino):
                now[rel] = (key, new)
    if keys:
        idents = list(map(published.get, keys))
        if None in idents:  # (a card not published: never, but not assumed)
            for (rel, key), ident in zip(keys.items(), idents, strict=True):
                if ident is not None:
                    now[rel] = (key, unpack_four(ident))
        else:
            recorded = map(unpack_four, cast("list[bytes]", idents))
            now.update(zip(keys, zip(keys.values(), recorded, strict=True), strict=True))
    cache.cards[str(out)] = now


def _kept_parts(parts: Parts, marks: list[bytes]) -> list[tuple[str, tuple[str, ...]] | None]:
    """Parts.kept of each mark (None: not kept, or no mark: b""), in bulk (as Parts._found: a
    dict look-up each, no call): the last build's or this one's, carried into this one's."""
    now, earlier = parts.now, parts.earlier
    found: list[tuple[str, tuple[str, ...]] | None] = list(map(earlier.get, marks))
    for n in [n for n, part in enumerate(found) if part is None or not marks[n]]:
        found[n] = now.get(marks[n]) if marks[n] else None
    now.update([(mark, part) for mark, part in zip(marks, found, strict=True) if part is not None])
    return found


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
