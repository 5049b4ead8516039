"""Links to scheduled posts (`scheduled-link`): a published post or page that links to a post
(or a page) dated after the build's "now" (bipub/schedule.py) links to a page the site does not
have yet.

The page keeps the link as written: it is the post's URL, and the first build after the post's
date publishes the post there (`bipub build` and `bipub serve` notice that the date passed and
build again, though no file changed). Meanwhile the link leads nowhere, as Hugo's and Zola's do;
unlike them, bipub says so: a warning at the file and line that write the link, naming the
target and when it is published. A scheduled post's link to one scheduled after it is said too,
while it is written (it will lead nowhere between the two dates). Said by the build (`Site.scheduled`, this build's "now"), by
`bipub check` (the "now" a build would have: `now_scheduled`) and by `bipub check --links`
(for the built site's broken link to such a post: commands/links.py). Silenced like any
warning: bipub.yaml `diagnostics: {scheduled-link: off}`.

A link names a scheduled post when it leads to its page in a language it will be shown in, or
to anything under that page's folder (its side-by-side page, PDF, card); a scheduled page's
likewise (`/<lang>/<slug>/`): root-relative, under
`base_url`, or relative to the linking page. Links in a post's or page's Markdown are read (not
the CV's, nor raw HTML's). Only where something is scheduled: no file is read otherwise.
"""

from __future__ import annotations

import dataclasses
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from datetime import tzinfo
from typing import TypeVar
from urllib.parse import quote, unquote

from bipub import schedule
from bipub.diagnostics import Diagnostic, Severity
from bipub.linkcheck import Broken, resolve, written_links
from bipub.pair.model import Entry, Site
from bipub.text import site_urls

CODE = "scheduled-link"
T = TypeVar("T")


def now_scheduled(site: Site, now: float) -> list[Entry]:
    """The posts a build at `now` would hold back (`bipub check` pairs as if every post were
    published: `Entry.scheduled` is not set there), soonest first; none when bipub.yaml
    `outputs.publish_future` publishes them all."""
    if now == schedule.PUBLISH_ALL or site.config.outputs.publish_future:
        return []
    later = [e for e in site.entries if schedule.is_scheduled(e.publish_at, now)]
    return sorted(later, key=lambda e: (e.publish_at or 0.0, e.kind, e.key))


#: the folder of each page a scheduled post will have (NFC) → the post and when it is
#: published, as said (`scheduled_folders`)
Later = dict[str, tuple[Entry, str]]


def scheduled_folders(site: Site, later: Iterable[Entry]) -> Later:
    """`_prefixes` of `later`, each with when it is published as the warnings say it."""
    zone = schedule.zone_of(site.config.time_zone)
    return {
        path: (entry, schedule.when(entry.publish_at or 0.0, zone))
        for path, entry in _prefixes(site, later).items()
    }


def scheduled_link(item: Broken, later: Later) -> Broken | None:
    """A broken link of the built site (`bipub check --links`) that leads to a post of
    `later` (`scheduled_folders`), said as such (a `scheduled-link` warning); None for any
    other."""
    found = _target(item.path, later)
    if found is None:
        return None
    entry, when = found
    message = (
        f"link {item.url!r} leads to the {_what(entry)} {entry.kind}/{entry.key}, scheduled "
        f"for {when}: no page until the first build after then publishes it"
    )
    return dataclasses.replace(item, code=CODE, message=message)


def _prefixes(site: Site, later: Iterable[Entry]) -> dict[str, Entry]:
    """The folder of each page a scheduled post will have (`/<lang>/blog/<slug>/`, NFC), in
    each language that will show it (as `Entry.shown_in` will say once it is published)."""
    out: dict[str, Entry] = {}
    for entry in later:
        due = dataclasses.replace(entry, scheduled=False)
        for lang in site.config.codes:
            if due.shown_in(lang):
                path = (site_urls.post if entry.kind == "posts" else site_urls.page)(
                    lang, entry.slug
                )
                out[unicodedata.normalize("NFC", path)] = entry
    return out


def _target(path: str, prefixes: Mapping[str, T]) -> T | None:
    """What `prefixes` holds for the scheduled post whose page (or a file in its folder)
    `path` names."""
    parts = unicodedata.normalize("NFC", path).split("/")  # ["", lang, "blog", slug, …]
    if len(parts) < 3:  # (or ["", lang, slug, …]: a page's)
        return None
    folder = parts[:4] if parts[2] == "blog" else parts[:3]
    return prefixes.get("/".join(folder) + "/") if len(folder) > 2 else None


def links_to_scheduled(site: Site, later: Sequence[Entry]) -> list[Diagnostic]:
    """A `scheduled-link` warning for each link of a published post or page (shown in some
    language, and not in `later`) to a post of `later` (the posts scheduled), at the line that
    writes it; and for each link of a post of `later` to one of `later` published after it
    (from its date to the other's, the link will lead nowhere: said now, while it is written)."""
    if not later:
        return []
    cfg = site.config
    zone = schedule.zone_of(cfg.time_zone)
    prefixes = _prefixes(site, later)
    held = {(e.kind, e.key): e for e in later}
    # what a link to one writes: its slug after a `/` (`/ko/blog/x/`, `../x/`; a page's text
    # holds no link to a post's folder without one), as written or percent-encoded
    needles = {f"/{n}" for e in later for n in (e.slug, quote(e.slug, safe=""))}
    out: dict[tuple[str, int, str], Diagnostic] = {}
    done: set[str] = set()  # (a document is read once, whichever languages show it)
    for entry in site.entries:
        source = held.get((entry.kind, entry.key))  # (a scheduled post: as it will be shown)
        shows = entry if source is None else dataclasses.replace(entry, scheduled=False)
        for lang in cfg.codes:
            version = entry.versions.get(lang)
            if version is None or not shows.shown_in(lang):
                continue
            doc = version.doc
            if doc.rel in done:
                continue
            done.add(doc.rel)
            if not any(n in doc.body for n in needles):  # (most documents: not parsed)
                continue
            own = (site_urls.post if entry.kind == "posts" else site_urls.page)(lang, entry.slug)
            for written, line in written_links(doc, cfg.outputs.raw_html):
                found = resolve(written, own + "index.html", cfg.base_url)
                target = _target(found[0], prefixes) if found is not None else None
                if target is None or target.publish_at is None:
                    continue
                if source is not None and target.publish_at <= (source.publish_at or 0.0):
                    continue  # (published before it, or with it)
                # (as markdown-it normalized it, percent-encoded: said decoded, as written)
                said = _said(doc.rel, line, unquote(written), target, zone, source)
                out.setdefault((doc.rel, line, written), said)
    return sorted(out.values(), key=lambda d: (d.file or "", d.line or 0, d.message))


def _said(
    rel: str, line: int, written: str, target: Entry, zone: tzinfo, source: Entry | None = None
) -> Diagnostic:
    assert target.publish_at is not None
    when = schedule.when(target.publish_at, zone)
    what = f"the {_what(target)} {target.kind}/{target.key}, scheduled for {when}"
    if source is None:
        message = (
            f"links to {written}, {what}: the link leads nowhere until the first build after "
            f"then publishes the {_what(target)} (the page keeps the link, which works from "
            "then on)"
        )
    else:
        since = schedule.when(source.publish_at or 0.0, zone)
        message = (
            f"links to {written}, {what}, later than this {_what(source)} ({since}): from this "
            f"{_what(source)}'s date until then the link will lead nowhere (the page keeps it, "
            "which works from then on)"
        )
    return Diagnostic(rel, line, CODE, message, Severity.WARNING)


def _what(entry: Entry) -> str:
    return "post" if entry.kind == "posts" else "page"
