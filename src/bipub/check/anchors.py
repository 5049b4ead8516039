"""QA of a translation's in-page links to headings, per document (a link in one section points
at a heading in another).

`[결론](#h-결론)` in a Korean post names its heading `## 결론`; the English translation's heading
`## Conclusion` has the id `h-conclusion` (bipub.text.headings), so a link kept as `#h-결론`
leads nowhere on the English page. Headings pair by position, as sections do: the source's
link to its n-th heading stands for the translation's link to its n-th heading. For each body
section of a translation (check/qa.py `check_links` leaves `#h-…` links to this check; a link
to a heading's own id, `#conclusion` for `## 결론 {#conclusion}`, is the same in both languages:
check_links compares it as it is written, and this check says when it names no heading of the
translation):

* a link to a heading id that names no heading of the translation is a `links` finding naming
  the translation's heading at the place of the source's heading it names (or saying it names
  none);
* a link of the source whose heading's link the translation lacks, and a link of the
  translation to a heading the source's section does not link, are findings as `check_links`
  says them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from urllib.parse import unquote

from bipub.check.qa_facts import facts
from bipub.pair.model import Site
from bipub.pair.units import Unit, nfc
from bipub.text.headings import HEADING_PREFIX, heading_ids

_MARK = "#" + HEADING_PREFIX


def _anchors(text: str, explicit: frozenset[str] = frozenset()) -> list[str]:
    """The heading ids a text's in-page links name (NFC, decoded), in order, once each: `#h-…`
    and the headings' own ids `explicit` (`{#conclusion}`)."""
    found = (u for u in facts(text).links if u.startswith(_MARK) or u[1:] in explicit)
    return list(dict.fromkeys(unicodedata.normalize("NFC", unquote(u[1:])) for u in found))


# what an in-page link's target looks like as written: `](#…`, `[x]: #…` (a quick test first:
# a warm check parses no text whose QA it has kept)
_IN_PAGE = re.compile(r"\]\([ \t\n]*<?#|\]:[ \t]*<?#")


def _in_page(text: str) -> bool:
    """Whether a text has an in-page link that may name a heading."""
    if _MARK in text:
        return True
    return _IN_PAGE.search(text) is not None and any(u.startswith("#") for u in facts(text).links)


def check_anchors(site: Site, units: Iterable[Unit]) -> list[tuple[Unit, str]]:
    """(unit, problem) for the in-page links to headings of the body units `units`."""
    by_doc: dict[tuple[str, str], list[Unit]] = {}
    for unit in units:
        text = unit.translation
        if text is not None and ":body#" in unit.key and (_in_page(text) or _in_page(unit.source)):
            by_doc.setdefault((unit.target_lang, nfc(unit.key).split(":", 1)[0]), []).append(unit)
    if not by_doc:
        return []
    entries = {f"{e.kind}/{nfc(e.key)}": e for e in site.entries}
    out: list[tuple[Unit, str]] = []
    for (lang, doc), doc_units in sorted(by_doc.items()):
        entry = entries.get(doc)
        translation = entry.docs.get(lang) if entry is not None else None
        if entry is None or translation is None:
            continue
        ours, theirs = heading_ids(entry.source.body), heading_ids(translation.body)
        paired = dict(zip(ours, theirs, strict=True)) if len(ours) == len(theirs) else {}
        explicit = frozenset(i for i in (*ours, *theirs) if not i.startswith(HEADING_PREFIX))
        for unit in doc_units:
            assert unit.translation is not None
            wanted = _anchors(unit.source, explicit)
            got = _anchors(unit.translation, explicit)
            for name in got:
                if name not in theirs:
                    there = paired.get(name)
                    place = f": the heading at the place of the source's #{name} is #{there}"
                    out.append(
                        (
                            unit,
                            f"#{name} names no heading of this translation{place if there else ''}",
                        )
                    )
                elif name in explicit:  # (the same in both languages: check_links compares it)
                    continue
                elif name not in wanted and not any(paired.get(w) == name for w in wanted):
                    out.append(
                        (unit, f"the translation links to #{name}, which the source does not")
                    )
            for name in wanted:
                if name in explicit:  # (check_links says a missing one)
                    continue
                if name not in got and paired.get(name, name) not in got:
                    out.append((unit, f"link target #{name} of the source is missing"))
    return out
