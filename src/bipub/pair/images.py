"""Local images (issue 19 item 5): what each one is (size, format, content digest), probed once
per file version, and the resized variants the pages offer for it.

Every Markdown image and CV `logo` / award `image` that names a file the site serves
(pair/assets.py finds them) is probed: read, decoded in full (so a truncated or corrupt file is
found here, at the line that names it, not by a reader), its width and height taken (after its
EXIF orientation, as browsers show it; an SVG's from its width/height or viewBox). A probe is
kept in the user's cache folder by the file's identity (mtime, ctime, size, inode: what the
up-to-date check compares) so a build reopens only the images that changed. (The image
references of a Markdown body are found once per document, when the loader reads it, and kept
with it in the build cache: load/content.py `Document.image_refs`.) The file is read only if it
was written by the same bipub and Pillow (`cache_stamp`): another version may probe otherwise.

A raster image (not an animated one) gets variants: WebP (and AVIF where Pillow has it) at the
widths `images.widths` asks for that are smaller than the image (and one at its own width, at
most the largest), published under `/_img/` (render/images.py encodes them, cached by content).
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
import unicodedata
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path

from bipub.cache import FileKey, stat_key, user_cache_dir, write_cache_file
from bipub.code_stamp import CODE
from bipub.diagnostics import Diagnostic, Severity
from bipub.dist_version import version as dist_info_version
from bipub.parallel import can_fork, fork_map, worker_count

VARIANT_FOLDER = "_img"  # the site folder of the variants (owned by the HTML output kind)
PROBE_FORMAT = 2  # 2: no image references (kept with the documents)
MIN_PROBES_FOR_WORKERS = 16  # below this many new images, forking costs more than it saves
# the widths (CSS px) a CV image is shown at, with 2x and 3x: templates/home.html, site.css
CV_WIDTHS = {"logo": (48, 96, 144), "image": (72, 144, 216)}
CV_SIZES = {"logo": "3rem", "image": "4.5rem"}
_LENGTH = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(px)?\s*$")


class ImageError(Exception):
    """A file that cannot be read as an image (the message says why)."""


@dataclass(frozen=True)
class ImageInfo:
    digest: str  # of the file's bytes
    width: int | None  # as shown (after EXIF orientation); None: an SVG without sizes
    height: int | None
    format: str  # Pillow's name (PNG, JPEG, WEBP, GIF, …) or SVG
    animated: bool = False

    @property
    def resizable(self) -> bool:
        return self.format != "SVG" and not self.animated and bool(self.width)


@dataclass(frozen=True)
class Variant:
    path: str  # its site path (/_img/…)
    width: int
    height: int
    format: str  # "avif" or "webp"

    @property
    def mime(self) -> str:
        return f"image/{self.format}"


@dataclass(frozen=True)
class LocalImage:
    """One use of a local image: where the site serves it, what it is, its variants."""

    site_path: str
    file: Path
    info: ImageInfo
    variants: tuple[Variant, ...] = ()  # by format (formats' order), then width
    sizes: str = ""  # the `sizes` of its srcset

    def srcset(self, fmt: str, href: Mapping[str, str] | None = None) -> str:
        """The `srcset` of its `fmt` variants (`href`: site path → href, for a base path)."""
        return ", ".join(
            f"{(href or {}).get(v.path, v.path)} {v.width}w"
            for v in self.variants
            if v.format == fmt
        )

    def formats(self) -> list[str]:
        return list(dict.fromkeys(v.format for v in self.variants))


@dataclass
class Images:
    """Every local image of the site, by where it is used."""

    docs: dict[str, dict[str, LocalImage]] = field(default_factory=dict)  # rel → src → image
    cv: dict[str, LocalImage] = field(default_factory=dict)  # (field + ref) → image
    prefix: str = ""  # base_url's path ("/blog" for https://host/blog/): put before site paths

    def of(self, rel: str) -> dict[str, LocalImage]:
        return self.docs.get(rel, {})

    def key(self, rel: str) -> str:
        """What a document's rendering takes from its images ("" when it has none): never
        where the project is (a page's fingerprint does not depend on it)."""
        found = self.docs.get(rel)
        return _digest(self.prefix, _shown(found)) if found else ""

    def cv_key(self) -> str:
        return _digest(self.prefix, _shown(self.cv)) if self.cv else ""

    def cv_image(self, kind: str, ref: str) -> LocalImage | None:
        return self.cv.get(f"{kind}:{ref}")

    def variants(self) -> dict[str, tuple[LocalImage, Variant]]:
        """Every variant to publish, by its site path (each made once, whoever uses it)."""
        out: dict[str, tuple[LocalImage, Variant]] = {}
        for image in self.all():
            for variant in image.variants:
                out.setdefault(variant.path, (image, variant))
        return out

    def all(self) -> Iterable[LocalImage]:
        for found in self.docs.values():
            yield from found.values()
        yield from self.cv.values()


def _shown(images: Mapping[str, LocalImage]) -> list[tuple[str, str, ImageInfo, object, str]]:
    """What pages show of some images (by their references): not their files' paths."""
    return [
        (ref, im.site_path, im.info, im.variants, im.sizes) for ref, im in sorted(images.items())
    ]


def _digest(*items: object) -> str:
    return hashlib.sha256(repr(items).encode("utf-8")).hexdigest()[:16]


def variants_of(
    site_path: str,
    info: ImageInfo,
    widths: Iterable[int],
    formats: Iterable[str],
) -> tuple[Variant, ...]:
    """The variants of an image: each format at each of `widths` below its width, and at its
    own width if that is below the largest (never larger than the image)."""
    if not info.resizable or info.width is None or info.height is None:
        return ()
    asked = sorted(set(widths))
    if not asked:
        return ()
    chosen = [w for w in asked if w < info.width]
    chosen.append(min(info.width, asked[-1]))
    stem = _stem(site_path)
    out = []
    for fmt in formats:
        for w in sorted(set(chosen)):
            h = max(1, round(info.height * w / info.width))
            path = f"/{VARIANT_FOLDER}/{stem}-{info.digest[:12]}-{w}.{fmt}"
            out.append(Variant(path, w, h, fmt))
    return tuple(out)


def _stem(site_path: str) -> str:
    name = site_path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    stem = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")[:40].strip("-")
    return stem or "image"


# --------------------------------------------------------------------------- probing


def probe(path: Path) -> ImageInfo:
    """Read and decode an image file. Raises ImageError (why it cannot be read) or OSError."""
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()[:32]
    if path.suffix.lower() in (".svg", ".svgz") or data.lstrip()[:4] == b"<svg":
        return _probe_svg(data, digest)
    from PIL import Image, ImageFile, UnidentifiedImageError  # (only for a site with images)

    # WeasyPrint, once imported, sets Pillow's process-wide LOAD_TRUNCATED_IMAGES (a truncated
    # image then loads as if whole, its missing part blank): a probe must see the truncation
    truncated_ok = ImageFile.LOAD_TRUNCATED_IMAGES
    ImageFile.LOAD_TRUNCATED_IMAGES = False
    try:
        with warnings.catch_warnings():
            # a big photo (over 89 Mpx) is decoded; Pillow refuses only a likely bomb (2x that)
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(BytesIO(data)) as im:
                fmt = str(im.format or "")
                width, height = im.size
                orientation = im.getexif().get(0x0112, 1)
                animated = bool(getattr(im, "is_animated", False))
                im.load()  # decode it all: a truncated or corrupt file fails here
    except UnidentifiedImageError:
        raise ImageError("not an image Pillow can read") from None
    except Image.DecompressionBombError as exc:
        raise ImageError(f"too large to decode safely ({exc})") from None
    except (SyntaxError, ValueError, EOFError, struct.error) as exc:
        raise ImageError(f"corrupt image ({exc})") from None
    except OSError as exc:  # Pillow's "image file is truncated", "broken data stream", …
        raise ImageError(f"corrupt image ({exc})") from None
    finally:
        ImageFile.LOAD_TRUNCATED_IMAGES = truncated_ok
    if orientation in (5, 6, 7, 8):  # shown turned a quarter: browsers apply EXIF orientation
        width, height = height, width
    return ImageInfo(digest, width, height, fmt, animated)


def _probe_svg(data: bytes, digest: str) -> ImageInfo:
    try:
        root = ET.fromstring(data)  # noqa: S314 - ElementTree resolves no external entities
    except ET.ParseError as exc:
        raise ImageError(f"not a well-formed SVG file ({exc})") from None
    if not root.tag.endswith("svg"):
        raise ImageError(f"not an SVG image (its root element is <{root.tag}>)")
    width, height = _length(root.get("width")), _length(root.get("height"))
    box = (root.get("viewBox") or "").replace(",", " ").split()
    if (width is None or height is None) and len(box) == 4:
        try:
            bw, bh = float(box[2]), float(box[3])
        except ValueError:
            bw = bh = 0.0
        if bw > 0 and bh > 0:
            if width is None and height is None:
                width, height = round(bw), round(bh)
            elif width is None and height is not None:
                width = round(height * bw / bh)
            elif width is not None:
                height = round(width * bh / bw)
    return ImageInfo(digest, width, height, "SVG")


def _length(value: str | None) -> int | None:
    match = _LENGTH.match(value or "")
    return round(float(match.group(1))) or None if match else None


def cache_stamp() -> list[str]:
    """What the cached probes were made by: a file written by another version of bipub
    (`probe`) or Pillow is not read."""
    found = [str(PROBE_FORMAT), CODE]
    for dist, package in (("pillow", "PIL"),):
        known = dist_info_version(dist, package)  # (without importlib.metadata's imports)
        if known is not None:
            found.append(f"{dist}={known}")
            continue
        from importlib.metadata import PackageNotFoundError, version

        try:
            found.append(f"{dist}={version(dist)}")
        except PackageNotFoundError:  # pragma: no cover - a dependency
            found.append(f"{dist}=?")
    return found


def _probe_or_why(path: Path) -> ImageInfo | str:
    """A probe, or why the file cannot be read (a worker's result)."""
    try:
        return probe(path)
    except ImageError as exc:
        return str(exc)
    except OSError as exc:
        return exc.strerror or str(exc)


class ProbeCache:
    """Probes by file identity: a JSON file in the user's cache folder, one per project.
    Unreadable, or written by another version (`cache_stamp`): started afresh, which costs only
    the time (nothing read from it is trusted without its key), and written again by `save` (a
    file of another version is otherwise read in vain at every build)."""

    def __init__(self, root: Path) -> None:
        name = hashlib.sha256(str(root.absolute()).encode("utf-8")).hexdigest()[:16]
        self.path = user_cache_dir() / "images" / f"probes-{name}.json"
        self.files: dict[str, list[object]] = {}
        self._used_files: dict[str, list[object]] = {}
        self.probed = 0  # files probed by this build (not found in the cache)
        # probed by workers (`prefetch`) for this build: path → (its identity then, result)
        self._fresh: dict[str, tuple[FileKey, ImageInfo | str]] = {}
        self._stamp = cache_stamp()
        self._foreign = False  # a file not read (another version's, damaged): replaced by `save`
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if isinstance(data, dict) and data.get("stamp") == self._stamp:
                self.files = dict(data.get("files") or {})
            else:
                self._foreign = True
        except FileNotFoundError:
            pass
        except (OSError, ValueError, TypeError):
            self._foreign = True

    def _hit(self, key: str, ident: FileKey) -> ImageInfo | None:
        hit = self.files.get(key)
        if isinstance(hit, list) and len(hit) == 9 and hit[:4] == list(ident):
            digest, width, height, fmt, animated = hit[4:]
            if (
                isinstance(digest, str)
                and isinstance(fmt, str)
                and all(v is None or isinstance(v, int) for v in (width, height))
            ):
                self._used_files[key] = hit
                return ImageInfo(digest, width, height, fmt, bool(animated))  # type: ignore[arg-type]
        return None

    def prefetch(self, paths: Iterable[Path]) -> None:
        """Probe the files the cache does not know in forked workers, when there are many (a
        first build of a site with many images); `info` then takes their results."""
        todo: list[tuple[Path, FileKey]] = []
        for path in dict.fromkeys(paths):
            try:
                ident = stat_key(path)
            except OSError:
                continue  # `info` reports it
            if self._hit(str(path.absolute()), ident) is None:
                todo.append((path, ident))
        workers = worker_count()
        if len(todo) < MIN_PROBES_FOR_WORKERS or workers < 2 or not can_fork():
            return
        results = fork_map(_probe_or_why, [path for path, _ in todo], 4, workers)
        for (path, ident), result in zip(todo, results, strict=True):
            self._fresh[str(path.absolute())] = (ident, result)

    def info(self, path: Path) -> ImageInfo:
        """The image's probe (ImageError / OSError as `probe`), from the cache when the file
        is the one probed before."""
        key = str(path.absolute())
        ident: FileKey = stat_key(path)
        cached = self._hit(key, ident)
        if cached is not None:
            return cached
        fresh = self._fresh.pop(key, None)
        if fresh is not None and fresh[0] == ident:  # probed by a worker, unchanged since
            if isinstance(fresh[1], str):
                raise ImageError(fresh[1])
            info = fresh[1]
        else:
            info = probe(path)
        self.probed += 1
        self._used_files[key] = [*ident, info.digest, info.width, info.height, info.format,
                                 info.animated]  # fmt: skip
        return info

    def save(self) -> Diagnostic | None:
        """Write what this build used (older entries are dropped), if anything changed; the
        warning to report if it could not be written (the next build probes again)."""
        if self._used_files == self.files and not self._foreign:
            return None
        data = {"stamp": self._stamp, "files": self._used_files}
        folder = self.path.parent
        try:
            write_cache_file(self.path, json.dumps(data, ensure_ascii=False).encode("utf-8"))
        except OSError as exc:
            return Diagnostic(
                None,
                None,
                "cache-not-saved",
                f"the image probes could not be saved in {folder} "
                f"({exc.strerror or type(exc).__name__}); the next build reads the images again",
                Severity.WARNING,
            )
        self.files, self._foreign = dict(self._used_files), False
        return None
