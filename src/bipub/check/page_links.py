"""QA of a translation's links to the site's own pages: a link to the page of another language
(`/ko/blog/x/`, `/ko/tags/분산/` in an English translation) when the translation's language has
that page (`/en/blog/x/`, `/en/tags/distributed/`: pair/site_pages.py) sends its reader to the
other language. A `links` warning names both URLs, whatever the translation's state (the
reviewer may mean it: an inline ignore says so). So is a link to a heading of a page of the
site (`/en/blog/x/#h-…`) that names no heading of that page: the heading at its place is named
when known; and a link to a post's or page's URL in a language the site does not show it in
(`outputs.untranslated: omit`), or to another page's with the code of a language that has no
such page (`/en/tags/분산/`, written for `/ko/tags/분산/`): no such page. And the other way: a translation's link to its
own language's page agrees with the source's link to that page (`site_matched`), when its URL
is not the source's with the language swapped (a tag's, a series').

Not in the QA cache (check/run.py QaCache keys on the texts alone): whether a page exists in a
language is the site's, read from the pairing (pair/page_links.py, as the drafter reads it:
translate/links.py writes the translation's own URL).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from urllib.parse import unquote

from bipub.check.qa import extra_link, missing_link
from bipub.check.qa_facts import facts
from bipub.pair.page_links import PageLinks
from bipub.pair.units import Unit


def _same(href: str) -> str:
    return unicodedata.normalize("NFC", unquote(href))


def site_matched(
    problems: Sequence[tuple[str, str]], unit: Unit, translation: str, pages: PageLinks | None
) -> list[tuple[str, str]]:
    """`problems` (code, message) without the `links` ones check/qa.py `check_links` finds for a
    link of the source to a page of the site whose page in the translation's language the
    translation links instead, when that page's URL is not the source's with its language
    swapped: a tag's page (`/ko/tags/분산/` → `/en/tags/distributed/`), a series' page, a link
    written percent-encoded in one and not the other. `check_links` reads the texts alone (its
    answers are cached: check/run.py QaCache); which page the site has is the site's."""
    source = unit.source
    if pages is None or unit.key.startswith("ui:") or not pages.may_link(source):  # (most)
        return list(problems)
    ours = {_same(u): u for u in facts(translation).links}
    met: set[str] = set()
    for href in dict.fromkeys(facts(source).links):
        found = pages.counterpart(href, unit.target_lang)
        there = ours.get(_same(found.target_href)) if found and found.target_href else None
        if there is not None:
            met.update((missing_link(href), extra_link(there)))
    return [(code, m) for code, m in problems if not (code == "links" and m in met)]


def check_page_links(translation: str, target: str, pages: PageLinks) -> list[str]:
    """Each link of `translation` (in `target`) to a page of another language of the site that
    `target` has too."""
    out: list[str] = []
    if not pages.may_link(translation):  # (most texts: not parsed again on every check)
        return out
    for href in dict.fromkeys(facts(translation).links):
        found = pages.counterpart(href, target)
        if found is not None and found.target_href is not None:
            out.append(
                f"{unquote(href)} sends {target} readers to the {found.lang} page; its {target} "
                f"page is {unquote(found.target_href)}"
            )
        broken, absent = pages.broken_anchor(href), pages.absent(href)
        if broken is not None:
            out.append(f"{unquote(href)}: {broken}")
        if absent is not None:
            out.append(absent)
    return out
