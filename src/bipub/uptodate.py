"""Is the output already up to date? The check a warm build does before anything else.

After a successful build, bipub records (in .bipub-cache/, one file per output folder):

* the identity of every input file — (mtime, ctime, size, inode) of each file under content/,
  templates/, locales/, static/, status/, bipub.yaml, glossary.yaml, the bundled theme and the
  version files of the installed mermaid-cli (mermaid_cli.VERSION_FILES) — and
  the build's options (languages, output kinds, bipub and Python version, SOURCE_DATE_EPOCH);
* the identity of every output file it published and of every folder of the output (a file
  added to or removed from a folder changes the folder's mtime);
* the build's warnings and page counts.

The next build with the same options compares: if no input file was added, removed or touched
and the output is exactly as published, there is nothing to do. It says so, repeats the
previous build's warnings (so `--strict` fails as it did), and exits — no document is read and
nothing is written. Any difference, however small, runs the real build, which itself keeps
every page whose inputs did not change. ctime cannot be set back by tools like `touch -d`, so a
file edited and re-dated still counts as changed.

The record is pickled and signed like every cache file (cache.py: keyed BLAKE3, a key kept outside
the project), so a planted file is never unpickled — nor trusted to claim an output is up to
date. An identity is kept packed in 40 bytes (`Identity`): a record holds ~25,000 of them on a
5,000-post site, and bytes pickle and compare much faster than lists of five numbers.

`Prescan` does the first part of every cached build — scan the inputs, read the record, check the
output — in a forked child process, started by the command line before it imports the rest of
bipub (pydantic, Markdown, Jinja: ~0.3 s), so that the answer is ready when the build needs it.
Where it does not fork (`bipub serve`, whose server threads make forking unsafe; a build called
in a process that imported bipub already), a big output (`CHECK_APART` folders and files) is
checked by another process all the same while the build loads and plans (`Checker`: a small
program, write/tree_check.py, started without copying this process), and a small one here.
Either way every recorded folder and file is looked at before the writer trusts the record
(docs/security.md, guarantee 2): the check is moved off the build's path, never left out.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import mmap
import os
import pickle
import select
import signal
import struct
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain, compress
from operator import ne
from pathlib import Path
from typing import IO

from bipub.cache import UNREADABLE
from bipub.code_stamp import CODE
from bipub.inputs import CHANGE_SET_DIR as CHANGE_SET_DIR  # (re-exported: the input scan)
from bipub.inputs import INPUT_DIRS as INPUT_DIRS
from bipub.inputs import INPUT_FILES as INPUT_FILES
from bipub.inputs import THEME_DIR as THEME_DIR
from bipub.inputs import file_identity as file_identity
from bipub.inputs import mode as mode
from bipub.inputs import rescan_inputs as rescan_inputs
from bipub.inputs import scan_inputs as scan_inputs
from bipub.parallel import can_fork
from bipub.project import Project
from bipub.uprecord import FORMAT, Summary, from_raw, summary_of
from bipub.uprecord import Record as Record  # (re-exported: the record, kept in uprecord.py)
from bipub.uprecord import forget as forget
from bipub.uprecord import load as load
from bipub.uprecord import load_noted as load_noted
from bipub.uprecord import record_size as record_size
from bipub.uprecord import save as save
from bipub.write import tree_check
from bipub.write.folders import prev_folder
from bipub.write.ownership import real_output
from bipub.write.record import Identity as Identity  # (re-exported: the record's identities)
from bipub.write.record import relinked
from bipub.write.tree_watch import Tables, TreeWatch

# from how many recorded folders and files the output is checked in another process while the
# build loads and plans, where the prescan did not fork (`bipub serve`; `Checker`)
CHECK_APART = 10_000


def options_key(*parts: object) -> str:
    """What else decides the output: bipub and Python version, the environment that changes
    bytes (SOURCE_DATE_EPOCH) and the caller's options."""
    data = repr((FORMAT, CODE, sys.version, os.environ.get("SOURCE_DATE_EPOCH"), parts))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def _output_unchanged(out: Path, files: dict[str, Identity], dirs: dict[str, Identity]) -> bool:
    """Every recorded folder (first: a folder swapped for a symbolic link fails here) and file
    has its recorded identity (write/tree_check.py)."""
    return tree_check.unchanged(str(out), chain(dirs, files), chain(dirs.values(), files.values()))


def output_intact(out: Path, record: Record) -> bool:
    """Whether the output folder is exactly as the build that saved `record` left it."""
    return _output_unchanged(out, record.files, record.dirs)


def folders_intact(out: Path, record: Record) -> bytes:
    """Whether the output, and its spare copy (`.site.prev`), are as the build that saved
    `record` left them: nothing added to, removed from or replaced in any folder (the folder's
    identity shows it) and no published file edited in place (only the file's own identity
    shows that). The spare copy's files are not looked at one by one: those the last build
    did not change are hard links to the published ones (an edit in place shows there), and
    every other one is written or linked again by the next update.
    b"+": both are; b"s": the output's are, the spare copy's are not; b"-": the output's are not."""
    if not _output_unchanged(out, record.files, record.dirs):
        return b"-"
    if record.spare is None:
        return b"+"
    prev = prev_folder(real_output(out))
    return b"+" if _output_unchanged(prev, {}, record.spare.dirs) else b"s"


def watch_tables(out: Path, record: Record) -> Tables:
    """What a TreeWatch compares (write/tree_watch.py): `folders_intact`'s tables."""
    spare = record.spare.dirs if record.spare is not None else None
    prev = str(prev_folder(real_output(out)))
    return Tables(str(out), prev, record.files, record.dirs, spare)


def build_key(
    project: Project,
    out: Path | None,
    langs: Iterable[str] | None,
    only: Iterable[str] | None,
    future: bool = False,
) -> tuple[Path, str]:
    """A build's output folder and the key of its options (`options_key`; `future`: --future,
    bipub/schedule.py)."""
    target = (out if out is not None else project.default_out).absolute()
    parts: tuple[object, ...] = (str(target), sorted(langs or []), sorted(only or []))
    return target, options_key(*parts, *(["future"] if future else []))


@dataclass
class Scan:
    """The inputs as they are now, and the record of the last build into the output folder."""

    inputs: dict[str, Identity]
    record: Record | None
    why: str = ""  # why the record of the last build was not used, if there was one (`-v`)
    changed: dict[str, Identity] | None = None  # (sent by the prescan's child: `_sent_scan`)


def _same_inputs(scan: Scan, key: str) -> bool:
    """The inputs and options (`key`) are those of the last build's record."""
    record = scan.record
    return record is not None and record.current_for(key) and record.inputs == scan.inputs


def _received(data: memoryview) -> Scan | None:
    """The scan the prescan's child sent (`Prescan._child`): pickled, with the record's files
    as it read them after it (their signatures checked there); None if they cannot be read."""
    head, small = struct.unpack_from("<QQ", data)
    at = struct.calcsize("<QQ")
    scan: Scan = pickle.loads(data[at : at + head])  # noqa: S301 - our own child's
    if small:
        try:
            scan.record = from_raw(data[at + head : at + head + small], data[at + head + small :])
        except UNREADABLE:  # (cannot be: read there by the same code) asked here instead
            return None
    if scan.changed is not None:  # the record's inputs but for these (`_sent_scan`)
        if scan.record is None:  # (cannot be: sent with the record)
            return None
        scan.inputs = dict(scan.record.inputs)
        scan.inputs.update(scan.changed)
        scan.changed = None
    return scan


def _sent_scan(scan: Scan) -> Scan:
    """What the prescan's child sends of `scan`: if the inputs are the record's paths in its
    order (after an edit), only the identities that changed (`changed`; `_received` makes the
    rest of the record's: ~10,000 fewer of each made at 5,000 posts a language)."""
    sent = dataclasses.replace(scan, record=None)
    was, now = scan.record.inputs if scan.record is not None else {}, scan.inputs
    if was and len(was) == len(now) and list(was) == list(now):
        sent.inputs = {}
        sent.changed = {k: now[k] for k in compress(now, map(ne, was.values(), now.values()))}
    return sent


class Checker:
    """`folders_intact` in a process of its own (write/tree_check.py run by this Python), for
    a caller that cannot fork (`bipub serve`: other threads run) or should not (a process that
    imported bipub already pays for copying its address space): started with the record,
    asked when the writer needs the answer. Started by posix_spawn (no copy of this process),
    with the tables in an unlinked temporary file as its standard input."""

    def __init__(self, out: Path, record: Record) -> None:
        prev = prev_folder(real_output(out)) if record.spare is not None else None
        spare = record.spare.dirs if record.spare is not None else None
        if not sys.executable:  # (an embedded Python: no program to start)
            raise OSError("no Python interpreter to start")
        data = tree_check.request(str(out), (record.dirs, record.files), str(prev), spare)
        self.pid, self._pipe = 0, -1
        read, write = os.pipe()
        try:
            with tempfile.TemporaryFile() as tables:
                tables.write(data)
                tables.flush()
                tables.seek(0)
                argv = [sys.executable, "-I", "-S", tree_check.__file__]
                actions = [
                    (os.POSIX_SPAWN_DUP2, tables.fileno(), 0),
                    (os.POSIX_SPAWN_DUP2, write, 1),
                    (os.POSIX_SPAWN_CLOSE, read),
                ]
                self.pid = os.posix_spawn(sys.executable, argv, os.environ, file_actions=actions)
        except BaseException:
            os.close(read)
            raise
        finally:
            os.close(write)
        self._pipe = read

    def answer(self) -> bytes:
        """Its answer (b"+", b"s" or b"-": `folders_intact`), or b"" if it gave none."""
        try:
            found = os.read(self._pipe, 1)
        except OSError:
            found = b""
        self.close()
        return found

    def close(self) -> None:
        if self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.pid = 0
        if self._pipe >= 0:
            os.close(self._pipe)
            self._pipe = -1


class Prescan:
    """`scan_inputs`, `load` and `output_intact` for one build, done ahead in a forked child.

    The command line starts it before importing the rest of bipub; the child scans the inputs
    (~10,000 lstat calls on a 5,000-post site), reads the record, sends both back through an
    unlinked temporary file and then checks the output folder while the parent goes on
    importing, loading and rendering: every file and folder (~28,000 lstat calls) if the
    inputs and options are those of the record (only then can the build be up to date), else
    the same for the output and its spare copy, for the writer (`folders_intact`,
    `known_output`). `scan()` and `intact()` wait for the child's answers. Where the caller
    asks for no child (`fork=False`), where forking is unsafe (other threads running, as in
    `bipub serve`) or impossible, or if the child gives no answer, the same functions run here
    instead, when first asked — so an error (an unreadable folder) is raised by the build as
    usual; but the output's check, when it is big and the build is not up to date, starts in
    a `Checker` process as soon as the record is read.

    Use it as a context manager: leaving it ends the child (killed if it is still checking
    an output nobody asked about: it writes nothing)."""

    def __init__(
        self,
        root: Path,
        target: Path,
        key: str,
        records: dict[Path, Record | None] | None = None,
        *,
        fork: bool = True,
        changed: Iterable[str] | None = None,
        watch: TreeWatch | None = None,
        current: bool = True,
    ) -> None:
        self.project = Project(root)
        # False: the build runs even if the output is current (`bipub serve`'s build of the
        # pages before it serves, made for what it keeps in memory: serve_builds.py `warm`)
        self._may_be_current = current
        # the caller's watch on the output folder (`bipub serve`: write/tree_watch.py), which
        # vouches for the record where it can: then the output is not checked in full
        self._watch = watch
        # the paths changed since the last scan, which the caller vouches for (`rescan_inputs`:
        # `bipub serve`'s watcher), or None (every input scanned)
        self._changed = changed
        self.target, self.key = target, key
        # the records a caller keeps in memory (`bipub serve`: `Records`), used instead of the
        # file when they hold one for `target` (None: the last build left none)
        self._records = records
        self._scan: Scan | None = None
        self._intact: bool | None = None
        self._same: bool | None = None  # `same_inputs`'s answer
        self._folders: bytes | None = None  # `folders_intact`'s answer
        self._known: tuple[Record | None] | None = None  # `known_output`'s answer
        self._size: int | None = None  # of the scan the child sent (`_sent`)
        self._pid = 0
        self._pipe = -1
        self._file: IO[bytes] | None = None
        self._checker: Checker | None = None  # `folders_intact` in another process, if started
        self.note = ""  # why the child did not do its work, if so (`bipub -v build` says it)
        # `fork=False`: a caller that has imported bipub already (`pipeline.build` called in a
        # process: a test, a script) gains little from a head start and would pay for copying
        # its own, maybe large, address space (page tables, then copy-on-write faults)
        if fork and changed is None and can_fork():  # (not while other threads run)
            try:
                self._start()
            except OSError as exc:  # no temporary file, pipe or process: scan here instead
                self.close()
                self.note = f"inputs scanned in-process (could not start the prescan: {exc})"

    def _start(self) -> None:
        self._file = file = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
        read, write = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(read)
            os.close(write)
            raise
        if pid == 0:  # the child: answer, then leave without running the parent's cleanup
            try:
                self._child(file, write)
            finally:
                os._exit(0)
        os.close(write)
        self._pid, self._pipe = pid, read

    def _child(self, file: IO[bytes], pipe: int) -> None:
        scan = Scan(scan_inputs(self.project), *self._record())
        same = _same_inputs(scan, self.key)
        os.write(pipe, b"=" if same else b"~")  # first: a build with work to do can start
        raw = scan.record.raw if scan.record is not None else None
        if raw is not None:  # the record's files as read (their signatures checked): sent as
            # they are, not pickled again (~0.1 s at 5,000 posts a language)
            sent = _sent_scan(scan)
            pieces = [pickle.dumps(sent, protocol=pickle.HIGHEST_PROTOCOL), *raw]
        else:
            pieces = [pickle.dumps(scan, protocol=pickle.HIGHEST_PROTOCOL), b""]
        sizes = struct.pack("<QQ", len(pieces[0]), len(pieces[1]))
        file.write(sizes)
        file.writelines(pieces)
        file.flush()
        os.write(pipe, struct.pack("<Q", len(sizes) + sum(map(len, pieces))))
        if scan.record is None:
            return
        if not same:
            # not up to date whatever the output holds: the output and its spare copy are
            # checked for the writer (`known_output`)
            os.write(pipe, folders_intact(self.target, scan.record))
            return
        os.write(pipe, b"1" if output_intact(self.target, scan.record) else b"0")

    def _read(self, size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = os.read(self._pipe, size - len(data))
            if not chunk:
                break
            data += chunk
        return data

    def same_inputs(self) -> bool:
        """Whether the inputs and options are those of the last build's record, so that the
        output may be up to date (`unchanged` says whether it is): the child's first answer,
        sent before the scan itself, so that a build with work to do starts sooner."""
        if self._same is None and not self._may_be_current:
            self._same = False
        if self._same is None:
            if self._pid and self._scan is None:
                self._verdict()
            if self._same is None:  # (no child, or no answer from it)
                self._same = _same_inputs(self.scan(), self.key)
        return self._same

    @property
    def known_same(self) -> bool | None:
        """`same_inputs`'s answer if it is known already (None: not yet asked, or not come)."""
        return self._same

    def answers_within(self, seconds: float) -> bool:
        """Whether `same_inputs` has its answer, or will have it without waiting, within
        `seconds` (the child's first answer readable by then; no child: it is worked out
        here, when asked). (`bipub build` imports its stages meanwhile when it is slow to
        come: a big site's scan.)"""
        if self._same is not None or not self._pid or self._scan is not None:
            return True
        ready, _, _ = select.select([self._pipe], [], [], seconds)
        return bool(ready)

    def _verdict(self) -> None:
        answer = self._read(1)
        if answer in (b"=", b"~"):
            self._same = answer == b"="

    def scan(self) -> Scan:
        """The inputs now and the last build's record (None: none, unreadable or not ours)."""
        if self._scan is None:
            if (size := self._sent()) and self._file is not None:
                fd = self._file.fileno()
                if os.fstat(fd).st_size >= size:  # written by our own child into a private
                    # file: mapped, not copied (~9 MB at 5,000 posts a language; unmapped
                    # when the scan is made: nothing made of it holds a view of it)
                    self._scan = _received(memoryview(mmap.mmap(fd, size, prot=mmap.PROT_READ)))
            if self._scan is None:  # no child, or it died before answering: ask here
                if self._pid:
                    self.note = "inputs scanned in-process (the prescan gave no answer)"
                self.close()
                record, why = self._record()
                if record is not None:
                    record.raw = None  # (its files' bytes: not kept by the build)
                self._scan = Scan(self._inputs(record), record, why)
                self._check_apart(self._scan)
            if self._scan.why:
                self._add_note(self._scan.why)
        return self._scan

    def _sent(self) -> int:
        """The size of the scan the child sent (`_child`), once it said it (0: no answer)."""
        if self._size is None:
            self._size = 0
            if self._pid and self._file is not None:
                if self._same is None:
                    self._verdict()
                header = self._read(8)
                if len(header) == 8:
                    (self._size,) = struct.unpack("<Q", header)
        return self._size

    def current(self) -> Summary | None:
        """What the report of a build with nothing to do needs of the record (`unchanged`'s),
        if the output is current: from the child's answers and the record's head alone when
        it sent the record's files (its tables, ~160,000 items at 5,000 posts a language,
        are not read: the build ends here), else from `unchanged`."""
        if not self.same_inputs():
            return None
        if self._scan is None and self._intact is None and self._sent() > 16 and self._file:
            fd = self._file.fileno()
            head, small = struct.unpack("<QQ", os.pread(fd, 16, 0))
            found = summary_of(os.pread(fd, small, 16 + head), self.key) if small else None
            if found is not None:
                answer = self._read(1)
                if answer in (b"0", b"1"):
                    self._intact = answer == b"1"  # (if not: `scan` reads the rest)
                    return found if self._intact else None
        record = self.unchanged()
        return Summary.of(record, self.key) if record is not None else None

    def _check_apart(self, scan: Scan) -> None:
        """Start checking the output in another process if the writer will need the answer
        (the build is not up to date) and the output is big (`CHECK_APART`) — unless the
        caller's watch vouches for the record (then the answer is b"+")."""
        record = scan.record
        if record is None or (
            self._may_be_current and record.current_for(self.key) and record.inputs == scan.inputs
        ):
            return
        if self._watch is not None:
            vouched = self._watch.vouch(watch_tables(self.target, record))
            how = "watched since the last update" if vouched else "checked in full"
            self._add_note(f"output folder {how}: {self._watch.note}")
            if vouched:
                self._folders = b"+"
                return
        spare = len(record.spare.dirs) if record.spare is not None else 0
        if len(record.files) + len(record.dirs) + spare < CHECK_APART:
            return
        try:
            self._checker = Checker(self.target, record)
        except (OSError, AttributeError) as exc:  # (no posix_spawn here: checked when asked)
            self._add_note(f"output checked in-process (could not start the check: {exc})")

    def _add_note(self, note: str) -> None:
        self.note = f"{self.note}; {note}" if self.note else note

    def _inputs(self, record: Record | None) -> dict[str, Identity]:
        """The inputs now: from the last build's record and the caller's change set where it
        stands for a scan (`rescan_inputs`), else scanned (`-v` says why)."""
        if self._changed is None:
            return scan_inputs(self.project)
        if record is None:
            why = "no record of the last build's inputs"
        else:
            found, why = rescan_inputs(self.project, record.inputs, self._changed)
            if found is not None:
                self.note = f"inputs from the last build's and the watcher's changes ({why})"
                return found
        self.note = f"inputs scanned in full: {why}"
        return scan_inputs(self.project)

    def _record(self) -> tuple[Record | None, str]:
        """The record of the last build, and why it was not used if there was one."""
        if self._records is not None and self.target in self._records:
            return self._records[self.target], ""
        return load_noted(self.project, self.target)

    def intact(self) -> bool:
        """Whether the output folder is exactly as the last build into it left it (whatever
        its options; False if there is no record)."""
        record = self.scan().record
        if record is None:
            return False
        if self._intact is None:
            answer = self._read(1) if self._pid else b""
            if self._pid and not answer:
                self.note = "output checked in-process (the prescan gave no answer)"
            self.close()
            if answer in (b"0", b"1"):
                self._intact = answer == b"1"
            else:  # (no answer, or the child did not check: the inputs changed)
                self._intact = output_intact(self.target, record)
        return self._intact

    def unchanged(self) -> Record | None:
        """The record, if the output it describes is still current for these inputs and options."""
        scan = self.scan()
        if scan.record is None or not _same_inputs(scan, self.key):
            return None
        return scan.record if self.intact() else None

    def known_output(self) -> Record | None:
        """The last build's record, for the writer (write/output.py), with what is known not
        to be as it says: every folder and file of the output and of its spare copy is checked
        (a file added, removed, replaced or edited in place by hand). The writer looks at every
        file of a tree that was changed. (Worked out once: asked again, the same answer.)"""
        if self._known is None:
            self._known = (self._known_output(),)
        return self._known[0]

    def _known_output(self) -> Record | None:
        record = self.scan().record
        if record is None:
            return None
        if self._intact is not None:
            if self._intact:
                return record
            if (fixed := self._relinked(record)) is not None:
                return fixed
            return dataclasses.replace(record, changed="a file of the output folder was changed")
        if self._folders is None:
            answer = self._read(1) if self._pid else b""
            if self._checker is not None:
                answer = self._checker.answer()
                if answer not in (b"+", b"s", b"-"):
                    self.note = "output checked in-process (the check gave no answer)"
            self.close()
            if answer not in (b"+", b"s", b"-"):  # (no child, or no answer)
                answer = folders_intact(self.target, record)
            self._folders = answer
        how = "a file added, removed, replaced or edited"
        if self._folders == b"-":
            if (fixed := self._relinked(record)) is not None:
                return fixed
            return dataclasses.replace(record, changed=f"the output folder was changed ({how})")
        if self._folders == b"s" and record.spare is not None:
            why = f"it was changed since the last build ({how})"
            return dataclasses.replace(record, spare=None, spare_note=why)
        return record

    def _relinked(self, record: Record) -> Record | None:
        """`record`, if the output differs from it only by files a killed build linked into
        its staging folder (write/record.py `relinked`: their bytes hashed again and found to
        be those recorded), with their identities now; its spare copy's record only if its
        folders are as recorded (else none: the writer checks that copy in full)."""
        moved = relinked(str(self.target), record.files, record.dirs, record.digests)
        if moved is None:
            return None
        fixed = dataclasses.replace(record, files={**record.files, **moved}, raw=None)
        self._add_note(
            f"output folder as recorded but for {len(moved)} files linked since (a build "
            "stopped while it ran, or their links in the spare copy changed; their bytes "
            "hashed again: as recorded)"
        )
        spare = record.spare
        if spare is not None and not _output_unchanged(
            prev_folder(real_output(self.target)), {}, spare.dirs
        ):
            why = "it was changed since the last build"
            return dataclasses.replace(fixed, spare=None, spare_note=why)
        return fixed

    def close(self) -> None:
        if self._checker is not None:
            self._checker.close()
            self._checker = None
        if self._pid:
            # done, or still checking an output nobody will ask about: it writes nothing
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._pid, signal.SIGKILL)
            os.waitpid(self._pid, 0)
            os.close(self._pipe)
            self._pid = 0
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> Prescan:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
