"""Old URLs of a post or page that keep working: front matter `aliases` (as Hugo's and Zola's).

Each value of a document's `aliases` (model/post.py `check_alias`: a path of this site, such
as `/ko/blog/old-name/`) is published as a small page at that path that sends the reader on
to the URL of that language's version of the post or page: a `<meta http-equiv="refresh">`,
a `<link rel="canonical">`, `noindex` and a visible link (what Hugo, Zola, jekyll-redirect-from
and mkdocs-redirects write). A Korean file's aliases are Korean URLs: each lies under `/ko/`
(a build of some languages replaces only their folders: write/folders.py `owned_by`); the
source's may also be URLs of a language that has no file of the post, whose page shows the
source (`alias_langs`), and URLs outside the language folders (an older site's `/2019/x/`,
`/blog/x/`: to the source's page), which, as the root pages, only a build of every language
writes (and a build of some keeps as published).

A redirect page is a page: the rule that no two pages map to one URL (`url-clash`, as
render/page_plan.py `Plan.add` says it of two planned pages) holds between an alias and every
planned page and file of the project's static/ (a file where the other needs a folder counts
too: write/folders.py `check_folders`) and between two aliases, and is said at the file, line
and key of the alias.
The writer's own rule (`output-clash`: two sources write one file) stays below it for the
files that are not pages. Redirect pages are in no sitemap, feed, search index, JSON list or
llms.txt: those are made from the plan and the entries, which they are not part of.
"""

from __future__ import annotations

import html
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import jinja2
from markupsafe import Markup

from bipub.diagnostics import Diagnostic, DiagnosticError
from bipub.load.content import Document
from bipub.pair.model import Entry, Site
from bipub.render import urls
from bipub.render.page_plan import Plan
from bipub.render.template_fast import render_released


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
    text_lang: str = ""  # the title's language, if not `lang` (a page that shows the source)
    shared: bool = False  # outside the language folders: written by a build of every language

    @property
    def owner(self) -> str | None:
        """The language whose builds write it (write/folders.py `owned_by`); None: the site's,
        as the root pages (a build of some languages keeps it as published)."""
        return None if self.shared else self.lang

    @property
    def origin(self) -> str:
        return f"{self.rel}:{self.line} aliases: {self.alias}"


def version_path(entry: Entry, lang: str) -> str:
    """The site path of `entry`'s page in `lang`."""
    if entry.kind == "posts":
        return urls.post(lang, entry.slug)
    return urls.page(lang, entry.slug)


# the site's own folders and files at its root (besides the languages' folders): an alias
# outside the language folders may not be one of them nor lie inside one
ROOT_NAMES = frozenset({"api", "assets", "pdf", "_img", "index.html", "404.html"})


def alias_langs(entry: Entry, doc: Document) -> list[str]:
    """The languages whose URLs `doc`'s aliases may be: its own, and for the source, each
    language the entry has no file of whose page shows the source."""
    if doc is not entry.source:
        return [doc.lang]
    return [doc.lang, *(lang for lang in entry.versions if lang not in entry.docs)]


def redirects(
    site: Site, plan: Plan, langs: Sequence[str], static: Path | None = None
) -> list[Redirect]:
    """The redirect pages of the languages `langs` (those the plan has pages of; with every
    language, those outside the language folders too). Raises DiagnosticError naming each
    alias that is under a language folder not of its file's (`alias_langs`), outside them but
    not the source's or in a folder of the site's own (`ROOT_NAMES`), or maps to the URL of a
    page, a file of the project's `static` folder (copied to the same path) or another alias.
    An alias of a version that has no page (a draft) makes none, as the version makes none."""
    codes = site.config.codes
    every = set(langs) == set(codes)
    errors: list[Diagnostic] = []
    found: dict[str, Redirect] = {}
    pages: dict[str, str] | None = None  # page file → what it is (made when first needed)
    folders: dict[str, str] | None = None  # folder of a page file → that file
    for entry in site.entries:
        for doc in entry.aliased:  # (its documents that name aliases)
            for index, alias in enumerate(doc.meta.aliases):
                line = doc.yaml.line_for(("aliases", index)) or doc.line_of("aliases") or 1
                first = alias.split("/")[1]
                shared = first.casefold() not in codes  # (outside the language folders)
                lang = entry.source_lang if shared else first
                misplaced = _misplaced(alias, doc, entry, codes)
                why: tuple[str, str] | None = ("alias", misplaced) if misplaced else None
                if why is None:
                    if (shared and not every) or lang not in langs:
                        continue  # (a language this build does not make; the site's: by all)
                    target = version_path(entry, lang)
                    spec = plan.paths.get(target)
                    if spec is None:
                        continue  # (not published in this build: a draft)
                    if pages is None or folders is None:
                        pages, folders = _page_files(plan, static)
                    file = urls.output_file(alias)
                    text_lang = spec.title_lang or spec.content_lang or lang
                    redirect = Redirect(
                        file, alias, target, lang, spec.title, doc.rel, line, text_lang, shared
                    )
                    why = _refused(redirect, spec.file, pages, folders, found)
                    if why is None:
                        found[file.casefold()] = redirect
                        continue
                code, message = why
                said = f"aliases[{index}]: {message}"
                errors.append(Diagnostic(doc.rel, line, code, said, key="aliases"))
    if errors:
        raise DiagnosticError(errors)
    if pages is not None and folders is not None:
        _side_by_side(plan, pages, folders, found)
    return sorted(found.values(), key=lambda redirect: redirect.file)


def _side_by_side(
    plan: Plan, pages: dict[str, str], folders: dict[str, str], found: dict[str, Redirect]
) -> None:
    """Add to `found` the side-by-side page's redirect of each alias of a post that is a
    post's old URL (`/ko/blog/old/`) when the post has one now: `/ko/blog/old/both/` sends the
    reader to `/ko/blog/new/both/` (render/both.py; the old page was there). One that a page,
    a static file or another alias is at is not written (what is there stays: no clash)."""
    for redirect in list(found.values()):
        both = redirect.target + "both/"
        spec = plan.paths.get(both)
        if spec is None or not _old_post_url(redirect.alias, redirect.lang):
            continue
        alias = redirect.alias + "both/"
        side = Redirect(
            urls.output_file(alias),
            alias,
            both,
            redirect.lang,
            spec.title,
            redirect.rel,
            redirect.line,
            redirect.text_lang,
        )
        if _refused(side, spec.file, pages, folders, found) is None:
            found[side.file.casefold()] = side


def _old_post_url(alias: str, lang: str) -> bool:
    """Whether `alias` is a post's URL of `lang` (`/ko/blog/<slug>/`): what a post had."""
    head = f"/{lang}/blog/"
    rest = alias.removeprefix(head)
    return alias.startswith(head) and rest.endswith("/") and "/" not in rest[:-1] and rest != "/"


def _misplaced(alias: str, doc: Document, entry: Entry, codes: Sequence[str]) -> str | None:
    """Why `alias` of `doc` is in a folder it may not be in (`alias`), or None."""
    first = alias.split("/")[1]
    if first.casefold() in codes:
        if first not in codes:
            return f"{alias}: write the language folder as the site does, /{first.casefold()}/"
        if first not in alias_langs(entry, doc):
            return _other_language(alias, doc, entry, alias_langs(entry, doc))
        return None
    if doc is not entry.source:
        return (
            f"{alias} is outside the language folders: such an alias sends the reader to the "
            f"{entry.source_lang} page, and is written in the source file, {entry.source.rel}"
        )
    if first.casefold() in ROOT_NAMES:
        return f"{alias}: /{first} at the site's root is the site's own"
    return None


def _other_language(alias: str, doc: Document, entry: Entry, own: list[str]) -> str:
    lang = alias.split("/")[1]
    under = " or ".join(f"/{code}/" for code in own)
    if lang in entry.docs:
        there = f"in {entry.docs[lang].rel}, whose page it is"
    elif lang in entry.versions:
        there = f"in {entry.source.rel}, the file its {lang} page shows"
    else:  # (outputs.untranslated: omit)
        return (
            f"{alias}: this {entry.kind.removesuffix('s')} has no {lang} page (no {lang} file, "
            "and posts without a translation are left out there), so no alias can send a reader "
            "to it"
        )
    return (
        f"{alias} is not under {under}: the aliases of {doc.rel} are its pages' URLs (write it "
        f"{there})"
    )


def _refused(
    redirect: Redirect,
    own: str,
    pages: dict[str, str],
    folders: dict[str, str],
    found: dict[str, Redirect],
) -> tuple[str, str] | None:
    """Why `redirect` cannot be written (its code and message), or None. `own`: the file of
    the page it sends the reader to. Files are compared case-folded, as slugs are (pair/site.py
    `_check_urls`): on a file system that ignores case, `Alpha/` is `alpha/`."""
    alias, file = redirect.alias, redirect.file.casefold()
    if file in pages:
        what = "this version's own page" if file == own.casefold() else pages[file]
        return (
            "url-clash",
            f"{alias} is the URL of {what}; an alias must be an old URL that no page or file "
            "of the site has now",
        )
    if file in folders:
        return (
            "url-clash",
            f"{alias} would be written as {redirect.file}, the folder of {pages[folders[file]]}",
        )
    above = next((f for f in _above(file) if f in pages), None)
    if above is not None:
        return "url-clash", f"{alias} would lie inside a file the site writes: {pages[above]}"
    other = found.get(file)
    if other is not None:
        return (
            "url-clash",
            f"{alias} is an alias of {other.rel}:{other.line} too (to {other.target}); one URL "
            "can send the reader to one page only",
        )
    return None


def _page_files(plan: Plan, static: Path | None) -> tuple[dict[str, str], dict[str, str]]:
    """Each page's file and each file of `static` (case-folded) → what it is; each folder
    above one (case-folded) → that file."""
    pages: dict[str, str] = {}
    for path, spec in plan.paths.items():
        made_of = f" ({spec.doc.rel})" if spec.doc is not None else ""
        pages[spec.file.casefold()] = f"the page {path}{made_of}"
    if static is not None and static.is_dir():
        top = str(static)
        for folder, _, names in os.walk(top):
            rel = os.path.relpath(folder, top).replace(os.sep, "/")
            for name in names:
                file = name if rel == "." else f"{rel}/{name}"
                pages.setdefault(file.casefold(), f"static/{file}")
    folders: dict[str, str] = {}
    for file in pages:
        for folder in _above(file):
            folders.setdefault(folder, file)
    return pages, folders


def _above(file: str) -> Iterable[str]:
    """The folders above `file`, nearest first (not the root)."""
    folder = file.rpartition("/")[0]
    while folder:
        yield folder
        folder = folder.rpartition("/")[0]


TEMPLATE = "alias.html"  # the theme's; a project's templates/alias.html replaces it


def redirect_html(redirect: Redirect, url: urls.UrlBuilder, env: jinja2.Environment) -> str:
    """The page written at an alias, from the template `alias.html` (in `env`, the language's
    environment: the project's templates over the theme's). The theme's sends the reader on at
    once (`refresh`, to the path under base_url's path: the same in `bipub serve` and on the
    host), tells search engines the page's own URL (`canonical`) and not to index this one, and
    shows a link for a browser that does not follow the refresh. It is given `lang`, `title`,
    `href` and `canonical` escaped as the fixed page of session 33 had them (`html.escape`: the
    title's quotes as they are; its bytes unchanged), and `redirect` as it is. Raises
    jinja2.TemplateError."""
    values = {
        "lang": html.escape(redirect.text_lang or redirect.lang, quote=True),
        "title": html.escape(redirect.title, quote=False),
        "href": html.escape(url.href(redirect.target), quote=True),
        "canonical": html.escape(url.absolute(redirect.target), quote=True),
    }
    context: dict[str, object] = {
        name: Markup(value)  # noqa: S704 - escaped above
        for name, value in values.items()
    }
    context["redirect"] = redirect
    return render_released(env.get_template(TEMPLATE), context)
