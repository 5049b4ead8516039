"""Issue 19 item 5: local images get their width and height, `decoding="async"`, `loading="lazy"`
below the first one, and WebP/AVIF variants in a srcset, encoded once per image content (cached
in the user's cache folder) and probed once per file version.

One sample (the minimal project with images in a post and in the CV), built twice: a first
build, then a second after an edit of the post's text, counting the probes and the encodes.
Missing and unreadable images: tests/bad_inputs/image_*.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from PIL import Image

from bipub.pair import images as pair_images
from bipub.pair.images import ImageInfo, LocalImage, variants_of
from bipub.render import images as render_images
from bipub.render.markdown import render_markdown
from tests.conftest import TESTS

POST = """

![A wide chart](/img/wide.png "Throughput")

Turned on its side: ![a photo](../../../img/turned.jpg), a drawing ![diagram](/img/diagram.svg),
a remote one ![remote](https://example.org/remote.png) and a loop ![spin](/img/spin.gif).
"""
LOGO = "    logo: /img/logo.png\n"
AWARDS = "awards:\n  - title: Best talk\n    image: /img/award.png\n"


@dataclass
class Built:
    root: Path
    site: Path
    probes: list[list[str]] = field(default_factory=list)  # files probed, per build
    encodes: list[list[str]] = field(default_factory=list)  # variants encoded, per build

    def read(self, rel: str) -> str:
        return (self.site / rel).read_text(encoding="utf-8")


def make_images(static: Path) -> None:
    img = static / "img"
    img.mkdir(parents=True)
    Image.new("RGB", (2000, 1000), (200, 40, 40)).save(img / "wide.png")
    turned = Image.new("RGB", (200, 100), (40, 200, 40))
    exif = turned.getexif()
    exif[0x0112] = 6  # shown turned a quarter: 100 wide, 200 high
    turned.save(img / "turned.jpg", exif=exif)
    (img / "diagram.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 150"><rect width="9"/></svg>',
        encoding="utf-8",
    )
    frames = [Image.new("RGB", (40, 40), color) for color in ((255, 0, 0), (0, 0, 255))]
    frames[0].save(img / "spin.gif", save_all=True, append_images=frames[1:], duration=100)
    Image.new("RGBA", (400, 200), (0, 0, 255, 128)).save(img / "logo.png")
    Image.new("RGB", (300, 300), (0, 0, 0)).save(img / "award.png")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    from bipub.pipeline import build

    with pytest.MonkeyPatch.context() as mp:
        base = tmp_path_factory.mktemp("images")
        mp.setenv("XDG_CACHE_HOME", str(base / "user-cache"))  # no variant of other tests
        mp.setenv("SOURCE_DATE_EPOCH", "1798761600")
        mp.setenv("BIPUB_WORKERS", "1")  # probes and encodes counted here (see the last test)
        root = base / "minimal"
        shutil.copytree(TESTS / "projects" / "minimal", root)
        make_images(root / "static")
        post = root / "content/en/posts/alpha.md"
        post.write_text(post.read_text(encoding="utf-8") + POST, encoding="utf-8")
        cv = root / "content/en/cv.yaml"
        text = cv.read_text(encoding="utf-8").replace(
            "    position: Engineer\n", LOGO + "    position: Engineer\n"
        )
        cv.write_text(text + AWARDS, encoding="utf-8")
        out = Built(root, root / "site")
        probe, encode = pair_images.probe, render_images.encode

        def counted_probe(path: Path) -> ImageInfo:
            out.probes[-1].append(path.name)
            return probe(path)

        def counted_encode(image: LocalImage, variant: pair_images.Variant, quality: int) -> bytes:
            out.encodes[-1].append(variant.path)
            return encode(image, variant, quality)

        mp.setattr(pair_images, "probe", counted_probe)
        mp.setattr(render_images, "encode", counted_encode)
        for n in range(2):
            out.probes.append([])
            out.encodes.append([])
            if n:
                post.write_text(post.read_text(encoding="utf-8") + "\nOne more line.\n", "utf-8")
            build(root, only={"html", "feeds"})
        yield out


def img_tag(html: str, src: str) -> str:
    match = re.search(rf'<img [^>]*src="{re.escape(src)}"[^>]*>', html)
    assert match, src
    return match.group(0)


def test_markdown_images_get_size_decoding_and_lazy_below_the_first(built: Built) -> None:
    html = built.read("en/blog/alpha/index.html")
    first = img_tag(html, "/img/wide.png")
    assert 'width="2000" height="1000"' in first and 'decoding="async"' in first
    assert "loading=" not in first  # the first image of the post: likely in view
    # a relative path becomes the file's site path: the body is also shown at other URLs
    turned = img_tag(html, "/img/turned.jpg")
    assert 'width="100" height="200"' in turned  # as browsers show it (EXIF orientation)
    assert 'loading="lazy"' in turned and 'decoding="async"' in turned
    svg = img_tag(html, "/img/diagram.svg")
    assert 'width="300" height="150" loading="lazy"' in svg  # from the viewBox
    gif = img_tag(html, "/img/spin.gif")
    assert 'width="40" height="40"' in gif
    assert '<img src="https://example.org/remote.png" alt="remote" />' in html  # left alone


def test_raster_images_get_variants_in_a_srcset_and_svg_and_gif_none(built: Built) -> None:
    html = built.read("en/blog/alpha/index.html")
    picture = re.search(r'<picture>(.*?)<img src="/img/wide.png"', html)
    assert picture, "no <picture> around the wide image"
    sources = re.findall(r'<source type="([^"]+)" srcset="([^"]+)" sizes="([^"]+)">', picture[1])
    assert [mime for mime, _, _ in sources] == ["image/avif", "image/webp"]
    _, srcset, sizes = sources[1]
    widths = [int(w) for w in re.findall(r" (\d+)w", srcset)]
    assert widths == [480, 960, 1440]  # the configured widths below the image's 2000
    assert sizes == "(max-width: 46rem) 100vw, 46rem"
    for candidate in srcset.split(", "):
        assert (built.site / candidate.split()[0].lstrip("/")).is_file(), candidate
    # never wider than the image: a 200 px image has one variant, at its own width
    assert re.search(r'srcset="/_img/turned-[0-9a-f]{12}-100\.webp 100w"', html)
    # an SVG and an animated GIF get no variants; the remote image none either
    assert html.count("<picture>") == 2
    assert re.search(r'</picture>, a drawing <img src="/img/diagram.svg"', html)


def test_a_variant_is_a_webp_of_its_width(built: Built) -> None:
    variant = next((built.site / "_img").glob("wide-*-480.webp"))
    with Image.open(variant) as im:
        assert (im.format, im.size) == ("WEBP", (480, 240))
    turned = next((built.site / "_img").glob("turned-*-100.webp"))
    with Image.open(turned) as im:
        assert im.size == (100, 200)  # turned as shown
    avif = next((built.site / "_img").glob("wide-*-960.avif"))
    with Image.open(avif) as im:
        assert (im.format, im.size) == ("AVIF", (960, 480))


def test_cv_images_get_size_and_variants(built: Built) -> None:
    html = built.read("en/index.html")
    logo = img_tag(html, "/img/logo.png")
    assert 'width="400" height="200" loading="lazy" decoding="async"' in logo
    assert re.search(
        r'srcset="/_img/logo-\w+-48\.webp 48w, [^"]+-96\.webp 96w, [^"]+-144\.webp 144w"', logo
    )
    assert 'sizes="3rem"' in logo
    award = img_tag(html, "/img/award.png")
    assert 'width="300" height="300"' in award and 'sizes="4.5rem"' in award


def test_the_feed_shows_the_same_image_markup(built: Built) -> None:
    feed = built.read("en/feed.xml")
    assert '&lt;picture&gt;&lt;source type="image/avif"' in feed


def test_a_second_build_neither_probes_nor_encodes_again(built: Built) -> None:
    first, second = built.probes
    assert sorted(first) == [
        "award.png",
        "diagram.svg",
        "logo.png",
        "spin.gif",
        "turned.jpg",
        "wide.png",
    ]
    assert second == []  # the probes are cached by file identity
    assert len(built.encodes[0]) == 2 * (3 + 1 + 3 + 3)  # wide, turned, logo, award: avif+webp
    assert built.encodes[1] == []  # the variants are cached by content


def test_fast_and_stock_markdown_render_images_alike() -> None:
    info = ImageInfo("0" * 32, 1600, 800, "PNG")
    image = LocalImage(
        "/a.png", Path("a.png"), info, variants_of("/a.png", info, [480], ["webp"]), "50vw"
    )
    source = 'Intro ![one](/a.png) and ![two *x*](/a.png "t")\n\n![three](https://e.org/b.png)\n'
    fast = render_markdown(source, fast=True, images={"/a.png": image}, prefix="/blog")
    stock = render_markdown(source, fast=False, images={"/a.png": image}, prefix="/blog")
    assert fast == stock
    assert fast.html.count("<picture>") == 2  # the remote image is left as written
    assert (
        '<p>Intro <picture><source type="image/webp" srcset="/blog/_img/a-000000000000-480.webp'
        ' 480w" sizes="50vw"><img src="/blog/a.png" alt="one" width="1600" height="800" '
        'decoding="async" /></picture> and <picture>'
    ) in fast.html
    assert 'alt="two x" title="t" width="1600" height="800" loading="lazy"' in fast.html
    assert '<img src="https://e.org/b.png" alt="three" /></p>' in fast.html


def test_an_edited_image_renders_its_pages_again(built: Built, tmp_path: Path) -> None:
    """The rendered body and the page are kept by their inputs: an image that changes size
    changes them (not only its document's text)."""
    from bipub.pipeline import build

    root = tmp_path / "edited"
    shutil.copytree(built.root, root, ignore=shutil.ignore_patterns("site", ".bipub-cache"))
    build(root, only={"html", "feeds"})
    before = (root / "site/en/blog/alpha/index.html").read_text(encoding="utf-8")
    assert 'width="2000" height="1000"' in before
    Image.new("RGB", (1200, 300), (1, 2, 3)).save(root / "static/img/wide.png")
    build(root, only={"html", "feeds"})
    after = (root / "site/en/blog/alpha/index.html").read_text(encoding="utf-8")
    assert 'width="1200" height="300"' in after
    assert re.search(r"/_img/wide-\w+-960\.webp 960w, /_img/wide-\w+-1200\.webp 1200w", after)
    assert 'width="1200" height="300"' in (root / "site/en/feed.xml").read_text(encoding="utf-8")
    old = re.findall(r"/_img/(wide-\w+)-480\.webp", before)[0]
    assert not list((root / "site/_img").glob(f"{old}-*")), "the old variants stay published"


def test_workers_probe_and_encode_what_one_process_does(
    built: Built, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first build of a site with many new images probes and encodes them in forked workers
    (forced here): the same site as the one-process build, the same cache for the next."""
    from bipub import parallel
    from bipub.pipeline import build
    from tests.conftest import tree_snapshot

    root = tmp_path / "workers"
    shutil.copytree(built.root, root, ignore=shutil.ignore_patterns("site", ".bipub-cache"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    monkeypatch.setenv("BIPUB_WORKERS", "2")
    monkeypatch.setattr(pair_images, "MIN_PROBES_FOR_WORKERS", 0)
    monkeypatch.setattr(render_images, "MIN_ENCODES_FOR_WORKERS", 0)
    calls: list[int] = []
    real = parallel.fork_map

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(len(args[1]))
        return real(*args, **kwargs)

    for module in (pair_images, render_images):
        monkeypatch.setattr(module, "fork_map", spy)
        monkeypatch.setattr(module, "can_fork", lambda: True)
    build(root, only={"html", "feeds"})
    assert calls == [6, 20], "the images were not probed and encoded by workers"
    ours, theirs = tree_snapshot(root / "site"), tree_snapshot(built.site)
    images = sorted(p for p in theirs if p.startswith("_img/"))
    assert images and sorted(p for p in ours if p.startswith("_img/")) == images
    for rel in [*images, "en/blog/alpha/index.html", "en/index.html"]:
        assert ours[rel] == theirs[rel], rel
    calls.clear()
    build(root, only={"html", "feeds"})  # nothing new: no worker forked
    assert calls == []
