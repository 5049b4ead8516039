"""The resized variants of the local images (issue 19 item 5; pair/images.py says which).

Each variant is encoded once per image content, width, format and quality, and kept in the
user's cache folder (`$XDG_CACHE_HOME/bipub/images/variants/`): a build after the first only
copies them into the site (`/_img/…`, owned by the HTML output kind). `bipub build --no-cache`
encodes them again and keeps nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from io import BytesIO
from pathlib import Path

from bipub.cache import write_cache_file
from bipub.diagnostics import Collector, Diagnostic, DiagnosticError
from bipub.pair.images import Images, LocalImage, Variant
from bipub.parallel import can_fork, fork_map, worker_count

ENCODER_VERSION = 1  # part of every cached variant's name: raise it when `encode` changes


MIN_ENCODES_FOR_WORKERS = 8  # below this many new variants, forking costs more than it saves

Encoded = tuple["bytes | None", "str | None", "list[Diagnostic] | None"]  # see _encode_one


def encode_variants(
    images: Images,
    cache_dir: Path | None,
    quality: int,
    collector: Collector,
    setup: Callable[[], None] | None = None,
) -> dict[str, bytes]:
    """Encode the variants the cache does not have yet, in forked workers when there are many
    (call it before the pages are rendered: forking needs a process without threads). Each is
    saved in the cache; returned (by site path) are those that could not be saved there (none
    under --no-cache, `cache_dir` None: then all are)."""
    folder = cache_dir / "images" / "variants" if cache_dir is not None else None
    todo = [
        (path, image, variant)
        for path, (image, variant) in sorted(images.variants().items())
        if folder is None or not (folder / _name(image, variant, quality)).is_file()
    ]
    job = partial(_encode_one, folder, quality)
    workers = worker_count()
    if len(todo) >= MIN_ENCODES_FOR_WORKERS and workers > 1 and can_fork():
        results = fork_map(job, todo, 1, workers, setup=setup)
    else:
        results = [job(item) for item in todo]
    fresh: dict[str, bytes] = {}
    warned = False
    for (path, _, _), (data, problem, errors) in zip(todo, results, strict=True):
        if errors:
            raise DiagnosticError(errors)
        if data is not None:
            fresh[path] = data
        if problem is not None and not warned:
            collector.warning(None, None, "cache-not-saved", problem)
            warned = True
    return fresh


def _encode_one(
    folder: Path | None, quality: int, item: tuple[str, LocalImage, Variant]
) -> Encoded:
    """One variant, encoded and saved in the cache (in a worker, or here): its bytes if they
    were not saved (and why not, if there is a cache), or the errors that stopped it."""
    _, image, variant = item
    try:
        data = encode(image, variant, quality)
    except DiagnosticError as exc:
        return None, None, list(exc.diagnostics)
    if folder is None:
        return data, None, None
    problem = _save(folder / _name(image, variant, quality), data)
    return (data, problem, None) if problem is not None else (None, None, None)


def variant_files(
    images: Images,
    cache_dir: Path | None,
    quality: int,
    collector: Collector,
    fresh: Mapping[str, bytes] | None = None,
) -> Iterator[tuple[str, bytes]]:
    """(output path, bytes) of every variant of the site's images, in path order: from `fresh`
    (encode_variants), else the cache, else encoded now."""
    folder = cache_dir / "images" / "variants" if cache_dir is not None else None
    for path, (image, variant) in sorted(images.variants().items()):
        data = (fresh or {}).get(path)
        if data is None:
            data = _cached(folder, image, variant, quality)
        if data is None:
            data, problem, errors = _encode_one(folder, quality, (path, image, variant))
            if errors:
                raise DiagnosticError(errors)
            if problem is not None:
                collector.warning(None, None, "cache-not-saved", problem)
            if data is None:
                data = _cached(folder, image, variant, quality)
            if data is None:  # saved, and gone at once: encode it (again)
                data = encode(image, variant, quality)
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
        write_cache_file(path, data)
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
