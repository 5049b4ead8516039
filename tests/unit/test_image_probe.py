"""pair/images.py: what a probe says of an image file, and which variants an image gets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from bipub.pair.images import ImageError, ImageInfo, ProbeCache, probe, variants_of

SVG = '<svg xmlns="http://www.w3.org/2000/svg" {}><rect width="1" height="1"/></svg>'


@pytest.mark.parametrize(
    ("attrs", "size"),
    [
        ('viewBox="0 0 300 150"', (300, 150)),
        ('width="120" height="40" viewBox="0 0 300 150"', (120, 40)),
        ('width="120px" viewBox="0 0 300 150"', (120, 60)),  # height from the viewBox's ratio
        ('height="30" viewBox="0,0,300,150"', (60, 30)),
        ('width="50%" height="2em" viewBox="0 0 300 150"', (300, 150)),  # not px: the viewBox
        ('width="50%"', (None, None)),  # nothing to go by: no size (and no attributes)
    ],
)
def test_svg_size_from_its_attributes_or_viewbox(
    tmp_path: Path, attrs: str, size: tuple[int | None, int | None]
) -> None:
    path = tmp_path / "a.svg"
    path.write_text(SVG.format(attrs), encoding="utf-8")
    info = probe(path)
    assert (info.width, info.height, info.format) == (*size, "SVG")
    assert not info.resizable


def test_a_broken_svg_is_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "a.svg"
    path.write_text("<svg xmlns='http://www.w3.org/2000/svg'><g></svg>", encoding="utf-8")
    with pytest.raises(ImageError, match="not a well-formed SVG"):
        probe(path)


def test_a_truncated_png_is_unreadable_even_after_weasyprint_is_imported(tmp_path: Path) -> None:
    """WeasyPrint sets Pillow's LOAD_TRUNCATED_IMAGES for the whole process."""
    import weasyprint  # noqa: F401
    from PIL import ImageFile

    assert ImageFile.LOAD_TRUNCATED_IMAGES
    path = tmp_path / "a.png"
    Image.new("RGB", (64, 64), (1, 2, 3)).save(path)
    path.write_bytes(path.read_bytes()[:-40])
    with pytest.raises(ImageError, match="truncated"):
        probe(path)
    assert ImageFile.LOAD_TRUNCATED_IMAGES  # left as it was


def test_exif_orientation_turns_the_size(tmp_path: Path) -> None:
    path = tmp_path / "a.jpg"
    image = Image.new("RGB", (300, 100))
    exif = image.getexif()
    exif[0x0112] = 8
    image.save(path, exif=exif)
    info = probe(path)
    assert (info.width, info.height, info.format) == (100, 300, "JPEG")


def test_variants_are_never_wider_than_the_image() -> None:
    info = ImageInfo("ab" * 16, 1000, 500, "PNG")
    got = [
        (v.width, v.height, v.format)
        for v in variants_of("/x/My Photo.png", info, [960, 480, 1440], ["webp"])
    ]
    assert got == [(480, 240, "webp"), (960, 480, "webp"), (1000, 500, "webp")]
    big = ImageInfo("ab" * 16, 4000, 1000, "PNG")
    assert [v.width for v in variants_of("/a.png", big, [480, 960], ["avif", "webp"])] == [
        480, 960, 480, 960,
    ]  # fmt: skip
    (one,) = variants_of("/사진.png", ImageInfo("cd" * 16, 100, 50, "PNG"), [480], ["webp"])
    assert one.path == "/_img/image-cdcdcdcdcdcd-100.webp"  # a name of ASCII letters only
    assert variants_of("/x/My Photo.png", info, [480], ["webp"])[0].path.startswith(
        "/_img/my-photo-abababababab-"
    )
    animated = ImageInfo("ab" * 16, 1000, 500, "GIF", animated=True)
    assert variants_of("/a.gif", animated, [480], ["webp"]) == ()


def test_the_probe_cache_of_another_version_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cached probes are what one version of bipub and Pillow found: a file written by
    another (here: one with no stamp) is not read."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    image = tmp_path / "a.png"
    Image.new("RGB", (8, 4)).save(image)

    def probed(cache: ProbeCache) -> int:
        info = cache.info(image)
        assert (info.width, info.height) == (8, 4)
        return cache.probed

    cache = ProbeCache(tmp_path / "site")
    assert probed(cache) == 1
    assert cache.save() is None
    assert probed(ProbeCache(tmp_path / "site")) == 0  # read back
    data = json.loads(cache.path.read_text(encoding="utf-8"))
    data["stamp"] = [*data["stamp"][:-1], "pillow=0.0.1"]
    cache.path.write_text(json.dumps(data), encoding="utf-8")
    assert probed(ProbeCache(tmp_path / "site")) == 1
    del data["stamp"]
    cache.path.write_text(json.dumps({**data, "format": 1}), encoding="utf-8")  # an older bipub
    assert probed(ProbeCache(tmp_path / "site")) == 1
