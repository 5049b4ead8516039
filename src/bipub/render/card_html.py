"""Post cards' HTML kept from build to build: a listing page (blog, tag, series, home) shows
ten cards, each rendered by partials/post_card.html (render/templates.py `CardHtml`); a new
post, a deleted one or a draft toggle shifts every listing page of its language, and those
pages are rendered again, but their cards are the same as in the last build.

A card's HTML is kept by what it is made of: its language, its card key (HtmlRenderer's: the
card's every field, as the fingerprints of the pages that show it take it), its heading level
and list number, all under the build's site-wide key (templates, catalogs, configuration,
bipub's version: `start`). A card whose key changed is rendered again; a template or catalog
changed drops every card kept.

A build reads them from .bipub-cache/card-html/ (signed like every cache file), one file of
cards per language, heading level and one of `SHARDS` parts of the card keys: a file is read the
first time a card of it is not found in memory (once per renderer and site-wide key). A build
after a title edit looks up the other cards of one blog page and the archive's rows: it reads a
few files of one language's cards and that language's rows, not every card of the site (~11 MB
at 5,000 posts a language). A renderer's first build (every `bipub build`, the first build of
`bipub serve`) writes again, after a build of every language that made cards (`save`), the
files of the cards it made only, each with the cards of that build only; a renderer kept from
build to build (`bipub serve`'s) keeps the cards its next builds make in memory only.

A page that shows a card not made yet in a build, whose key is known (its post did not change),
is given a `KeptCard` in its place (`PageViews.shown_card`): its HTML is the one kept, and the
card is made only if a template reads another of its fields (the listings after a new post show
~18,000 cards at 5,000 posts a language, none of which is then made)."""

from __future__ import annotations

import datetime as dt
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bipub.cache import UNREADABLE, load_signed, save_signed
from bipub.code_stamp import CODE

FORMAT = 2
FOLDER = "card-html"  # (in the build cache's folder: a file of cards each `_shard`)
SHARDS = 64  # the files of one language's cards of one heading level
OLD_FILE = "card-html.pickle"  # (bipub before session 37 kept them all in one file: removed)
CardAt = tuple[str, str, int, int | None]  # (language, card key, heading level, list number)


def _stamp(made_with: str) -> bytes:
    return f"bipub-card-html:{FORMAT}:{CODE}:{made_with}\n".encode()


def _shard(at: CardAt) -> str:
    """The name of the file (without its suffix) that keeps the card `at`: its language, its
    heading level and a part of the card keys (the cards of one listing page are in as many
    files as it has cards; the archive's rows of a language, in `SHARDS` files of their own)."""
    return f"{at[0]}-{at[2]}-{zlib.crc32(at[1].encode()) % SHARDS:02d}"


class KeptCardHtml:
    """The cards' HTML of the last builds (see the module's text)."""

    def __init__(self) -> None:
        self.made_with: str | None = None  # (the site-wide key; None: nothing kept)
        # (each card's HTML as its template rendered it and as it is saved: a str, made Markup
        # where a template is given it, render/templates.py `CardHtml`)
        self.html: dict[CardAt, str] = {}
        self.made: dict[CardAt, str] = {}  # (since `start`, or since `take_made`)
        # the key of a card made by this build, or None (its HTML is then not kept)
        self.key_of: Callable[[object, str], str | None] = lambda card, lang: None
        self.folder: Path | None = None  # the build cache's folder (`bipub build`), or None
        self.note = ""  # why a file was not used (for `-v`)
        self._unread: list[str] = []  # (each file not used since `start`, and why: `note`)
        # the files read for `made_with`: the cards each held (a file missing or not used: none)
        self._read: dict[str, tuple[CardAt, ...]] = {}
        self._save = False  # (this build writes the files)

    def start(self, made_with: str, folder: Path | None = None, *, save: bool = True) -> None:
        """A build with the site-wide key `made_with`; `folder`: the build cache's folder,
        where the files are read from (each once, when a card of it is first not found), or
        None (nothing read or written); `save`: whether this build writes them (`save`). What
        was kept under another key is dropped."""
        if made_with != self.made_with:
            self.html = {}
            self._read = {}
        self.made_with = made_with
        self.made = {}
        self.folder = folder
        self._save = save
        self.note = ""
        self._unread = []

    def get(self, at: CardAt) -> str | None:
        found = self.html.get(at)
        if found is None and self.folder is not None:
            name = _shard(at)
            if name not in self._read:
                self._read_shard(name)
                found = self.html.get(at)
        return found

    def keep(self, at: CardAt, html: str) -> None:
        self.html[at] = self.made[at] = html

    def take_made(self) -> dict[CardAt, str]:
        """The cards made since the last call (a render worker sends them to the build's
        process: `add`)."""
        made, self.made = self.made, {}
        return made

    def add(self, made: dict[CardAt, str]) -> None:
        """Cards a render worker made."""
        self.html.update(made)
        self.made.update(made)

    def _read_shard(self, name: str) -> None:
        """The cards of the file `name`, read (once: `_read`) into `html` (a card there
        already has the same HTML: it is kept by what it shows)."""
        assert self.folder is not None
        cards = self._load(self.folder / FOLDER / f"{name}.pickle")
        self.html.update(cards)  # (as saved: not copied into a Markup each)
        self._read[name] = tuple(cards)

    def _load(self, path: Path) -> dict[CardAt, str]:
        assert self.made_with is not None
        stamp = _stamp(self.made_with)
        try:
            with path.open("rb") as f:
                if f.read(len(stamp)) != stamp:
                    return {}  # another site-wide key's (or another bipub's): not used
            found = load_signed(path, skip=len(stamp))
            if not isinstance(found, tuple) or len(found) != 2 or found[0] != stamp:
                raise ValueError("not a file of cards' HTML")
            cards: dict[Any, str] = found[1]
            if not isinstance(cards, dict):
                raise ValueError("not a file of cards' HTML")
            return cards
        except FileNotFoundError:
            return {}
        except UNREADABLE as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            self._unread.append(f"{FOLDER}/{path.name}: {why or type(exc).__name__}")
            more = f"; and {len(self._unread) - 1} more files" if len(self._unread) > 1 else ""
            self.note = f"cards' HTML not read ({self._unread[0]}{more}): rendered"
            return {}

    def save(self, live: set[str]) -> None:
        """Write the files of the cards this build made (`bipub build`), if it made any: each
        with its kept cards whose card key is in `live` (the cards of this build) or that this
        build made. The files of no card made are left as they are (their cards of deleted or
        changed posts too, until a card of theirs is made)."""
        if self.folder is None or self.made_with is None or not self.made or not self._save:
            return
        live = live | {at[1] for at in self.made}
        made: dict[str, dict[CardAt, str]] = {}
        for at, text in self.made.items():
            made.setdefault(_shard(at), {})[at] = text
        stamp = _stamp(self.made_with)
        folder = self.folder / FOLDER
        kept = self.html
        for name in sorted(made):
            if name not in self._read:  # (read by render workers only: its other cards kept)
                self._read_shard(name)
            cards = {at: kept[at] for at in self._read[name] if at[1] in live}
            cards.update(made[name])
            # (an OSError is the build's `cache-not-saved` warning: pipeline.py, after
            # publishing)
            save_signed(folder / f"{name}.pickle", (stamp, cards), prefix=stamp)
            self._read[name] = tuple(cards)
        (self.folder / OLD_FILE).unlink(missing_ok=True)


class KeptCard:
    """A post's card whose key is known (`PageViews.shown_card`: its entry did not change
    since the build that made the key) and that no one made yet in this build: a listing page
    (blog, tag, series, home) or the archive shows it without making it. `key` and `date` are
    the card's own (`PageViews._make_card`: the entry's key and date, what the archive's years
    are made of); `CardHtml` gives its HTML as kept under its card key (`kept_html`) at the
    heading level and list number it is shown at, or, if none is kept there, renders the card.
    Any other field a template reads makes the card (`make`: the renderer's `_card`, once per
    build, the one object it hands out) and is read from it, so it shows as the card would."""

    __slots__ = ("_card", "_card_key", "_lang", "_make", "date", "key")

    def __init__(
        self,
        key: str,
        date: dt.date | None,
        lang: str,
        card_key: str,
        make: Callable[[], object],
    ) -> None:
        self.key, self.date = key, date
        self._lang, self._card_key = lang, card_key
        self._make = make
        self._card: object = None

    @property
    def card(self) -> object:
        """The post's card (made on the first read of a field other than those kept here). An
        AttributeError while making it is raised as a RuntimeError: from `__getattr__` it would
        say the field is missing, and a template would print nothing where the field goes."""
        card = self._card
        if card is None:
            try:
                card = self._card = self._make()
            except AttributeError as exc:
                raise RuntimeError(f"the card of {self.key} could not be made: {exc}") from exc
        return card

    def __getattr__(self, name: str) -> Any:
        # (only for a name not set here: every other field of the card, as the card has it; a
        # slot not set yet, as copy or pickle see one, is not looked for in the card)
        if name in KeptCard.__slots__:
            raise AttributeError(name)
        return getattr(self.card, name)

    def __repr__(self) -> str:
        return repr(self.card)

    def __str__(self) -> str:
        return str(self.card)

    def __eq__(self, other: object) -> bool:
        return self.card == (other.card if isinstance(other, KeptCard) else other)

    def __hash__(self) -> int:
        return hash(self.card)


def kept_html(
    card: KeptCard, kept: KeptCardHtml, lang: str, level: int, number: int | None
) -> str | None:
    """The HTML of `card` shown in `lang` at heading `level` and list `number` as the last
    builds kept it (under its card key), or None (then the card is made and rendered)."""
    if card._lang != lang:
        return None
    return kept.get((lang, card._card_key, level, number))
