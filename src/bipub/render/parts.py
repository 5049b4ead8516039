"""The parts of the aggregate outputs (render/outputs.py): each post's posts.json record, its
line in llms.txt and its text in llms-full.txt, each feed, each route's URLs in the sitemap,
each entry's part of status.json — kept by what they are made of, so that a build after an
edit makes again only the parts of what the edit changed and joins the others as a full build
does (one `b"".join` of the kept texts, never a second copy of a rule).

Two keys find a part:

* its values' digest (`Parts.get`): a post version's values (pair/model.py `version_key`,
  digested once per build: `Parts.version`) with the values of the site its kind reads
  (`Parts.site_key`). Cheap, but a digest for each post of each aggregate: tens of thousands
  on a big site;
* its entry's key (`Parts.each`): when the build worked out every entry's key
  (`HtmlRenderer.entry_key`: what its pages and card are made of — every value of its
  versions, the names the site shows for its tags, its series, its neighbours, its review
  states), an entry whose key did not change since a build that made its part of a kind has
  that part still: a part is found by (the kind, its language and the site values it reads:
  its *slot*; the entry's key), a dict look-up with no digest, and only the entries whose key
  changed have their part's digest worked out (and their part made, if that moved too).
  `-v` says how many parts were found by their entry's key.

Both keys are saved with the parts (buildstate.py): a part is kept by what it is made of, one
more key is never wrong.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import partial
from itertools import chain, compress, repeat
from operator import itemgetter
from typing import Any

from bipub.load.content import Document
from bipub.pair.model import version_key
from bipub.pair.site import Entry, Site
from bipub.render import feeds, json_api, json_api_status, llms, llms_parts, llms_updated, urls
from bipub.render.llms_full import LAYOUT, FullText, Layout
from bipub.render.markdown import MarkdownCache
from bipub.render.markdown_sections import Outline
from bipub.render.markdown_tasks import feed_boxes
from bipub.render.page_plan import EntryId, Plan


@dataclass
class Parts:
    """The texts of the aggregate outputs' parts by the values they are made from, worked
    out by the same functions as ever (json_api.post_record, llms.post_line and full_post,
    feeds.atom_entry, feeds.route_part, …). A build after an edit takes the text of every
    part whose values did not change from the last build (buildstate.py keeps them; `bipub
    serve` in memory) and joins them as a full build does (module text).

    Each key is cheap to work out (a document by its file's digest, never its text), and what
    a post's version is made of (pair/model.py `version_key`) is digested once per build
    (`version`) for every aggregate that shows the post: a part's key is that digest with the
    values of the site its kind reads (`site_key`). `bipub serve` pairs an unchanged entry
    into the very object it was (pair/site.py PairMemo): its digest is taken as it was, by
    that object, without reading the entry again. With the entries' keys (`entry_keys`), an
    unchanged entry's part is found by its key alone (`each`)."""

    earlier: dict[bytes, Any] = field(default_factory=dict)
    now: dict[bytes, Any] = field(default_factory=dict)
    # each post version's digest, by (kind, key, language), with the entry it was worked out
    # from (reused only for that very object): this build's, and the last build's in this
    # process (never saved: an object's identity means nothing in another process)
    versions: dict[tuple[str, str, str], Held] = field(
        default_factory=dict, compare=False, repr=False
    )
    versions_before: dict[tuple[str, str, str], Held] = field(
        default_factory=dict, compare=False, repr=False
    )
    # this build's entries' keys (HtmlRenderer.entry_keys), if it worked them out (`each`),
    # and its site-wide key (HtmlRenderer.global_key: configuration, templates, catalogs)
    entry_keys: dict[EntryId, str] | None = field(default=None, compare=False, repr=False)
    global_key: str = field(default="", compare=False, repr=False)
    why: str = field(default="", compare=False, repr=False)  # why not (`-v`)
    _sites: dict[object, bytes] = field(default_factory=dict, compare=False, repr=False)
    made: int = field(default=0, compare=False, repr=False)  # parts made by this build
    found: int = field(default=0, compare=False, repr=False)  # found by their entry's key
    marks: int = field(default=0, compare=False, repr=False)  # (entry key → part) keys used
    _bytes: tuple[dict[EntryId, str], dict[EntryId, bytes]] | None = field(
        default=None, compare=False, repr=False
    )
    _lists: list[tuple[Sequence[Entry], dict[EntryId, str], list[bytes]]] = field(
        default_factory=list, compare=False, repr=False
    )
    _shown: dict[str, llms.Names] = field(default_factory=dict, compare=False, repr=False)
    _names: dict[str, dict[tuple[str, tuple[str, ...]], bytes]] = field(
        default_factory=dict, compare=False, repr=False
    )
    # the digest of each language's status file's text as pairing parsed it (pair/status.py
    # StatusCache.digests), if known: what `status_files`' parts read of the status files
    status: dict[str, str] | None = field(default=None, compare=False, repr=False)
    said: list[str] = field(default_factory=list, compare=False, repr=False)  # `say`

    def get(self, key: bytes, make: Callable[[], Any]) -> Any:
        found = self.now.get(key)
        if found is None:
            found = self.earlier.get(key)
            if found is None:
                found = make()
                self.made += 1
            self.now[key] = found
        return found

    def use_keys(self, entries: dict[EntryId, str], global_key: str) -> None:
        """Find the parts of the entries by their keys too (`each`, `feed_mark`): `entries`,
        this build's, and `global_key`, its site-wide key (a part found by an entry's key is
        one made under the same: what the site-wide values a part reads are, besides those
        its slot names)."""
        self.entry_keys, self.global_key = entries, global_key

    def each(
        self,
        kind: tuple[object, ...],
        entries: Sequence[Entry],
        key: Callable[[Entry], bytes],
        make: Callable[[Entry], Any],
    ) -> list[Any]:
        """The part of one kind of each of `entries`, in their order: `make(entry)`, kept by
        `key(entry)` (the digest of its values, `get`). `kind`: the kind's name, its language
        and every value of the site its parts read besides the entries' own (their slot, by
        which with an entry's key the part is found without `key`: module text)."""
        return list(map(itemgetter(1), self._found(kind, entries, key, make)))

    def _found(
        self,
        kind: tuple[object, ...],
        entries: Sequence[Entry],
        key: Callable[[Entry], bytes],
        make: Callable[[Entry], Any],
    ) -> list[tuple[bytes, Any]]:
        """`each`'s parts, each with the key of its values (`key`'s)."""
        keys = self.entry_keys
        if keys is None:
            return [
                (k, self.get(k, partial(make, entry))) for entry in entries for k in [key(entry)]
            ]
        slot = self.site_key(("by-entry-2", self.global_key, *kind))
        now, earlier = self.now, self.earlier
        marks = [slot + k for k in self.entries_bytes(entries, keys)]
        # (the part's key and the part of each, by its entry's key; None where missing: a
        # mark is of what a part is made of, so this build's and the last one's agree)
        found: list[Any] = list(map(earlier.get, marks))
        missing = [n for n, made in enumerate(found) if made is None]
        again = 0
        for n in missing:  # entries whose key changed (or whose part this state lacks)
            made = now.get(marks[n])
            if made is None:
                again += 1
                entry = entries[n]
                at = key(entry)
                made = (at, self.get(at, partial(make, entry)))
            found[n] = made
        now.update(zip(marks, found, strict=True))
        now.update(found)  # (the parts by their values' key: found so when an entry's moves)
        self.found += len(entries) - again
        self.marks += len(marks)
        return found

    def entries_bytes(self, entries: Sequence[Entry], keys: dict[EntryId, str]) -> list[bytes]:
        """The keys of `entries` (`entry_keys`) as bytes, in their order: worked out once per
        build for each list (a language's posts: its posts.json and its llms files)."""
        for seen, of, found in self._lists:
            if seen is entries and of is keys:
                return found
        encoded = self.key_bytes(keys)
        found = [encoded[entry.kind, entry.key] for entry in entries]
        self._lists = [*self._lists[-3:], (entries, keys, found)]
        return found

    def key_bytes(self, keys: dict[EntryId, str]) -> dict[EntryId, bytes]:
        """The entries' keys (`entry_keys`) as bytes (the end of a key a part is found by),
        once per build."""
        if self._bytes is None or self._bytes[0] is not keys:
            self._bytes = (keys, {entry: key.encode() for entry, key in keys.items()})
        return self._bytes[1]

    def note(self) -> str:
        """What this build took from the last one's parts, for `-v`."""
        if not self.now:
            return ""
        total = len(self.now) - self.marks
        kept = total - self.made
        found = f", {self.found:,} of them found by their entry's key" if self.entry_keys else ""
        if self.entry_keys is None and self.why:
            found = f" ({self.why})"
        what = "posts.json records, llms parts, feeds, feed entries, sitemap routes"
        said = "".join(f"; {note}" for note in self.said)
        return (
            f"aggregate parts ({what}): {kept:,} of {total:,} kept, {self.made:,} made{found}{said}"
        )

    def say(self, note: str) -> None:
        """A note for `-v` (`note`): what a kind of output could not take from the parts."""
        self.said.append(note)

    def next(self) -> Parts:
        """What the next build starts from: the parts this one used (or, if it used none,
        as it found them)."""
        return Parts(
            self.now or self.earlier, versions_before=self.versions or self.versions_before
        )

    def again(self) -> Parts:
        """A build's parts, from those a state kept (`next`'s): the same texts and digests."""
        return Parts(self.earlier, versions_before=self.versions_before)

    def version(self, entry: Entry, lang: str) -> bytes:
        """The digest of what a post's version in `lang` is made of (pair/model.py
        `version_key`, and its original language), worked out once per build; the last
        build's for the very same entry object (module text)."""
        return self._held(entry, lang).digest

    def _held(self, entry: Entry, lang: str) -> Held:
        ident = (entry.kind, entry.key, lang)
        held = self.versions.get(ident)
        if held is None:
            held = self.versions_before.get(ident)
            if held is None or held.entry is not entry:
                held = _hold(entry, lang)
            self.versions[ident] = held
        elif held.entry is not entry:  # (two entries of one key in a build: never, but not kept)
            return _hold(entry, lang)
        return held

    def names(self, entry: Entry, lang: str, shown: llms.Names) -> bytes:
        """The digest of the names the site shows for a post's tags and its document's
        language in `lang` (llms_parts.names_key), once per build for each such pair."""
        held = self._held(entry, lang)
        if self._shown.get(lang) is not shown:  # (each language's names: one object a build)
            self._shown[lang] = shown
            self._names[lang] = {}
        memo = self._names[lang]
        found = memo.get((held.doc_lang, held.tags))
        if found is None:
            names = llms_parts.names_key(held.doc_lang, held.tags, shown)
            found = memo[held.doc_lang, held.tags] = digest(("llms-names", names))
        return found

    def site_key(self, values: tuple[object, ...]) -> bytes:
        """The digest of the site's values a kind of part reads (its name first), once per
        build."""
        found = self._sites.get(values)
        if found is None:
            found = self._sites[values] = digest(values)
        return found

    def post_records(
        self, entries: Sequence[Entry], lang: str, url: urls.UrlBuilder
    ) -> list[bytes]:
        """Each post's record in posts.json (json_api.post_record, as dump_record writes it,
        UTF-8: json_api.join_encoded joins them), by the values it reads (its version and
        json_api.site_key: the site's URL)."""
        values = ("json-post-utf8", *json_api.site_key(url))
        site = self.site_key(values)

        def key(entry: Entry) -> bytes:
            return pair(site, self.version(entry, lang))

        def make(entry: Entry) -> bytes:
            return json_api.dump_record(json_api.post_record(entry, lang, url)).encode()

        return self.each((*values, lang), entries, key, make)

    def status_files(
        self, site: Site, langs: Sequence[str], hidden: dict[str, frozenset[str]]
    ) -> dict[str, bytes] | None:
        """status.json of each of `langs` (json_api.status_texts_of's, joined and encoded),
        joined from each entry's part (render/json_api_status.py), kept by its entry's key
        under the site-wide key, the languages and the status files' digests (`status`); None
        without the entries' keys or those digests, or where the parts cannot be joined so
        (then made by status_texts_of: `-v` says why)."""
        keys, digests = self.entry_keys, self.status
        if keys is None or digests is None:
            return None
        entries, codes = site.entries, tuple(site.config.codes)
        slot = self.site_key(
            ("status-by-entry", self.global_key, codes, tuple(sorted(digests.items())))
        )
        marks = [slot + k for k in self.entries_bytes(entries, keys)]
        now = self.now
        found: list[json_api_status.StatusPart | None] = list(map(self.earlier.get, marks))
        uncovered: set[int] = set()
        missing = [n for n, part in enumerate(found) if part is None and marks[n] not in now]
        grouped = None  # (the site's units by entry, if many parts are made)
        if len(missing) >= json_api_status.FROM_THE_SITE:
            grouped = json_api_status.units_by_entry(site.units)
        for n in [n for n, part in enumerate(found) if part is None]:
            part = now.get(marks[n])
            if part is None:  # (an entry whose key changed, or whose part this state lacks)
                entry = entries[n]
                units = (
                    grouped.get(f"{entry.kind}/{entry.key}", [])
                    if grouped is not None
                    else json_api_status.entry_units_of(entry, codes)
                )
                part = json_api_status.entry_part(units, codes, site.status)
                if not json_api_status.covered(entry):  # (made again at every build)
                    uncovered.add(n)
            found[n] = part
        held: list[json_api_status.StatusPart] = found  # type: ignore[assignment]
        if uncovered:
            now.update(p for n, p in enumerate(zip(marks, held, strict=True)) if n not in uncovered)
        else:
            now.update(zip(marks, held, strict=True))
        self.marks += len(marks) - len(uncovered)
        files, why = json_api_status.joined(site, langs, hidden, held)
        if files is None:
            self.say(f"status.json made unit by unit ({why})")
        return files

    def updated(self, posts: Sequence[Entry]) -> date | None:
        """llms_updated.updated of `posts` (a language's: the date of its latest content, read
        from every post's dates), kept by their entries' keys (each holds the post's dates and
        its source's bytes, which its date-times are read from) in their order."""
        keys = self.entry_keys
        if keys is None:
            return llms_updated.updated(posts)
        posts_key = hashlib.blake2b(b"\0".join(self.entries_bytes(posts, keys)), digest_size=16)
        mark = self.site_key(("llms-updated", self.global_key)) + posts_key.digest()
        found = self.now.get(mark)
        if found is None:
            found = self.earlier.get(mark)
            if found is None:
                found = (
                    llms_updated.updated(posts),
                )  # (in a tuple: a site without dates has None)
            self.now[mark] = found
            self.marks += 1
        day: date | None = found[0]
        return day

    def llms_posts(
        self,
        entries: Sequence[Entry],
        lang: str,
        url: urls.UrlBuilder,
        _: llms.Gettext,
        shown: llms.Names,
        labels: bytes,
        raw_html: bool,
        outlines: dict[str, Outline],
    ) -> tuple[list[tuple[bytes, FullText]], bytes, Callable[[Entry], bytes]]:
        """Each post's line in llms.txt (llms.post_line) and its text in llms-full.txt
        (llms.full_post, as a render/llms_full.py `FullText`: kept without its bytes), UTF-8
        (the files are joined as bytes), by its values
        (its version; llms_parts.names_key: the names the site shows for its tags and its
        language; llms_parts.site_key) and `labels` (the digest of this language's
        translations of llms_parts.POST_LABELS). Its body is made with the Outline its page's
        render found (`outlines`, by path), else parsed. And the digest of the parts' keys, in
        their order: what llms-full.txt's posts are made of (`file_mark`). And what makes a
        post's text again (where its bytes are not held: llms_full.texts)."""

        def text(entry: Entry) -> bytes:
            doc = entry.versions[lang].doc
            body = partial(llms.post_body, raw_html=raw_html, outline=outlines.get(doc.rel))
            return llms.full_post(entry, lang, url, _, shown, body).encode("utf-8")

        def make(entry: Entry) -> tuple[bytes, FullText]:
            line = llms.post_line(entry, lang, url, _, shown).encode("utf-8")
            return line, FullText.of(text(entry))

        values = ("llms-post-utf8-3", labels, *llms_parts.site_key(url, raw_html))
        site = self.site_key(values)

        def key(entry: Entry) -> bytes:
            return pair(site, self.version(entry, lang), self.names(entry, lang, shown))

        # (the names of the languages: the entry keys hold those of its tags, not these)
        languages = tuple(sorted(shown.languages.items()))
        found = self._found((*values, lang, languages), entries, key, make)
        return list(map(itemgetter(1), found)), pair(*map(itemgetter(0), found)), text

    def layout(self, published: bytes) -> Layout | None:
        """The layout of the llms-full.txt file whose bytes' hash is `published`
        (llms_full.layout), if the last build or this one kept it; kept for the next build
        only if this one keeps the file (`keep_layout`)."""
        key = digest((LAYOUT, published))
        found = self.now.get(key)
        return self.earlier.get(key) if found is None else found

    def keep_layout(self, published: bytes, layout: Layout | None = None) -> None:
        """Keep for the next build the layout of the llms-full.txt file whose bytes' hash is
        `published` (this build's file): `layout`, or the one kept (a file kept as it was)."""
        found = self.layout(published) if layout is None else layout
        if found is not None:
            self.now[digest((LAYOUT, published))] = found

    def file_mark(self, values: tuple[object, ...], frame: bytes, posts: bytes) -> bytes | None:
        """The key a big file joined from parts is kept by (the hash of its bytes, not its
        bytes: the published file has them, write/output.py `OutputTree.published`): the
        site-wide key (the catalogs, the configuration), `values`, the bytes around its posts
        (`frame`: the file without them) and its posts' parts' keys (`posts`); None without
        the entries' keys (no site-wide key then)."""
        if self.entry_keys is None:
            return None
        site = self.site_key(("file", self.global_key, *values))
        return pair(site, hashlib.blake2b(frame, digest_size=16).digest(), posts)

    def routes(self, site: Site, plan: Plan, url: urls.UrlBuilder) -> list[feeds.SitemapPart]:
        """The sitemap by route (feeds.sitemap_parts), with the entries' keys: the routes whose
        pages are all of one entry (`PageSpec.made_of`: a post's, a page's) are kept together
        by that entry's key (their pages' paths, the languages that have one, which is
        canonical and which not indexed, its lastmod: all the entry's), with the URL and the
        languages: one part per entry (its routes' parts by route), so an update looks up
        half as many keys as routes and makes again only the changed entries' routes."""
        keys = self.entry_keys
        if keys is None:
            return feeds.sitemap_parts(site, plan, url)
        values = ("by-entry-routes", self.global_key, url.base_url, tuple(site.config.codes))
        slot = self.site_key(values)
        entry_of: dict[feeds.Route, EntryId] = {}  # each route of one entry, with its entry
        for r, specs in plan.routes.items():  # (inline: a big site has ~12,000 routes)
            made_of = None  # the one entry every page of the route is made of, if there is one
            for spec in specs.values():
                of = spec.made_of
                if not of or (made_of is not None and of[0] != made_of):
                    made_of = None
                    break
                made_of = of[0]
            if made_of is not None:
                entry_of[r] = made_of
        ids = list(dict.fromkeys(entry_of.values()))
        encoded = self.key_bytes(keys)
        marks = [slot + encoded[e] for e in ids]
        found: list[dict[feeds.Route, feeds.SitemapPart] | None] = list(
            map(self.earlier.get, marks)
        )
        missing = [n for n, part in enumerate(found) if part is None]
        for n in missing:
            found[n] = self.now.get(marks[n])
        # the routes of the parts found, and the entry each was kept by (in C: a part an entry)
        held = list(filter(None, found))
        known = dict(chain.from_iterable(map(dict.items, held)))
        by = chain.from_iterable(map(repeat, compress(ids, found), map(len, held)))
        owner = dict(zip(chain.from_iterable(held), by, strict=True))
        kept = sum(map(len, held))
        if not owner.items() <= entry_of.items() or len(owner) != kept:
            # (each kept route is one of its entry's routes now, in no other entry's part:
            # checked, never assumed; the parts of the entries whose routes are not, made again)
            known.clear()
            for n, part in enumerate(found):
                if part is not None and all(entry_of.get(r) == ids[n] for r in part):
                    known.update(part)
                elif part is not None:
                    found[n] = None
                    missing.append(n)
        fresh: dict[feeds.Route, feeds.SitemapPart] = {}  # (the parts of the routes made)
        made = feeds.sitemap_parts(site, plan, url, known, fresh)
        self.now.update(zip(marks, found, strict=True))  # (None where missing: set below)
        again = list(dict.fromkeys(ids[n] for n in missing if found[n] is None))
        if again:  # (the entries whose key changed: their routes' parts, kept for the next)
            wanted = set(again)
            by_entry: dict[EntryId, dict[feeds.Route, feeds.SitemapPart]] = {e: {} for e in again}
            for route in sorted(r for r in fresh if entry_of.get(r) in wanted):  # (as in `made`)
                by_entry[entry_of[route]][route] = fresh[route]
            self.now.update((slot + encoded[e], by_entry[e]) for e in again)
            self.made += len(again)
        return made

    def feed_mark(self, spec: feeds.FeedSpec, site: tuple[object, ...]) -> bytes | None:
        """The key a whole feed (its Atom and JSON Feed files) is kept by, with the entries'
        keys (None without: each entry is then kept, `feed_entry`): its path, its title and its
        posts' entry keys (their order too), with `site`, every value of the site its files
        read besides its posts' (feeds_site: the language's title and description, the author,
        the URL, the notes, what renders the bodies). Everything an entry shows (its item, its
        body, its images, its state) is in its entry's key; the feed's `updated`, its posts'
        dates."""
        keys = self.entry_keys
        if keys is None:
            return None
        members = tuple([keys[entry.kind, entry.key] for entry in spec.posts])
        return self.site_key(("feed files", self.global_key, *site)) + digest(
            (spec.path, spec.title, members)
        )

    def kept(self, mark: bytes) -> Any:
        """The part kept by `mark` (this build's or the last one's), else None."""
        found = self.now.get(mark)
        if found is None:
            found = self.earlier.get(mark)
            if found is not None:
                self.now[mark] = found
        return found

    def keep(self, mark: bytes, part: Any) -> None:
        """A part this build made (`made`) by `mark`."""
        self.now[mark] = part
        self.made += 1

    def feed_entry(
        self, item: feeds.FeedItem, doc: Document, note: str, markdown: MarkdownCache
    ) -> tuple[bytes, bytes]:
        """feeds.entry_bytes of one feed entry (its Atom entry and JSON item, encoded), by its
        item, its body (MarkdownCache.key: what its rendering depends on) and its note. A body
        kept from the last build is not rendered again; what rendering it warned about is said
        again (MarkdownCache.replay), as for a page kept."""

        def make() -> tuple[bytes, bytes]:
            html = feed_boxes(markdown(doc).html)  # (task-list checkboxes as text)
            return feeds.entry_bytes(item, html, note)

        key = digest(("feed-entry-bytes", item, markdown.key(doc), note))
        fresh = key not in self.now and key not in self.earlier
        entry: tuple[bytes, bytes] = self.get(key, make)
        if not fresh:
            markdown.replay(doc)
        return entry


@dataclass(frozen=True)
class Held:
    """What Parts keeps of a post's version: the entry it was worked out from, the digest of
    its values (Parts.version), its document's language and its tags (tags_of)."""

    entry: Entry
    digest: bytes
    doc_lang: str
    tags: tuple[str, ...]


def _hold(entry: Entry, lang: str) -> Held:
    found = digest(("version", version_key(entry, lang), entry.source_lang))
    doc = entry.versions[lang].doc
    return Held(entry, found, doc.lang, entry.tags_in(lang))


def pair(*digests: bytes) -> bytes:
    """A part's key from digests of its values (each `digest`'s: 16 bytes, so that their
    concatenation says where each one ends)."""
    return hashlib.blake2b(b"".join(digests), digest_size=16).digest()


def digest(values: object) -> bytes:
    """A part's key: a digest of its values' repr (a repr, not the values: True and 1 are
    equal keys; a digest: the state keeps ~50,000 parts on a big site, saved at every build)."""
    return hashlib.blake2b(repr(values).encode("utf-8"), digest_size=16).digest()
