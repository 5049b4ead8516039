"""`bipub translate` and `bipub check` on links to the site's pages other than a post's or a
page's own (pair/site_pages.py): the home, the blog's pages, a tag's page (the English spelling's
page), a series' page, the CV page, a side-by-side page, the feeds, the JSON API, llms.txt, the
social cards. A
draft links the page in its own language (translate/links.py); one the target language lacks
is kept and said; QA says when a translation links the other language's page its language has
(check/page_links.py)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.deepl_fake import FakeDeepL
from tests.deepl_fake.fixtures import deepl_fake
from tests.integration.test_translate import CONFIG, Cli, _offline, fake, make, post, translate

__all__ = ["_offline", "deepl_fake", "fake"]

# a post translated by hand, its tag and series spelled in each language
TAGGED_KO = post("분산 글", "분산 본문.\n", "tags: [분산, vLLM]\nseries: 분산 추론\n")
TAGGED_EN = post(
    "Distributed post",
    "The distributed body.\n",
    "tags: [distributed, vLLM]\nseries: Distributed inference\n",
)


def _draft(cli: Cli, root: Path) -> tuple[str, str]:
    """`bipub translate --to en` of posts/next: the English draft's text and what was said."""
    result = translate(cli, root, "--to", "en", "--only", "posts/next")
    assert result.exit_code == 0, result.stderr
    return (root / "content/en/posts/next.md").read_text(encoding="utf-8"), result.stderr


def _links(cli: Cli, root: Path) -> list[str]:
    result = cli("-C", str(root), "check", "--format", "json")
    return [f["message"] for f in json.loads(result.stdout)["findings"] if f["code"] == "links"]


def _site(tmp_path: Path, body: str, config: str = "", **more: str) -> Path:
    files = {
        "bipub.yaml": CONFIG + config,
        "content/ko/posts/prev.md": TAGGED_KO,
        "content/en/posts/prev.md": TAGGED_EN,
        "content/ko/posts/next.md": post("다음 글", body),
    }
    return make(tmp_path / "site", {**files, **more})


def test_the_home_page(cli: Cli, fake: FakeDeepL, tmp_path: Path) -> None:
    root = _site(tmp_path, "[홈](/ko/)과 [전체](https://t.example.org/ko)와 [뿌리](/)를 보라.\n")
    text, said = _draft(cli, root)
    assert "](/en/)" in text and "](https://t.example.org/en/)" in text
    assert "](/)" in text  # the language entry page: every language's
    assert "t.example.org/ko" not in text and "](/ko" not in text and "links" not in said
    assert _links(cli, root) == []


def test_a_tag_page_is_the_english_spellings(cli: Cli, fake: FakeDeepL, tmp_path: Path) -> None:
    root = _site(
        tmp_path,
        "[분산 글들](/ko/tags/분산/), [인코딩](/ko/tags/%EB%B6%84%EC%82%B0/), "
        "[vLLM](/ko/tags/vllm/)과 [피드](/ko/tags/분산/feed.xml)를 보라.\n",
    )
    text, said = _draft(cli, root)
    assert "](/en/tags/distributed/)" in text
    assert text.count("](/en/tags/distributed/)") == 2  # the encoded link too
    assert "](/en/tags/vllm/)" in text  # spelled alike in both: the same slug
    assert "](/en/tags/distributed/feed.xml)" in text
    assert "/ko/" not in text and "links" not in said
    assert _links(cli, root) == []


def test_under_the_path_of_base_url(cli: Cli, fake: FakeDeepL, tmp_path: Path) -> None:
    root = _site(tmp_path, "[분산](/sub/ko/tags/분산/)과 [홈](https://t.example.org/sub/ko/).\n")
    config = root / "bipub.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("https://t.example.org/", "https://t.example.org/sub/"))
    text, said = _draft(cli, root)
    assert "](/sub/en/tags/distributed/)" in text and "](https://t.example.org/sub/en/)" in text
    assert "links" not in said


def test_a_tag_no_english_post_lists_is_kept_and_said(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    root = _site(
        tmp_path,
        "[혼자](/ko/tags/혼자/)를 보라.\n",
        "outputs:\n  untranslated: omit\n",
        **{"content/ko/posts/alone.md": post("혼자 글", "본문.\n", "tags: [혼자]\n")},
    )
    text, said = _draft(cli, root)
    assert "](/ko/tags/혼자/)" in text
    assert (
        "links: line 1: link /ko/tags/혼자/ kept: the site has no en page of /ko/tags/혼자/: no en "
        "tag page lists the posts of the tag '혼자'" in " ".join(said.split())
    )


def test_a_tag_none_of_whose_posts_english_has_is_the_one_it_spells_alike(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    root = _site(
        tmp_path,
        "[GPU](/ko/tags/gpu/)를 보라.\n",
        "outputs:\n  untranslated: omit\n",
        **{
            "content/ko/posts/alone.md": post("혼자 글", "본문.\n", "tags: [GPU]\n"),
            "content/en/posts/own.md": post("Own", "Body.\n", "source_lang: en\ntags: [gpu]\n"),
        },
    )
    text, said = _draft(cli, root)
    assert "](/en/tags/gpu/)" in text and "links" not in said


def test_a_tag_its_posts_spell_two_ways_is_kept_and_said(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    root = _site(
        tmp_path,
        "[분산](/ko/tags/분산/)을 보라.\n",
        **{
            "content/ko/posts/other.md": post("다른 글", "본문.\n", "tags: [분산]\n"),
            "content/en/posts/other.md": post("Other", "Body.\n", "tags: [distribution]\n"),
        },
    )
    text, said = _draft(cli, root)
    assert "](/ko/tags/분산/)" in text
    assert (
        "its posts list the tag '분산' in en as 'distributed', 'distribution' (one tag page "
        "cannot be chosen)" in " ".join(said.split())
    )


def test_a_series_page(cli: Cli, fake: FakeDeepL, tmp_path: Path) -> None:
    root = _site(tmp_path, "[연재](/ko/series/분산-추론/)를 보라.\n")
    text, said = _draft(cli, root)
    assert "](/en/series/distributed-inference/)" in text and "links" not in said


def test_the_blog_and_its_pages(cli: Cli, fake: FakeDeepL, tmp_path: Path) -> None:
    root = _site(
        tmp_path,
        "[블로그](/ko/blog/), [둘째 쪽](/ko/blog/page/2/), [셋째 쪽](/ko/blog/page/3/).\n",
        "posts_per_page: 1\noutputs:\n  untranslated: omit\n",
        **{"content/ko/posts/alone.md": post("혼자 글", "본문.\n")},
    )
    # three Korean posts (three pages), one English (prev): next's draft makes two pages, but
    # the links are read against the site before the draft
    text, said = _draft(cli, root)
    assert "](/en/blog/)" in text
    assert "](/ko/blog/page/2/)" in text and "](/ko/blog/page/3/)" in text
    flat = " ".join(said.split())
    assert (
        "link /ko/blog/page/2/ kept: the site has no en page of /ko/blog/page/2/: the en blog "
        in flat
    )
    assert "has 1 page" in flat


def test_the_cv_page(cli: Cli, fake: FakeDeepL, tmp_path: Path) -> None:
    root = _site(
        tmp_path,
        "[이력](/ko/cv/)을 보라.\n",
        "home: blog\n",
        **{
            "content/ko/cv.yaml": "title: 엔지니어\n",
            "content/en/cv.yaml": "name: Min\ntitle: Engineer\n",
        },
    )
    text, said = _draft(cli, root)
    assert "](/en/cv/)" in text and "links" not in said


def test_a_side_by_side_page(cli: Cli, fake: FakeDeepL, tmp_path: Path) -> None:
    root = _site(tmp_path, "[나란히](/ko/blog/prev/both/)와 [검색](/ko/search/).\n")
    text, said = _draft(cli, root)
    assert "](/en/blog/prev/both/)" in text and "](/en/search/)" in text and "links" not in said


def test_the_feeds_api_and_llms(cli: Cli, fake: FakeDeepL, tmp_path: Path) -> None:
    root = _site(
        tmp_path,
        "[피드](/ko/feed.xml), [JSON](/ko/feed.json), [API](/api/ko/posts.json), "
        "[llms](/ko/llms.txt), [전부](/ko/llms-full.txt), [뿌리](/llms.txt).\n",
    )
    text, _ = _draft(cli, root)
    for path in ("/en/feed.xml", "/en/feed.json", "/api/en/posts.json", "/en/llms.txt"):
        assert f"]({path})" in text
    assert "](/en/llms-full.txt)" in text and "](/llms.txt)" in text
    assert "/ko/" not in text


def test_the_social_cards(cli: Cli, fake: FakeDeepL, tmp_path: Path) -> None:
    """Session 34: the language's card and a post's own (render/cards.py); a post with an
    `image:` has none, and a link to its would-be card is no page of the site (kept as is)."""
    root = _site(
        tmp_path,
        "[카드](/ko/card.png), [글 카드](https://t.example.org/ko/blog/prev/card.png), "
        "[그림](/ko/blog/pictured/card.png).\n",
        **{"content/ko/posts/pictured.md": post("그림 글", "본문.\n", "image: /pic.png\n")},
    )
    text, said = _draft(cli, root)
    assert "](/en/card.png)" in text and "](https://t.example.org/en/blog/prev/card.png)" in text
    assert "](/ko/blog/pictured/card.png)" in text
    assert "links" not in said
    (root / "content/en/posts/next.md").write_text(
        post(
            "Next post",
            "The [card](/ko/card.png), [its](https://t.example.org/ko/blog/prev/card.png), "
            "[picture](/ko/blog/pictured/card.png).\n",
        ),
        encoding="utf-8",
    )
    assert _links(cli, root) == [
        "/ko/card.png sends en readers to the ko page; its en page is /en/card.png",
        "https://t.example.org/ko/blog/prev/card.png sends en readers to the ko page; its en "
        "page is https://t.example.org/en/blog/prev/card.png",
    ]


def test_a_text_whose_only_link_is_the_cv_pdf_or_the_bare_home(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    """Before reading a text's links the drafter and QA look for a language's path in it:
    neither `/pdf/cv-ko.pdf` nor a home without its last `/` has `/ko/`."""
    root = _site(
        tmp_path,
        "[이력서](/pdf/cv-ko.pdf).\n\n[홈](https://t.example.org/ko)\n",
        **{
            "content/ko/cv.yaml": "title: 엔지니어\n",
            "content/en/cv.yaml": "name: Min\ntitle: Engineer\n",
        },
    )
    text, said = _draft(cli, root)
    assert "](/pdf/cv-en.pdf)" in text and "](https://t.example.org/en/)" in text
    assert "links" not in said


def test_the_pdfs(cli: Cli, fake: FakeDeepL, tmp_path: Path) -> None:
    root = _site(
        tmp_path,
        "[PDF](/ko/blog/prev/prev.pdf), [이력서](/pdf/cv-ko.pdf), [요약](/pdf/cv-ko-short.pdf), "
        "[두 언어](/pdf/cv-ko-en.pdf).\n",
        "pdf:\n  posts: true\n  short: {enabled: true}\n",
        **{
            "content/ko/cv.yaml": "title: 엔지니어\n",
            "content/en/cv.yaml": "name: Min\ntitle: Engineer\n",
        },
    )
    text, said = _draft(cli, root)
    assert "](/en/blog/prev/prev.pdf)" in text and "](/pdf/cv-en.pdf)" in text
    assert "](/pdf/cv-en-short.pdf)" in text
    assert "](/pdf/cv-ko-en.pdf)" in text  # both languages': kept
    assert "links" not in said


def test_qa_warns_of_a_hand_written_link_to_a_korean_tag_page(cli: Cli, tmp_path: Path) -> None:
    root = _site(
        tmp_path,
        "[분산](/ko/tags/분산/)과 [홈](/ko/)을 보라.\n",
        **{
            # a translation by hand linking the Korean pages
            "content/en/posts/next.md": post(
                "Next post", "See [distributed](/ko/tags/분산/) and [home](/ko/).\n"
            )
        },
    )
    assert _links(cli, root) == [
        "/ko/tags/분산/ sends en readers to the ko page; its en page is /en/tags/distributed/",
        "/ko/ sends en readers to the ko page; its en page is /en/",
    ]
    (root / "content/en/posts/next.md").write_text(
        post("Next post", "See [distributed](/en/tags/distributed/) and [home](/en/).\n"),
        encoding="utf-8",
    )
    assert _links(cli, root) == []


def test_qa_warns_of_a_korean_tag_page_written_with_en(cli: Cli, tmp_path: Path) -> None:
    """The language of a link swapped by hand (`/ko/tags/분산/` → `/en/tags/분산/`) agrees with
    the source's link as QA compares the texts, and names no page: the English tag is spelled
    otherwise."""
    root = _site(
        tmp_path,
        "[분산](/ko/tags/분산/)과 [셋째 쪽](/ko/blog/page/3/)을 보라.\n",
        "posts_per_page: 1\noutputs:\n  untranslated: omit\n",
        **{
            "content/en/posts/next.md": post(
                "Next post", "See [distributed](/en/tags/분산/) and [page 3](/en/blog/page/3/).\n"
            ),
            "content/ko/posts/alone.md": post("혼자 글", "본문.\n"),
        },
    )
    assert _links(cli, root) == [
        "/en/tags/분산/ does not exist: the en page of /ko/tags/분산/ is /en/tags/distributed/",
        "/en/blog/page/3/ does not exist: the site has no en page of /ko/blog/page/3/: the en blog "
        "has 2 pages",
    ]
