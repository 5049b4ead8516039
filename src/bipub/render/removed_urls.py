"""A page's URL that the last build published and this build does not (`url-removed`).

A renamed file, a changed `slug` or a deleted (or drafted) post changes or ends its URL, and
every link to the old one (from HN, Slack, other blogs) breaks; so does a tag's page when no
post has the tag any more, a series' page, a post's side-by-side page, a list page past the
new last one, and a redirect page (render/aliases.py) whose alias was taken out. The
up-to-date record of the output folder (uprecord.py `Record.urls`) keeps, for each such page
the last build published, what it was (`Published`). A build of the pages says, for each such
page of the languages it builds that no page and no alias of this build has, a warning naming
the old URL, why it went when this build can tell, and the remedy that fits: for a post's or
page's page still there under another URL (the same entry, or the same file), the exact
`aliases:` line to add to which file; for a renamed file, the new file when one can be told
(`_renamed`); for a tag's, a series' or a list page, what removed it (bipub writes no redirect
for those: the message says so). A post's side-by-side page moves with its post and is said
with it (an alias of the post's old URL redirects it too: render/aliases.py `_side_by_side`).

When it is said: by the build that takes the URL out of the output folder, once. The record of
that build no longer has the page, so the builds after it do not say it again, and the warning
is not kept among the warnings an up-to-date build repeats (pipeline.py): a build with nothing
to do says what a real build of the same inputs into the same output would say, nothing. With
`--strict` (or `diagnostics: {url-removed: error}`) the build that removes the URL fails and
publishes nothing, so it is said again until an alias covers it or the build is run without.
Without a record (the first build into a folder, `--no-cache`) nothing is said.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from bipub.config import CONFIG_FILE
from bipub.diagnostics import Diagnostic, Severity
from bipub.load.content import Document
from bipub.pair.model import Entry, Series, Site
from bipub.render import urls
from bipub.render.aliases import Redirect, version_path
from bipub.render.page_plan import Plan
from bipub.write.record import PACKED

CODE = "url-removed"
unpack = PACKED.unpack

# page file → what the page was and what it was made of, by the kind its first part names:
#   posts/<key>, pages/<key>: the entry's page, the file it showed
#   both/<key>: the post's side-by-side page, the file it showed
#   tags/<slug>/<n>: a tag's page n, the files of the posts it listed (one a line)
#   series/<slug>: a series' page, its members' files (one a line)
#   blog/<n>: the blog's page n, ""
#   aliases/<lang>/…: a redirect page, to that path (render/aliases.py), the file naming it
Published = dict[str, tuple[str, str]]

# what a warning about a tag's, a series' or a list page says of the remedy
NO_REDIRECT = "bipub writes no redirect for {what} (a redirect rule of the host can keep it)"


def _entry_id(entry: Entry) -> str:
    return f"{entry.kind}/{entry.key}"


def _path_of(file: str) -> str:
    """The site path of a page's output file (`ko/blog/x/index.html` → `/ko/blog/x/`)."""
    return "/" + file.removesuffix("index.html")


def published(
    site: Site, plan: Plan, langs: Sequence[str], redirects: Sequence[Redirect] = ()
) -> Published:
    """Each page of `langs` in the plan that `url-removed` follows (`Published`), with what it
    was made of, and the redirect pages `redirects`. (An entry's pages by their routes; each
    post's file in each language worked out once: lists name ~30,000 posts on a big site.)"""
    out: Published = {}
    routes = plan.routes
    # each language's post key → the file its page shows (and its lists name)
    rels: dict[str, dict[str, str]] = {lang: {} for lang in langs}
    for entry in site.entries:
        key, docs, is_post = entry.key, entry.docs, entry.kind == "posts"
        pages = routes.get(("post" if is_post else "page", key))
        if not pages and not is_post:
            continue
        was = f"{entry.kind}/{key}"  # (`_entry_id`)
        for lang in langs:
            doc = docs.get(lang)
            rel = (doc if doc is not None else docs[entry.source_lang]).rel  # (`Entry.source`)
            if is_post:
                rels[lang][key] = rel
            if pages and (spec := pages.get(lang)) is not None:
                out[spec.file] = (was, rel)
    for lang in langs:
        rel_in = rels[lang]
        for spec in plan.pages.get(lang, ()):
            route = spec.route
            kind = route[0]
            if kind in ("post", "page"):  # (above)
                continue
            if kind == "both":
                out[spec.file] = (f"both/{route[1]}", rel_in[route[1]])
            elif kind == "tag":
                listed = "\n".join(filter(None, map(rel_in.get, spec.lists)))  # (posts')
                out[spec.file] = (f"tags/{route[1]}/{route[2]}", listed)
            elif kind == "series":
                series = site.series_by_entry.get((lang, route[1]))
                if series is not None:
                    listed = "\n".join(
                        [
                            rel_in.get(e.key) or e.docs.get(lang, e.source).rel
                            for e in series.entries
                        ]
                    )
                    out[spec.file] = (f"series/{series.slug}", listed)
            elif kind == "blog":
                out[spec.file] = (f"blog/{route[1]}", "")
            elif kind == "archive":  # (render/archive.py)
                out[spec.file] = ("archive", "")
    for redirect in redirects:
        out[redirect.file] = (f"aliases{redirect.target}", redirect.rel)
    return out


def next_urls(
    previous: Mapping[str, tuple[str, str]],
    made: Published | None,
    langs: Sequence[str],
    files: Collection[str],
) -> Published:
    """What the record of this build keeps (`Record.urls`): the pages made now (`made`; None:
    the pages were not built) and, of the last record's, those of other languages (and the
    redirect pages outside the language folders, which only a build of every language makes)
    still in the output (`files`: a build of some languages keeps the others'). (Of the last
    record's, only those `made` has not are looked at: a set difference.)"""
    if made is None:
        return {file: value for file, value in previous.items() if file in files}
    out = {
        file: previous[file]
        for file in previous.keys() - made.keys()
        if file in files and file.split("/", 1)[0] not in langs
    }
    out.update(made)
    return out


@dataclass(frozen=True)
class _Lost:
    file: str
    path: str
    lang: str  # its language ("" for a redirect page outside the language folders)
    was: str
    made_of: str

    @property
    def kind(self) -> str:
        return self.was.split("/", 1)[0]


class _Lookup:
    """The site's entries by id and by file, and the entries new in this build (made when first
    needed), for the warnings of the pages lost."""

    def __init__(
        self,
        site: Site,
        plan: Plan,
        previous: Mapping[str, tuple[str, str]],
        files: tuple[Mapping[str, bytes], Mapping[str, bytes]],
    ) -> None:
        self.site, self.plan, self.previous = site, plan, previous
        self.files = files
        self.by_id = {_entry_id(entry): entry for entry in site.entries}
        self.docs = {doc.rel: (doc, entry) for entry in site.entries for doc in entry.docs.values()}
        self.by_rel = {rel: entry for rel, (_, entry) in self.docs.items()}
        self._new: dict[tuple[str, str], list[Entry]] | None = None

    def entry(self, was: str, rel: str) -> Entry | None:
        return self.by_id.get(was) or self.by_rel.get(rel)

    def moved(self, old: str, new: str) -> bool:
        """Whether the input file `new` of this build is the last build's `old` moved (renamed,
        not copied nor written anew): the same inode, size and modification time
        (write/record.py `Identity`; a rename changes only its ctime)."""
        last, now = self.files[0].get(old), self.files[1].get(new)
        return last is not None and now is not None and _moved_file(last, now)

    def published_in(self, entry: Entry, lang: str) -> str | None:
        """The path of `entry`'s page in `lang` in this build, or None."""
        now = version_path(entry, lang)
        return now if now in self.plan.paths else None

    def new(self, kind: str, lang: str) -> list[Entry]:
        """The entries of `kind` with a page in `lang` in this build and none in the last one
        (a post whose file was renamed is one: a new pair key and a new file)."""
        if self._new is None:
            known = {was for was, _ in self.previous.values()}
            self._new = {}
            for entry in self.site.entries:
                if _entry_id(entry) in known:
                    continue
                for code in entry.versions:
                    if version_path(entry, code) in self.plan.paths:
                        self._new.setdefault((entry.kind, code), []).append(entry)
        return self._new.get((kind, lang), [])


def removed(
    previous: Mapping[str, tuple[str, str]],
    site: Site,
    plan: Plan,
    langs: Sequence[str],
    redirects: Sequence[Redirect],
    files: tuple[Mapping[str, bytes], Mapping[str, bytes]] = ({}, {}),
    made: Published | None = None,
) -> list[Diagnostic]:
    """A warning for each page of `previous` (the last build's record) of the languages
    `langs` (and, when they are every language, outside the language folders) that neither a
    page nor an alias of this build is at. `files`: the identities of the input files the last
    build and this one read (uptodate.py), which tell a file renamed (`_renamed`). `made`:
    what this build publishes (`published`, worked out here if not given): a page of it is
    at its path in the plan, or is a redirect page, so only the others of `previous` are
    looked at (a set difference: an update drops a few of a big site's ~24,000)."""
    if made is None:
        made = published(site, plan, langs, redirects)
    codes = site.config.codes
    every = set(langs) == set(codes)
    aliased = {redirect.file for redirect in redirects}
    lost: dict[str, _Lost] = {}
    for file in sorted(previous.keys() - made.keys()):
        was, made_of = previous[file]
        first = file.split("/", 1)[0]
        if first not in langs and (first in codes or not every):
            continue
        path = _path_of(file)
        if path in plan.paths or file in aliased:
            continue
        lost[file] = _Lost(file, path, first if first in codes else "", was, made_of)
    if not lost:
        return []
    # a language's folder whose language the configuration has no more: its pages, said once
    folders = {i.file.split("/", 1)[0] for i in lost.values() if not i.lang and i.kind != "aliases"}
    found = [
        _language_gone(f, [i for i in lost.values() if i.file.startswith(f + "/")])
        for f in sorted(folders)
    ]
    lost = {file: item for file, item in lost.items() if file.split("/", 1)[0] not in folders}
    look = _Lookup(site, plan, previous, files)
    switched_off: list[_Lost] = []  # (outputs.side_by_side: false, said once for all)
    for item in lost.values():
        kind = item.kind
        if kind in ("posts", "pages"):
            found.append(_entry_page(item, look, _went_with(item, lost)))
        elif kind == "both":
            if _post_file(item.file) in lost:  # (said with its post)
                continue
            if not site.config.outputs.side_by_side:
                switched_off.append(item)
            else:
                found.append(_side_by_side(item, look))
        elif kind == "tags":
            found.append(_tag_page(item, look))
        elif kind == "series":
            found.append(_series_page(item, look))
        elif kind == "blog":
            found.append(_blog_page(item, look))
        elif kind == "archive":  # (only bipub.yaml takes it away)
            found.append(_archive_off(item))
        elif kind == "aliases" and not _with_its_alias(item, lost):
            found.append(_alias(item, look, _went_with(item, lost)))
    if switched_off:
        found.append(_side_by_side_off(switched_off))
    return found


def _post_file(both_file: str) -> str:
    """The file of the post page whose side-by-side page is `both_file`."""
    return both_file.removesuffix("both/index.html") + "index.html"


def _went_with(item: _Lost, lost: Mapping[str, _Lost]) -> str:
    """The side-by-side page (or its redirect) lost with a post's page (or its alias), said in
    the same warning: its path, or ''."""
    both = lost.get(item.file.removesuffix("index.html") + "both/index.html")
    if both is None or (both.kind != "both" and not both.was.endswith("/both/")):
        return ""
    return both.path


def _nor(both: str) -> str:
    return f", nor is its side-by-side page {both}" if both else ""


def _with_its_alias(item: _Lost, lost: Mapping[str, _Lost]) -> bool:
    """Whether `item` is the side-by-side redirect of an alias lost too (said with it)."""
    return item.was.endswith("/both/") and _post_file(item.file) in lost


def _warning(
    doc: Document | None, line: int | None, message: str, lang: str, key: str = "aliases"
) -> Diagnostic:
    file = doc.rel if doc is not None else None
    where = (line or 1) if doc is not None else None
    return Diagnostic(file, where, CODE, message, Severity.WARNING, key=key, lang=lang or None)


def _entry_page(item: _Lost, look: _Lookup, both: str) -> Diagnostic:
    """A post's or page's page: moved (the `aliases:` line to add), held back, or gone."""
    path, lang = item.path, item.lang
    entry = look.entry(item.was, item.made_of)
    now = look.published_in(entry, lang) if entry is not None else None
    if entry is None:
        return _gone(item, look, both)
    doc = entry.docs.get(lang, entry.source)
    if now is None:  # (there, not published in `lang` in this build)
        message = (
            f"{path} was published by the last build and is not any more{_nor(both)}: "
            f"{doc.rel} is not published in {lang} now (a draft here or in its source, dated "
            "later, or left out untranslated); links to it break until it is"
        )
        return _warning(doc, 1, message, lang)
    # (a language without a file of the post shows the source: the source's aliases take it)
    line = (doc.line_of("aliases") or 1) if doc.meta.aliases else 1
    if doc.meta.aliases:
        add = f"add '- {path}' to the aliases of {doc.rel}"
    else:
        add = f"add 'aliases: [{path}]' to the front matter of {doc.rel}"
    moved = ""
    if both:
        side = now + "both/"
        now_side = f"is now {side}" if side in look.plan.paths else "is gone"
        moved = f", and its side-by-side page {both} {now_side}"
        add += " (the alias redirects both)"
    message = (
        f"{path} (published by the last build) is now {now}{moved}: links to the old URL "
        f"break; {add}"
    )
    return _warning(doc, line, message, lang)


def _gone(item: _Lost, look: _Lookup, both: str) -> Diagnostic:
    """A page whose entry is not there any more: if its new file can be told (`_renamed`), it
    is named."""
    path, lang, was, rel = item.path, item.lang, item.was, item.made_of
    message = (
        f"{path} (the {lang} page of {was}, {rel}) was published by the last build and is not "
        f"any more{_nor(both)}: links to it now break"
    )
    kind = was.split("/", 1)[0]
    what = kind.removesuffix("s")
    candidates = look.new(kind, lang)
    entry = _renamed(look, rel, lang, candidates)
    if entry is not None:
        doc = entry.docs.get(lang, entry.source)
        now = version_path(entry, lang)
        if look.moved(rel, doc.rel):  # (said at the file, as a page that moved is)
            if doc.meta.aliases:
                add = f"add '- {path}' to its aliases"
            else:
                add = f"add 'aliases: [{path}]' to its front matter"
            message += f"; it is {doc.rel} now (the same file, renamed), at {now}: {add}"
            line = (_line(doc, "aliases") or 1) if doc.meta.aliases else 1
            return _warning(doc, line, message, lang)
        message += (
            f"; if {doc.rel} (new in this build, at {now}) is that {what} renamed, add "
            f"'aliases: [{path}]' to its front matter"
        )
        return _warning(None, None, message, lang)
    if candidates:
        new = ", ".join(sorted(e.docs.get(lang, e.source).rel for e in candidates))
        message += (
            f"; {len(candidates)} {kind} are new in this build in {lang} ({new}) and bipub cannot "
            f"tell if one is this {what} renamed (none is its file moved): if one is, add "
            f"'aliases: [{path}]' to its front matter"
        )
    else:
        message += f" (renamed: add 'aliases: [{path}]' to the front matter of its new file)"
    return _warning(None, None, message, lang)


def _renamed(look: _Lookup, rel: str, lang: str, candidates: list[Entry]) -> Entry | None:
    """Of the entries new in this build (`candidates`: of the lost page's kind, with a page in
    `lang`), the one its file `rel` was likely renamed to (a renamed file makes a new pair key
    and a new file, which nothing in the content ties to the old ones): the only one, or the
    only one whose file is `rel` moved (`_Lookup.moved`), or None: it cannot be told."""
    if len(candidates) == 1:
        return candidates[0]
    moved = [e for e in candidates if look.moved(rel, e.docs.get(lang, e.source).rel)]
    return moved[0] if len(moved) == 1 else None


def _moved_file(last: bytes, now: bytes) -> bool:
    """Whether two identities are of one file moved: all but the ctime the same."""
    (mtime, _, size, inode, _), (mtime2, _, size2, inode2, _) = unpack(last), unpack(now)
    return (mtime, size, inode) == (mtime2, size2, inode2)


def _language_gone(folder: str, items: Sequence[_Lost]) -> Diagnostic:
    """The pages of a language bipub.yaml no longer has: one warning, there."""
    message = (
        f"/{folder}/ and every page under it (published by the last build: its home, and "
        f"{_count(len(items), 'page')} of posts, tags, series and lists) are not any more: "
        f"bipub.yaml languages has no {folder!r} now; links to them break"
    )
    return Diagnostic(CONFIG_FILE, None, CODE, message, Severity.WARNING, key="languages")


def _archive_off(item: _Lost) -> Diagnostic:
    """A language's archive lost: bipub.yaml `outputs.archive: false`, said there."""
    message = (
        f"{item.path} (published by the last build) is not any more: outputs.archive is false; "
        "links to it break"
    )
    return Diagnostic(CONFIG_FILE, None, CODE, message, Severity.WARNING, key="outputs")


def _side_by_side_off(items: Sequence[_Lost]) -> Diagnostic:
    """The side-by-side pages lost because bipub.yaml turns them off: one warning, there."""
    first, others = items[0].path, len(items) - 1
    if others:
        message = (
            f"{first} and {_count(others, 'other side-by-side page')} (published by the last "
            "build) are not any more: outputs.side_by_side is false; links to them break"
        )
    else:
        message = (
            f"{first} (published by the last build) is not any more: outputs.side_by_side is "
            "false; links to it break"
        )
    return Diagnostic(CONFIG_FILE, None, CODE, message, Severity.WARNING, key="outputs")


def _side_by_side(item: _Lost, look: _Lookup) -> Diagnostic:
    """A post's side-by-side page lost while the post's page stays (and side-by-side pages
    are on: `_side_by_side_off`)."""
    entry = look.entry("posts/" + item.was.split("/", 1)[1], item.made_of)
    doc = entry.docs.get(item.lang, entry.source) if entry is not None else None
    why = f"no other language's own version of the post is published beside {item.lang} now"
    gone = "" if item.made_of in look.by_rel else f" ({item.made_of} is gone)"
    message = (
        f"{item.path} (the side-by-side page of {item.made_of}) was published by the last build "
        f"and is not any more: {why}{gone}; links to it break"
    )
    return _warning(doc, 1, message, item.lang)


def _listed(item: _Lost, look: _Lookup, key: str) -> tuple[list[str], Document | None, int]:
    """What became of each post a tag's or series' page listed (`made_of`), and where the
    warning is said: if it listed one post that is still there, its file (at the line of `key`
    when it is published: its tags or series changed; a translation without the key takes the
    source's, said where that is written), else nowhere (None, 0)."""
    said: list[str] = []
    there: list[Entry] = []
    rels = [rel for rel in item.made_of.split("\n") if rel]
    for rel in rels:
        entry = look.by_rel.get(rel)
        if entry is None:
            said.append(f"{rel} is gone")
            continue
        there.append(entry)
        if look.published_in(entry, item.lang) is None:
            said.append(f"{rel} is not published in {item.lang} now")
        else:
            said.append(f"{rel} {'no longer has the tag' if key == 'tags' else 'left it'}")
    if len(rels) != 1 or len(there) != 1:
        return said, None, 0
    entry = there[0]
    doc = entry.docs.get(item.lang, entry.source)
    if look.published_in(entry, item.lang) is None:
        return said, doc, 1
    if _line(doc, key) is None:
        doc = entry.source
    return said, doc, _line(doc, key) or 1


def _line(doc: Document, key: str) -> int | None:
    """The line of the front matter key `key` of `doc`, None if it has none (`line_of` says
    the front matter's first line then)."""
    return doc.yaml.lines.get((key,))


def _tag_page(item: _Lost, look: _Lookup) -> Diagnostic:
    """A tag's page: the tag has fewer pages now, or no post of that language has it."""
    slug, n = item.was.split("/")[1:3]
    lang, path = item.lang, item.path
    members = look.site.tag_posts.get(lang, {}).get(slug)
    remedy = NO_REDIRECT.format(what="a tag's page")
    if members:
        pages = _pages_of(look.plan, lambda n: urls.tag(lang, slug, n))
        message = (
            f"{path} (page {n} of the tag {urls.tag(lang, slug)}) was published by the last "
            f"build and is not any more: the tag has {_count(pages, 'page')} now "
            f"({_count(len(members), 'post')}, posts_per_page {look.site.config.posts_per_page}"
            f"); links to it break; {remedy}"
        )
        return _warning(None, None, message, lang)
    said, doc, line = _listed(item, look, "tags")
    listed = f" (it listed: {'; '.join(said)})" if said else ""
    message = (
        f"{path} (a tag's page) was published by the last build and is not any more: no {lang} "
        f"post has the tag now{listed}; links to it break; {remedy}"
    )
    return _warning(doc, line, message, lang, key="tags")


def _series_page(item: _Lost, look: _Lookup) -> Diagnostic:
    """A series' page: its members are in a series at another URL (renamed), or none is."""
    lang, path = item.lang, item.path
    said, doc, line = _listed(item, look, "series")
    remedy = NO_REDIRECT.format(what="a series' page")
    moved: dict[str, Series] = {}
    for rel in filter(None, item.made_of.split("\n")):
        entry = look.by_rel.get(rel)
        series = look.site.series_by_entry.get((lang, entry.key)) if entry is not None else None
        if series is not None:
            moved[urls.series(lang, series.slug)] = series
    if len(moved) == 1:
        # (said where the name it shows now is written: its first part's, pair/taxonomy.py)
        (now, series), first = next(iter(moved.items())), next(iter(moved.values())).entries[0]
        named = first.docs.get(lang, first.source)
        if _line(named, "series") is None:
            named = first.source
        message = (
            f"{path} (a series' page) was published by the last build and is not any more: its "
            f"posts are in the series at {now} now (the series' name in {lang} changed); links "
            f"to the old URL break; {remedy}"
        )
        return _warning(named, _line(named, "series"), message, lang, "series")
    if moved:
        message = (
            f"{path} (a series' page) was published by the last build and is not any more: its "
            f"posts are in other series now ({', '.join(sorted(moved))}); links to it break; "
            f"{remedy}"
        )
        return _warning(None, None, message, lang, "series")
    listed = f" ({'; '.join(said)})" if said else ""
    message = (
        f"{path} (a series' page) was published by the last build and is not any more: no "
        f"{lang} post is in that series now{listed}; links to it break; {remedy}"
    )
    return _warning(doc, line, message, lang, "series")


def _blog_page(item: _Lost, look: _Lookup) -> Diagnostic:
    """A blog page past the new last one."""
    lang, n = item.lang, item.was.split("/")[1]
    pages = _pages_of(look.plan, lambda n: urls.blog(lang, n))
    count = len(look.site.posts(lang))
    message = (
        f"{item.path} (page {n} of the {lang} blog) was published by the last build and is not "
        f"any more: the blog has {_count(pages, 'page')} now ({_count(count, 'post')}, "
        f"posts_per_page {look.site.config.posts_per_page}); links to it break; "
        f"{NO_REDIRECT.format(what='a list page')}"
    )
    return _warning(None, None, message, lang)


def _alias(item: _Lost, look: _Lookup, both: str) -> Diagnostic:
    """A redirect page the last build wrote: its alias taken out, or its post not published."""
    path, target, rel = item.path, item.was.removeprefix("aliases"), item.made_of
    side = target.endswith("/both/")  # (the side-by-side page's, render/aliases.py)
    entry = look.by_rel.get(rel)
    lang = item.lang or (entry.source_lang if entry is not None else "")
    what = f"{path} (a redirect page to {target}, of an alias in {rel})"
    if entry is None:
        message = (
            f"{what} was published by the last build and is not any more{_nor(both)}: {rel} "
            "is gone; links to it break (renamed: copy its aliases to the new file)"
        )
        return _warning(None, None, message, lang)
    doc = entry.docs.get(lang, entry.source) if lang in entry.docs else entry.source
    if look.published_in(entry, lang) is None:
        message = (
            f"{what} was published by the last build and is not any more{_nor(both)}: {doc.rel} "
            f"is not published in {lang} now; links to it break until it is"
        )
        return _warning(doc, 1, message, lang)
    source = look.docs[rel][0]  # (the file that named the alias)
    if side:
        message = (
            f"{what} was published by the last build and is not any more: the post has no "
            f"side-by-side page in {lang} now; links to it break"
        )
        return _warning(source, 1, message, lang)
    if source.meta.aliases:
        back = f"put '- {path}' back in its aliases to keep it"
    else:
        back = f"put 'aliases: [{path}]' back in its front matter to keep it"
    message = (
        f"{what} was published by the last build and is not any more{_nor(both)}: its alias "
        f"was taken out of {rel}; links to it break; {back}"
    )
    return _warning(source, _line(source, "aliases") or 1, message, lang)


def _pages_of(plan: Plan, path: Callable[[int], str]) -> int:
    """How many numbered list pages (`path(n)`: the n-th one's path) the plan has."""
    n = 1
    while path(n + 1) in plan.paths:
        n += 1
    return n


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"
