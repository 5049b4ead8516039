"""Fast render (`bipub serve`): which of an update's changed pages are published first.

A new, deleted or drafted post changes every blog listing page after it (each shifts by one
post) and its tags' pages: some 1,800 pages on a site of 5,000 posts per language, seconds of
rendering. `bipub serve` publishes an update in two steps, as Hugo's server renders the pages
being viewed first:

1. the build's own update (pipeline.build, the same stages and functions as any build),
   restricted to the pages this module chooses among those whose fingerprint the last build's
   state does not give (buildstate.carry: the pages that may have changed): the pages of the
   entries whose key changed and that were added, edited or shown again (their own post pages
   and side-by-side pages in every language: the first entry a page's `PageSpec.made_of`
   names; an entry whose post or page shows the same document as the last plan's page at its
   path changed only around it, `_edited`), the first page of the blog listing of
   each language whose blog shows one of those posts or showed it in the last build
   (`PageSpec.lists`, in this plan and the last one: a new post is listed at once, a deleted
   one leaves it), the pages a browser has open (the live-reload event streams say which),
   and the pages that have no published file yet. Every other such page — the neighbours'
   pages (their previous and next links), the series' members' pages, the tag pages, the
   home page, the blog's later pages — keeps its published file in this publish, not
   even fingerprinted: it is *deferred*. The BuildState gives it no
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
from bipub.render.page_plan import EntryId, PageSpec, Plan

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
        self.posts: frozenset[str] = frozenset()  # the keys of the posts among them
        self.before: Plan | None = None  # the last build's plan (its listings' posts)
        self.first = 0  # pages rendered in this publish
        # the output files kept as they were, for the next build, with their fingerprints (of
        # the files kept: the build cache's record of the files published, never the state's)
        self.deferred: dict[str, str] = {}

    def begin(
        self,
        before: Mapping[EntryId, str] | None,
        now: Mapping[EntryId, str],
        plan: Plan | None = None,
    ) -> None:
        """The entries' keys of the last build (None: no state of it: every page is rendered,
        none deferred) and of this one; `plan`: the last build's plan, if known (its listing
        pages' posts: a page that showed a changed post is published first)."""
        if before is None:
            self.changed = None
            return
        self.changed = frozenset(e for e, _ in before.items() ^ now.items())
        self.posts = frozenset(key for kind, key in self.changed if kind == "posts")
        self.before = plan

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
        theirs: list[PageSpec] = []  # the pages of changed entries (their own, or neighbours)
        blogs: set[str] = set()  # the languages whose blog shows (or showed) a changed post
        for spec in pages:
            if spec.path in known:
                now.append(spec)
                continue
            made_of = spec.made_of
            if made_of and made_of[0] in changed:
                theirs.append(spec)
                continue
            file = spec.file
            if file in shown or file not in published:
                now.append(spec)
                continue
            later.append(spec)
            if (
                spec.lists
                and spec.route[0] == "blog"
                and spec.lang not in blogs
                and self._shows_changed(spec)
            ):
                blogs.add(spec.lang)
        if theirs:  # an entry's own pages: those of the entries edited, added or shown again
            edited = {spec.made_of[0] for spec in theirs if self._edited(spec)}
            for spec in theirs:
                file = spec.file
                goes = spec.made_of[0] in edited or file in shown or file not in published
                (now if goes else later).append(spec)
        if blogs:  # the first page of those blogs (a new post is listed there, or counted)
            first = [s for s in later if s.route == ("blog", "1") and s.lang in blogs]
            if first:
                chosen = {id(s) for s in first}
                now += first
                later = [s for s in later if id(s) not in chosen]
        if len(later) <= self.few:
            return pages, []
        return now, later

    def _edited(self, spec: PageSpec) -> bool:
        """Whether the entry a page of a changed entry is of was itself edited (added, shown
        again or a document of it changed), not only changed around it (its neighbours, its
        series: its key names them): its post or page shows another document than the page
        of the last build's plan at its path, or that plan is not known."""
        if self.before is None:
            return True
        doc = spec.doc
        if doc is None:  # (a side-by-side page: its entry's post pages say)
            return False
        was = self.before.paths.get(spec.path)
        if was is None or was.doc is None or not doc.digest:  # (no digest: not known)
            return True
        return (was.doc.rel, was.doc.digest) != (doc.rel, doc.digest)

    def _shows_changed(self, spec: PageSpec) -> bool:
        """Whether a listing page shows a changed post, or its page of the last build did."""
        posts = self.posts
        if not posts.isdisjoint(spec.lists):
            return True
        was = self.before.paths.get(spec.path) if self.before is not None else None
        return was is not None and not posts.isdisjoint(was.lists)
