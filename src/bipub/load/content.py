"""Read the two content trees (content/<lang>/) into validated documents.

Every problem is collected, so one run reports all of them. Nothing here renders or writes.
"""

from __future__ import annotations

import os
import stat
import unicodedata
from bisect import bisect_left, insort
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import ValidationError

from bipub.cache import BuildCache, FileKey, digest_bytes, stat_key
from bipub.config import SiteConfig
from bipub.diagnostics import Collector, Diagnostic, Severity
from bipub.load.doc_state import (
    _BATCH_AT,
    _IMAGES_BY,
    _LAZY_BODY,
    _SPANS,
    lazy_attribute,
    section_spans,
)
from bipub.load.doc_state import SectionSpan as SectionSpan
from bipub.load.doc_state import body_apart as _body_apart
from bipub.load.front_matter import FrontMatterError, split_front_matter
from bipub.load.image_refs import ImageRef, body_images, parser_version
from bipub.load.listing import CONTENT_DIR as CONTENT_DIR
from bipub.load.listing import Job as _Job
from bipub.load.listing import Listing as _Listing
from bipub.load.listing import is_cv as _is_cv
from bipub.load.listing import passed_over, suffix_of
from bipub.load.listing import project_rel as _rel
from bipub.load.listing import walk_md as _walk
from bipub.load.reading import reading_minutes
from bipub.load.sections import Section, split_sections
from bipub.load.text import TextDecodeError, decode_text, read_text
from bipub.load.yaml_strict import YamlDoc, YamlError, load_yaml
from bipub.model.post import FrontMatter, Kind
from bipub.model.validate import validation_diagnostics
from bipub.parallel import can_fork, share_chunks, worker_count
from bipub.uptodate import Identity, file_identity, mode

KINDS: tuple[Kind, ...] = ("posts", "pages")


@dataclass(frozen=True)
class Document:
    """One post or page in one language, as written."""

    rel: str  # project-relative path
    lang: str
    kind: Kind
    name: str  # path inside content/<lang>/<kind>/ without .md, NFC
    meta: FrontMatter
    body: str
    body_line: int
    yaml: YamlDoc
    digest: str = ""  # of the file's bytes: what caches and fingerprints key on

    @property
    def pair_key(self) -> str:
        """Pairs a document with its translations: front matter `key`, else the relative name."""
        return self.meta.key or self.name

    def line_of(self, field: str) -> int | None:
        return self.yaml.line_for((field,))

    @cached_property
    def sections(self) -> tuple[Section, ...]:
        """The body split at headings (load/sections.py), computed once per document and process
        (`bipub check` needs it), or rebuilt from the spans a cached document was pickled with
        (__getstate__; pair/units.py makes units of those, `unsplit_spans`, while it is not;
        a document read back takes them from its shard's batch: doc_state.py `lazy_attribute`)."""
        spans = getattr(self, _SPANS, None)
        if spans is None:
            return tuple(split_sections(self.body, self.body_line))
        body = self.body
        known = Section.known  # (the digest: text_hash of that text, worked out when pickled)
        return tuple(
            known(index, body[start:end], line, digest)
            for index, (start, end, line, digest) in enumerate(spans)
        )

    def unsplit_spans(self) -> tuple[SectionSpan, ...] | None:  # (until `sections` is made)
        return None if "sections" in self.__dict__ else getattr(self, _SPANS, None)

    @cached_property
    def mentions_mermaid(self) -> bool:
        """Whether the body names mermaid at all (render/markdown.py `diagram_sources` parses
        only those): looked for once per document, not at every build of `bipub serve`."""
        return "mermaid" in self.body

    @cached_property
    def reading_minutes(self) -> int:
        """The body's reading time (load/reading.py), computed once per document."""
        return reading_minutes(self.body, self.lang)

    @cached_property
    def image_refs(self) -> tuple[ImageRef, ...]:
        """The Markdown images of the body (line in the body from 0, src: load/image_refs.py),
        found once per document — when it is read, by the workers of a cold build — and kept
        with it in the build cache, with the markdown-it-py version that found them (another
        one searches again: `__setstate__`)."""
        return body_images(self.body)

    if not TYPE_CHECKING:  # (for mypy, `body` is a field like the others)

        def __getattr__(self, name: str) -> Any:
            """The body of a document read from the build cache, decoded when first read
            (cache.py keeps it as its UTF-8 bytes: `lazy_body`), and its front matter as parsed
            and as validated, each unpickled when first read (doc_state.py `lazy_attribute`)."""
            return lazy_attribute(self, name)

    def __getstate__(self) -> dict[str, object]:
        # the build cache keeps the document with where its sections are in the body and their
        # hashes, not their texts (they would double its size): splitting 10,000 bodies and
        # hashing their sections again took longer than anything else in pairing
        if _LAZY_BODY in self.__dict__:
            self.body  # noqa: B018 - (decoded: the state has the body itself)
        if _BATCH_AT in self.__dict__:
            self.meta  # noqa: B018 - (taken from its batch, with its spans and `yaml` pickled)
        state = dict(self.__dict__)
        if state.pop("sections", None) is not None or _SPANS not in state:  # (else: as read)
            state[_SPANS] = section_spans(self.body, self.sections)
        if "image_refs" in state:
            state[_IMAGES_BY] = parser_version()
        return state

    _out_of_band = _body_apart  # (how the build cache pickles it: doc_state.py)

    def __setstate__(self, state: dict[str, object]) -> None:
        if state.get(_IMAGES_BY) != parser_version():  # (found by another markdown-it-py)
            state = {k: v for k, v in state.items() if k not in ("image_refs", _IMAGES_BY)}
        # (the state is a dict made for this document alone, by the unpickler or __getstate__:
        # it becomes its __dict__, not copied into another one, ~10,000 read back at a build)
        object.__setattr__(self, "__dict__", state)


@dataclass(frozen=True)
class CvFile:
    rel: str
    lang: str
    yaml: YamlDoc

    @property
    def raw(self) -> dict[str, Any]:
        data = self.yaml.data
        return data if isinstance(data, dict) else {}


@dataclass(frozen=True)
class Content:
    cv: dict[str, CvFile]
    documents: list[Document]
    failed: frozenset[tuple[str, str]] = frozenset()  # (kind, name) of files that did not load
    failed_cv: frozenset[str] = frozenset()  # languages whose cv.yaml did not load


def load_content(
    root: Path,
    config: SiteConfig,
    collector: Collector,
    cache: BuildCache | None = None,
    inputs: Mapping[str, Identity] | None = None,
    memo: ContentMemo | None = None,
) -> Content:
    """Load content/<lang>/{cv.yaml,posts/*.md,pages/*.md} for every configured language.

    With a cache, a file whose identity (mtime, ctime, size, inode) is unchanged is not read
    again. `inputs`: every input file and folder as this build's scan found them (uptodate.py
    `scan_inputs`: by their path relative to the project, as on the disk, a folder's with a
    trailing slash), so that the posts and pages folders are neither walked nor their files
    looked up a second time. `memo`: what the last load of a resident caller listed and loaded
    (`ContentMemo`: where only posts and pages were edited, added or removed since, the others are
    taken as they were); updated with this one's.
    """
    cache = cache if cache is not None else BuildCache()
    seen: set[str] = set()
    content_root = root / CONTENT_DIR
    cv: dict[str, CvFile] = {}
    documents: list[Document] = []
    failed: set[tuple[str, str]] = set()
    failed_cv: set[str] = set()
    jobs: list[_Job] = []
    if not content_root.is_dir():
        collector.error(CONTENT_DIR, None, "content", "no content/ folder")
        return Content(cv, documents)
    for entry in sorted(content_root.iterdir(), key=lambda p: p.name):
        name = unicodedata.normalize("NFC", entry.name)
        if entry.is_symlink():
            collector.error(_rel(root, entry), None, "symlink", "symbolic links are not followed")
        elif entry.is_dir() and name not in config.codes:
            collector.error(
                _rel(root, entry),
                None,
                "content",
                f"content folder for language {name!r}, which is not in bipub.yaml languages "
                f"({', '.join(config.codes)})",
            )
    edited = memo.edited(root, config, inputs) if memo is not None else None
    listing = _Listing(inputs) if inputs is not None and edited is None else None
    said: list[Diagnostic] = []  # what the listing of the posts and pages said
    for lang in config.codes:
        lang_dir = content_root / lang
        if not lang_dir.is_dir() or lang_dir.is_symlink():
            continue
        cv_path = lang_dir / "cv.yaml"
        if cv_path.is_symlink():
            collector.error(_rel(root, cv_path), None, "symlink", "symbolic links are not followed")
        elif cv_path.is_file():
            loaded = _load_yaml_file(root, cv_path, collector)
            if loaded is not None:
                cv[lang] = CvFile(_rel(root, cv_path), lang, loaded)
            else:
                failed_cv.add(lang)
        if edited is not None:
            continue  # (the posts and pages as the last load listed them: below)
        first = len(collector.items)
        for kind in KINDS:
            kind_dir = lang_dir / kind
            if not kind_dir.is_dir():
                continue
            kind_disk = f"{CONTENT_DIR}/{lang}/{kind}"
            listed = listing.md_files(kind_disk, collector) if listing is not None else None
            if listed is None:  # (not in the scan, or a symbolic link: walked here)
                base = len(str(kind_dir)) - len(kind_disk)  # (the root's part of each path:
                # none for a root of ".", whose paths start at "content/")
                found = sorted(_walk(kind_dir, root, collector))
                listed = [(str(p)[base:].replace(os.sep, "/"), None) for p in found]
            for disk, ident in listed:
                rel = unicodedata.normalize("NFC", disk)
                jobs.append(_Job(root, disk, rel, lang, kind, kind_disk, ident))
        said.extend(collector.items[first:])
    if memo is not None and edited is not None and inputs is not None:
        collector.extend(memo.listed)
        return memo.again(edited, cv, frozenset(failed_cv), inputs, collector, cache)
    documents_read = _load_documents(root, jobs, collector, cache)
    for job, doc in zip(jobs, documents_read, strict=True):
        seen.add(job.rel)
        if doc is not None:
            documents.append(doc)
        else:
            failed.add((job.kind, job.name))
    documents.sort(key=_doc_order)
    for stale in set(cache.docs) - seen:
        del cache.docs[stale]
    content = Content(cv, documents, frozenset(failed), frozenset(failed_cv))
    if memo is not None:
        memo.keep(root, config, inputs, jobs, said, content)
    return content


class Changed(NamedTuple):
    """What changed under content/ since the last load, as `ContentMemo.edited` found it."""

    edited: list[_Job]  # posts and pages edited in place (their jobs, identities now)
    added: list[_Job]  # posts and pages added (in folders listed before)
    removed: list[_Job]  # posts and pages removed (their jobs as listed)


@dataclass
class ContentMemo:
    """What the last load of a resident caller (`bipub serve`) listed and loaded: the
    posts' and pages' files with their identities as the inputs' scan found them, what the
    listing said (files ignored), and the content. The next load compares the inputs with
    them (a set difference, in C): where only posts and pages were edited in place, added or
    removed (no folder added or removed under content/, no other file but cv.yaml changed),
    it reads the edited and added ones by the same functions (`_load_documents`), drops the
    removed ones and takes the other documents as they were, in their order, instead of
    listing every folder and looking up every file's cache entry; else it loads as usual."""

    root: Path | None = None
    codes: tuple[str, ...] = ()
    inputs: Mapping[str, Identity] | None = None
    jobs: dict[str, _Job] = field(default_factory=dict)  # by path as on the disk
    listed: list[Diagnostic] = field(default_factory=list)
    content: Content | None = None
    note: str = ""  # what the last load took from the one before, or why nothing (`-v`)
    _pending: tuple[list[_Job], Content] | None = None  # a full load's, until `_take`

    def keep(
        self,
        root: Path,
        config: SiteConfig,
        inputs: Mapping[str, Identity] | None,
        jobs: list[_Job],
        listed: list[Diagnostic],
        content: Content,
    ) -> None:
        """A load done in full: what the next one may start from (not if it failed), checked
        and indexed when the next load asks for it (`_take`; a `bipub build` has none)."""
        self.root, self.codes, self.inputs, self.listed = root, tuple(config.codes), inputs, listed
        self.content, self._pending = None, (jobs, content)

    def _take(self) -> None:
        if self._pending is not None:  # (else taken already)
            (jobs, content), self._pending = self._pending, None
            usable = self.inputs is not None and not content.failed
            usable = usable and all(d.severity != Severity.ERROR for d in self.listed)
            usable = usable and all(job.key is not None for job in jobs)  # (none walked here)
            # (each document found by its place in the order: no two of one name, NFC and NFD)
            usable = usable and len({d.rel for d in content.documents}) == len(content.documents)
            if usable:
                self.content, self.jobs = content, {job.disk: job for job in jobs}

    def edited(
        self, root: Path, config: SiteConfig, inputs: Mapping[str, Identity] | None
    ) -> Changed | None:
        """The posts and pages edited in place, added and removed since the last load, if
        that is all that changed in content/ but cv.yaml (and files a listing passes over in
        silence: a name starting with a dot, not .md); else None."""
        self.note = ""
        self._take()
        if (
            self.content is None
            or self.inputs is None
            or inputs is None
            or root != self.root
            or tuple(config.codes) != self.codes
        ):
            if self.content is not None:
                self.note = "content listed again: another project, languages or no scan"
            return None
        found = Changed([], [], [])
        before, prefix = self.inputs, CONTENT_DIR + "/"
        for path in {path for path, _ in before.items() ^ inputs.items()}:
            if not path.startswith(prefix):
                continue  # (not under content/: not listed here)
            if path in before and path in inputs:
                if path.endswith("/") or _is_cv(path) or passed_over(path, inputs):
                    continue  # a folder's identity (its files are compared), a CV (read anyway)
                job = self.jobs.get(path)
                if job is None or not stat.S_ISREG(mode(inputs[path])):
                    self.note = f"content listed again: {path} is not a post or page as listed"
                    return None
                found.edited.append(job._replace(key=file_identity(inputs[path])))
                continue
            why = self._added_or_removed(path, before, inputs, found)
            if why:
                self.note = f"content listed again: {path} {why}"
                return None
        n, m, k = len(found.edited), len(found.added), len(found.removed)
        self.note = (
            f"content as the last load listed it, {n} post{'s' if n != 1 else ''} or page"
            f"{'s' if n != 1 else ''} edited in place read again"
        )
        if m or k:
            self.note += f", {m} added, {k} removed"
        return found

    def _added_or_removed(
        self,
        path: str,
        before: Mapping[str, Identity],
        inputs: Mapping[str, Identity],
        found: Changed,
    ) -> str:
        """Put `path` (in the inputs before or now, not both) into `found` if the listing
        would take it as a post or page added or removed, in folders listed before and now,
        or pass over it in silence; else say why not."""
        if path.endswith("/"):
            return "added or removed (a folder)"
        if path not in inputs:  # (removed)
            job = self.jobs.get(path)
            if job is not None:
                found.removed.append(job)
                return ""
            return "" if passed_over(path, before) else "added or removed"
        parts = path.split("/")
        if len(parts) < 4 or parts[1] not in self.codes or parts[2] not in KINDS:
            return "added or removed"
        for depth in range(3, len(parts)):  # its folders: listed before and now
            folder = "/".join(parts[:depth]) + "/"
            ident = inputs.get(folder)
            if ident is None or folder not in before or not stat.S_ISDIR(mode(ident)):
                return "added or removed"
        if passed_over(path, inputs):
            return ""
        if suffix_of(parts[-1]) != ".md" or not stat.S_ISREG(mode(inputs[path])):
            return "added or removed"
        lang, kind = parts[1], parts[2]
        rel = unicodedata.normalize("NFC", path)
        assert self.root is not None
        job = _Job(
            self.root, path, rel, lang, kind, "/".join(parts[:3]), file_identity(inputs[path])
        )
        assert self.content is not None
        if _find(self.content.documents, job) is not None or any(j.rel == rel for j in found.added):
            return "added (another file of that name in NFC)"
        found.added.append(job)
        return ""

    def again(
        self,
        edited: Changed,
        cv: dict[str, CvFile],
        failed_cv: frozenset[str],
        inputs: Mapping[str, Identity],
        collector: Collector,
        cache: BuildCache,
    ) -> Content:
        """The content with the `edited` posts and pages loaded again, the added ones loaded
        and put in their places (`load_content`'s order) and the removed ones left out."""
        assert self.content is not None and self.root is not None
        last = self.content.documents
        documents = list(last)
        failed: set[tuple[str, str]] = set()
        gone: set[int] = set()
        # (read in the order a full listing reads them: what they say comes in that order)
        order = {lang: i for i, lang in enumerate(self.codes)}
        jobs = sorted(
            [*edited.edited, *edited.added],
            key=lambda j: (order[j.lang], KINDS.index(j.kind), j.disk.split("/")),
        )
        added: list[Document] = []
        for job, doc in zip(jobs, _load_documents(self.root, jobs, collector, cache), strict=True):
            self.jobs[job.disk] = job
            place = _find(last, job)
            if doc is None:
                failed.add((job.kind, job.name))
                if place is not None:
                    gone.add(place)
            elif place is None:
                added.append(doc)
            else:
                documents[place] = doc
        for job in edited.removed:
            del self.jobs[job.disk]
            cache.docs.pop(job.rel, None)  # (as a full load forgets a file no longer listed)
            place = _find(last, job)
            assert place is not None
            gone.add(place)
        for place in sorted(gone, reverse=True):
            del documents[place]
        for doc in added:  # (the full load's order: by kind, name and language)
            insort(documents, doc, key=_doc_order)
        content = Content(cv, documents, frozenset(failed), failed_cv)
        self.inputs = inputs
        if failed:  # (the next load lists again: the failed files are read and said again)
            self.content = None
        else:
            self.content = content
        return content


def _doc_order(doc: Document | _Job) -> tuple[str, str, str]:
    """Where `load_content` puts a document (documents sorted by this)."""
    return (doc.kind, doc.name, doc.lang)


def _find(documents: list[Document], job: _Job) -> int | None:
    """The place of the document of `job` in `documents` (sorted by `_doc_order`), if any."""
    key = _doc_order(job)
    at = bisect_left(documents, key, key=_doc_order)
    return at if at < len(documents) and documents[at].rel == job.rel else None


def _load_yaml_file(root: Path, path: Path, collector: Collector) -> YamlDoc | None:
    rel = _rel(root, path)
    try:
        return load_yaml(read_text(path, rel), rel)
    except TextDecodeError as exc:
        collector.add(exc.diagnostic)
    except YamlError as exc:
        collector.extend(exc.diagnostics)
    return None


# Below this many files to parse, forking a helper costs more than it saves (its fork, and its
# documents sent back: ~3 ms and ~0.05 ms a file, against ~0.25 ms to read and parse one).
MIN_FILES_FOR_WORKERS = 64
_CHUNK = 16  # files a process reads at a time (claimed one chunk at a time: share_chunks)
_Read = tuple[str, Document | None, list[Diagnostic]]  # a file read (_read_document)


def _load_documents(
    root: Path,
    jobs: list[_Job],
    collector: Collector,
    cache: BuildCache,
) -> list[Document | None]:
    """The document of each job (None where it did not load; its problems are in `collector`).

    A file whose identity is unchanged since the cache saw it is not read. The others are
    read and parsed by this process and forked helpers when there are many (a cold build:
    ~0.25 ms a file, which would otherwise leave every core but one idle: `_read_shared`);
    diagnostics keep the files' order."""
    docs: list[Document | None] = [None] * len(jobs)
    keys: dict[int, FileKey] = {}
    for i, job in enumerate(jobs):
        key = job.key if job.key is not None else stat_key(job.path)
        hit = cache.docs.get(job.rel)
        if hit is not None and hit[0] == key and isinstance(hit[2], Document):
            docs[i] = hit[2]
        else:
            keys[i] = key
    todo = list(keys)
    read = partial(_read_document, root, cache, [jobs[i] for i in todo])
    workers = worker_count()
    if len(todo) >= max(2, MIN_FILES_FOR_WORKERS) and workers > 1 and can_fork():
        results = _read_shared(read, len(todo), workers)
    else:
        results = [read(n) for n in range(len(todo))]
    for i, (digest, doc, found) in zip(todo, results, strict=True):
        collector.extend(found)
        docs[i] = doc
        if doc is not None:
            cache.docs[jobs[i].rel] = (keys[i], digest, doc)
        else:
            cache.docs.pop(jobs[i].rel, None)
    return docs


def _read_shared(read: Callable[[int], _Read], n: int, workers: int) -> list[_Read]:
    """`[read(k) for k in range(n)]`, shared with `workers - 1` forked helpers: the first file
    is read here before forking (what reading the first loads, the front matter's validator,
    is then built once, not by each), then the others in chunks each process claims as it
    goes (parallel.share_chunks); the order is the files' whoever read them."""
    out = [read(0)]
    parts = [(start, min(start + _CHUNK, n)) for start in range(1, n, _CHUNK)]
    here: dict[int, list[_Read]] = {}

    def mine(i: int) -> None:
        here[i] = [read(k) for k in range(*parts[i])]

    made = share_chunks(
        len(parts), mine, lambda i: [read(k) for k in range(*parts[i])], workers - 1
    )
    for _, part in sorted([*here.items(), *made], key=lambda done: done[0]):
        out.extend(part)
    return out


def _read_document(root: Path, cache: BuildCache, jobs: list[_Job], n: int) -> _Read:
    """Read and parse one file (in a worker process, or here): its digest, its document (the
    cached one if the bytes are the same) and the problems found. The sections with their
    digests (pairing needs them) and the reading time (every card showing the post needs it)
    are worked out here, where the work is spread over the cores, and kept with the document
    (a worker's document comes back pickled, with them: Document.__getstate__), as are the
    images the body writes (checked by the pair stage, pair/assets.py)."""
    job = jobs[n]
    data = job.path.read_bytes()
    digest = digest_bytes(data)
    hit = cache.docs.get(job.rel)
    doc: Document | None
    if hit is not None and hit[1] == digest and isinstance(hit[2], Document):
        doc, found = hit[2], []
    else:
        collector = Collector()
        doc = _load_document(job, data, digest, collector)
        found = collector.items
    if doc is None:
        return digest, None, found
    doc.reading_minutes  # noqa: B018 - computed now, kept with the document
    doc.image_refs  # noqa: B018 - (the same)
    for section in doc.sections:
        section.digest  # noqa: B018 - computed now, kept with the document
    return digest, doc, found


def _load_document(job: _Job, data: bytes, digest: str, collector: Collector) -> Document | None:
    rel = job.rel
    try:
        text = decode_text(data, rel)
        split = split_front_matter(text, rel)
        doc = load_yaml(split.yaml_text, rel, line_offset=split.yaml_line - 1)
    except (TextDecodeError, FrontMatterError) as exc:
        collector.add(exc.diagnostic)
        return None
    except YamlError as exc:
        collector.extend(exc.diagnostics)
        return None
    data = doc.data if doc.data is not None else {}
    if not isinstance(data, dict):
        collector.error(rel, split.yaml_line, "front-matter", "front matter must be a mapping")
        return None
    try:
        meta = FrontMatter.model_validate(data)
    except ValidationError as exc:
        collector.extend(validation_diagnostics(exc, doc, rel, model=FrontMatter))
        return None
    return Document(
        rel, job.lang, job.kind, job.name, meta, split.body, split.body_line, doc, digest
    )
