"""The outputs made after the pages (feeds, llms files): each language's in a process of its own.

They show what rendering the pages worked out (the bodies, their outlines: render/workers.py
brings a helper's back), so they wait for the last page, and made one language after the other
they were a cold build's longest stretch on one core after its start (~40 ms at 100 posts a
language: every entry of a feed escapes its post's whole body twice, ~13 MB of feeds). With two
languages or more and a core to spare, a helper forked now (it has every body) makes the first
language's while this process makes the parts shared by every language (the sitemap), then the
others' (parallel.share_chunks: a language is claimed when it is started).

What a helper made comes back as in the render stage, and goes where this process's own would
have: the files it wrote into the staging folder (their records: OutputTree.merge), the parts
of the aggregates it made or took from the last build (render/parts.py: the next build's, and
their counts for `-v`), the notes of the bodies whose warnings it said again (what the build
cache keeps: MarkdownCache.merge) and those warnings. An error in a helper is raised here
(nothing is published), and a helper that dies without its results is an error too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Protocol

from bipub.diagnostics import Collector, Diagnostic
from bipub.parallel import can_fork, share_chunks, worker_count
from bipub.write.output import OutputFile, OutputTree

# posts whose bodies the feeds not kept show (MarkdownCache.wanted) below which a helper costs
# more than it saves (its fork and the files' records sent back: ~3 ms; ~0.2 ms a post's entry)
MIN_POSTS_FOR_HELPER = 64


class AfterPages(Protocol):
    """An output made after the pages, language by language (outputs.Feeds, outputs.Llms)."""

    def render_lang(self, job: Any, tree: OutputTree, lang: str) -> None: ...

    def render_shared(self, job: Any, tree: OutputTree) -> None: ...


# what a helper sends back for one language (`_detached`): the files it wrote, its warnings,
# the parts it made (by key) and its counts (made, found, marks), the notes it used
Made = tuple[
    dict[str, OutputFile],
    list[Diagnostic],
    dict[bytes, Any],
    tuple[int, int, int],
    dict[str, tuple[Diagnostic, ...]],
]


def render_after(job: Any, tree: OutputTree, kinds: Sequence[AfterPages], posts: int) -> None:
    """`kinds` for every language of `job` and then their shared parts (`render_shared`), into
    `tree`: one language in a forked helper when there are several, a core to spare and
    `posts` (bodies the feeds show, made now) at least MIN_POSTS_FOR_HELPER."""
    langs = list(job.langs)

    def here(i: int) -> None:
        for kind in kinds:
            kind.render_lang(job, tree, langs[i])

    def shared() -> None:
        for kind in kinds:
            kind.render_shared(job, tree)

    if (
        len(langs) < 2
        or not kinds
        or posts < MIN_POSTS_FOR_HELPER
        or worker_count() < 2
        or not can_fork()
    ):
        for i in range(len(langs)):
            here(i)
        shared()
        return
    theirs: Callable[[int], Made] = partial(_detached, job, tree, kinds, langs)
    made = share_chunks(len(langs), here, theirs, 1, shared, setup=tree.release_in_child)
    for _, (files, diagnostics, parts, counts, notes) in made:
        tree.merge(files)
        job.collector.extend(diagnostics)
        _add_parts(job.parts, parts, counts)
        job.markdown.merge(notes)


def _detached(
    job: Any, tree: OutputTree, kinds: Sequence[AfterPages], langs: list[str], i: int
) -> Made:
    """In the helper: language `i`'s outputs into a view of the same staging folder, and what
    they changed besides (`Made`)."""
    mine = tree.attach()
    collector = Collector()
    job.markdown.collector = collector  # (the warnings of the bodies said again, or rendered)
    parts = job.parts
    before = set(parts.now)
    counts = (parts.made, parts.found, parts.marks)
    used = set(job.markdown.used_notes())
    for kind in kinds:
        kind.render_lang(job, mine, langs[i])
    made = {key: part for key, part in parts.now.items() if key not in before}
    delta = (parts.made - counts[0], parts.found - counts[1], parts.marks - counts[2])
    notes = {key: found for key, found in job.markdown.used_notes().items() if key not in used}
    return mine.files, collector.items, made, delta, notes


def _add_parts(parts: Any, made: dict[bytes, Any], counts: tuple[int, int, int]) -> None:
    """The parts a helper made or took, as if this process had (Parts.now and its counts)."""
    parts.now.update(made)
    parts.made += counts[0]
    parts.found += counts[1]
    parts.marks += counts[2]
