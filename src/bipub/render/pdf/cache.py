"""Rendered PDFs kept between builds in the user's cache (never the project: a cloned repository
could plant files there); `bipub build --no-cache` renders all."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from bipub.code_stamp import CODE
from bipub.diagnostics import Diagnostic, Severity
from bipub.render.pdf.fonts import Fonts
from bipub.render.pdf.jobs import PdfJob, PdfResult


class RenderCache:
    """Rendered PDFs kept in the user's cache (~/.cache/bipub/pdf/), one slot per project and
    document: reused when the print HTML, the fonts, bipub's and WeasyPrint's versions and every
    file the render read are unchanged (rendering is deterministic, so the bytes are the ones a
    render would give). `folder` None: a cache that never hits."""

    def __init__(self, folder: Path | None, project_root: Path, fonts: Fonts) -> None:

        self.folder = folder
        self.project = str(project_root.resolve())
        try:
            engine = version("weasyprint")
        except PackageNotFoundError:  # pragma: no cover - it is a dependency
            engine = "?"
        parts = [CODE, engine]
        for face in fonts.faces:
            try:
                st = Path(face.path).stat()
            except OSError:
                continue
            parts.append(f"{face.path}:{face.index}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}")
        self.base = hashlib.sha256("\0".join(parts).encode()).hexdigest()

    def _key(self, job: PdfJob) -> str:
        h = hashlib.sha256(self.base.encode())
        mounts = [f"{prefix}\t{folder}" for prefix, folder in job.mounts]
        for part in (job.variant or "", job.base_url, *job.roots, *mounts, job.html):
            h.update(b"\0" + part.encode())
        return h.hexdigest()

    def _slot(self, job: PdfJob) -> Path:
        assert self.folder is not None
        name = hashlib.sha256(f"{self.project}\0{job.document}".encode()).hexdigest()[:32]
        return self.folder / name

    @staticmethod
    def _stamp(path: str) -> list[object] | None:
        try:
            st = Path(path).stat()
        except OSError:
            return None
        return [path, st.st_size, st.st_mtime_ns, st.st_ctime_ns]  # ctime: as the up-to-date check

    def get(self, job: PdfJob) -> PdfResult | None:
        if self.folder is None:
            return None
        slot = self._slot(job)
        try:
            meta = json.loads(slot.with_suffix(".json").read_text(encoding="utf-8"))
            if meta.get("key") != self._key(job):
                return None
            if any(self._stamp(f[0]) != f for f in meta.get("files", [])):
                return None
            pages = meta["pages"]  # (an entry of an older bipub has none: rendered again)
            if not isinstance(pages, int) or isinstance(pages, bool):
                return None
            data = slot.with_suffix(".pdf").read_bytes()
            warnings = tuple(
                Diagnostic(job.document, None, code, message, Severity.WARNING)
                for code, message in meta.get("warnings", [])
            )
        except (OSError, ValueError, TypeError, AttributeError, IndexError, KeyError):
            return None
        if _sha256(data) != meta.get("sha256"):
            return None
        return PdfResult(job.document, data, warnings, pages=pages)

    def put(self, job: PdfJob, result: PdfResult) -> str | None:
        """Keep a rendered PDF; a cache that cannot be written (full, read-only) changes no
        output, and is returned as a message (the next build renders the PDF again)."""
        if (
            self.folder is None
            or result.data is None
            or any(d.severity is Severity.ERROR for d in result.diagnostics)
        ):
            return None
        stamps = [self._stamp(f) for f in result.files]
        if any(s is None for s in stamps):
            return None
        meta = {
            "document": job.document,
            "key": self._key(job),
            "sha256": _sha256(result.data),
            "files": stamps,
            "warnings": [[d.code, d.message] for d in result.diagnostics],
            "pages": result.pages,
        }
        slot = self._slot(job)
        tmp: Path | None = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            for suffix, payload in ((".pdf", result.data), (".json", json.dumps(meta).encode())):
                tmp = slot.with_suffix(f"{suffix}.{os.getpid()}.tmp")
                tmp.write_bytes(payload)
                tmp.replace(slot.with_suffix(suffix))
                tmp = None
        except OSError as exc:
            # a cache folder that cannot be written (full, read-only): no cache, same output;
            # the half-written temporary file is not left behind to fill it further
            if tmp is not None:
                with contextlib.suppress(OSError):
                    tmp.unlink(missing_ok=True)
            return (
                f"{job.document} could not be kept in the PDF cache {self.folder} "
                f"({exc.strerror or exc}): the next build renders it again"
            )
        return None


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
