"""The builds `bipub serve` runs (`ServeBuilds`): each from what it keeps in memory, with the
output folder watched between them (write/tree_watch.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bipub import uprecord, uptodate
from bipub.diagnostics import DiagnosticError
from bipub.project import Project
from bipub.result import report_scheduled
from bipub.write.tree_watch import TreeWatch

if TYPE_CHECKING:  # (pipeline.py is imported when the server starts: `serve`)
    from bipub.restore import Kept
    from bipub.result import BuildResult
    from bipub.serve_save import StopHold


class ServeBuilds:
    """The builds `bipub serve` runs (`__call__`): into `site`, from what it keeps in memory
    (`kept`), with pipeline.build (`build`); the output folder checked through `watch`
    (write/tree_watch.py; None: in full at every build, as for a folder of the user's). After
    a rebuild, at a quiet moment, `idle` looks at what was reported since, and watches the
    folder if it is not watched (the first rebuild, or a check that fell back to the full
    one)."""

    def __init__(
        self,
        root: Path,
        site: Path,
        kept: Kept,
        build: Callable[..., BuildResult],
        watch: TreeWatch | None,
    ) -> None:
        self.root, self.site, self.kept, self._build, self.watch = root, site, kept, build, watch
        self.project = Project(root)
        self.target = site.absolute()
        self._told = False  # (`UNWATCHED` said)
        self._tried: object = None  # the record the watch was last placed for (or tried)
        # a build stopped while it ran (Ctrl-C, SIGTERM, a bug): what `kept` holds may then
        # describe neither the published output nor the one being made (serve_save.py)
        self.broken = False
        self.on_built: Callable[[], None] | None = None  # (after each build that succeeded)
        self._warmed = False  # (`warm` tried)
        self._warm_due = False  # (`warm` left for the first quiet moment: warm_when_quiet)
        self.up_to_date = False  # the last build had nothing to do
        self.builds = 0  # builds run, whether they succeeded or not (serve_save.Sweeps)
        # while serving: a stop during a build waits for its end (serve_save.StopHold)
        self.hold: StopHold | None = None
        self.future = False  # `bipub serve --future` (pipeline.build's `future`)
        self._due: object = None  # the record `due` last said yes for
        # where the scheduled posts are said (`bipub serve`'s ui: result.report_scheduled),
        # when they are not those said last
        self.ui: Any = None
        self._said: list[tuple[str, str]] | None = None

    def __call__(
        self, only: set[str], changed: frozenset[str] | None, *, current: bool = True, **kw: Any
    ) -> BuildResult:
        """One build of `only`; `changed` and `kw` (first, on_publish): as pipeline.build's;
        `current=False`: built even if the output is current (uptodate.Prescan)."""
        key = uptodate.build_key(self.project, self.site, None, only, self.future)[1]
        before = self.kept.records.get(self.target)
        self.broken = True
        self.builds += 1
        if self.hold is not None:
            self.hold.begin()
        try:
            with uptodate.Prescan(
                self.root,
                self.target,
                key,
                self.kept.records,
                fork=False,
                changed=changed,
                watch=self.watch,
                current=current,
            ) as prescan:
                result = self._build(
                    self.root,
                    self.site,
                    only=only,
                    kept=self.kept,
                    prescan=prescan,
                    future=self.future,
                    **kw,
                )
                self._also(before, prescan)
        except DiagnosticError:  # (nothing published, nothing kept changed)
            self.broken = False
            if self.hold is not None:
                self.hold.end()  # (a stop held while it built: now)
            raise
        finally:
            if self.hold is not None:
                self.hold.building = False  # (a stop from now on: at once)
        self.broken = False
        self.up_to_date = result.up_to_date
        if self.ui is not None and result.scheduled != self._said:
            self._said = result.scheduled
            report_scheduled(self.ui, result.scheduled)
        self._journal(before, result)
        if self.on_built is not None and not result.up_to_date:  # (nothing new to save)
            self.on_built()
        if self.hold is not None:
            self.hold.end()  # (a stop held while it built: now, with its state to save)
        return result

    def due(self) -> bool:
        """Whether the clock passed the date of a post the last build scheduled, or went back
        before one it published (uprecord.Record.passed): a rebuild publishes it, though no
        file changed. Said once for a record (a rebuild that fails is not tried again at every
        quiet moment: the next save tries)."""
        record = self.kept.records.get(self.target)
        if record is None or record is self._due or not record.passed(record.key):
            return False
        self._due = record
        return True

    def _also(self, before: uptodate.Record | None, prescan: uptodate.Prescan) -> None:
        """After a build: if it started from an output current for other options (`before`:
        the pages' build, then the other outputs', of the same inputs) and found the output as
        that record says, the output it published is current for those too (it rebuilt its own
        kinds from the same inputs and carried the others as they were): a start after a clean
        stop then finds the pages' build up to date as well as the last one."""
        after = self.kept.records.get(self.target)
        if after is None or before is None or after is before or before.inputs != after.inputs:
            return
        known = prescan.known_output()  # (asked by the build already: its answer)
        if known is None or known.changed or known.key != before.key:
            return
        also = {before.key: uprecord.Summary.of(before, before.key), **before.also}
        also.pop(after.key, None)  # (a key marked current for no build, fast render's or a
        after.also = also  # journal's, is never a build's key: kept, it does nothing)

    def _journal(self, before: uptodate.Record | None, result: BuildResult) -> None:
        """After a build that published: the record of the output as it left it, saved as the
        journal until the next save (uprecord.py `save_journal`: a kill before that save then
        leaves a start that checks the folders against it, not every file of the output). The
        record in memory keeps the base file of the one before (saved as what changed since)."""
        record = self.kept.records.get(self.target)
        if record is None or record is before:
            return  # (up to date, or nothing recorded: nothing published since the last one)
        if record.base is None and before is not None:
            record.base = before.base
        try:
            uprecord.save_journal(self.project, self.target, record)
        except OSError as exc:  # (a full disk: a kill before the next save costs a full check)
            note = f"journal of this update not saved ({exc.strerror or exc})"
            result.cache_note = "; ".join(n for n in (result.cache_note, note) if n)

    def warm(self, *, quiet: bool = False) -> str:
        """After the first build (its pages, then the other outputs): if it kept no pages (it
        rendered every page, or had nothing to do), the pages are built once more with nothing
        changed, so that what the build keeps between updates (render/kept_pages.py
        `KeepMemo`, the pairing, the plan, the output folder's watch) is made now and not by
        the first update (~0.3 s more at 5,000 posts a language; ~2 s after a start with
        nothing to rebuild). The output is current for the pages after the other outputs'
        build (the record says so: uprecord.Record.also): the pages are built all the same
        (`current`). After a start with nothing to rebuild this is left for the first quiet
        moment of the server (`warm_when_quiet`), so that it serves at once. What to say
        (-v), or ""."""
        memo = self.kept.keep
        if memo.out or self._warmed:
            self._warm_due = False
            return ""
        if self.up_to_date and not quiet:  # (a start after a clean stop: serve at once)
            self._warm_due = True
            return (
                "pages not built again before serving: nothing changed since the last build "
                "(they are at the first quiet moment, so that the first update checks only "
                "what it changed)"
            )
        self._warmed = True  # (once: a build with nothing to do makes no memo)
        self._warm_due = False
        when = "at the first quiet moment" if quiet else "before serving"
        why = memo.why or "no pages kept by the first build"
        try:
            self({"html"}, None, current=False)  # (current after the other outputs' build)
        except DiagnosticError as exc:
            return f"pages not built again {when} ({len(exc.diagnostics)} errors)"
        if not memo.out:  # (up to date: nothing planned; or still no trusted record)
            still = memo.why or "the build had nothing to do"
            return f"pages built again {when} ({why}); no pages kept still ({still})"
        return f"pages built again {when} ({why}): {memo.note}"

    def warm_when_quiet(self, waiting: Callable[[], bool]) -> str:
        """At a quiet moment: the pages' build `warm` left for it (a start with nothing to
        rebuild), unless a save is `waiting` (its update makes what the build keeps) or an
        update made it already. What to say (-v), or ""."""
        if not self._warm_due or waiting():
            return ""
        return self.warm(quiet=True)

    UNWATCHED = (
        "output folder not watched (a folder of yours: --out): each rebuild checks it in full"
    )

    def idle(self) -> str:
        """At a quiet moment (and after the first rebuild): what was reported changed in the
        output folder since the last look is looked at now, not by the next rebuild (a new
        post's second step changes ~1,800 pages: ~0.1 s); if the folder is not watched, or was
        changed by something else, it is watched again. What to say (-v), or ""."""
        watch = self.watch
        if watch is None:
            said, self._told = ("" if self._told else self.UNWATCHED), True
            return said
        if watch.never:  # (said when it was found: the same at every quiet moment)
            return ""
        record = self.kept.records.get(self.target)
        said = ""
        if watch.armed:
            if record is not None and watch.vouch(uptodate.watch_tables(self.target, record)):
                return ""
            said = f"output folder not as recorded ({watch.note}); " if record else ""
        elif record is self._tried:
            return ""  # (tried for this record already: once per rebuild)
        self._tried = record
        if record is None:
            watch.close()
            return "output folder not watched (no record of it): each rebuild checks it in full"
        if watch.arm(uptodate.watch_tables(self.target, record)):
            return f"{said}output folder {watch.note}: each rebuild looks at what was reported"
        return f"{said}output folder not watched ({watch.note}): each rebuild checks it in full"

    def close(self) -> None:
        if self.watch is not None:
            self.watch.close()
