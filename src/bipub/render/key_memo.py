"""What the last build of a resident caller worked out as each entry's key (`EntryKeyMemo`, for
render/html.py `HtmlRenderer.entry_keys`), and which posts' neighbours or series moved since
(`moved`: render/page_plan.py PageMemo asks too)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Container, Sequence
from dataclasses import dataclass, field
from itertools import compress, count
from operator import is_not, itemgetter
from typing import Any, get_args

from bipub.model.post import Kind

EntryId = tuple[str, str]  # (kind, key) of a post or page
_KINDS: tuple[str, ...] = get_args(Kind)  # (an entry's kinds: `EntryKeyMemo.lay`)
# entries of an update `EntryKeyMemo.lay` works out again at least before it looks at each
MANY_KEYS = 64


def moved(
    before: dict[str, tuple[str, ...]] | None,
    order: dict[str, tuple[str, ...]],
    before_members: dict[tuple[str, str], object],
    members: dict[tuple[str, str], object],
) -> set[tuple[str, str]] | None:
    """The (language, entry key) pairs whose neighbours in `order` (each language's posts by
    key, newest first) or whose series (`members`, by (language, entry key): what a page or key
    shows of it) are not those of `before` and `before_members`; None if `before` is None or
    lacks a language (nothing known)."""
    if before is None:
        return None
    out: set[tuple[str, str]] = set()
    for lang, keys in order.items():
        was = before.get(lang)
        if was is None:
            return None
        if was != keys:
            out.update((lang, k) for k in _moved_keys(was, keys))
    if members != before_members:
        out.update(
            k
            for k in members.keys() | before_members.keys()
            if members.get(k) != before_members.get(k)
        )
    return out


def _moved_keys(was: tuple[str, ...], keys: tuple[str, ...]) -> list[str]:
    """The keys of `keys` (each once) whose (the one before it, the one after it) are not
    those they had in `was`, or that `was` lacks. Only the keys between the start and the end
    the two have in common (and one on each side) are looked at: the neighbours of the others
    are the same keys (an update adds, removes or moves one post or a few, of thousands)."""
    n, m = len(was), len(keys)
    p, q, least = 0, 0, min(n, m)
    while p < least and was[p] == keys[p]:
        p += 1
    while q < least - p and was[n - 1 - q] == keys[m - 1 - q]:
        q += 1
    lo = max(0, p - 1)
    old = {
        was[i]: (was[i - 1] if i > 0 else None, was[i + 1] if i + 1 < n else None)
        for i in range(lo, min(n, n - q + 1))
    }
    return [
        key
        for i in range(lo, min(m, m - q + 1))
        if old.get(key := keys[i])
        != (keys[i - 1] if i > 0 else None, keys[i + 1] if i + 1 < m else None)
    ]


@dataclass
class EntryKeyMemo:
    """What the last build of a resident caller (`bipub serve`) worked out as each entry's key
    (render/html.py `HtmlRenderer.entry_key`) and what it was made of: the Entry itself (pair/
    site.py PairMemo keeps an unchanged entry as the very object it was: its documents, its
    versions' states, and, with the configuration, which PDFs and side-by-side page it has;
    `facts`: what `HtmlRenderer.entry_facts` works out of it alone), what it takes from the
    rest of the site (`around`: its tags' shown names, its series, its neighbours, its images
    and diagrams: `HtmlRenderer.entry_around`) and the review states of its sections
    (`review`: render/both.py review_key, from the status files). A key is taken as it was
    only when all three are the same; else it is worked out again by the same function.
    Emptied with the configuration (PageMemo)."""

    known: dict[EntryId, KeyMade] = field(default_factory=dict)
    _next: dict[EntryId, KeyMade] = field(default_factory=dict)
    status: object = None  # the status records the known keys were worked out with
    same_status: bool = False  # this build's status records are those (`start`)
    reused: int = 0  # keys taken as they were by the last `entry_keys`
    # what the known keys' `around` came from besides each entry (`around`): each language's
    # posts in order, each series member's series, each tag
    order: dict[str, tuple[str, ...]] = field(default_factory=dict)
    members: dict[tuple[str, str], object] = field(default_factory=dict)
    tags: dict[tuple[str, str], object] = field(default_factory=dict)
    _around: tuple[
        dict[str, tuple[str, ...]], dict[tuple[str, str], object], dict[tuple[str, str], object]
    ] = field(default_factory=lambda: ({}, {}, {}))
    # the entries of the last `entry_keys` in the site's order, with what was kept for each
    # (`lay`: an update takes those still in place at once, without a step each); the one
    # being laid out (`lay`, `put`, `laid`)
    layout: Layout | None = None
    _laid: Layout | None = None

    def start(self, status: object) -> None:
        """Keys are worked out for a new site whose status files hold `status`."""
        self.same_status = self.status is not None and self.status == status
        self.status, self.reused, self._next, self._laid = status, 0, {}, None

    def around(
        self,
        order: dict[str, tuple[str, ...]],
        members: dict[tuple[str, str], object],
        tags: dict[tuple[str, str], object],
    ) -> tuple[set[str], set[tuple[str, str]]] | None:
        """What moved since the known keys were worked out: the keys of the entries whose
        neighbours or series changed (`moved`) and the (language, slug) of the tags that
        changed; None if nothing is known or the status files changed (`start` first). The
        values given become the known ones."""
        found = moved(self.order or None, order, self.members, members)
        retagged = {slug for slug, _ in tags.items() ^ self.tags.items()}
        self._around = (order, members, tags)  # (known once every key is: `done`)
        if found is None or not self.same_status:
            return None
        return {key for _, key in found}, retagged

    def take(
        self,
        entry_id: EntryId,
        entry: object,
        moved: tuple[set[str], set[tuple[str, str]]],
        images: Container[str],
    ) -> str | None:
        """The key the last build worked out for `entry`, without working out its `around`
        again, if it is the very same object, neither it nor its tags moved (`around`), and no
        version of it has images or diagrams (`facts`: those are looked at again); else None.
        The status files are the same (`around` returns None otherwise): so are its review
        states."""
        known = self._taken(entry_id, entry, moved, images)
        if known is None:
            return None
        self.reused += 1
        self._next[entry_id] = known
        return known[4]

    def _taken(
        self,
        entry_id: EntryId,
        entry: object,
        moved: tuple[set[str], set[tuple[str, str]]],
        images: Container[str],
    ) -> KeyMade | None:
        """What `take` takes (nothing recorded)."""
        known = self.known.get(entry_id)
        if known is None or known[0] is not entry or entry_id[1] in moved[0]:
            return None
        retagged = moved[1]
        facts: Any = known[1]  # (render/html.py EntryFacts: per language)
        for lang, doc, slugs, diagrams in facts:
            # (a site without images reads no document here: `lay` takes every entry of a
            # build in a new process so, and each document is an object of its own in memory)
            if diagrams or (images and doc.rel in images):
                return None
            if retagged and any((lang, slug) in retagged for slug in slugs):
                return None
        return known

    def lay(
        self,
        entries: Sequence[Any],
        moved: tuple[set[str], set[tuple[str, str]]] | None,
        images: Collection[str],
    ) -> list[int]:
        """Every entry of this build (the site's, in order) whose key `take` gives, placed with
        it; returns the positions of the others (the caller works them out, `put`, then asks
        for them all, `laid`). After an update's `entry_keys` (`layout`), the entries in the
        same places, as the very same objects, are taken at once: `take` would give each (the
        same facts, looked at with the same images' documents), but for those `moved` names
        (`around`; none taken when None): their keys, the tags changed (the entries whose
        facts list them, `Layout.tagged`), and those whose facts have diagrams or images."""
        seen = frozenset(images)
        found = self._in_place(entries, moved, seen) if moved is not None else None
        if found is not None:
            return found
        ids: list[EntryId] = [(e.kind, e.key) for e in entries]
        made: list[Any] = [None] * len(entries)
        todo: list[int] = []
        for i, (entry_id, entry) in enumerate(zip(ids, entries, strict=True)):
            known = self._taken(entry_id, entry, moved, seen) if moved is not None else None
            if known is None:
                todo.append(i)
            else:
                made[i] = known
        self.reused += len(entries) - len(todo)
        self._laid = Layout(tuple(entries), ids, made, seen)
        return todo

    def _in_place(
        self,
        entries: Sequence[Any],
        moved: tuple[set[str], set[tuple[str, str]]],
        images: frozenset[str],
    ) -> list[int] | None:
        """`lay` from the last one's layout (None: none, or the images' documents changed)."""
        last = self.layout
        if last is None or images != last.images:
            return None
        before = last.entries
        n, m = len(before), len(entries)
        ids: list[Any]
        made: list[Any]  # (None: to be worked out, `put`)
        if n == m:  # (the same places: those of other objects)
            todo = list(compress(count(), map(is_not, before, entries)))
            ids, made = list(last.ids), list(last.made)
        else:  # (what lies between the same entries at the start and at the end)
            least = min(n, m)
            p = next(compress(count(), map(is_not, before, entries)), least)
            q = next(compress(count(), map(is_not, reversed(before), reversed(entries))), least)
            q = min(q, least - p)
            todo = list(range(p, m - q))
            ids = [*last.ids[:p], *[None] * len(todo), *last.ids[n - q :]]
            made = [*last.made[:p], *[None] * len(todo), *last.made[n - q :]]
        if len(todo) > max(MANY_KEYS, m // 8):
            return None  # (much of the site: entry by entry costs as much)
        for i in todo:
            entry = entries[i]
            ids[i] = (entry.kind, entry.key)
        again = set(todo)
        retagged = moved[1]
        if moved[0] or retagged or last.special:
            found = {(kind, key) for key in moved[0] for kind in _KINDS}
            found.update(last.special)
            if retagged:
                tagged = last.index()
                for tag in retagged:
                    found.update(tagged.get(tag, ()))
            where = dict(zip(ids, count()))
            again.update(where[k] for k in found if k in where)
        for i in again:
            made[i] = None
        self.reused += m - len(again)
        self._laid = Layout(tuple(entries), ids, made, images, tagged=last.tagged)
        return sorted(again)

    def put(self, i: int, made: KeyMade) -> None:
        """The key worked out for the entry at `lay`'s position `i`, with what it is made of."""
        laid = self._laid
        assert laid is not None
        laid.made[i] = made
        entry_id = laid.ids[i]
        facts: Any = made[1]  # (render/html.py EntryFacts: per language)
        if any(diagrams or doc.rel in laid.images for _, doc, _, diagrams in facts):
            laid.special.add(entry_id)
        if laid.tagged is not None:  # (kept up to date: its tags from now on too)
            _index(laid.tagged, entry_id, facts)

    def laid(self) -> dict[EntryId, str]:
        """Every entry's key, in the site's order (`lay`, then `put` for each position it
        gave): they become the known ones at `done`."""
        assert self._laid is not None
        ids, made = self._laid.ids, self._laid.made
        self._next = dict(zip(ids, made, strict=True))
        return dict(zip(ids, map(itemgetter(4), made), strict=True))

    def facts(self, entry_id: EntryId, entry: object) -> object | None:
        """What the last build worked out of `entry` alone, if it is the very same object."""
        known = self.known.get(entry_id)
        return known[1] if known is not None and known[0] is entry else None

    def get(
        self, entry_id: EntryId, entry: object, around: object, review: Callable[[], object]
    ) -> tuple[object, str | None]:
        """(the review states of `entry`, its key if the last build's holds, else None); the
        review states are worked out again (`review()`) unless the entry is the same object
        and the status files hold the same records."""
        known = self.known.get(entry_id)
        if known is None or known[0] is not entry:
            return review(), None
        states = known[3] if self.same_status else review()
        if known[2] != around or states != known[3]:
            return states, None
        self.reused += 1
        return states, known[4]

    def keep(self, entry_id: EntryId, made: KeyMade) -> None:
        self._next[entry_id] = made

    def done(self) -> None:
        """Every entry's key is worked out: they replace the last build's (removed entries go)."""
        self.known, self._next = self._next, {}
        self.order, self.members, self.tags = self._around
        self.layout, self._laid = self._laid, None  # (None: keys kept one by one)


# what EntryKeyMemo keeps for an entry: the Entry, its facts, around, review, and its key
KeyMade = tuple[object, object, object, object, str]


@dataclass
class Layout:
    """An `entry_keys`'s entries in the site's order (`EntryKeyMemo.lay`), each one's id and
    what was kept for it (None while it is to be worked out), the images' documents its facts
    were looked at with (`take`), the entries whose facts have diagrams or images (`take`
    leaves those: worked out again at every update), and, once an update changed tags, which
    entries' facts list each tag (`index`: an entry is found there for each tag its facts
    listed at any time since; looked at again, its key is the same)."""

    entries: tuple[Any, ...]
    ids: list[EntryId]
    made: list[Any]
    images: frozenset[str]
    special: set[EntryId] = field(default_factory=set)
    tagged: dict[tuple[str, str], set[EntryId]] | None = None

    def index(self) -> dict[tuple[str, str], set[EntryId]]:
        """`tagged`, made from every entry's facts the first time it is asked for."""
        if self.tagged is None:
            self.tagged = {}
            for entry_id, made in zip(self.ids, self.made, strict=True):
                _index(self.tagged, entry_id, made[1])
        return self.tagged


def _index(tagged: dict[tuple[str, str], set[EntryId]], entry_id: EntryId, facts: Any) -> None:
    """Add `entry_id` to `tagged` under each (language, tag slug) of its `facts`."""
    for lang, _, slugs, _ in facts:
        for slug in slugs:
            found = tagged.get((lang, slug))
            if found is None:
                tagged[lang, slug] = {entry_id}
            else:
                found.add(entry_id)
