"""Issue 6, end to end: hostile content ships escaped, a BOM+CRLF file builds like a plain one,
fuzzy catalog entries never ship, and a crash or a kill never touches the published site.

The bad inputs that must fail the build (with a golden message) live in tests/bad_inputs/; the
ones here build successfully, so what they produce is asserted on instead.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest

from bipub.pipeline import OUTPUT_KINDS
from bipub.render.markdown import is_safe_url
from bipub.render.templates import BLOCKED_URL
from tests._shared_builds import some_real_pdfs
from tests.conftest import (
    PROJECTS,
    REPO,
    SUBPROCESS_PLACEHOLDER_PDFS,
    CliResult,
    clean_snapshot,
    subprocess_env,
    tree_snapshot,
)

Cli = Callable[..., CliResult]
ATOM = "{http://www.w3.org/2005/Atom}"
NOT_PDF = ("--only", "html", "--only", "json", "--only", "feeds", "--only", "llms")
# A clean build of every kind (conftest.clean_snapshot: built once per state of the inputs in a
# test process; the crash and kill tests compare their site with the same one)
ALL_KINDS = set(OUTPUT_KINDS)


# ---------------------------------------------------------------------------- HTML inspection
class _Inspect(HTMLParser):
    """Every element, attribute, <script> and <title> of a page, as a browser would parse them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.scripts: list[tuple[dict[str, str], str]] = []
        self.titles: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        self.tags.append((tag, values))
        if tag == "script":
            self._in = tag
            self.scripts.append((values, ""))
        elif tag == "title":
            self._in = tag
            self.titles.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == self._in:
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "script":
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)
        elif self._in == "title":
            self.titles[-1] += data


def inspect(html: str) -> _Inspect:
    parser = _Inspect()
    parser.feed(html)
    parser.close()
    return parser


THEME_SCRIPTS = ("/assets/reader.js", "/assets/search.js")


def assert_inert(html: str, where: str) -> _Inspect:
    """No executable script, no event handler, no link or source with a dangerous scheme."""
    page = inspect(html)
    for attrs, text in page.scripts:
        if attrs.get("src") in THEME_SCRIPTS and not text.strip():
            continue  # the theme's own files (issue 19: reader.js, search.js); no inline code
        assert attrs.get("type") == "application/ld+json", f"{where}: <script {attrs}>{text[:80]}"
        assert "<" not in text, f"{where}: markup inside JSON-LD"
        json.loads(text)
    for tag, attrs in page.tags:
        handlers = [name for name in attrs if name.startswith("on")]
        assert not handlers, f"{where}: <{tag} {handlers}>"
        for name in ("href", "src", "action", "formaction", "xlink:href", "poster", "data"):
            if name in attrs:
                value = attrs[name]
                assert is_safe_url(value) or value == BLOCKED_URL, (
                    f"{where}: <{tag} {name}={value!r}>"
                )
        assert tag not in ("svg", "iframe", "object", "embed", "img") or "alert" not in str(
            attrs
        ), f"{where}: injected <{tag}>"
    return page


# ---------------------------------------------------------------------------- hostile post
TITLE = '"><script>alert("t")</script> & <b>굵게</b> x](javascript:alert("md"))'
DESCRIPTION = '"><img src=x onerror=alert("d")>'
TAG = '"><svg onload=alert("tag")>'
HOSTILE = f"""---
title: '{TITLE}'
description: '{DESCRIPTION}'
date: 2026-04-07
tags: ['{TAG}', kv-cache]
series: 연재
series_order: 1
pdf: true
---

## 소개 "><script>alert("h")</script>

<script>alert("body")</script>

<img src=x onerror=alert("img")>

<svg onload=alert("svg")>

[a](javascript:alert("a")) [b](JaVaScRiPt:alert("b")) [c](&#106;avascript:alert("c"))
[d](&#x6A;&#x61;vascript:alert("d")) [e](java&#x09;script:alert("e")) <javascript:alert("f")>
[g](vbscript:msgbox) [h](data:text/html,<script>alert("h")</script>) ![i](javascript:alert("i"))
[ok](https://example.org/) [ref][r]

[r]: JAVASCRIPT:alert("r")
"""


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The minimal project whose Korean post is hostile everywhere, built once (with the PDFs
    the tests read: HOSTILE_PDFS)."""
    from click.testing import CliRunner

    from bipub.cli import main

    root = tmp_path_factory.mktemp("hostile") / "minimal"
    shutil.copytree(PROJECTS / "minimal", root)
    (root / "content/ko/posts/alpha.md").write_text(HOSTILE, encoding="utf-8")
    cv = root / "content/en/cv.yaml"
    cv.write_text(
        cv.read_text(encoding="utf-8")
        .replace("url: https://example.org/pr/1", "url: \" JaVaScRiPt:alert('cv')\"")
        .replace(
            "  email: min@example.org",
            "  email: 'min@example.org\" onclick=\"alert(4)'\n"
            "  github: 'https://github.com/x\" onmouseover=\"alert(5)'",
        ),
        encoding="utf-8",
    )
    with (
        pytest.MonkeyPatch.context() as mp,
        some_real_pdfs(HOSTILE_PDFS, root.parent / "user-cache") as rendered,
    ):
        mp.setenv("SOURCE_DATE_EPOCH", "1798761600")
        result = CliRunner().invoke(main, ["-C", str(root), "build"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    assert sorted(rendered) == sorted(HOSTILE_PDFS), rendered
    return root / "site"


# The PDFs of `hostile` the tests open (the Korean post's bookmarks and metadata, the CVs'
# links); the English and the bilingual post PDFs are placeholders (tests/_shared_builds.py:
# the bytes of their print HTML), listed by nobody: ~2 WeasyPrint renders less.
HOSTILE_PDFS = ("ko/blog/alpha/alpha.pdf", "pdf/cv-en.pdf", "pdf/cv-ko-en.pdf", "pdf/cv-ko.pdf")


def test_hostile_body_is_escaped_not_executed(hostile: Path) -> None:
    html = (hostile / "ko/blog/alpha/index.html").read_text(encoding="utf-8")
    assert_inert(html, "ko/blog/alpha/index.html")
    body = html.split('class="post-title"', 1)[1]
    for text in ('<script>alert("body")</script>', '<img src=x onerror=alert("img")>'):
        assert unescape(text) in unescape(body)  # shown as text
    assert "&lt;svg onload=alert(&quot;svg&quot;)&gt;" in body
    assert 'href="https://example.org/"' in body  # ordinary links still work
    for letter in "abcdefghir":  # every dangerous link stayed literal text, none became a link
        assert not re.search(rf"<a [^>]*>{letter}</a>", body), letter


def test_every_page_and_feed_of_the_site_is_inert(hostile: Path) -> None:
    pages = sorted(hostile.rglob("*.html"))
    assert len(pages) > 10
    for path in pages:
        assert_inert(path.read_text(encoding="utf-8"), str(path.relative_to(hostile)))
    for feed in sorted(hostile.rglob("feed.xml")):
        for entry in ET.parse(feed).getroot().iter(f"{ATOM}entry"):
            content = entry.find(f"{ATOM}content")
            if content is not None and content.text:  # type="html": readers render it
                assert_inert(content.text, f"{feed.name} content")


def test_title_is_escaped_in_title_attributes_and_json_ld(hostile: Path) -> None:
    html = (hostile / "ko/blog/alpha/index.html").read_text(encoding="utf-8")
    page = assert_inert(html, "post")
    assert page.titles and page.titles[0].startswith(TITLE)  # text, not markup
    metas = {
        a.get("property") or a.get("name"): a.get("content") for t, a in page.tags if t == "meta"
    }
    assert metas["og:title"] == TITLE
    assert metas["description"] == DESCRIPTION
    tags = [a.get("content") for t, a in page.tags if a.get("property") == "article:tag"]
    assert TAG in tags
    lds = [text for attrs, text in page.scripts if attrs.get("type") == "application/ld+json"]
    (ld,) = [json.loads(text) for text in lds]
    assert ld["headline"] == TITLE and ld["description"] == DESCRIPTION
    ld_raw = lds[0]
    assert "</script" not in ld_raw.lower() and "\\u003c" in ld_raw
    listing = (hostile / "ko/blog/index.html").read_text(encoding="utf-8")
    assert TITLE in [unescape(m) for m in re.findall(r">([^<]*alert\(&#34;t[^<]*)<", listing)]


def test_title_is_text_in_feeds_json_and_llms_txt(hostile: Path) -> None:
    feed = ET.parse(hostile / "ko/feed.xml").getroot()
    titles = [e.findtext(f"{ATOM}title") for e in feed.iter(f"{ATOM}entry")]
    assert TITLE in titles
    posts = json.loads((hostile / "api/ko/posts.json").read_text(encoding="utf-8"))
    assert TITLE in json.dumps(posts, ensure_ascii=False).replace('\\"', '"')
    llms = (hostile / "ko/llms.txt").read_text(encoding="utf-8")
    line = next(x for x in llms.splitlines() if "alert" in x)
    # rendered even by a Markdown viewer that passes raw HTML: one link, to the post, no HTML
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark", {"html": True}).render(line)
    assert html.count("<a ") == 1 and 'href="https://test.example.org/ko/blog/alpha/"' in html
    assert_inert(html, "llms.txt line")
    assert "<script" not in html and "<img" not in html


@pytest.mark.pdf
def test_title_is_plain_text_in_pdf_bookmarks_and_metadata(hostile: Path) -> None:
    pypdf = pytest.importorskip("pypdf")
    reader = pypdf.PdfReader(hostile / "ko/blog/alpha/alpha.pdf")

    def titles(items: list[object]) -> list[str]:
        out: list[str] = []
        for item in items:
            out.extend(titles(item) if isinstance(item, list) else [item.title])  # type: ignore[attr-defined]
        return out

    outline = titles(reader.outline)
    assert TITLE in outline
    assert '소개 "><script>alert("h")</script>' in outline
    assert reader.metadata is not None and reader.metadata.title == TITLE


@pytest.mark.pdf
def test_cv_urls_go_through_the_url_filter(hostile: Path) -> None:
    for lang in ("en", "ko"):
        html = (hostile / lang / "index.html").read_text(encoding="utf-8")
        page = assert_inert(html, f"{lang}/index.html")
        hrefs = [a["href"] for t, a in page.tags if t == "a" and "href" in a]
        assert BLOCKED_URL in hrefs, lang  # the javascript: stat link
        assert 'mailto:min@example.org" onclick="alert(4)' in hrefs  # one attribute, inert
        assert 'https://github.com/x" onmouseover="alert(5)' in hrefs
    pypdf = pytest.importorskip("pypdf")
    pdfs = sorted((hostile / "pdf").glob("*.pdf"))
    assert [p.name for p in pdfs] == ["cv-en.pdf", "cv-ko-en.pdf", "cv-ko.pdf"]
    for pdf in pdfs:
        uris = [
            str(annot.get_object().get("/A", {}).get("/URI", ""))
            for page in pypdf.PdfReader(pdf).pages
            for annot in page.get("/Annots") or []
        ]
        assert uris and not [u for u in uris if not is_safe_url(u) and u != BLOCKED_URL], uris


def test_a_dropped_javascript_link_is_a_warning_naming_file_and_line(
    make_project: Callable[[str], Path], cli: Cli
) -> None:
    project = make_project("minimal")
    post = project / "content/ko/posts/alpha.md"
    text = post.read_text(encoding="utf-8") + "\n[클릭](JaVaScRiPt:alert(1))\n"
    post.write_text(text, encoding="utf-8")
    line = text.count("\n")  # the link is on the last line
    result = cli("-C", str(project), "build", *NOT_PDF)
    assert result.exit_code == 0, result.stderr
    assert re.search(
        rf"^content/ko/posts/alpha\.md:{line}: warning: .*JaVaScRiPt:alert\(1\)",
        result.stderr,
        re.M,
    ), result.stderr


# ---------------------------------------------------------------------------- text hygiene
def test_bom_and_crlf_files_build_exactly_like_plain_ones(make_project, cli: Cli) -> None:
    plain = make_project("minimal")
    assert cli("-C", str(plain), "-q", "build", *NOT_PDF).exit_code == 0
    expected = tree_snapshot(plain / "site")
    changed = 0
    for path in sorted((plain / "content").rglob("*")):
        if path.suffix in (".md", ".yaml"):
            data = path.read_bytes()
            assert b"\r" not in data
            path.write_bytes(b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n"))
            changed += 1
    config = plain / "bipub.yaml"
    config.write_bytes(b"\xef\xbb\xbf" + config.read_bytes().replace(b"\n", b"\r\n"))
    assert changed >= 5
    result = cli("-C", str(plain), "-q", "build", *NOT_PDF, "--out", str(plain / "again"))
    assert result.exit_code == 0, result.stderr
    assert tree_snapshot(plain / "again") == expected
    binary = (".ico", ".png", ".webp", ".avif", ".pdf")  # (the favicon's bytes hold a \r)
    texts = [data for name, data in expected.items() if not name.endswith(binary)]
    assert texts and not any(b"\r" in data or b"\xef\xbb\xbf" in data for data in texts)


# ---------------------------------------------------------------------------- catalogs
def test_fuzzy_entries_are_never_published(make_project, cli: Cli) -> None:
    project = make_project("minimal")
    po = project / "locales/ko/LC_MESSAGES/messages.po"
    po.parent.mkdir(parents=True)
    po.write_text(
        'msgid ""\nmsgstr ""\n"Language: ko\\n"\n"Content-Type: text/plain; charset=utf-8\\n"\n\n'
        '#, fuzzy\nmsgid "Blog"\nmsgstr "퍼지블로그"\n\n'
        'msgid "All posts"\nmsgstr "검토된모든글"\n',
        encoding="utf-8",
    )
    result = cli("-C", str(project), "build", *NOT_PDF)
    assert result.exit_code == 0, result.stderr
    assert re.search(
        r"locales/ko/LC_MESSAGES/messages\.po: warning: 1 fuzzy entry not published .*'Blog'",
        result.stderr,
    )
    site = tree_snapshot(project / "site")
    assert not [p for p, data in site.items() if "퍼지블로그".encode() in data]
    assert any("검토된모든글".encode() in data for data in site.values())  # the catalog is used
    assert any("블로그".encode() in data for data in site.values())  # the theme's reviewed one


# ---------------------------------------------------------------------------- crashes
def _leftovers(project: Path) -> list[str]:
    inside = [p.name for p in (project / "site").rglob(".site.*")]
    return inside + [
        p.name for p in project.iterdir() if p.name.startswith((".site.tmp", ".site.old"))
    ]


@pytest.fixture
def built(make_project, cli: Cli) -> tuple[Path, dict[str, bytes]]:
    project = make_project("minimal")
    result = cli("-C", str(project), "-q", "build")
    assert result.exit_code == 0, result.stderr
    alpha = project / "content/ko/posts/alpha.md"  # the next build has something new to publish
    alpha.write_text(alpha.read_text(encoding="utf-8") + "\n새 문단.\n", encoding="utf-8")
    return project, tree_snapshot(project / "site")


@pytest.mark.parametrize("error", [RuntimeError("PDF renderer crashed"), KeyboardInterrupt()])
def test_exception_in_the_pdf_step_leaves_the_previous_site(
    built: tuple[Path, dict[str, bytes]],
    cli: Cli,
    monkeypatch: pytest.MonkeyPatch,
    error: BaseException,
) -> None:
    from bipub.render.pdf import documents as pdf  # (render_pdfs calls its run_jobs)

    project, before = built
    staged_files: list[Path] = []

    def crash(*args: object, **kwargs: object) -> object:
        staged_files.extend(p for p in project.glob(".site.tmp-*/**/*") if p.is_file())
        raise error

    monkeypatch.setattr(pdf, "run_jobs", crash)
    # --no-cache: PDFs rendered by earlier tests must not be reused, the renderer has to run
    if isinstance(error, KeyboardInterrupt):  # click turns Ctrl-C into "Aborted!", exit 1
        assert cli("-C", str(project), "-q", "build", "--no-cache").exit_code == 1
    else:
        with pytest.raises(type(error)):
            cli("-C", str(project), "-q", "build", "--no-cache")
    assert staged_files, "the crash did not happen in the middle of a build"
    assert tree_snapshot(project / "site") == before
    assert _leftovers(project) == []
    monkeypatch.undo()
    assert cli("-C", str(project), "-q", "build").exit_code == 0
    assert "새 문단".encode() in (project / "site/ko/blog/alpha/index.html").read_bytes()


@pytest.mark.parametrize("options", [[], ["--no-cache"]], ids=["incremental", "full"])
def test_exception_in_a_renderer_leaves_the_previous_site(
    built: tuple[Path, dict[str, bytes]],
    cli: Cli,
    monkeypatch: pytest.MonkeyPatch,
    options: list[str],
) -> None:
    """The fixture's edit is a body edit: an incremental build unless --no-cache."""
    from bipub.render import feeds

    project, before = built
    calls: list[str] = []

    def crash(*args: object, **kwargs: object) -> str:
        calls.append("feed")
        raise OSError("disk full while rendering the feed")

    monkeypatch.setattr(feeds, "feed_xml", crash)
    # every build, incremental or not, says what the system said, without a traceback (issue
    # 16 item 7; the quick rebuild that once let the error through is gone: issue 17)
    result = cli("-C", str(project), "-q", "build", *options)
    assert result.exit_code == 1
    assert "could not write the output: disk full while rendering the feed" in result.stderr
    assert calls
    assert tree_snapshot(project / "site") == before
    assert _leftovers(project) == []


def _bipub(project: Path, *args: str, **kwargs: object) -> subprocess.Popen[bytes]:
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1798761600", "PYTHONPATH": str(REPO / "src")}
    return subprocess.Popen(
        [sys.executable, "-m", "bipub", "-C", str(project), "-q", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("staged_at_kill", [1, 25])
def test_sigkill_mid_build_leaves_the_previous_site(
    built: tuple[Path, dict[str, bytes]], cli: Cli, staged_at_kill: int, tmp_path: Path
) -> None:
    """A real `bipub build` process killed once the staging folder holds some files.
    (--no-cache: every page is staged, so there is time to kill it; incremental builds are
    interrupted at every write by tests/integration/test_incremental.py.)"""
    project, before = built
    proc = _bipub(project, "build", "--no-cache")
    deadline = time.monotonic() + 120
    staged = 0
    while deadline > time.monotonic() and proc.poll() is None:  # hang guard
        staged = sum(1 for p in project.glob(".site.tmp-*/**/*") if p.is_file())
        if staged >= staged_at_kill:
            break
        time.sleep(0.005)
    assert proc.poll() is None, f"the build ended before it could be killed: {proc.communicate()}"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert staged >= staged_at_kill
    assert tree_snapshot(project / "site") == before, "a killed build changed the site"
    assert not list((project / "site").rglob(".site.*")), "temporary folder inside the site"
    # the next build succeeds, publishes the new content and removes what the kill left behind
    again = cli("-C", str(project), "-q", "build")
    assert again.exit_code == 0, again.stderr
    assert _leftovers(project) == []
    assert "새 문단".encode() in (project / "site/ko/blog/alpha/index.html").read_bytes()
    assert tree_snapshot(project / "site") == clean_snapshot(project, tmp_path, ALL_KINDS)


KILL_AT_SWAP = (
    SUBPROCESS_PLACEHOLDER_PDFS
    + """
import os, sys
from bipub.write import output
real = output._exchange
def exchange(a, b):
    if os.environ["KILL"] == "before":
        os._exit(137)
    done = real(a, b)
    os._exit(137)
output._exchange = exchange
from bipub.cli import main
main()
"""
)


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_kill_at_the_swap_leaves_a_complete_site(
    built: tuple[Path, dict[str, bytes]], when: str, cli: Cli, tmp_path: Path
) -> None:
    """The swap is one atomic exchange: killed just before it, the previous site is intact;
    just after it, the new site is complete; either way the next build cleans up."""
    project, before = built
    # (the subprocess writes placeholder PDFs, as the in-process builds it is compared with)
    env = subprocess_env(SOURCE_DATE_EPOCH="1798761600", KILL=when)
    run = subprocess.run(
        [sys.executable, "-c", KILL_AT_SWAP, "-C", str(project), "-q", "build", "--no-cache"],
        env=env,
        capture_output=True,
        check=False,
    )
    assert run.returncode == 137, run.stderr
    after_kill = tree_snapshot(project / "site")
    clean = clean_snapshot(project, tmp_path, ALL_KINDS)
    assert after_kill == (before if when == "before" else clean)
    assert cli("-C", str(project), "-q", "build").exit_code == 0
    assert tree_snapshot(project / "site") == clean
    assert not list(project.glob(".site.tmp-*"))


class _Planted:
    """A pickle that runs code when loaded: what a hostile repository could ship as its cache."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.makedirs, (str(self.marker),))


@pytest.mark.parametrize("name", ["build.pickle", "build-docs-00.pickle", "build-docs-31.pickle"])
def test_a_planted_build_cache_does_not_run_code(make_project, cli: Cli, name: str) -> None:
    project = make_project("minimal")
    marker = project.parent / "pwned"
    cli("-C", str(project), "-q", "build", "--only", "json")  # a real cache beside the plant
    with (project / ".bipub-cache" / name).open("wb") as f:
        pickle.dump(_Planted(marker), f)
    (project / "content" / "ko" / "posts" / "alpha.md").touch()  # not up to date: cache is read
    cli("-C", str(project), "-q", "build", "--only", "json")
    assert not marker.exists(), "loading the build cache ran code from the project folder"


# ---------------------------------------------------------------------------- size
def test_a_5_mb_single_paragraph_post_builds_or_fails_cleanly(make_project) -> None:
    project = make_project("minimal")
    sentence = (
        "한국어 문장과 English words가 섞인 단락 **굵게** [링크](https://example.org/) `code` "
    )
    body = sentence * (5_000_000 // len(sentence.encode()) + 1)
    post = project / "content/ko/posts/huge.md"
    post.write_text(f"---\ntitle: 큰 글\ndate: 2026-04-08\n---\n\n{body}\n", encoding="utf-8")
    assert post.stat().st_size >= 5_000_000 and "\n\n" not in body
    proc = _bipub(project, "build", *NOT_PDF)  # (the post has no PDF; the CV's are not read)
    _, err = proc.communicate(timeout=1800)  # a hang would be the failure, not slowness
    assert proc.returncode in (0, 1), err.decode()
    assert b"Traceback" not in err
    if proc.returncode == 0:
        html = (project / "site/ko/blog/huge/index.html").read_bytes()
        assert len(html) > 5_000_000 and html.count(b"<p>") >= 1
    else:
        assert b"content/ko/posts/huge.md" in err
        assert not (project / "site").exists()


DYING_WORKERS = """
import os, signal, sys
from bipub.diagnostics import DiagnosticError
from bipub.render.pdf import pool
from bipub.render.pdf.jobs import PdfJob

def die(job, megabytes):
    DEATH  # (as a worker killed under its bound, or crashed in Pango)

pool._bounded_job = die  # (inherited by the workers: they fork from here)
head = '<html lang="ko"><head><title>t</title></head><body>'
big = head + "<p>" + "가나다라 " * 400_000 + "</p></body></html>"  # (~5 MB: more than a pipe holds)
jobs = [PdfJob(f"{i}.pdf", big, "file:///", ("/",)) for i in range(6)]
try:
    pool._run_bounded(jobs, 2, 60.0, 100)
except DiagnosticError as exc:
    print(exc.diagnostics[0].message)
    sys.exit(1)
"""


@pytest.mark.parametrize(
    ("death", "said"),
    [
        ("os._exit(3)", "exit status 3"),
        ("os.kill(os.getpid(), signal.SIGSEGV)", "killed by SIGSEGV"),
    ],
)
def test_a_batch_whose_workers_die_ends(tmp_path: Path, death: str, said: str) -> None:
    """Workers that die while the pool still has jobs of several MB to send them: the build
    ended with its error 4 times in 5 with `BIPUB_PDF_MEMORY_MB=1` on the demo, and hung the
    other time, for ever (the thread sending a job's HTML down the pool's pipe was blocked with
    nobody left to read it, and the pool's shutdown waited for that thread). How the worker
    ended is said: it was always blamed on the memory bound, even a crash."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    run = subprocess.run(
        [sys.executable, "-c", DYING_WORKERS.replace("DEATH", death)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert run.returncode == 1, run.stderr
    assert f"a PDF worker process died ({said}) and the build was stopped" in run.stdout
    assert "(BIPUB_PDF_MEMORY_MB)" in run.stdout, run.stdout


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("BIPUB_PDF_TIMEOUT", "0.01", "PDF rendering took longer than 0.01 s"),
        ("BIPUB_PDF_MEMORY_MB", "1", "1 MB memory bound (BIPUB_PDF_MEMORY_MB)"),
    ],
)
def test_the_pdf_step_is_bounded_in_time_and_memory(
    built: tuple[Path, dict[str, bytes]], variable: str, value: str, message: str
) -> None:
    project, before = built
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), variable: value}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "bipub",
            "-C",
            str(project),
            "-q",
            "build",
            "--only",
            "pdf",
            "--no-cache",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1, run.stderr
    assert message in run.stderr
    assert tree_snapshot(project / "site") == before
