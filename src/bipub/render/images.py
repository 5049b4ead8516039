"""The resized variants of the local images (issue 19 item 5; pair/images.py says which).

Each variant is encoded once per image content, width, format and quality, and kept in the
user's cache folder (`$XDG_CACHE_HOME/bipub/images/variants/`): a build after the first only
copies them into the site (`/_img/…`, owned by the HTML output kind). `bipub build --no-cache`
encodes them again and keeps nothing.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path

from bipub.diagnostics import Collector, Diagnostic, DiagnosticError
from bipub.pair.images import Images, LocalImage, Variant

ENCODER_VERSION = 1  # part of every cached variant's name: raise it when `encode` changes


def variant_files(
    images: Images, cache_dir: Path | None, quality: int, collector: Collector
) -> Iterator[tuple[str, bytes]]:
    """(output path, bytes) of every variant of the site's images, in path order."""
    folder = cache_dir / "images" / "variants" if cache_dir is not None else None
    warned = False
    for path, (image, variant) in sorted(images.variants().items()):
        data = _cached(folder, image, variant, quality)
        if data is None:
            data = encode(image, variant, quality)
            if folder is not None:
                problem = _save(folder / _name(image, variant, quality), data)
                if problem is not None and not warned:
                    collector.warning(None, None, "cache-not-saved", problem)
                    warned = True
        yield path.lstrip("/"), data


def _name(image: LocalImage, variant: Variant, quality: int) -> str:
    return f"{image.info.digest}-{variant.width}-q{quality}-e{ENCODER_VERSION}.{variant.format}"


def _cached(folder: Path | None, image: LocalImage, variant: Variant, quality: int) -> bytes | None:
    if folder is None:
        return None
    try:
        return (folder / _name(image, variant, quality)).read_bytes()
    except OSError:
        return None


def _save(path: Path, data: bytes) -> str | None:
    """Keep a variant in the cache; why it could not be kept, if it could not."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".variant-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        return (
            f"image variants could not be kept in {path.parent} "
            f"({exc.strerror or type(exc).__name__}); the next build encodes them again"
        )
    return None


def encode(image: LocalImage, variant: Variant, quality: int) -> bytes:
    """The variant's bytes: the image as shown (EXIF orientation applied), resized to the
    variant's width, in its format. The file must still be the one probed (a file changed
    since is an error: the page would announce sizes the variant does not have)."""
    from PIL import Image, ImageOps  # (Pillow loads only for a site with images)

    data = image.file.read_bytes()
    if hashlib.sha256(data).hexdigest()[:32] != image.info.digest:
        raise DiagnosticError(
            [
                Diagnostic(
                    None,
                    None,
                    "image-unreadable",
                    f"{image.file} changed while the site was being built; build again",
                )
            ]
        )
    with Image.open(BytesIO(data)) as opened:
        im = ImageOps.exif_transpose(opened)
        if im.mode not in ("RGB", "RGBA"):
            alpha = "A" in im.getbands() or "transparency" in im.info
            im = im.convert("RGBA" if alpha else "RGB")
        im = im.resize((variant.width, variant.height), Image.Resampling.LANCZOS)
        out = BytesIO()
        if variant.format == "avif":
            im.save(out, format="AVIF", quality=quality, speed=8)
        else:
            im.save(out, format="WEBP", quality=quality, method=4)
    return out.getvalue()
