"""`bipub check` as a function: load → pair → parity → QA → severity. Renders nothing.

    analysis = analyze(root, langs=["en"], only=["posts/"], strict=False)
    analysis.result.findings   # final findings, sorted by file and line
    analysis.result.coverage   # lang → kind → counts

`analyze` also keeps what `bipub review` needs: the units by (lang, key), the status files with
NFC keys, and which status files could not be read (those are never rewritten).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from pathlib import Path

from bipub import schedule
from bipub.cache import BuildCache
from bipub.check import coverage as cov
from bipub.check import qa
from bipub.check.anchors import check_anchors
from bipub.check.findings import (
    KNOWN_CODES,
    PAIR_CODES,
    SITE_CODES,
    Finding,
    WaitingDraft,
    drafted_from,
    drafting_said,
)
from bipub.check.glossary import Glossary, load_glossary
from bipub.check.page_links import check_page_links, site_matched
from bipub.check.parity import (
    ParityResult,
    StatusView,
    check_documents,
    check_units,
    normalize_status,
    stale_diff,
    ui_units,
    word_diff,
)
from bipub.check.result import CheckResult
from bipub.check.severity import (
    apply_policy,
    inline_problems,
    parse_inline,
    validate_options,
)
from bipub.code_stamp import CODE
from bipub.config import SiteConfig
from bipub.diagnostics import Collector, ConfigError, Diagnostic, Severity
from bipub.load.content import Content
from bipub.pair.page_links import PageLinks
from bipub.pair.site import Site
from bipub.pair.units import Unit, nfc, text_hash
from bipub.pipeline import build_now, check_langs, load, pair
from bipub.project import Project
from bipub.render.pdf.links import short_wanted
from bipub.scheduled_links import links_to_scheduled, now_scheduled

THEME_LOCALES = Path(__file__).resolve().parent.parent / "theme" / "locales"


@dataclass
class Analysis:
    root: Path
    config: SiteConfig
    site: Site
    units: dict[tuple[str, str], Unit]  # (lang, NFC key) → unit, every language
    status: dict[str, StatusView]
    broken_status: set[str]  # languages whose status file has errors (never rewrite those)
    parity: ParityResult
    glossary: Glossary
    result: CheckResult
    by_unit: dict[tuple[str, str], list[Finding]] = field(default_factory=dict)
    content: Content | None = None  # the loaded files (review writes adopted drafts with them)
    standing: dict[tuple[str, str], str] = field(default_factory=dict)  # check/coverage.py
    pages: PageLinks | None = None  # the site's pages per language (check/page_links.py)


def _lang_of(file: str | None, langs: Sequence[str]) -> str | None:
    if not file:
        return None
    parts = file.split("/")
    if len(parts) > 1 and parts[0] == "content" and parts[1] in langs:
        return parts[1]
    if parts[0] == "status" and len(parts) == 2 and parts[1].removesuffix(".yaml") in langs:
        return parts[1].removesuffix(".yaml")
    return None


def _pipeline_findings(
    diagnostics: Sequence[Diagnostic], langs: Sequence[str], skip_files: set[str]
) -> list[Finding]:
    out: list[Finding] = []
    for d in diagnostics:
        if d.code in ("source-lang", "missing-source") and d.file in skip_files:
            continue  # reported as an orphan document
        if d.severity is not Severity.ERROR and d.code not in (
            *PAIR_CODES,
            *SITE_CODES,
            "orphan",
            "cache-not-saved",
        ):
            continue  # build warnings that are not about translation (tags, files…)
        key = nfc(d.key) if d.key and d.key.startswith("cv:") else d.key
        out.append(
            Finding(
                d.code,
                d.lang or _lang_of(d.file, langs),
                key,
                d.file,
                d.line,
                _without_key(d.message, d.key, key),
                d.severity,
            )
        )
    return out


def _without_key(message: str, *keys: str | None) -> str:
    """A build diagnostic names its key at the head of its message (the build prints no key);
    a finding carries the key apart, and every report prints it once, before the message."""
    for key in keys:
        if key and message.startswith(f"{key}: "):
            return message[len(key) + 2 :]
    return message


def rules_fingerprint(files: Sequence[Path]) -> str:
    """One hash of the QA rules' source files (bipub.check.qa.RULE_FILES): any change to any of
    them gives a new QA cache salt, so no result of the old rules is reused."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


class QaCache:
    """QA results on disk (.bipub-cache/check-qa.json), keyed by the texts compared, the kind
    of unit, the languages, the glossary and the QA code itself: a warm `bipub check` parses
    only what changed."""

    NAME = "check-qa.json"

    def __init__(self, root: Path | None, glossary: Glossary, base_url: str = "") -> None:
        self.path = root / ".bipub-cache" / self.NAME if root is not None else None
        code = rules_fingerprint(qa.RULE_FILES)
        self.salt = f"{CODE}\0{code}\0{glossary.fingerprint()}\0{base_url}\0"
        self.entries: dict[str, list[list[str]]] = {}
        self.used: set[str] = set()
        self.dirty = False
        if self.path is not None and self.path.is_file():
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
                if isinstance(data, dict) and data.get("salt") == self.salt:
                    entries = data.get("entries")
                    if isinstance(entries, dict):
                        self.entries = entries
            except (OSError, ValueError):
                self.entries = {}

    def key(self, kind: str, unit: Unit) -> str:
        text = f"{kind}\0{unit.source_lang}\0{unit.target_lang}\0{unit.source}\0{unit.translation}"
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]

    def save(self) -> str | None:
        """Write the cache; a problem (disk full, no permission) is returned as a message: the
        check's result is the same, but the next check analyses every unit again."""
        if self.path is None or not self.dirty:
            return None
        keep = {k: v for k, v in self.entries.items() if k in self.used}
        if len(self.entries) < 200_000:
            keep = self.entries
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(f".{self.path.name}.tmp")
            tmp.write_text(
                json.dumps({"salt": self.salt, "entries": keep}, ensure_ascii=False),
                encoding="utf-8",
            )
            tmp.replace(self.path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                self.path.with_name(f".{self.path.name}.tmp").unlink(missing_ok=True)
            return (
                f"the QA cache {self.path} could not be saved ({exc.strerror or exc}): the next "
                "check analyses every unit again"
            )
        return None


def _qa(
    unit: Unit,
    on_draft: bool,
    glossary: Glossary,
    cache: QaCache | None = None,
    pages: PageLinks | None = None,
) -> list[Finding]:
    """QA of one unit: the rules on its texts (cached), then its links to the site's pages in
    another language (`pages`: not cached, they depend on the site; warnings)."""
    assert unit.translation is not None
    key = nfc(unit.key)
    kind = qa.unit_kind(key)
    problems: list[list[str]] | None = None
    digest = ""
    if cache is not None:
        digest = cache.key(kind, unit)
        cache.used.add(digest)
        problems = cache.entries.get(digest)
    if problems is None:
        base_url = pages.base if pages is not None else ""
        langs = (unit.source_lang, unit.target_lang)
        found = qa.unit_problems(unit.source, unit.translation, kind, langs, glossary, base_url)
        problems = [[code, msg] for code, msg in found]
        if cache is not None:
            cache.entries[digest] = problems
            cache.dirty = True
    advisory = []
    if pages is not None and kind != "ui":
        pairs = [(code, msg) for code, msg in problems]
        problems = [[c, m] for c, m in site_matched(pairs, unit, unit.translation, pages)]
        advisory = check_page_links(unit.translation, unit.target_lang, pages)
    return [
        _unit_finding(unit, code, problem, on_draft, advisory=n >= len(problems))
        for n, (code, problem) in enumerate([*problems, *(["links", m] for m in advisory)])
    ]


def _unit_finding(
    unit: Unit, code: str, message: str, on_draft: bool, *, advisory: bool = False
) -> Finding:
    """A QA finding of a translated unit, at its translation's line."""
    return Finding(
        code,
        unit.target_lang,
        nfc(unit.key),
        unit.translation_file,
        unit.translation_line,
        message,
        source=unit.source,
        translation=unit.translation,
        on_draft=on_draft,
        source_file=unit.source_file,
        source_line=unit.source_line,
        advisory=advisory,
    )


class _Lines:
    """File lines, read once, for YAML-comment inline ignores."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache: dict[str, list[str]] = {}

    def around(self, rel: str | None, line: int | None) -> str:
        if not rel or not line:
            return ""
        if rel not in self.cache:
            path = self.root / rel
            try:
                self.cache[rel] = path.read_text(encoding="utf-8").split("\n")
            except (OSError, UnicodeDecodeError):
                self.cache[rel] = []
        lines = self.cache[rel]
        picked = [lines[i] for i in (line - 2, line - 1) if 0 <= i < len(lines)]
        return "\n".join(p[p.index("#") :] if "#" in p else "" for p in picked)


def _inline_ignores(
    units: dict[tuple[str, str], Unit], wanted: set[tuple[str, str]], lines: _Lines
) -> tuple[dict[tuple[str | None, str | None], dict[str, str]], list[Finding]]:
    out: dict[tuple[str | None, str | None], dict[str, str]] = {}
    problems: list[Finding] = []
    for lang, key in sorted(wanted):
        unit = units.get((lang, key))
        if unit is None:
            continue
        if ":body#" in key:
            text = unit.source + "\n" + (unit.translation or "")
        else:
            text = lines.around(unit.translation_file, unit.translation_line) + "\n"
            text += lines.around(unit.source_file, unit.source_line)
        if "bipub-ignore" not in text:
            continue
        markers = parse_inline(text)
        for problem in inline_problems(markers):
            problems.append(
                Finding(
                    "ignore",
                    lang,
                    key,
                    unit.translation_file or unit.source_file,
                    unit.translation_line or unit.source_line,
                    problem,
                )
            )
        codes = {c: m.reason for m in markers if m.reason for c in m.codes}
        if codes:
            out[(lang, key)] = codes
    return out, problems


def _matches(f: Finding | Unit, only: Sequence[str]) -> bool:
    if not only:
        return True
    if isinstance(f, Unit):
        key, files = nfc(f.key), [f.source_file, f.translation_file]
    else:
        key, files = f.key or "", [f.file, f.source_file]
    for pattern in only:
        if key.startswith(pattern):
            return True
        if any(p and (fnmatchcase(p, pattern) or p.startswith(pattern)) for p in files):
            return True
    return False


def _only_named(
    root: Path, only: Sequence[str], units: Sequence[Unit], findings: Sequence[Finding]
) -> None:
    """Each `--only` names some unit, finding or file of the project: a typo checked nothing
    and said `0 errors, 0 warnings`, exit 0. ConfigError (exit 2) naming the pattern."""
    missing = [
        p
        for p in only
        if not any(_matches(u, [p]) for u in units)
        and not any(_matches(f, [p]) for f in findings)
        and not (root / p).exists()
    ]
    if missing:
        raise ConfigError(
            Diagnostic(None, None, "usage", f"--only {p}: matches no unit, file or finding")
            for p in missing
        )


def analyze(
    root: Path,
    *,
    langs: Sequence[str] = (),
    only: Sequence[str] = (),
    strict: bool = False,
) -> Analysis:
    """Run every check. ConfigError (exit 2) for a bad bipub.yaml or --lang."""
    project = Project(root)
    collector = Collector()
    build_cache = BuildCache.load(project.cache)  # parsed documents shared with `bipub build`
    config, content = load(project, collector, build_cache)
    if not collector.errors:
        build_cache.save(project.cache)
    validate_options(root, config.check)
    check_langs(config, langs)
    site = pair(project, config, content, collector)
    # links to the posts a build now would hold back (pairing here publishes every post), true
    # in the window of instants around "now" that holds them back (the result's cache reads it)
    now = build_now(config, future=False)
    collector.extend(links_to_scheduled(site, now_scheduled(site, now)))
    window = schedule.window((e.publish_at for e in site.entries if e.publish_at is not None), now)
    glossary = load_glossary(root, config.codes, collector)
    ui = ui_units(
        [(THEME_LOCALES, "(bipub theme) locales"), (project.locales, "locales")],
        config.codes,
        collector,
        pot=project.locales / "messages.pot",
    )
    docs = check_documents(site, content)
    orphan_files = {f.file for f in docs.findings if f.key and ":" not in f.key and f.file}

    status: dict[str, StatusView] = {}
    status_problems: list[Finding] = []
    for lang, sf in site.status.items():
        view, problems = normalize_status(sf)
        status[lang] = view
        status_problems.extend(problems)
    broken = {
        lang
        for lang, sf in site.status.items()
        if any(d.file == sf.rel and d.severity is Severity.ERROR for d in collector)
    } | {f.lang for f in status_problems if f.lang}

    units: dict[tuple[str, str], Unit] = {}
    ordered: list[Unit] = []
    for unit in [*site.units, *ui.units]:
        key = nfc(unit.key)
        if any(key.startswith(p) for p in docs.excluded):
            continue
        ordered.append(unit)
        units.setdefault((unit.target_lang, key), unit)
    allow = tuple(config.check.allow_untranslated) + tuple(glossary.keep)
    parity = check_units(ordered, status, allow, collapsed=docs.collapsed, fuzzy=ui.fuzzy)

    selected = [
        u
        for (lang, _), u in sorted(units.items())
        if (not langs or lang in langs) and _matches(u, only)
    ]
    qa_found: list[Finding] = []
    cache = QaCache(root, glossary, config.base_url)
    pages = PageLinks(site, config.codes, config.base_url, short_wanted)
    for unit in selected:
        if unit.translation is None:
            continue
        ident = (unit.target_lang, nfc(unit.key))
        on_draft = ident in parity.drafts
        found = _qa(unit, on_draft, glossary, cache, pages)
        if found and parity.states.get(ident) == "stale":
            # The source changed: a problem counts only if the translation also has it against
            # the source it was made from (the change itself is the `stale` finding).
            st_view = status.get(unit.target_lang)
            rec = st_view.records.get(ident[1]) if st_view is not None else None
            if rec is not None and rec.source:
                before = {
                    f.code
                    for f in _qa(replace(unit, source=rec.source), on_draft, glossary, cache, pages)
                }
                found = [f for f in found if f.code in before]
            else:
                found = [replace(f, on_draft=True) for f in found]
        qa_found.extend(found)
    for unit, message in check_anchors(site, selected):  # (document-level: check/anchors.py)
        on_draft = (unit.target_lang, nfc(unit.key)) in parity.drafts
        qa_found.append(_unit_finding(unit, "links", message, on_draft))
    problem = cache.save()
    if problem is not None:
        collector.warning(None, None, "cache-not-saved", problem)

    # the records of a file that did not load are not orphans (its errors are reported)
    unread = (
        *(f"{kind}/{name}:" for kind, name in content.failed),
        *(("cv:",) if content.failed_cv else ()),
    )
    raw = [
        *_pipeline_findings(collector.items, config.codes, orphan_files),
        *status_problems,
        *docs.findings,
        *ui.findings,
        *(
            _with_waiting(f, units, status, glossary, cache, pages)
            for f in parity.findings
            if not (f.code == "orphan" and f.key and f.key.startswith(unread))
        ),
        *qa_found,
    ]
    _only_named(root, only, ordered, raw)
    raw = [
        f
        for f in raw
        if (f.code not in KNOWN_CODES and f.severity is Severity.ERROR)  # always shown
        or ((not langs or f.lang in langs) and _matches(f, only))
    ]
    wanted: set[tuple[str, str]] = set()
    for f in raw:
        if f.lang and f.key:
            wanted.add((f.lang, f.key))
    inline, inline_findings = _inline_ignores(units, wanted, _Lines(root))
    outcome = apply_policy([*raw, *inline_findings], config.check, strict=strict, inline=inline)
    findings = sorted(_dedupe(outcome.findings), key=Finding.sort_key)

    by_unit: dict[tuple[str, str], list[Finding]] = {}
    for f in findings:
        if f.lang and f.key:
            by_unit.setdefault((f.lang, f.key), []).append(f)
    parts = cov.standings(selected, parity, by_unit)
    coverage = cov.tally(parts, config.codes, langs)
    result = CheckResult(findings, outcome.ignored, coverage, [*(langs or config.codes)], window)
    analysis = Analysis(root, config, site, units, status, broken, parity, glossary, result)
    analysis.content = content
    analysis.by_unit = by_unit
    analysis.standing = parts
    analysis.pages = pages
    return analysis


def _with_waiting(
    f: Finding,
    units: dict[tuple[str, str], Unit],
    status: dict[str, StatusView],
    glossary: Glossary,
    cache: QaCache,
    pages: PageLinks | None = None,
) -> Finding:
    """A `draft` finding of a draft waiting beside a translation, with what a reviewer needs:
    the draft, its word diff against the translation, the source diff, its QA findings."""
    if f.code != "draft" or not f.lang or not f.key:
        return f
    view = status.get(f.lang)
    rec = view.records.get(f.key) if view is not None else None
    unit = units.get((f.lang, f.key))
    if rec is None or rec.draft is None or unit is None:
        return f
    qa = _qa(replace(unit, translation=rec.draft), True, glossary, cache, pages)
    changed = rec.source_hash != text_hash(unit.source)
    waiting = WaitingDraft(
        rec.draft,
        rec.draft_source_hash == text_hash(unit.source),
        word_diff(unit.translation or "", rec.draft),
        stale_diff(rec.source, unit.source, unit.source_file, unit.source_line)
        if changed and rec.source
        else None,
        (
            *drafting_said(rec.draft_findings, drafted_from(unit, rec.draft_source_hash)),
            *((q.code, q.message) for q in qa),
        ),
    )
    return replace(f, waiting=waiting)


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen: set[tuple[object, ...]] = set()
    out: list[Finding] = []
    for f in findings:
        ident = (f.code, f.lang, f.key, f.file, f.line, f.message)
        if ident not in seen:
            seen.add(ident)
            out.append(f)
    return out


def qa_findings(analysis: Analysis, unit: Unit, *, on_draft: bool) -> list[Finding]:
    """QA findings (default severities) of one unit against its current source."""
    return _qa(unit, on_draft, analysis.glossary, pages=analysis.pages)


def inline_ignores_for(
    analysis: Analysis, idents: Sequence[tuple[str, str]]
) -> dict[tuple[str | None, str | None], dict[str, str]]:
    inline, _ = _inline_ignores(analysis.units, set(idents), _Lines(analysis.root))
    return inline
