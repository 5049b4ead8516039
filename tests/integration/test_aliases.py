"""Old URLs keep working when a post moves: front matter `aliases` (render/aliases.py) and the
`url-removed` warning of a build that takes a post's URL out of the site (render/removed_urls.py).
The bad values, one fixture each: tests/bad_inputs/aliases_*."""

from __future__ import annotations

import http.client
import shutil
from pathlib import Path

import pytest

from bipub.diagnostics import DiagnosticError
from bipub.pipeline import build
from tests.conftest import PROJECTS, tree_snapshot


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    return root


def _front(path: Path, *lines: str, drop: tuple[str, ...] = ()) -> None:
    """Put `lines` first in the front matter of `path` (a line of a key given replaces the
    file's line of that key; the lines of the keys `drop` go)."""
    text = path.read_text(encoding="utf-8")
    keys = {line.split(":", 1)[0] + ":" for line in lines} | {key + ":" for key in drop}
    head, _, body = text.removeprefix("---\n").partition("\n---\n")
    kept = [line for line in head.split("\n") if not line.startswith(tuple(keys))]
    path.write_text("---\n" + "\n".join([*lines, *kept]) + "\n---\n" + body, encoding="utf-8")


def _removed(result: object) -> list[str]:
    return [d.format() for d in result.warnings if d.code == "url-removed"]  # type: ignore[attr-defined]


REDIRECT = """<!DOCTYPE html>
<html lang="ko">
<head>
<meta charset="utf-8">
<title>알파 글</title>
<meta name="robots" content="noindex">
<link rel="canonical" href="https://test.example.org/sub/ko/blog/alpha/">
<meta http-equiv="refresh" content="0; url=/sub/ko/blog/alpha/">
</head>
<body>
<p><a href="/sub/ko/blog/alpha/">알파 글</a></p>
</body>
</html>
"""


def test_each_alias_is_a_redirect_page_to_its_version_under_the_base_path(project: Path) -> None:
    config = project / "bipub.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace(
            "https://test.example.org/", "https://test.example.org/sub/"
        ),
        encoding="utf-8",
    )
    # a folder (with and without its '/'), an .html file, an address bar's percent-escapes
    _front(
        project / "content/ko/posts/alpha.md",
        "aliases: [/ko/blog/old-alpha/, /ko/2019/01/alpha.html, /ko/blog/%EC%98%9B-%EA%B8%80]",
    )
    _front(project / "content/en/posts/alpha.md", "aliases: [/en/blog/old-alpha]")
    build(project)
    site = project / "site"
    for file in (
        "ko/blog/old-alpha/index.html",
        "ko/2019/01/alpha.html",
        "ko/blog/옛-글/index.html",
    ):
        assert (site / file).read_text(encoding="utf-8") == REDIRECT, file
    english = (site / "en/blog/old-alpha/index.html").read_text(encoding="utf-8")
    assert '<html lang="en">' in english
    assert 'content="0; url=/sub/en/blog/alpha/"' in english
    assert '<link rel="canonical" href="https://test.example.org/sub/en/blog/alpha/">' in english
    # no list of the site's pages names them
    for name in (
        "sitemap.xml",
        "ko/feed.xml",
        "ko/feed.json",
        "api/ko/posts.json",
        "llms.txt",
        "ko/llms.txt",
        "ko/llms-full.txt",
        "en/llms.txt",
    ):
        text = (site / name).read_text(encoding="utf-8")
        assert "old-alpha" not in text and "2019" not in text and "옛" not in text, name


def test_the_theme_escapes_a_title_as_the_fixed_page_did(project: Path) -> None:
    """render/aliases.py `redirect_html`: the theme's alias.html, given the values escaped as
    session 33's page in code escaped them (quotes in the text as they are), writes its bytes."""
    _front(project / "content/ko/posts/alpha.md", 'title: "\'R&D\' <b> \\"따옴표\\""')
    _front(project / "content/ko/posts/alpha.md", "aliases: [/ko/blog/old-alpha/]")
    build(project)
    page = (project / "site/ko/blog/old-alpha/index.html").read_text(encoding="utf-8")
    assert "<title>'R&amp;D' &lt;b&gt; \"따옴표\"</title>" in page
    assert '<p><a href="/ko/blog/alpha/">\'R&amp;D\' &lt;b&gt; "따옴표"</a></p>' in page


def test_a_projects_alias_template_replaces_the_themes(project: Path) -> None:
    """templates/alias.html, as any template of the theme: given `redirect` (its values as they
    are) and `href`, `canonical`, `title`, `lang` (escaped); a broken one is a `template` error
    at its file and line, and nothing is written."""
    templates = project / "templates"
    templates.mkdir()
    (templates / "alias.html").write_text(
        "<!doctype html><title>{{ redirect.title }}</title>"
        '<script>location.replace("{{ href }}")</script>'
        "<p>{{ redirect.alias }} → {{ redirect.target }} ({{ lang }}, {{ canonical }})</p>\n",
        encoding="utf-8",
    )
    _front(project / "content/ko/posts/alpha.md", "aliases: [/ko/blog/old-alpha/]")
    build(project)
    assert (project / "site/ko/blog/old-alpha/index.html").read_text(encoding="utf-8") == (
        '<!doctype html><title>알파 글</title><script>location.replace("/ko/blog/alpha/")'
        "</script><p>/ko/blog/old-alpha/ → /ko/blog/alpha/ (ko, "
        "https://test.example.org/ko/blog/alpha/)</p>\n"
    )
    before = tree_snapshot(project / "site")
    (templates / "alias.html").write_text("<p>\n{{ nothing }}</p>\n", encoding="utf-8")
    with pytest.raises(DiagnosticError) as failed:
        build(project)
    assert [(d.code, d.format()) for d in failed.value.diagnostics] == [
        ("template", "templates/alias.html:2: undefined variable: 'nothing' is undefined")
    ]
    assert tree_snapshot(project / "site") == before


def test_the_source_takes_the_aliases_of_a_language_whose_page_shows_it(project: Path) -> None:
    """`beta` has no English file: its English page shows the Korean source, whose aliases
    may be English URLs too."""
    _front(
        project / "content/ko/posts/beta.md", "aliases: [/ko/blog/old-beta/, /en/blog/old-beta/]"
    )
    build(project)
    english = (project / "site/en/blog/old-beta/index.html").read_text(encoding="utf-8")
    assert 'content="0; url=/en/blog/beta/"' in english
    assert '<html lang="ko">' in english  # (the title shown is the source's)


def test_a_drafts_aliases_make_no_page(project: Path) -> None:
    _front(project / "content/ko/posts/beta.md", "aliases: [/ko/blog/old-beta/]", "draft: true")
    build(project)
    assert not (project / "site/ko/blog/old-beta").exists()


def test_a_build_of_one_language_keeps_the_other_languages_redirect_pages(project: Path) -> None:
    _front(project / "content/ko/posts/alpha.md", "aliases: [/ko/blog/old-alpha/]")
    _front(project / "content/en/posts/alpha.md", "aliases: [/en/blog/old-alpha/]")
    build(project)
    _front(project / "content/en/posts/alpha.md", "aliases: [/en/blog/older-alpha/]")
    build(project, langs=["en"])
    site = project / "site"
    assert (site / "ko/blog/old-alpha/index.html").is_file()
    assert (site / "en/blog/older-alpha/index.html").is_file()
    assert not (site / "en/blog/old-alpha").exists()


def test_a_slug_changed_is_said_once_with_the_aliases_line_to_add(project: Path) -> None:
    build(project)
    alpha = project / "content/ko/posts/alpha.md"
    _front(alpha, "slug: alpha-two")
    result = build(project)
    assert _removed(result) == [
        f"content/{lang}/posts/alpha.md:1: warning: /{lang}/blog/alpha/ (published by the last "
        f"build) is now /{lang}/blog/alpha-two/, and its side-by-side page /{lang}/blog/alpha/"
        f"both/ is now /{lang}/blog/alpha-two/both/: links to the old URL break; add 'aliases: "
        f"[/{lang}/blog/alpha/]' to the front matter of content/{lang}/posts/alpha.md (the alias "
        "redirects both)"
        for lang in ("en", "ko")
    ]
    # not repeated: neither by the build with nothing to do, nor by a real build after it
    again = build(project)
    assert again.up_to_date and _removed(again) == []
    (project / "content/ko/posts/beta.md").touch()
    rebuilt = build(project)
    assert not rebuilt.up_to_date and _removed(rebuilt) == []


def test_made_an_error_the_build_that_removes_a_url_fails_until_an_alias_covers_it(
    project: Path,
) -> None:
    """`diagnostics: {url-removed: error}` (or --strict): nothing is published, so the next
    build says it again; it is never lost."""
    config = project / "bipub.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "diagnostics:\n  url-removed: error\n",
        encoding="utf-8",
    )
    build(project)
    before = tree_snapshot(project / "site")
    alpha = project / "content/ko/posts/alpha.md"
    _front(alpha, "slug: alpha-two")
    for _ in range(2):  # (nothing published: the next build says it again)
        with pytest.raises(DiagnosticError) as failed:
            build(project)
        assert any(d.code == "url-removed" for d in failed.value.diagnostics)
        assert tree_snapshot(project / "site") == before
    _front(alpha, "slug: alpha-two", "aliases: [/ko/blog/alpha/]")
    _front(project / "content/en/posts/alpha.md", "aliases: [/en/blog/alpha/]")
    result = build(project)
    assert _removed(result) == []
    page = (project / "site/ko/blog/alpha/index.html").read_text(encoding="utf-8")
    assert 'content="0; url=/ko/blog/alpha-two/"' in page


def test_an_alias_already_there_gets_one_more_line(project: Path) -> None:
    alpha = project / "content/ko/posts/alpha.md"
    _front(alpha, "aliases: [/ko/blog/first/]")
    build(project)
    _front(alpha, "aliases: [/ko/blog/first/]", "slug: alpha-two")
    said = _removed(build(project))
    assert said[1] == (
        "content/ko/posts/alpha.md:2: warning: /ko/blog/alpha/ (published by the last build) "
        "is now /ko/blog/alpha-two/, and its side-by-side page /ko/blog/alpha/both/ is now "
        "/ko/blog/alpha-two/both/: links to the old URL break; add '- /ko/blog/alpha/' to "
        "the aliases of content/ko/posts/alpha.md (the alias redirects both)"
    )


def test_a_renamed_file_is_named_as_the_one_new_post(project: Path) -> None:
    build(project)
    beta = project / "content/ko/posts/beta.md"
    beta.rename(beta.with_name("beta-renamed.md"))
    said = _removed(build(project))
    assert said == [
        f"content/ko/posts/beta-renamed.md:1: warning: /{lang}/blog/beta/ (the {lang} page of "
        "posts/beta, content/ko/posts/beta.md) was published by the last build and is not any "
        "more: links to it now break; it is content/ko/posts/beta-renamed.md now (the same file, "
        f"renamed), at /{lang}/blog/beta-renamed/: add 'aliases: [/{lang}/blog/beta/]' to its "
        "front matter"
        for lang in ("en", "ko")
    ]


def test_a_renamed_file_with_aliases_is_said_at_its_aliases_line(project: Path) -> None:
    beta = project / "content/ko/posts/beta.md"
    _front(beta, "title: 베타 글", "aliases: [/ko/blog/first-beta/]")
    build(project)
    beta.rename(beta.with_name("beta-renamed.md"))
    said = [line for line in _removed(build(project)) if "warning: /ko/blog/beta/" in line]
    assert said == [
        "content/ko/posts/beta-renamed.md:3: warning: /ko/blog/beta/ (the ko page of posts/beta, "
        "content/ko/posts/beta.md) was published by the last build and is not any more: links "
        "to it now break; it is content/ko/posts/beta-renamed.md now (the same file, renamed), "
        "at /ko/blog/beta-renamed/: add '- /ko/blog/beta/' to its aliases"
    ]


def test_a_file_written_anew_under_another_name_is_named_if_it_is_the_one_new_post(
    project: Path,
) -> None:
    """Not the same file (copied, then the old one deleted): named as a guess."""
    build(project)
    beta = project / "content/ko/posts/beta.md"
    beta.with_name("beta-renamed.md").write_bytes(beta.read_bytes())
    beta.unlink()
    said = _removed(build(project))
    assert said[1] == (
        "bipub: warning: /ko/blog/beta/ (the ko page of posts/beta, content/ko/posts/beta.md) "
        "was published by the last build and is not any more: links to it now break; if "
        "content/ko/posts/beta-renamed.md (new in this build, at /ko/blog/beta-renamed/) is "
        "that post renamed, add 'aliases: [/ko/blog/beta/]' to its front matter"
    )


def test_of_two_new_posts_the_renamed_file_is_named_or_it_is_said_it_cannot_be_told(
    project: Path,
) -> None:
    """Two posts new in this build: the one that is beta's file moved is named; when neither
    is (beta written anew under its new name), bipub says it cannot tell, and names both."""
    build(project)
    beta = project / "content/ko/posts/beta.md"
    (project / "content/ko/posts/gamma.md").write_text(
        "---\ntitle: 감마\ndate: 2026-06-01\n---\n\n본문.\n", encoding="utf-8"
    )
    beta.rename(beta.with_name("beta-renamed.md"))
    said = [line for line in _removed(build(project)) if "warning: /ko/" in line]
    assert said == [
        "content/ko/posts/beta-renamed.md:1: warning: /ko/blog/beta/ (the ko page of posts/beta, "
        "content/ko/posts/beta.md) was published by the last build and is not any more: links to it now break; it is "
        "content/ko/posts/beta-renamed.md now (the same file, renamed), at "
        "/ko/blog/beta-renamed/: add 'aliases: [/ko/blog/beta/]' to its front matter"
    ]
    renamed = beta.with_name("beta-renamed.md")
    (project / "content/ko/posts/delta.md").write_text(
        "---\ntitle: 델타\ndate: 2026-06-02\n---\n\n본문.\n", encoding="utf-8"
    )
    renamed.with_name("beta-again.md").write_bytes(renamed.read_bytes())
    renamed.unlink()
    said = [line for line in _removed(build(project)) if "warning: /ko/blog/beta-renamed/" in line]
    assert said == [
        "bipub: warning: /ko/blog/beta-renamed/ (the ko page of posts/beta-renamed, "
        "content/ko/posts/beta-renamed.md) was published by the last build and is not any "
        "more: links to it now break; 2 posts are new in this build in ko "
        "(content/ko/posts/beta-again.md, content/ko/posts/delta.md) and bipub cannot tell if "
        "one is this post renamed (none is its file moved): if one is, add 'aliases: "
        "[/ko/blog/beta-renamed/]' to its front matter"
    ]


def test_a_deleted_post_is_said_gone(project: Path) -> None:
    build(project)
    (project / "content/ko/posts/beta.md").unlink()
    said = _removed(build(project))
    assert said == [
        f"bipub: warning: /{lang}/blog/beta/ (the {lang} page of posts/beta, "
        "content/ko/posts/beta.md) was published by the last build and is not any more: "
        f"links to it now break (renamed: add 'aliases: [/{lang}/blog/beta/]' to the front "
        "matter of its new file)"
        for lang in ("en", "ko")
    ]


def test_nothing_is_said_without_a_record(project: Path) -> None:
    build(project, use_cache=False)
    _front(project / "content/ko/posts/alpha.md", "slug: alpha-two")
    assert _removed(build(project, use_cache=False)) == []


def test_redirect_pages_come_with_the_image_variants_as_before(project: Path) -> None:
    """The redirect pages are written beside the root pages, static files and image variants
    (render/outputs.py HtmlPages): two aliases, one image, each file written once."""
    from PIL import Image

    (project / "static/images").mkdir(parents=True)
    Image.new("RGB", (800, 400), (200, 30, 30)).save(project / "static/images/red.png")
    beta = project / "content/ko/posts/beta.md"
    beta.write_text(beta.read_text(encoding="utf-8") + "\n![빨강](/images/red.png)\n", "utf-8")
    _front(beta, "aliases: [/ko/blog/old-beta/, /ko/blog/older-beta/]")
    build(project)
    site = project / "site"
    assert (site / "ko/blog/old-beta/index.html").is_file()
    assert (site / "ko/blog/older-beta/index.html").is_file()
    assert any((site / "_img").rglob("*.webp")), "no image variant written"


def test_serve_publishes_and_removes_a_redirect_page_as_the_alias_is_saved(make_project) -> None:
    """`bipub serve`: a saved alias is served at its old URL after the reload; saved without
    it, its page is gone (404); a slug saved changed says `url-removed` with the line to add."""
    import re
    import subprocess
    import time

    from tests.conftest import subprocess_env
    from tests.integration.test_serve import _next_event_is_reload, _serve_command, get

    project = make_project("minimal")
    proc = subprocess.Popen(
        _serve_command(project), stderr=subprocess.PIPE, text=True, env=subprocess_env()
    )
    try:
        port = None
        deadline = time.monotonic() + 120
        assert proc.stderr is not None
        while port is None and deadline > time.monotonic():  # (a hang guard)
            match = re.search(r"http://127\.0\.0\.1:(\d+)/", proc.stderr.readline())
            port = int(match.group(1)) if match else None
        assert port, "serve did not start"
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        conn.request("GET", "/__bipub/events")
        events = conn.getresponse()
        post = project / "content/ko/posts/alpha.md"
        _front(post, "aliases: [/ko/blog/old-alpha/]")
        _next_event_is_reload(events)
        status, body = get(port, "/ko/blog/old-alpha/")
        assert status == 200
        assert b'<meta http-equiv="refresh" content="0; url=/ko/blog/alpha/">' in body
        _front(post, "slug: alpha-two", drop=("aliases",))
        _next_event_is_reload(events)
        assert get(port, "/ko/blog/old-alpha/")[0] == 404
        said: list[str] = []
        while not any("[url-removed]" in line and "/ko/blog/alpha/" in line for line in said):
            said.append(proc.stderr.readline())
            assert said[-1], "".join(said)  # (serve ended without saying it)
        assert (
            "add 'aliases: [/ko/blog/alpha/]' to the front matter of content/ko/posts/alpha.md"
            in "".join(said)
        )
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_an_older_sites_url_outside_the_language_folders_is_the_sources(project: Path) -> None:
    """`/blog/old-alpha/` (a site before it had languages): the source's alias, to the source's
    page; written, as the root pages, by a build of every language, kept as published by a
    build of some, removed by a build of all without it."""
    alpha = project / "content/ko/posts/alpha.md"
    _front(alpha, "aliases: [/blog/old-alpha/, /2019/01/alpha.html]")
    build(project)
    site = project / "site"
    page = (site / "blog/old-alpha/index.html").read_text(encoding="utf-8")
    assert 'content="0; url=/ko/blog/alpha/"' in page and '<html lang="ko">' in page
    assert (site / "2019/01/alpha.html").is_file()
    _front(alpha, "aliases: [/blog/old-alpha/]")
    build(project, langs=["en"])
    assert (site / "2019/01/alpha.html").is_file()  # (the site's: as published)
    build(project)
    assert not (site / "2019").exists()
    assert (site / "blog/old-alpha/index.html").is_file()


def test_an_alias_of_a_language_the_post_has_no_page_in_is_refused(project: Path) -> None:
    """`outputs.untranslated: omit`: `beta` (Korean only) has no English page to send to."""
    config = project / "bipub.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "outputs:\n  untranslated: omit\n", "utf-8"
    )
    _front(project / "content/ko/posts/beta.md", "aliases: [/en/blog/old-beta/]")
    with pytest.raises(DiagnosticError) as failed:
        build(project)
    assert [d.format() for d in failed.value.diagnostics] == [
        "content/ko/posts/beta.md:2: aliases[0]: /en/blog/old-beta/: this post has no en page "
        "(no en file, and posts without a translation are left out there), so no alias can "
        "send a reader to it"
    ]


def test_a_page_takes_aliases_and_its_moved_url_is_said_too(project: Path) -> None:
    """Pages as posts (`about`'s source, whose slug is shared, is the English file: the
    default `source_languages` of pages)."""
    about = project / "content/ko/pages/about.md"
    build(project)
    _front(project / "content/en/pages/about.md", "slug: me")
    said = _removed(build(project))
    assert said == [
        "content/en/pages/about.md:1: warning: /en/about/ (published by the last build) is now "
        "/en/me/: links to the old URL break; add 'aliases: [/en/about/]' to the front matter "
        "of content/en/pages/about.md",
        "content/ko/pages/about.md:1: warning: /ko/about/ (published by the last build) is now "
        "/ko/me/: links to the old URL break; add 'aliases: [/ko/about/]' to the front matter "
        "of content/ko/pages/about.md",
    ]
    _front(about, "slug: me", "aliases: [/ko/about/]")
    assert _removed(build(project)) == []  # (the English one was said: not again)
    page = (project / "site/ko/about/index.html").read_text(encoding="utf-8")
    assert 'content="0; url=/ko/me/"' in page


def test_a_post_made_a_draft_is_said_held_back(project: Path) -> None:
    build(project)
    _front(project / "content/ko/posts/alpha.md", "draft: true")
    said = _removed(build(project))
    assert [line for line in said if "/blog/alpha/" in line] == [
        f"content/{lang}/posts/alpha.md:1: warning: /{lang}/blog/alpha/ was published by the "
        f"last build and is not any more, nor is its side-by-side page /{lang}/blog/alpha/both/"
        f": content/{lang}/posts/alpha.md is not published in {lang} now (a draft here or in "
        "its source, dated later, or left out untranslated); links to it break until it is"
        for lang in ("en", "ko")
    ]
    # (its tag's page went with it, and the English series' name, which it gave: the series
    # shows beta's now, the source's)
    assert [line.split(" (", 1)[0] for line in said if "/blog/alpha/" not in line] == [
        "content/en/posts/alpha.md:1: warning: /en/tags/vllm/",
        "content/ko/posts/alpha.md:1: warning: /ko/tags/vllm/",
        "content/ko/posts/beta.md:6: warning: /en/series/a-series/",
    ]
