"""What a build leaves for the next one, and how the next one uses it: one build path.

Every build runs the same stages (pipeline.py): load, pair, plan, render, publish through the
same staging folder and swap. What makes a build after one edit fast is what the last build
left, never a second set of rules:

* the build cache (cache.py): each document as parsed, by its file's identity, so only the
  files that changed are read and parsed again; what rendering each body warned about;
* this `BuildState`: the site-wide key of the last build (`HtmlRenderer.global_key`: templates,
  catalogs, configuration, version, every language's site-wide context), each entry's key
  (`HtmlRenderer.entry_key`: what its own pages and its card are made of), each page's
  fingerprint and the keys of the cards (those made by render workers too);
* the parts of the aggregate outputs: the text of each feed entry (Atom and JSON Feed, by its
  item, its body's MarkdownCache.key and its note), of each post's posts.json record and its
  parts of llms.txt and llms-full.txt, and the API's schemas (render/outputs.py `Parts`, by the
  values they are made of), which an update joins again as a full build does.

After pairing and planning the site again with the same functions, `carry` gives each page of
a post or page that is made only of entries whose key did not change (its own entry and its
series' members: `PageSpec.made_of`) the fingerprint it had, and each unchanged entry its card
key. A listing page (blog, tag, home) whose posts' keys did not change (`PageSpec.lists`)
keeps its fingerprint too when it is made as the last build's was: in `bipub serve`, when the
plan kept it as the state's own build planned it (render/page_plan.py PageMemo: the same
PageSpec, and the same counterparts in the other languages); in a build in a new process
(`bipub build`, without that plan), when the values it is made of (render/html.py
`listing_values`: its own values, its counterparts', its page number and count and its posts'
keys, which stand for their cards' keys: none of those posts changed) equal those the state
keeps for that fingerprint (`Listed`), which costs a comparison of values the state read, not
their hash nor the cards' keys (and no worker forked to fingerprint thousands of listings). The other listings, the tag cloud, series and search pages are
fingerprinted from the card keys (cheap), everything else as in a cold build. Pages whose fingerprint equals the last build's
are kept, the others rendered by the same renderer. When the site-wide key changed (a
template, a catalog, the configuration, a page's title in the navigation), nothing is carried
and every page is fingerprinted, as in a build without a state; the note says why.

In `bipub serve` that pass over every page is not made: after each publish, the state's plan
is indexed (`PlanIndex`: each page `carry` may keep with its fingerprint, by the entries it is
made of and the posts it lists), and the next update's `carry` starts from those pages and
takes back only those of what changed — the pages that are not the same PageSpec objects, those
made of a changed entry or listing a changed post, the listings whose counterparts changed
(`_carried`, checked equal to the pass over every page by tests/integration/test_plan_reuse.py).

The entries' keys are worked out by `HtmlRenderer.entry_keys` for every build; `bipub serve`
keeps them (render/page_plan.py EntryKeyMemo) with what they were made of, so an update works
out only the keys of the entries that changed or whose tags, series, neighbours, images or
review states did; `-v` says how many.

`bipub serve` keeps the state in memory between saves (and, beside it, what pairing worked out
per entry: pair/site.py `PairMemo`); `bipub build` reads it back from .bipub-cache/ (pickled
and signed like every cache file: a planted file is never unpickled), with what the memos
keyed on each entry worked out (restore.py: the entries file), and leaves a new one after
each full-language build that rendered the pages.

On disk the state is one file (`state-<output>.pickle`) that names a tables file
(`tables-<output>-<id>.pickle`: the entries' keys, the pages' fingerprints, the card keys and
each listing page's fingerprint with the values it is the hash of — those of the last state
for the same fingerprint, the others worked out from the plan at the save) and holds what
changed in those tables since it was written (an edit changes a few of ~40,000 items on a big
site: a save writes those only, and a new tables file when they are more than a quarter of
it), and names the files holding its parts (`parts-<output>-<id>.pickle`; each file named
with its signature: a file swapped for another one, even one signed by this user, is
refused). The parts are most of the
state (the texts of every feed entry, llms.txt body, JSON record: ~100 MB on a 5,000-post
site) and an edit changes a few of them, so a save writes only the parts the files on disk
lack, into one more file, then the state's own file (last, atomically: a kill at any point
leaves the old state or the new one whole), then removes the parts and tables files no state
names. Parts that are no longer used stay in their file (a part is keyed by what it is made
of: one more is never wrong) until they are a quarter of all, or the files are
`MAX_SEGMENTS`: then all the parts are written again into one file. A state whose file, tables
file or any of its parts files is missing, damaged, not signed by this user or not the one
named is not used (`-v` says why): the build fingerprints every page, as without a state, and
saves a new one.
"""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass, field
from itertools import compress, filterfalse
from operator import attrgetter, is_, is_not
from pathlib import Path
from typing import Any

from bipub.cache import UNREADABLE, ReadAhead, load_signed, output_name, save_signed
from bipub.code_stamp import CODE
from bipub.project import Project
from bipub.render.html import EntryId, HtmlRenderer, PageSpec, Plan, listing_values
from bipub.render.outputs import Parts
from bipub.render.page_plan import later_pages, nearest
from bipub.table_diff import changes

FORMAT = 7  # 3: the feeds' entries are parts (no rendered bodies kept); 4: parts files;
# 5: what each listing page's fingerprint was made of (`Listed`); 6: the tables file and
# what changed since (`Delta`); 7: a blog or tag page's posts, not their cards' keys (`Listed`)
MAX_SEGMENTS = 12  # parts files of one state at most (then they are written again as one)
LISTED = 3  # `Listed`'s place in the `Tables`


# a listing page's output file → (its fingerprint, the values it is made of: render/html.py
# `listing_values`)
Listed = dict[str, tuple[str, object]]
# the state's tables: the entries' keys, the pages' fingerprints, the card keys, `Listed`
Tables = tuple[dict[Any, Any], dict[Any, Any], dict[Any, Any], dict[Any, Any]]
# of each table, the items set since the tables file and the keys gone
Delta = tuple[tuple[dict[Any, Any], tuple[Any, ...]], ...]


@dataclass(frozen=True)
class Stored:
    """The parts files a state was read from or saved to: their names and signatures, and the
    keys of the parts they hold (so a save writes only the others)."""

    segments: tuple[tuple[str, bytes], ...]
    keys: frozenset[bytes]
    # each listing page's fingerprint with what it is the hash of (`Listed`), as the state's
    # file holds them
    listed: Listed = field(default_factory=dict)
    # the tables file (its name and signature) and the tables as it holds them: a save
    # writes only what changed since into the state's own file (`Delta`)
    tables: tuple[str, bytes] | None = None
    base: Tables | None = field(default=None, compare=False, repr=False)


@dataclass
class BuildState:
    """What the last build of every language's pages into one output folder worked out. A
    fingerprint depends only on the inputs (never on the options of the build that worked it
    out), so a state stays true after any other build: it can only be out of date."""

    global_key: str
    entries: dict[EntryId, str] = field(default_factory=dict)  # entry → its entry_key
    fingerprints: dict[str, str] = field(default_factory=dict)  # page's output file → its own
    cards: dict[tuple[str, str, str], str] = field(default_factory=dict)  # card keys
    # the texts of the aggregates' parts by the values they are made of (outputs.Parts)
    parts: Parts = field(default_factory=Parts)
    # the parts files on disk this state's parts were read from or saved to (not compared)
    stored: Stored | None = field(default=None, compare=False, repr=False)
    # the plan whose pages have these fingerprints (in memory only: `bipub serve`; not saved)
    plan: Plan | None = field(default=None, compare=False, repr=False)
    # the identities of the input files the build read (uptodate.py; in memory only, not
    # saved): a build of other outputs from the same files has the same entries' keys
    inputs: dict[str, object] | None = field(default=None, compare=False, repr=False)
    # what `carry` needs of `plan` to visit only the pages of what changed (`PlanIndex`; in
    # memory only: `bipub serve`, made after the publish of the build that left this state)
    index: PlanIndex | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class PlanIndex:
    """Of a state's plan (resident: `bipub serve`), what `carry` reads to give the next build
    the fingerprints that still hold by visiting only the pages of what changed, instead of
    every page: each page that `carry` may keep (`made_of` or `lists`) with its fingerprint,
    by path (`carried`); those pages by each entry they are made of and each post they
    list."""

    plan: Plan
    carried: dict[str, str]
    by_entry: dict[EntryId, list[str]]
    by_post: dict[str, list[str]]


def plan_index(state: BuildState) -> PlanIndex | None:
    """`state`'s PlanIndex (None without a plan): one pass over its pages, made after the
    publish of the build that left it, so that the next update's `carry` need not."""
    plan = state.plan
    if plan is None:
        return None
    old = state.fingerprints
    carried: dict[str, str] = {}
    by_entry: dict[EntryId, list[str]] = {}
    by_post: dict[str, list[str]] = {}
    for path, spec in plan.paths.items():
        made_of, lists = spec.made_of, spec.lists
        if not made_of and not lists:
            continue
        fp = old.get(spec.file)
        if fp is None:  # (not carried: nothing to take back when what it shows changes)
            continue
        carried[path] = fp
        _under(by_entry, made_of, path)
        _under(by_post, lists, path)
    return PlanIndex(plan, carried, by_entry, by_post)


def _under(table: dict[Any, list[str]], keys: tuple[Any, ...], path: str) -> None:
    """`path` added to the list of each of `keys` in `table`."""
    for key in keys:
        found = table.get(key)
        if found is None:
            table[key] = [path]
        else:
            found.append(path)


def entry_keys(renderer: HtmlRenderer) -> dict[EntryId, str]:
    """Each entry's key (HtmlRenderer.entry_keys: with `bipub serve`'s memo, the unchanged
    entries' as the last build worked them out)."""
    return renderer.entry_keys()


def carry(
    previous: BuildState | None,
    renderer: HtmlRenderer,
    plan: Plan,
    global_key: str,
    entries: dict[EntryId, str],
) -> str:
    """Give `renderer` what `previous` worked out that still holds (see the module's text).
    Returns what was carried, or why nothing was, for `-v`."""
    keys = renderer.keys_note()
    keys = f"; {keys}" if keys else ""
    if previous is None:
        return f"no state of the last build: every page fingerprinted{keys}"
    if previous.global_key != global_key:
        return (
            "templates, catalogs, configuration or the site-wide context changed: "
            f"every page fingerprinted{keys}"
        )
    # (set operations and comprehensions: an update visits every page of a big site here)
    changed = {e for e, _ in entries.items() ^ previous.entries.items()}
    posts = {key for kind, key in changed if kind == "posts"}  # (listings show posts only)
    known = renderer.known
    before = previous.plan
    # (first: a listing's values show the card keys of its posts, none of which changed)
    renderer.reuse_card_keys(
        {card: k for card, k in previous.cards.items() if card[:2] not in changed}
    )
    index = previous.index
    by_values = 0
    if before is not None and index is not None and index.plan is before:
        known.update(_carried(previous, index, plan, changed, posts))
        values = " (the pages of what changed looked at: the last plan's index)"
    else:
        by_values = _carry_all(previous, plan, global_key, known, changed, posts)
        values = f" ({by_values} listing pages found made of the same values)" if by_values else ""
        if before is not None:  # (resident, yet no index of that plan: said, not hidden)
            values += " (every page looked at: no index of the last plan)"
    shown = ", ".join(sorted("/".join(e) for e in changed)[:5])
    more = " …" if len(changed) > 5 else ""
    return (
        f"{len(changed)} entr{'y' if len(changed) == 1 else 'ies'} changed"
        f"{f' ({shown}{more})' if changed else ''}: {len(known)} of {len(plan.paths)} pages "
        f"keep their fingerprints{values}{keys}"
    )


def _carried(
    previous: BuildState,
    index: PlanIndex,
    plan: Plan,
    changed: set[EntryId],
    posts: set[str],
) -> dict[str, str]:
    """`_carry_all`'s fingerprints for `plan` (of a resident caller whose last plan, of
    `previous`, is `index.plan`), visiting only the pages of what changed: those `index` says
    `_carry_all` would have kept, but for the pages that are not the same PageSpec objects
    (planned again, or gone), those made of a changed entry or listing a changed post, and
    the listings whose counterparts in another language are not the same objects; then
    each page planned again that `_carry_all` keeps (a post's or page's: by what it is made
    of). Equal to `_carry_all`'s (tests/integration/test_plan_reuse.py)."""
    before, old = index.plan, previous.fingerprints
    paths = plan.paths
    was = before.paths
    # the pages that are not the last plan's PageSpec objects, and those gone (in C: no
    # step per page in Python)
    moved = set(compress(paths, map(is_not, paths.values(), map(was.get, paths))))
    if len(was) != len(paths) - sum(path not in was for path in moved):
        moved.update(was.keys() - paths.keys())
    known = dict(index.carried)
    pop = known.pop
    for entry in changed:
        for path in index.by_entry.get(entry, ()):
            pop(path, None)
    for post in posts:
        for path in index.by_post.get(post, ()):
            pop(path, None)
    routes = plan.routes
    again: set[str] = set()  # listings whose counterparts or switchers' pages may have moved
    for path in moved:
        pop(path, None)
        for spec in (paths.get(path), was.get(path)):
            if spec is None:
                continue
            for sibling in routes.get(spec.route, {}).values():  # (hreflang: its listings')
                if not sibling.made_of:
                    again.add(sibling.path)
            for later in later_pages(plan, spec):  # (their switchers may go to it: `nearest`)
                again.add(later.path)
    for path in again - moved:  # (each by `_carry_all`'s own rule for a listing)
        pop(path, None)
        spec = paths.get(path)
        if spec is not None and not spec.made_of and _listing_holds(plan, before, spec, posts):
            fp = old.get(spec.file)
            if fp is not None:
                known[path] = fp
    for path in moved:  # (planned again: a post's or page's page by what it is made of)
        spec = paths.get(path)
        if spec is None or not spec.made_of:
            continue  # (gone; or a listing planned again: not the last build's, `_as_before`)
        if changed.isdisjoint(spec.made_of) and posts.isdisjoint(spec.lists):
            fp = old.get(spec.file)
            if fp is not None:
                known[path] = fp
    return known


def _carry_all(
    previous: BuildState,
    plan: Plan,
    global_key: str,
    known: dict[str, str],
    changed: set[EntryId],
    posts: set[str],
) -> int:
    """`carry`'s pass over every page of `plan`: into `known`, each page's fingerprint that
    still holds; returns how many listing pages were found made of the same values."""
    old = previous.fingerprints
    get = old.get
    before = previous.plan
    listed = previous.stored.listed if before is None and previous.stored is not None else {}
    unchanged, shows_none = changed.isdisjoint, posts.isdisjoint
    by_values = 0
    # (one pass: an update visits every page of the site here; each page's path is its key in
    # `plan.paths`, and the page's own values are read once each)
    for path, spec in plan.paths.items():
        made_of = spec.made_of
        if made_of:  # a post's or page's page, made of entries: unless one of them changed
            if not unchanged(made_of):
                continue
            lists = spec.lists
            if lists and not shows_none(lists):
                continue
        elif not (lists := spec.lists) or not shows_none(lists):
            continue  # not a listing, or one showing a post that changed
        elif before is not None:  # (`bipub serve`: the last plan itself)
            if not _listing_holds(plan, before, spec, posts):
                continue  # not a listing the last build planned so
        else:  # (a build in a new process: what the last one's fingerprint was made of)
            file = spec.file
            stored = listed.get(file)
            if (
                stored is None
                or stored[0] != get(file)
                or listing_values(plan, spec, global_key) != stored[1]
            ):
                continue
            by_values += 1
        fp = get(spec.file)
        if fp is not None:
            known[path] = fp
    return by_values


def _listing_holds(plan: Plan, before: Plan, spec: PageSpec, posts: set[str]) -> bool:
    """`_carry_all`'s rule for a listing page of a resident caller's plan (`spec`, not made
    of entries), one page at a time: it lists posts, none of them changed (`posts`), and
    the last plan had it as it is (`_as_before`)."""
    lists = spec.lists
    return bool(lists) and posts.isdisjoint(lists) and _as_before(plan, before, spec)


def _as_before(plan: Plan, before: Plan, spec: PageSpec) -> bool:
    """A listing page (blog, tag) that `before`, the plan of the last build, had as it is:
    the same PageSpec, planned for the same posts and numbers (render/page_plan.py PageMemo
    keeps it only then), and so its counterparts in the other languages (hreflang). With
    its posts' keys unchanged (`PageSpec.lists`), its fingerprint is the last build's."""
    if before.paths.get(spec.path) is not spec:
        return False
    now, then = plan.routes[spec.route], before.routes.get(spec.route)
    if then is None or len(now) != len(then) or any(then.get(c) is not s for c, s in now.items()):
        return False
    # (and the pages its switcher goes to where it has no counterpart: page_plan.nearest)
    switched, was = nearest(plan, spec), nearest(before, spec)
    return len(switched) == len(was) and all(map(is_, switched, was))


def _path(project: Project, target: Path) -> Path:
    return project.cache / f"state-{output_name(target)}.pickle"


def _files_of(project: Project, target: Path) -> list[Path]:
    """The parts files and tables files of the states of `target`."""
    name = output_name(target)
    return [
        *project.cache.glob(f"parts-{name}-*.pickle"),
        *project.cache.glob(f"tables-{name}-*.pickle"),
    ]


def _stamp() -> str:
    """The state's format and the bipub that wrote it: the parts it keeps are keyed
    by the values they are made of, not by the code that made them (another bipub may write a
    posts.json record or a post's llms-full.txt text otherwise)."""
    return f"{FORMAT}:{CODE}"


def load(project: Project, target: Path) -> BuildState | None:
    """The state the last build into `target` left, or None (none, unreadable, not signed by
    this user's key, or of another format or bipub version): `load_noted`."""
    return load_noted(project, target)[0]


def load_noted(
    project: Project, target: Path, ahead: ReadAhead | None = None
) -> tuple[BuildState | None, str]:
    """`load`, and why the state was not used if there was one (for `-v`; `ahead`: its files
    as read and checked ahead, cache.py `restore_files`)."""
    path = _path(project, target)
    if not path.exists():
        return None, ""
    name = path.name
    try:
        data = load_signed(path, ahead=ahead)
        if not isinstance(data, tuple) or len(data) != 5 or data[0] != _stamp():
            return None, f"build state ignored ({name}: made by another bipub version)"
        _, global_key, segments, tables, delta = data
        name, signature = tables
        stamp, base = load_signed(project.cache / name, signature=signature, ahead=ahead)
        if stamp != _stamp() or not isinstance(base, tuple) or len(base) != len(delta):
            raise ValueError("made by another bipub version")
        entries, fingerprints, cards, listed = _applied(base, delta)
        name = "its parts"
        parts: dict[bytes, Any] = {}
        for name, signature in segments:
            stamp, found = load_signed(project.cache / name, signature=signature, ahead=ahead)
            if stamp != _stamp() or not isinstance(found, dict):
                raise ValueError("made by another bipub version")
            parts.update(found)
    except UNREADABLE as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return None, (
            f"build state ignored ({name}: {why or type(exc).__name__}); "
            "it is made again by this build"
        )
    state = BuildState(global_key, entries, fingerprints, cards, Parts(parts))
    state.stored = Stored(tuple(segments), frozenset(parts), listed, tuple(tables), base)
    return state, ""


def _applied(base: Tables, delta: Delta) -> Tables:
    """The tables of a state: those of its tables file (`base`, left as they are) with what
    changed since (`delta`)."""
    out: list[dict[Any, Any]] = []
    for table, (changed, gone) in zip(base, delta, strict=True):
        if not isinstance(table, dict) or not isinstance(changed, dict):
            raise ValueError("not a build state")
        now = dict(table)
        now.update(changed)
        for key in gone:
            now.pop(key, None)
        out.append(now)
    entries, fingerprints, cards, listed = out
    return entries, fingerprints, cards, listed


def _delta(base: Tables, now: Tables) -> tuple[Delta, int]:
    """What changed from the tables `base` to `now`, and how many items that is. A listing's
    values are compared by its fingerprint (their hash)."""
    out: list[tuple[dict[Any, Any], tuple[Any, ...]]] = []
    size = 0
    for n, (was, new) in enumerate(zip(base, now, strict=True)):
        if n == LISTED:
            changed = {
                k: v for k, v in new.items() if (old := was.get(k)) is None or old[0] != v[0]
            }
            gone = tuple(was.keys() - new.keys())
        else:  # (in C loops: not a set of the items, ~10x slower, each one hashed)
            changed, gone = changes(was, new)
        size += len(changed) + len(gone)
        out.append((changed, gone))
    return tuple(out), size


def save(project: Project, target: Path, state: BuildState) -> None:
    """Save `state` for the next build into `target`: the parts the files of `state.stored`
    lack, in a new parts file (all of them, in one file, when too many are unused or the
    files too many); its tables (entries' keys, fingerprints, card keys, `Listed`) as what
    changed since its tables file (`Delta`; a new tables file when that is more than a
    quarter of it); then the state's own file, then remove the files it does not name."""
    live: dict[bytes, Any] = state.parts.now or state.parts.earlier
    kept = stored = _still_there(project, state.stored)
    new = live
    if stored is not None:
        new = {k: live[k] for k in filterfalse(stored.keys.__contains__, live)}  # (in C)
        unused = len(stored.keys) - (len(live) - len(new))
        if unused * 4 > len(stored.keys) or len(stored.segments) >= MAX_SEGMENTS:
            stored, new = None, live
    segments = list(stored.segments) if stored is not None else []
    keys = stored.keys if stored is not None else frozenset()
    if new or not segments:
        name = f"parts-{output_name(target)}-{secrets.token_hex(8)}.pickle"
        segments.append((name, save_signed(project.cache / name, (_stamp(), new))))
        keys = keys.union(new)
    listed = _listed(state)
    now: Tables = (state.entries, state.fingerprints, state.cards, listed)
    tables, base = (kept.tables, kept.base) if kept is not None else (None, None)
    delta: Delta = tuple(({}, ()) for _ in now)
    if tables is not None and base is not None:
        delta, size = _delta(base, now)
        if size * 4 > sum(map(len, base)):  # (much changed: a new tables file, as the parts)
            tables = None
    if tables is None or base is None:
        name = f"tables-{output_name(target)}-{secrets.token_hex(8)}.pickle"
        tables = (name, save_signed(project.cache / name, (_stamp(), now)))
        delta = tuple(({}, ()) for _ in now)
        entries, fingerprints, cards, _ = (dict(table) for table in now)  # (as on disk)
        base = (entries, fingerprints, cards, listed)
    data = (_stamp(), state.global_key, segments, tables, delta)
    save_signed(_path(project, target), data)  # last: the state is the old one until here
    state.stored = Stored(tuple(segments), keys, listed, tables, base)
    named = {name for name, _ in segments} | {tables[0]}
    for old in _files_of(project, target):
        if old.name not in named:
            old.unlink(missing_ok=True)


def _listed(state: BuildState) -> Listed:
    """Each listing page's fingerprint with the values it is made of (`listing_values`), for
    `carry` in a build without the plan of this one (a new process): those the files on disk
    hold for the same fingerprint as they were, the others worked out from the plan whose pages
    have these fingerprints (their card keys are known: the pages are fingerprinted)."""
    plan = state.plan
    if plan is None:  # (no plan: nothing known of what the listings were made of)
        return {}
    was = state.stored.listed if state.stored is not None else {}
    fingerprints = state.fingerprints
    out: Listed = {}
    for spec in filter(attrgetter("lists"), plan.paths.values()):  # (the listings, in C)
        if spec.made_of:
            continue
        file = spec.file
        fp = fingerprints.get(file)
        if fp is None:
            continue
        stored = was.get(file)
        if stored is None or stored[0] != fp:
            values = listing_values(plan, spec, state.global_key)
            if values is None:
                continue
            stored = (fp, values)
        out[file] = stored
    return out


def _still_there(project: Project, stored: Stored | None) -> Stored | None:
    """`stored`, if each of its files is still the one it names (another build into the same
    output folder may have saved its own state since)."""
    if stored is None:
        return None
    for name, signature in (*stored.segments, *((stored.tables,) if stored.tables else ())):
        try:
            with open(project.cache / name, "rb") as f:
                if f.read(32) != signature:
                    return None
        except OSError:
            return None
    return stored


def forget(project: Project, target: Path) -> None:
    """Remove the saved state (a build that cannot leave a true one)."""
    _path(project, target).unlink(missing_ok=True)
    for old in _files_of(project, target):
        with contextlib.suppress(OSError):
            old.unlink()
