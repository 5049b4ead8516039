"""The build pipeline: load → validate → pair → render → write, each a function of its own.

    config, content = load(project)          # stage 1–2: files → validated models
    site = pair(project, config, content)    # stage 3: translations matched, states resolved
    tree = render(project, site, langs)      # stage 4: every output as bytes, in memory
    publish(tree, out, langs)                # stage 5: atomic swap into the output folder

Nothing is written before every stage has succeeded; one run reports all errors it can find.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bipub.config import SiteConfig, load_config
from bipub.diagnostics import Collector, Diagnostic, DiagnosticError, Severity
from bipub.load.content import Content, load_content
from bipub.pair.site import Site, pair_site
from bipub.project import Project
from bipub.render import urls
from bipub.render.catalogs import load_translations
from bipub.render.markdown import RenderedMarkdown, render_markdown
from bipub.write.output import OutputTree, publish

THEME_DIR = Path(__file__).resolve().parent / "theme"

Progress = Callable[[str, int], None]  # (stage or language, total) announcements


@dataclass
class BuildResult:
    pages: dict[str, int]
    files: int
    changed: int
    seconds: float
    warnings: list[Diagnostic] = field(default_factory=list)


def load(project: Project, collector: Collector) -> tuple[SiteConfig, Content]:
    config = load_config(project.root)  # ConfigError (exit 2) on any problem
    content = load_content(project.root, config, collector)
    return config, content


def pair(project: Project, config: SiteConfig, content: Content, collector: Collector) -> Site:
    return pair_site(project.root, config, content, collector)


class MarkdownCache:
    """Each document body is rendered once per build, whichever languages show it."""

    def __init__(self, raw_html: bool, collector: Collector) -> None:
        self.raw_html = raw_html
        self.collector = collector
        self._cache: dict[str, RenderedMarkdown] = {}

    def __call__(self, rel: str, body: str) -> RenderedMarkdown:
        hit = self._cache.get(rel)
        if hit is None:
            hit = render_markdown(body, raw_html=self.raw_html)
            for name in hit.unknown_languages:
                self.collector.warning(
                    rel,
                    None,
                    "code-language",
                    f"code block language {name!r} is unknown to Pygments; shown unhighlighted",
                )
            self._cache[rel] = hit
        return hit


def render(
    project: Project,
    site: Site,
    langs: list[str],
    collector: Collector,
    on_page: Callable[[str], None] | None = None,
) -> tuple[OutputTree, dict[str, int]]:
    from bipub.render import feeds, json_api, llms
    from bipub.render.html import HtmlRenderer
    from bipub.render.templates import make_environment, template_error

    config = site.config
    url = urls.UrlBuilder(config.base_url)
    markdown = MarkdownCache(config.outputs.raw_html, collector)
    envs = {}
    for lang in config.codes:
        translations = load_translations(
            lang,
            [(THEME_DIR / "locales", "(bipub theme) locales"), (project.locales, "locales")],
            collector,
            warn_untranslated=lang in langs and lang != "en",
        )
        envs[lang] = make_environment(project.templates, lang, translations)
    renderer = HtmlRenderer(site, markdown, url)
    renderer.site_root = project.root  # type: ignore[assignment]
    plan = renderer.plan()
    tree = OutputTree()
    counts = renderer.render(plan, envs, langs, tree, collector, on_page)
    every = langs == config.codes
    for lang in langs:
        tree.add(
            urls.feed(lang).lstrip("/"), feeds.atom_feed(site, lang, url, markdown), lang, "feed"
        )
        cv = json_api.cv_json(site, lang)
        if cv is not None:
            tree.add(urls.api(lang, "cv").lstrip("/"), cv, lang, "cv.json")
        tree.add(
            urls.api(lang, "posts").lstrip("/"),
            json_api.posts_json(site, lang, url),
            lang,
            "posts.json",
        )
        tree.add(
            urls.api(lang, "status").lstrip("/"),
            json_api.status_json(site, lang),
            lang,
            "status.json",
        )
        tree.add(urls.llms(lang).lstrip("/"), llms.llms_txt(site, lang, url), lang, "llms.txt")
        tree.add(
            urls.llms(lang, full=True).lstrip("/"),
            llms.llms_full_txt(site, lang, url),
            lang,
            "llms-full.txt",
        )
    if every:
        default = config.default_language
        tree.add("llms.txt", llms.llms_txt(site, default, url, root=True), None, "llms.txt")
        tree.add("llms-full.txt", llms.llms_full_txt(site, default, url), None, "llms-full.txt")
        tree.add("sitemap.xml", feeds.sitemap(site, plan, url), None, "sitemap")
        tree.add("robots.txt", feeds.robots(url), None, "robots")
        for name, text in json_api.schemas().items():
            tree.add(f"api/schema/{name}", text, None, "schema")
        _root_pages(renderer, plan, envs[default], tree, collector, template_error)
        _static(project, tree)
    return tree, counts


def _root_pages(
    renderer: Any, plan: Any, env: Any, tree: OutputTree, collector: Collector, template_error: Any
) -> None:
    import jinja2

    from bipub.render.html import PageSpec
    from bipub.render.views import View

    config = renderer.config
    url = renderer.url
    default = config.default_language
    languages = [
        View(
            code=x.code,
            name=x.name,
            title=x.title,
            description=x.description,
            href=url.href(urls.home(x.code)),
        )
        for x in config.languages
    ]
    homes = {code: spec for code, spec in plan.routes.get(("home",), {}).items()}
    root_spec = PageSpec(
        ("root",),
        default,
        "/",
        "root.html",
        config.language(default).title,
        config.language(default).description,
        dict,
    )
    plan.routes[("root",)] = {default: root_spec}
    for template, path in (("root.html", "/"), ("404.html", "/404.html")):
        spec = PageSpec(
            (template,),
            default,
            path,
            template,
            config.language(default).title,
            "",
            dict,
            noindex=path != "/",
        )
        meta = renderer.page_meta(plan, spec)
        if template == "root.html":
            from bipub.render.views import Alternate

            alts = (
                *tuple(Alternate(c, url.absolute(s.path)) for c, s in homes.items()),
                Alternate("x-default", url.absolute("/")),
            )
            meta = meta.__class__(**{**meta.__dict__, "alternates": alts})
        try:
            html = env.get_template(template).render(
                site=renderer.site_context(default), page=meta, languages=languages
            )
        except (jinja2.TemplateError, TypeError, AttributeError, ValueError) as exc:
            collector.add(template_error(exc, renderer.site_root))
            continue
        tree.add(urls.output_file(path), html, None, template)
    del plan.routes[("root",)]


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


def build(
    root: Path,
    out: Path | None = None,
    langs: list[str] | None = None,
    *,
    strict: bool = False,
    on_start: Callable[[int], None] | None = None,
    on_page: Callable[[str], None] | None = None,
) -> BuildResult:
    started = time.perf_counter()
    project = Project(root)
    collector = Collector()
    config, content = load(project, collector)
    if langs:
        unknown = [lang for lang in langs if lang not in config.codes]
        if unknown:
            from bipub.diagnostics import ConfigError

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
    selected = [c for c in config.codes if not langs or c in langs]
    site = pair(project, config, content, collector)
    collector.raise_if_errors()
    _report_fallbacks(site, selected, collector)
    if on_start:
        on_start(sum(1 for _ in selected) * max(1, len(site.entries)))
    tree, counts = render(project, site, selected, collector, on_page)
    if strict and collector.warnings:
        raise DiagnosticError(
            [
                Diagnostic(d.file, d.line, d.code, f"{d.message} (--strict)", Severity.ERROR)
                for d in collector.warnings
            ]
        )
    collector.raise_if_errors()
    target = out if out is not None else project.default_out
    partial = selected if selected != config.codes else None
    changed = publish(tree, target, partial)
    return BuildResult(
        counts, len(tree.files), changed, time.perf_counter() - started, collector.warnings
    )
