"""The side-by-side reading view of a post (issue 19): `/<lang>/blog/<slug>/both/`.

A post that the site shows in two languages (each its own text: not a fallback, not a draft, so
an unpublished machine draft never appears here) is shown in two columns, the page's language
first, cut into bipub's units: the body sections of load/sections.py, each source section beside the
translation section that translates it (pair/align.py: by index, `posts/<key>:body#<i>`, while
the two are in step; by the source text a section's review record names when a section was
inserted, removed or moved in the source since). Each row is one unit, and shows
the state of its translation as status.json states it (render/json_api.py `unit_record`):

    reviewed   a review record whose source is the current one
    untracked  translated, without a review record (written by hand, never reviewed)
    draft      an unreviewed machine draft
    stale      the source changed since the translation was made (machine draft or not)
    edited     reviewed, but the translation changed after the review (bipub check: `edited`)
    missing    the translation has no such section yet
    extra      the translation has a section the source does not (bipub check: orphan)

The language paired with a page's language is the post's source language; on the source's own
page, the first language of bipub.yaml that has a translation of its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from markupsafe import Markup

from bipub.load.sections import nfc
from bipub.pair.align import align_sections, made_from, positional
from bipub.pair.images import LocalImage
from bipub.pair.site_pages import partner as partner
from bipub.pair.site_pages import shows_own as shows_own
from bipub.render import urls
from bipub.render.diagrams import Diagrams
from bipub.render.markdown import Blocks, MarkdownCache, render_body
from bipub.render.views import BodyPart

if TYPE_CHECKING:
    from bipub.load.content import Document
    from bipub.pair.site import Entry, Site
    from bipub.pair.status import StatusRecord
    from bipub.render.urls import UrlBuilder

# the states of a section's translation (the module's text), in the order the legend shows them
STATES = ("reviewed", "untracked", "draft", "stale", "edited", "missing", "extra")


@dataclass(frozen=True)
class SectionState:
    state: str  # one of STATES
    machine: bool  # the translation is an unreviewed machine draft (status.json machine_draft)


@dataclass(frozen=True)
class BothCell:
    lang: str
    html: Markup | None  # None: this language has no such section
    translation: bool  # the cell of the translation (the row's state is its state)


@dataclass(frozen=True)
class BothRow:
    number: int  # 1-based
    cells: tuple[BothCell, ...]  # in column order
    state: str
    machine: bool


@dataclass(frozen=True)
class BothColumn:
    lang: str
    name: str  # the language's name
    title: str
    description: str
    href: str  # the post's own page in this language
    source: bool  # the post's original
    notes: Markup  # the body's footnotes


@dataclass(frozen=True)
class BothView:
    columns: tuple[BothColumn, ...]  # the page's language first
    rows: tuple[BothRow, ...]
    counts: tuple[tuple[str, int], ...]  # (state, sections in it), in STATES order; none at 0
    pdf_href: str | None  # the bilingual PDF of the post (render/pdf: pdf: true posts)


_EXTRA, _MISSING = SectionState("extra", False), SectionState("missing", False)
_UNTRACKED = SectionState("untracked", False)  # (frozen: one of each is shared)


@dataclass(frozen=True)
class SectionRow:
    """One row of a post's sections: a source section and the translation section that
    translates it (pair/align.py: by position, or by the source text its record names when
    the two are out of step), either None when the other has no such section."""

    source: int | None
    translation: int | None
    state: SectionState

    def index(self, source: bool) -> int | None:
        return self.source if source else self.translation


def section_rows(site: Site, entry: Entry, target: str) -> tuple[SectionRow, ...]:
    """Each body section of `entry`'s source beside its translation into `target`, in the
    source's order (pair/align.py's rule), with the state of that translation (the module's
    text)."""
    src = entry.docs[entry.source_lang]
    tr = entry.docs.get(target)
    status = site.status.get(target)
    records = status.records if status is not None else {}
    s_secs, t_secs = src.sections, tr.sections if tr is not None else ()
    base = f"{entry.kind}/{entry.key}:body#"

    def record(i: int) -> StatusRecord | None:
        key = f"{base}{i}"
        rec = records.get(key)
        if rec is None and records and not key.isascii():  # (an ASCII key is NFC already)
            rec = records.get(nfc(key))
        return rec

    s_digests = [s.digest for s in s_secs]
    t_digests = [t.digest for t in t_secs]
    if records:
        alignment = align_sections(s_digests, t_digests, made_from(t_digests, record))
    else:
        alignment = positional(len(s_digests), len(t_digests))
    out: list[SectionRow] = []
    for j, i in alignment.rows():
        if j is None:
            out.append(SectionRow(j, i, _EXTRA))
            continue
        if i is None:
            out.append(SectionRow(j, i, _MISSING))
            continue
        rec = record(i)  # (the record written for the translation's section)
        if rec is None:
            out.append(SectionRow(j, i, _UNTRACKED))
            continue
        machine = rec.state == "draft"
        if rec.source_hash != s_digests[j]:
            state = "stale"
        elif machine:
            state = "draft"
        elif rec.translation_hash and rec.translation_hash != t_digests[i]:
            state = "edited"
        else:
            state = "reviewed"
        out.append(SectionRow(j, i, SectionState(state, machine)))
    return tuple(out)


def section_states(site: Site, entry: Entry, target: str) -> tuple[SectionState, ...]:
    """The state of each row's translation into `target` (`section_rows`)."""
    return tuple(row.state for row in section_rows(site, entry, target))


def out_of_step_rows(site: Site, entry: Entry, lang: str) -> tuple[SectionRow, ...]:
    """The rows of `entry`'s sections (`section_rows`) when the page of `lang` shows a
    translation whose sections are out of step with the source's and a source section has no
    translation in it (a section inserted: its page shows that section in its place, as not
    translated yet: render/page_views.py); () otherwise. Only a page with a stale section can
    be (pair/align.py: a record naming another section's source), so no other is split."""
    version = entry.versions.get(lang)
    if version is None or version.state not in ("stale", "draft") or lang == entry.source_lang:
        return ()
    rows = section_rows(site, entry, lang)
    shifted = any(r.source is not None and r.translation not in (None, r.source) for r in rows)
    missing = any(r.translation is None and r.source is not None for r in rows)
    return rows if shifted and missing else ()


def post_parts(
    site: Site, entry: Entry, lang: str, rendered: MarkdownCache, url: UrlBuilder
) -> tuple[BodyPart, ...]:
    """The body of the post's page in `lang` when its translation is out of step with the
    source (`out_of_step_rows`; else ()): each of its sections as its page renders them, and
    each source section without a translation in its place, as the source's page renders it
    (its ids prefixed by its language, its relative URLs resolved against that page), then the
    footnotes: no text of the translation left out, none shown twice, none beside another."""
    rows = out_of_step_rows(site, entry, lang) if entry.kind == "posts" else ()
    if not rows:
        return ()
    src = entry.docs[entry.source_lang]
    mine, notes = rendered.sections(entry.versions[lang].doc).prefixed("")
    other, _ = rendered.sections(src).prefixed(src.lang)
    base = url.href(urls.post(src.lang, entry.slug))
    parts: list[BodyPart] = []
    for row in rows:
        if row.translation is not None:
            parts.append(BodyPart(Markup(mine[row.translation])))  # noqa: S704 - markdown-it
        elif row.source is not None:
            html = Markup(rebase(other[row.source], base))  # noqa: S704 - markdown-it output
            parts.append(BodyPart(html, True, src.lang))
    return (*parts, BodyPart(Markup(notes)))  # noqa: S704 - markdown-it output


def page_key(site: Site, entry: Entry, lang: str) -> object:
    """What the post's page in `lang` shows of its sections' pairing (`post_parts`) that its
    own document and version do not say: the rows, the source body it shows sections of and
    that body's images; None when the page shows its document's body as it is. Part of the
    page's key (render/html.py `_post_key`): a status record alone can change it."""
    rows = out_of_step_rows(site, entry, lang) if entry.kind == "posts" else ()
    if not rows:
        return None
    src = entry.docs[entry.source_lang]
    pairs = tuple((r.source, r.translation) for r in rows)
    return pairs, src.rel, src.digest, site.images.key(src.rel)


def review_key(site: Site, entry: Entry) -> object:
    """What the side-by-side pages of `entry` show that its documents and versions do not
    say: the states of its sections (a review recorded, say), and how its own pages pair them
    when they are out of step (`out_of_step_rows`). Part of the entry's key
    (HtmlRenderer.entry_key), so that a review re-renders its pages in an incremental build."""
    if entry.kind != "posts":
        return None
    return tuple(
        (
            lang,
            tuple(
                (r.source, r.translation, r.state.state, r.state.machine)
                for r in (
                    section_rows(site, entry, lang)
                    if partner(site, entry, lang) is not None
                    else out_of_step_rows(site, entry, lang)  # (its own page's parts)
                )
            ),
        )
        for lang in site.config.codes
        if lang != entry.source_lang
    )


Parts = tuple[tuple[str, ...], str]  # the sections' HTML, the footnotes' HTML
MarkupParts = tuple[tuple[Markup, ...], Markup]

# a URL attribute of rendered Markdown (its text escapes every '"', so this finds only
# attributes): what `rebase` changes, found by `str.find` (a regex scan of a body costs ~10×
# more: `re` tries the pattern at every position); a URL that is not relative to the page
_URL_NAMES = ('href="', 'src="', 'srcset="')
_WORD = re.compile(r"\w")  # re's word characters: `\b` before a name
_NOT_RELATIVE = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*:|/|#|\?|$)")


def _url_attrs(html: str) -> list[tuple[int, int, int]]:
    """Where `\b(href|src|srcset)="([^"]*)"` matches in `html`, as `re.sub` would find it
    (left to right, no overlaps): (the name's start, the value's start, the value's end)."""
    found: list[tuple[int, int]] = []
    find = html.find
    for name in _URL_NAMES:
        at = find(name)
        while at >= 0:
            if not at or not _WORD.match(html, at - 1):
                found.append((at, at + len(name)))
            at = find(name, at + 1)
    out: list[tuple[int, int, int]] = []
    end = 0
    for start, value in sorted(found) if len(found) > 1 else found:
        if start < end:  # inside the previous match
            continue
        close = find('"', value)
        if close < 0:  # no closing quote: no match here, nor after (no quote is left)
            break
        out.append((start, value, close))
        end = close + 1
    return out


def rebase(html: str, base: str) -> str:
    """`html` of a post's body with its relative link and image URLs resolved against `base`,
    the post's own page, where they were written for: the side-by-side page is a folder
    deeper (and shows the other language's body too), the PDF's base is one language's page."""

    def one(url: str) -> str:
        return url if _NOT_RELATIVE.match(url) else urljoin(base, url)

    pieces: list[str] = []
    done = 0
    for start, at, end in _url_attrs(html):
        value = html[at:end]
        if html.startswith("srcset", start):  # "a.webp 480w, b.webp 800w"
            items = (item.strip().split(" ", 1) for item in value.split(","))
            new = ", ".join(" ".join([one(i[0]), *i[1:]]) for i in items if i[0])
        else:
            new = one(value)
        if new != value:
            pieces += (html[done:at], new)
            done = end
    if not done:
        return html
    pieces.append(html[done:])
    return "".join(pieces)


class SectionCache:
    """Each body cut into its sections' HTML, with its ids prefixed by its language: from the
    build's render of the body (MarkdownCache.sections: one parse for its page and the
    side-by-side pages that show it), or rendered here, once per build (no MarkdownCache)."""

    # `rebased` keeps the last few bodies: the side-by-side pages of a post in each language
    # show the same two bodies against the same bases, and are rendered one after the other
    # (render/workers.py sorts pages by route)
    KEEP_REBASED = 8

    def __init__(self, raw_html: bool, markdown: MarkdownCache | None = None) -> None:
        self.raw_html = raw_html
        self.markdown = markdown  # the build's: its images' variants and drawn diagrams
        self._cache: dict[tuple[str, str, str], Parts] = {}
        self._rebased: dict[tuple[str, str, str], MarkupParts] = {}

    def __call__(self, doc: Document) -> Parts:
        if self.markdown is not None:
            return self.markdown.sections(doc).prefixed(doc.lang)
        key = (doc.rel, doc.digest, doc.lang)
        hit = self._cache.get(key)
        if hit is None:
            starts = tuple(sec.line - doc.body_line for sec in doc.sections)
            hit = self._cache[key] = render_sections(
                doc.body, starts, raw_html=self.raw_html, id_prefix=doc.lang, lang=doc.lang
            )
        return hit

    def rebased(self, doc: Document, base: str) -> MarkupParts:
        """`self(doc)` with its relative URLs resolved against `base` (`rebase`), as Markup."""
        key = (doc.rel, doc.digest, base)
        hit = self._rebased.get(key)
        if hit is None:
            html, notes = self(doc)
            hit = (
                tuple(Markup(rebase(p, base)) for p in html),  # noqa: S704 - markdown-it output
                Markup(rebase(notes, base)),  # noqa: S704 - markdown-it output
            )
            if len(self._rebased) >= self.KEEP_REBASED:
                del self._rebased[next(iter(self._rebased))]  # the oldest
            self._rebased[key] = hit
        return hit


def both_view(
    site: Site,
    entry: Entry,
    lang: str,
    other: str,
    parts: Callable[[Document, str], MarkupParts],
    href: Callable[[str], str],
    pdf_href: str | None,
) -> BothView:
    """The view of the side-by-side page of `entry` in `lang`, `other` beside it (`partner`);
    `parts(doc, base)` is a body's sections and footnotes, their relative URLs resolved
    against `base` (SectionCache.rebased); `href(lang)` is the post's own page in a language."""
    order = (lang, other)
    target = other if lang == entry.source_lang else lang
    section = section_rows(site, entry, target)
    states = [row.state for row in section]
    hrefs = {code: href(code) for code in order}
    rendered = {code: parts(entry.docs[code], hrefs[code]) for code in order}
    columns = []
    for code in order:
        doc = entry.docs[code]
        columns.append(
            BothColumn(
                code,
                site.config.language(code).name,
                doc.meta.title,
                doc.meta.description or "",
                hrefs[code],
                code == entry.source_lang,
                rendered[code][1],
            )
        )
    rows = []
    for n, row in enumerate(section):
        cells = []
        for code in order:
            html = rendered[code][0]
            i = row.index(code == entry.source_lang)
            part = html[i] if i is not None and i < len(html) else None
            cells.append(BothCell(code, part, code == target))
        rows.append(BothRow(n + 1, tuple(cells), row.state.state, row.state.machine))
    counts = tuple(
        (state, n) for state in STATES if (n := sum(1 for s in states if s.state == state))
    )
    return BothView(tuple(columns), tuple(rows), counts, pdf_href)


def render_sections(
    source: str,
    starts: tuple[int, ...],
    *,
    raw_html: bool = False,
    blocks: Blocks | None = None,
    id_prefix: str = "",
    images: Mapping[str, LocalImage] | None = None,
    prefix: str = "",
    diagrams: Diagrams | None = None,
    lang: str = "en",
) -> tuple[tuple[str, ...], str]:
    """A body rendered as `render_markdown` renders it, cut into the parts that begin at the
    0-based lines `starts` of `source` (load/sections.py: where each section begins), and its
    footnotes apart (markdown.py render_body). One parse: footnote numbers, reference links and
    heading ids are those of the whole body. `id_prefix` goes before every id the body makes
    (headings, footnotes), so two bodies can share a page. `images`, `prefix` and `diagrams` as
    for `render_markdown` (the same figures as the post's own page), `lang` (the body's: its
    alerts' titles)."""
    _, sections = render_body(
        source,
        starts,
        raw_html=raw_html,
        blocks=blocks,
        images=images,
        prefix=prefix,
        diagrams=diagrams,
        lang=lang,
    )
    return sections.prefixed(id_prefix)
