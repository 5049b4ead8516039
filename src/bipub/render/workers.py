"""Render HTML pages on every core.

Pages are independent once planned, so they are split into small chunks and rendered by forked
worker processes that inherit the planned site (nothing is pickled on the way in) and write
straight into the shared staging folder. Each chunk returns only the paths it wrote, its
diagnostics and its counts. Output does not depend on which worker renders which page.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

import jinja2

from bipub.diagnostics import Collector, Diagnostic
from bipub.parallel import can_fork, fork_map, share_chunks, worker_count
from bipub.render import urls
from bipub.render.first_pages import FirstPages
from bipub.render.html import HtmlRenderer, PageSpec, Plan
from bipub.render.kept_pages import KeepMemo, keep_known
from bipub.render.markdown import MarkdownCache
from bipub.render.template_fast import releases_pages
from bipub.render.templates import CompiledTemplates
from bipub.write.output import Identity, OutputFile, OutputTree

CHUNK = 48
MIN_CHUNK = 6  # (claimed one at a time, a chunk costs a lock and a message back)
Decided = tuple[str | None, bool, list[tuple[tuple[str, str, str], str]]]  # (_decide)
# pages to fingerprint (`_decide`) before forked workers do it: here, a page whose fingerprint
# is not known costs ~17 us (a new post at 5,000 posts a language: ~1,800 pages, ~30 ms) to
# ~40 us (no build state: 24,000 pages, ~0.94 s); workers cost a pool, a fork and each page's
# result pickled back (for those ~1,800 pages: ~20 ms here, ~70 ms in the worker, whose writes
# to the shared pages fault them in again, and ~20,000 more page faults here), so they pay for
# themselves from some 4,000 pages on (400 until session 36: a new, deleted or draft post forked
# them for ~30 ms of work)
MIN_PAGES_FOR_WORKERS = 4000
# pages to render before helpers do some: the warm-up pages are rendered before forking, and a
# helper pays for itself (its fork, its results sent back) once two chunks are left to share
# (measured at 10/20/40/100 posts per language: ~60 pages +0.06 s CPU and wall with a helper;
# ~110 pages the same CPU and -0.05 s wall; ~200 pages -0.15 s wall; 494 pages -0.5 s)
MIN_PAGES_TO_RENDER_IN_WORKERS = 3 * CHUNK
DECIDE_CHUNK = 500  # pages fingerprinted at a time by a worker (a few ms of work each)


@dataclass(frozen=True)
class _Job:
    renderer: HtmlRenderer
    markdown: MarkdownCache
    plan: Plan
    envs: dict[str, jinja2.Environment]
    specs: list[PageSpec]
    tree: OutputTree


_JOB: _Job | None = None  # set in forked workers only (by _init), never in the parent


def _init(job: _Job) -> None:
    """In each helper (forked: parallel.share_chunks): let the build's process alone hold the
    output lock."""
    global _JOB
    job.tree.release_in_child()
    _JOB = job


def chunks(specs: list[PageSpec], size: int = 0, start: int = 0) -> list[tuple[int, int]]:
    """(start, end) of the chunks of `specs` (sorted by route) from `start`: about `size`
    (default CHUNK) pages each, a chunk never ending between the pages of one entry (its post
    pages and side-by-side pages in every language show the same bodies: rendered once, in
    the process of its chunk)."""
    size = size or CHUNK
    out: list[tuple[int, int]] = []
    while start < len(specs):
        end = min(start + size, len(specs))
        while end < len(specs) and _entry(specs[end]) == _entry(specs[end - 1]):
            end += 1
        out.append((start, end))
        start = end
    return out


# the info string's first word of a fenced code block (its language: a highlighter to load),
# matched at the start of a line (`_fence_languages`)
_FENCE = re.compile(r" {0,3}(?:`{3,}|~{3,})[ \t]*([^\s`{]+)")


def _fence_languages(body: str) -> list[str]:
    """The first word of each fenced code block's info string in `body` (what a multiline
    search of `_FENCE` finds), found from the fences' marks: the regular expression tried at
    every position of every body took ~4 ms before the fork at 100 posts a language."""
    found: list[str] = []
    for mark in ("```", "~~~"):
        at = body.find(mark)
        while at != -1:
            start = body.rfind("\n", 0, at) + 1  # (the mark's line)
            if at - start <= 3:
                match = _FENCE.match(body, start)
                if match is not None:
                    found.append(match.group(1))
            end = body.find("\n", at)
            at = body.find(mark, end) if end != -1 else -1
    return found


def warm_up_first(specs: list[PageSpec]) -> int:
    """Put first (in place) the pages that load what rendering loads once per process; return
    their number. They are the first page of each template in each language and the first
    post showing each code language (compiled templates, locale data, highlighters: ~70 ms at
    100 posts/lang), each with the other pages of its entry (they share its body, `chunks`).
    Rendered before the helpers are forked, they load all that once for every process, and the
    helpers start after a few pages instead of a whole chunk. The other pages keep their order;
    the output does not depend on the order pages are rendered in."""
    seen: set[object] = set()
    first: set[object] = set()
    fences: dict[int, list[tuple[str, str]]] = {}  # (a body shown by several pages: read once)
    for spec in specs:
        wants = [(spec.template, spec.lang)]
        if spec.doc is not None:
            code = fences.get(id(spec.doc))
            if code is None:
                code = [("code", name.lower()) for name in _fence_languages(spec.doc.body)]
                fences[id(spec.doc)] = code
            wants += code
        new = [want for want in wants if want not in seen]
        if new:
            seen.update(new)
            first.add(_entry(spec))
    ahead = [spec for spec in specs if _entry(spec) in first]
    specs[:] = ahead + [spec for spec in specs if _entry(spec) not in first]
    return len(ahead)


def _entry(spec: PageSpec) -> object:
    """What a page is of: a post's or page's key (its pages and side-by-side pages), else its
    route."""
    kind = spec.route[0]
    return spec.route[1] if kind in ("post", "page", "both") and len(spec.route) > 1 else spec.route


def _render_chunk(
    bounds: tuple[int, int],
) -> tuple[
    dict[str, OutputFile], list[Diagnostic], dict[str, int], tuple[Any, Any, Any], dict[Any, Any]
]:
    assert _JOB is not None
    job = _JOB
    tree = job.tree.attach()
    collector = Collector()
    # this process's copy of the Markdown cache: its warnings and notes go back to the parent
    job.markdown.collector = collector
    for env in job.envs.values():  # and its compiled templates' warnings
        if isinstance(env.bytecode_cache, CompiledTemplates):
            env.bytecode_cache.collector = collector
    job.markdown.notes, job.markdown.outlines, job.markdown.shipped = {}, {}, {}
    counts = _render_specs(job, job.specs[bounds[0] : bounds[1]], tree, collector)
    markdown = job.markdown
    return (
        tree.files,
        collector.items,
        counts,
        (markdown.notes, markdown.outlines, markdown.shipped),
        job.renderer.card_html.take_made(),  # the cards' HTML made (render/card_html.py)
    )


def _render_specs(
    job: _Job, specs: list[PageSpec], tree: OutputTree, collector: Collector
) -> dict[str, int]:
    counts: dict[str, int] = {}
    with _collected_by_refcount(job.envs.values()):
        for spec in specs:
            html = job.renderer.render_page(job.plan, spec, job.envs[spec.lang], collector)
            if html is None:
                continue
            file = urls.output_file(spec.path)
            tree.add(file, html, spec.lang, f"{spec.template} ({spec.lang})")
            counts[spec.lang] = counts.get(spec.lang, 0) + 1
    return counts


@contextmanager
def _collected_by_refcount(envs: Iterable[jinja2.Environment]) -> Iterator[None]:
    """No cyclic garbage collection while pages render, when nothing a page makes needs one:
    its templates' contexts are released (template_fast.render_released) and the rest of a
    page (its views, its Markdown) makes no reference cycles (test_templates_fast). What the
    pages leave (the bodies' renders, the cards' HTML: kept until the build ends) is then
    frozen (`gc.freeze`, as `_freeze_site`), unwalked: each gen-0 collection of a big site
    walked ~100,000 of them (0.1-0.25 s each at 5,000 posts a language, ~1.3 s of a cold
    build's CPU). With stock Jinja (pages in cycles) the collector runs as usual."""
    if not all(releases_pages(env) for env in envs):
        yield
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def render_pages(
    renderer: HtmlRenderer,
    markdown: MarkdownCache,
    plan: Plan,
    envs: dict[str, jinja2.Environment],
    langs: list[str],
    tree: OutputTree,
    collector: Collector,
    on_pages: Callable[[int], None] | None = None,
    previous: dict[str, tuple[str, Identity]] | None = None,
    global_key: str = "",
    on_start: Callable[[int], None] | None = None,
    meanwhile: Callable[[], None] | None = None,
    fast: FirstPages | None = None,
    memo: KeepMemo | None = None,
) -> tuple[dict[str, int], dict[str, str]]:
    """Render the pages of `langs`; a page whose fingerprint matches `previous` (and whose old
    output file is still the one bipub wrote) is kept instead. Returns pages per language and
    the fingerprints of the pages now in the tree.

    `meanwhile` is run in this process while workers work (the outputs that are not pages:
    feeds, JSON, llms.txt): while they fingerprint the pages of a big site (and keep the
    unchanged ones), else while they render; without workers, after the pages.

    `fast` (`bipub serve`'s fast render: render/first_pages.py): the pages whose fingerprint
    is not known already and that it does not choose keep their published file in this build,
    neither fingerprinted nor given one (the next build works them out); it is told which.

    `memo` (a resident build's, `bipub serve`): what the last build's first step kept, so
    that only the pages whose values changed are checked (render/kept_pages.py)."""
    counts: dict[str, int] = {}
    fingerprints: dict[str, str] = {}
    same: dict[str, str] = {}  # (the fingerprints of the pages kept as known: `keep_known`)
    specs: list[PageSpec] = []
    kept = 0
    pages = [spec for lang in langs for spec in plan.pages.get(lang, [])]
    every = len(langs) == len(plan.pages)
    if previous is not None and renderer.known:  # (most pages of an update: kept at once)
        pages, kept, same = keep_known(
            renderer.known, pages, previous, tree, counts, markdown, memo, plan.paths
        )
        every = False  # (`pages` holds the others: `_unknown` looks at them)
    later: list[PageSpec] = []  # (fast render: left for the next build)
    if fast is not None and previous is not None:
        pages, later = fast.ahead(pages, renderer.known, previous)
    every = every and not later
    decided: list[Decided]
    if previous is None:
        decided = [(None, False, [])] * len(pages)
    elif (
        meanwhile is not None
        and _unknown(renderer.known, pages, every) >= MIN_PAGES_FOR_WORKERS
        and worker_count() > 1
        and can_fork()
    ):
        # fingerprinting every page of a big site takes seconds (but those it knows already:
        # buildstate.py): workers do it (and keep the unchanged files) while this process makes the other outputs on a core of its own
        # (each worker makes every card it needs again: more workers than that cost more)
        decide = partial(_decide, renderer, plan, pages, tree, previous, global_key)
        helpers = worker_count() - 1
        gc.freeze()  # (as below: a worker's collection would otherwise copy the whole site)
        try:
            decided = fork_map(
                decide,
                range(len(pages)),
                DECIDE_CHUNK,
                helpers,
                meanwhile,
                setup=tree.release_in_child,
            )
        finally:
            gc.unfreeze()
        meanwhile = None
    else:  # (here, the card keys made are this renderer's own: none to send)
        decided = _decide_here(renderer, plan, pages, tree, previous, global_key)
        renderer.made_card_keys()
    infos: dict[tuple[str, str], OutputFile] = {}  # (one per template and language: frozen)
    for spec, (fp, keep, cards) in zip(pages, decided, strict=True):
        if cards:  # made by a worker: kept for the next build (they are its own otherwise)
            renderer.reuse_card_keys(dict(cards))
        path = spec.file
        if fp is not None:
            fingerprints[path] = fp
        if not keep:
            specs.append(spec)
            continue
        _record_kept(spec, tree, infos, counts, markdown)
        kept += 1
    if fast is not None:
        if later:
            specs += _defer(later, previous or {}, tree, counts, markdown, fast)
            kept += len(fast.deferred)
        fast.first = len(specs)
    # a page and its translations side by side: they share code blocks (render/highlight.py
    # memoizes them), so they should land in the same chunk
    if len(specs) > 1:  # (the plan's order of their routes: only theirs numbered)
        wanted = {s.route for s in specs}
        order = {route: i for i, route in enumerate(plan.routes) if route in wanted}
        specs.sort(key=lambda s: order[s.route])
    tree.reused_pages += kept
    if on_start:
        on_start(kept + len(specs))
    if on_pages and kept:
        on_pages(kept)
    job = _Job(renderer, markdown, plan, envs, specs, tree)
    workers = worker_count()
    parts = chunks(specs)
    # (below the threshold forking costs more than it saves; while other threads run, as in
    # `bipub serve`'s rebuilds, forking is unsafe)
    if workers == 1 or len(specs) < MIN_PAGES_TO_RENDER_IN_WORKERS or not can_fork():
        for start, end in parts:
            _render_here(job, (start, end), tree, collector, counts, on_pages)
        if meanwhile:
            meanwhile()
        _freeze_site()
        return counts, _with_written(same, fingerprints, tree)
    # The pages that load what rendering loads once per process (compiled templates, locale
    # data, highlighters, the Markdown parser) are rendered here before forking: it is then
    # loaded once, not by every worker (~70 ms each at 100 posts/lang), and the helpers start
    # after these few pages (~14 on a blog), not after a whole chunk (`warm_up_first`).
    first = warm_up_first(specs)
    _render_here(job, (0, first), tree, collector, counts, on_pages)
    # the others in smaller chunks on a small site: when this process meets the helpers, each
    # may hold two chunks it cannot give back (started, or queued to start): what this process
    # then waits for is kept small (~8 chunks a process; 48 pages from ~400 pages a process on)
    left = len(specs) - first
    size = min(CHUNK, max(MIN_CHUNK, left // (16 * workers)))
    parts = chunks(specs, size, first)
    # `workers - 1` forked helpers and this process: it makes the other outputs (`meanwhile`)
    # and then renders the chunks no helper has started yet, from the last one back; a chunk
    # is claimed when it is started (parallel.share_chunks), so small chunks cost nothing
    # and when the last one is taken nobody waits for more than the one a helper is on
    # the forked workers share the parent's memory until they write to it; a garbage collection
    # in a worker would visit (and so copy) every object of the planned site: freeze them first
    gc.freeze()
    try:
        made = share_chunks(
            len(parts),
            lambda i: _render_here(job, parts[i], tree, collector, counts, on_pages),
            lambda i: _render_chunk(parts[i]),
            workers - 1,
            meanwhile,
            setup=partial(_init, job),
        )
    finally:
        gc.unfreeze()
    for _, (files, diagnostics, part, (notes, outlines, shipped), their_cards) in made:
        # the cards' HTML the helpers made (render/card_html.py)
        renderer.card_html.add(their_cards)
        tree.merge(files)
        collector.extend(diagnostics)
        markdown.merge(notes, outlines, shipped)
        _add_counts(counts, part)
        if on_pages:
            on_pages(sum(part.values()))
    _freeze_site()
    return counts, _with_written(same, fingerprints, tree)


def _defer(
    later: list[PageSpec],
    previous: dict[str, tuple[str, Identity]],
    tree: OutputTree,
    counts: dict[str, int],
    markdown: MarkdownCache,
    fast: FirstPages,
) -> list[PageSpec]:
    """Keep the published file of each of `later` (pages of the plan whose fingerprint is not
    known) as the last build left it, without working out their fingerprints: neither the
    BuildState nor the build cache may say these files are current (the next build works them
    out and renders those that changed). Returns those whose published file is not the one bipub
    wrote (rendered now, with no fingerprint either)."""
    now: list[PageSpec] = []
    infos: dict[tuple[str, str], OutputFile] = {}
    done = tree.keep_each([(spec.file, previous[spec.file][1]) for spec in later])
    for spec in later:
        path = spec.file
        if path not in done:
            now.append(spec)
            continue
        _record_kept(spec, tree, infos, counts, markdown)
        fast.deferred[path] = previous[path][0]  # (the fingerprint of the file kept)
    return now


def _record_kept(
    spec: PageSpec,
    tree: OutputTree,
    infos: dict[tuple[str, str], OutputFile],
    counts: dict[str, int],
    markdown: MarkdownCache,
) -> None:
    """A page whose published file stays: recorded as kept in `tree` (one OutputFile per
    template and language, shared through `infos`), counted, and its body's warnings said
    again, as rendering it would give them."""
    info = infos.get((spec.template, spec.lang))
    if info is None:
        info = infos[spec.template, spec.lang] = OutputFile(
            spec.lang, f"{spec.template} ({spec.lang})"
        )
    tree.record_kept(spec.file, info)
    counts[spec.lang] = counts.get(spec.lang, 0) + 1
    if spec.doc is not None:
        markdown.replay(spec.doc)


def _unknown(known: dict[str, str], pages: list[PageSpec], every_language: bool) -> int:
    """How many of `pages` have no known fingerprint (buildstate.carry: `known` holds pages of
    the plan only, so with every language's pages, those it does not hold)."""
    if every_language:
        return len(pages) - len(known)
    return sum(spec.path not in known for spec in pages)


def _freeze_site() -> None:
    """The pages are rendered: what exists now (the planned site, the rendered bodies, the
    output tree) lives until the build ends, and each collection of the outputs made after the
    pages (feeds, llms-full.txt) would walk it again (~100 ms at 100 posts/lang). Frozen out of
    the collector's reach; the build thaws it when it ends (pipeline._few_collections)."""
    gc.freeze()


def _render_here(
    job: _Job,
    bounds: tuple[int, int],
    tree: OutputTree,
    collector: Collector,
    counts: dict[str, int],
    on_pages: Callable[[int], None] | None,
) -> None:
    """Render the chunk `bounds` of the job's pages in this process, into `tree`."""
    part = _render_specs(job, job.specs[bounds[0] : bounds[1]], tree, collector)
    _add_counts(counts, part)
    if on_pages:
        on_pages(sum(part.values()))


def _decide(
    renderer: HtmlRenderer,
    plan: Plan,
    pages: list[PageSpec],
    tree: OutputTree,
    previous: dict[str, tuple[str, Identity]],
    global_key: str,
    n: int,
) -> Decided:
    """Page `n`'s fingerprint, whether its previous file was kept (linked into the staging
    folder: OutputTree.keep) because the fingerprint did not change, and the card keys made to
    work it out. In a worker process, or here; the caller records the kept files in its tree
    (OutputTree.record_kept) and the card keys in its renderer."""
    fp, keep = _fingerprint_keep(renderer, plan, pages[n], tree, previous, global_key)
    return fp, keep, renderer.made_card_keys()


def _decide_here(
    renderer: HtmlRenderer,
    plan: Plan,
    pages: list[PageSpec],
    tree: OutputTree,
    previous: dict[str, tuple[str, Identity]],
    global_key: str,
) -> list[Decided]:
    """`_decide` for every page, in this process: those whose fingerprint is known (kept from
    the last build: buildstate.carry) looked up here, without a call each (most of an update's
    pages), the others by `_fingerprint_keep`."""
    known = renderer.known
    keep = tree.keep
    none: list[tuple[tuple[str, str, str], str]] = []  # (no card keys to send: not a worker)
    out: list[Decided] = []
    for spec in pages:
        fp = known.get(spec.path)
        if fp is None:
            out.append((*_fingerprint_keep(renderer, plan, spec, tree, previous, global_key), none))
            continue
        path = spec.file
        old = previous.get(path)
        out.append((fp, old is not None and old[0] == fp and keep(path, old[1]), none))
    return out


def _fingerprint_keep(
    renderer: HtmlRenderer,
    plan: Plan,
    spec: PageSpec,
    tree: OutputTree,
    previous: dict[str, tuple[str, Identity]],
    global_key: str,
) -> tuple[str | None, bool]:
    """`spec`'s fingerprint, and whether its previous file was kept (`_decide`)."""
    path = spec.file
    fp = renderer.fingerprint(plan, spec, global_key)
    old = previous.get(path)
    return fp, fp is not None and old is not None and old[0] == fp and tree.keep(path, old[1])


def _with_written(
    same: dict[str, str], fingerprints: dict[str, str], tree: OutputTree
) -> dict[str, str]:
    """`same` (the kept pages' fingerprints: this build's own dict, ~24,000 on a big site after
    an edit, not copied) with the fingerprints of the other pages that are in the tree (a page
    that failed to render has none)."""
    same.update({path: fp for path, fp in fingerprints.items() if path in tree.files})
    return same


def _add_counts(total: dict[str, int], part: dict[str, int]) -> None:
    for lang, n in part.items():
        total[lang] = total.get(lang, 0) + n
