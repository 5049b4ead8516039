"""A post's or page's URL that the last build published and this build does not (`url-removed`).

A renamed file, a changed `slug` or a deleted (or drafted) post changes or ends its URL, and
every link to the old one (from HN, Slack, other blogs) breaks. The up-to-date record of the
output folder (uprecord.py `Record.urls`) keeps, for each post's and page's page the last
build published, the entry (`posts/alpha`) and the file it was made from. A build of the
pages says, for each such page of the languages it builds that no page and no alias
(render/aliases.py) of this build has, a warning naming the old URL; when the post is still
there under another URL (the same entry, or the same file), the exact `aliases:` line to add
to which file.

When it is said: by the build that takes the URL out of the output folder, once. The record of
that build no longer has the page, so the builds after it do not say it again, and the warning
is not kept among the warnings an up-to-date build repeats (pipeline.py): a build with nothing
to do says what a real build of the same inputs into the same output would say, nothing. With
`--strict` (or `diagnostics: {url-removed: error}`) the build that removes the URL fails and
publishes nothing, so it is said again until an alias covers it or the build is run without.
Without a record (the first build into a folder, `--no-cache`) nothing is said.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from bipub.diagnostics import Diagnostic, Severity
from bipub.pair.model import Entry, Site
from bipub.render.aliases import Redirect, version_path
from bipub.render.page_plan import Plan

CODE = "url-removed"

Published = dict[str, tuple[str, str]]  # page file → (entry id `posts/alpha`, source file)


def _entry_id(entry: Entry) -> str:
    return f"{entry.kind}/{entry.key}"


def _path_of(file: str) -> str:
    """The site path of a page's output file (`ko/blog/x/index.html` → `/ko/blog/x/`)."""
    return "/" + file.removesuffix("index.html")


def published(site: Site, plan: Plan, langs: Sequence[str]) -> Published:
    """Each post's and page's page of `langs` in the plan, with its entry and its file (the
    language's own, else the source's it shows)."""
    out: Published = {}
    for entry in site.entries:
        for lang in langs:
            spec = plan.paths.get(version_path(entry, lang))
            if spec is not None:
                doc = entry.docs.get(lang, entry.source)
                out[spec.file] = (_entry_id(entry), doc.rel)
    return out


def next_urls(
    previous: Mapping[str, tuple[str, str]],
    made: Published | None,
    langs: Sequence[str],
    files: Iterable[str],
) -> Published:
    """What the record of this build keeps (`Record.urls`): the pages made now (`made`; None:
    the pages were not built) and, of the last record's, those of other languages still in
    the output (`files`: a build of some languages keeps the others')."""
    kept = set(files)
    out = {
        file: value
        for file, value in previous.items()
        if file in kept and (made is None or file.split("/", 1)[0] not in langs)
    }
    if made is not None:
        out.update(made)
    return out


def removed(
    previous: Mapping[str, tuple[str, str]],
    site: Site,
    plan: Plan,
    langs: Sequence[str],
    redirects: Sequence[Redirect],
) -> list[Diagnostic]:
    """A warning for each page of `previous` (the last build's record) of the languages
    `langs` that neither a page nor an alias of this build is at."""
    aliased = {redirect.file for redirect in redirects}
    by_id: dict[str, Entry] = {}
    by_rel: dict[str, Entry] = {}
    found: list[Diagnostic] = []
    new: dict[tuple[str, str], list[Entry]] | None = None  # made when first needed
    for file, (was, rel) in sorted(previous.items()):
        lang = file.split("/", 1)[0]
        path = _path_of(file)
        if lang not in langs or path in plan.paths or file in aliased:
            continue
        if not by_id:
            by_id = {_entry_id(entry): entry for entry in site.entries}
            by_rel = {doc.rel: entry for entry in site.entries for doc in entry.docs.values()}
        entry = by_id.get(was) or by_rel.get(rel)
        now = version_path(entry, lang) if entry is not None else None
        if entry is None or now is None or now not in plan.paths:
            if new is None:
                new = _new_entries(previous, site, plan)
            if entry is not None:  # (there, not published in `lang` in this build)
                found.append(_held_back(path, lang, entry))
            else:
                found.append(_gone(path, lang, was, rel, new))
            continue
        # (a language without a file of the post shows the source: the source's aliases take it)
        doc = entry.docs.get(lang, entry.source)
        line = (doc.line_of("aliases") or 1) if doc.meta.aliases else 1
        if doc.meta.aliases:
            add = f"add '- {path}' to the aliases of {doc.rel}"
        else:
            add = f"add 'aliases: [{path}]' to the front matter of {doc.rel}"
        found.append(
            Diagnostic(
                doc.rel,
                line,
                CODE,
                f"{path} (published by the last build) is now {now}: links to the old URL "
                f"break; {add}",
                Severity.WARNING,
                key="aliases",
                lang=lang,
            )
        )
    return found


def _new_entries(
    previous: Mapping[str, tuple[str, str]], site: Site, plan: Plan
) -> dict[tuple[str, str], list[Entry]]:
    """The entries with a page in this build and none in the last one, by kind and language
    (a post whose file was renamed is one: a new pair key and a new file)."""
    known = {was for was, _ in previous.values()}
    out: dict[tuple[str, str], list[Entry]] = {}
    for entry in site.entries:
        if _entry_id(entry) in known:
            continue
        for lang in entry.versions:
            if version_path(entry, lang) in plan.paths:
                out.setdefault((entry.kind, lang), []).append(entry)
    return out


def _held_back(path: str, lang: str, entry: Entry) -> Diagnostic:
    """The warning for a page whose entry is there but not published in `lang` now."""
    doc = entry.docs.get(lang, entry.source)
    message = (
        f"{path} was published by the last build and is not any more: {doc.rel} is not "
        f"published in {lang} now (a draft here or in its source, dated later, or left out "
        "untranslated); links to it break until it is"
    )
    return Diagnostic(doc.rel, 1, CODE, message, Severity.WARNING, key="aliases", lang=lang)


def _gone(
    path: str, lang: str, was: str, rel: str, new: Mapping[tuple[str, str], list[Entry]]
) -> Diagnostic:
    """The warning for a page whose entry is not published in `lang` any more: if one entry
    of its kind is new in this build in that language, it is named (a renamed file: a new
    pair key and file, which nothing else ties to the old one)."""
    message = (
        f"{path} (the {lang} page of {was}, {rel}) was published by the last build and is "
        "not any more: links to it now break"
    )
    kind = was.split("/", 1)[0]
    candidates = new.get((kind, lang), [])
    if len(candidates) == 1:
        entry = candidates[0]
        doc = entry.docs.get(lang, entry.source)
        message += (
            f"; if {doc.rel} (new in this build, at {version_path(entry, lang)}) is that "
            f"{kind.removesuffix('s')} renamed, add 'aliases: [{path}]' to its front matter"
        )
    else:
        message += f" (renamed: add 'aliases: [{path}]' to the front matter of its new file)"
    return Diagnostic(None, None, CODE, message, Severity.WARNING, key="aliases", lang=lang)
