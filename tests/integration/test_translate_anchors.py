"""In-page links to a post's headings (`[결론](#h-결론)`): the drafter points them at the
translation's headings (translate/anchors.py), QA says when one names no heading of the
translation (check/anchors.py). The DeepL fake romanizes Korean: `## 결론` → `## gyeolron`."""

from __future__ import annotations

import json
from pathlib import Path

from bipub.pair.status import StatusRecord, dump_status
from bipub.pair.units import text_hash
from tests.deepl_fake import FakeDeepL
from tests.deepl_fake.fixtures import deepl_fake
from tests.integration.test_translate import (
    Cli,
    _offline,
    fake,
    make,
    post,
    status,
    translate,
)

__all__ = ["_offline", "deepl_fake", "fake"]

KO = post("글", "[결론](#h-결론)으로 건너뛴다.\n\n## 서론\n\n처음.\n\n## 결론\n\n끝.\n")


def _links(cli: Cli, root: Path) -> list[tuple[str, str, str]]:
    result = cli("-C", str(root), "check", "--format", "json")
    found = json.loads(result.stdout)["findings"]
    return [(f["severity"], f["key"], f["message"]) for f in found if f["code"] == "links"]


def test_a_drafted_post_links_its_own_headings(cli: Cli, fake: FakeDeepL, tmp_path: Path) -> None:
    root = make(tmp_path / "site", {"content/ko/posts/a.md": KO})
    result = translate(cli, root, "--to", "en")
    assert result.exit_code == 0, result.stderr
    text = (root / "content/en/posts/a.md").read_text(encoding="utf-8")
    assert "## gyeolron" in text
    assert "](#h-gyeolron)" in text and "#h-결론" not in text
    assert _links(cli, root) == []


def test_a_new_section_links_a_heading_of_the_present_translation(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    root = make(
        tmp_path / "site",
        {
            "content/ko/posts/a.md": post(
                "글", "처음.\n\n## 결론\n\n끝.\n\n## 부록\n\n[결론](#h-결론) 참고.\n"
            ),
            "content/en/posts/a.md": post("Post", "First.\n\n## Conclusion\n\nThe end.\n"),
        },
    )
    result = translate(cli, root, "--to", "en")
    assert result.exit_code == 0, result.stderr
    text = (root / "content/en/posts/a.md").read_text(encoding="utf-8")
    assert "](#h-conclusion)" in text and "#h-결론" not in text


def test_qa_names_the_heading_an_in_page_link_should_point_to(cli: Cli, tmp_path: Path) -> None:
    root = make(
        tmp_path / "site",
        {
            "content/ko/posts/a.md": KO,
            "content/en/posts/a.md": post(
                "Post",
                "Skip to [the end](#h-결론).\n\n## Intro\n\nFirst.\n\n## Conclusion\n\nEnd.\n",
            ),
        },
    )
    assert _links(cli, root) == [
        (
            "error",
            "posts/a:body#0",
            "#h-결론 names no heading of this translation: the heading at the place of the "
            "source's #h-결론 is #h-conclusion",
        )
    ]
    path = root / "content/en/posts/a.md"
    path.write_text(path.read_text().replace("#h-결론", "#h-conclusion"), encoding="utf-8")
    assert _links(cli, root) == []
    # the link dropped: the source's link to its heading is missing (said decoded, once)
    path.write_text(path.read_text().replace("[the end](#h-conclusion)", "the end"), "utf-8")
    assert [m for _, _, m in _links(cli, root)] == ["link target #h-결론 of the source is missing"]


def test_a_draft_beside_a_reviewed_section_links_the_translations_heading(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    def reviewed(source: str, translation: str) -> StatusRecord:
        return StatusRecord(
            source_hash=text_hash(source),
            source=source,
            state="reviewed",
            reviewer="r",
            translation_hash=text_hash(translation),
        )

    records = {
        "posts/a:title": reviewed("글", "Post"),
        "posts/a:body#0": reviewed("처음.", "First."),
        "posts/a:body#1": reviewed("## 결론\n\n끝.", "## Conclusion\n\nThe end."),
    }
    root = make(
        tmp_path / "site",
        {
            "content/ko/posts/a.md": post("글", "[결론](#h-결론)을 먼저 보라.\n\n## 결론\n\n끝.\n"),
            "content/en/posts/a.md": post("Post", "First.\n\n## Conclusion\n\nThe end.\n"),
            "status/en.yaml": dump_status(records),
        },
    )
    result = translate(cli, root, "--to", "en")
    assert result.exit_code == 0, result.stderr
    draft = status(root, "en")["posts/a:body#0"].draft
    assert draft is not None and "](#h-conclusion)" in draft and "#h-결론" not in draft
    again = translate(cli, root, "--to", "en")
    assert "1 stored draft unchanged" in again.stderr


def test_a_headings_own_id_is_kept_by_the_draft_and_checked(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    """Session 32: `## 결론 {#conclusion}` is never sent; the draft keeps it and the link to it
    as written, and QA passes it; a translation whose heading lost it gets a finding."""
    ko = post(
        "글",
        "[결론](#conclusion)으로 건너뛴다.\n\n## 서론\n\n처음.\n\n## 결론 {#conclusion}\n\n끝.\n",
    )
    root = make(tmp_path / "site", {"content/ko/posts/a.md": ko})
    result = translate(cli, root, "--to", "en")
    assert result.exit_code == 0, result.stderr
    sent = [t for r in fake.translate_requests for t in r.texts]
    assert sent and not any("conclusion" in t for t in sent)
    path = root / "content/en/posts/a.md"
    text = path.read_text(encoding="utf-8")
    assert "## gyeolron {#conclusion}\n" in text and "](#conclusion)" in text
    assert _links(cli, root) == []
    path.write_text(text.replace(" {#conclusion}", ""), encoding="utf-8")
    assert _links(cli, root) == [
        (
            "warning",  # (on a machine draft)
            "posts/a:body#0",
            "#conclusion names no heading of this translation: the heading at the place of the "
            "source's #conclusion is #h-gyeolron",
        )
    ]
    result = cli("-C", str(root), "check", "--format", "json")
    markup = [f["message"] for f in json.loads(result.stdout)["findings"] if f["code"] == "markup"]
    assert markup == ["heading ids differ: source {#conclusion}, translation none"]
