"""Local images: CV images and Markdown images, checked and probed (pair/images.py).

A CV `logo` or award `image`, or a Markdown image, that names a site path (`/assets/logo.svg`,
`../img.png`) is served from the project's `static/` folder (or the theme's `assets/`). When that
file is not there the page would show an empty box and the server answer 404, so each such
reference is an error (`missing-asset`, issue 19; a warning before) naming the line of the
source file that wrote it — not the output HTML. A file that is there but is not an image that
can be read (corrupt, truncated, not an image) is an error too (`image-unreadable`). Remote URLs
(http:, https:, //host, data:) are not checked here (`bipub check --links` does) and are left
as they are.
"""

from __future__ import annotations

import posixpath
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from bipub.config import SiteConfig
from bipub.diagnostics import Collector
from bipub.load.content import Content, CvFile, Document
from bipub.load.image_refs import ImageRef
from bipub.pair.images import (
    CV_SIZES,
    CV_WIDTHS,
    ImageError,
    Images,
    LocalImage,
    ProbeCache,
    variants_of,
)

THEME_STATIC = Path(__file__).resolve().parent.parent / "theme" / "static"
CV_IMAGE_FIELDS = {("experience", "logo"), ("awards", "image")}


def check_assets(
    root: Path,
    content: Content,
    collector: Collector,
    config: SiteConfig | None = None,
    docs: list[Document] | None = None,
) -> Images:
    """Report every CV image and Markdown image that names a missing or unreadable local file;
    the site's local images, probed, with their variants (`config.images`). `docs`: the
    documents with Markdown images (`with_images`), in their order, if the caller has them."""
    files = _StaticFiles(root / "static")
    probes = ProbeCache(root)
    found = _Found(files, probes, collector, config)
    if docs is None:
        docs = with_images(content.documents)
    probes.prefetch(_local_files(files, content.cv, docs))  # new images: by workers if many
    for cv in content.cv.values():
        for line, kind, ref in _cv_images(cv):
            image = found.image(cv.rel, line, ref, "/", CV_WIDTHS[kind], CV_SIZES[kind], ref)
            if image is not None:
                found.images.cv[f"{kind}:{ref}"] = image
    for doc in docs:
        check_document_assets(root, doc, collector, files, found)
    problem = probes.save()
    if problem is not None:
        collector.add(problem)
    return found.images


def _local_files(
    files: _StaticFiles, cvs: Mapping[str, CvFile], docs: Iterable[Document]
) -> Iterator[Path]:
    """The files of the site's local images (as `check_assets` finds them: `docs`, those
    with images)."""
    for cv in cvs.values():
        for _, _, ref in _cv_images(cv):
            where = files.find(ref, "/")
            if where is not None and where[1] is not None and not files.through_link(where[1]):
                yield where[1]
    for doc in docs:
        base = _page_path(doc)
        for _, src in _doc_refs(doc):
            where = files.find(src, base)
            if where is not None and where[1] is not None and not files.through_link(where[1]):
                yield where[1]


def check_document_assets(
    root: Path,
    doc: Document,
    collector: Collector,
    files: _StaticFiles | None = None,
    found: _Found | None = None,
) -> None:
    """Report the Markdown images of one document that name a missing or unreadable local
    file (and record the others in `found`)."""
    files = files or _StaticFiles(root / "static")
    found = found or _Found(files, ProbeCache(root), collector, None)
    refs = _doc_refs(doc)
    if not refs:
        return
    base = _page_path(doc)
    options = found.config.images if found.config is not None else None
    widths = tuple(options.widths) if options is not None else ()
    sizes = options.sizes if options is not None else ""
    for offset, src in refs:
        line = doc.body_line + offset
        image = found.image(doc.rel, line, src, base, widths, sizes, f"image {src}")
        if image is not None:
            found.images.docs.setdefault(doc.rel, {})[src] = image


def with_images(documents: Iterable[Document]) -> list[Document]:
    """The documents whose bodies have Markdown images, in their order (most have none:
    `_doc_refs`)."""
    return [doc for doc in documents if doc.image_refs]


def _doc_refs(doc: Document) -> tuple[ImageRef, ...]:
    """The Markdown images of a document's body (line in the body from 0, src), as the loader
    found them when it read the file (load/content.py `Document.image_refs`: kept with the
    document in the build cache, so a body is not searched again while its file is as it was;
    a search of every body cost ~0.15 s on a 5,000-post site)."""
    return doc.image_refs


class _Found:
    """The images found so far, and how to probe one."""

    def __init__(
        self,
        files: _StaticFiles,
        probes: ProbeCache,
        collector: Collector,
        config: SiteConfig | None,
    ) -> None:
        self.files = files
        self.probes = probes
        self.collector = collector
        self.config = config
        prefix = urlsplit(config.base_url).path.rstrip("/") if config is not None else ""
        self.images = Images(prefix=prefix)
        self._formats: list[str] | None = None

    def formats(self) -> list[str]:
        """The variant formats asked for that this Pillow can write (a warning names any
        other, once)."""
        if self._formats is None:
            asked = list(self.config.images.formats) if self.config is not None else []
            from PIL import features  # (Pillow loads only for a site with images)

            self._formats = [f for f in asked if features.check(f)]
            for fmt in asked:
                if fmt not in self._formats:
                    self.collector.warning(
                        "bipub.yaml",
                        None,
                        "image-format",
                        f"images.formats: {fmt} variants are not made: this Pillow cannot "
                        "write them",
                    )
        return self._formats

    def image(
        self,
        rel: str,
        line: int | None,
        ref: str,
        base: str,
        widths: tuple[int, ...],
        sizes: str,
        shown: str,
    ) -> LocalImage | None:
        """The image `ref` names (None: remote, or missing or unreadable: reported)."""
        where = self.files.find(ref, base)
        if where is None:
            return None  # remote, data:, mailto: or a bare #fragment: left as it is
        site_path, path = where
        if path is None:
            self.collector.error(
                rel,
                line,
                "missing-asset",
                f"{shown}: no such file (looked for static{site_path}){self._beside(site_path)}",
                key=ref,
            )
            return None
        if self.files.through_link(path):
            self.collector.error(
                rel,
                line,
                "symlink",
                f"{shown}: {_shown(path, self.files.static)}: symbolic links are not followed",
                key=ref,
            )
            return None
        try:
            info = self.probes.info(path)
        except (ImageError, OSError) as exc:
            why = str(exc) if isinstance(exc, ImageError) else (exc.strerror or str(exc))
            shown_file = _shown(path, self.files.static)
            self.collector.error(
                rel, line, "image-unreadable", f"{shown}: {shown_file} cannot be read: {why}",
                key=ref,
            )  # fmt: skip
            return None
        formats = self.formats() if info.resizable and widths else []
        variants = variants_of(site_path, info, widths, formats)
        return LocalImage(site_path, path, info, variants, sizes if variants else "")

    def _beside(self, site_path: str) -> str:
        """A relative image is looked for beside each language's page: when another language's
        page has the file (a translation, drafted or not, keeps the source's relative path),
        say where it is."""
        _, lang, rest = [*site_path.split("/", 2), "", ""][:3]
        codes = self.config.codes if self.config is not None else []
        for code in codes:
            if code != lang and lang in codes and (self.files.static / code / rest).is_file():
                return (
                    f"; static/{code}/{rest} is there: a relative image is looked for beside each"
                    f" language's page, so copy it to static{site_path} or link /{code}/{rest}"
                )
        return ""


def _shown(path: Path, static: Path) -> str:
    if path.is_relative_to(static):
        return "static/" + path.relative_to(static).as_posix()
    return f"the theme's assets/{path.relative_to(THEME_STATIC).as_posix()}"


def _cv_images(cv: CvFile) -> Iterator[tuple[int | None, str, str]]:
    """(line, field name, ref) of each CV image."""
    data: Any = cv.raw
    for section, name in sorted(CV_IMAGE_FIELDS):
        items = data.get(section)
        if not isinstance(items, list):
            continue
        for i, item in enumerate(items):
            if isinstance(item, dict) and isinstance(item.get(name), str) and item[name].strip():
                yield cv.yaml.line_for((section, i, name)), name, item[name].strip()


def _page_path(doc: Document) -> str:
    """The URL path a document's page is at (relative images resolve against it)."""
    slug = doc.meta.slug or doc.name.rsplit("/", 1)[-1]
    return f"/{doc.lang}/blog/{slug}/" if doc.kind == "posts" else f"/{doc.lang}/{slug}/"


class _StaticFiles:
    """Which site paths the build serves from static/ and the theme's assets."""

    def __init__(self, static: Path) -> None:
        self.static = static

    def through_link(self, path: Path) -> bool:
        """Whether a file under static/ is, or lies behind, a symbolic link (which bipub does
        not follow: load/static.py refuses it; read here, it could be a file outside the
        project)."""
        if not path.is_relative_to(self.static):
            return False
        p = path
        while p != self.static:
            if p.is_symlink():
                return True
            p = p.parent
        return False

    def missing(self, ref: str, base: str) -> str | None:
        """None when `ref` is remote or its file exists; else where it was looked for."""
        where = self.find(ref, base)
        if where is None or where[1] is not None:
            return None
        return f"static{where[0]}"

    def find(self, ref: str, base: str) -> tuple[str, Path | None] | None:
        """None when `ref` is remote; else its site path and its file (None: not there)."""
        parts = urlsplit(ref)
        if parts.scheme or parts.netloc or not parts.path:
            return None  # remote, data:, mailto: or a bare #fragment
        path = unicodedata.normalize("NFC", unquote(parts.path))
        site_path = posixpath.normpath(posixpath.join(base, path))
        rel = site_path.lstrip("/")
        if not rel or rel.startswith(".."):
            return f"/{rel}", None
        if (self.static / rel).is_file():
            return f"/{rel}", self.static / rel
        theme = THEME_STATIC / rel.removeprefix("assets/")
        if rel.startswith("assets/") and theme.is_file():
            return f"/{rel}", theme
        return f"/{rel}", None
