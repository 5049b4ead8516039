"""The up-to-date record of an output folder on disk (uptodate.py: what it is for).

The record is pickled and signed like every cache file (cache.py: keyed BLAKE3, a key kept outside
the project), so a planted file is never unpickled — nor trusted to claim an output is up to
date. An identity is kept packed in 40 bytes (`Identity`): a record holds ~160,000 of them on a
5,000-post site, and bytes pickle and compare much faster than lists of five numbers.

It is saved as what changed since a base file (cache.py `save_delta`): `uptodate-<output>.pickle`
names `uprecord-<output>-<id>.pickle` by its signature, and an edit changes a few dozen of its
items. A record that cannot be used (damaged, not signed by this user, its base missing or not
the one it names, another format) is not: the build runs and `-v` says why (`load_noted`).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bipub.cache import (
    UNREADABLE,
    Base,
    delta_from,
    delta_head,
    delta_size,
    load_delta,
    output_name,
    read_delta,
    save_delta,
)
from bipub.diagnostics import Diagnostic, Severity
from bipub.project import Project
from bipub.schedule import OPEN, build_now, holds
from bipub.write.record import Identity, OutputRecord, TreeRecord

FORMAT = 10  # 4: the output's record for the next build's writer (write/record.py); 5: BLAKE3;
# 6: saved as what changed since a base file (cache.py `save_delta`); 7: its files counted;
# 8: the window of instants its scheduled posts hold for, and those posts (bipub/schedule.py);
# 9: the post and page pages it published, with what they were of (`urls`); 10: its base file
# with each key once and the spare copy's tables as what differs from the output's (`shared`)


@dataclass
class Record:
    """What the last successful build of one output folder saw and wrote."""

    key: str
    inputs: dict[str, Identity]
    files: dict[str, Identity]
    dirs: dict[str, Identity]
    warnings: list[Diagnostic]
    pages: dict[str, int]
    digests: dict[str, bytes] = field(default_factory=dict)  # of each published file's bytes
    spare: TreeRecord | None = None  # the spare copy beside the output (write/record.py)
    spare_note: str = ""  # why the spare copy's record was set aside (not saved)
    changed: str = ""  # how the output was found changed since (not saved)
    # the base file it was read from or saved with (cache.py `save_delta`; not compared)
    base: Base | None = field(default=None, compare=False, repr=False)
    # the other options' keys the output is current for too, with what their build said
    # (`bipub serve`'s build of the pages, then of the other outputs, of the same inputs)
    also: dict[str, Summary] = field(default_factory=dict)
    # each page it published that the next build says is gone if it drops it (its output file:
    # a post's or page's, side-by-side, tag, series, blog or redirect page) → what it was and
    # what it was made of (render/removed_urls.py `Published`)
    urls: dict[str, tuple[str, str]] = field(default_factory=dict)
    # the checked bytes it was read from (`read_delta`: the prescan's child sends them as they
    # are, not pickled again; not compared, not kept by the build)
    raw: tuple[memoryview | bytes, memoryview | bytes] | None = field(
        default=None, compare=False, repr=False
    )
    # the instants between which every post is published or scheduled as in that build, and
    # its scheduled posts ((when, "posts/key"), soonest first): bipub/schedule.py
    window: tuple[float, float] = OPEN
    scheduled: list[tuple[str, str]] = field(default_factory=list)

    def current_for(self, key: str, now: float | None = None) -> bool:
        """Whether the output it describes is a build's with the options `key` (if the inputs
        and the output are as it says) whose posts are published or scheduled at `now` as they
        were then (None: the build's, `build_now`; unknown, SOURCE_DATE_EPOCH not a number:
        not current)."""
        if key != self.key and key not in self.also:
            return False
        if self.window == OPEN:
            return True
        if now is None:
            try:
                now = build_now()
            except ValueError:  # (the build says it)
                return False
        return holds(self.window, now)

    def passed(self, key: str) -> bool:
        """Whether the output it describes is a build's with the options `key` whose posts are
        not published or scheduled at the build's "now" as they were then (`current_for`:
        a scheduled post's date has passed, or the clock went back; `-v` says so)."""
        if self.window == OPEN or (key != self.key and key not in self.also):
            return False
        try:
            return not holds(self.window, build_now())
        except ValueError:  # (the build says it)
            return False

    def output(self) -> OutputRecord:
        """What the next build's writer needs to know of the output folder (write/output.py)."""
        return OutputRecord(
            self.files, self.dirs, self.digests, self.spare, self.spare_note, self.changed
        )


def _path(project: Project, out: Path) -> Path:
    return project.cache / f"uptodate-{output_name(out)}.pickle"


def _tables(out: Path) -> str:
    return f"uprecord-{output_name(out)}"  # (its base files': cache.py `save_delta`)


# the output's folders are its spare copy's of the build before (write/output.py: the new site
# is made in the spare copy, then the two swap places): each is saved as what changed since
# the other's in the base file; the spare copy's files are the output's of the build before
# (write/record.py `next_record`), the same but for what that build changed
_ALIKE = {
    "dirs": "spare_dirs",
    "spare_dirs": "dirs",
    "files": "spare_files",
    "spare_files": "files",
}


def record_size(project: Project, out: Path) -> int:
    """The size in bytes of the up-to-date record of `out` with its base file (0: none, or
    unreadable): how big the last build's site was, known before the record is read (~40
    bytes per input and output file: ~40 KB at 100 posts a language, ~2 MB at 5,000)."""
    return delta_size(_path(project, out), _tables(out))


def load(project: Project, out: Path) -> Record | None:
    """The record of the last build into `out`, or None (`load_noted`)."""
    return load_noted(project, out)[0]


def load_noted(project: Project, out: Path) -> tuple[Record | None, str]:
    """The record of the last build into `out`, or None and why (none: ""; unreadable, not
    signed by us, its base not the one it names: the build runs, the output compared in full)."""
    path = _path(project, out)
    try:
        raw = read_delta(path)
        record = from_raw(*raw)
        if record is None:
            return None, f"up-to-date record ignored ({path.name}: another format)"
        record.raw = raw
        return with_journal(project, out, record)
    except FileNotFoundError as exc:
        if exc.filename is not None and Path(exc.filename) == path:
            return None, ""  # (no record: no note)
        why = f"{exc.strerror}: {Path(exc.filename or path).name}"
    except UNREADABLE as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        why = why or type(exc).__name__
    return None, f"up-to-date record ignored ({path.name}: {why}); the output is compared in full"


@dataclass(frozen=True)
class Summary:
    """What the report of a build with nothing to do says of the last one (result.py)."""

    warnings: list[Diagnostic]
    pages: dict[str, int]
    files: int
    scheduled: list[tuple[str, str]] = field(default_factory=list)  # (Record.scheduled)

    @classmethod
    def of(cls, record: Record, key: str) -> Summary:
        """What the build of the options `key` said (`Record.current_for`)."""
        if key != record.key and key in record.also:
            return record.also[key]
        return cls(record.warnings, record.pages, len(record.files), record.scheduled)


def summary_of(payload: memoryview | bytes, key: str) -> Summary | None:
    """The `Summary` for the options `key` of the record whose file (not its base)
    `read_delta` read (None: of another format). Raises UNREADABLE."""
    head = delta_head(payload)
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        return None
    also = _also(head)
    if key != head["key"] and key in also:
        return also[key]
    return Summary(_warnings(head["warnings"]), head["pages"], head["files"], _scheduled(head))


def _warnings(raw: list[list[Any]]) -> list[Diagnostic]:
    return [Diagnostic(d[0], d[1], d[2], d[3], Severity(d[4]), d[5], d[6]) for d in raw]


def _encoded(warnings: list[Diagnostic]) -> list[list[Any]]:
    return [[d.file, d.line, d.code, d.message, d.severity.value, d.key, d.lang] for d in warnings]


def _also(head: dict[str, Any]) -> dict[str, Summary]:
    """`Record.also` from the head (none in a record saved before it was kept)."""
    found = head.get("also") or {}
    files, later = head["files"], _scheduled(head)
    return {key: Summary(_warnings(w), pages, files, later) for key, (w, pages) in found.items()}


def _scheduled(head: dict[str, Any]) -> list[tuple[str, str]]:
    return [(at, ref) for at, ref in head["scheduled"]]


def from_raw(payload: memoryview | bytes, base: memoryview | bytes) -> Record | None:
    """The record `read_delta` read (None: of another format). Raises UNREADABLE."""
    head, tables, found = delta_from(payload, base)
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        return None
    spare = None
    if head["spare"]:
        spare = TreeRecord(tables["spare_files"], tables["spare_dirs"])
    return Record(
        head["key"],
        tables["inputs"],
        tables["files"],
        tables["dirs"],
        _warnings(head["warnings"]),
        head["pages"],
        tables["digests"],
        spare,
        also=_also(head),
        base=found,
        window=(head["window"][0], head["window"][1]),
        scheduled=_scheduled(head),
        urls=tables["urls"],
    )


def save(project: Project, out: Path, record: Record, before: Record | None = None) -> None:
    """Kept signed like every cache file (cache.py), pickled: on a 5,000-post site it holds
    ~40,000 identities, which JSON took 0.06 s to read and as long to write. Saved as what
    changed since the base file of `before` (the record the build started from) or of
    `record` (cache.py `save_delta`): an edit changes a few of them."""
    head = {
        "format": FORMAT,
        "key": record.key,
        "warnings": _encoded(record.warnings),
        "pages": record.pages,
        "also": {key: (_encoded(s.warnings), s.pages) for key, s in record.also.items()},
        "spare": record.spare is not None,
        "files": len(record.files),  # (`summary_of`)
        "window": list(record.window),
        "scheduled": [list(item) for item in record.scheduled],
    }
    tables: dict[str, dict[Any, Any]] = {
        "inputs": record.inputs,
        "files": record.files,
        "dirs": record.dirs,
        "digests": record.digests,
        "urls": record.urls,
    }
    if record.spare is not None:
        tables["spare_files"] = record.spare.files
        tables["spare_dirs"] = record.spare.dirs
    base = before.base if before is not None and before.base is not None else record.base
    path = _path(project, out)
    record.base = save_delta(path, head, tables, base, _tables(out), _ALIKE, shared=True)
    forget_journal(project, out)  # (it described this output, or an older one)


# `bipub serve`'s journal: the record of the output folder as each update's build left it
# (`save_journal`), for a start after a kill that came before the record was saved again
JOURNALED = " (and the journal of the updates after it)"  # marks the key: never current


def _journal(project: Project, out: Path) -> Path:
    return project.cache / f"uptodate-{output_name(out)}.journal.pickle"


def save_journal(project: Project, out: Path, record: Record) -> None:
    """`bipub serve`, after each build that published: what the output folder and its spare
    copy hold now (their files, folders and hashes; not the inputs), as what changed since the
    record's base file (a few KB). Until the server saves the record again (at a quiet
    moment), a server killed outright leaves a record of an older output; the next start reads
    both (`with_journal`) and checks the folders against the journal as against any record,
    instead of comparing every file. Raises OSError."""
    head = {"format": FORMAT, "journal": True, "spare": record.spare is not None}
    tables = {"files": record.files, "dirs": record.dirs, "digests": record.digests}
    if record.spare is not None:
        tables["spare_files"] = record.spare.files
        tables["spare_dirs"] = record.spare.dirs
    prefix = f"uprjournal-{output_name(out)}"  # (its own base files, if it needs one)
    save_delta(_journal(project, out), head, tables, record.base, prefix, _ALIKE, shared=True)


def with_journal(project: Project, out: Path, record: Record) -> tuple[Record, str]:
    """`record` (read from its file) with the output's files, folders and hashes of the
    journal of the updates after it (`save_journal`), if there is one: the key marked so
    that it is never current (the inputs are the record's, older than that output). The
    build trusts it only where the folders are as it says (uptodate.py `known_output`), as
    any record; a journal that cannot be read is not used (why: `-v`)."""
    path = _journal(project, out)
    try:
        head, tables, _ = load_delta(path)
    except FileNotFoundError as exc:
        if exc.filename is not None and Path(exc.filename) == path:
            return record, ""  # (none: the record is the last build's)
        missing = Path(exc.filename or path).name  # (its base file: replaced since)
        return record, f"journal of the last update ignored ({missing}: {exc.strerror})"
    except UNREADABLE as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return record, f"journal of the last update ignored ({path.name}: {why or 'unreadable'})"
    if not isinstance(head, dict) or head.get("format") != FORMAT or not head.get("journal"):
        return record, f"journal of the last update ignored ({path.name}: another format)"
    spare = TreeRecord(tables["spare_files"], tables["spare_dirs"]) if head["spare"] else None
    merged = Record(
        record.key + JOURNALED,
        record.inputs,
        tables["files"],
        tables["dirs"],
        record.warnings,
        record.pages,
        tables["digests"],
        spare,
        base=record.base,  # (the next save: as what changed since the record's base)
        window=record.window,
        scheduled=record.scheduled,
        urls=record.urls,  # (the record's: a page the journal's output lacks is said gone)
    )
    return merged, "output folder recorded by the journal of the last update (not saved since)"


def forget_journal(project: Project, out: Path) -> None:
    """Remove the journal (the record was saved since: it describes that output or an older
    one). Nothing to remove is fine; a journal that stays is checked against the folders."""
    with contextlib.suppress(FileNotFoundError):
        _journal(project, out).unlink()


def forget(project: Project, out: Path) -> None:
    """Remove the record of `out` (its build could not save what goes with it): the next build
    runs in full. Nothing to remove, or no way to, is fine: a record that stays describes an
    output that has been replaced since, which the next build sees."""
    with contextlib.suppress(OSError):
        _path(project, out).unlink()
    with contextlib.suppress(OSError):
        _journal(project, out).unlink()
    for base in project.cache.glob(f"{_tables(out)}-*.pickle"):
        with contextlib.suppress(OSError):
            base.unlink()
