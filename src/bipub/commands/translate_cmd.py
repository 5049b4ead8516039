"""`bipub translate --to LANG`: draft missing and stale translations through DeepL for review.

    bipub translate --to en                    # draft every gap of the English side
    bipub translate --to ko --only posts/x     # only units whose key or file matches
    bipub translate --to en --dry-run          # what would be sent, and whether it fits the quota
    bipub translate --to en --max-chars 20000  # stop before sending more than 20,000 characters

Exit status: 0 every unit in scope drafted and written (QA and markup findings on drafts are
warnings, and so is a unit not drafted again because its draft is the one a reviewer rejected
for the same source: that is the reviewer's decision kept, not a fault); 1 the content has
errors, or a unit in scope was not written — DeepL refused a segment, stopped the run (quota,
key, network, timeout), Ctrl-C, or --max-chars left it for later (what was drafted is saved and
the next run resumes); a segment too long for a request, or a body section after one that is
not written (translate/blocked.py: said with that one's key, line and cause) — the summary
names each cause; 2 a bad invocation or configuration, including DEEPL_AUTH_KEY not set.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from bipub.commands.ui import Ui
    from bipub.translate.deepl_client import Usage
    from bipub.translate.drafts import Estimate, Plan, Result


def _n(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def _quota_line(est: Estimate, usage: Usage | None, reason: str | None) -> str:
    if usage is None:
        return f"quota: not checked ({reason})"
    if usage.count is None or usage.limit is None:
        return "quota: the usage endpoint gave no character counts"
    left = usage.remaining or 0
    verdict = "fits" if est.chars <= left else "does NOT fit"
    return (
        f"quota: {usage.count:,} of {usage.limit:,} characters used, {left:,} left — "
        f"{est.chars:,} to send {verdict}"
    )


def _dry_run(ui: Ui, plan: Plan, max_chars: int | None, fresh: bool) -> None:
    import os

    from bipub.translate.cache import DraftCache
    from bipub.translate.deepl_client import ENV_KEY, DeepL, DeepLError
    from bipub.translate.drafts import estimate

    est = estimate(plan, DraftCache(plan.root, fresh=fresh))
    click.echo(f"bipub translate --to {plan.target} --dry-run: nothing is sent to DeepL")
    width = max((len(f.source_file) for f in est.files), default=0)
    for f in est.files:
        extra = f", {f.cached} answered from the cache" if f.cached else ""
        click.echo(
            f"  {f.source_lang} → {plan.target}  {f.source_file:<{width}} → {f.target_file}  "
            f"{_n(f.units, 'unit')}, {_n(f.chars, 'character')}{extra}"
        )
    click.echo(
        f"total: {_n(est.units, 'unit')}, {_n(est.chars, 'character')} to send in "
        f"{_n(est.texts, 'text')} (segments: {est.cached:,} cached, {est.duplicates:,} "
        f"duplicate; {_n(est.free, 'unit')} with nothing to send)"
    )
    if max_chars is not None and est.chars > max_chars:
        click.echo(f"--max-chars {max_chars:,}: the run would stop before sending everything")
    usage = None
    reason: str | None = None
    if not est.chars:
        reason = "nothing to send"
    elif not os.environ.get(ENV_KEY, "").strip():
        reason = f"{ENV_KEY} is not set; the usage request needs it"
    else:
        try:
            with DeepL.from_env() as client:
                usage = client.usage()
        except DeepLError as exc:
            reason = exc.reason
    click.echo(_quota_line(est, usage, reason))
    if est.held:
        click.echo(
            f"rejected: {_n(len(est.held), 'unit')} held back without a request: the cache "
            "holds the answer that made the rejected draft (--fresh asks again)"
        )
    _dry_run_rejected(plan)
    for note in plan.notes:
        ui.info(f"note: {note}")


def _dry_run_rejected(plan: Plan) -> None:
    from bipub.translate.rejected import pending

    held = pending(plan)
    for key, rejection in held:
        when = rejection.date.isoformat() if rejection.date else "an earlier day"
        click.echo(f"  {key}: a draft was rejected on {when} for this source")
    if held:
        click.echo(
            f"rejected: {_n(len(held), 'unit')} whose draft a reviewer rejected for the same "
            "source: drafted, but not written if the answer is the rejected text "
            "(--redraft-rejected: written anyway)"
        )


class _Bar:
    """A rich progress bar (characters sent) on a terminal; silent otherwise."""

    def __init__(self, ui: Ui) -> None:
        self.enabled = sys.stderr.isatty() and ui.verbosity >= 0
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> _Bar:
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn

            self.bar = Progress(
                TextColumn("[bold]translating"),
                BarColumn(),
                TextColumn("{task.completed:,}/{task.total:,} characters"),
                console=Console(stderr=True),
                transient=True,
            )
            self.bar.__enter__()
        return self

    def start(self, total: int) -> None:
        if self.bar is not None:
            self.task = self.bar.add_task("translate", total=total)

    def advance(self, n: int) -> None:
        if self.bar is not None and self.task is not None:
            self.bar.advance(self.task, n)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)


def _report(ui: Ui, result: Result) -> None:
    colour = "yellow" if sys.stderr.isatty() else None
    for problem in result.problems:
        click.secho(problem.format(result.target), err=True, fg=colour)
    red = "red" if sys.stderr.isatty() else None
    for held in result.held:  # drafts a reviewer rejected: not written again
        click.secho(held.format(result.target), err=True, fg=colour)
    for skipped in result.skipped:  # UI strings filled in by hand during the run: kept
        click.secho(skipped.format(result.target), err=True, fg=colour)
    for item in result.not_written:  # units merely not sent are counted in the summary
        if not item.cause.startswith("not sent:"):
            click.secho(item.format(result.target), err=True, fg=red)
    for note in result.notes:
        ui.info(f"note: {note}")
    if result.scrubbed:
        n = result.scrubbed
        ui.info(
            f"note: {n} answer{'s' if n > 1 else ''} held DEEPL_AUTH_KEY or 8 or more characters "
            "of it: written with *** in its place (review those drafts; a short key matches "
            "ordinary words)"
        )
    for rel in result.written:
        ui.debug(f"  wrote {rel}")
    if result.budget_reached:
        ui.info("--max-chars reached: run again (with a larger budget) for the rest")
    ui.info(result.summary())


@click.command()
@click.option("--to", "target", required=True, help="Target language, e.g. ko or en.")
@click.option(
    "--only",
    multiple=True,
    help="Only units whose key starts with this prefix or whose file matches this glob "
    "(repeatable), e.g. 'posts/kv-cache' or 'content/ko/posts/*.md'.",
)
@click.option("--dry-run", is_flag=True, help="Send nothing; show what would be sent and the cost.")
@click.option(
    "--fresh",
    is_flag=True,
    help="Ask DeepL again for every segment in scope instead of reusing the answers in "
    ".bipub-cache/deepl/; the new answers replace them. A draft a reviewer rejected is not "
    "written again either way while its source is the same: see --redraft-rejected.",
)
@click.option(
    "--redraft-rejected",
    is_flag=True,
    help="Write a unit's draft even when it is the very text a reviewer rejected for the same "
    "source (status/<lang>.yaml `rejected`); without it such a unit is not drafted again, "
    "and said.",
)
@click.option(
    "--max-chars",
    type=click.IntRange(min=0),
    default=None,
    help="Send at most this many characters; stop before the budget is exceeded.",
)
@click.pass_obj
def translate(
    ui: Ui,
    target: str,
    only: tuple[str, ...],
    dry_run: bool,
    fresh: bool,
    redraft_rejected: bool,
    max_chars: int | None,
) -> None:
    """Draft missing and stale translations into LANG with DeepL, for review.

    Needs DEEPL_AUTH_KEY (and optionally DEEPL_SERVER_URL). Drafts are marked as such in
    status/<lang>.yaml; a reviewed translation is never overwritten, and a draft a reviewer
    rejected is not written again for the same source (--redraft-rejected). Exit status: 0
    every unit written (or held back as rejected: a warning), 1 content errors or a unit not written (each cause is listed; resume by running
    again), 2 bad invocation or configuration (including DEEPL_AUTH_KEY not set).
    """
    from bipub.diagnostics import DiagnosticError
    from bipub.translate.deepl_client import MissingKeyError
    from bipub.translate.drafts import make_plan, run

    try:
        plan = make_plan(ui.root, target, only)
    except DiagnosticError as exc:
        ui.fail(exc)
    if redraft_rejected:
        plan.rejected.clear()  # (written, and remembered still: translate/rejected.py)
    if dry_run:
        _dry_run(ui, plan, max_chars, fresh)
        return
    if not plan.jobs and not plan.too_long:  # (a unit left out as too long is not written)
        for note in plan.notes:
            ui.info(f"note: {note}")
        ui.info(f"Nothing to draft for {target}.")
        return
    try:
        with _Bar(ui) as bar:
            result = run(
                plan,
                max_chars=max_chars,
                on_start=bar.start,
                on_progress=bar.advance,
                fresh=fresh,
            )
    except MissingKeyError as exc:
        click.echo(f"bipub translate: {exc.reason}", err=True)
        sys.exit(2)
    except DiagnosticError as exc:  # a status file turned unreadable while drafting
        ui.diagnostics(exc.diagnostics)
        click.echo("bipub translate: stopped; drafts saved so far are kept", err=True)
        sys.exit(1)
    _report(ui, result)
    if result.stopped:
        click.echo(
            f"bipub translate: stopped — {result.stopped}; drafts saved so far are kept, "
            "run again to resume",
            err=True,
        )
        sys.exit(1)
    if not result.ok:
        waiting = sum(1 for n in result.not_written if not n.retry)
        if waiting == len(result.not_written):
            then = "running again does not write them: see above for what each needs"
        elif waiting:
            then = (
                f"run again to retry them, except {waiting:,} that running again does not "
                "write (see above for what each needs)"
            )
        else:
            then = "run again to retry them"
        click.echo(
            f"bipub translate: {len(result.not_written):,} unit(s) not written (see above); {then}",
            err=True,
        )
        sys.exit(1)
