"""The build pipeline: a list of named stages, each a function of its own.

    config, content = load(project, ...)      # 1–2: files → validated models (build cache)
    site = pair(project, config, content, …)  # 3: translations matched, states resolved
    job = plan(project, site, langs, …)       # 4: every page planned
    pages, … = html_pages(job, kinds, …)      #    what the last build worked out that still
                                              #    holds (buildstate.py)
    render(job, kinds, tree)                  # 5: every output kind into a staging folder
    publish(tree)                             # 6: one atomic swap into the output folder
    remember(...)                             # 7: build cache, up-to-date record, BuildState

Every build runs these stages, a cold one and one after a single edit alike: what makes the
second fast is what the first left (cache.py, uptodate.py, buildstate.py), never a second set
of rules. Nothing is published before every stage has succeeded; one run reports all errors
it can find.
"""

from __future__ import annotations

import gc
import hashlib
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from bipub import buildstate, handover, restore, schedule, uptodate
from bipub.buildstate import BuildState
from bipub.cache import BuildCache, ReadAhead, kept_to_the_end, not_saved, user_cache_dir
from bipub.code_stamp import CODE
from bipub.config import SiteConfig, load_config
from bipub.diagnostics import Collector, ConfigError, Diagnostic, DiagnosticError
from bipub.load.ahead import LoadAhead
from bipub.load.content import Content, ContentMemo, load_content
from bipub.pair.model import report_fallbacks
from bipub.pair.site import PairMemo, Site, pair_site
from bipub.pair.status import StatusCache
from bipub.project import Project
from bipub.render import cards, removed_urls, urls
from bipub.render.aliases import redirects
from bipub.render.cards import Cards
from bipub.render.diagrams import Diagrams
from bipub.render.first_pages import DEFERRED, FirstPages
from bipub.render.html import HtmlRenderer
from bipub.render.locale_format import load_locales
from bipub.render.markdown import MarkdownCache
from bipub.render.outputs import (
    Feeds,
    HtmlPages,
    JsonApi,
    Llms,
    Output,
    Parts,
    Pdfs,
    RenderJob,
    Search,
)
from bipub.render.page_plan import PageMemo
from bipub.render.templates import THEME_DIR, bytecode_cache, site_environment
from bipub.restore import Kept as Kept  # (re-exported: what `bipub serve` keeps)
from bipub.result import BuildResult as BuildResult  # (re-exported: what build returns)
from bipub.result import apply_strict, up_to_date
from bipub.schedule import PUBLISH_ALL
from bipub.scheduled_links import links_to_scheduled
from bipub.write.output import (
    OutputTree,
    clean_leftovers,
    publish,
    staged,
    write_failed,
)

OUTPUT_KINDS = ("html", "json", "feeds", "llms", "pdf", "search", "cards")


@dataclass(frozen=True)
class BuildOptions:
    """What the caller asked for (`bipub build`'s options)."""

    langs: list[str] | None = None  # --lang (None: every language)
    only: frozenset[str] | None = None  # --only (None: every output kind)
    strict: bool = False
    on_start: Callable[[int], None] | None = None  # progress: the number of pages
    on_pages: Callable[[int], None] | None = None  # progress: pages done
    first: FirstPages | None = None  # `bipub serve`'s fast render (render/first_pages.py)
    on_publish: Callable[[], None] | None = None  # called right after the swap (serve: reload)
    future: bool = False  # --future: posts dated after "now" published too (bipub/schedule.py)


def load(
    project: Project,
    collector: Collector,
    cache: BuildCache | None = None,
    inputs: dict[str, uptodate.Identity] | None = None,
    memo: ContentMemo | None = None,
) -> tuple[SiteConfig, Content]:
    """Stages 1–2: the configuration (ConfigError, exit 2, on any problem) and the content.
    `inputs`: the identities of the input files this build's scan found (uptodate.py); `memo`:
    what the last load of a resident caller listed and loaded (load/content.py)."""
    config = load_config(project.root)
    content = load_content(project.root, config, collector, cache, inputs or None, memo)
    return config, content


def pair(
    project: Project,
    config: SiteConfig,
    content: Content,
    collector: Collector,
    memo: PairMemo | None = None,
    status: StatusCache | None = None,
    now: float = PUBLISH_ALL,
) -> Site:
    """Stage 3: translations matched, states resolved, tags and series collected (`memo`: what
    the last pairing of a resident caller worked out per entry, pair/site.py PairMemo; `status`:
    the status files as the last build parsed them, pair/status.py; `now`: after which a post
    is scheduled, bipub/schedule.py, PUBLISH_ALL: none is)."""
    return pair_site(project.root, config, content, collector, memo, status, now)


def build_now(config: SiteConfig, future: bool) -> float:
    """The "now" a build publishes posts up to (bipub/schedule.py): SOURCE_DATE_EPOCH, else the
    clock; PUBLISH_ALL with --future or bipub.yaml `outputs.publish_future`. Raises
    DiagnosticError if SOURCE_DATE_EPOCH is not a number of seconds."""
    if future or config.outputs.publish_future:
        return PUBLISH_ALL
    try:
        return schedule.build_now()
    except ValueError as exc:
        raise DiagnosticError([Diagnostic(None, None, "usage", str(exc))]) from None


def plan(
    project: Project,
    site: Site,
    langs: list[str],
    collector: Collector,
    cache: BuildCache | None,
    state: BuildState | None = None,
    memo: PageMemo | None = None,
) -> RenderJob:
    """Stage 4: every page of every language planned, with what rendering needs (and the
    parts of the aggregate outputs the last build made: buildstate.py; `memo`: the pages the
    last plan of a resident caller made per entry, render/page_plan.py PageMemo)."""
    config = site.config
    url = urls.UrlBuilder(config.base_url)
    markdown = MarkdownCache(
        config.outputs.raw_html,
        collector,
        cache.notes if cache is not None else None,
        images=site.images,  # issue 19: sizes and variants of the local images
        diagrams=Diagrams(user_cache_dir() if cache is not None else None, config.pdf.fonts),
    )
    # ```mermaid diagrams: every one not yet cached, drawn in one browser run (issue 19)
    markdown.prepare_diagrams(doc for e in site.entries for doc in e.mermaid_docs)
    # compiled templates are code: kept in the user's cache, never in the (cloneable) project
    # (the theme's even with --no-cache: they are part of bipub, as its compiled modules are)
    bytecode = bytecode_cache(
        user_cache_dir() / "jinja", project_too=cache is not None, collector=collector
    )
    envs = {
        lang: site_environment(
            project, lang, collector, bytecode, warn_untranslated=lang in langs and lang != "en"
        )
        for lang in config.codes
    }
    renderer = HtmlRenderer.again(memo, site, markdown, url)
    renderer.site_root = project.root
    parts = state.parts.again() if state is not None else Parts()
    pages = renderer.plan()
    return RenderJob(
        project,
        site,
        langs,
        url,
        markdown,
        envs,
        renderer,
        pages,
        collector,
        cache,
        parts,
        redirects(site, pages, langs, project.static),
    )


def outputs(only: frozenset[str] | None) -> list[Output]:
    """The output kinds this build renders (build --only), HTML pages aside (`HtmlPages`)."""
    fresh = only is None or "html" in only  # the search index reads the pages of this build
    kinds: list[Output] = [Feeds(), JsonApi(), Llms(), Pdfs(), Search(fresh), Cards()]
    return [kind for kind in kinds if only is None or kind.kind in only]


def html_pages(
    job: RenderJob,
    kinds: list[Output],
    project: Project,
    target: Path,
    options: BuildOptions,
    state: BuildState | None,
    inputs: dict[str, uptodate.Identity] | None = None,
) -> tuple[HtmlPages | None, str]:
    """The HTML pages output (None with `--only` without html), given what the last build
    worked out that still holds (buildstate.carry), and what was carried or why not (`-v`).
    `inputs`: the identities of the input files this build read (uptodate.py)."""
    if options.only is not None and "html" not in options.only:
        # the aggregates' parts: found by the entries' keys of the pages' build that read the
        # same files (`bipub serve`), else by their values (the keys cost more to work out
        # here than they save: render/parts.py)
        if state is not None and inputs and state.inputs == inputs:
            job.parts.use_keys(state.entries, state.global_key)
        else:
            job.parts.why = "no build of the pages from the same files: parts found by values"
        return None, ""
    others = [kind for kind in kinds if not isinstance(kind, (Pdfs, Search, Cards))]  # (after)
    cache = job.cache
    if cache is None:  # --no-cache: every page rendered
        return HtmlPages(others, "", None, {}, options.on_pages, options.on_start), ""
    global_key = job.renderer.global_key(_inputs_key(project))
    entries = buildstate.entry_keys(job.renderer)
    job.parts.use_keys(entries, global_key)  # (the aggregates' parts are found by them too)
    note = buildstate.carry(state, job.renderer, job.plan, global_key, entries)
    previous = cache.pages.get(str(target.resolve()), {})  # (the writer's: OutputTree.out)
    if options.first is not None:
        options.first.begin(
            state.entries if state is not None else None,
            entries,
            state.plan if state is not None else None,
        )
    return HtmlPages(
        others, global_key, previous, entries, options.on_pages, options.on_start, options.first
    ), note


def _next_state(job: RenderJob, pages: HtmlPages | None, kinds: list[Output]) -> BuildState | None:
    """What this build leaves for the next one; None if it cannot leave a true state: no
    pages fingerprinted (--no-cache, --only without html) or only some languages'."""
    if pages is None or job.cache is None or not job.every_language:
        return None
    return BuildState(
        pages.global_key,
        pages.entries,
        pages.fingerprints,
        job.renderer.card_keys(),
        job.parts.next(),
        plan=job.plan,
    )


def render(job: RenderJob, kinds: list[Output], tree: OutputTree) -> None:
    """Stage 5: every output kind of the build into the staged tree."""
    # the social cards' fonts asked of fontconfig now, read when the cards are made, after the
    # pages: the build's thread does not wait for fc-list (render/cards.py `Cards.start`)
    ahead = [kind for kind in kinds if isinstance(kind, Cards)]
    for card_kind in ahead:
        card_kind.start(job)
    try:
        for kind in kinds:
            kind.render(job, tree)
    finally:
        for card_kind in ahead:
            card_kind.stop()
    if (
        job.cache is not None
        and job.every_language
        and any(isinstance(kind, HtmlPages) for kind in kinds)
    ):  # the notes of the documents shown now, not of every version ever (a build of some
        # languages or output kinds shows some documents only: it keeps the others' notes)
        job.cache.notes = job.markdown.used_notes()


def _inputs_key(project: Project) -> str:
    """Hash of what every page depends on besides content: bipub's version, the config, every
    template and catalog (project and theme)."""
    h = hashlib.sha256(CODE.encode())
    h.update(project.config_file.read_bytes())
    for folder in (
        project.templates,
        THEME_DIR / "templates",
        project.locales,
        THEME_DIR / "locales",
    ):
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix in (".html", ".xml", ".txt", ".css", ".po", ".j2"):
                h.update(path.relative_to(folder).as_posix().encode())
                h.update(path.read_bytes())
    return h.hexdigest()


def check_langs(config: SiteConfig, langs: Sequence[str]) -> None:
    """`--lang` values must be languages of the site (a usage error, exit 2)."""
    unknown = [lang for lang in langs if lang not in config.codes]
    if unknown:
        raise ConfigError(
            [
                Diagnostic(
                    "bipub.yaml",
                    None,
                    "usage",
                    f"--lang {', '.join(unknown)}: not a language of this site "
                    f"({', '.join(config.codes)})",
                )
            ]
        )


@contextmanager
def _few_collections() -> Iterator[None]:
    """A build allocates millions of long-lived objects (documents, the paired site, the plan);
    Python's cyclic garbage collector would walk all of them again and again (~15 % of a warm
    build). Collect less often while building; the previous settings come back afterwards.
    What was made before the build (the modules imported; `bipub serve`'s resident state) is
    frozen: its collections never walk it (the first one of a cold build at 5,000 posts a
    language walked every object of its ~500 modules, ~25 ms of its load stage). The reference
    cycles the last builds left are frozen with it, and a thawed oldest generation is seldom
    collected: a caller that builds again and again collects them itself, at a quiet moment
    (`bipub serve`: serve_save.Sweeps)."""
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()  # what the render stage froze (render/workers.py): collectable again


def build(
    root: Path,
    out: Path | None = None,
    langs: list[str] | None = None,
    *,
    strict: bool = False,
    on_start: Callable[[int], None] | None = None,
    on_pages: Callable[[int], None] | None = None,
    only: set[str] | None = None,
    use_cache: bool = True,
    kept: Kept | None = None,
    prescan: uptodate.Prescan | None = None,
    changed: Collection[str] | None = None,
    first: FirstPages | None = None,
    on_publish: Callable[[], None] | None = None,
    ahead: LoadAhead | None = None,
    read_ahead: ReadAhead | None = None,
    future: bool = False,
) -> BuildResult:
    """Run every stage. Raises DiagnosticError (nothing written) or returns what was built.

    `kept`: the build cache and state a caller keeps in memory between builds (`bipub serve`;
    the result's `state` is the next one); they are neither read from nor saved to
    .bipub-cache/ here. `prescan`: the caller's uptodate.Prescan for this build (started
    early; the caller closes it), else one is made. `changed`: every path changed since the
    last build of `kept` scanned the inputs, as the caller's file watcher reported them (None:
    not known; uptodate.rescan_inputs says when they stand for a scan). `first`: publish first
    only the pages it chooses of those that changed (`bipub serve`: render/first_pages.py).
    `on_publish`: called right after the new site is swapped in, before the saves that follow
    (`bipub serve`: open pages reload then); not called if nothing is published.
    `ahead`: the load stage of a build without the cache, started by the caller in a child
    process (load/ahead.py). `read_ahead`: the files `restore` reads, read and checked by
    the caller ahead (cache.py ReadAhead, restore_files). `future`: posts dated after "now"
    are published too (`bipub build --future`; bipub/schedule.py)."""
    if ahead is not None and use_cache:
        raise ValueError("the load stage is done ahead only for a build without the cache")
    project = Project(root)
    target, key = uptodate.build_key(project, out, langs, only, future)
    if prescan is not None and (prescan.target, prescan.key) != (target, key):
        raise ValueError("the prescan was started for another output folder or other options")
    options = BuildOptions(
        langs,
        frozenset(only) if only is not None else None,
        strict,
        on_start,
        on_pages,
        first,
        on_publish,
        future,
    )
    with _few_collections(), ExitStack() as stack:
        if use_cache and prescan is None:
            records = kept.records if kept is not None else None
            # no child: its head start is the command line's imports, done here already
            prescan = stack.enter_context(
                uptodate.Prescan(
                    root, target, key, records, fork=False, changed=changed if kept else None
                )
            )
        return _build(project, target, key, options, kept, prescan, ahead, read_ahead)


def _build(
    project: Project,
    target: Path,
    record_key: str,
    options: BuildOptions,
    kept: Kept | None,
    prescan: uptodate.Prescan | None,  # None: --no-cache
    ahead: LoadAhead | None = None,
    read_ahead: ReadAhead | None = None,
) -> BuildResult:
    started = time.perf_counter()
    notes: list[str] = []
    inputs: dict[str, uptodate.Identity] = {}
    published: dict[str, uptodate.Identity] | None = None  # the last build's record of it
    last_urls: dict[str, tuple[str, str]] = {}  # the pages it published (`url-removed`)
    last_inputs: Mapping[str, uptodate.Identity] = {}  # (`url-removed`: a file renamed)
    if prescan is not None:
        done = up_to_date(prescan, options.strict)  # (what a killed build left: cleaned first)
        if done is not None:
            return done
        scan = prescan.scan()
        inputs = scan.inputs
        published = scan.record.files if scan.record is not None else None
        last_urls = scan.record.urls if scan.record is not None else {}
        last_inputs = scan.record.inputs if scan.record is not None else {}
        notes.append(prescan.note)
        if scan.record is not None and scan.record.passed(record_key):
            notes.append("not up to date: the clock passed a scheduled post's date (or went back)")
    else:
        clean_leftovers(target)  # what a killed build left
    collector = Collector()
    cache: BuildCache | None = None
    state: BuildState | None = None
    if prescan is not None:
        if kept is None:  # what `bipub serve` keeps, from .bipub-cache/ (restore.py)
            kept = restore.restore(project, target, notes, read_ahead)
        cache, state = kept.cache, kept.state
    if read_ahead is not None:  # (its thread ended before anything here may fork; `restore`
        # takes each file as soon as it is read and checked, while the next ones are read)
        read_ahead.wait()
    if ahead is not None:  # (loaded by a child while the stages were imported; the locale
        # data of the pages read here meanwhile)
        config, content = ahead.result(collector, lambda config: load_locales(config.codes))
        notes.append(ahead.note)
    else:
        config, content = load(project, collector, cache, inputs, kept.content if kept else None)
        notes.append(kept.content.note if kept else "")
    check_langs(config, options.langs or [])
    selected = [c for c in config.codes if not options.langs or c in options.langs]
    # what pairing and planning make lives until the build ends and makes no reference cycles
    # (test_collector.py): not walked by the cyclic collector (cache.kept_to_the_end)
    with kept_to_the_end():
        now = build_now(config, options.future)
        site = pair(project, config, content, collector, kept.pairs if kept else None, None, now)
        if kept is not None:
            notes.append(kept.paired_note(len(site.entries)))
        collector.raise_if_errors()
        report_fallbacks(site, selected, collector)
        collector.extend(links_to_scheduled(site, site.scheduled))  # (none: nothing read)
        job = plan(project, site, selected, collector, cache, state, kept.pages if kept else None)
        kinds = outputs(options.only)
        pages, note = html_pages(job, kinds, project, target, options, state, inputs)
        if kept is not None:  # (what status.json's parts read of the status files: Parts.status)
            job.parts.status = kept.pairs.status.digests(site.status)
        if pages is not None and kept is not None and not kept.on_disk:  # (resident: serve)
            pages.memo = kept.keep
        # the pages `url-removed` follows (the record's `urls`: saved only with a cache) and
        # the old URLs they leave out
        pages_of = (
            removed_urls.published(site, job.plan, selected, job.redirects)
            if pages is not None and (last_urls or (cache is not None and kept is not None))
            else None
        )
        if pages_of is not None and last_urls:
            collector.extend(
                removed_urls.removed(
                    last_urls,
                    site,
                    job.plan,
                    selected,
                    job.redirects,
                    (last_inputs, inputs),
                    pages_of,
                )
            )
    notes.append(note)
    steps = kinds
    if pages is not None:  # the pages render the others (not PDFs) while their workers work
        steps = [pages, *(kind for kind in kinds if isinstance(kind, (Pdfs, Search, Cards)))]
        kinds = [pages, *kinds]
    known = handover.known_output(prescan, notes) if prescan is not None else None
    try:
        with staged(
            target,
            project.root,
            partial(handover.recorded_files, project, target, prescan),
            known.output() if known is not None else None,
        ) as tree:
            if (told := options.on_publish) is not None:
                tree.on_publish.append(lambda _out: told())
            render(job, steps, tree)
            notes.extend(n for kind in steps if isinstance(kind, Search) for n in kind.notes)
            built: Mapping[str, int] = {}
            if options.only is not None:  # build --only: the other kinds stay as they were
                built = handover.Built(kinds, list(tree.files))
                handover.carry_other_kinds(
                    tree, kinds, published, kept.owned if kept is not None else None
                )
            silenced = collector.apply_levels(config.diagnostics)  # bipub.yaml `diagnostics:`
            apply_strict(collector, options.strict)
            changed = publish(tree, selected if selected != config.codes else None)
    except OSError as exc:  # the disk, not bipub: said as such (staged() kept the old site)
        raise DiagnosticError([write_failed(exc)]) from exc
    warnings = sorted(set(collector.warnings), key=lambda d: (d.file or "", d.line or 0, d.message))
    later = scheduled_posts(site)
    # the output folder's own notes (a lock taken over, a folder left alone) and what could not
    # be done after the swap: not about the content, so neither errors under --strict nor
    # repeated by the up-to-date builds that follow (they are not in the record)
    folder_notes = list(tree.warnings)
    new_state = _next_state(job, pages, kinds)
    if new_state is not None and inputs:
        new_state.inputs = dict(inputs)  # (what it was made from: `html_pages`)
    if new_state is not None and kept is not None and not kept.on_disk:  # (resident: serve)
        new_state.index = buildstate.plan_index(new_state)  # (after the publish: `carry`'s)
    if new_state is not None and state is not None:  # the files its parts are kept in: only
        new_state.stored = state.stored  # the parts they lack are written (buildstate.save)
    if new_state is None and state is not None and job.cache is not None:
        state.parts = job.parts.next()  # (a build of some outputs: the parts it made are true)
    if cache is not None and kept is not None:  # (a build with a cache has a Kept)
        try:  # the site is published: what fails now is said, and the next build does more
            fingerprints = pages.fingerprints if pages is not None else {}
            if options.first is not None and options.first.deferred:  # (of the files kept)
                fingerprints = {**options.first.deferred, **fingerprints}
            output = tree.next_record()
            files = output.files
            made = [kind.keys for kind in steps if isinstance(kind, Cards)]
            cards.remember(cache, tree.out, made[0] if made else None, files)
            handover.remember(project, target, tree, kept, fingerprints, output, new_state)
            if new_state is not None:
                kept.state = new_state
                job.renderer.save_card_html()  # (`bipub build`'s: render/card_html.py)
            counts = pages.counts if pages is not None else {}
            if options.first is not None and options.first.deferred:
                record_key += DEFERRED  # (not current: the next build renders what waits)
            record = uptodate.Record(
                record_key,
                inputs,
                files,
                output.dirs,
                # (`url-removed`: said by the build that removes the URL, not repeated after it)
                [w for w in warnings if w.code != removed_urls.CODE],
                counts,
                output.digests,
                output.spare,
                window=site.window,
                scheduled=later,
                urls=removed_urls.next_urls(last_urls, pages_of, selected, files),
            )
            if not kept.on_disk:  # (the file describes an older output: not trusted)
                kept.records[target] = record
            else:
                last = prescan.scan().record if prescan is not None else None  # (its base)
                uptodate.save(project, target, record, last)  # last: says the output is current
        except OSError as exc:
            uptodate.forget(project, target)
            if not kept.on_disk:
                kept.records[target] = None
            folder_notes.append(not_saved(project.cache, exc))
    notes += [tree.note, job.parts.note(), job.renderer.card_html.note]  # (and the cards')
    notes.append(pages.memo.note if pages is not None and pages.memo is not None else "")
    notes.append(cache.note if cache is not None else "build cache off (--no-cache)")
    notes.append(cache.pruned if cache is not None else "")  # (what its save removed)
    notes.append(_silenced_note(silenced))
    return BuildResult(
        pages.counts if pages is not None else {},
        len(tree.files),
        changed,
        time.perf_counter() - started,
        [*warnings, *folder_notes],
        tree.reused_pages,
        "; ".join(n for n in notes if n),
        state=new_state if new_state is not None else state,
        built=built,
        scheduled=later,
    )


def scheduled_posts(site: Site) -> list[tuple[str, str]]:
    """The posts and pages not yet published (bipub/schedule.py), soonest first: (when,
    "posts/key" or "pages/key")."""
    zone = schedule.zone_of(site.config.time_zone)
    return [(schedule.when(e.publish_at or 0.0, zone), f"{e.kind}/{e.key}") for e in site.scheduled]


def _silenced_note(silenced: list[Diagnostic]) -> str:
    if not silenced:
        return ""
    codes = sorted({d.code for d in silenced})
    n = len(silenced)
    return f"{n} warning{'s' if n != 1 else ''} silenced by `diagnostics:` in bipub.yaml ({', '.join(codes)})"
