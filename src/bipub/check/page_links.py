"""QA of a translation's links to the site's own pages: a link to the page of another language
(`/ko/blog/x/` in an English translation) when the translation's language has that page
(`/en/blog/x/`) sends its reader to the other language. A `links` warning names both URLs,
whatever the translation's state (the reviewer may mean it: an inline ignore says so). So is a
link to a heading of a page of the site (`/en/blog/x/#h-…`) that names no heading of that page:
the heading at its place is named when known; and a link to a post's or page's URL in a
language the site does not show it in (`outputs.untranslated: omit`): no such page.

Not in the QA cache (check/run.py QaCache keys on the texts alone): whether a page exists in a
language is the site's, read from the pairing (pair/page_links.py, as the drafter reads it:
translate/links.py writes the translation's own URL).
"""

from __future__ import annotations

from urllib.parse import unquote

from bipub.check.qa_facts import facts
from bipub.pair.page_links import PageLinks


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
