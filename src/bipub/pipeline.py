"""The build pipeline: load → validate → pair → render → write, each a function of its own.

    config, content = load(project)          # stage 1–2: files → validated models
    site = pair(project, config, content)    # stage 3: translations matched, states resolved
    tree = render(project, site, langs)      # stage 4: every output as bytes, in memory
    publish(tree, out, langs)                # stage 5: atomic swap into the output folder

Nothing is written before every stage has succeeded; one run reports all errors it can find.
"""

from __future__ import annotations

import gc
import hashlib
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from bipub import __version__, quick, uptodate
from bipub.cache import BuildCache, user_cache_dir
from bipub.config import SiteConfig, load_config
from bipub.diagnostics import Collector, ConfigError, Diagnostic, DiagnosticError, Severity
from bipub.load.content import Content, load_content
from bipub.pair.site import Site, pair_site
from bipub.project import Project
from bipub.render import urls
from bipub.render.markdown import MarkdownCache
from bipub.write.output import (
    OutputFile,
    OutputTree,
    publish,
    published_files,
    remove_files,
    replace_files,
    staged,
)

THEME_DIR = Path(__file__).resolve().parent / "theme"


@dataclass
class BuildResult:
    pages: dict[str, int]
    files: int
    changed: int
    seconds: float
    warnings: list[Diagnostic] = field(default_factory=list)
    reused: int = 0  # pages whose inputs did not change: kept from the previous build
    cache_note: str = ""  # why the build cache was not used, if it was not
    up_to_date: bool = False  # nothing changed since the last build: nothing was done
    quick: list[str] | None = None  # a quick rebuild (quick.py) of these edited files


def load(
    project: Project, collector: Collector, cache: BuildCache | None = None
) -> tuple[SiteConfig, Content]:
    config = load_config(project.root)  # ConfigError (exit 2) on any problem
    content = load_content(project.root, config, collector, cache)
    return config, content


def pair(project: Project, config: SiteConfig, content: Content, collector: Collector) -> Site:
    return pair_site(project.root, config, content, collector)


def render(
    project: Project,
    site: Site,
    langs: list[str],
    tree: OutputTree,
    collector: Collector,
    on_pages: Callable[[int], None] | None = None,
    only: set[str] | None = None,
    cache: BuildCache | None = None,
    on_start: Callable[[int], None] | None = None,
    kit: dict[str, Any] | None = None,
) -> dict[str, int]:
    """Stage 4: write every output of `langs` into the staged tree. Returns pages per language.

    `only` (build --only): the output kinds to render (OUTPUT_KINDS); None renders all.
    With a `cache`, pages whose inputs did not change since the last build are kept.
    With a `kit` (a dict), what a quick rebuild needs is left in kit["parts"] (quick.py)."""
    from bipub.render import feeds, json_api, llms
    from bipub.render.html import HtmlRenderer
    from bipub.render.templates import bytecode_cache, site_environment
    from bipub.render.workers import render_pages

    config = site.config
    url = urls.UrlBuilder(config.base_url)
    markdown = MarkdownCache(
        config.outputs.raw_html, collector, cache.notes if cache is not None else None
    )
    kept_feeds: dict[str, Any] = {}
    kept_sitemap: list[Any] = []  # the sitemap by route (quick.py)
    status_files: dict[str, list[tuple[str, str]]] = {}  # language → status.json's records
    texts: dict[str, Any] = {}  # posts.json records and llms lines, by output path (quick.py)
    envs = {}
    # compiled templates are code: kept in the user's cache, never in the (cloneable) project
    bytecode = bytecode_cache(user_cache_dir() / "jinja" if cache is not None else None)
    for lang in config.codes:
        warn = lang in langs and lang != "en"
        envs[lang] = site_environment(project, lang, collector, bytecode, warn_untranslated=warn)
    renderer = HtmlRenderer(site, markdown, url)
    renderer.site_root = project.root
    plan = renderer.plan()

    def want(kind: str) -> bool:  # build --only
        return only is None or kind in only

    def other_outputs() -> None:
        """Everything but the pages (run while the render workers work)."""
        for lang in langs:
            if want("feeds"):
                feed = feeds.atom_feed(site, lang, url, markdown, kept_feeds)
                tree.add(urls.feed(lang)[1:], feed, lang, "feed")
            if want("json"):
                cv = json_api.cv_json(site, lang)
                if cv is not None:
                    tree.add(urls.api(lang, "cv")[1:], cv, lang, "cv.json")
                post_records = texts[urls.api(lang, "posts")[1:]] = json_api.post_records(
                    site, lang, url
                )
                posts = json_api.join_records([text for _, text in post_records])
                tree.add(urls.api(lang, "posts")[1:], posts, lang, "api")
                records = status_files[lang] = json_api.status_records(site, lang)
                status = json_api.status_json(records)
                tree.add(urls.api(lang, "status")[1:], status, lang, "api")
            if want("llms"):
                lines = texts[urls.llms(lang)[1:]] = llms.llms_lines(site, lang, url)
                tree.add(urls.llms(lang)[1:], lines.text(), lang, "llms.txt")
                lines = texts[urls.llms(lang, True)[1:]] = llms.llms_full_lines(site, lang, url)
                tree.add(urls.llms(lang, True)[1:], lines.text(), lang, "llms")
        if langs == config.codes:  # outputs shared by all languages: only on a full build
            default = config.default_language
            if want("llms"):
                lines = texts["llms.txt"] = llms.llms_lines(site, default, url, root=True)
                tree.add("llms.txt", lines.text(), None, "llms.txt")
                lines = texts["llms-full.txt"] = llms.llms_full_lines(site, default, url)
                tree.add("llms-full.txt", lines.text(), None, "llms-full.txt")
            if want("feeds"):
                parts = kept_sitemap[:] = feeds.sitemap_parts(site, plan, url)
                tree.add("sitemap.xml", feeds.sitemap_join(parts), None, "sitemap")
                tree.add("robots.txt", feeds.robots(url), None, "robots")
            if want("json"):
                for name, text in json_api.schemas().items():
                    tree.add(f"api/schema/{name}", text, None, "schema")
            if want("html"):
                for path, html in renderer.render_root_pages(plan, envs[default], collector):
                    tree.add(urls.output_file(path), html, None, path)
                _static(project, tree)

    counts: dict[str, int] = {}
    fingerprints: dict[str, str] = {}
    if want("html"):
        out_key = str(tree.out)
        previous = cache.pages.get(out_key, {}) if cache is not None else None
        counts, fingerprints = render_pages(
            renderer,
            markdown,
            plan,
            envs,
            langs,
            tree,
            collector,
            on_pages,
            previous,
            renderer.global_key(_inputs_key(project)) if cache is not None else "",
            on_start,
            meanwhile=other_outputs,
        )
        if cache is not None:
            tree.on_publish.append(partial(_remember_pages, cache, out_key, fingerprints))
    else:
        other_outputs()
    # --- PDF output (issue 5): CVs, the bilingual CV (full builds only) and opted-in posts,
    # rendered in parallel by render/pdf.py; the build's fixed time comes from SOURCE_DATE_EPOCH.
    if want("pdf"):
        from bipub.render import pdf

        for path, data, owner, origin in pdf.render_pdfs(
            project,
            site,
            langs,
            envs,
            markdown,
            collector,
            bilingual=langs == config.codes,
            now=pdf.build_time(os.environ),
            cache_dir=user_cache_dir() if cache is not None else None,  # --no-cache: None
        ):
            tree.add(path, data, owner, origin)
    if want("search") and config.outputs.search:  # after the pages: it indexes them
        fresh = want("html")  # else (--only search) the published pages are indexed
        folder = tree.staging if fresh else tree.out
        found = tree.paths() if fresh else published_files(tree.out)
        read = partial(_read_text, folder)
        for lang, path, data in search_files(found, read, langs, url):
            tree.add(path, data, lang, "search index")
    if cache is not None:  # the notes of the documents shown now, not of every version ever
        cache.notes = markdown.used_notes()
    if kit is not None:
        kit["parts"] = quick.KitSource(
            site,
            renderer,
            plan,
            kept_feeds,
            status_files,
            fingerprints if want("html") else None,
            texts,
            kept_sitemap if langs == config.codes and want("feeds") else None,
        )
    return counts


def _inputs_key(project: Project) -> str:
    """Hash of what every page depends on besides content: bipub's version, the config, every
    template and catalog (project and theme)."""
    h = hashlib.sha256(__version__.encode())
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


def _remember_pages(
    cache: BuildCache, out_key: str, fingerprints: dict[str, str], out: Path
) -> None:
    pages = {}
    base = str(out)
    for path, fp in fingerprints.items():
        try:
            st = os.lstat(os.path.join(base, path))  # (plain strings: every page of the site)
        except OSError:
            continue
        pages[path] = (fp, (st.st_mtime_ns, st.st_size, st.st_ino))
    merged = cache.pages.get(out_key, {})
    merged.update(pages)
    cache.pages[out_key] = merged


def search_files(
    paths: Sequence[str], read: Callable[[str], str], langs: Sequence[str], url: urls.UrlBuilder
) -> Iterator[tuple[str, str, bytes]]:
    """Issue 19: the search index of each language (render/search.py), made from the pages among
    `paths` that mark text for it (`data-pagefind-body`: the theme's posts and pages in their
    own language). Yields (language, output path, bytes)."""
    from bipub.render.search import BUNDLE, SearchPage, Stemmer, is_indexed, search_index

    stemmer = Stemmer()  # Kiwi loads on the first Korean page, once per build
    for lang in langs:
        pages = []
        for rel in paths:
            wanted = rel.startswith(f"{lang}/") and rel.endswith("index.html")
            if wanted and output_kind(rel) == "html" and is_indexed(html := read(rel)):
                pages.append(SearchPage(url.href("/" + rel[: -len("index.html")]), html))
        for name, data in search_index(pages, lang, stemmer).items():
            yield lang, f"{lang}/{BUNDLE}/{name}", data


def _read_text(folder: Path, rel: str) -> str:
    return (folder / rel).read_text("utf-8")


OUTPUT_KINDS = ("html", "json", "feeds", "llms", "pdf", "search")


def output_kind(path: str) -> str:
    """Which `--only` kind an output file belongs to."""
    name = path.rsplit("/", 1)[-1]
    if name.endswith(".pdf"):
        return "pdf"
    if path.split("/")[1:2] == ["pagefind"]:
        return "search"
    if path.startswith("api/"):
        return "json"
    if name in ("feed.xml", "sitemap.xml", "robots.txt"):
        return "feeds"
    if name in ("llms.txt", "llms-full.txt"):
        return "llms"
    return "html"


def _keep_other_kinds(tree: OutputTree, only: set[str]) -> None:
    """build --only: carry over the previous output's files of the kinds not rebuilt."""
    for rel in published_files(tree.out):
        if output_kind(rel) not in only:
            tree.carry_over(rel, OutputFile(None, f"previous build ({rel})"))


def _static(project: Project, tree: OutputTree) -> None:
    theme_static = THEME_DIR / "static"
    project_files = {}
    if project.static.is_dir():
        for path in sorted(project.static.rglob("*")):
            if path.is_symlink():
                raise DiagnosticError(
                    [
                        Diagnostic(
                            path.relative_to(project.root).as_posix(),
                            None,
                            "symlink",
                            "symbolic links are not followed",
                        )
                    ]
                )
            if path.is_file():
                project_files[path.relative_to(project.static).as_posix()] = path
    if theme_static.is_dir():
        for path in sorted(theme_static.rglob("*")):
            if path.is_file():
                rel = "assets/" + path.relative_to(theme_static).as_posix()
                if rel not in project_files:
                    tree.add(rel, path.read_bytes(), None, f"theme {rel}")
    for rel, path in project_files.items():
        tree.add(rel, path.read_bytes(), None, f"static/{rel}")


def _report_fallbacks(site: Site, langs: list[str], collector: Collector) -> None:
    """Say what each language shows untranslated or as a machine draft: never a silent fallback."""
    for lang in langs:
        parts = []
        merged = site.cv.get(lang)
        if merged is not None and merged.fallbacks:
            n = len(merged.fallbacks)
            parts.append(f"{n} CV field{'s' if n != 1 else ''} in {merged.source_lang}")
        for state, label in (
            ("missing", "untranslated"),
            ("draft", "machine draft"),
            ("stale", "outdated translation"),
        ):
            names = [
                f"{e.kind}/{e.key}"
                for e in site.entries
                if lang in e.versions and e.versions[lang].state == state
            ]
            if names:
                parts.append(
                    f"{len(names)} {label} ({', '.join(names[:3])}{' …' if len(names) > 3 else ''})"
                )
        if parts:
            collector.warning(
                None,
                None,
                "translation-state",
                f"[{lang}] shown with a notice: {'; '.join(parts)} — see `bipub check`",
            )


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
    build). Collect less often while building; the previous settings come back afterwards."""
    threshold = gc.get_threshold()
    gc.set_threshold(100_000, 50, 100)
    try:
        yield
    finally:
        gc.set_threshold(*threshold)


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
    cache: BuildCache | None = None,
    prescan: uptodate.Prescan | None = None,
) -> BuildResult:
    """Run every stage. Raises DiagnosticError (nothing written) or returns what was built.

    `cache`: a build cache the caller keeps in memory between builds (`bipub serve`); it is
    neither read from nor saved to .bipub-cache/ here. `prescan`: the caller's
    uptodate.Prescan for this build (started early; the caller closes it), else one is made."""
    project = Project(root)
    target, key = uptodate.build_key(project, out, langs, only)
    if prescan is not None and (prescan.target, prescan.key) != (target, key):
        raise ValueError("the prescan was started for another output folder or other options")
    with _few_collections(), ExitStack() as stack:
        if use_cache and prescan is None:
            prescan = stack.enter_context(uptodate.Prescan(root, target, key))
        return _build(project, target, key, langs, strict, on_start, on_pages, only, cache, prescan)


def _build(
    project: Project,
    target: Path,
    record_key: str,
    langs: list[str] | None,
    strict: bool,
    on_start: Callable[[int], None] | None,
    on_pages: Callable[[int], None] | None,
    only: set[str] | None,
    kept_cache: BuildCache | None,
    prescan: uptodate.Prescan | None,  # None: --no-cache
) -> BuildResult:
    started = time.perf_counter()
    use_cache = prescan is not None
    inputs: dict[str, uptodate.Identity] = {}
    quick_note = ""
    if prescan is not None:
        inputs = prescan.scan().inputs
        previous = prescan.unchanged()
        try:
            if previous is not None:
                done = _nothing_changed(previous, strict, started)
            else:
                done = _quick(project, target, record_key, prescan, strict, started, only)
            done.cache_note = "; ".join(n for n in (prescan.note, done.cache_note) if n)
            return done
        except quick.NotQuick as exc:
            quick_note = "; ".join(n for n in (prescan.note, f"full build ({exc})") if n)
        prescan.close()  # (its child may still be checking an output the full build replaces)
    collector = Collector()
    cache: BuildCache | None = None
    if use_cache:
        cache = kept_cache if kept_cache is not None else BuildCache.load(project.cache)
    config, content = load(project, collector, cache)
    check_langs(config, langs or [])
    selected = [c for c in config.codes if not langs or c in langs]
    site = pair(project, config, content, collector)
    collector.raise_if_errors()
    _report_fallbacks(site, selected, collector)
    kit: dict[str, Any] | None = {} if cache is not None and selected == config.codes else None
    with staged(target) as tree:
        counts = render(
            project, site, selected, tree, collector, on_pages, only, cache, on_start, kit
        )
        if only is not None:  # build --only: the other kinds stay as they were
            _keep_other_kinds(tree, only)
        silenced = collector.apply_levels(config.diagnostics)  # bipub.yaml `diagnostics:`
        _strict(collector, strict)
        changed = publish(tree, selected if selected != config.codes else None)
    warnings = sorted(set(collector.warnings), key=lambda d: (d.file or "", d.line or 0, d.message))
    if cache is not None:
        if kept_cache is None:
            cache.save(project.cache)
        files, dirs = uptodate.output_state(tree.out, tree.files)
        record = uptodate.Record(record_key, inputs, files, dirs, warnings, counts)
        uptodate.save(project, target, record)
        if kit is not None:
            quick.save_kit(
                project, target, record_key, inputs, only, kit["parts"], warnings, counts
            )
    note = cache.note if cache is not None else "build cache off (--no-cache)"
    return BuildResult(
        counts,
        len(tree.files),
        changed,
        time.perf_counter() - started,
        warnings,
        tree.reused_pages,
        "; ".join(n for n in (quick_note, note, _silenced_note(silenced)) if n),
    )


def _quick(
    project: Project,
    target: Path,
    key: str,
    prescan: uptodate.Prescan,
    strict: bool,
    started: float,
    only: set[str] | None = None,
) -> BuildResult:
    """A quick rebuild (quick.py), its record saved; raises quick.NotQuick if there can't be one."""

    def check_warnings(warnings: list[Diagnostic]) -> None:  # before anything is written
        collector = Collector()
        collector.extend(warnings)
        _strict(collector, strict)

    scan = prescan.scan()
    inputs, record = scan.inputs, scan.record
    if record is None:
        raise quick.NotQuick("no record of the last build")
    # a quick rebuild unpickles a few hundred thousand objects and renders a few pages: the
    # cyclic collector would only walk those objects again (~40 ms at 5,000 posts/lang)
    enabled = gc.isenabled()
    gc.disable()
    try:
        rebuilt = quick.rebuild(project, target, key, inputs, prescan.intact, check_warnings)
    finally:
        if enabled:
            gc.enable()
    written, removed = rebuilt.written, rebuilt.removed
    langs = {path.split("/", 1)[0] for path in written if path.endswith(".html")}
    config = load_config(project.root) if langs and (only is None or "search" in only) else None
    if config is not None and config.outputs.search:  # issue 19: the index of the pages now
        more, gone = _quick_search(target, config, [c for c in config.codes if c in langs])
        written, removed = [*written, *more], [*removed, *gone]
    files, dirs = uptodate.after_writes(record, target, written, removed)
    new = uptodate.Record(key, inputs, files, dirs, rebuilt.warnings, rebuilt.pages)
    uptodate.save(project, target, new)
    total = sum(rebuilt.pages.values())
    return BuildResult(
        rebuilt.pages,
        len(files),
        len(written) + len(removed),
        time.perf_counter() - started,
        rebuilt.warnings,
        total - rebuilt.rendered,
        f"quick rebuild of {', '.join(rebuilt.edited) or 'nothing (only folders changed)'}",
        quick=rebuilt.edited,
    )


def _quick_search(
    target: Path, config: SiteConfig, langs: list[str]
) -> tuple[list[str], list[str]]:
    """A quick rebuild's search index: made again from the published pages; the bundle's
    files that are no longer (Pagefind names them by content) are removed."""
    published = published_files(target)
    url = urls.UrlBuilder(config.base_url)
    new = [
        (path, data)
        for _, path, data in search_files(published, partial(_read_text, target), langs, url)
    ]
    wanted = {path for path, _ in new}
    old = [
        p
        for p in published
        if output_kind(p) == "search" and p.split("/", 1)[0] in langs and p not in wanted
    ]
    return replace_files(target, new), remove_files(target, old)


def _silenced_note(silenced: list[Diagnostic]) -> str:
    if not silenced:
        return ""
    codes = sorted({d.code for d in silenced})
    n = len(silenced)
    return f"{n} warning{'s' if n != 1 else ''} silenced by `diagnostics:` in bipub.yaml ({', '.join(codes)})"


def _strict(collector: Collector, strict: bool) -> None:
    """--strict: every warning is also an error. Raises DiagnosticError if there are errors."""
    if strict and collector.warnings:
        collector.extend(
            Diagnostic(d.file, d.line, d.code, f"{d.message} (--strict)", Severity.ERROR)
            for d in collector.warnings
        )
    collector.raise_if_errors()


def _nothing_changed(previous: uptodate.Record, strict: bool, started: float) -> BuildResult:
    """The output is current: report the last build's warnings again (and fail on them with
    --strict, as that build would have) without reading or writing anything."""
    collector = Collector()
    collector.extend(previous.warnings)
    _strict(collector, strict)
    return BuildResult(
        previous.pages,
        len(previous.files),
        0,
        time.perf_counter() - started,
        previous.warnings,
        sum(previous.pages.values()),
        "nothing changed since the last build: inputs and output are as they were",
        up_to_date=True,
    )
