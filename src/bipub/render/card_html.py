"""Post cards' HTML kept from build to build: a listing page (blog, tag, series, home) shows
ten cards, each rendered by partials/post_card.html (render/templates.py `CardHtml`); a new
post, a deleted one or a draft toggle shifts every listing page of its language, and those
pages are rendered again, but their cards are the same as in the last build.

A card's HTML is kept by what it is made of: its language, its card key (HtmlRenderer's: the
card's every field, as the fingerprints of the pages that show it take it), its heading level
and list number, all under the build's site-wide key (templates, catalogs, configuration,
bipub's version: `start`). A card whose key changed is rendered again; a template or catalog
changed drops every card kept.

A build reads them from .bipub-cache/card-html.pickle (signed like every cache file) the first
time a card is not found in memory (once per renderer and site-wide key). A renderer's first
build (every `bipub build`, the first build of `bipub serve`) writes the file again after a
build of every language that made cards (`save`), with the cards of that build only; a
renderer kept from build to build (`bipub serve`'s) keeps the cards its next builds make in
memory only."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from markupsafe import Markup

from bipub.cache import UNREADABLE, load_signed, save_signed
from bipub.code_stamp import CODE

FORMAT = 1
FILE = "card-html.pickle"
CardAt = tuple[str, str, int, int | None]  # (language, card key, heading level, list number)


def _stamp(made_with: str) -> bytes:
    return f"bipub-card-html:{FORMAT}:{CODE}:{made_with}\n".encode()


class KeptCardHtml:
    """The cards' HTML of the last builds (see the module's text)."""

    def __init__(self) -> None:
        self.made_with: str | None = None  # (the site-wide key; None: nothing kept)
        self.html: dict[CardAt, Markup] = {}
        self.made: dict[CardAt, Markup] = {}  # (since `start`, or since `take_made`)
        # the key of a card made by this build, or None (its HTML is then not kept)
        self.key_of: Callable[[object, str], str | None] = lambda card, lang: None
        self.folder: Path | None = None  # where the file is (`bipub build`), or None
        self.note = ""  # why the file was not used (for `-v`)
        self._read = False  # (the file was read for `made_with`)
        self._save = False  # (this build writes the file)

    def start(self, made_with: str, folder: Path | None = None, *, save: bool = True) -> None:
        """A build with the site-wide key `made_with`; `folder`: the build cache's folder,
        where the file is read from (once, when a card is first not found), or None (nothing
        read or written); `save`: whether this build writes it (`save`). What was kept under
        another key is dropped."""
        if made_with != self.made_with:
            self.html = {}
            self._read = False
        self.made_with = made_with
        self.made = {}
        self.folder = folder
        self._save = save
        self.note = ""

    def get(self, at: CardAt) -> Markup | None:
        found = self.html.get(at)
        if found is None and not self._read and self.folder is not None:
            self._read = True
            self.html.update(self._load())
            found = self.html.get(at)
        return found

    def keep(self, at: CardAt, html: Markup) -> None:
        self.html[at] = self.made[at] = html

    def take_made(self) -> dict[CardAt, Markup]:
        """The cards made since the last call (a render worker sends them to the build's
        process: `add`)."""
        made, self.made = self.made, {}
        return made

    def add(self, made: dict[CardAt, Markup]) -> None:
        """Cards a render worker made."""
        self.html.update(made)
        self.made.update(made)

    def _load(self) -> dict[CardAt, Markup]:
        assert self.folder is not None and self.made_with is not None
        path = self.folder / FILE
        stamp = _stamp(self.made_with)
        try:
            with path.open("rb") as f:
                if f.read(len(stamp)) != stamp:
                    return {}  # another site-wide key's (or another bipub's): not used
            found = load_signed(path, skip=len(stamp))
            if not isinstance(found, tuple) or len(found) != 2 or found[0] != stamp:
                raise ValueError("not a file of cards' HTML")
            cards: dict[Any, str] = found[1]
            return {at: Markup(html) for at, html in cards.items()}  # noqa: S704 - ours
        except FileNotFoundError:
            return {}
        except UNREADABLE as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            self.note = f"cards' HTML not read ({FILE}: {why or type(exc).__name__}): rendered"
            return {}

    def save(self, live: set[str]) -> None:
        """Write the file (`bipub build`), if this build made cards: the kept cards whose card
        key is in `live` (the cards of this build) or that this build made."""
        if self.folder is None or self.made_with is None or not self.made or not self._save:
            return
        if not self._read:  # (cards made by render workers only: they read the file)
            self._read = True
            self.html = {**self._load(), **self.html}
        live = live | {at[1] for at in self.made}
        cards = {at: str(html) for at, html in self.html.items() if at[1] in live}
        stamp = _stamp(self.made_with)
        # (an OSError is the build's `cache-not-saved` warning: pipeline.py, after publishing)
        save_signed(self.folder / FILE, (stamp, cards), prefix=stamp)
