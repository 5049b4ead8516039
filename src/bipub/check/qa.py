"""QA of a translation against its source: one small pure function per finding code.

Each check takes the source and translation texts and returns a list of problems (plain
sentences; empty when clean). The texts are read once into Markdown facts (bipub.check.qa_facts:
parsed by markdown-it-py, so code, links and text are told apart by the parser). What each check
compares:

- numbers (bipub.check.qa_numbers): the multiset of numbers outside code and link targets,
  normalized (thousands separators, ranges, `%`/`×`, months, spelled-out numbers, `10k`/`1.5M`
  and Korean units, durations in seconds), a minus sign compared (a word of decrease beside the number stands for it),
  a unit of time or data size compared (bipub.check.qa_units: `0.5초` / `0.5 ms` is said).
- links: the set of link and image targets, autolinks and bare URLs.
- code: inline code spans (as a multiset) and fenced/indented blocks (in order), byte for byte;
  a ```mermaid diagram's labels may differ (they are translated), its structure may not.
- refs: `#1234` and `owner/repo#1234` references.
- markup: heading levels in order, number of list items, task list items ticked or not in
  order (`- [x]`, `- [ ]`), table shapes, number of images, alert kinds in order (`> [!NOTE]`).
- placeholders (UI strings): gettext `%(name)s` / `{name}` sets, and no new HTML tags.
- glossary: a glossary term in the source has one of its renderings in the translation.
- prefix: a bracketed title prefix such as `[vLLM]` is kept.

RULE_FILES lists every source file whose text decides a QA result: the QA cache
(bipub.check.run.QaCache) hashes them all, so a changed rule re-checks every text.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from bipub.check import glossary, qa_facts, qa_numbers, qa_units, qa_words
from bipub.check.glossary import Glossary
from bipub.check.qa_facts import REF, Facts, bare_urls, facts, has_hangul
from bipub.check.qa_numbers import check_numbers, numbers_of
from bipub.render import catalogs
from bipub.render.catalogs import placeholders, tags
from bipub.text import headings, markdown

__all__ = [
    "RULE_FILES",
    "Facts",
    "check_code",
    "check_glossary",
    "check_links",
    "check_markup",
    "check_numbers",
    "check_placeholders",
    "check_prefix",
    "check_refs",
    "check_untranslated",
    "facts",
    "has_hangul",
    "numbers_of",
    "refs_of",
    "unit_kind",
    "unit_problems",
    "words_to_translate",
]

#: The source files of the QA rules: this module, the facts they read, the numbers rule, its
#: units and its number words, the glossary's renderings, the Markdown dialect they parse with
#: and the gettext placeholder/tag readers (tests/unit/test_qa_rules_salt.py fails when a
#: module the rules import is left out).
RULE_FILES: tuple[Path, ...] = tuple(
    Path(f)
    for f in (
        __file__,
        qa_facts.__file__,
        qa_numbers.__file__,
        qa_units.__file__,
        qa_words.__file__,
        glossary.__file__,
        markdown.__file__,
        headings.__file__,
        catalogs.__file__,
    )
    if f is not None
)

# --------------------------------------------------------------------------- links, code, refs


_HEADING_LINK = "#" + headings.HEADING_PREFIX


def check_links(
    source: str, translation: str, langs: tuple[str, str] | None = None, base_url: str = ""
) -> list[str]:
    """`langs` (source, target): a translation's link to its own language's page
    (`/en/blog/x/`) may stand for the source's link to that page in the source language
    (`/ko/blog/x/`), so that its reader stays in their language; so may the same link under
    `base_url` (`https://example.org/en/blog/x/`, or under its path: `/sub/en/blog/x/`).
    In-page links to headings (`#h-…`) are compared per document (check/anchors.py): a
    heading's id is made of its text, translated."""
    s = {u for u in facts(source).links if not u.startswith(_HEADING_LINK)}
    t = {u for u in facts(translation).links if not u.startswith(_HEADING_LINK)}
    also = {u: u for u in t}  # each translation link, and the source link it may stand for
    if langs is not None:
        base = base_url.rstrip("/")
        heads = {"", base, urlsplit(base + "/").path.rstrip("/")} if base else {""}
        for u in t:
            for head in heads:
                theirs = f"{head}/{langs[1]}/"
                if u.startswith(theirs):
                    also[u] = f"{head}/{langs[0]}/" + u[len(theirs) :]
    met = t | set(also.values())
    # a heading's id is its language's: a page's link in the other language may name another
    # (check/page_links.py says when it names no heading of that page)
    swapped = {_unanchored(v) for u, v in also.items() if v != u}
    ours = {_unanchored(u) for u in s}
    problems = [missing_link(u) for u in sorted(s - met) if _unanchored(u) not in swapped]
    problems += [
        extra_link(u)
        for u in sorted(t)
        if u not in s and also[u] not in s and not (also[u] != u and _unanchored(also[u]) in ours)
    ]
    return problems


def missing_link(url: str) -> str:
    """`check_links`'s words for a link of the source the translation has not."""
    return f"link target {url} of the source is missing"


def extra_link(url: str) -> str:
    """`check_links`'s words for a link of the translation the source has not."""
    return f"the translation links to {url}, which the source does not"


def _unanchored(url: str) -> str:
    """A link without its heading fragment (`/ko/blog/x/#h-결론` → `/ko/blog/x/`)."""
    at = url.find(_HEADING_LINK)
    return url[:at] if at > 0 else url


def _short(code: str, limit: int = 60) -> str:
    one = code.replace("\n", "⏎")
    return one if len(one) <= limit else one[: limit - 1] + "…"


def _times(n: int) -> str:
    return "once" if n == 1 else "twice" if n == 2 else f"{n} times"


def check_code(source: str, translation: str) -> list[str]:
    fs, ft = facts(source), facts(translation)
    problems: list[str] = []
    s_spans, t_spans = Counter(fs.code_spans), Counter(ft.code_spans)
    for span in sorted(set(s_spans) & set(t_spans)):  # (in both, not as many times)
        if s_spans[span] != t_spans[span]:
            problems.append(
                f"code span `{_short(span)}` is {_times(t_spans[span])} in the translation, "
                f"{_times(s_spans[span])} in the source"
            )
    for span in sorted((s_spans - t_spans).elements()):
        if span not in t_spans:
            problems.append(f"code span `{_short(span)}` of the source is missing or changed")
    for span in sorted((t_spans - s_spans).elements()):
        if span not in s_spans:
            problems.append(f"the translation has code span `{_short(span)}`, the source does not")
    if len(fs.blocks) != len(ft.blocks):
        problems.append(
            f"{len(fs.blocks)} code block(s) in the source, {len(ft.blocks)} in the translation"
        )
    for i, (sb, tb) in enumerate(zip(fs.blocks, ft.blocks, strict=False), start=1):
        if sb == tb:
            continue
        if sb[0] != tb[0]:
            problems.append(f"code block {i}: info string {tb[0]!r}, the source has {sb[0]!r}")
            continue
        if sb[0].split(maxsplit=1)[:1] == ["mermaid"]:  # a diagram: its labels are translated
            at = _diagram_differs(sb[1], tb[1])
            if at is not None:
                problems.append(
                    f"diagram (code block {i}) differs from the source in more than its labels "
                    f"(first at its line {at})"
                )
            continue
        s_lines, t_lines = sb[1].split("\n"), tb[1].split("\n")
        at = next(
            (n for n, (a, b) in enumerate(zip(s_lines, t_lines, strict=False), 1) if a != b),
            min(len(s_lines), len(t_lines)) + 1,
        )
        problems.append(f"code block {i} differs from the source (first at its line {at})")
    return problems


# a Mermaid label: quoted, in node brackets or between edge pipes (nested shapes: repeated)
_DIAGRAM_LABEL = re.compile(r'"[^"\n]*"|\[[^\[\]\n]*\]|\([^()\n]*\)|\{[^{}\n]*\}|\|[^|\n]*\|')
_DIAGRAM_TEXT_LINE = re.compile(r"(?:title|accTitle|accDescr|section|note|Note)\b")


def _diagram_line(line: str) -> str:
    """A Mermaid line without what a translator translates: labels, text after `:` (messages),
    titles, notes and section names; comments dropped."""
    text = line.split("%%", 1)[0].strip()
    if _DIAGRAM_TEXT_LINE.match(text):
        return text.split(maxsplit=1)[0]
    previous = None
    while previous != text:
        previous, text = text, _DIAGRAM_LABEL.sub("", text)
    return " ".join(text.split(":", 1)[0].split())


def _diagram_differs(source: str, translation: str) -> int | None:
    """The first line (of the translation's diagram) whose structure differs from the
    source's: node ids, arrows, keywords; None if only labels differ."""
    s = [x for x in map(_diagram_line, source.split("\n")) if x]
    t = [(n, x) for n, x in enumerate(map(_diagram_line, translation.split("\n")), 1) if x]
    for k, (n, x) in enumerate(t):
        if k >= len(s) or s[k] != x:
            return n
    return None if len(s) == len(t) else len(translation.split("\n"))


def refs_of(text: str) -> Counter[str]:
    return Counter(m.group(0) for m in REF.finditer(facts(text).prose))


def check_refs(source: str, translation: str) -> list[str]:
    s, t = refs_of(source), refs_of(translation)
    problems = [f"reference {r} of the source is missing" for r in sorted((s - t).elements())]
    problems += [f"the translation adds reference {r}" for r in sorted((t - s).elements())]
    return problems


# --------------------------------------------------------------------------- markup


def check_markup(source: str, translation: str) -> list[str]:
    s, t = facts(source).skeleton, facts(translation).skeleton
    problems: list[str] = []
    if s.headings != t.headings:
        problems.append(
            "headings differ: source "
            + (" ".join("#" * h for h in s.headings) or "none")
            + ", translation "
            + (" ".join("#" * h for h in t.headings) or "none")
        )
    if s.heading_ids != t.heading_ids:

        def ids(found: tuple[str, ...]) -> str:
            return " ".join(f"{{#{i}}}" for i in found if i) or "none"

        ours, theirs = ids(s.heading_ids), ids(t.heading_ids)
        if ours != theirs or (ours != "none" and s.headings == t.headings):
            where = " (on other headings)" if ours == theirs else ""
            problems.append(f"heading ids differ: source {ours}, translation {theirs}{where}")
    if s.list_items != t.list_items:
        problems.append(f"{s.list_items} list item(s) in the source, {t.list_items} here")
    if s.tasks != t.tasks:

        def ticks(tasks: str) -> str:
            return " ".join(f"[{mark}]" for mark in tasks) or "none"

        problems.append(
            f"task list items differ: source {ticks(s.tasks)}, translation {ticks(t.tasks)}"
        )
    if s.tables != t.tables:

        def shape(tables: tuple[tuple[int, int], ...]) -> str:
            return ", ".join(f"{r}×{c}" for r, c in tables) or "none"

        problems.append(
            f"tables (rows×columns) differ: source {shape(s.tables)}, translation {shape(t.tables)}"
        )
    if s.images != t.images:
        problems.append(f"{s.images} image(s) in the source, {t.images} here")
    if s.alerts != t.alerts:
        problems.append(
            "alerts differ: source "
            + (" ".join(f"[!{kind}]" for kind in s.alerts) or "none")
            + ", translation "
            + (" ".join(f"[!{kind}]" for kind in t.alerts) or "none")
        )
    if t.stray > s.stray:  # (a space inside the markers, or punctuation at their edge)
        problems.append(
            "`**` or `~~` shown as text: emphasis that does not open or close here "
            "(a space inside its markers, or punctuation just inside them before a letter)"
        )
    return problems


# --------------------------------------------------------------------------- UI strings


def check_placeholders(source: str, translation: str) -> list[str]:
    """gettext msgid vs msgstr: the same placeholder set and no new HTML tags."""

    problems: list[str] = []
    sp, tp = set(placeholders(source)), set(placeholders(translation))
    if sp != tp:
        problems.append(
            f"placeholders differ: msgid has {sorted(sp) or 'none'}, msgstr has "
            f"{sorted(tp) or 'none'}"
        )
    extra = set(tags(translation)) - set(tags(source))
    if extra:
        problems.append(f"msgstr adds markup its msgid does not have: {sorted(extra)}")
    return problems


# --------------------------------------------------------------------------- glossary, prefix


@lru_cache(maxsize=4096)
def _term_pattern(term: str, exact_case: bool = False) -> re.Pattern[str]:
    """ASCII terms match as whole words; others (Korean takes particles) as substrings."""
    escaped = re.escape(unicodedata.normalize("NFC", term))
    if term.isascii():
        escaped = r"(?<![A-Za-z0-9])" + escaped + r"(?![A-Za-z0-9])"
    return re.compile(escaped, 0 if exact_case else re.IGNORECASE)


def _contains(text: str, term: str, exact_case: bool = False) -> bool:
    return _term_pattern(term, exact_case).search(text) is not None


def check_glossary(
    source: str, translation: str, glossary: Glossary, source_lang: str, target_lang: str
) -> list[str]:
    """A glossary term of the source has one of its renderings in the translation."""
    s_prose = unicodedata.normalize("NFC", facts(source).prose)
    t_prose = unicodedata.normalize("NFC", facts(translation).prose)
    problems: list[str] = []
    for term in glossary.keep:  # names: matched with their exact case
        if _contains(s_prose, term, True) and not _contains(t_prose, term, True):
            problems.append(f"{term!r} is never translated (glossary keep) but is missing here")
    for entry in glossary.terms:
        sources = entry.renderings(source_lang)
        targets = entry.renderings(target_lang)
        if not sources or not targets:
            continue
        hit = next((s for s in sources if _contains(s_prose, s)), None)
        if hit is not None and not any(_contains(t_prose, t) for t in targets):
            wanted = " or ".join(repr(t) for t in targets)
            problems.append(f"glossary: {hit!r} should be rendered as {wanted}")
    return problems


_PREFIX = re.compile(r"^\s*\[([^\]]+)\]")


def check_prefix(source: str, translation: str) -> list[str]:
    m = _PREFIX.match(source)
    if m is None:
        return []
    t = _PREFIX.match(translation)
    if t is None or t.group(1).strip() != m.group(1).strip():
        return [f"the title prefix [{m.group(1)}] of the source is not kept"]
    return []


# --------------------------------------------------------------------------- untranslated

_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]")


_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "or",
        "the",
        "of",
        "for",
        "in",
        "on",
        "to",
        "with",
        "vs",
        "via",
        "at",
        "by",
        "from",
        "as",
        "is",
        "are",
        "be",
    ]
)


def words_to_translate(text: str, allow: Iterable[str] = ()) -> list[str]:
    """Words of the prose that need translating.

    Not counted: code, URLs, numbers, acronyms (all capitals, up to 6 letters), allowed terms.
    A text of at most four capitalised words and nothing else ("Triton Inference Server",
    "Kubernetes") reads as a name and needs no translation."""
    prose = facts(text).prose
    for url in bare_urls(prose):
        prose = prose.replace(url, " ")
    for term in sorted(allow, key=len, reverse=True):
        if term:
            prose = _term_pattern(term).sub(" ", prose)
    latin = [w for w in _LATIN_WORD.findall(prose) if not (w.isupper() and len(w) <= 6)]
    lower = [w for w in latin if w.islower() and w not in _STOP]
    capital = [w for w in latin if not w.islower()]
    hangul = re.findall(r"[\uac00-\ud7a3]+", prose)
    if lower or hangul:
        return lower + capital + hangul
    return capital if len(capital) > 4 else []


def check_untranslated(
    source: str, translation: str, target_lang: str, allow: Iterable[str] = ()
) -> list[str]:
    """A translation identical to its source, a Korean one without Hangul, or one with a
    heading or paragraph (a footnote's included) left as the source has it.

    Only when the source has words to translate (not just code, URLs, acronyms, numbers or
    allowed names and terms)."""
    allowed = tuple(allow)
    src = unicodedata.normalize("NFC", source).strip()
    tr = unicodedata.normalize("NFC", translation).strip()
    if src != tr and (target_lang != "ko" or has_hangul(tr)):
        return _paragraphs_left(src, tr, target_lang, allowed)
    if src in allowed or not words_to_translate(src, allowed):
        return []
    if src == tr:
        return ["the translation is identical to the source"]
    if (
        target_lang == "ko"
        and not has_hangul(facts(tr).prose)
        and not words_to_translate(tr, allowed)
    ):
        return []  # only names and terms are left (e.g. "Prometheus, Grafana")
    if target_lang == "ko" and not has_hangul(facts(tr).prose):
        return ["the Korean translation has no Hangul"]
    return []


def _paragraphs_left(src: str, tr: str, target_lang: str, allowed: tuple[str, ...]) -> list[str]:
    """The headings and paragraphs of `tr` that are the source's, word for word, with words to
    translate: left untranslated in a translation otherwise made (a footnote the drafter
    never sent, a paragraph pasted and forgotten). Into English, only those with Hangul are
    looked for (the common case, decided without parsing: a translation with no Hangul has
    none)."""
    if target_lang != "ko" and not has_hangul(tr):
        return []
    ours = set(facts(src).paragraphs)
    left = [
        p
        for p in facts(tr).paragraphs
        if p in ours and (target_lang == "ko" or has_hangul(p)) and words_to_translate(p, allowed)
    ]
    if not left:
        return []
    first = left[0] if len(left[0]) <= 40 else left[0][:39] + "…"
    what = "a paragraph is" if len(left) == 1 else f"{len(left)} paragraphs are"
    return [f"{what} left as the source has it: «{first}»"]


# --------------------------------------------------------------------------- one unit

#: What the checks of one unit depend on: a UI string (placeholders, numbers), a post's or
#: page's title (the text checks and its bracketed prefix), any other text.
UnitKind = Literal["ui", "title", "text"]


def unit_kind(key: str) -> UnitKind:
    """The kind of a unit by its key (`ui:…`, `…:title`, any other)."""
    return "ui" if key.startswith("ui:") else "title" if key.endswith(":title") else "text"


def unit_problems(
    source: str,
    translation: str,
    kind: UnitKind,
    langs: tuple[str, str],
    gloss: Glossary,
    base_url: str = "",
) -> list[tuple[str, str]]:
    """(code, problem) of one unit's translation: the checks `bipub check` runs on a
    translation (check/run.py) and `bipub translate` on each draft (translate/writers.py),
    in this order. `langs`: (source, target) language."""
    checks: list[tuple[str, list[str]]]
    if kind == "ui":
        checks = [
            ("placeholders", check_placeholders(source, translation)),
            ("numbers", check_numbers(source, translation)),
        ]
    else:
        checks = [
            ("numbers", check_numbers(source, translation)),
            ("links", check_links(source, translation, langs, base_url)),
            ("code", check_code(source, translation)),
            ("refs", check_refs(source, translation)),
            ("markup", check_markup(source, translation)),
        ]
        if kind == "title":
            checks.append(("prefix", check_prefix(source, translation)))
    if gloss.terms or gloss.keep:
        checks.append(("glossary", check_glossary(source, translation, gloss, *langs)))
    return [(code, problem) for code, problems in checks for problem in problems]
