"""The page plan: every page of every language, before any is rendered (render/html.py makes
it; render/workers.py renders it; buildstate.py keeps its fingerprints)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bipub.diagnostics import Diagnostic, DiagnosticError
from bipub.load.content import Document

Route = tuple[str, ...]
EntryId = tuple[str, str]  # (kind, key) of a post or page


@dataclass(frozen=True)
class PageSpec:
    route: Route
    lang: str
    path: str
    template: str
    title: str
    description: str
    context: Callable[[], dict[str, Any]]
    og_type: str = "website"
    content_lang: str = ""
    canonical_path: str | None = None  # another page is canonical (fallback content)
    noindex: bool = False
    deps: Callable[[], object] | None = None  # cheap summary of what the page is made from
    doc: Document | None = None  # the document whose body the page shows (posts and pages)
    lists: tuple[str, ...] = ()  # the keys of the posts whose cards it shows (listings)
    made_of: tuple[EntryId, ...] = ()  # a post's or page's: its entry and its series' members
    image: str | None = None  # og:image: a URL or site path (None: the language's site card)


@dataclass
class Plan:
    pages: dict[str, list[PageSpec]] = field(default_factory=dict)  # lang → pages
    routes: dict[Route, dict[str, PageSpec]] = field(default_factory=dict)  # route → lang → page

    paths: dict[str, PageSpec] = field(default_factory=dict)
    # each entry → the pages made of it (its own, its series' members') and showing its card
    shows: dict[EntryId, list[str]] = field(default_factory=dict)

    def add(self, spec: PageSpec) -> None:
        clash = self.paths.get(spec.path)
        if clash is not None:
            raise DiagnosticError(
                [
                    Diagnostic(
                        None,
                        None,
                        "url-clash",
                        f"two pages map to {spec.path}: {clash.template} {clash.route} "
                        f"and {spec.template} {spec.route}",
                    )
                ]
            )
        self.paths[spec.path] = spec
        self.pages.setdefault(spec.lang, []).append(spec)
        self.routes.setdefault(spec.route, {})[spec.lang] = spec
        for made_of in spec.made_of:
            self.shows.setdefault(made_of, []).append(spec.path)
        for key in spec.lists:
            self.shows.setdefault(("posts", key), []).append(spec.path)
