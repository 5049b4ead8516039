"""Old URLs of a post or page that keep working: front matter `aliases` (as Hugo's and Zola's).

Each value of a document's `aliases` (model/post.py `check_alias`: a path of this site, such
as `/ko/blog/old-name/`) is published as a small page at that path that sends the reader on
to the URL of that language's version of the post or page: a `<meta http-equiv="refresh">`,
a `<link rel="canonical">`, `noindex` and a visible link (what Hugo, Zola, jekyll-redirect-from
and mkdocs-redirects write). A Korean file's aliases are Korean URLs: each lies under `/ko/`
(a build of some languages replaces only their folders: write/folders.py `owned_by`).

A redirect page is a page: the rule that no two pages map to one URL (`url-clash`, as
render/page_plan.py `Plan.add` says it of two planned pages) holds between an alias and every
planned page (a file where the other needs a folder counts too: write/folders.py
`check_folders`) and between two aliases, and is said at the file, line and key of the alias.
The writer's own rule (`output-clash`: two sources write one file) stays below it for the
files that are not pages. Redirect pages are in no sitemap, feed, search index, JSON list or
llms.txt: those are made from the plan and the entries, which they are not part of.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bipub.diagnostics import Diagnostic, DiagnosticError
from bipub.load.content import Document
from bipub.pair.model import Entry, Site
from bipub.render import urls
from bipub.render.page_plan import Plan


@dataclass(frozen=True)
class Redirect:
    """One alias: its output file, the page it sends the reader to and where it is written."""

    file: str  # relative to the output folder: ko/blog/old/index.html
    alias: str  # the site path: /ko/blog/old/
    target: str  # the site path of the version's page: /ko/blog/new/
    lang: str
    title: str  # the page's title (the link's text)
    rel: str  # the document that names it
    line: int

    @property
    def origin(self) -> str:
        return f"alias {self.alias} ({self.rel}:{self.line})"


def version_path(entry: Entry, lang: str) -> str:
    """The site path of `entry`'s page in `lang`."""
    if entry.kind == "posts":
        return urls.post(lang, entry.slug)
    return urls.page(lang, entry.slug)


def _named(entries: Iterable[Entry], langs: Sequence[str]) -> list[tuple[Entry, str, Document]]:
    return [
        (entry, lang, doc)
        for entry in entries
        for lang, doc in entry.docs.items()
        if lang in langs and doc.meta.aliases
    ]


def redirects(site: Site, plan: Plan, langs: Sequence[str]) -> list[Redirect]:
    """The redirect pages of the languages `langs` (those the plan has pages of). Raises
    DiagnosticError naming each alias that is not under its language's folder or maps to the
    URL of a page or of another alias. An alias of a version that has no page (a draft) makes
    none, as the version makes none."""
    named = _named(site.entries, langs)
    if not named:
        return []
    errors: list[Diagnostic] = []
    found: dict[str, Redirect] = {}
    pages: dict[str, str] | None = None  # page file → what it is (made when first needed)
    folders: dict[str, str] | None = None  # folder of a page file → that file
    for entry, lang, doc in named:
        target = version_path(entry, lang)
        spec = plan.paths.get(target)
        if spec is None:
            continue  # (not published in this build: a draft)
        if pages is None or folders is None:
            pages, folders = _page_files(plan)
        for index, alias in enumerate(doc.meta.aliases):
            line = doc.yaml.line_for(("aliases", index)) or doc.line_of("aliases") or 1
            file = urls.output_file(alias)
            redirect = Redirect(file, alias, target, lang, spec.title, doc.rel, line)
            why = _refused(redirect, spec.file, pages, folders, found)
            if why is not None:
                code, message = why
                said = f"aliases[{index}]: {message}"
                errors.append(Diagnostic(doc.rel, line, code, said, key="aliases"))
            else:
                found[file] = redirect
    if errors:
        raise DiagnosticError(errors)
    return [found[file] for file in sorted(found)]


def _refused(
    redirect: Redirect,
    own: str,
    pages: dict[str, str],
    folders: dict[str, str],
    found: dict[str, Redirect],
) -> tuple[str, str] | None:
    """Why `redirect` cannot be written (its code and message), or None. `own`: the file of
    the page it sends the reader to."""
    alias, lang, file = redirect.alias, redirect.lang, redirect.file
    if alias.split("/")[1] != lang:
        return (
            "alias",
            f"{alias} is not under /{lang}/: the aliases of {redirect.rel} are {lang} URLs "
            "(write an old URL of another language in that language's file)",
        )
    if file in pages:
        what = "this version's own page" if file == own else pages[file]
        return (
            "url-clash",
            f"{alias} is the URL of {what}; an alias must be an old URL that no page of the "
            "site has now",
        )
    if file in folders:
        return "url-clash", f"{alias} would be written as {file}, the folder of {folders[file]}"
    above = next((f for f in _above(file) if f in pages), None)
    if above is not None:
        return "url-clash", f"{alias} lies inside {above}, a page's file"
    other = found.get(file)
    if other is not None:
        return (
            "url-clash",
            f"{alias} is an alias of {other.rel}:{other.line} too (to {other.target}); one URL "
            "can send the reader to one page only",
        )
    return None


def _page_files(plan: Plan) -> tuple[dict[str, str], dict[str, str]]:
    pages: dict[str, str] = {}
    folders: dict[str, str] = {}
    for path, spec in plan.paths.items():
        file = spec.file
        pages[file] = f"the page {path}"
        for folder in _above(file):
            folders.setdefault(folder, file)
    return pages, folders


def _above(file: str) -> Iterable[str]:
    """The folders above `file`, nearest first (not the root)."""
    folder = file.rpartition("/")[0]
    while folder:
        yield folder
        folder = folder.rpartition("/")[0]


def redirect_html(redirect: Redirect, url: urls.UrlBuilder) -> str:
    """The page written at an alias: it sends the reader on at once (`refresh`, to the path
    under base_url's path: the same in `bipub serve` and on the host), tells search engines
    the page's own URL (`canonical`) and not to index this one, and shows a link for a browser
    that does not follow the refresh."""
    href = html.escape(url.href(redirect.target), quote=True)
    canonical = html.escape(url.absolute(redirect.target), quote=True)
    title = html.escape(redirect.title, quote=False)
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{html.escape(redirect.lang, quote=True)}">\n'
        "<head>\n"
        '<meta charset="utf-8">\n'
        f"<title>{title}</title>\n"
        '<meta name="robots" content="noindex">\n'
        f'<link rel="canonical" href="{canonical}">\n'
        f'<meta http-equiv="refresh" content="0; url={href}">\n'
        "</head>\n"
        "<body>\n"
        f'<p><a href="{href}">{title}</a></p>\n'
        "</body>\n"
        "</html>\n"
    )
