"""llms.txt and llms-full.txt (https://llmstxt.org), one pair per language.

    # Site title
    > description
    header: the machine-readable versions (llms.txt, llms-full.txt, JSON API, CV PDFs),
            the website's URL and the date of the latest content
    ## sections of `- [name](url): notes` links      (llms.txt)
    ## the CV, section by section; every post's Markdown (llms-full.txt)

Every heading and label is a UI string of the theme's catalogs (`_`, a plain-text gettext of the
file's language: render/templates.py text_gettext), so the Korean file reads Korean. Text shown
in another language than the file's, and machine translations not reviewed, say so, as on the
HTML pages. Generated from the same paired data as the HTML site and the JSON API (the CV without
bipub.yaml `private_fields`).

The files are per-entry parts joined at the end: `post_line` (llms.txt) and `full_post`
(llms-full.txt) for a post, one function per CV section — pure functions of their arguments, so
a build may keep a part it made before. A post's Markdown is prepared by render/llms_body.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from bipub.model.fields import slugify
from bipub.pair.site import Entry, Site, tags_of
from bipub.render import urls
from bipub.render.llms_body import absolute_links, shift_headings
from bipub.render.llms_updated import Latest, updated
from bipub.render.locale_format import format_iso
from bipub.render.markdown import body_outline
from bipub.render.markdown_sections import Outline
from bipub.render.pdf.links import short_wanted
from bipub.render.views import ForeignText, MachineText, View, cv_view

if TYPE_CHECKING:  # the CV's modules load when a CV is rendered
    from bipub.pair.cv_merge import MergedCv

Gettext = Callable[[str], str]  # a UI string in the file's language (plain text)


@dataclass(frozen=True)
class Names:
    """The names a post's part shows that the whole site decides."""

    languages: dict[str, str]  # language code → its name (bipub.yaml)
    tags: dict[str, str]  # tag slug → the spelling the site shows in this language


def names(site: Site, lang: str) -> Names:
    tags = {slug: tag.name for slug, tag in site.tags.get(lang, {}).items()}
    return Names({language.code: language.name for language in site.config.languages}, tags)


# a post's Markdown as llms-full.txt carries it, from its body and its page's URL (`post_body`;
# the build passes one that keeps earlier results and takes where the headings are from the
# render of the post's page: render/outputs.py Parts.llms_post)
BodyText = Callable[[str, str], str]


def post_body(body: str, page: str, raw_html: bool = False, outline: Outline | None = None) -> str:
    """A post's whole Markdown for llms-full.txt: relative links made absolute against its page,
    headings moved under the post's own (render/llms_body.py). `outline`: where the headings of
    `body` are and what its links point to (MarkdownCache.outlines), else found by a parse
    (bipub's Markdown with the site's `raw_html`, as the page's render finds them)."""
    text = body.strip("\n")
    if outline is None:
        outline = body_outline(text, raw_html)
    else:  # (lines of `body`: its leading blank lines are gone)
        outline = outline.skipped(len(body) - len(body.lstrip("\n")))
    if outline.links is not None:  # (None: no relative link)
        text = absolute_links(text, page, outline.links)
    return shift_headings(text, 4, outline.heads)


# Section names the proposal gives a meaning to: never translated.
OPTIONAL = "Optional"


def _one_line(text: Any) -> str:
    return " ".join(str(text or "").split())


def _paragraphs(text: Any) -> str:
    """A multi-paragraph field: its paragraphs (blank-line separated) kept, each on one line."""
    parts = re.split(r"\n\s*\n", str(text or "").strip())
    return "\n\n".join(line for line in (_one_line(p) for p in parts) if line)


_MARKDOWN_SPECIAL = str.maketrans({c: "\\" + c for c in "\\[]<>"})
_HAS_SPECIAL = re.compile(r"[\\\[\]<>]")


def _link_text(text: str | None) -> str:
    """A title or description in a Markdown list line: one line, and `]`, `[`, `<`, `>` and `\\`
    escaped, so `x](javascript:…)` or `<script>` cannot make a link or HTML of its own."""
    line = _one_line(text)
    if _HAS_SPECIAL.search(line) is None:  # the usual case: translate() is slow on Korean text
        return line
    return line.translate(_MARKDOWN_SPECIAL)


def _join(*parts: Any) -> str:
    return " · ".join(_one_line(p) for p in parts if p not in (None, "", []))


# ---------------------------------------------------------------- the header


def cv_pdfs(site: Site, lang: str) -> list[tuple[str, str]]:
    """(label, site path) of the CV PDFs, as the CV page links them: this language's first,
    the other languages', the bilingual edition."""
    codes = sorted((c for c in site.config.codes if c in site.cv), key=lambda c: c != lang)
    out = [(site.config.language(c).name, urls.cv_pdf(c)) for c in codes]
    if "ko" in site.cv and "en" in site.cv:
        names = " + ".join(site.config.language(c).name for c in ("ko", "en"))
        out.append((names, urls.cv_pdf("ko-en")))
    return out


def short_cv_pdfs(site: Site, lang: str) -> list[tuple[str, str]]:
    """(label, site path) of the short CV PDFs (issue 18; none unless the build makes them)."""
    if not short_wanted(site):
        return []
    codes = sorted((c for c in site.config.codes if c in site.cv), key=lambda c: c != lang)
    return [(site.config.language(c).name, urls.cv_pdf(f"{c}-short")) for c in codes]


def header(
    site: Site, lang: str, url: urls.UrlBuilder, _: Gettext, latest: Latest | None = None
) -> list[str]:
    """The title, the summary and the header line: where the machine-readable versions are,
    the website and the date of its latest content (`updated` of the language's posts, or
    `latest`'s: the same, kept by the posts' keys, render/parts.py `Parts.updated`)."""
    language = site.config.language(lang)
    lines = [f"# {_one_line(language.title)}", ""]
    if language.description:
        lines += [f"> {_one_line(language.description)}", ""]
    versions = [
        f"[llms.txt]({url.absolute(urls.llms(lang))})",
        f"[llms-full.txt]({url.absolute(urls.llms(lang, full=True))})",
    ]
    api = [f"[posts.json]({url.absolute(urls.api(lang, 'posts'))})"]
    if lang in site.cv:
        api.insert(0, f"[cv.json]({url.absolute(urls.api(lang, 'cv'))})")
    versions.append(_("JSON API") + f" ({', '.join(api)})")
    pdfs = cv_pdfs(site, lang)
    if pdfs:
        links = ", ".join(f"[{_link_text(label)}]({url.absolute(p)})" for label, p in pdfs)
        versions.append(_("CV (PDF)") + f" ({links})")
    shorts = short_cv_pdfs(site, lang)
    if shorts:
        links = ", ".join(f"[{_link_text(label)}]({url.absolute(p)})" for label, p in shorts)
        versions.append(_("Short CV (PDF)") + f" ({links})")
    lines.append(_("Machine-readable versions") + f": {' · '.join(versions)}")
    source = _("Website") + f": {url.absolute(urls.home(lang))}"
    day = (latest or updated)(site.posts(lang))
    if day is not None:
        source += " · " + _("Updated") + f": {format_iso(day)}"
    lines += [
        source,
        "",
        _("This file is made from the same data as the website and the JSON API."),
    ]
    return lines


def _state_note(entry: Entry, lang: str, site_names: Names, _: Gettext) -> str:
    """How a post's text stands in this language, as its page's notice says; "" if reviewed or
    its original."""
    version = entry.versions[lang]
    if version.state == "missing":
        name = site_names.languages.get(version.doc.lang, version.doc.lang)
        return _("Not translated yet") + f" ({name})"
    if version.state == "draft":
        return _("Machine translation, not reviewed")
    if version.state == "stale":
        return _("Translation may be outdated")
    return ""


# ---------------------------------------------------------------- llms.txt


def post_line(entry: Entry, lang: str, url: urls.UrlBuilder, _: Gettext, names: Names) -> str:
    """A post's line in llms.txt: its title, link, description and translation state."""
    doc = entry.versions[lang].doc
    note = _link_text(doc.meta.description)
    state = _state_note(entry, lang, names, _)
    if state:
        note = f"{note} ({state})" if note else f"({state})"
    link = f"- [{_link_text(doc.meta.title)}]({url.absolute(urls.post(lang, entry.slug))})"
    return f"{link}: {note}" if note else link


def llms_txt(
    site: Site,
    lang: str,
    url: urls.UrlBuilder,
    _: Gettext,
    head: list[str] | None = None,
    lines_of_posts: Sequence[bytes] | None = None,
) -> bytes:
    """llms.txt of a language, UTF-8: the header (`head`: `header`'s, if made already), the
    CV's links, every post's line (`lines_of_posts`: each post's of `site.posts(lang)`, made
    already and encoded, else `post_line`'s), then Optional."""
    shared = names(site, lang)
    cv, api = _("CV"), _("JSON API")
    lines = list(head) if head is not None else header(site, lang, url, _)
    lines += ["", f"## {cv}", ""]
    if lang in site.cv:
        cv_page = urls.cv(lang) if site.config.home == "blog" else urls.home(lang)
        lines.append(f"- [{cv} (HTML)]({url.absolute(cv_page)})")
        pdf = _("CV (PDF)")
        for label, path in cv_pdfs(site, lang):
            lines.append(f"- [{pdf}: {_link_text(label)}]({url.absolute(path)})")
        short = _("Short CV (PDF)")
        for label, path in short_cv_pdfs(site, lang):
            lines.append(f"- [{short}: {_link_text(label)}]({url.absolute(path)})")
        lines.append(f"- [{cv} ({api})]({url.absolute(urls.api(lang, 'cv'))})")
    full = _("Full text")
    lines.append(f"- [{full}]({url.absolute(urls.llms(lang, full=True))})")
    lines += ["", "## " + _("Posts"), ""]
    if lines_of_posts is None:
        lines_of_posts = [post_line(e, lang, url, _, shared).encode() for e in site.posts(lang)]
    after = ["", f"## {OPTIONAL}", ""]
    index = _("Post index")
    after.append(f"- [{index} ({api})]({url.absolute(urls.api(lang, 'posts'))})")
    others = _("Other languages")
    for other in site.config.languages:
        if other.code != lang:
            link = url.absolute(urls.llms(other.code))
            after.append(f"- [{_link_text(other.name)}]({link}): {others}")
    return _stripped(b"\n", [*map(str.encode, lines), *lines_of_posts, *map(str.encode, after)])


# ---------------------------------------------------------------- llms-full.txt: posts


def full_post(
    entry: Entry,
    lang: str,
    url: urls.UrlBuilder,
    _: Gettext,
    names: Names,
    body_text: BodyText = post_body,
) -> str:
    """A post in llms-full.txt: its title and link, dates, tags, description, translation state
    and its whole Markdown (headings moved under the post's own)."""
    version = entry.versions[lang]
    doc = version.doc
    out = [f"### [{_link_text(doc.meta.title)}]({url.absolute(urls.post(lang, entry.slug))})", ""]
    facts = []
    if entry.date is not None:
        facts.append(_("Published") + f": {format_iso(entry.date)}")
    if entry.updated is not None:
        facts.append(_("Updated") + f": {format_iso(entry.updated)}")
    tags = [names.tags.get(slugify(t), t) for t in tags_of(entry, lang)]
    if tags:
        facts.append(_("Tags") + f": {', '.join(_one_line(t) for t in tags)}")
    if facts:
        out.append(" · ".join(facts))
    state = _state_note(entry, lang, names, _)
    if state:
        notice = {
            "missing": _(
                "This post has not been translated yet, so it is shown in its original language."
            ),
            "draft": _("This is a machine translation that has not been reviewed yet."),
            "stale": _("The original was updated after this translation."),
        }[version.state]
        original = ""
        if version.state != "missing" and entry.source_lang != lang:
            source_url = url.absolute(urls.post(entry.source_lang, entry.slug))
            original = " [" + _("Read the original") + f"]({source_url})"
        out += ["", f"**{state}**: {notice}{original}"]
    if doc.meta.description:  # (escaped as in llms.txt: `<b>` is text, not HTML)
        out += ["", f"> {_link_text(doc.meta.description)}"]
    page = url.absolute(urls.post(lang, entry.slug))
    body = body_text(doc.body, page)
    if body.strip():
        out += ["", body.rstrip()]
    return "\n".join(out)


# ---------------------------------------------------------------- llms-full.txt: the CV


def _marked(value: Any, _: Gettext) -> str:
    """A CV value, with the state the HTML page highlights: shown in the original language, or
    a machine translation not reviewed."""
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, MachineText):
            return " (" + _("Machine translation, not reviewed") + ")"
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, ForeignText):
            return " (" + _("Not translated yet") + ")"
    return ""


def _line(_: Gettext, *values: Any, prefix: str = "- ", sep: str = " · ") -> str:
    """One list line of CV values (None and empty skipped), marked when any value is."""
    parts = [v for v in values if v not in (None, "", [])]
    text = sep.join(_one_line(p) for p in parts)
    return f"{prefix}{text}{''.join(dict.fromkeys(_marked(p, _) for p in parts))}"


def _block(value: Any, _: Gettext) -> str:
    """A paragraph field (a summary, a lead): its paragraphs kept, marked when it must be."""
    return _paragraphs(value) + _marked(value, _)


def _section(title: str, lines: list[str]) -> str:
    return "\n".join([f"## {title}", "", *lines]).rstrip() if lines else ""


def cv_intro(cv: View, _: Gettext) -> str:
    """The name, title and summary (its paragraphs kept)."""
    name = _one_line(cv.name) + (f" ({_one_line(cv.nameKo)})" if cv.nameKo else "")
    out = [f"## {name}"]
    if cv.title:
        out += ["", _one_line(cv.title) + _marked(cv.title, _)]
    if cv.summary:
        out += ["", _block(cv.summary, _)]
    return "\n".join(out)


def cv_contact(cv: View, _: Gettext) -> str:
    c = cv.contact
    if c is None:
        return ""
    lines = []
    for label, value in (
        (_("Email"), c.email),
        (_("Phone"), c.phone),
        (_("Location"), c.location),
        ("LinkedIn", c.linkedin),
        ("GitHub", c.github),
    ):
        if value:
            lines.append(f"- {label}: {_one_line(value)}{_marked(value, _)}")
    return _section(_("Contact"), lines)


def cv_stats(cv: View, _: Gettext) -> str:
    lines = [_line(_, s.number, s.label, s.context) for s in cv.stats]
    return _section(_("Key numbers"), lines)


def cv_highlights(cv: View, _: Gettext) -> str:
    lines = [_line(_, h.label, h.text, sep=": ") for h in cv.highlights]
    return _section(_("Highlights"), lines)


def _breakdown(
    _: Gettext, problem: Any, cause: Any, fix: list[Any], result: list[Any], next: Any = None
) -> str:
    """Problem, cause, fix, result and next steps: a list, one labelled line each."""
    out = []
    if problem:
        out.append(_line(_, problem, prefix="- " + _("Problem") + ": "))
    if cause:
        out.append(_line(_, cause, prefix="- " + _("Cause") + ": "))
    out += [_line(_, f, prefix="- " + _("Fix") + ": ") for f in fix]
    out += [_line(_, r, prefix="- " + _("Result") + ": ") for r in result]
    if next:
        out.append(_line(_, next, prefix="- " + _("Next steps") + ": "))
    return "\n".join(out)


def _blocks(*blocks: str | list[str]) -> str:
    """Markdown blocks (a list: one block of lines) with a blank line between them."""
    texts = ["\n".join(b) if isinstance(b, list) else b for b in blocks]
    return "\n\n".join(t for t in texts if t)


def _links(links: list[Any]) -> list[str]:
    return [f"- [{_link_text(ln.label or ln.url)}]({ln.url})" for ln in links if ln.url]


def _cv_section(title: str, blocks: list[str]) -> str:
    return _blocks(f"## {title}", *blocks) if any(blocks) else ""


def cv_experience(cv: View, _: Gettext) -> str:
    jobs = []
    for job in cv.experience:
        intern = " (" + _("Internship") + ")" if job.internship else ""
        parts: list[str | list[str]] = [
            _line(_, job.position, job.company, prefix="### ") + intern,
            _line(_, job.period, job.location, prefix="").strip(),
            [_line(_, a) for a in job.achievements],
            _line(_, *job.tags, prefix=_("Technologies") + ": ", sep=", ") if job.tags else "",
        ]
        for d in job.details:
            b = d.breakdown
            parts += [
                _line(_, d.title, prefix="#### ") if d.title else "",
                _block(d.headline, _) if d.headline else "",
                _breakdown(_, b.problem, b.cause, b.fix, b.result) if b is not None else "",
            ]
        jobs.append(_blocks(*parts))
    return _cv_section(_("Experience"), jobs)


def cv_open_source(cv: View, _: Gettext) -> str:
    spot = cv.openSourceSpotlight
    items = []
    if spot is not None:
        head = _line(_, spot.eyebrow, spot.project, spot.role, spot.badge, prefix="### ")
        items.append(
            _blocks(
                head if head != "### " else "### " + _("Open source spotlight"),
                str(spot.projectUrl or ""),
                _block(spot.lead, _) if spot.lead else "",
                [_line(_, en.ref, en.text, en.url) for en in spot.entries],
                _links(spot.links),
            )
        )
    for o in cv.openSource:
        parts: list[str | list[str]] = [
            _line(_, o.project, o.repo, prefix="### "),
            _line(_, o.role, prefix="") if o.role else "",
            _block(o.summary, _) if o.summary else "",
        ]
        for c in o.contributions:
            parts += [
                _line(_, c.title, c.period, c.status, prefix="#### "),
                ", ".join(_one_line(r) for r in c.refs),
                _breakdown(_, c.problem, c.cause, c.fix, c.result, c.next),
                _links(c.links),
            ]
        items.append(_blocks(*parts))
    return _cv_section(_("Open source"), items)


def cv_projects(cv: View, _: Gettext) -> str:
    items = []
    for p in cv.projects:
        stack = _line(_, *p.stack, prefix=_("Technologies") + ": ", sep=", ") if p.stack else ""
        items.append(
            _blocks(
                _line(_, p.name, p.period, prefix="### "),
                _block(p.summary, _) if p.summary else "",
                [_line(_, h) for h in p.highlights],
                stack,
                _links(p.links),
            )
        )
    return _cv_section(_("Projects"), items)


def _gpa(value: Any, _: Gettext) -> str:
    """The GPA line, labelled unless the value carries its label (as the HTML page does)."""
    text = _one_line(value)
    if isinstance(value, str) and ("gpa" in text.lower() or _("GPA").lower() in text.lower()):
        return f"  - {text}{_marked(value, _)}"
    return "  - " + _("GPA") + f" {text}{_marked(value, _)}"


def cv_education(cv: View, _: Gettext) -> str:
    lines = []
    for ed in cv.education:
        lines.append(_line(_, ed.institution, ed.location, ed.period))
        lines += [_line(_, deg, prefix="  - ") for deg in ed.degrees]
        if ed.gpa is not None:
            lines.append(_gpa(ed.gpa, _))
    return _section(_("Education"), lines)


def cv_awards(cv: View, _: Gettext) -> str:
    lines = []
    for a in cv.awards:
        lines.append(_line(_, a.title, a.organization, a.year))
        if a.description:
            lines.append(_line(_, a.description, prefix="  "))
    return _section(_("Awards"), lines)


def cv_skills(cv: View, _: Gettext) -> str:
    lines = []
    for s in cv.skills:
        items = ", ".join(_one_line(i) for i in s.items)
        lines.append(f"- {_one_line(s.category)}: {items}{_marked([s.category, *s.items], _)}")
    return _section(_("Skills"), lines)


def cv_languages(cv: View, _: Gettext) -> str:
    return _section(_("Languages"), [_line(_, item) for item in cv.languages])


def cv_certifications(cv: View, _: Gettext) -> str:
    return _section(_("Certifications"), [_line(_, item) for item in cv.certifications])


CV_SECTIONS: tuple[Callable[[View, Gettext], str], ...] = (
    cv_intro,
    cv_contact,
    cv_stats,
    cv_highlights,
    cv_experience,
    cv_open_source,
    cv_projects,
    cv_education,
    cv_awards,
    cv_skills,
    cv_languages,
    cv_certifications,
)


def cv_parts(merged: MergedCv, _: Gettext) -> list[str]:
    """The CV's sections in llms-full.txt, in the CV page's order ("" for an empty one), after
    a note when some of its text is not translated or not reviewed."""
    from bipub.model.cv import CV  # (the CV model loads only when a CV is rendered)

    cv = cv_view(CV, merged.data, merged.fallbacks, merged.source_lang, merged.drafts)
    notes = []
    if merged.fallbacks:
        notes.append(
            _("Some text has not been translated yet and is shown in its original language.")
        )
    if merged.drafts:
        notes.append(_("Marked text is a machine translation that has not been reviewed yet."))
    parts = [section(cv, _) for section in CV_SECTIONS]
    if notes:
        parts[0] += "\n\n" + " ".join(notes)
    return parts


# ---------------------------------------------------------------- llms-full.txt


def llms_full_txt(
    site: Site,
    lang: str,
    url: urls.UrlBuilder,
    _: Gettext,
    body_text: BodyText | None = None,
    head: list[str] | None = None,
    texts_of_posts: Sequence[bytes | memoryview] | None = None,
) -> bytes:
    """llms-full.txt of a language, UTF-8: the header (`head`: `header`'s, if made already),
    the whole CV, every post's whole text (`texts_of_posts`: each post's of `site.posts(lang)`,
    encoded, made already; else `full_post`'s with `body_text`, what makes a post's Markdown:
    `post_body` or one that keeps its results).
    Joined as bytes: on a big site the file is tens of MB, and a build after an edit joins the
    posts' texts it kept, encoded."""
    if body_text is None:
        body_text = partial(post_body, raw_html=site.config.outputs.raw_html)
    shared = names(site, lang)
    head = ["\n".join(head if head is not None else header(site, lang, url, _))]
    merged = site.cv.get(lang)
    if merged is not None:
        head += cv_parts(merged, _)
    head.append("## " + _("Posts"))
    chunks = [p.encode("utf-8") for p in head if p]
    if texts_of_posts is None:
        texts_of_posts = [
            full_post(entry, lang, url, _, shared, body_text).encode("utf-8")
            for entry in site.posts(lang)
        ]
    return _joined(chunks, texts_of_posts)


def _joined(chunks: list[bytes], more: Sequence[bytes | memoryview] = ()) -> bytes:
    """`"\\n\\n".join(texts).rstrip() + "\\n"` of the texts `chunks` and then `more` (none
    empty: each post's, starting with its title; not looked at one by one) encode, those
    empty left out (`_stripped`)."""
    joined: list[bytes | memoryview] = [c for c in chunks if c]
    joined += more
    return _stripped(b"\n\n", joined)


def _stripped(sep: bytes, chunks: list[bytes | memoryview]) -> bytes:
    """`sep.join(texts).rstrip() + "\\n"` of the texts `chunks` encode, without decoding them:
    only the last one(s), which the strip reaches, are (str.rstrip strips Unicode spaces,
    bytes.rstrip only ASCII ones)."""
    tail = ""
    while chunks and not tail:  # (a text of spaces only: the strip reaches the one before)
        tail = bytes(chunks.pop()).decode("utf-8").rstrip()
    chunks.append(tail.encode("utf-8") + b"\n")  # (not after the join: a copy of it all)
    return sep.join(chunks)
