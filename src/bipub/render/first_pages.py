"""Fast render (`bipub serve`): which of an update's changed pages are published first.

A new, deleted or drafted post changes every blog listing page after it (each shifts by one
post) and its tags' pages: some 1,800 pages on a site of 5,000 posts per language, seconds of
rendering. `bipub serve` publishes an update in two steps, as Hugo's server renders the pages
being viewed first:

1. the build's own update (pipeline.build, the same stages and functions as any build),
   restricted to the pages this module chooses among those whose fingerprint the last build's
   state does not give (buildstate.carry: the pages that may have changed): the pages of the
   entries whose key changed (their post pages and side-by-side pages in every language, and
   the pages whose previous and next links point at them: a page's `PageSpec.made_of` names
   its neighbours), the pages a browser has open (the live-reload event streams say which),
   and the pages that have no published file yet. Every other such page keeps its published
   file in this publish, not even fingerprinted: it is *deferred*. The BuildState gives it no
   fingerprint (the build cache keeps the one of the file kept, with that file's identity:
   true, and compared only with a fingerprint worked out again), and the up-to-date record says the output is not complete (`DEFERRED`), so that
   whatever build comes next, the second step or one after another edit or after a kill, works
   the page out again and renders it if it changed.
2. at once, the same update again without a restriction: it renders the deferred pages that
   changed (and keeps the others), then the other outputs follow as before.

Both publishes go through the same staging folder and swap as a full build. An update that
would leave at most `FEW` pages for later is published in one step.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from urllib.parse import unquote, urlsplit

from bipub.render import urls
from bipub.render.page_plan import EntryId, PageSpec

FEW = 64  # pages an update would defer that it publishes in one step (~50 ms of rendering)
DEFERRED = "(pages deferred to the next publish)"  # marks the up-to-date record's key


def page_file(url_path: str) -> str | None:
    """The output file a browser's page path (`location.pathname`: percent-encoded, from
    the site's root) shows, or None if it is not one (a '..' segment, a NUL)."""
    try:
        path = unquote(urlsplit(url_path).path, errors="strict")
    except UnicodeDecodeError:
        return None
    if not path.startswith("/") or "\x00" in path or "/../" in path + "/":
        return None
    return urls.output_file(path)


class FirstPages:
    """What one update publishes first (see the module's text): made for one build with the
    output files the browsers have open; the build tells it which entries changed (`begin`),
    asks it to split the pages it has to render (`split`), and leaves in it what it deferred."""

    def __init__(self, open_files: Collection[str] = (), few: int = FEW) -> None:
        self.open = frozenset(open_files)
        self.few = few
        self.changed: frozenset[EntryId] | None = None  # None: no state, nothing deferred
        self.first = 0  # pages rendered in this publish
        # the output files kept as they were, for the next build, with their fingerprints (of
        # the files kept: the build cache's record of the files published, never the state's)
        self.deferred: dict[str, str] = {}

    def begin(self, before: Mapping[EntryId, str] | None, now: Mapping[EntryId, str]) -> None:
        """The entries' keys of the last build (None: no state of it: every page is rendered,
        none deferred) and of this one."""
        if before is None:
            self.changed = None
            return
        self.changed = frozenset(e for e, _ in before.items() ^ now.items())

    def ahead(
        self, pages: list[PageSpec], known: Mapping[str, str], published: Mapping[str, object]
    ) -> tuple[list[PageSpec], list[PageSpec]]:
        """`pages`, every page of the build, as (those this build works out: their fingerprint
        is known already (`known`: buildstate.carry), or it chooses them; those that keep their
        published file for now, not even fingerprinted). `published`: the output files of the
        pages the last build published. Nothing is left for later if few would be."""
        changed = self.changed
        if changed is None:
            return pages, []
        shown = self.open
        now: list[PageSpec] = []
        later: list[PageSpec] = []
        for spec in pages:
            if spec.path in known:
                now.append(spec)
                continue
            file = spec.file
            if file in shown or file not in published or not changed.isdisjoint(spec.made_of):
                now.append(spec)
            else:
                later.append(spec)
        if len(later) <= self.few:
            return pages, []
        return now, later
