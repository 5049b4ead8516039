"""`bipub translate` and `bipub check` on links to the site's own pages: a draft links the page
in its own language (translate/links.py), QA says when a translation links the other language's
page that its language has (check/qa.py `check_page_links`)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.deepl_fake import FakeDeepL
from tests.deepl_fake.fixtures import deepl_fake
from tests.integration.test_translate import CONFIG, Cli, _offline, fake, make, post, translate

__all__ = ["_offline", "deepl_fake", "fake"]

PREV_KO = post("이전 글", "이전 본문.\n")
PREV_EN = post("Previous post", "The earlier body.\n")
LINKING = post(
    "다음 글",
    "[이전 글](/ko/blog/prev/)과 [상대 링크](../prev/)를 보라.\n\n"
    "전체 주소 <https://t.example.org/ko/blog/prev/>와 [참조][r]도 있다. "
    "[없는 글](/ko/blog/nope/)은 그대로.\n\n"
    "[r]: /ko/blog/prev/\n",
)


def _body(root: Path, rel: str) -> str:
    return (root / rel).read_text(encoding="utf-8")


def test_a_draft_links_the_page_in_its_own_language(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    root = make(
        tmp_path / "site",
        {
            "content/ko/posts/prev.md": PREV_KO,
            "content/en/posts/prev.md": PREV_EN,
            "content/ko/posts/next.md": LINKING,
        },
    )
    result = translate(cli, root, "--to", "en", "--only", "posts/next")
    assert result.exit_code == 0, result.stderr
    text = _body(root, "content/en/posts/next.md")
    assert "](/en/blog/prev/)" in text
    assert "<https://t.example.org/en/blog/prev/>" in text
    assert "[r]: /en/blog/prev/" in text
    assert "](../prev/)" in text  # relative: right in both languages
    assert "](/ko/blog/nope/)" in text  # no such post: not the site's page, kept
    assert "/ko/blog/prev/" not in text
    assert "links" not in result.stderr
    check = cli("-C", str(root), "check", "--format", "json")
    found = [f for f in json.loads(check.stdout)["findings"] if f["code"] == "links"]
    assert found == []


def test_an_untranslated_post_still_has_its_page_under_show(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    root = make(
        tmp_path / "site",
        {"content/ko/posts/prev.md": PREV_KO, "content/ko/posts/next.md": LINKING},
    )
    result = translate(cli, root, "--to", "en", "--only", "posts/next")
    assert result.exit_code == 0, result.stderr
    assert "](/en/blog/prev/)" in _body(root, "content/en/posts/next.md")


def test_under_omit_a_link_to_a_page_the_target_lacks_is_kept_and_said(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    root = make(
        tmp_path / "site",
        {
            "bipub.yaml": CONFIG + "outputs:\n  untranslated: omit\n",
            "content/ko/posts/prev.md": PREV_KO,
            "content/ko/posts/next.md": LINKING,
        },
    )
    result = translate(cli, root, "--to", "en", "--only", "posts/next")
    assert result.exit_code == 0, result.stderr
    text = _body(root, "content/en/posts/next.md")
    assert "](/ko/blog/prev/)" in text
    assert "links: line 1: link /ko/blog/prev/ kept: the site has no en page" in result.stderr
    assert "en readers are sent to the ko page" in result.stderr


def test_an_english_source_links_the_korean_page_in_its_korean_draft(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    root = make(
        tmp_path / "site",
        {
            "content/ko/posts/prev.md": PREV_KO,
            "content/en/posts/prev.md": PREV_EN,
            "content/en/posts/next.md": post(
                "Next post", "See [the earlier post](/en/blog/prev/).\n", "source_lang: en\n"
            ),
        },
    )
    result = translate(cli, root, "--to", "ko", "--only", "posts/next")
    assert result.exit_code == 0, result.stderr
    text = _body(root, "content/ko/posts/next.md")
    assert "](/ko/blog/prev/)" in text and "/en/blog/prev/" not in text


def _links(cli: Cli, root: Path) -> list[dict[str, object]]:
    result = cli("-C", str(root), "check", "--format", "json")
    return [f for f in json.loads(result.stdout)["findings"] if f["code"] == "links"]


def test_qa_warns_of_a_link_to_the_other_languages_page_the_translation_has(
    cli: Cli, tmp_path: Path
) -> None:
    files = {
        "content/ko/posts/prev.md": PREV_KO,
        "content/en/posts/prev.md": PREV_EN,
        "content/ko/posts/next.md": post("다음 글", "[이전 글](/ko/blog/prev/)을 보라.\n"),
        # a translation by hand (no status record: reviewed text), linking the Korean page
        "content/en/posts/next.md": post("Next post", "See [the earlier one](/ko/blog/prev/).\n"),
    }
    root = make(tmp_path / "site", files)
    found = _links(cli, root)
    assert [(f["severity"], f["key"], f["message"]) for f in found] == [
        (
            "warning",
            "posts/next:body#0",
            "/ko/blog/prev/ sends en readers to the ko page; its en page is /en/blog/prev/",
        )
    ]
    # the page in the translation's own language: agrees with the source's link, no finding
    (root / "content/en/posts/next.md").write_text(
        post("Next post", "See [the earlier one](/en/blog/prev/).\n"), encoding="utf-8"
    )
    assert _links(cli, root) == []


def test_qa_warns_once_the_translations_language_has_the_page(cli: Cli, tmp_path: Path) -> None:
    """Under `omit` an untranslated post has no English page: the Korean link is the only one
    (the drafter keeps it and says so); once the post is translated, QA says it."""
    root = make(
        tmp_path / "site",
        {
            "bipub.yaml": CONFIG + "outputs:\n  untranslated: omit\n",
            "content/ko/posts/prev.md": PREV_KO,
            "content/ko/posts/next.md": post("다음 글", "[이전 글](/ko/blog/prev/)을 보라.\n"),
            "content/en/posts/next.md": post(
                "Next post", "See [the earlier one](/ko/blog/prev/).\n"
            ),
        },
    )
    assert _links(cli, root) == []
    (root / "content/en/posts/prev.md").write_text(PREV_EN, encoding="utf-8")
    assert [f["message"] for f in _links(cli, root)] == [
        "/ko/blog/prev/ sends en readers to the ko page; its en page is /en/blog/prev/"
    ]


PREV_KO_HEADED = post("이전 글", "처음.\n\n## 이전 결론\n\n끝.\n")
PREV_EN_HEADED = post("Previous post", "First.\n\n## Earlier conclusion\n\nThe end.\n")


def test_a_link_to_a_heading_of_another_page_names_its_heading_there(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    root = make(
        tmp_path / "site",
        {
            "content/ko/posts/prev.md": PREV_KO_HEADED,
            "content/en/posts/prev.md": PREV_EN_HEADED,
            "content/ko/posts/next.md": post(
                "다음 글", "[이전 결론](/ko/blog/prev/#h-이전-결론)을 보라.\n"
            ),
        },
    )
    result = translate(cli, root, "--to", "en", "--only", "posts/next")
    assert result.exit_code == 0, result.stderr
    text = _body(root, "content/en/posts/next.md")
    assert "](/en/blog/prev/#h-earlier-conclusion)" in text
    assert _links(cli, root) == []
    # a link to the English page naming the Korean heading: no heading of that page
    path = root / "content/en/posts/next.md"
    path.write_text(text.replace("#h-earlier-conclusion", "#h-이전-결론"), encoding="utf-8")
    assert [f["message"] for f in _links(cli, root)] == [
        "/en/blog/prev/#h-이전-결론: #h-이전-결론 names no heading of /en/blog/prev/: the heading "
        "at the place of ko's #h-이전-결론 is #h-earlier-conclusion"
    ]


def test_a_link_to_a_heading_whose_place_is_not_known_is_kept_and_said(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    root = make(
        tmp_path / "site",
        {
            "content/ko/posts/prev.md": PREV_KO_HEADED,
            "content/en/posts/prev.md": post("Previous post", "No headings here.\n"),
            "content/ko/posts/next.md": post(
                "다음 글", "[이전 결론](/ko/blog/prev/#h-이전-결론)을 보라.\n"
            ),
        },
    )
    result = translate(cli, root, "--to", "en", "--only", "posts/next")
    assert result.exit_code == 0, result.stderr
    assert "](/ko/blog/prev/#h-이전-결론)" in _body(root, "content/en/posts/next.md")
    assert "the place of its heading in the en page is not known" in result.stderr


def test_qa_warns_of_a_link_to_a_page_the_site_does_not_have_in_that_language(
    cli: Cli, tmp_path: Path
) -> None:
    root = make(
        tmp_path / "site",
        {
            "bipub.yaml": CONFIG + "outputs:\n  untranslated: omit\n",
            "content/ko/posts/prev.md": PREV_KO,
            "content/ko/posts/next.md": post("다음 글", "[이전 글](/ko/blog/prev/)을 보라.\n"),
            "content/en/posts/next.md": post(
                "Next post", "See [the earlier one](/en/blog/prev/).\n"
            ),
        },
    )
    assert [f["message"] for f in _links(cli, root)] == [
        "/en/blog/prev/ does not exist: the site has no en page of this post; its ko page is "
        "/ko/blog/prev/"
    ]
