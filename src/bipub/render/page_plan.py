"""The page plan: every page of every language, before any is rendered (render/html.py makes
it; render/workers.py renders it; buildstate.py keeps its fingerprints)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, overload

from bipub.diagnostics import Diagnostic, DiagnosticError
from bipub.load.content import Document
from bipub.render import urls
from bipub.render.key_memo import EntryId as EntryId
from bipub.render.key_memo import EntryKeyMemo as EntryKeyMemo
from bipub.render.key_memo import KeyMade as KeyMade
from bipub.render.key_memo import moved as moved

Route = tuple[str, ...]
_path = operator.attrgetter("path")


class _File:
    """`PageSpec.file`: worked out at the first look and kept in the page's `__dict__` (which
    is then found before this descriptor). functools.cached_property does the same behind a
    lock on Python 3.11 (~3× the cost): a build in a new process looks at every page's file
    once, 24,000 on a big site (buildstate.carry)."""

    @overload
    def __get__(self, spec: None, owner: type | None = None) -> _File: ...
    @overload
    def __get__(self, spec: PageSpec, owner: type | None = None) -> str: ...
    def __get__(self, spec: PageSpec | None, owner: type | None = None) -> str | _File:
        if spec is None:  # (looked up on the class)
            return self
        found = urls.output_file(spec.path)
        spec.__dict__["file"] = found
        return found


@dataclass(frozen=True, init=False)
class PageSpec:
    route: Route
    lang: str
    path: str
    template: str
    title: str
    description: str
    context: Callable[[], dict[str, Any]]
    og_type: str = "website"
    content_lang: str = ""
    canonical_path: str | None = None  # another page is canonical (fallback content)
    noindex: bool = False
    deps: Callable[[], object] | None = None  # cheap summary of what the page is made from
    doc: Document | None = None  # the document whose body the page shows (posts and pages)
    # the keys of the posts whose cards it shows (listings: buildstate.carry keeps the last
    # fingerprint of a listing PageMemo kept as it was while none of these changed)
    lists: tuple[str, ...] = ()
    # a post's or page's: its entry, its series' members and its neighbours (buildstate.carry
    # keeps its last fingerprint while none of these changed)
    made_of: tuple[EntryId, ...] = ()
    image: str | None = None  # og:image: a URL or site path (None: the language's site card)
    # a blog or tag page's values but for its posts' cards (what it lists, its number, the
    # page count, the number of posts listed in all): with `lists`, what its fingerprint is
    # made of besides the site-wide key, its own values and its counterparts' (render/html.py
    # `listing_values`: buildstate.carry compares them, not the cards' keys)
    shape: tuple[object, ...] | None = None
    # the language `title` is written in when it is not `content_lang` (a series page whose
    # series has no member translated yet: its name), for the <head> texts' `lang`
    title_lang: str = ""

    # the output file it is written to (urls.output_file; worked out once: a kept page is
    # looked at by every update)
    file = _File()

    def __init__(
        self,
        route: Route,
        lang: str,
        path: str,
        template: str,
        title: str,
        description: str,
        context: Callable[[], dict[str, Any]],
        og_type: str = "website",
        content_lang: str = "",
        canonical_path: str | None = None,
        noindex: bool = False,
        deps: Callable[[], object] | None = None,
        doc: Document | None = None,
        lists: tuple[str, ...] = (),
        made_of: tuple[EntryId, ...] = (),
        image: str | None = None,
        shape: tuple[object, ...] | None = None,
        title_lang: str = "",
    ) -> None:
        # the dataclass's own __init__ sets each field through object.__setattr__ (frozen):
        # ~3x the cost of one update of the fields, for each of the ~24,000 pages a build in a
        # new process plans on a big site (the fields as the dataclass declares them:
        # tests/unit/test_page_spec.py)
        self.__dict__.update(
            route=route,
            lang=lang,
            path=path,
            template=template,
            title=title,
            description=description,
            context=context,
            og_type=og_type,
            content_lang=content_lang,
            canonical_path=canonical_path,
            noindex=noindex,
            deps=deps,
            doc=doc,
            lists=lists,
            made_of=made_of,
            image=image,
            shape=shape,
            title_lang=title_lang,
        )

    @classmethod
    def later(
        cls,
        route: Route,
        lang: str,
        path: str,
        template: str,
        fill: Callable[..., dict[str, Any]],
        args: tuple[object, ...] = (),
        *,
        canonical_path: str | None = None,
        noindex: bool = False,
        doc: Document | None = None,
        made_of: tuple[EntryId, ...] = (),
        image: str | None = None,
    ) -> PageSpec:
        """A page whose `LATER` fields (what only its own rendering and fingerprint read) are
        made when first read, all at once, by `fill(*args)` (their values by name): a build
        after an edit plans every post's pages and reads those of the few it renders
        (render/html.py `_entry_page`, `_both_page`). Equal to the page made with them.
        (`fill` and its `args` apart, not a `functools.partial` made for each: a build in a new
        process makes ~20,000 such pages at 5,000 posts a language.)"""
        spec = cls.__new__(cls)
        spec.__dict__.update(
            route=route,
            lang=lang,
            path=path,
            template=template,
            canonical_path=canonical_path,
            noindex=noindex,
            doc=doc,
            lists=(),
            made_of=made_of,
            image=image,
            shape=None,
            title_lang="",
            _later=fill,
            _args=args,
        )
        return spec

    if not TYPE_CHECKING:  # (for mypy, the `LATER` fields are fields like the others)

        def __getattr__(self, name: str) -> Any:
            """A `LATER` field of a page made `later`, made with the others at the first read
            (only for a name not found otherwise: a page's own fields are in its __dict__)."""
            values = self.__dict__
            args = values.get("_args", ())  # (before `_later`, which goes first: below)
            fill = values.get("_later")
            if fill is None or name not in LATER:
                if name in values:  # (made meanwhile, by another thread)
                    return values[name]
                raise AttributeError(name)
            for key, value in fill(*args).items():
                values.setdefault(key, value)
            values.pop("_later", None)
            values.pop("_args", None)
            return values[name]


# what a page made `PageSpec.later` makes when first read: its own rendering's and fingerprint's
# values, which the passes over every page of a build (carry, keeping the known pages, the
# sitemap, the cards, the aliases) do not read
LATER = frozenset({"title", "description", "context", "deps", "og_type", "content_lang"})
for _name in LATER:  # (no class default: a missing one is looked for by `__getattr__`)
    if _name in vars(PageSpec):
        delattr(PageSpec, _name)


@dataclass
class Plan:
    pages: dict[str, list[PageSpec]] = field(default_factory=dict)  # lang → pages
    routes: dict[Route, dict[str, PageSpec]] = field(default_factory=dict)  # route → lang → page

    paths: dict[str, PageSpec] = field(default_factory=dict)

    def add(self, spec: PageSpec) -> None:
        path = spec.path
        if path in self.paths:
            clash = self.paths[path]
            raise DiagnosticError(
                [
                    Diagnostic(
                        None,
                        None,
                        "url-clash",
                        f"two pages map to {spec.path}: {clash.template} {clash.route} "
                        f"and {spec.template} {spec.route}",
                    )
                ]
            )
        self.paths[path] = spec
        lang = spec.lang
        pages = self.pages.get(lang)
        if pages is None:
            pages = self.pages[lang] = []
        pages.append(spec)
        routes = self.routes.get(spec.route)
        if routes is None:
            routes = self.routes[spec.route] = {}
        routes[lang] = spec

    def extend(self, lang: str, specs: list[PageSpec]) -> None:
        """`add` each of `specs`, pages of `lang`, in one go (an update's plan takes most of its
        pages as the last plan made them: render/html.py `_plan_entries`)."""
        if not specs:
            return
        paths, ahead = self.paths, len(self.paths) + len(specs)
        # (no page of `paths` at one of theirs, then none of them at the same path as another:
        # added straight to `paths`, without a dict of their own first)
        clash = not paths.keys().isdisjoint(map(_path, specs))
        if not clash:
            paths.update(zip(map(_path, specs), specs, strict=True))
            if len(paths) != ahead:  # (two of them at one path: none of them was there)
                for spec in specs:
                    paths.pop(spec.path, None)
                clash = True
        if clash:
            for spec in specs:  # (a clash: said by `add`, as a page at a time says it)
                self.add(spec)
            return
        pages = self.pages.get(lang)
        if pages is None:
            pages = self.pages[lang] = []
        pages.extend(specs)
        routes = self.routes
        for spec in specs:
            found = routes.get(spec.route)
            if found is None:
                routes[spec.route] = {lang: spec}
            else:
                found[lang] = spec


def made_of_values(plan: Plan, spec: PageSpec, global_key: str) -> object | None:
    """What a page's fingerprint is the hash of (render/html.py `HtmlRenderer.fingerprint`):
    the site-wide key, the page's own values, its counterparts in the other languages and what
    it shows (`PageSpec.deps`); None if it cannot be summarized."""
    if spec.deps is None:
        return None
    return (_summary(plan, spec, global_key), spec.deps())


def listing_values(plan: Plan, spec: PageSpec, global_key: str) -> object | None:
    """What buildstate.py keeps of a listing page (blog, tag, home: `PageSpec.lists`) for a
    build in a new process to find it made of the same values: a blog or tag page's
    `made_of_values` with its posts' keys (`lists`) in place of their cards' keys (its
    `shape`: what render/html.py `_list_key` takes besides the cards), without working the
    cards' keys out; another's (the home page) `made_of_values`. Of two listing pages with the same posts,
    none of which changed since (their entries' keys: buildstate.carry), these are equal
    only if `made_of_values` are (a post's card key is kept while its entry's key is)."""
    shape = spec.shape
    if shape is None or spec.deps is None:
        return made_of_values(plan, spec, global_key)
    return ("listing", _summary(plan, spec, global_key), shape, spec.lists)


def _summary(plan: Plan, spec: PageSpec, global_key: str) -> tuple[object, ...]:
    """A page's own values and its counterparts' in the other languages (hreflang), and for
    a page of a list with fewer pages in another language, the page its switcher goes to."""
    siblings = plan.routes.get(spec.route, {})
    meta = tuple(
        (code, s.path, s.canonical_path, s.noindex) for code, s in sorted(siblings.items())
    )
    out: tuple[object, ...] = (
        global_key,
        spec.template,
        spec.path,
        spec.title,
        spec.canonical_path,
        meta,
    )
    if spec.title_lang:
        out = (*out, spec.title_lang)
    switched = nearest(plan, spec)
    return (*out, tuple((s.lang, s.path) for s in switched)) if switched else out


PAGED = frozenset({"blog", "tag"})  # the routes of numbered list pages: (..., "<n>")


def counterpart(plan: Plan, spec: PageSpec, lang: str) -> tuple[PageSpec | None, bool]:
    """The page the language switcher of `spec` goes to in `lang`: its counterpart (True);
    for a page of a list (the blog, a tag) with fewer pages in `lang`, the last page that
    list has there (False); None if there is neither (the switcher goes to the home)."""
    route = spec.route
    found = plan.routes.get(route, {}).get(lang)
    if found is not None or route[0] not in PAGED or not route[-1].isdigit():
        return found, True
    for n in range(int(route[-1]) - 1, 0, -1):
        found = plan.routes.get((*route[:-1], str(n)), {}).get(lang)
        if found is not None:
            return found, False
    return None, False


def nearest(plan: Plan, spec: PageSpec) -> tuple[PageSpec, ...]:
    """The pages the switcher of a list page goes to in the languages it has no counterpart
    in (`counterpart`: that list's last page there), by language; () for another page."""
    route = spec.route
    siblings = plan.routes.get(route, {})
    if route[0] not in PAGED or len(siblings) >= len(plan.pages):
        return ()
    found = (counterpart(plan, spec, code)[0] for code in sorted(plan.pages) if code != spec.lang)
    return tuple(other for other in found if other is not None)


def later_pages(plan: Plan, spec: PageSpec) -> list[PageSpec]:
    """The pages of the list of `spec` (a list page, of this plan or the last) after its
    number in `plan` that have no counterpart in its language: those whose switcher may go to
    it (`nearest`)."""
    route = spec.route
    if route[0] not in PAGED or not route[-1].isdigit():
        return []
    out: list[PageSpec] = []
    n = int(route[-1]) + 1
    while (found := plan.routes.get((*route[:-1], str(n)))) is not None:
        if spec.lang not in found:
            out.extend(found.values())
        n += 1
    return out


MANY = 16  # entries of a run `PageMemo.carried` plans again at least before it looks at each


@dataclass
class PageMemo:
    """What the last plan of a resident caller (`bipub serve`, which keeps it between builds)
    made for each post, page and listing page: a page is taken as it was when the entries it
    was planned for are the very objects it was planned for (pair/site.py PairMemo keeps an
    unchanged entry as it was) and what else it is made of (`inputs`: a post's series members
    and neighbours, a listing page's number and count) is equal; else it is planned again by
    the same function. A kept page's context and fingerprint are worked out, when asked, by
    the renderer that planned it, which render/html.py `HtmlRenderer.again` starts again with
    the new site before each plan."""

    renderer: Any = None  # the HtmlRenderer the kept pages belong to (render/html.py)
    config: Any = None  # the configuration it was made with (another: nothing is kept)
    pages: dict[tuple[str, ...], Kept] = field(default_factory=dict)
    keys: EntryKeyMemo = field(default_factory=lambda: EntryKeyMemo())  # each entry's key
    _next: dict[tuple[str, ...], Kept] = field(default_factory=dict)
    reused: int = 0  # pages taken as they were by the last plan
    # what the last plan's post and page pages' `made_of` came from besides their entry: each
    # language's posts in order (their neighbours) and each series member's members
    order: dict[str, tuple[str, ...]] = field(default_factory=dict)
    members: dict[tuple[str, str], object] = field(default_factory=dict)
    _around: tuple[dict[str, tuple[str, ...]], dict[tuple[str, str], object]] = field(
        default_factory=lambda: ({}, {})
    )
    # each run of entries the last plan planned in a row (render/html.py `_plan_entries`: a
    # language's posts, its pages), by (language, run): the entries, each one's pages, and
    # where each entry's key is in it; an update takes the run whole but for the entries that
    # are not the same objects or moved (`carried`), not entry by entry
    runs: dict[tuple[str, str], Run] = field(default_factory=dict)
    _next_runs: dict[tuple[str, str], Run] = field(default_factory=dict)
    # a run's index (where each entry's key is, each one's key in `pages`) as `carried` found
    # it again, for `record`
    _index: dict[tuple[str, str], tuple[dict[str, int], list[tuple[str, ...]]]] = field(
        default_factory=dict
    )
    # read back from disk for one build (restore.py: `bipub build`, whose process plans once):
    # its entries' keys only are used and kept; its pages are not (no later plan reads them)
    once: bool = False

    def get(
        self, key: tuple[str, ...], entries: tuple[object, ...], inputs: object
    ) -> tuple[PageSpec, ...] | None:
        """The pages the last plan made for `key`, if made of the same entries and inputs."""
        known = self.pages.get(key)
        if (
            known is None
            or len(known[0]) != len(entries)
            or not all(map(operator.is_, known[0], entries))
            or known[1] != inputs
        ):
            return None
        self.reused += len(known[2])
        self._next[key] = known
        return known[2]

    def take(self, key: tuple[str, ...], entry: object) -> tuple[PageSpec, ...] | None:
        """The pages the last plan made for `key` of `entry` alone, if it is the very same
        object, without comparing what else they were made of: the caller knows it is the same
        (`around`: an entry's page is made of its series' members and its neighbours too)."""
        known = self.pages.get(key)
        if known is None or len(known[0]) != 1 or known[0][0] is not entry:
            return None
        self.reused += len(known[2])
        self._next[key] = known
        return known[2]

    def around(
        self, order: dict[str, tuple[str, ...]], members: dict[tuple[str, str], object]
    ) -> set[tuple[str, str]] | None:
        """The (language, entry key) pairs whose neighbours or series' members are not the last
        plan's (`moved`); None if nothing is known (the first plan). `order` and `members`
        become the known ones."""
        self._around = (order, members)  # (known once the plan is made: `done`)
        self._next_runs, self._index = {}, {}
        return moved(self.order or None, order, self.members, members)

    def carried(
        self,
        run: tuple[str, str],
        entries: Sequence[Any],
        moved: set[tuple[str, str]],
    ) -> tuple[list[tuple[PageSpec, ...]], list[int], bool] | None:
        """The pages the last plan made for each of `entries`, a run of entries of one
        language (`run`: (language, name)), as `take` gives them, the positions of those it
        does not give (not the same object as the last plan's there, or `moved`: the caller
        plans those), and whether each entry's key is where it was; None if the last plan had
        no such run (each entry is then looked at). Of a run of another length (a new or
        deleted entry), the entries after the first that is not the last plan's and before
        the last such one are planned. The pages given stay known (`take`)."""
        known = self.runs.get(run)
        if known is None:
            return None
        before, per, where, keys = known
        n, m = len(before), len(entries)
        if n == m:
            todo = [i for i, (a, b) in enumerate(zip(before, entries, strict=True)) if a is not b]
            same = all(before[i].key == entries[i].key for i in todo)
            stretch = todo  # (the positions whose entry is another one)
        else:  # the same entries before and after one stretch (`p`, `q`: how many)
            p, q, least = 0, 0, min(n, m)
            while p < least and before[p] is entries[p]:
                p += 1
            while q < least - p and before[n - 1 - q] is entries[m - 1 - q]:
                q += 1
            todo = list(range(p, m - q))
            per = [*per[:p], *[()] * len(todo), *per[n - q :]]
            keys = [*keys[:p], *[()] * len(todo), *keys[n - q :]]
            same = False
            stretch = list(range(p, m))  # (those after it moved: found again)
        lang = run[0]
        if not same:  # (reordered: found again where they are not where they were)
            where = dict(where)
            for i in stretch if n == m else range(p, n):
                where.pop(before[i].key, None)
            for i in stretch:
                where[entries[i].key] = i
            keys = list(keys)
            for i in todo:
                entry = entries[i]
                keys[i] = ("entry", entry.kind, entry.key, lang)
        todo += [where[key] for moved_lang, key in moved if moved_lang == lang and key in where]
        skip = set(todo)
        if len(skip) > max(MANY, len(entries) // 4):
            return None  # (much of the run: entry by entry costs as much)
        chosen = [key for i, key in enumerate(keys) if i not in skip] if skip else keys
        found: list[Any] = list(map(self.pages.get, chosen))
        if None in found:
            return None  # (not the last plan's pages: entry by entry)
        self._next.update(zip(chosen, found, strict=True))
        self.reused += sum(len(kept[2]) for kept in found)
        if not same:  # (`record` takes them: the run's index as it is now)
            self._index[run] = (where, keys)
        return list(per), sorted(skip), same

    def record(
        self,
        run: tuple[str, str],
        entries: Sequence[Any],
        per: list[tuple[PageSpec, ...]],
        same: bool = False,
    ) -> None:
        """The run `run` of this plan: its entries and each one's pages (`carried`; `same`:
        each entry's key is where it was in the last plan's run)."""
        known = self.runs.get(run)
        if same and known is not None:
            self._next_runs[run] = (tuple(entries), per, known[2], known[3])
            return
        index = self._index.pop(run, None)  # (found again by `carried`)
        if index is not None:
            self._next_runs[run] = (tuple(entries), per, *index)
            return
        lang = run[0]
        where: dict[str, int] = {e.key: i for i, e in enumerate(entries)}
        keys: list[tuple[str, ...]] = [("entry", e.kind, e.key, lang) for e in entries]
        self._next_runs[run] = (tuple(entries), per, where, keys)

    def keep(
        self,
        key: tuple[str, ...],
        entries: tuple[object, ...],
        inputs: object,
        specs: tuple[PageSpec, ...],
    ) -> None:
        self._next[key] = (entries, inputs, specs)

    def done(self) -> None:
        """The plan is made: its pages replace the last plan's (those of removed entries go)."""
        self.pages, self._next = self._next, {}
        self.order, self.members = self._around
        self.runs, self._next_runs = self._next_runs, {}


# what PageMemo keeps for a key: the entries and inputs the pages were made of, and the pages
Kept = tuple[tuple[object, ...], object, tuple[PageSpec, ...]]
# what PageMemo keeps for a run of entries: the entries, each one's pages, each one's place by
# its key, and each one's key in `PageMemo.pages`
Run = tuple[tuple[Any, ...], list[tuple[PageSpec, ...]], dict[str, int], list[tuple[str, ...]]]
