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
series' members: `PageSpec.made_of`, indexed by `Plan.shows`) the fingerprint it had, and each
unchanged entry its card key; the listings, tag, series and home pages are fingerprinted from
those card keys (cheap), everything else as in a cold build. Pages whose fingerprint equals
the last build's are kept, the others rendered by the same renderer. When the site-wide key
changed (a template, a catalog, the configuration, a page's title in the navigation), nothing
is carried and every page is fingerprinted, as in a build without a state; the note says why.

`bipub serve` keeps the state in memory between saves (and, beside it, what pairing worked out
per entry: pair/site.py `PairMemo`, too big to save with it); `bipub build` reads it back from
.bipub-cache/ (pickled and signed like every cache file: a planted file is never unpickled)
and leaves a new one after each full-language build that rendered the pages.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from bipub import __version__
from bipub.cache import UNREADABLE, load_signed, save_signed
from bipub.project import Project
from bipub.render import urls
from bipub.render.html import EntryId, HtmlRenderer, Plan
from bipub.render.outputs import Parts

FORMAT = 3  # 3: the feeds' entries are parts (no rendered bodies kept)


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


def entry_keys(renderer: HtmlRenderer) -> dict[EntryId, str]:
    return {(e.kind, e.key): renderer.entry_key(e) for e in renderer.site.entries}


def carry(
    previous: BuildState | None,
    renderer: HtmlRenderer,
    plan: Plan,
    global_key: str,
    entries: dict[EntryId, str],
) -> str:
    """Give `renderer` what `previous` worked out that still holds (see the module's text).
    Returns what was carried, or why nothing was, for `-v`."""
    if previous is None:
        return "no state of the last build: every page fingerprinted"
    if previous.global_key != global_key:
        return (
            "templates, catalogs, configuration or the site-wide context changed: "
            "every page fingerprinted"
        )
    changed = {e for e, k in entries.items() if previous.entries.get(e) != k}
    changed.update(e for e in previous.entries if e not in entries)
    touched: set[str] = set()
    for entry in changed:
        touched.update(plan.shows.get(entry, ()))
    known = renderer.known
    old = previous.fingerprints
    for path, spec in plan.paths.items():
        if spec.made_of and path not in touched:
            fp = old.get(urls.output_file(path))
            if fp is not None:
                known[path] = fp
    renderer.reuse_card_keys(
        {card: k for card, k in previous.cards.items() if card[:2] not in changed}
    )
    shown = ", ".join(sorted("/".join(e) for e in changed)[:5])
    more = " …" if len(changed) > 5 else ""
    return (
        f"{len(changed)} entr{'y' if len(changed) == 1 else 'ies'} changed"
        f"{f' ({shown}{more})' if changed else ''}: {len(known)} of {len(plan.paths)} pages "
        "keep their fingerprints"
    )


def _path(project: Project, target: Path) -> Path:
    name = hashlib.sha256(str(target.absolute()).encode("utf-8")).hexdigest()[:16]
    return project.cache / f"state-{name}.pickle"


def _stamp() -> str:
    """The state's format and the bipub that wrote it: the parts it keeps are keyed
    by the values they are made of, not by the code that made them (another bipub may write a
    posts.json record or a post's llms-full.txt text otherwise)."""
    return f"{FORMAT}:{__version__}"


def load(project: Project, target: Path) -> BuildState | None:
    """The state the last build into `target` left, or None (none, unreadable, not signed by
    this user's key, or of another format or bipub version)."""
    try:
        data = load_signed(_path(project, target))
    except UNREADABLE:
        return None
    if not isinstance(data, tuple) or len(data) != 2:
        return None
    fmt, state = data
    return state if fmt == _stamp() and isinstance(state, BuildState) else None


def save(project: Project, target: Path, state: BuildState) -> None:
    save_signed(_path(project, target), (_stamp(), state))


def forget(project: Project, target: Path) -> None:
    """Remove the saved state (a build that cannot leave a true one)."""
    _path(project, target).unlink(missing_ok=True)
