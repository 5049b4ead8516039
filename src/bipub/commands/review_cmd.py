"""`bipub review`: list what needs review, show a unit, approve, reject, prune, or walk the queue.

bipub review                       # list drafts, stale and edited units per language
bipub review --human               # … and translations written by hand, not reviewed yet
bipub review show KEY              # source, translation, findings, source diff
bipub review approve KEY… | --file PATH | --all --lang ko [--reviewer NAME] [--force]
                                   [--keep-current]
bipub review reject KEY… | --file PATH  # drop machine drafts (a drafted text is removed from its file)
bipub review prune                 # remove status records whose source is gone
bipub review -i [--lang ko] [--human]  # interactive: approve / edit / skip / reject / quit
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

if TYPE_CHECKING:
    from datetime import date

    from bipub.check.review import Item
    from bipub.check.run import Analysis
    from bipub.commands.ui import Ui


def _analyze(ui: Ui) -> Analysis:
    from bipub.check.run import analyze
    from bipub.diagnostics import DiagnosticError

    try:
        return analyze(ui.root)
    except DiagnosticError as exc:
        ui.fail(exc)


def _readable(ui: Ui, analysis: Analysis, langs: tuple[str, ...] | list[str]) -> None:
    """A status file with errors (a record that does not load) is not read: its units would be
    listed as missing or written by hand. Said at its file, line and key, exit 1."""
    from bipub.check.review import writable
    from bipub.diagnostics import DiagnosticError

    for lang in sorted(analysis.broken_status):
        if not langs or lang in langs:
            try:
                writable(analysis, lang)
            except DiagnosticError as exc:
                ui.diagnostics(exc.diagnostics)
                click.echo(
                    f"bipub review: {exc.diagnostics[0].file} has errors: what needs review in "
                    f"[{lang}] cannot be told until it is fixed",
                    err=True,
                )
                sys.exit(1)


def _fail(ui: Ui, exc: Exception) -> NoReturn:
    """Print diagnostics and exit 1 (or 2) without the build's 'nothing was written' wording."""
    from bipub.diagnostics import DiagnosticError

    if not isinstance(exc, DiagnosticError):
        raise exc
    ui.diagnostics(exc.diagnostics)
    n = len(exc.diagnostics)
    click.echo(
        f"bipub review: {n} problem{'s' if n != 1 else ''}; no status file changed", err=True
    )
    sys.exit(exc.exit_code)


_STATE_NAMES = {"human": "not reviewed (no review record)"}


def _echo_item(it: Item, *, full: bool) -> None:
    u = it.unit
    state = ", ".join(_STATE_NAMES.get(s, s) for s in it.states) or "current"
    click.echo(click.style(f"{it.key}  [{it.lang}]  {state}", bold=True))
    src_where = f"{u.source_file}:{u.source_line}" if u.source_line else u.source_file
    click.echo(click.style(f"── source ({u.source_lang})  {src_where}", fg="cyan"))
    click.echo(_indent(u.source if full else _clip(u.source)))
    if u.translation is None:
        click.echo(click.style(f"── translation ({it.lang}): none", fg="cyan"))
    else:
        where = (
            f"{u.translation_file}:{u.translation_line}"
            if u.translation_line
            else u.translation_file
        )
        click.echo(click.style(f"── translation ({it.lang})  {where}", fg="cyan"))
        click.echo(_indent(u.translation if full else _clip(u.translation)))
    rec = it.record
    if rec is not None:
        bits = [f"origin {rec.origin}" + (f" ({rec.engine})" if rec.engine else ""), rec.state]
        if rec.reviewer:
            bits.append(f"reviewed by {rec.reviewer}")
        if rec.reviewed:
            bits.append(f"on {rec.reviewed.isoformat()}")
        click.echo(click.style("── status: ", fg="cyan") + ", ".join(bits))
    else:
        click.echo(click.style("── status: ", fg="cyan") + "no record (not reviewed yet)")
    if it.findings:
        click.echo(click.style("── findings", fg="cyan"))
        for f in it.findings:
            colour = "red" if f.severity.value == "error" else "yellow"
            click.echo(f"  {click.style(f.severity.value, fg=colour)} {f.code}: {f.message}")
    from bipub.check.report import diff_colour, waiting_lines

    for f in it.findings:
        if f.diff:
            click.echo(click.style("── source diff (as translated → now)", fg="cyan"))
            for line in f.diff.split("\n"):
                click.echo("  " + click.style(line, fg=diff_colour(line)))
    for f in it.findings:
        if f.waiting is not None:
            for line in waiting_lines(
                f.waiting, color=True, head=lambda t: click.style(f"── {t}", fg="cyan")
            ):
                click.echo(line)


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.split("\n"))


def _clip(text: str, lines: int = 30) -> str:
    parts = text.split("\n")
    if len(parts) <= lines:
        return text
    return "\n".join(parts[:lines]) + f"\n… ({len(parts) - lines} more lines)"


_HUMAN_HELP = (
    "Also translations written by hand that have no review record (approving one records "
    "its review)."
)


@click.group(invoke_without_command=True)
@click.option("-i", "--interactive", is_flag=True, help="Walk the review queue interactively.")
@click.option("--lang", "langs", multiple=True, help="Only this target language (repeatable).")
@click.option("--reviewer", default=None, help="Reviewer name (default: git config user.name).")
@click.option("--human", is_flag=True, help=_HUMAN_HELP)
@click.pass_context
def review(
    ctx: click.Context,
    interactive: bool,
    langs: tuple[str, ...],
    reviewer: str | None,
    human: bool,
) -> None:
    """Review translations: list, show, approve, reject, prune (-i: interactively)."""
    if ctx.invoked_subcommand is not None:
        # these options belong to the queue (`bipub review [-i]`): before a subcommand they
        # would be dropped without a word (`review --lang ko reject KEY` rejecting every language)
        sub = ctx.invoked_subcommand
        if interactive:
            raise click.UsageError(f"-i walks the review queue: give it without '{sub}'")
        given = [
            n for n, v in (("--lang", langs), ("--reviewer", reviewer), ("--human", human)) if v
        ]
        if given:
            raise click.UsageError(
                f"{', '.join(given)} before '{sub}' would not be applied: give "
                f"{'it' if len(given) == 1 else 'them'} after '{sub}' "
                f"(bipub review {sub} {given[0]} …)"
            )
        return
    ui: Ui = ctx.obj
    if interactive:
        _interactive(ui, langs, reviewer, human)
    else:
        ctx.invoke(list_cmd, langs=langs, human=human)


def _human_note(count: int) -> str:
    s = "s" if count != 1 else ""
    have = "have" if count != 1 else "has"
    return (
        f"{count} translation{s} written by hand {have} no review record "
        "(bipub review --human lists them)."
    )


# the codes that are a unit's review state, not a finding about its text
_STATE_CODES = frozenset({"draft", "stale", "edited"})


@review.command("list")
@click.option("--lang", "langs", multiple=True, help="Only this target language (repeatable).")
@click.option("--human", is_flag=True, help=_HUMAN_HELP)
@click.pass_obj
def list_cmd(ui: Ui, langs: tuple[str, ...], human: bool) -> None:
    """List drafts, stale and edited units per language (the default)."""
    from bipub.check.review import queue, unreviewed_human

    analysis = _analyze(ui)
    _readable(ui, analysis, langs)
    items = queue(analysis, langs, human=human)
    by_hand = 0 if human else len(unreviewed_human(analysis, langs))
    if not items:
        click.echo("Nothing to review." + (f" {_human_note(by_hand)}" if by_hand else ""))
        return
    current, flagged = None, 0
    for it in items:
        if it.lang != current:
            current = it.lang
            n = sum(1 for x in items if x.lang == current)
            click.echo(
                click.style(f"{current}: {n} unit{'s' if n != 1 else ''} to review", bold=True)
            )
        u = it.unit
        where = (
            f"{u.translation_file}:{u.translation_line}"
            if u.translation_line
            else u.translation_file
        )
        found = sorted({f.code for f in it.findings} - _STATE_CODES)
        flagged += bool(found)
        marks = "  " + click.style(f"[{', '.join(found)}]", fg="yellow") if found else ""
        click.echo(f"  {'/'.join(it.states):<12} {it.key}  {where}{marks}")
    if flagged:
        click.echo(
            f"{flagged} of them with findings [in brackets]: bipub review show KEY says what."
        )
    if by_hand:
        click.echo(_human_note(by_hand))


@review.command()
@click.argument("key")
@click.option("--lang", "langs", multiple=True, help="Target language, when KEY has several.")
@click.pass_obj
def show(ui: Ui, key: str, langs: tuple[str, ...]) -> None:
    """Print a unit's source, translation, status, findings and source diff."""
    from bipub.check.review import item
    from bipub.check.review_select import resolve

    analysis = _analyze(ui)
    try:
        targets = resolve(analysis, [key], langs)
    except Exception as exc:
        _fail(ui, exc)
    _readable(ui, analysis, sorted({lang for lang, _ in targets}))
    for n, (lang, k) in enumerate(targets):
        if n:
            click.echo()
        _echo_item(item(analysis, lang, k), full=True)


@review.command()
@click.argument("keys", nargs=-1)
@click.option(
    "--file",
    "file",
    type=click.Path(path_type=Path),
    default=None,
    help="Every unit of this file not reviewed already.",
)
@click.option(
    "--all", "all_", is_flag=True, help="Every translated unit not yet reviewed (needs --lang)."
)
@click.option("--lang", "langs", multiple=True, help="Target language (repeatable).")
@click.option("--reviewer", default=None, help="Reviewer name (default: git config user.name).")
@click.option(
    "--force", is_flag=True, help="Approve even units with QA errors or drafting findings."
)
@click.option(
    "--keep-current",
    is_flag=True,
    help="Approve the present translation for the current source; a waiting draft is dismissed.",
)
@click.pass_obj
def approve(
    ui: Ui,
    keys: tuple[str, ...],
    file: Path | None,
    all_: bool,
    langs: tuple[str, ...],
    reviewer: str | None,
    force: bool,
    keep_current: bool,
) -> None:
    """Record units as reviewed: KEY…, a file's units, or all of a language.

    A unit with a waiting machine draft adopts it (the draft is written into the content file);
    --keep-current approves the present translation instead. Refuses units with QA errors, or
    with findings of their drafting (a lost tag: check cannot find it again), unless --force;
    nothing is written when anything is refused."""
    from bipub.check import review as rv
    from bipub.check import review_select as select
    from bipub.translate import review_edits

    chosen = sum(1 for x in (keys, file, all_) if x)
    if chosen != 1:
        raise click.UsageError("give KEY…, --file PATH or --all --lang LANG (exactly one)")
    if all_ and not langs:
        raise click.UsageError("--all needs --lang (e.g. --all --lang ko)")
    analysis = _analyze(ui)
    unknown = [lang for lang in langs if lang not in analysis.config.codes]
    if unknown:
        raise click.UsageError(f"--lang {', '.join(unknown)}: not a language of this site")
    kept: list[tuple[str, str]] = []
    try:
        name = rv.reviewer_name(reviewer, ui.root)
        day = rv.review_date()
        if all_:
            targets = select.every(analysis, langs)
        elif file is not None:
            targets = select.by_file(analysis, file, Path.cwd(), langs)
            kept = select.reviewed_already(analysis, targets)
            targets = [t for t in targets if t not in kept]
        else:
            targets = select.resolve(analysis, keys, langs)
        decision = rv.approve(
            analysis,
            targets,
            name,
            day,
            force=force,
            keep_current=keep_current,
            skip_missing=all_ or file is not None,
        )
        written = review_edits.apply(analysis, decision)
    except Exception as exc:
        _fail(ui, exc)
    for note in decision.notes:
        click.echo(note)
    if kept:  # (approve KEY records one of them again, by this reviewer, today)
        s = "s" if len(kept) != 1 else ""
        click.echo(
            f"{len(kept)} unit{s} of the file reviewed already, current and unchanged: left "
            "as they were (approve KEY to record one's review again)"
        )
    n = len(decision.done)
    if n == 0:
        click.echo("Nothing to approve.")
        return
    adopted = len(decision.edits)
    ui.info(
        f"Approved {n} unit{'s' if n != 1 else ''} as {name} on {day.isoformat()}"
        + (f" ({adopted} waiting draft{'s' if adopted != 1 else ''} adopted)" if adopted else "")
        + (f" → {', '.join(written)}" if written else " (status unchanged)")
    )


@review.command()
@click.argument("keys", nargs=-1)
@click.option(
    "--file",
    "file",
    type=click.Path(path_type=Path),
    default=None,
    help="Every machine draft of this file (its other units are left as they are).",
)
@click.option("--lang", "langs", multiple=True, help="Target language (repeatable).")
@click.option(
    "--reviewer",
    default=None,
    help="Who rejects, kept with the rejection (default: git config user.name, if set).",
)
@click.pass_obj
def reject(
    ui: Ui, keys: tuple[str, ...], file: Path | None, langs: tuple[str, ...], reviewer: str | None
) -> None:
    """Reject machine drafts: KEY… or a file's drafts. A waiting draft is dropped; a draft in
    a content file is removed from it (the unit is missing again). The rejected text is
    remembered in the status file: `bipub translate` does not write it again for the same
    source (see --redraft-rejected there)."""
    from bipub.check import review as rv
    from bipub.check import review_reject as rj
    from bipub.check import review_select as select
    from bipub.translate import review_edits

    if bool(keys) == (file is not None):
        raise click.UsageError("give KEY… or --file PATH (exactly one)")
    analysis = _analyze(ui)
    try:
        if file is not None:
            targets = rj.drafts_of(analysis, select.by_file(analysis, file, Path.cwd(), langs))
            if not targets:
                click.echo(f"Nothing to reject: {file} has no machine draft.")
                return
        else:
            targets = select.resolve(analysis, keys, langs)
        decision = rj.reject(
            analysis, targets, rj.rejecter_name(reviewer, ui.root), rv.review_date()
        )
        written = review_edits.apply(analysis, decision)
    except Exception as exc:
        _fail(ui, exc)
    _report_rejected(ui, decision, written)


def _report_rejected(ui: Ui, decision: Any, written: list[str]) -> None:
    n = len(decision.done)
    removed = len(decision.edits)
    ui.info(
        f"Rejected {n} draft{'s' if n != 1 else ''}"
        + (f" ({removed} removed from the content files)" if removed else "")
        + f" → {', '.join(written) or 'no change'}"
    )


@review.command("prune")
@click.option("--lang", "langs", multiple=True, help="Only this language's status file.")
@click.option(
    "--dry-run", is_flag=True, help="Show what would be removed and moved; write nothing."
)
@click.pass_obj
def prune_cmd(ui: Ui, langs: tuple[str, ...], dry_run: bool) -> None:
    """Remove status records whose source unit is gone; move those of a renamed post or page
    to its units' new keys. Rejected drafts remembered for units that are gone are removed.

    Refused, naming the errors, while a content file does not load or pair: its records
    would look orphaned (exit status 1, nothing written)."""
    from bipub.check import review as rv
    from bipub.check import review_reject as rj

    analysis = _analyze(ui)
    try:
        changes = rv.prune(analysis, langs)
        forgotten = rj.gone_rejections(analysis, langs)
        forget = {lang: dict.fromkeys(keys) for lang, keys in forgotten.items()}
        written = rv.write_changes(analysis, changes, forget) if not dry_run else []
    except Exception as exc:
        _fail(ui, exc)
    moved = n = 0
    for lang, gone in sorted(changes.items()):
        renamed = {id(rec): key for key, rec in gone.items() if rec is not None}
        for key in sorted(k for k, rec in gone.items() if rec is None):
            rec = analysis.status[lang].records[key]
            if id(rec) in renamed:  # (the same record, under its unit's new key)
                verb = "would move" if dry_run else "moved"
                click.echo(f"{lang}: {verb} {key} → {renamed[id(rec)]} (renamed)")
                moved += 1
            else:
                click.echo(f"{lang}: {'would remove' if dry_run else 'removed'} {key}")
                n += 1
    for lang, keys in sorted(forgotten.items()):
        for key in keys:
            click.echo(f"{lang}: {'would remove' if dry_run else 'removed'} the rejection of {key}")
    dropped = sum(len(keys) for keys in forgotten.values())
    ui.info(
        ("Would prune" if dry_run else "Pruned")
        + f" {n} record{'s' if n != 1 else ''}"
        + (f", {'move' if dry_run else 'moved'} {moved} of renamed posts or pages" if moved else "")
        + (
            f" and {dropped} rejection{'s' if dropped != 1 else ''} of units gone"
            if dropped
            else ""
        )
        + (f" → {', '.join(written)}" if written else "")
        + (" (--dry-run: nothing written)" if dry_run else "")
    )


def _interactive(ui: Ui, langs: tuple[str, ...], reviewer: str | None, human: bool) -> None:
    """Show each queued unit and ask: [a]pprove, [k]eep current (when a draft waits), [e]dit in
    $EDITOR, [s]kip, [r]eject, [q]uit. An edit by hand is the reviewer's own translation:
    approving it afterwards records origin human (and dismisses a waiting draft)."""
    from bipub.check import review as rv

    analysis = _analyze(ui)
    _readable(ui, analysis, langs)
    try:
        name = rv.reviewer_name(reviewer, ui.root)
        day = rv.review_date()
    except Exception as exc:
        _fail(ui, exc)
    todo = [(it.lang, it.key) for it in rv.queue(analysis, langs, human=human)]
    if not todo:
        by_hand = 0 if human else len(rv.unreviewed_human(analysis, langs))
        click.echo("Nothing to review." + (f" {_human_note(by_hand)}" if by_hand else ""))
        return
    counts = [0, 0, 0]  # approved, rejected, skipped
    try:
        _walk(ui, analysis, todo, name, day, counts)
    except click.Abort:  # (end of input, Ctrl-C): what was decided is saved; said so
        approved, rejected, skipped = counts
        click.echo(
            f"\nStopped. Approved {approved}, rejected {rejected}, skipped {skipped} "
            "(each decision was saved as it was made).",
            err=True,
        )
        sys.exit(1)
    approved, rejected, skipped = counts
    click.echo(f"Approved {approved}, rejected {rejected}, skipped {skipped}.")


def _walk(
    ui: Ui,
    analysis: Analysis,
    todo: list[tuple[str, str]],
    name: str,
    day: date,
    counts: list[int],
) -> None:
    """The queue, one unit at a time; `counts` (approved, rejected, skipped) as it goes."""
    from bipub.check import review as rv
    from bipub.check import review_reject as rj
    from bipub.diagnostics import DiagnosticError
    from bipub.translate import review_edits

    edited: set[tuple[str, str]] = set()
    index = 0
    while index < len(todo):
        lang, key = todo[index]
        if (lang, key) not in analysis.units:
            index += 1
            continue
        it = rv.item(analysis, lang, key)
        click.echo()
        click.echo(click.style(f"[{index + 1}/{len(todo)}]", dim=True))
        _echo_item(it, full=False)
        waiting = it.record is not None and it.record.draft is not None
        choices = ["a", "k", "e", "s", "r", "q"] if waiting or "stale" in it.states else []
        if waiting:
            prompt = "[a]dopt the draft, [k]eep current, [e]dit, [s]kip, [r]eject the draft, [q]uit"
        elif "human" in it.states:  # a translation by hand: nothing to reject
            choices = ["a", "e", "s", "q"]
            prompt = "[a]pprove, [e]dit, [s]kip, [q]uit"
        elif choices:
            prompt = (
                "[a]pprove, [k]eep current for the new source, [e]dit, [s]kip, [r]eject, [q]uit"
            )
        else:
            choices = ["a", "e", "s", "r", "q"]
            prompt = "[a]pprove, [e]dit, [s]kip, [r]eject, [q]uit"
        choice = click.prompt(prompt, type=click.Choice(choices), default="s", show_choices=False)
        if choice == "q":
            break
        if choice == "s":
            counts[2] += 1
            index += 1
            continue
        if choice == "e":
            target = it.unit.translation_file or it.unit.source_file
            before = it.unit.translation
            click.edit(filename=str(ui.root / target))
            analysis = _analyze(ui)
            after = analysis.units.get((lang, key))
            if after is not None and after.translation != before:
                edited.add((lang, key))
            continue  # show the same unit again, re-read
        try:
            if choice in ("a", "k"):
                keep = choice == "k" or (lang, key) in edited
                text = None if keep else rv.waiting_draft(analysis, lang, key)
                force = False
                errors = rv.qa_errors(analysis, lang, key, text)
                said = rv.drafting_errors(analysis, lang, key, keep)
                if errors or said:
                    for f in errors:
                        click.echo(f"  {click.style('error', fg='red')} {f.code}: {f.message}")
                    for code, message in said:  # (check cannot find these in the text again)
                        mark = click.style("said when drafted", fg="red")
                        click.echo(f"  {mark} {code}: {message}")
                    what = "these QA errors" if not said else "what was found"
                    if not click.confirm(f"Approve despite {what}?", default=False):
                        continue
                    force = True
                decision = rv.approve(
                    analysis,
                    [(lang, key)],
                    name,
                    day,
                    force=force,
                    keep_current=keep,
                    interactive=True,
                )
                review_edits.apply(analysis, decision)
                for note in decision.notes:
                    click.echo(note)
                counts[0] += 1
            else:
                decision = rj.reject(analysis, [(lang, key)], name, day)
                written = review_edits.apply(analysis, decision)
                _report_rejected(ui, decision, written)
                counts[1] += 1
        except DiagnosticError as exc:
            ui.diagnostics(exc.diagnostics)  # refused: nothing written; choose again
            continue
        analysis = _analyze(ui)
        index += 1
