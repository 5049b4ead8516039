"""Issue 18, on tests/projects/real_content: a same-day post set, missing images, title-prefix
and tag variants (one HTML + feeds build shared by the module; no PDFs)."""

from __future__ import annotations

import gzip
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import PROJECTS

pytestmark = pytest.mark.pdf  # the `full` build's PDFs are read (its other builds make none)


@dataclass(frozen=True)
class Built:
    root: Path
    exit_code: int
    stderr: str

    def read(self, rel: str) -> str:
        return (self.root / "site" / rel).read_text(encoding="utf-8")


def build(root: Path, *args: str) -> tuple[int, str]:
    from bipub.cli import main

    result = CliRunner().invoke(main, ["-C", str(root), "build", *args], catch_exceptions=False)
    return result.exit_code, result.stderr


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with pytest.MonkeyPatch.context() as mp:  # (conftest's _fixed_environment is per test)
        mp.setenv("SOURCE_DATE_EPOCH", "1798761600")
        mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "xdg-cache"))
        mp.delenv("DEEPL_AUTH_KEY", raising=False)
        root = tmp_path_factory.mktemp("rc") / "real_content"
        copy_project(root)
        yield root


@pytest.fixture(scope="module")
def built(project: Path) -> Built:
    code, err = build(project, "--only", "html", "--only", "feeds")
    return Built(project, code, err)


def _post_links(html: str, lang: str) -> list[str]:
    seen: list[str] = []
    for slug in re.findall(rf'href="/{lang}/blog/([a-z-]+)/"', html):
        if slug not in seen and slug != "archive":  # (the blog's link to its archive)
            seen.append(slug)
    return seen


# ---------------------------------------------------------------- ordering


def test_same_day_posts_follow_order_then_time_then_key(built: Built) -> None:
    assert built.exit_code == 0, built.stderr
    expected = ["c-pinned", "b-afternoon", "a-morning", "e-plain", "d-yesterday"]
    assert _post_links(built.read("ko/blog/index.html"), "ko") == expected
    assert _post_links(built.read("en/blog/index.html"), "en") == expected


def test_date_time_is_shown_as_its_date(built: Built) -> None:
    html = built.read("ko/blog/index.html")
    # 2026-04-07T23:30:00-05:00 is shown as the date written (April 7), not the UTC date
    d = html.index("/ko/blog/d-yesterday/")
    assert "2026년 4월 7일" in html[d : d + 2000]
    assert "T23:30" not in html
    a = built.read("ko/blog/a-morning/index.html")
    assert "2026년 4월 8일" in a


def test_feed_and_sitemap_carry_the_instant(built: Built) -> None:
    feed = built.read("ko/feed.xml")
    published = re.findall(r"<published>([^<]+)</published>", feed)
    assert published == [
        "2026-04-08T00:00:00Z",  # c-pinned: a plain date
        "2026-04-08T15:00:00+09:00",
        "2026-04-08T09:00:00+09:00",
        "2026-04-08T00:00:00Z",
        "2026-04-07T23:30:00-05:00",
    ]
    assert "<updated>2026-04-08T15:00:00+09:00</updated>" in feed.split("<entry", 1)[0]
    sitemap = built.read("sitemap.xml")
    assert re.search(
        r"<loc>https://real.example.org/ko/blog/a-morning/</loc>\s*"
        r"<lastmod>2026-04-08T09:00:00\+09:00</lastmod>",
        sitemap,
    )
    assert re.search(
        r"<loc>https://real.example.org/ko/blog/e-plain/</loc>\s*<lastmod>2026-04-08</lastmod>",
        sitemap,
    )


# ---------------------------------------------------------------- assets


MISSING_ASSETS = [
    "content/en/cv.yaml:13: /assets/logos/gone.svg: no such file "
    "(looked for static/assets/logos/gone.svg)",
    "content/en/cv.yaml:17: /assets/awards/best-talk.png: no such file "
    "(looked for static/assets/awards/best-talk.png)",
    "content/ko/posts/a-morning.md:10: image /assets/img/missing.png: no such file "
    "(looked for static/assets/img/missing.png)",
    "content/ko/posts/a-morning.md:12: image figure.png: no such file "
    "(looked for static/ko/blog/a-morning/figure.png)",
]
MADE_IMAGES = [
    "assets/logos/gone.svg",
    "assets/awards/best-talk.png",
    "assets/img/missing.png",
    "ko/blog/a-morning/figure.png",
]


def add_image(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".svg":
        path.write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 4"/>', "utf-8")
    else:
        from PIL import Image

        Image.new("RGB", (64, 32), (10, 120, 200)).save(path)


def copy_project(root: Path) -> None:
    """The project, with the images it names but does not have (an error since issue 19: see
    test_missing_local_images_are_errors_at_the_source_line)."""
    shutil.copytree(PROJECTS / "real_content", root)
    for rel in MADE_IMAGES:
        add_image(root / "static" / rel)


def test_missing_local_images_are_errors_at_the_source_line(tmp_path: Path) -> None:
    """Issue 19: a missing local image is an error (it was a warning, an error under --strict,
    until then: this test expected warnings) at the line that names it; nothing is built."""
    root = tmp_path / "missing"
    shutil.copytree(PROJECTS / "real_content", root)  # as it is: four images missing
    code, err = build(root, "--only", "html")
    assert code == 1
    lines = [line for line in err.splitlines() if "no such file" in line]
    assert lines == MISSING_ASSETS  # errors: "path:line: message", the code for warnings only
    assert "in-code.png" not in err  # an image inside a code block is text
    assert "acme.svg" not in err  # it exists in static/
    assert "example.org/award.png" not in err  # remote: not checked here
    assert not (root / "site").exists()


def test_a_translation_missing_its_relative_image_is_told_where_it_is(tmp_path: Path) -> None:
    """A translation (a DeepL draft keeps the source's `figure.png`) looks for its relative
    image beside its own page: the error says the source's copy is there, and what to do."""
    root = tmp_path / "translated"
    copy_project(root)
    ko = (root / "content/ko/posts/a-morning.md").read_text(encoding="utf-8")
    en = ko.split("---\n", 2)[2].replace("본문입니다.", "The body.")
    (root / "content/en/posts/a-morning.md").write_text(
        "---\ntitle: A morning post\n---\n" + en, encoding="utf-8"
    )
    code, err = build(root, "--only", "html")
    assert code == 1
    lines = [line for line in err.splitlines() if "no such file" in line]
    assert lines == [
        "content/en/posts/a-morning.md:9: image figure.png: no such file "
        "(looked for static/en/blog/a-morning/figure.png); static/ko/blog/a-morning/figure.png"
        " is there: a relative image is looked for beside each language's page, so copy it to "
        "static/en/blog/a-morning/figure.png or link /ko/blog/a-morning/figure.png"
    ]


def test_the_made_images_get_their_sizes(built: Built) -> None:
    assert built.exit_code == 0, built.stderr
    html = built.read("ko/blog/a-morning/index.html")
    # the site path, not the relative path as written (test_a_fallback_page_finds_the_image)
    assert (
        'src="/ko/blog/a-morning/figure.png" alt="상대 경로" width="64" height="32" loading="lazy"'
    ) in html
    assert 'src="/assets/logos/acme.svg" alt="로고"' in html


def test_a_fallback_page_finds_the_relative_image(built: Built) -> None:
    """A Korean post shown on the English side until it is translated (its English page shows
    the Korean body): its relative image names the file's site path, which exists, not
    /en/blog/<slug>/figure.png, which does not."""
    html = built.read("en/blog/a-morning/index.html")
    assert 'src="/ko/blog/a-morning/figure.png"' in html
    assert (built.root / "site/ko/blog/a-morning/figure.png").is_file()


def test_a_rebuild_after_a_time_edit_reorders_like_a_full_build(
    project: Path, tmp_path: Path
) -> None:
    root = tmp_path / "edit"
    shutil.copytree(project, root, ignore=shutil.ignore_patterns("site", ".bipub-cache"))
    code, err = build(root, "--only", "html")
    assert code == 0, err
    post = root / "content/ko/posts/e-plain.md"
    post.write_text(
        post.read_text(encoding="utf-8").replace(
            "date: 2026-04-08\n", "date: 2026-04-08T20:00:00+09:00\n"
        ),
        encoding="utf-8",
    )
    code, err = build(root, "--only", "html")
    assert code == 0, err
    html = (root / "site/ko/blog/index.html").read_text(encoding="utf-8")
    assert _post_links(html, "ko") == [
        "c-pinned",
        "e-plain",
        "b-afternoon",
        "a-morning",
        "d-yesterday",
    ]


# ---------------------------------------------------------------- variants and warnings


def test_title_prefix_variants_are_found_across_all_posts(built: Built) -> None:
    """No series here: [vllm] in one post against [vLLM] in two is still reported, once."""
    lines = [line for line in built.stderr.splitlines() if "title prefixes" in line]
    assert lines == [
        "bipub: warning: [ko] title prefixes differ in spelling: "
        "[vllm] in content/ko/posts/b-afternoon.md:2; 2 posts write [vLLM] [title-prefix]"
    ]


def test_tag_spelling_warnings_name_the_posts_once(built: Built) -> None:
    lines = [line for line in built.stderr.splitlines() if "spelled otherwise" in line]
    assert lines == [
        "bipub: warning: tags of the slug 'kv-cache' spelled otherwise: 'KV cache' in "
        "content/ko/posts/a-morning.md:5; "
        "their page shows 'kv-cache' (the most used; choose with tag_spellings in bipub.yaml) "
        "[tag-spellings]",
        "bipub: warning: tags of the slug 'torch-compile' spelled otherwise: 'torch-compile' in "
        "content/ko/posts/e-plain.md:5; their page shows 'torch.compile' (bipub.yaml tag_spellings) "
        "[tag-spellings]",
        "bipub: warning: tags of the slug 'vllm' spelled otherwise: 'vllm' in "
        "content/ko/posts/a-morning.md:5; "
        "their page shows 'vLLM' (the most used; choose with tag_spellings in bipub.yaml) "
        "[tag-spellings]",
    ]


def test_tag_spellings_choose_the_spelling_shown(built: Built) -> None:
    """A 1:1 tie would show 'torch-compile' (alphabetically first); bipub.yaml names
    'torch.compile'."""
    for lang in ("ko", "en"):
        page = built.read(f"{lang}/tags/torch-compile/index.html")
        assert '<h1 class="page-title">#torch.compile' in page
        cards = built.read(f"{lang}/blog/index.html")
        assert ">#torch.compile<" in cards and ">#torch-compile<" not in cards


def test_tag_spellings_naming_one_tag_twice_is_a_config_error(tmp_path: Path) -> None:
    root = tmp_path / "twice"
    copy_project(root)
    config = root / "bipub.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace(
            "  - torch.compile\n", "  - torch.compile\n  - torch-compile\n"
        ),
        encoding="utf-8",
    )
    code, err = build(root, "--only", "html")
    assert code == 2
    assert (
        "bipub.yaml:16: tag_spellings: 'torch.compile' and 'torch-compile' are the same tag "
        "('torch-compile'); keep one" in err
    ), err


# ---------------------------------------------------------------- what a reader and a recruiter see


def test_pdf_control_beside_the_name(built: Built) -> None:
    for lang, first in (("ko", "cv-ko"), ("en", "cv-en")):
        html = built.read(f"{lang}/index.html")
        row = html[html.index('<div class="cv-name-row">') :]
        row = row[: row.index("</div>")]
        assert '<h1 class="cv-name">' in row
        # beside the name: this language's PDF; under it, the other editions
        assert re.findall(r'href="(/pdf/[^"]+)"', row) == [f"/pdf/{first}.pdf"]
        assert 'class="cv-pdf__link cv-pdf__link--primary"' in row
        more = html[html.index('<ul class="cv-pdf cv-pdf--more"') :]
        more = more[: more.index("</ul>")]
        other = "cv-en" if first == "cv-ko" else "cv-ko"
        assert re.findall(r'href="(/pdf/[^"]+)"', more) == [
            f"/pdf/{other}.pdf",
            "/pdf/cv-ko-en.pdf",
        ]


def test_home_cv_shows_the_latest_posts_before_the_cv_details(built: Built) -> None:
    html = built.read("ko/index.html")
    latest = html.index('class="latest-compact"')
    assert latest < html.index('class="cv-section')
    block = html[latest : html.index("</nav>", latest)]
    expected = ["c-pinned", "b-afternoon", "a-morning", "e-plain", "d-yesterday"]
    assert _post_links(block, "ko") == expected
    assert "2026년 4월 8일" in block


@pytest.fixture(scope="module")
def blog_home(project: Path) -> Built:
    root = project.parent / "blog_home"
    copy_project(root)
    with (root / "bipub.yaml").open("a", encoding="utf-8") as f:
        f.write("home: blog\n")
    code, err = build(root, "--only", "html", "--only", "feeds")
    return Built(root, code, err)


def test_home_blog_puts_the_cv_at_its_own_url(blog_home: Built) -> None:
    assert blog_home.exit_code == 0, blog_home.stderr
    home = blog_home.read("ko/index.html")
    assert 'class="cv-header cv-header--short"' in home
    assert '<a href="/ko/cv/">이력서 전체 보기' in home
    assert 'class="cv-section' not in home  # the full CV is not on the home page
    assert _post_links(home, "ko")[:5] == [
        "c-pinned",
        "b-afternoon",
        "a-morning",
        "e-plain",
        "d-yesterday",
    ]
    assert home.index('class="cv-pdf"') < home.index('class="latest"')
    cv = blog_home.read("en/cv/index.html")
    assert 'class="cv-section' in cv and 'class="cv-pdf"' in cv
    assert '<a href="/en/cv/" aria-current="page">CV</a>' in cv  # in the menu
    assert '<link rel="alternate" hreflang="ko" href="https://real.example.org/ko/cv/">' in cv
    assert "<loc>https://real.example.org/ko/cv/</loc>" in blog_home.read("sitemap.xml")
    assert '<a href="/ko/cv/">이력서</a>' in blog_home.read("404.html")


def test_home_must_be_cv_or_blog(tmp_path: Path) -> None:
    root = tmp_path / "bad_home"
    copy_project(root)
    with (root / "bipub.yaml").open("a", encoding="utf-8") as f:
        f.write("home: posts\n")
    code, err = build(root, "--only", "html")
    assert code == 2
    assert "bipub.yaml:21: home: Input should be 'cv' or 'blog'" in err, err


@pytest.fixture(scope="module")
def full(project: Path) -> Built:
    """Every output, PDFs included (private_fields: contact.phone, pdf_only)."""
    root = project.parent / "full"
    copy_project(root)
    code, err = build(root)
    return Built(root, code, err)


PHONE = "1234 5678"


def test_private_fields_stay_out_of_public_outputs(full: Built) -> None:
    assert full.exit_code == 0, full.stderr
    site = full.root / "site"

    def text(path: Path) -> str:  # the search index's files are gzip-compressed
        data = path.read_bytes()
        data = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
        return data.decode("utf-8", errors="replace")

    leaks = [
        p.relative_to(site).as_posix()
        for p in site.rglob("*")
        if p.is_file() and p.suffix != ".pdf" and PHONE in text(p)
    ]
    assert leaks == []
    assert "tel:" not in full.read("ko/index.html")


def test_pdf_only_fields_stay_in_the_pdfs(full: Built) -> None:
    for name in ("cv-ko", "cv-en", "cv-ko-en"):
        text = _pdf_text(full.root / "site" / "pdf" / f"{name}.pdf")
        assert PHONE in text, name


def test_private_fields_leave_the_pdfs_too_without_pdf_only(tmp_path: Path) -> None:
    root = tmp_path / "private"
    copy_project(root)
    config = root / "bipub.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("pdf_only: true", "pdf_only: false"),
        encoding="utf-8",
    )
    code, err = build(root, "--only", "pdf", "--lang", "en")  # (the one PDF read: cv-en)
    assert code == 0, err
    assert PHONE not in _pdf_text(root / "site" / "pdf" / "cv-en.pdf")


def test_a_private_field_the_cv_does_not_have_is_a_config_error(tmp_path: Path) -> None:
    root = tmp_path / "fax"
    copy_project(root)
    config = root / "bipub.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("path: contact.phone", "path: contact.fax"),
        encoding="utf-8",
    )
    code, err = build(root, "--only", "html")
    assert code == 2
    assert "bipub.yaml:" in err and "contact has no field 'fax'" in err, err


def _pdf_text(path: Path) -> str:
    import subprocess

    out = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, check=True)
    return out.stdout.decode("utf-8")


# ---------------------------------------------------------------- the CV PDFs


def test_bilingual_pdf_prints_text_equal_in_both_languages_once(full: Built) -> None:
    """The Korean CV leaves skills, the first school and the stat's label untranslated: the
    same text in both columns is printed once across them."""
    text = _pdf_text(full.root / "site" / "pdf" / "cv-ko-en.pdf")
    assert text.count("Python, Rust, Go") == 1
    assert text.count("Programming languages") == 1
    assert text.count("Decode throughput") == 1
    assert text.count("Example University") == 1
    assert text.count("Other University") == 2  # its GPA label differs (학점 / GPA): two columns
    assert text.count("Serves models.") == 1 and "모델을 서빙합니다." in text  # translated: both


def test_a_value_that_carries_its_label_is_not_labelled_twice(full: Built) -> None:
    for lang in ("ko", "en"):
        html = full.read(f"{lang}/index.html")
        assert '<p class="school__gpa">Overall GPA: 4.17 / 4.50</p>' in html
        label = "학점" if lang == "ko" else "GPA"
        assert f'<p class="school__gpa"><span class="label">{label}</span> 3.9 / 4.0</p>' in html
        pdf = _pdf_text(full.root / "site" / "pdf" / f"cv-{lang}.pdf")
        assert "Overall GPA: 4.17" in pdf and "GPA Overall" not in pdf and "학점 Overall" not in pdf
        assert f"{label} 3.9 / 4.0" in pdf


YELLOW = bytes((255, 244, 194))  # print.css .untranslated


def _yellow_pixels(pdf: Path) -> int:
    import subprocess

    ppm = subprocess.run(
        ["pdftoppm", "-r", "40", "-f", "1", "-l", "1", str(pdf)], capture_output=True, check=True
    ).stdout
    # P6 header: magic, width, height, maxval, each followed by whitespace
    parts = ppm.split(maxsplit=4)
    pixels = parts[4]
    return sum(1 for i in range(0, len(pixels) - 2, 3) if pixels[i : i + 3] == YELLOW)


def test_untranslated_text_is_highlighted_in_the_pdfs_by_default(full: Built) -> None:
    pdf = full.root / "site" / "pdf" / "cv-ko.pdf"
    assert _yellow_pixels(pdf) > 20
    assert "표시된 부분은 아직 번역되지 않아" in _pdf_text(pdf)


def test_the_pdf_highlight_can_be_turned_off(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    copy_project(root)
    with (root / "bipub.yaml").open("a", encoding="utf-8") as f:
        f.write("pdf:\n  highlight_untranslated: false\n")
    code, err = build(root, "--only", "pdf", "--only", "html", "--lang", "ko")  # (what is read)
    assert code == 0, err
    pdf = root / "site" / "pdf" / "cv-ko.pdf"
    assert _yellow_pixels(pdf) == 0
    assert "일부 내용은 아직 번역되지 않아 원문으로 보입니다." in _pdf_text(pdf)  # the notice stays
    assert 'class="untranslated"' in (root / "site/ko/index.html").read_text(encoding="utf-8")
