"""A draft's links to the site's pages in the source language, written as the target's.

DeepL never sees a link's target (translate/markdown_xml.py: it travels as a slot), so a draft
links what its source links: a Korean post's `[이전 글](/ko/blog/prev/)` would send the English
reader to the Korean page. Each link of a draft to a post or page of the site in another
language (pair/page_links.py reads it: root-relative, under `base_url`'s path, or absolute
under `base_url`) is written as the same page's link in the draft's language when the site has
that page there (a link to a heading, `#h-…`, names the heading at its place there: see
pair/page_links.py); when it has not (`outputs.untranslated: omit` and the page not translated,
or a translation marked `draft: true`), or the heading's place there is not known, the link is
kept and the drafter says so (`links`). Relative links (`../prev/`) work in both languages and
are kept. So are the site's other pages (pair/site_pages.py): the home `/ko/` → `/en/`, the
blog's pages, a tag's page (`/ko/tags/분산/` → the page of the tag its posts list at its place
in English, `/en/tags/distributed/`), a series' page, the CV page, a side-by-side page, the
feeds, the JSON API and llms.txt; one the target language lacks (a tag no English post lists,
a blog page past the last) is kept and said.

Read here: inline links' and images' targets `](dest "title")`, autolinks `<https://…>`, bare
URLs (as the drafter's inline scanner reads them: translate/markdown_inline.py) and reference
definitions `[label]: dest` (skeleton lines outside code and HTML blocks).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from bipub.pair.page_links import PageLinks
from bipub.text.markdown import parser
from bipub.translate.markdown_inline import Delim, Inline, Item, Keep, Pair, Slot, Text
from bipub.translate.segments import prose_spans

#: an inline link's or image's closing slot: `](dest …)` (dest in `<…>` or up to white space)
_DEST = re.compile(r"\]\(\s*(?:<([^<>\n]*)>|(\S+?))(?=\s|\)$)")
#: a link reference definition's line: `[label]: dest` (not a footnote's `[^1]:`)
_DEFINITION = re.compile(r"(?:[ \t]*>)*[ \t]*\[(?!\^)[^\]\n]+\]:[ \t]*(?:<([^<>\n]*)>|(\S+))")


def _item_spans(items: Iterable[Item], at: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each link target among inline items starting at offset `at`."""
    for item in items:
        if isinstance(item, Text | Keep):
            at += len(item.text)
        elif isinstance(item, Delim):
            at += len(item.run)
        elif isinstance(item, Slot):
            if item.kind == "url":
                angle = item.text.startswith("<") and item.text.endswith(">")
                yield (at + 1, at + len(item.text) - 1) if angle else (at, at + len(item.text))
            at += len(item.text)
        else:
            at += len(item.open)
            yield from _item_spans(item.inner, at)
            at += sum(len(x) for x in _sources(item.inner))
            if item.tag == "a":
                m = _DEST.match(item.close)
                if m is not None:
                    group = 1 if m.group(1) is not None else 2
                    yield at + m.start(group), at + m.end(group)
            at += len(item.close)


def _sources(items: Iterable[Item]) -> Iterator[str]:
    for item in items:
        if isinstance(item, Text | Slot | Keep):
            yield item.text
        elif isinstance(item, Delim):
            yield item.run
        elif isinstance(item, Pair):
            yield item.open
            yield from _sources(item.inner)
            yield item.close


def link_spans(text: str) -> list[tuple[int, int]]:
    """Where each link target of a unit's Markdown lies in `text`, in order."""
    spans: list[tuple[int, int]] = []
    holes = prose_spans(text)
    for start, end, breaks in holes:
        spans.extend(_item_spans(Inline(text[start:end], breaks, ()).scan(0, end - start), start))
    # reference definitions: skeleton lines, outside code and HTML blocks and prose
    closed: set[int] = set()
    for tok in parser().parse(text):
        if tok.type in ("fence", "code_block", "html_block") and tok.map:
            closed.update(range(*tok.map))
    pos = 0
    for n, line in enumerate(text.split("\n")):
        lo, hi = pos, pos + len(line)
        pos = hi + 1
        if n in closed or "]:" not in line or any(a < hi and lo < b for a, b, _ in holes):
            continue
        m = _DEFINITION.match(line)
        if m is not None:
            group = 1 if m.group(1) is not None else 2
            spans.append((lo + m.start(group), lo + m.end(group)))
    return sorted(spans)


def localize(text: str, pages: PageLinks, target: str) -> tuple[str, list[str]]:
    """`text` with each link to a page of the site in another language written as that page's
    link in `target` where the site has it; and a message for each link kept (no such page)."""
    if not pages.may_link(text, other_than=target):
        return text, []  # (no link to another language's page: most texts)
    out: list[str] = []
    kept: list[str] = []
    pos = 0
    for start, end in link_spans(text):
        href = text[start:end]
        found = pages.counterpart(href, target)
        if found is None:
            continue
        if found.target_href is None or found.anchor_lost:
            line = text.count("\n", 0, start) + 1
            why = (
                f"the place of its heading in the {target} page is not known (the two pages' "
                "headings are not as many)"
                if found.anchor_lost
                else f"the site has no {target} page of {found.path}: {found.why}"
                if found.why
                else f"the site has no {target} page of {found.path} (outputs.untranslated: "
                "omit, or `draft: true`)"
            )
            kept.append(
                f"line {line}: link {href} kept: {why}; {target} readers are sent to the "
                f"{found.lang} page"
            )
            continue
        out.append(text[pos:start])
        out.append(found.target_href)
        pos = end
    out.append(text[pos:])
    return "".join(out), kept
