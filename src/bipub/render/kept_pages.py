"""Keep the pages whose fingerprint is known (render/workers.py's first step of an update).

Most pages of an update are kept as the last build published them: their fingerprint is
known (buildstate.carry), it is the one of their published file (the build cache's `previous`)
and that file is still the one bipub wrote (OutputTree.keep_each). `keep_known` checks that
for every page. In `bipub serve`, the state lives on between updates: `KeepMemo` holds what
the last call kept and the values it decided from (`known`, `previous`, the output record and
the spare copy's record, the planned pages). The next call then checks only the pages whose
values differ (found by set operations on those values, no step per page in Python) and the
ones it did not keep; every other page is kept as it was, by the same rule, since nothing it
was decided from changed. Where the memo cannot tell (no memo, another output folder, no
trusted record of the output or of the spare copy), every page is checked: `note` says why.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from operator import attrgetter

from bipub.load.content import Document
from bipub.render.html import PageSpec
from bipub.render.markdown import MarkdownCache
from bipub.write.output import Identity, OutputFile, OutputTree

Previous = dict[str, tuple[str, Identity]]


@dataclass
class Found:
    """Pages found kept (`_check`), as columns in one order: each one's output file, spec,
    fingerprint and OutputFile (no object per page: an update finds ~24,000 on a big site)."""

    files: list[str] = field(default_factory=list)
    specs: list[PageSpec] = field(default_factory=list)
    fingerprints: list[str] = field(default_factory=list)
    infos: list[OutputFile] = field(default_factory=list)


@dataclass
class KeptPages:
    """Pages kept, by output file, with what the build takes of them (each kept up to date
    as pages are added and dropped: a resident build keeps them from one update to the next)."""

    pages: dict[str, PageSpec] = field(default_factory=dict)  # (their specs)
    files: dict[str, OutputFile] = field(default_factory=dict)  # (OutputTree.record_kept_all)
    fingerprints: dict[str, str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)  # pages per language
    # the documents they show, by path, each once (their bodies' warnings: replay), each one's
    # key but for what renders every body (MarkdownCache.replay_all; none without a digest)
    # and how many of them show it
    docs: dict[str, Document] = field(default_factory=dict)
    keyed: dict[str, str] = field(default_factory=dict)
    showing: dict[str, int] = field(default_factory=dict)

    def add(self, found: Found) -> None:
        """Add the pages `_check` found kept (each output file once)."""
        # (in bulk: a build in a new process adds ~24,000 pages to an empty one; a page
        # already kept is dropped first, as one at a time)
        files = found.files
        for path in self.pages.keys() & files if self.pages else ():
            self.drop(path)
        self.pages.update(zip(files, found.specs, strict=True))
        self.files.update(zip(files, found.infos, strict=True))
        self.fingerprints.update(zip(files, found.fingerprints, strict=True))
        docs, keyed, showing, counts = self.docs, self.keyed, self.showing, self.counts
        for spec in found.specs:
            doc = spec.doc
            if doc is not None:
                rel = doc.rel
                if docs.get(rel) is not doc:  # (else its key is the one worked out for it)
                    docs[rel] = doc  # (the last one's: each page's of a path is the same)
                    if doc.digest:
                        keyed[rel] = f"{doc.digest}:{rel}"
                    else:
                        keyed.pop(rel, None)
                showing[rel] = showing.get(rel, 0) + 1
        # (by their OutputFiles, one per template and language: no look at each page)
        for lang, n in Counter(map(attrgetter("lang"), found.infos)).items():
            counts[lang] = counts.get(lang, 0) + n

    def drop(self, path: str) -> PageSpec | None:
        """Drop the page of `path`, if kept: its spec (else None)."""
        spec = self.pages.pop(path, None)
        if spec is None:
            return None
        del self.files[path], self.fingerprints[path]
        if spec.doc is not None:
            rel = spec.doc.rel
            left = self.showing[rel] = self.showing[rel] - 1
            if not left:
                del self.docs[rel], self.showing[rel]
                self.keyed.pop(rel, None)
        self.counts[spec.lang] -= 1
        return spec


@dataclass
class KeepMemo:
    """What the last `keep_known` of a resident build kept, and what it decided from."""

    out: str = ""  # the output folder (none yet: "")
    known: dict[str, str] = field(default_factory=dict)  # its `known` (copied)
    previous: Previous = field(default_factory=dict)  # its `previous` (copied)
    live: dict[str, bytes] = field(default_factory=dict)  # the output record's files
    record: object = None  # the output record itself (the next call's is its publish's)
    specs: dict[int, PageSpec] = field(default_factory=dict)  # its pages, by id (held)
    kept: KeptPages = field(default_factory=KeptPages)  # the pages it kept
    rest: list[PageSpec] = field(default_factory=list)  # the pages it did not keep
    why: str = ""  # why nothing is held (with `out` "")
    note: str = ""  # how the last call went (`-v`)

    def forget(self, why: str) -> None:
        self.out, self.known, self.previous, self.live, self.record = "", {}, {}, {}, None
        self.specs, self.kept, self.rest, self.why = {}, KeptPages(), [], why


def keep_known(
    known: dict[str, str],
    pages: list[PageSpec],
    previous: Previous,
    tree: OutputTree,
    counts: dict[str, int],
    markdown: MarkdownCache,
    memo: KeepMemo | None = None,
    planned: Mapping[str, PageSpec] | None = None,
) -> tuple[list[PageSpec], int, dict[str, str]]:
    """Keep, as workers._decide and _record_kept would one at a time, each of `pages` whose
    fingerprint is known (buildstate.carry) and the one of its published file, if that file is
    still the one bipub wrote (OutputTree.keep_each), and say its body's warnings again:
    returns (the other pages, how many were kept, the kept pages' fingerprints). With `memo`
    (a resident build's), only the pages whose values changed since its last call are checked
    (see the module's text); it is updated for the next call. `planned`: the plan's pages by
    path (render/page_plan.py `Plan.paths`, of which `pages` are some), else found here."""
    if memo is None:
        kept = KeptPages()
        found, rest = _check(known, pages, previous, tree, {})
        kept.add(found)
    else:
        # (each page by its id: what `_update` compares with the last call's, and keeps)
        by_id = dict(zip(map(id, pages), pages, strict=True))
        try:
            why = _why_not(memo, tree)
            if why:
                memo.forget(why)
                found, rest = _check(known, pages, previous, tree, {})
                memo.kept.add(found)
                memo.note = f"every page's kept file checked ({why})"
            else:
                if planned is None:
                    planned = {spec.path: spec for spec in pages}
                rest, again = _update(memo, known, by_id, planned, previous, tree)
                memo.note = (
                    f"{again} of {len(pages)} pages checked for their kept file (the others: "
                    "as the last build found them, nothing they are kept by changed)"
                )
            kept = memo.kept
            _remember(memo, tree, known, by_id, previous, rest)
            _record(tree, kept)
        except BaseException:  # (half updated: not to be trusted)
            memo.forget("the last build stopped while it kept pages")
            raise
    if memo is None:
        _record(tree, kept)
    for lang, n in kept.counts.items():
        if n:
            counts[lang] = counts.get(lang, 0) + n
    markdown.replay_all(kept.docs, kept.keyed)
    # (a memo's are kept for the next call: a copy; else the caller's own)
    fingerprints = dict(kept.fingerprints) if memo is not None else kept.fingerprints
    return rest, len(kept.files), fingerprints


def _record(tree: OutputTree, kept: KeptPages) -> None:
    tree.record_kept_all(kept.files)  # (as keep_each: those it kept, in `tree.kept` too)


def _why_not(memo: KeepMemo, tree: OutputTree) -> str:
    """Why `memo` cannot say which pages to check again ("": it can)."""
    if not memo.out:
        return memo.why or "no pages kept by the last build in this process"
    if memo.out != str(tree.out):
        return "another output folder"
    if tree.live is None or tree.spare is None:
        return "no trusted record of the output or of its spare copy"
    if tree.live is memo.record:  # (a publish makes a new one: OutputTree.next_record)
        return "the last build that kept pages published nothing"
    return ""


def _update(
    memo: KeepMemo,
    known: dict[str, str],
    by_id: dict[int, PageSpec],
    planned: Mapping[str, PageSpec],
    previous: Previous,
    tree: OutputTree,
) -> tuple[list[PageSpec], int]:
    """Update `memo.kept`, checking only the pages whose values changed since `memo`'s call
    (and the ones it did not keep): the others, and how many were checked. `by_id`: the
    pages of this call by id; `planned`: by path, pages of the plan (some may not be among
    them: another language's)."""
    assert tree.live is not None and tree.spare is not None  # (`_why_not`)
    live, spare = tree.live.files, tree.spare.files
    # what each page's verdict is made of, where it differs from the last call: its known
    # fingerprint (by page path), its published file's fingerprint and identity (`previous`,
    # the output record), the spare copy's file (the last call linked the published one)
    paths = {path for path, _ in known.items() ^ memo.known.items()}
    files = {path for path, _ in previous.items() ^ memo.previous.items()}
    files.update(path for path, _ in live.items() ^ memo.live.items())
    files.update(path for path, _ in spare.items() ^ memo.live.items())
    kept = memo.kept
    for n in memo.specs.keys() - by_id.keys():  # (no longer planned so)
        kept.drop(memo.specs[n].file)
    again = {n: by_id[n] for n in by_id.keys() - memo.specs.keys()}  # (planned anew)
    for spec in memo.rest:  # (not kept last time: checked again)
        if id(spec) in by_id:
            again[id(spec)] = spec
    for path in files:  # (its file's values changed)
        was = kept.drop(path)
        if was is not None:
            again[id(was)] = was
    for path in paths:  # (its known fingerprint changed)
        now = planned.get(path)
        if now is not None and id(now) in by_id:  # (a page of this call)
            kept.drop(now.file)
            again[id(now)] = now
    more, rest = _check(known, list(again.values()), previous, tree, kept.pages)
    kept.add(more)
    return rest, len(again)


def _check(
    known: dict[str, str],
    pages: list[PageSpec],
    previous: Previous,
    tree: OutputTree,
    already: dict[str, PageSpec],
) -> tuple[Found, list[PageSpec]]:
    """Check each of `pages` (the full pass): the kept ones, and the others. `already`: the
    pages kept without a check, by output file (a page of `pages` there is a clash: checked)."""
    rest: list[PageSpec] = []
    # (each page's values read in one look: an update visits every page of a big site, and
    # each look at a page's values costs a memory fetch; kept in columns, `Found`)
    found = Found()
    files, specs, fps, infos = found.files, found.specs, found.fingerprints, found.infos
    written: list[Identity] = []  # (each file's identity as written, for keep_each)
    by_template: dict[str, dict[str, OutputFile]] = {}  # (one OutputFile per template, language)
    for spec in pages:
        fp = known.get(spec.path)
        if fp is None:
            rest.append(spec)  # (`_decide` finds its fingerprint known, if it is)
            continue
        file = spec.file
        old = previous.get(file)
        if old is None or old[0] != fp or (already and file in already):
            rest.append(spec)
            continue
        template, lang = spec.template, spec.lang
        by_lang = by_template.get(template)
        if by_lang is None:
            by_lang = by_template[template] = {}
        info = by_lang.get(lang)
        if info is None:
            info = by_lang[lang] = OutputFile(lang, f"{template} ({lang})")
        files.append(file)
        written.append(old[1])
        specs.append(spec)
        fps.append(fp)
        infos.append(info)
    done = tree.keep_each(zip(files, written, strict=True))
    if len(done) == len(files):  # (each file once: every one kept)
        return found, rest
    last: dict[str, int] = {}  # (a file found twice is its last page's, as in a dict)
    for n, file in enumerate(files):
        if file in done:
            last[file] = n
        else:  # (not kept: rendered again, `add` says what it found)
            rest.append(specs[n])
    at = list(last.values())
    return Found(
        [files[n] for n in at], [specs[n] for n in at], [fps[n] for n in at], [infos[n] for n in at]
    ), rest


def _remember(
    memo: KeepMemo,
    tree: OutputTree,
    known: dict[str, str],
    by_id: dict[int, PageSpec],
    previous: Previous,
    rest: list[PageSpec],
) -> None:
    """What this call decided from and kept, for the next (none: no trusted records)."""
    if tree.live is None or tree.spare is None:
        memo.forget("no trusted record of the output or of its spare copy")
        return
    memo.out, memo.record = str(tree.out), tree.live
    memo.known, memo.previous, memo.live = dict(known), dict(previous), dict(tree.live.files)
    memo.specs = by_id
    memo.rest, memo.why = rest, ""
