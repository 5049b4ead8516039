"""The output tree: staged in a folder beside the output, then swapped in atomically.

* Files are written into the staging folder as they are rendered (memory stays flat however big
  the site), by this process or by render workers attached to the same folder.
* Two sources never write one path (the second `add` is an error naming both).
* Paths are checked to stay inside the output folder (resolved, not string-prefix compared).
* `publish` swaps the staging folder in with two renames: an error or a kill at any point leaves
  the previous site as it was.
* Double buffering: the site replaced by a publish is kept beside it (`.site.prev`) and becomes
  the next build's staging folder, which is brought up to date file by file. Deleting and
  re-creating a whole tree on every build is what makes big sites slow (on disks mounted with
  `discard`, removing 15,000 folders takes longer than rendering them), so nothing is deleted
  but files that really went away, and those only after the swap: until then they are moved
  into a trash folder beside the output (files.Trash).
* An update touches only what changed (issue 17). The last build's record (write/record.py)
  says what the published site and the spare copy hold; with it, a file rendered with the
  bytes it had is recognised by its hash, a file the last build did not change is already in
  the spare copy (the same inode), and what went away is removed by name: nothing else in
  either tree is looked at. The record is used only if the up-to-date check found every folder
  of the output as recorded (uptodate.py `known_output`) and the spare copy's folder has not
  been moved, added to or removed from since; every path the update writes is checked against
  it first. Anything that does not match (`-v` says what) makes the build compare every file
  with the published one and walk every folder, as without a record.
* A file whose bytes equal the published one is linked to it instead of written (unchanged
  files keep their mtime: rsync uploads only what changed); a file is replaced by a new one,
  never truncated in place (staged files share inodes with the live site). The same big text
  added at two paths (the root llms.txt and llms-full.txt) is written once, then linked.
* A partial build (`--lang ko`, `--only pdf`) links the previous site's files that it does not
  rebuild.
* Ownership: bipub writes only into a folder it made (its marker file `.bipub-output` in it);
  a non-empty folder without it, the project folder, and any folder that is, holds or lies
  inside an input (content/, templates/, .git/, …) is refused before anything is written
  (`claim`), and a folder bipub does not own is never moved aside.
* An output that is a symbolic link (a web root) is published through the link: staged and
  swapped beside the folder it points to; the link itself stays as it is.
* Folders and files follow the umask, like any other tool's output.
* Two outputs where one needs a folder and the other a file of the same name are an error
  before anything is published (`publish`), never one silently replacing the other.
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path

from bipub.diagnostics import Diagnostic, Severity
from bipub.write import files
from bipub.write.files import Pieces as Pieces
from bipub.write.files import Trash
from bipub.write.files import exchange as _exchange  # (called so: tests wrap it)
from bipub.write.files import file_identity as file_identity
from bipub.write.files import write_failed as write_failed
from bipub.write.folders import check_folders as _check_folders
from bipub.write.folders import check_relative as check_relative
from bipub.write.folders import clash as _clash
from bipub.write.folders import clean_leftovers as clean_leftovers
from bipub.write.folders import clean_leftovers_locked as _clean_leftovers
from bipub.write.folders import inside as inside
from bipub.write.folders import make_parents as _make_parents
from bipub.write.folders import make_staging as _make_staging
from bipub.write.folders import owned_by as owned_by
from bipub.write.folders import prev_folder as prev_folder
from bipub.write.folders import prune as _prune
from bipub.write.folders import staging_name as _staging_name
from bipub.write.folders import trash_name as _trash_name
from bipub.write.folders import umask as _umask
from bipub.write.lock import output_lock
from bipub.write.ownership import MARKER as MARKER  # (re-exported: callers see one module)
from bipub.write.ownership import MARKER_TEXT, claim, owned
from bipub.write.ownership import published_files as published_files
from bipub.write.record import (
    INODE_AT,
    OutputRecord,
    TreeRecord,
    describe,
    folders_of,
    inode,
    next_folders,
    next_record,
    prune_known,
    same_inode,
    trusted_live,
    trusted_spare,
    unpack_four,
)
from bipub.write.record import digest as record_digest

Identity = tuple[int, int, int, int]  # (mtime_ns, ctime_ns, size, inode): `file_identity`
BIG = 1 << 16  # bytes: a text added again is not hashed again, nor written again (`_write`)


@dataclass(frozen=True)
class OutputFile:
    lang: str | None  # the language that owns it; None = shared by all languages
    origin: str  # what produced it (for clash messages)
    digest: bytes | None = None  # the hash of its bytes (record.digest), where this build has it
    done: str = ""  # "written" (new bytes), "linked" (the published file, linked), "" (neither)
    found: str = ""  # what the staging folder held at its path, where that was not recorded


@dataclass
class OutputTree:
    out: Path
    staging: Path
    files: dict[str, OutputFile] = field(default_factory=dict)
    kept: set[str] = field(default_factory=set)  # previous files reused as they were
    reused_pages: int = 0  # pages kept because their fingerprint did not change
    on_publish: list[Callable[[Path], None]] = field(default_factory=list)  # run after the swap
    warnings: list[Diagnostic] = field(default_factory=list)  # what the caller should report
    lock_fd: int = -1  # the output lock's file: closed in forked workers (they never hold it)
    _dirs: set[str] = field(default_factory=set)  # staging folders known to be real folders
    fresh: bool = False  # the staging folder started empty: nothing old to prune
    first: bool = False  # no site was published here yet: no published file to compare with
    known: OutputRecord | None = None  # the last build's record of the output, if any
    # the same, if the output folder is as it says (else None)
    live: OutputRecord | None = None
    # what the staging folder holds (the spare copy's record), if it matches: then only the
    # paths this build changes are touched (else every file is compared, every folder walked)
    spare: TreeRecord | None = None
    note: str = ""  # why the output was checked in full (`bipub -v build`)
    removed: list[str] = field(default_factory=list)  # files and folders `publish` removed
    added: set[str] = field(default_factory=set)  # the files given to `add` (here or merged)
    _folders: tuple[int, set[str]] | None = field(default=None, repr=False)  # `folders()`
    # the last big texts added, with their bytes and hash (llms-full.txt is written twice)
    _encoded: list[tuple[object, bytes | Pieces, bytes]] = field(default_factory=list, repr=False)
    # the last big bytes written, with where (the same bytes again: linked to it, `_write`)
    _written: list[tuple[bytes | Pieces, str]] = field(default_factory=list, repr=False)
    # where what is removed from the staging folder goes until the swap (files.Trash; made
    # by `create`, shared by the render workers' trees: `attach`)
    trash: Trash | None = field(default=None, repr=False)

    @classmethod
    def create(cls, out: Path, known: OutputRecord | None = None) -> OutputTree:
        """A tree staged beside `out` (a folder `claim` allowed), its marker already in it.
        `known`: the last build's record of the output (write/record.py), checked here."""
        out = out.absolute()
        out.parent.mkdir(parents=True, exist_ok=True)
        prev = prev_folder(out)
        live, why = trusted_live(out, known)
        if owned(prev):  # the site before the current one: updated in place below
            spare, why = trusted_spare(prev, live, why)
            staging = _staging_name(out)
            prev.rename(staging)
            os.chmod(staging, 0o777 & ~_umask())  # (made 0700 by an older bipub's mkdtemp)
            tree = cls(out, staging, known=known, live=live, spare=spare)
            if spare is None and not (known is not None and known.changed):  # (said: pipeline)
                tree.note = f"the spare copy of the site ({prev.name}) checked in full: {why}"
        else:
            first = not os.path.lexists(out)
            tree = cls(out, _make_staging(out), fresh=True, first=first, known=known, live=live)
        tree.trash = files.Trash(str(_trash_name(out)))
        tree.trash.make()
        tree.add(MARKER, MARKER_TEXT, None, "bipub (output marker)")
        return tree

    def attach(self) -> OutputTree:
        """Another view on this tree's staging folder, with no files yet (a render worker's:
        the files it writes are merged into this tree afterwards)."""
        return OutputTree(
            self.out,
            self.staging,
            fresh=self.fresh,
            first=self.first,
            lock_fd=self.lock_fd,
            known=self.known,
            live=self.live,
            spare=self.spare,
            trash=self.trash,
        )

    def release_in_child(self) -> None:
        """In a forked worker: close this process's copy of the output lock's file, so that
        only the build's own process holds the lock (closing a copy does not release it)."""
        if self.lock_fd >= 0:
            with suppress(OSError):
                os.close(self.lock_fd)

    def add(self, path: str, data: bytes | str | Pieces, lang: str | None, origin: str) -> None:
        check_relative(path)
        existing = self.files.get(path)
        if existing is not None:
            raise _clash(path, existing.origin, origin)
        raw, digest = self._encode(data)
        if self.spare is not None and self.live is not None:
            self.files[path] = self._add_known(path, raw, digest, lang, origin)
            self.added.add(path)
            return
        target = os.path.join(self.staging, path)
        self._make_parents(path)
        live = os.path.join(self.out, path)
        if not self.first and files.same_bytes(live, raw):
            # unchanged: keep the published file and its mtime (its folder was made above)
            files.replace_with_link(Path(live), Path(target), trash=self.trash)
            done = "linked"
        else:
            self._write(target, raw, self.fresh)
            done = "written"
        self.files[path] = OutputFile(lang, origin, digest, done)
        self.added.add(path)

    def _encode(self, data: bytes | str | Pieces) -> tuple[bytes | Pieces, bytes]:
        """`data`'s bytes and their hash; the same object added again (the root copies of
        the default language's llms.txt files: megabytes) is not encoded and hashed again."""
        for seen, raw, digest in self._encoded:
            if seen is data:
                return raw, digest
        raw = data.encode("utf-8") if isinstance(data, str) else data
        digest = record_digest(raw)
        if len(raw) >= BIG:
            self._encoded = [*self._encoded[-1:], (data, raw, digest)]  # (the last two)
        return raw, digest

    def _add_known(
        self, path: str, raw: bytes | Pieces, digest: bytes, lang: str | None, origin: str
    ) -> OutputFile:
        """`add` with the records of both trees: the published file is neither read nor
        looked at when the record says it has these bytes; the staging folder is touched only
        where it must change (and what is there is checked against its record first)."""
        assert self.live is not None
        old = self.live.files.get(path)
        same = False
        if old is not None:
            recorded = self.live.digests.get(path)
            if recorded is not None:
                same = recorded == digest
            else:  # (a file kept since before the hashes were recorded)
                same = files.same_bytes(os.path.join(self.out, path), raw)
        if same and old is not None:
            return self._as_published(path, old, digest, lang, origin)
        self._make_parents(path)
        target = os.path.join(self.staging, path)
        found = self._check(path, target)
        self._write(target, raw, not found and path not in self._spare_files())
        return OutputFile(lang, origin, digest, "written", found)

    def _as_published(
        self, path: str, old: bytes, digest: bytes, lang: str | None, origin: str
    ) -> OutputFile:
        """The published file at `path` (`old`: its record) kept: in the staging folder."""
        if self._in_spare(path, old):
            return OutputFile(lang, origin, digest)  # the staging folder has it already
        return OutputFile(lang, origin, digest, "linked", self._link_known(path, old))

    def published(self, path: str, digest: bytes) -> bool:
        """Whether the records say the published file at `path` has the bytes hashed `digest`
        (then `add_published` adds it without them; trusted if every file is as said)."""
        return self.published_digest(path) == digest

    def published_digest(self, path: str) -> bytes | None:
        """The hash of the published file at `path`'s bytes, as the records have it, else None."""
        live = self.live
        if live is None or path not in live.files:
            return None
        return live.digests.get(path)

    def add_published(self, path: str, digest: bytes, lang: str | None, origin: str) -> None:
        """`add` of the bytes of the published file at `path`, which `published` found."""
        check_relative(path)
        if (existing := self.files.get(path)) is not None:
            raise _clash(path, existing.origin, origin)
        if self.live is None or not self.published(path, digest):
            raise ValueError(f"{path}: not the published file's bytes")
        self.files[path] = self._as_published(path, self.live.files[path], digest, lang, origin)
        self.added.add(path)

    def _write(self, target: str, raw: bytes | Pieces, fresh: bool) -> None:
        """Write `raw` as a new file at `target` (files.replace_with_bytes), or link it to the
        file this tree wrote the same bytes to (the root copies of the default language's
        llms.txt files: tens of MB on a big site, written once). `fresh`: nothing there."""
        for seen, at in self._written:
            if seen is raw:
                files.replace_with_link(at, target, trash=self.trash)
                return
        files.replace_with_bytes(target, raw, fresh, self.trash)
        if len(raw) >= BIG:
            self._written = [*self._written[-1:], (raw, target)]  # (the last two)

    def _spare_files(self) -> dict[str, bytes]:
        return self.spare.files if self.spare is not None else {}

    def _spare_folder(self, path: str) -> bool:
        return self.spare is not None and path in self.spare.dirs

    def _in_spare(self, path: str, live: bytes) -> bool:
        """The spare copy's file at `path` is the published one (the same inode): the last
        build did not change it."""
        spare = self._spare_files().get(path)
        return spare is not None and same_inode(spare, live)

    def _check(self, path: str, target: str) -> str:
        """Empty if the staging folder holds at `target` what its record says (the spare
        copy's file, or nothing), else what it holds instead."""
        expected = self._spare_files().get(path)
        try:
            st = os.lstat(target)
        except FileNotFoundError:
            return "" if expected is None else "nothing"
        if expected is None:
            if stat.S_ISDIR(st.st_mode) and self._spare_folder(path):
                return ""  # a folder of the spare copy where this build writes a file
            return describe(st)
        if not stat.S_ISREG(st.st_mode) or st.st_ino != inode(expected):
            return describe(st)
        return ""

    def _link_known(self, path: str, live: bytes, found: str | None = None) -> str:
        """Link the published file at `path` into the staging folder (whose record says it
        holds another file there, or none); returns what `_check` found there."""
        target = os.path.join(self.staging, path)
        if found is None:
            self._make_parents(path)
            found = self._check(path, target)
        if found or path in self._spare_files() or self._spare_folder(path):
            files.remove(target, self.trash)
        files.link_or_copy(os.path.join(self.out, path), target)
        return found

    def _make_parents(self, path: str) -> None:
        """Create the folders above `path` in the staging folder (folders.py `make_parents`)."""
        _make_parents(self.staging, path, self._dirs, self.fresh)

    def keep(self, path: str, written: Identity) -> bool:
        """Reuse the published file for `path` if it is still exactly the file bipub wrote
        (`file_identity`: mtime, ctime, size, inode; False: it must be rendered again)."""
        return path in self.keep_each([(path, written)])

    def keep_each(self, wanted: Iterable[tuple[str, Identity]]) -> set[str]:
        """The paths of `wanted` that `keep` keeps (trusted records: no call per file)."""
        spare, live = self.spare, self.live
        if spare is None or live is None:
            out = {path for path, written in wanted if self._keep_published(path, written)}
        else:
            recorded, spared, out = live.files, spare.files, set()
            for path, written in wanted:  # (the record's identity: a recorded path was checked)
                if (old := recorded.get(path)) is None or unpack_four(old) != written:
                    continue
                # (the spare copy's file is the published one: most often recorded alike)
                was = spared.get(path)
                if was is None or (was != old and was[INODE_AT] != old[INODE_AT]):
                    self._make_parents(path)
                    if self._check(path, os.path.join(self.staging, path)):
                        continue  # rendered again: `add` says what it found
                    self._link_known(path, old, "")
                out.add(path)
        self.kept.update(out)
        return out

    def _keep_published(self, path: str, written: Identity) -> bool:
        check_relative(path)
        published = os.path.join(self.out, path)  # plain strings: called for every page
        try:
            st = os.lstat(published)
        except OSError:
            return False
        if not stat.S_ISREG(st.st_mode) or file_identity(st) != written:
            return False
        self._make_parents(path)
        files.replace_with_link(published, os.path.join(self.staging, path), st.st_ino, self.trash)
        return True

    def record_kept_all(self, kept: dict[str, OutputFile]) -> None:
        """Record the files `keep` kept (here, or in a worker on the same staging folder)."""
        for path in kept.keys() & self.files.keys():
            raise _clash(path, self.files[path].origin, kept[path].origin)
        self.files.update(kept)
        self.kept.update(kept)

    def record_kept(self, path: str, info: OutputFile) -> None:
        self.record_kept_all({path: info})

    def carry_over(self, path: str, info: OutputFile) -> bool:
        """Keep a published file that this (partial) build does not rebuild. False if there
        is none (removed since the last build: the next build of its kind makes it again)."""
        if path in self.files:
            return True
        old = self.live.files.get(path) if self.live is not None else None
        if self.spare is not None and old is not None:
            if not self._in_spare(path, old):  # (the published file is there: `known_output`)
                found = self._link_known(path, old)
                info = OutputFile(info.lang, info.origin, found=found)
        else:
            live = self.out / path
            if not os.path.lexists(live):
                return False
            self._make_parents(path)
            files.replace_with_link(live, self.staging / path, trash=self.trash)
        self.files[path] = info
        self.kept.add(path)
        return True

    def merge(self, files: dict[str, OutputFile]) -> None:
        """Record files a worker wrote into the same staging folder."""
        for path, info in files.items():
            existing = self.files.get(path)
            if existing is not None:
                raise _clash(path, existing.origin, info.origin)
            self.files[path] = info
            if info.digest:  # (given to the worker's `add`)
                self.added.add(path)

    def folders(self) -> set[str]:
        """The folders of this tree's files ("" is the root): worked out from the record of
        the published site where it is trusted (write/record.py `next_folders`), once for
        each number of files (files are only ever added)."""
        if self._folders is not None and self._folders[0] == len(self.files):
            return self._folders[1]
        if self.live is not None:
            found = next_folders(self.files, self.live)
        else:
            found = folders_of(self.files)
        self._folders = (len(self.files), found)
        return found

    def paths(self) -> list[str]:
        return sorted(self.files)

    def next_record(self) -> OutputRecord:
        """After `publish`: the record of the site now published and of the spare copy, for
        the next build (write/record.py `next_record`)."""
        spare = self.spare if self.live is not None else None
        folders = self.folders() if spare is not None else None
        return next_record(
            self.out,
            prev_folder(self.out),
            self.files,
            self.known,
            self.live,
            spare,
            self.removed,
            self.added,
            folders,
        )

    def discard(self) -> None:
        """Give up this build: the staging folder becomes the spare copy again (nothing is
        published; its contents are brought up to date by the next build, which finds it
        moved since its record was made and so checks it in full)."""
        prev = prev_folder(self.out)
        if self.staging.is_dir() and not prev.exists():
            self.staging.rename(prev)
        else:
            shutil.rmtree(self.staging, ignore_errors=True)
        if self.trash is not None:  # (what it set aside: the next build removes what is left,
            with suppress(OSError):  # folders.py `clean_leftovers_locked`)
                self.trash.empty()


@contextmanager
def staged(
    out: Path,
    root: Path | None = None,
    recorded: Callable[[], Iterable[str] | None] | None = None,
    known: OutputRecord | None = None,
) -> Iterator[OutputTree]:
    """An OutputTree that is discarded if anything goes wrong before publish (under the
    output lock). `root` (the project folder) and `recorded` are for `claim`, which runs
    first: nothing is written anywhere before it passes. `known`: the last build's record of
    the output (`OutputTree.next_record`), which spares looking at what did not change."""
    real = claim(out, root, recorded)
    with output_lock(real) as (lock, notes):
        _clean_leftovers(real)
        tree = OutputTree.create(real, known)
        tree.lock_fd = lock
        tree.warnings.extend(notes)
        prev = prev_folder(real)
        if os.path.lexists(prev) and not owned(prev):
            tree.warnings.append(
                Diagnostic(
                    None,
                    None,
                    "output-folder",
                    f"{prev} was not made by bipub (there is no {MARKER} in it), so bipub "
                    "leaves it alone and keeps no spare copy of the site there; an older "
                    "bipub may have moved a folder of yours there: check it, then move it "
                    "away or remove it",
                    Severity.WARNING,
                )
            )
        try:
            yield tree
        except BaseException:
            tree.discard()
            raise


def publish(tree: OutputTree, only_langs: list[str] | None = None) -> int:
    """Swap the staged tree in as the output folder. Returns the number of new or changed files.

    With the spare copy's record (`OutputTree.spare`), what this build did not write is taken
    from the record: the paths it no longer has are removed, nothing else is looked at. If a
    path it touched was not as recorded, the staging folder is checked and repaired in full
    (every file compared with the published one, every folder walked) before the swap."""
    out, staging = tree.out, tree.staging
    try:
        _check_folders(tree.files, tree.folders())
        if only_langs is not None:
            listing = (
                tree.live.files
                if tree.live is not None and tree.spare is not None
                else published_files(out)
            )
            for rel in list(listing):
                if rel not in tree.files and not owned_by(rel, only_langs):
                    tree.carry_over(rel, OutputFile(None, f"previous build ({rel})"))
        if tree.spare is not None:
            found = []  # (what a path held instead of its record: looked for in a C loop first)
            if any(map(attrgetter("found"), tree.files.values())):
                found = [f"{rel}: {info.found}" for rel, info in tree.files.items() if info.found]
            else:
                base, spare, trash = str(tree.staging), tree.spare, tree.trash
                found = prune_known(base, spare, tree.files, tree.folders(), tree.removed, trash)
            if found:
                tree.note = (
                    f"the spare copy of the site ({prev_folder(out).name}) was not as the last "
                    f"build left it ({_shorten(found)}): checked and repaired in full"
                )
                _repair(tree)
        elif not tree.fresh:
            _prune(staging, set(tree.files), tree.trash)
        changed = sum(tree.files[rel].done == "written" for rel in tree.added)  # (`add`'s)
        _swap(staging, out)
    except BaseException:
        tree.discard()
        raise
    for callback in tree.on_publish:
        callback(out)
    _empty_trash(tree)
    return changed


def _empty_trash(tree: OutputTree) -> None:
    """Remove what the build moved out of its staging folder (files.Trash), once the reader
    has the new site, before the record of the output is made (`next_record` reads the
    identities of the published files, whose link counts this changes): many files, by a
    process of its own but for the hard links (`Trash.handed_over`)."""
    if tree.trash is None:
        return
    why, here = tree.trash.handed_over()
    if here:  # (-v: the folder was removed here, not by a process of its own)
        tree.note = "; ".join(filter(None, [tree.note, here]))
    if why:
        tree.warnings.append(Diagnostic(None, None, "output-folder", why, Severity.WARNING))


def _shorten(found: list[str]) -> str:
    more = f" and {len(found) - 2} more" if len(found) > 2 else ""
    return "; ".join(sorted(found)[:2]) + more


def _repair(tree: OutputTree) -> None:
    """The staging folder was not as recorded: make every file this build did not write the
    published one (compared, linked where it differs) and walk every folder for what this
    build did not write (`_prune`)."""
    base, out = str(tree.staging), str(tree.out)
    for rel, info in tree.files.items():
        if info.done:
            continue  # written or linked by this build: as it should be
        tree._make_parents(rel)
        files.replace_with_link(os.path.join(out, rel), os.path.join(base, rel), trash=tree.trash)
    _prune(tree.staging, set(tree.files), tree.trash)
    tree.spare = None  # (what it holds now is read from the disk: `next_record`)


def _swap(new: Path, out: Path) -> None:
    """Publish `new` as `out`; the replaced site becomes the spare copy (`.site.prev`).

    On Linux the two folders are exchanged in one atomic step (renameat2 RENAME_EXCHANGE), so
    at every instant `out` is either the complete previous site or the complete new one. Where
    that is not supported, two renames are used and `staged()` restores the previous site if a
    kill lands between them.
    """
    if not out.exists():
        new.rename(out)
        return
    prev = prev_folder(out)
    keep = not os.path.lexists(prev) or owned(prev)  # never replace what bipub did not make
    if keep and os.path.lexists(prev):
        shutil.rmtree(prev)
    aside = prev if keep else out.parent / f".{out.name}.old-{secrets.token_hex(6)}"
    if _exchange(new, out):
        new.rename(aside)  # `new` now holds the replaced site
    else:
        out.rename(aside)
        try:
            new.rename(out)
        except BaseException:
            aside.rename(out)
            raise
    if not owned(aside):  # the empty folder the first build was published into (`claim`)
        (aside / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
    if not keep:
        shutil.rmtree(aside)
