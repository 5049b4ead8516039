"""Output formats of `bipub check`: text, json, github, html. Each is a function of the result.

- text: findings grouped by file (coloured on a terminal; a file's missing units on one line
  with their count unless verbose), then a coverage table per language and content kind (the
  parts of check/coverage.py), then a one-line total;
- json: `{"version": 1, "findings": [...], "summary": {...}}` (findings.schema.json);
- github: workflow commands (`::error file=…,line=…,title=…::message`), one per finding;
- html: a standalone reviewer report (no external assets): coverage bars, then every unit that is
  not clean with source and translation side by side and the source diff of stale units (prose
  in proportional type with word-break: keep-all, code in monospace); a few
  lines of inline JS add a filter by finding code (without JS everything is shown). A machine
  draft waiting beside a translation is shown with its word diff and its QA findings.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable
from html import escape
from typing import IO

from bipub.check.coverage import done as done_units
from bipub.check.coverage import left_out
from bipub.check.findings import JSON_VERSION, Finding, WaitingDraft
from bipub.check.result import COVERAGE_PARTS, CheckResult
from bipub.diagnostics import Severity

FORMATS = ("text", "json", "github", "html")


def total_line(result: CheckResult) -> str:
    e, w = len(result.errors), len(result.warnings)
    text = f"{e} error{'s' if e != 1 else ''}, {w} warning{'s' if w != 1 else ''}"
    if result.ignored:
        text += f" ({len(result.ignored)} ignored)"
    return text


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "–"


# --------------------------------------------------------------------------- text


_ANSI = {"bold": "1", "red": "31", "yellow": "33", "green": "32", "dim": "2"}


def _paint(text: str, style: str, color: bool) -> str:
    return f"\x1b[{_ANSI[style]}m{text}\x1b[0m" if color else text


def diff_colour(line: str) -> str | None:
    """The colour of a line of a finding's source diff: green added, red removed, else None."""
    if line.startswith("+") and not line.startswith("+++"):
        return "green"
    if line.startswith("-") and not line.startswith("---"):
        return "red"
    return None


def waiting_lines(
    w: WaitingDraft,
    color: bool,
    indent: str = "  ",
    head: Callable[[str], str] | None = None,
) -> list[str]:
    """A waiting draft for a reader: its text, its word diff against the present translation
    ([-removed-]{+added+}) and its QA findings (`review show`, `review -i`, the text report).
    `head` formats the three headings (default: bold, with a colon)."""
    if head is None:

        def head(title: str) -> str:
            return _paint(title + ":", "bold", color)

    made = (
        "made from the current source"
        if w.current
        else "made from an older source: bipub translate drafts it again"
    )
    lines = [head(f"waiting machine draft ({made})")]
    lines.extend(indent + line for line in w.text.split("\n"))
    lines.append(head("word diff, translation → draft"))
    diff = "".join(
        t
        if op == "="
        else _paint(f"[-{t}-]", "red", color)
        if op == "-"
        else _paint(f"{{+{t}+}}", "green", color)
        for op, t in w.word_diff
    )
    lines.extend(indent + line for line in diff.split("\n"))
    if w.qa:
        lines.append(head("QA of the draft"))
        lines.extend(f"{indent}{_paint(code, 'yellow', color)}: {msg}" for code, msg in w.qa)
    else:
        lines.append(head("QA of the draft: no findings"))
    return lines


def _finding_line(f: Finding, color: bool) -> str:
    style = "red" if f.severity is Severity.ERROR else "yellow"
    line = str(f.line) if f.line else "-"
    lang = f"[{f.lang}] " if f.lang else ""
    key = f"{f.key}: " if f.key else ""
    return (
        f"  {line:>5}  {_paint(f'{f.severity.value:<7}', style, color)} "
        f"{_paint(f.code, 'bold', color)}  {lang}{key}{f.message}"
    )


def _grouped_missing(items: list[Finding], color: bool) -> str:
    """Several `missing` findings of one file and language on one line, with their count."""
    f = items[0]
    style = "red" if f.severity is Severity.ERROR else "yellow"
    lines = sorted({x.line for x in items if x.line})
    where = f", lines {lines[0]}–{lines[-1]}" if len(lines) > 1 else ""
    return (
        f"  {f.line or '-':>5}  {_paint(f'{f.severity.value:<7}', style, color)} "
        f"{_paint(f.code, 'bold', color)}  [{f.lang}] {len(items)} units have no {f.lang} "
        f"translation{where} (-v lists every key)"
    )


def _file_lines(items: list[Finding], color: bool, verbose: bool) -> list[str]:
    """A file's findings as report lines: without `verbose`, the `missing` findings of each
    language and severity are one line with their count."""
    out: list[str] = []
    grouped: dict[tuple[str | None, Severity], list[Finding]] = defaultdict(list)
    if not verbose:
        for f in items:
            if f.code == "missing":  # (a missing unit has no diff and no waiting draft)
                grouped[(f.lang, f.severity)].append(f)
    done: set[tuple[str | None, Severity]] = set()
    for f in items:
        group = grouped.get((f.lang, f.severity)) if f.code == "missing" else None
        if group is not None and len(group) > 1:
            if (f.lang, f.severity) not in done:
                done.add((f.lang, f.severity))
                out.append(_grouped_missing(group, color))
            continue
        out.append(_finding_line(f, color))
        if f.diff:
            for dl in f.diff.split("\n"):
                out.append(f"         {_paint(dl, diff_colour(dl) or 'dim', color)}")
        if f.waiting is not None:
            out.extend("         " + wl for wl in waiting_lines(f.waiting, color))
    return out


def write_text(
    result: CheckResult,
    out: IO[str],
    *,
    color: bool,
    width: int | None = None,
    verbose: bool = False,
) -> None:
    """Findings as plain lines (ANSI colours on a terminal) — written directly, since a big
    site has tens of thousands of them — then the coverage table (rich) and the total.

    Without `verbose`, a file's `missing` units are one line per language with their count,
    and a file whose report is that one line is printed as `file:line  …` on one line (a blog
    with 95 untranslated posts gets 95 lines, not 285)."""
    from rich.console import Console
    from rich.table import Table

    groups: dict[str, list[Finding]] = defaultdict(list)
    for f in result.findings:
        groups[f.file or "(project)"].append(f)
    lines: list[str] = []
    compact = False  # the previous file was one line: no blank line between such files
    for file in sorted(groups, key=lambda k: (k == "(project)", k)):
        body = _file_lines(groups[file], color, verbose)
        if not verbose and len(body) == 1 and all(f.code == "missing" for f in groups[file]):
            where, rest = body[0].lstrip().split("  ", 1)
            at = "" if where == "-" else f":{where}"
            lines.append(f"{_paint(file, 'bold', color)}{at}  {rest}")
            compact = True
            continue
        if compact:
            lines.append("")  # a blank line closes a run of one-line files
        lines.append(_paint(file, "bold", color))
        lines.extend(body)
        lines.append("")
        compact = False
    if compact:
        lines.append("")
    if lines:
        out.write("\n".join(lines) + "\n")
    console = Console(
        file=out,
        force_terminal=color,
        no_color=not color,
        color_system="auto" if color else None,
        highlight=False,
        emoji=False,
        soft_wrap=True,
        width=width or (None if color else 100),
    )
    if result.coverage:
        from rich import box

        table = Table(
            title="Coverage",
            title_justify="left",
            show_edge=False,
            box=box.SIMPLE_HEAD,
            padding=(0, 0),
        )
        table.add_column("lang")
        table.add_column("kind")
        table.add_column("units", justify="right")
        for name in COVERAGE_PARTS:
            table.add_column(_PART_HEADS[name], justify="right")
        table.add_column("done", justify="right")
        for lang, kinds in result.coverage.items():
            for kind, counts in kinds.items():
                table.add_row(
                    lang,
                    kind,
                    str(counts["units"]),
                    *(str(counts[n]) for n in COVERAGE_PARTS),
                    _pct(done_units(counts), counts["units"]),
                )
        console.print(table)
        console.print(_DONE_NOTE, style="dim")
    for path in left_out(result.findings):
        console.print(f"Not counted: {path} (its errors above kept it from loading)")
    style = "red" if result.errors else ("yellow" if result.warnings else "green")
    console.file.flush()
    out.write(_paint(total_line(result), style, color) + "\n")


_DONE_NOTE = (
    "done = reviewed + unreviewed: current translations, not identical to their source, "
    "without QA errors."
)
_PART_HEADS = {
    "reviewed": "reviewed",
    "unreviewed": "unreviewed",
    "untranslated": "untranslated",
    "failing_qa": "QA errors",
    "draft": "draft",
    "stale": "stale",
    "missing": "missing",
}


# --------------------------------------------------------------------------- json, github


def to_json(result: CheckResult) -> str:
    doc = {
        "version": JSON_VERSION,
        "findings": [f.as_json() for f in result.findings],
        "summary": result.summary(),
    }
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def to_github(result: CheckResult) -> str:
    lines: list[str] = []
    for f in result.findings:
        level = "error" if f.severity is Severity.ERROR else "warning"
        props = []
        if f.file:
            props.append(f"file={_gh_prop(f.file)}")
            if f.line:
                props.append(f"line={f.line}")
        props.append(f"title={_gh_prop(f'bipub {f.code}' + (f' [{f.lang}]' if f.lang else ''))}")
        message = (f"{f.key}: " if f.key else "") + f.message
        if f.diff:
            message += "\n" + f.diff
        lines.append(f"::{level} {','.join(props)}::{_gh_data(message)}")
    return "\n".join(lines) + ("\n" if lines else "")


# --------------------------------------------------------------------------- html

_CSS = """
:root { --reviewed:#2e7d32; --unreviewed:#8bc34a; --untranslated:#9e9e9e; --failing_qa:#7b1fa2;
  --draft:#1565c0; --stale:#ef6c00; --missing:#c62828; --line:#ddd;
  --prose: system-ui, -apple-system, "Segoe UI", "Apple SD Gothic Neo", "Noto Sans KR",
    "Noto Sans CJK KR", "Malgun Gothic", sans-serif;
  --mono: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", "Noto Sans Mono CJK KR",
    monospace; }
/* prose in any language: proportional type; Korean breaks between words, never inside one */
body { font: 15px/1.5 var(--prose); margin: 0 auto; max-width: 78rem; padding: 1rem 2rem;
  color: #1b1b1b; word-break: keep-all; overflow-wrap: break-word; }
h1 { margin-bottom: .2rem; } .total { margin-top: 0; color: #555; }
table.coverage { border-collapse: collapse; width: 100%; margin-bottom: .5rem; }
table.coverage th, table.coverage td { text-align: left; padding: .3rem .4rem;
  border-bottom: 1px solid var(--line); }
table.coverage td.n { text-align: right; font-variant-numeric: tabular-nums; }
.scroll { overflow-x: auto; }
td.coverage { width: 30%; }
.bar { display: flex; height: .9rem; width: 100%; min-width: 6rem; background: #eee;
  border-radius: 3px; overflow: hidden; }
.bar span { display: block; height: 100%; }
.bar .reviewed, .legend .reviewed { background: var(--reviewed); }
.bar .unreviewed, .legend .unreviewed { background: var(--unreviewed); }
.bar .untranslated, .legend .untranslated { background: var(--untranslated); }
.bar .failing_qa, .legend .failing_qa { background: var(--failing_qa); }
.bar .draft, .legend .draft { background: var(--draft); }
.bar .stale, .legend .stale { background: var(--stale); }
.bar .missing, .legend .missing { background: var(--missing); }
.legend span { display: inline-block; width: .8rem; height: .8rem; margin: 0 .2rem 0 .8rem; }
.note { color: #555; font-size: .85rem; margin-top: 0; }
#filters { margin: 1rem 0; } #filters label { margin-right: 1rem; white-space: nowrap; }
article.unit { border: 1px solid var(--line); border-radius: 6px; padding: .6rem 1rem;
  margin: 1rem 0; }
article.unit h3 { font-size: 1rem; margin: .2rem 0 .5rem; font-family: var(--mono);
  word-break: break-all; }
.lang { font: 600 .75rem/1 var(--prose); background: #eee; padding: .15rem .35rem;
  border-radius: 3px; }
ul.findings { padding-left: 1.2rem; margin: .3rem 0; }
.finding.error .sev { color: var(--missing); font-weight: 600; }
.finding.warning .sev { color: var(--stale); font-weight: 600; }
.code { font-family: var(--mono); background: #f3f3f3; padding: 0 .3rem; }
.where { color: #666; font-size: .85rem; }
.pair { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1rem;
  margin-top: .5rem; }
.pair h4 { margin: 0 0 .3rem; font-size: .85rem; color: #555; }
/* a unit's text, its diffs: prose (line breaks kept); code spans and blocks in monospace */
.text { white-space: pre-wrap; font-family: var(--prose); background: #fafafa;
  border: 1px solid var(--line); padding: .5rem; margin: 0; font-size: .9rem; }
.text code, .text .fence { font-family: var(--mono); font-size: .85em; background: #f0f0f0;
  word-break: break-all; }
.text .fence { display: block; }
.diff .add { background: #e6ffed; } .diff .del { background: #ffeef0; }
.diff .hunk { color: #6f42c1; font-family: var(--mono); }
.word-diff del { background: #ffeef0; } .word-diff ins { background: #e6ffed; }
details.waiting-draft { margin-top: .6rem; }
.absent { color: #999; font-style: italic; }
@media (max-width: 50rem) { .pair { grid-template-columns: minmax(0, 1fr); } }
"""

_JS = """
(function () {
  var form = document.getElementById('filters');
  if (!form) return;
  form.hidden = false;
  function apply() {
    var on = {};
    form.querySelectorAll('input[type=checkbox]').forEach(function (b) { on[b.value] = b.checked; });
    document.querySelectorAll('article.unit').forEach(function (a) {
      var codes = a.getAttribute('data-codes').split(' ');
      a.hidden = !codes.some(function (c) { return on[c]; });
    });
  }
  form.addEventListener('change', apply);
})();
"""


_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")


def _inline_html(text: str) -> str:
    out: list[str] = []
    at = 0
    for m in _INLINE_CODE.finditer(text):
        out.append(escape(text[at : m.start()]))
        out.append(f"<code>{escape(m.group(0))}</code>")
        at = m.end()
    out.append(escape(text[at:]))
    return "".join(out)


def _prose_html(text: str) -> str:
    """A unit's text as HTML: prose escaped as it is (the block keeps its line breaks), code
    spans and fenced code blocks in <code> (monospace; prose is proportional)."""
    lines: list[str] = []
    fence: str | None = None
    block: list[str] = []
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if fence is None and m:
            fence, block = m.group(1), [line]
            continue
        if fence is not None:
            block.append(line)
            if line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
                lines.append('<code class="fence">' + escape("\n".join(block)) + "</code>")
                fence = None
            continue
        lines.append(_inline_html(line))
    if fence is not None:  # an unclosed fence: the rest is code
        lines.append('<code class="fence">' + escape("\n".join(block)) + "</code>")
    return "\n".join(lines)


def _diff_html(diff: str) -> str:
    out = []
    for line in diff.split("\n"):
        cls = ""
        if line.startswith("@@"):
            cls = "hunk"
        elif line.startswith("+") and not line.startswith("+++"):
            cls = "add"
        elif line.startswith("-") and not line.startswith("---"):
            cls = "del"
        out.append(f'<span class="{cls}">{escape(line)}</span>' if cls else escape(line))
    return '<div class="text diff">' + "\n".join(out) + "</div>"


def _text_block(text: str | None, where: str | None, lang: str | None = None) -> str:
    head = f'<span class="where">{escape(where)}</span>' if where else ""
    if text is None:
        return f'{head}<div class="text absent">(none)</div>'
    lang_attr = f' lang="{escape(lang)}"' if lang else ""
    return f'{head}<div class="text"{lang_attr}>{_prose_html(text)}</div>'


def _waiting_html(w: WaitingDraft) -> str:
    made = (
        "made from the current source"
        if w.current
        else "made from an older source: <code>bipub translate</code> drafts it again"
    )
    diff = "".join(
        escape(t)
        if op == "="
        else f"<del>{escape(t)}</del>"
        if op == "-"
        else f"<ins>{escape(t)}</ins>"
        for op, t in w.word_diff
    )
    qa = (
        '<ul class="findings">'
        + "".join(
            f'<li class="finding warning" data-code="{escape(c)}"><span class="code">'
            f"{escape(c)}</span> {escape(m)}</li>"
            for c, m in w.qa
        )
        + "</ul>"
        if w.qa
        else "<p>QA of the draft: no findings.</p>"
    )
    return (
        '<details class="waiting-draft" open><summary>Machine draft waiting beside the '
        f"translation ({made})</summary>"
        '<div class="pair"><div><h4>Waiting draft</h4>'
        f'<div class="text">{_prose_html(w.text)}</div></div>'
        "<div><h4>Word diff, translation → draft</h4>"
        f'<div class="text word-diff">{diff}</div></div></div>'
        f"<h4>QA of the draft</h4>{qa}</details>"
    )


def to_html(result: CheckResult, title: str = "bipub translation report") -> str:
    parts: list[str] = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<header><h1>{escape(title)}</h1>",
        f'<p class="total" id="total">{escape(total_line(result))}</p></header>',
        '<section id="coverage"><h2>Coverage</h2>',
        '<p class="legend">'
        + "".join(f'<span class="{n}"></span>{_PART_HEADS[n]}' for n in COVERAGE_PARTS)
        + "</p>",
        '<div class="scroll"><table class="coverage"><thead><tr><th>language</th><th>kind</th><th>units</th>'
        "<th>coverage</th>"
        + "".join(f'<th class="{n}">{_PART_HEADS[n]}</th>' for n in COVERAGE_PARTS)
        + "<th>done</th></tr></thead><tbody>",
    ]
    for lang, kinds in result.coverage.items():
        for kind, c in kinds.items():
            total = c["units"] or 1
            segs = "".join(
                f'<span class="{name}" style="width:{100 * c[name] / total:.2f}%" '
                f'title="{_PART_HEADS[name]}: {c[name]}"></span>'
                for name in COVERAGE_PARTS
                if c[name]
            )
            label = f"{lang} {kind}: " + ", ".join(
                f"{c[n]} {_PART_HEADS[n]}" for n in COVERAGE_PARTS if c[n]
            )
            cells = "".join(f'<td class="n {n}">{c[n]}</td>' for n in COVERAGE_PARTS)
            parts.append(
                f'<tr data-lang="{escape(lang)}" data-kind="{escape(kind)}">'
                f'<td>{escape(lang)}</td><td>{escape(kind)}</td><td class="n">{c["units"]}</td>'
                f'<td class="coverage"><div class="bar" role="img" aria-label="{escape(label)}">'
                f"{segs}</div></td>"
                f'{cells}<td class="n done">{_pct(done_units(c), c["units"])}</td></tr>'
            )
    parts.append(
        "</tbody></table></div>"
        f'<p class="note">{escape(_DONE_NOTE)} Each unit counts once, in the first part that '
        "applies: missing, stale, draft, QA errors, untranslated, reviewed, unreviewed.</p>"
        + "".join(
            f'<p class="note">Not counted: <code>{escape(p)}</code> (its errors kept it from '
            "loading).</p>"
            for p in left_out(result.findings)
        )
        + "</section>"
    )

    groups: dict[tuple[str, str, str], list[Finding]] = {}
    for f in result.findings:
        ident = (f.lang or "", f.key or "", "" if f.key else f"{f.file}:{f.line}:{f.message}")
        groups.setdefault(ident, []).append(f)
    codes: dict[str, int] = defaultdict(int)
    for f in result.findings:
        codes[f.code] += 1
    parts.append('<section id="units"><h2>Units that need attention</h2>')
    if codes:
        parts.append('<form id="filters" hidden><strong>Show:</strong> ')
        for code, n in sorted(codes.items()):
            parts.append(
                f'<label><input type="checkbox" name="code" value="{escape(code)}" checked> '
                f"{escape(code)} ({n})</label>"
            )
        parts.append("</form>")
    else:
        parts.append("<p>Every unit is clean.</p>")
    for (lang, key, _), items in sorted(groups.items(), key=lambda kv: kv[1][0].sort_key()):
        first = items[0]
        unit_codes = " ".join(sorted({f.code for f in items}))
        parts.append(f'<article class="unit" data-codes="{escape(unit_codes)}">')
        lang_tag = f' <span class="lang">{escape(lang)}</span>' if lang else ""
        parts.append(f"<h3>{escape(key or first.location())}{lang_tag}</h3>")
        parts.append('<ul class="findings">')
        for f in items:
            sev = f.severity.value
            parts.append(
                f'<li class="finding {sev}" data-code="{escape(f.code)}">'
                f'<span class="sev">{sev}</span> <span class="code">{escape(f.code)}</span> '
                f"{escape(f.message)} "
                f'<span class="where">{escape(f.location())}</span></li>'
            )
        parts.append("</ul>")
        src = next((f.source for f in items if f.source is not None), None)
        tr = next((f.translation for f in items if f.translation is not None), None)
        if src is not None or tr is not None:
            s_where = next(
                (
                    f"{f.source_file}:{f.source_line}" if f.source_line else f.source_file
                    for f in items
                    if f.source_file
                ),
                None,
            )
            t_where = next((f.location() for f in items if f.translation is not None), None)
            parts.append(
                '<div class="pair"><div class="source"><h4>Source</h4>'
                f"{_text_block(src, s_where)}</div>"
                f'<div class="translation"><h4>Translation{" (" + escape(lang) + ")" if lang else ""}'
                f"</h4>{_text_block(tr, t_where, lang or None)}</div></div>"
            )
        for f in items:
            if f.diff:
                parts.append(
                    '<details class="stale-diff" open><summary>Source changed since the '
                    f"translation (old → new)</summary>{_diff_html(f.diff)}</details>"
                )
        for f in items:
            if f.waiting is not None:
                parts.append(_waiting_html(f.waiting))
        parts.append("</article>")
    parts.append("</section>")
    parts.append(f"<script>{_JS}</script></body></html>")
    return "\n".join(parts) + "\n"


def render(
    result: CheckResult, fmt: str, out: IO[str], *, color: bool = False, verbose: bool = False
) -> None:
    """Write the report in `fmt`; `verbose` (text only): every missing key on its own line."""
    if fmt == "text":
        write_text(result, out, color=color, verbose=verbose)
    elif fmt == "json":
        out.write(to_json(result))
    elif fmt == "github":
        out.write(to_github(result))
    elif fmt == "html":
        out.write(to_html(result))
    else:  # pragma: no cover - click validates the choice
        raise ValueError(fmt)
