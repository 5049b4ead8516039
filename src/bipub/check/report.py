"""Output formats of `bipub check`: text, json, github, html. Each is a function of the result.

- text: findings grouped by file (coloured on a terminal), then a coverage table per language
  and content kind, then a one-line total;
- json: `{"version": 1, "findings": [...], "summary": {...}}` (findings.schema.json);
- github: workflow commands (`::error file=…,line=…,title=…::message`), one per finding;
- html: a standalone reviewer report (no external assets): coverage bars, then every unit that is
  not clean with source and translation side by side and the source diff of stale units; a few
  lines of inline JS add a filter by finding code (without JS everything is shown). A machine
  draft waiting beside a translation is shown with its word diff and its QA findings.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from html import escape
from typing import IO

from bipub.check.findings import JSON_VERSION, Finding, WaitingDraft
from bipub.check.result import COVERAGE_FIELDS, CheckResult
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


def write_text(result: CheckResult, out: IO[str], *, color: bool, width: int | None = None) -> None:
    """Findings as plain lines (ANSI colours on a terminal) — written directly, since a big
    site has tens of thousands of them — then the coverage table (rich) and the total."""
    from rich.console import Console
    from rich.table import Table

    groups: dict[str, list[Finding]] = defaultdict(list)
    for f in result.findings:
        groups[f.file or "(project)"].append(f)
    lines: list[str] = []
    for file in sorted(groups, key=lambda k: (k == "(project)", k)):
        lines.append(_paint(file, "bold", color))
        for f in groups[file]:
            style = "red" if f.severity is Severity.ERROR else "yellow"
            line = str(f.line) if f.line else "-"
            lang = f"[{f.lang}] " if f.lang else ""
            key = f"{f.key}: " if f.key else ""
            lines.append(
                f"  {line:>5}  {_paint(f'{f.severity.value:<7}', style, color)} "
                f"{_paint(f.code, 'bold', color)}  {lang}{key}{f.message}"
            )
            if f.diff:
                for dl in f.diff.split("\n"):
                    dstyle = (
                        "green"
                        if dl.startswith("+") and not dl.startswith("+++")
                        else "red"
                        if dl.startswith("-") and not dl.startswith("---")
                        else "dim"
                    )
                    lines.append(f"         {_paint(dl, dstyle, color)}")
            if f.waiting is not None:
                lines.extend("         " + wl for wl in waiting_lines(f.waiting, color))
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
        table = Table(title="Coverage", title_justify="left", show_edge=False)
        table.add_column("lang")
        table.add_column("kind")
        for name in COVERAGE_FIELDS:
            table.add_column(name, justify="right")
        table.add_column("done", justify="right")
        for lang, kinds in result.coverage.items():
            for kind, counts in kinds.items():
                table.add_row(
                    lang,
                    kind,
                    *(str(counts[n]) for n in COVERAGE_FIELDS),
                    _pct(counts["current"], counts["units"]),
                )
        console.print(table)
    style = "red" if result.errors else ("yellow" if result.warnings else "green")
    console.file.flush()
    out.write(_paint(total_line(result), style, color) + "\n")


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
:root { --ok:#2e7d32; --draft:#1565c0; --stale:#ef6c00; --missing:#c62828; --line:#ddd; }
body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 78rem; padding: 1rem 2rem;
  color: #1b1b1b; }
h1 { margin-bottom: .2rem; } .total { margin-top: 0; color: #555; }
table.coverage { border-collapse: collapse; width: 100%; margin-bottom: 2rem; }
table.coverage th, table.coverage td { text-align: left; padding: .3rem .5rem;
  border-bottom: 1px solid var(--line); }
.bar { display: flex; height: .9rem; width: 18rem; background: #eee; border-radius: 3px;
  overflow: hidden; }
.bar span { display: block; height: 100%; }
.bar .current { background: var(--ok); } .bar .draft { background: var(--draft); }
.bar .stale { background: var(--stale); } .bar .missing { background: var(--missing); }
.legend span { display: inline-block; width: .8rem; height: .8rem; margin: 0 .2rem 0 .8rem; }
#filters { margin: 1rem 0; } #filters label { margin-right: 1rem; white-space: nowrap; }
article.unit { border: 1px solid var(--line); border-radius: 6px; padding: .6rem 1rem;
  margin: 1rem 0; }
article.unit h3 { font-size: 1rem; margin: .2rem 0 .5rem; font-family: ui-monospace, monospace; }
.lang { font: 600 .75rem/1 system-ui; background: #eee; padding: .15rem .35rem;
  border-radius: 3px; }
ul.findings { padding-left: 1.2rem; margin: .3rem 0; }
.finding.error .sev { color: var(--missing); font-weight: 600; }
.finding.warning .sev { color: var(--stale); font-weight: 600; }
.code { font-family: ui-monospace, monospace; background: #f3f3f3; padding: 0 .3rem; }
.where { color: #666; font-size: .85rem; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; margin-top: .5rem; }
.pair h4 { margin: 0 0 .3rem; font-size: .85rem; color: #555; }
pre { white-space: pre-wrap; word-break: break-word; background: #fafafa;
  border: 1px solid var(--line); padding: .5rem; margin: 0; font-size: .85rem; }
pre.diff .add { background: #e6ffed; } pre.diff .del { background: #ffeef0; }
pre.diff .hunk { color: #6f42c1; }
pre.word-diff del { background: #ffeef0; } pre.word-diff ins { background: #e6ffed; }
details.waiting-draft { margin-top: .6rem; }
.absent { color: #999; font-style: italic; }
@media (max-width: 50rem) { .pair { grid-template-columns: 1fr; } }
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
    return '<pre class="diff">' + "\n".join(out) + "</pre>"


def _text_block(text: str | None, where: str | None) -> str:
    head = f'<span class="where">{escape(where)}</span>' if where else ""
    if text is None:
        return f'{head}<pre class="absent">(none)</pre>'
    return f"{head}<pre>{escape(text)}</pre>"


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
        f"<pre>{escape(w.text)}</pre></div>"
        "<div><h4>Word diff, translation → draft</h4>"
        f'<pre class="word-diff">{diff}</pre></div></div>'
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
        '<p class="legend"><span style="background:var(--ok)"></span>current'
        '<span style="background:var(--draft)"></span>draft'
        '<span style="background:var(--stale)"></span>stale'
        '<span style="background:var(--missing)"></span>missing</p>',
        '<table class="coverage"><thead><tr><th>language</th><th>kind</th><th>units</th>'
        "<th>coverage</th><th>current</th><th>reviewed</th><th>draft</th><th>stale</th>"
        "<th>missing</th></tr></thead><tbody>",
    ]
    for lang, kinds in result.coverage.items():
        for kind, c in kinds.items():
            total = c["units"] or 1
            segs = "".join(
                f'<span class="{name}" style="width:{100 * c[name] / total:.2f}%" '
                f'title="{name}: {c[name]}"></span>'
                for name in ("current", "draft", "stale", "missing")
                if c[name]
            )
            label = (
                f"{lang} {kind}: {c['current']} of {c['units']} current, {c['draft']} draft, "
                f"{c['stale']} stale, {c['missing']} missing"
            )
            parts.append(
                f'<tr data-lang="{escape(lang)}" data-kind="{escape(kind)}">'
                f"<td>{escape(lang)}</td><td>{escape(kind)}</td><td>{c['units']}</td>"
                f'<td><div class="bar" role="img" aria-label="{escape(label)}">{segs}</div></td>'
                f"<td>{c['current']} ({_pct(c['current'], c['units'])})</td>"
                f"<td>{c['reviewed']}</td><td>{c['draft']}</td><td>{c['stale']}</td>"
                f"<td>{c['missing']}</td></tr>"
            )
    parts.append("</tbody></table></section>")

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
                f"</h4>{_text_block(tr, t_where)}</div></div>"
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


def render(result: CheckResult, fmt: str, out: IO[str], *, color: bool = False) -> None:
    if fmt == "text":
        write_text(result, out, color=color)
    elif fmt == "json":
        out.write(to_json(result))
    elif fmt == "github":
        out.write(to_github(result))
    elif fmt == "html":
        out.write(to_html(result))
    else:  # pragma: no cover - click validates the choice
        raise ValueError(fmt)
