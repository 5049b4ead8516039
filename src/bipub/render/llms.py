"""llms.txt and llms-full.txt (https://llmstxt.org): H1 title, blockquote summary, H2 sections of
`- [name](url): notes` links; llms-full.txt carries the whole CV as structured plain text and the
post index. Generated from the same paired data as the HTML site and the JSON API.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bipub.pair.site import Entry, Site
from bipub.render import urls
from bipub.render.locale_format import format_iso

LABELS = {
    "ko": {
        "cv": "이력서",
        "cv_html": "이력서 (HTML)",
        "cv_json": "이력서 (JSON API)",
        "cv_pdf": "이력서 (PDF)",
        "posts": "글",
        "posts_json": "글 목록 (JSON API)",
        "full": "전체 텍스트",
        "other": "다른 언어",
        "optional": "Optional",
        "generated": "이 파일은 웹사이트 및 JSON API와 같은 데이터에서 생성되었습니다.",
        "untranslated": "아직 번역되지 않음",
        "draft": "기계 번역, 검토 전",
        "stale": "번역이 원문보다 오래됨",
    },
    "en": {
        "cv": "CV",
        "cv_html": "CV (HTML)",
        "cv_json": "CV (JSON API)",
        "cv_pdf": "CV (PDF)",
        "posts": "Posts",
        "posts_json": "Post index (JSON API)",
        "full": "Full text",
        "other": "Other languages",
        "optional": "Optional",
        "generated": "This file is generated from the same data as the website and the JSON API.",
        "untranslated": "not translated yet",
        "draft": "machine translation, not reviewed",
        "stale": "translation older than the original",
    },
}


def _labels(lang: str) -> dict[str, str]:
    return LABELS.get(lang.split("-")[0], LABELS["en"])


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())


_MARKDOWN_SPECIAL = str.maketrans({c: "\\" + c for c in "\\[]<>"})
_HAS_SPECIAL = re.compile(r"[\\\[\]<>]")


def _link_text(text: str | None) -> str:
    """A title or description in a Markdown list line: one line, and `]`, `[`, `<`, `>` and `\\`
    escaped, so `x](javascript:…)` or `<script>` cannot make a link or HTML of its own."""
    line = _one_line(text)
    if _HAS_SPECIAL.search(line) is None:  # the usual case: translate() is slow on Korean text
        return line
    return line.translate(_MARKDOWN_SPECIAL)


@dataclass(frozen=True)
class Lines:
    """A text file as its lines, with the line of each post (by entry key); `text` joins them."""

    lines: list[str]
    posts: dict[str, int]

    def text(self) -> str:
        return "\n".join(self.lines).rstrip() + "\n"


def llms_txt(site: Site, lang: str, url: urls.UrlBuilder, *, root: bool = False) -> str:
    return llms_lines(site, lang, url, root=root).text()


def llms_lines(site: Site, lang: str, url: urls.UrlBuilder, *, root: bool = False) -> Lines:
    cfg = site.config
    language = cfg.language(lang)
    t = _labels(lang)
    lines = [f"# {language.title}", ""]
    if language.description:
        lines += [f"> {_one_line(language.description)}", ""]
    lines += [t["generated"], ""]
    lines += [f"## {t['cv']}", ""]
    if lang in site.cv:
        lines.append(f"- [{t['cv_html']}]({url.absolute(urls.home(lang))})")
        lines.append(f"- [{t['cv_json']}]({url.absolute(urls.api(lang, 'cv'))})")
    lines.append(f"- [{t['full']}]({url.absolute(urls.llms(lang, full=True))})")
    lines += ["", f"## {t['posts']}", ""]
    posts = {}
    for entry in site.posts(lang):
        posts[entry.key] = len(lines)
        lines.append(post_line(entry, lang, url))
    lines += ["", f"## {t['optional']}", ""]
    lines.append(f"- [{t['posts_json']}]({url.absolute(urls.api(lang, 'posts'))})")
    for other in cfg.languages:
        if other.code != lang:
            lines.append(f"- [{other.name}]({url.absolute(urls.llms(other.code))}): {t['other']}")
    return Lines(lines, posts)


def post_line(entry: Entry, lang: str, url: urls.UrlBuilder) -> str:
    """A post's line in llms.txt."""
    t = _labels(lang)
    version = entry.versions[lang]
    doc = version.doc
    note = _link_text(doc.meta.description)
    if version.state in ("missing", "draft", "stale"):
        note = f"{note} ({t['untranslated' if version.state == 'missing' else version.state]})"
    return f"- [{_link_text(doc.meta.title)}]({url.absolute(urls.post(lang, entry.slug))}): {note}"


def _section(out: list[str], title: str) -> None:
    out += ["", f"## {title}", ""]


def _join(*parts: Any) -> str:
    return " · ".join(str(p) for p in parts if p not in (None, "", []))


def llms_full_txt(site: Site, lang: str, url: urls.UrlBuilder) -> str:
    return llms_full_lines(site, lang, url).text()


def llms_full_lines(site: Site, lang: str, url: urls.UrlBuilder) -> Lines:
    cfg = site.config
    language = cfg.language(lang)
    t = _labels(lang)
    out = [f"# {language.title}", ""]
    if language.description:
        out += [f"> {_one_line(language.description)}", ""]
    out.append(t["generated"])
    out.append(f"CV JSON: {url.absolute(urls.api(lang, 'cv'))}")
    merged = site.cv.get(lang)
    if merged is not None:
        cv = merged.data
        out += ["", f"## {cv.get('name')}" + (f" ({cv['nameKo']})" if cv.get("nameKo") else "")]
        if cv.get("title"):
            out += ["", str(cv["title"])]
        if cv.get("summary"):
            _section(out, "Summary")
            out.append(_one_line(cv["summary"]))
        contact = cv.get("contact") or {}
        if contact:
            _section(out, "Contact")
            for k in ("email", "phone", "location", "linkedin", "github"):
                if contact.get(k):
                    out.append(f"- {k}: {contact[k]}")
        if cv.get("stats"):
            _section(out, "Stats")
            for s in cv["stats"]:
                out.append(f"- {_join(s.get('number'), s.get('label'), s.get('context'))}")
        if cv.get("highlights"):
            _section(out, "Highlights")
            for h in cv["highlights"]:
                out.append(f"- {_join(h.get('label'), h.get('text'))}")
        if cv.get("experience"):
            _section(out, "Experience")
            for e in cv["experience"]:
                intern = " (internship)" if e.get("internship") else ""
                out += [
                    "",
                    f"### {_join(e.get('position'), e.get('company'))}{intern}",
                    _join(e.get("period"), e.get("location")),
                ]
                for a in e.get("achievements", []):
                    out.append(f"- {a}")
                if e.get("tags"):
                    out.append(f"Tags: {', '.join(e['tags'])}")
                for d in e.get("details", []):
                    out += ["", f"#### {d.get('title', '')}"]
                    if d.get("headline"):
                        out.append(str(d["headline"]))
                    b = d.get("breakdown") or {}
                    if b.get("problem"):
                        out.append(f"Problem: {_one_line(b['problem'])}")
                    if b.get("cause"):
                        out.append(f"Cause: {_one_line(b['cause'])}")
                    for f in b.get("fix", []):
                        out.append(f"Fix: {_one_line(f)}")
                    for r in b.get("result", []):
                        out.append(f"Result: {_one_line(r)}")
        spot = cv.get("openSourceSpotlight")
        if spot or cv.get("openSource"):
            _section(out, "Open source")
        if spot:
            out.append(
                _join(spot.get("eyebrow"), spot.get("project"), spot.get("role"), spot.get("badge"))
            )
            if spot.get("projectUrl"):
                out.append(str(spot["projectUrl"]))
            if spot.get("lead"):
                out.append(_one_line(spot["lead"]))
            for en in spot.get("entries", []):
                out.append(f"- {_join(en.get('ref'), en.get('text'), en.get('url'))}")
            for ln in spot.get("links", []):
                out.append(f"- [{ln.get('label')}]({ln.get('url')})")
        for o in cv.get("openSource", []):
            out += ["", f"### {_join(o.get('project'), o.get('repo'))}"]
            if o.get("role"):
                out.append(f"Role: {o['role']}")
            if o.get("summary"):
                out.append(_one_line(o["summary"]))
            for c in o.get("contributions", []):
                out += ["", f"#### {_join(c.get('title'), c.get('period'), c.get('status'))}"]
                if c.get("refs"):
                    out.append(f"Refs: {', '.join(c['refs'])}")
                for label, k in (("Problem", "problem"), ("Cause", "cause")):
                    if c.get(k):
                        out.append(f"{label}: {_one_line(c[k])}")
                for f in c.get("fix", []):
                    out.append(f"Fix: {_one_line(f)}")
                for r in c.get("result", []):
                    out.append(f"Result: {_one_line(r)}")
                if c.get("next"):
                    out.append(f"Next: {_one_line(c['next'])}")
                for ln in c.get("links", []):
                    out.append(f"- [{ln.get('label')}]({ln.get('url')})")
        if cv.get("projects"):
            _section(out, "Projects")
            for p in cv["projects"]:
                out += ["", f"### {_join(p.get('name'), p.get('period'))}"]
                if p.get("summary"):
                    out.append(_one_line(p["summary"]))
                for h in p.get("highlights", []):
                    out.append(f"- {h}")
                if p.get("stack"):
                    out.append(f"Stack: {', '.join(p['stack'])}")
                for ln in p.get("links", []):
                    out.append(f"- [{ln.get('label')}]({ln.get('url')})")
        if cv.get("education"):
            _section(out, "Education")
            for ed in cv["education"]:
                out.append(
                    f"- {_join(ed.get('institution'), ed.get('location'), ed.get('period'))}"
                )
                for deg in ed.get("degrees", []):
                    out.append(f"  - {deg}")
                if ed.get("gpa") is not None:
                    out.append(f"  - GPA {ed['gpa']}")
        if cv.get("awards"):
            _section(out, "Awards")
            for a in cv["awards"]:
                out.append(f"- {_join(a.get('title'), a.get('organization'), a.get('year'))}")
                if a.get("description"):
                    out.append(f"  {_one_line(a['description'])}")
        if cv.get("skills"):
            _section(out, "Skills")
            for s in cv["skills"]:
                out.append(f"- {s.get('category')}: {', '.join(s.get('items', []))}")
        if cv.get("languages") or cv.get("certifications"):
            _section(out, "Languages and certifications")
            for item in [*cv.get("languages", []), *cv.get("certifications", [])]:
                out.append(f"- {item}")
    _section(out, t["posts"])
    posts = {}
    for entry in site.posts(lang):
        posts[entry.key] = len(out)
        out.append(full_post_line(entry, lang, url))
    return Lines(out, posts)


def full_post_line(entry: Entry, lang: str, url: urls.UrlBuilder) -> str:
    """A post's line in llms-full.txt."""
    version = entry.versions[lang]
    doc = version.doc
    date = format_iso(entry.date) if entry.date else ""
    return (
        f"- [{_link_text(doc.meta.title)}]({url.absolute(urls.post(lang, entry.slug))}) "
        f"({date}, {doc.lang}, {version.state}): {_link_text(doc.meta.description)}"
    )
