"""`url-removed` for every kind of page a build can take away (render/removed_urls.py): a tag's
page, a tag's or the blog's page past the new last one, a series' page, a post's side-by-side
page and a redirect page whose alias went; each said once, with what removed it and the
remedy there is, and none for a page that moved and got an alias. A post's or page's own page:
tests/integration/test_aliases.py."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from bipub import uptodate
from bipub.pipeline import build
from bipub.project import Project
from bipub.render import removed_urls
from tests.conftest import PROJECTS
from tests.integration.test_aliases import _front, _removed

TAG = "bipub writes no redirect for a tag's page (a redirect rule of the host can keep it)"
SERIES = "bipub writes no redirect for a series' page (a redirect rule of the host can keep it)"
LIST = "bipub writes no redirect for a list page (a redirect rule of the host can keep it)"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    return root


def _post(project: Path, name: str, tags: str) -> Path:
    path = project / "content/ko/posts" / f"{name}.md"
    path.write_text(
        f"---\ntitle: {name}\ndate: 2026-06-0{len(name) % 9 + 1}\ntags: [{tags}]\n---\n\n본문.\n",
        encoding="utf-8",
    )
    return path


def test_a_tag_no_post_has_any_more_is_said_at_the_post_retagged(project: Path) -> None:
    """alpha is the only post tagged `vllm`; retagged, its tag's page goes in both languages
    (the English alpha has no `tags:`: it takes the Korean source's, said where they are)."""
    build(project)
    _front(project / "content/ko/posts/alpha.md", "tags: [rust, KV cache]")
    said = _removed(build(project))
    assert said == [
        f"content/ko/posts/alpha.md:2: warning: /{lang}/tags/vllm/ (a tag's page) was published "
        f"by the last build and is not any more: no {lang} post has the tag now (it listed: "
        f"content/{lang}/posts/alpha.md no longer has the tag); links to it break; {TAG}"
        for lang in ("en", "ko")
    ]
    assert _removed(build(project)) == []  # (said once)


def test_a_tags_page_past_its_new_last_one_is_said(project: Path) -> None:
    """posts_per_page 2: three posts tagged `vllm` make /ko/tags/vllm/page/2/; one retagged."""
    _post(project, "gamma", "vllm")
    delta = _post(project, "delta", "vllm")
    build(project)
    assert (project / "site/ko/tags/vllm/page/2/index.html").is_file()
    _front(delta, "tags: [rust]")
    said = [line for line in _removed(build(project)) if "/ko/" in line]
    assert said == [
        "bipub: warning: /ko/tags/vllm/page/2/ (page 2 of the tag /ko/tags/vllm/) was published "
        "by the last build and is not any more: the tag has 1 page now (2 posts, posts_per_page "
        f"2); links to it break; {TAG}"
    ]


def test_a_blog_page_past_the_new_last_one_is_said(project: Path) -> None:
    gamma = _post(project, "gamma", "rust")
    build(project)
    assert (project / "site/ko/blog/page/2/index.html").is_file()
    gamma.unlink()
    said = [line for line in _removed(build(project)) if "/blog/page/" in line]
    assert said == [
        f"bipub: warning: /{lang}/blog/page/2/ (page 2 of the {lang} blog) was published by the "
        f"last build and is not any more: the blog has 1 page now (2 posts, posts_per_page 2); "
        f"links to it break; {LIST}"
        for lang in ("en", "ko")
    ]


def test_a_series_renamed_is_said_with_its_new_page(project: Path) -> None:
    build(project)
    for name in ("alpha", "beta"):
        _front(project / f"content/ko/posts/{name}.md", "series: 새 연재")
    said = [line for line in _removed(build(project)) if "/ko/" in line]
    assert said == [
        "content/ko/posts/alpha.md:2: warning: /ko/series/연재/ (a series' page) was published by "
        "the last build and is not any more: its posts are in the series at /ko/series/새-연재/ "
        "now (the series' "
        f"name in ko changed); links to the old URL break; {SERIES}"
    ]


def test_a_series_renamed_in_one_language_and_left_is_said(project: Path) -> None:
    """The English alpha names the series `A series` in English (its first part); renamed, it
    is said where; then every post leaves it."""
    build(project)
    alpha = project / "content/en/posts/alpha.md"
    _front(alpha, "series: Another")
    said = [line for line in _removed(build(project)) if "/en/series/" in line]
    assert said == [
        "content/en/posts/alpha.md:2: warning: /en/series/a-series/ (a series' page) was "
        "published by the last build and is not any more: its posts are in the series at "
        f"/en/series/another/ now (the series' name in en changed); links to the old URL break; "
        f"{SERIES}"
    ]
    _front(alpha, drop=("series",))
    for name in ("alpha", "beta"):
        _front(project / f"content/ko/posts/{name}.md", drop=("series", "series_order"))
    said = [line for line in _removed(build(project)) if "/ko/series/" in line]
    assert said == [
        "bipub: warning: /ko/series/연재/ (a series' page) was published by the last build and "
        "is not any more: no ko post is in that series now (content/ko/posts/alpha.md left it; "
        "content/ko/posts/beta.md left it); links to it break; "
        f"{SERIES}"
    ]


def test_a_side_by_side_page_whose_translation_went_is_said(project: Path) -> None:
    """alpha's English file is deleted: its English page shows the Korean source now (the
    same URL), but neither language has a side-by-side page any more."""
    build(project)
    (project / "content/en/posts/alpha.md").unlink()
    said = [line for line in _removed(build(project)) if "/both/" in line]
    assert said == [
        f"content/ko/posts/alpha.md:1: warning: /{lang}/blog/alpha/both/ (the side-by-side page "
        f"of content/{lang}/posts/alpha.md) was published by the last build and is not any "
        "more: no other language's own version of the post is published beside "
        f"{lang} now{' (content/en/posts/alpha.md is gone)' if lang == 'en' else ''}; links to "
        "it break"
        for lang in ("en", "ko")
    ]


def test_side_by_side_pages_turned_off_are_said_once_in_bipub_yaml(project: Path) -> None:
    """outputs.side_by_side: false takes every side-by-side page away: one warning, not one a
    post (a site of 500 translated posts would say 1,000)."""
    build(project)
    config = project / "bipub.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "outputs:\n  side_by_side: false\n", encoding="utf-8"
    )
    assert _removed(build(project)) == [
        "bipub.yaml: warning: /en/blog/alpha/both/ and 1 other side-by-side page (published by "
        "the last build) are not any more: outputs.side_by_side is false; links to them break"
    ]


def test_a_language_taken_out_of_the_configuration_is_said_once(project: Path) -> None:
    """Its folder goes whole: one warning in bipub.yaml, not one a page (nor its pages taken for
    redirect pages outside the language folders)."""
    config = project / "bipub.yaml"
    two = config.read_text(encoding="utf-8")
    third = "  - code: en-US\n    name: US\n    title: Test\n    description: A sample\n"
    config.write_text(two.replace("default_language:", third + "default_language:"), "utf-8")
    build(project)
    assert (project / "site/en-US/blog/alpha/index.html").is_file()
    config.write_text(two, encoding="utf-8")
    said = _removed(build(project))
    assert said == [
        "bipub.yaml: warning: /en-US/ and every page under it (published by the last build: its "
        "home, and 8 pages of posts, tags, series and lists) are not any more: bipub.yaml "
        "languages has no 'en-US' now; links to them break"
    ]


def test_an_alias_taken_out_is_said_at_its_file_with_its_side_by_side_redirect(
    project: Path,
) -> None:
    """An alias of a post's old URL redirects the side-by-side page's old URL too; taken out,
    both go, said in one warning at the file that had it."""
    alpha = project / "content/ko/posts/alpha.md"
    _front(alpha, "aliases: [/ko/blog/old-alpha/]")
    build(project)
    side = (project / "site/ko/blog/old-alpha/both/index.html").read_text(encoding="utf-8")
    assert 'content="0; url=/ko/blog/alpha/both/"' in side
    _front(alpha, drop=("aliases",))
    assert _removed(build(project)) == [
        "content/ko/posts/alpha.md:1: warning: /ko/blog/old-alpha/ (a redirect page to "
        "/ko/blog/alpha/, of an alias in content/ko/posts/alpha.md) was published by the last "
        "build and is not any more, nor is its side-by-side page /ko/blog/old-alpha/both/: its "
        "alias was taken out of content/ko/posts/alpha.md; links to it break; put "
        "'aliases: [/ko/blog/old-alpha/]' back in its front matter to keep it"
    ]
    # (one of two taken out: the line to put back in the list)
    _front(alpha, "aliases: [/ko/blog/one/, /ko/2019/two.html]")
    build(project)
    _front(alpha, "aliases: [/ko/blog/one/]")
    assert _removed(build(project)) == [
        "content/ko/posts/alpha.md:2: warning: /ko/2019/two.html (a redirect page to "
        "/ko/blog/alpha/, of an alias in content/ko/posts/alpha.md) was published by the last "
        "build and is not any more: its alias was taken out of content/ko/posts/alpha.md; links "
        "to it break; put '- /ko/2019/two.html' back in its aliases to keep it"
    ]


def test_an_alias_of_a_deleted_post_is_said_with_the_post(project: Path) -> None:
    beta = project / "content/ko/posts/beta.md"
    _front(beta, "aliases: [/ko/blog/old-beta/]")
    build(project)
    beta.unlink()
    said = [line for line in _removed(build(project)) if "old-beta" in line]
    assert said == [
        "bipub: warning: /ko/blog/old-beta/ (a redirect page to /ko/blog/beta/, of an alias in "
        "content/ko/posts/beta.md) was published by the last build and is not any more: "
        "content/ko/posts/beta.md is gone; links to it break (renamed: copy its aliases to the "
        "new file)"
    ]


def test_an_alias_outside_the_language_folders_is_said_by_a_build_of_every_language(
    project: Path,
) -> None:
    """`/old/alpha/` is written by a build of every language only: a build of one keeps it and
    says nothing; the next build of all, which removes it, says it."""
    alpha = project / "content/ko/posts/alpha.md"
    _front(alpha, "aliases: [/old/alpha/]")
    build(project)
    _front(alpha, drop=("aliases",))
    assert _removed(build(project, langs=["ko"])) == []
    assert (project / "site/old/alpha/index.html").is_file()
    said = _removed(build(project))
    assert [line.split(" (", 1)[0] for line in said] == [
        "content/ko/posts/alpha.md:1: warning: /old/alpha/"
    ]


def test_a_moved_post_with_its_alias_is_not_said_and_its_side_by_side_page_redirects(
    project: Path,
) -> None:
    build(project)
    _front(project / "content/ko/posts/alpha.md", "slug: alpha-two")
    _front(project / "content/ko/posts/alpha.md", "slug: alpha-two", "aliases: [/ko/blog/alpha/]")
    _front(project / "content/en/posts/alpha.md", "aliases: [/en/blog/alpha/]")
    assert _removed(build(project)) == []
    side = (project / "site/en/blog/alpha/both/index.html").read_text(encoding="utf-8")
    assert 'content="0; url=/en/blog/alpha-two/both/"' in side
    assert '<link rel="canonical" href="https://test.example.org/en/blog/alpha-two/both/">' in side


class _Counted(dict[str, tuple[str, str]]):
    """The last record's `urls`, counting the pages looked up in it (a pass over all of them
    is refused: an update looks only at the pages this build does not make again)."""

    looked: list[str]

    def __getitem__(self, file: str) -> tuple[str, str]:
        self.looked.append(file)
        return super().__getitem__(file)

    def items(self) -> Any:
        raise AssertionError("every page of the last record looked at")

    def values(self) -> Any:
        raise AssertionError("every page of the last record looked at")


def test_an_update_looks_only_at_the_pages_it_does_not_make_again(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`removed` and `next_urls` take the last record's pages this build does not publish by a
    set difference with what it does (`published`): here the two tag pages of `vllm` (one
    per language), the only ones looked up; what is said and kept is as before."""
    build(project)
    counted: list[_Counted] = []

    def wrapped(real: Any) -> Any:
        def call(previous: Mapping[str, tuple[str, str]], *args: Any) -> Any:
            urls = _Counted(previous)
            urls.looked = []
            counted.append(urls)
            return real(urls, *args)

        return call

    monkeypatch.setattr(removed_urls, "removed", wrapped(removed_urls.removed))
    monkeypatch.setattr(removed_urls, "next_urls", wrapped(removed_urls.next_urls))
    _front(project / "content/ko/posts/alpha.md", "tags: [rust, KV cache]")
    said = _removed(build(project))
    assert [line.split(" (", 1)[0] for line in said] == [
        "content/ko/posts/alpha.md:2: warning: /en/tags/vllm/",
        "content/ko/posts/alpha.md:2: warning: /ko/tags/vllm/",
    ]
    gone = ["en/tags/vllm/index.html", "ko/tags/vllm/index.html"]
    assert [sorted(urls.looked) for urls in counted] == [gone, []]  # (removed, next_urls)
    monkeypatch.undo()
    record = uptodate.load(Project(project), project / "site")
    assert record is not None and not set(gone) & record.urls.keys()
    assert _removed(build(project)) == []
