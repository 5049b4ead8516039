"""Issue 18, llms.txt: on a copy of tests/projects/real_content (default language Korean) with an
English-only post, a two-paragraph summary and an internship — the Korean llms-full.txt reads
Korean, keeps paragraphs, carries every post's Markdown and the header line; the root copies are
right after `build --lang`. Only the llms files are built (`--only llms`: no pages, no PDFs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.integration.test_real_content import copy_project

ENGLISH_POST = """\
---
title: An English-only post
description: "Written in English alone, <b>bold</b> [not a link](x)"
date: 2026-04-06
tags: [torch-compile]
---

First paragraph of the English post.

## Setup

Second paragraph, under its own heading.

```python
# not a heading
x = 1
```
"""

SUMMARY = """\
summary: |-
  모델을 서빙합니다.

  두 번째 문단입니다.
"""


def build(root: Path, *args: str) -> None:
    from bipub.cli import main

    result = CliRunner().invoke(
        main, ["-C", str(root), "build", "--only", "llms", *args], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "real_content"
    copy_project(root)  # with the images it names (a missing one is an error since issue 19)
    (root / "content/en/posts/f-english.md").write_text(ENGLISH_POST, encoding="utf-8")
    ko_cv = root / "content/ko/cv.yaml"
    text = ko_cv.read_text(encoding="utf-8").replace("summary: 모델을 서빙합니다.\n", SUMMARY)
    ko_cv.write_text(text, encoding="utf-8")
    en_cv = root / "content/en/cv.yaml"
    text = en_cv.read_text(encoding="utf-8")
    en_cv.write_text(text.replace('period: "2023"\n', 'period: "2023"\n    internship: true\n'))
    build(root)
    return root


def read(root: Path, rel: str) -> str:
    return (root / "site" / rel).read_text(encoding="utf-8")


def test_korean_llms_full_reads_korean(project: Path) -> None:
    full = read(project, "ko/llms-full.txt")
    for heading in ("## 연락처", "## 주요 수치", "## 경력", "## 학력", "## 수상", "## 기술 스택"):
        assert f"\n{heading}\n" in full, heading
    assert "- 이메일: real@example.org" in full
    assert "### 인턴 · Gone Corp (인턴십)" in full
    for english in ("## Summary", "## Experience", "## Contact", "(internship)", "- email:"):
        assert english not in full, english
    assert "1234 5678" not in full  # bipub.yaml private_fields: contact.phone


def test_header_line_lists_the_machine_readable_versions(project: Path) -> None:
    lines = read(project, "ko/llms-full.txt").splitlines()
    assert lines[0] == "# 실제 블로그" and lines[2] == "> 같은 날의 글들"
    versions = lines[4]
    assert versions.startswith("기계가 읽을 수 있는 형식: ")
    for url in (
        "https://real.example.org/ko/llms.txt",
        "https://real.example.org/ko/llms-full.txt",
        "https://real.example.org/api/ko/cv.json",
        "https://real.example.org/api/ko/posts.json",
        "https://real.example.org/pdf/cv-ko.pdf",
        "https://real.example.org/pdf/cv-ko-en.pdf",
    ):
        assert f"]({url})" in versions, url
    # the website and the date of the latest content (as the feeds: no clock read)
    assert lines[5] == "웹사이트: https://real.example.org/ko/ · 수정일: 2026-04-08"
    assert read(project, "ko/llms.txt").splitlines()[4:6] == lines[4:6]


def test_summary_paragraphs_are_kept(project: Path) -> None:
    assert "모델을 서빙합니다.\n\n두 번째 문단입니다." in read(project, "ko/llms-full.txt")


def test_llms_full_carries_every_post_in_full(project: Path) -> None:
    full = read(project, "ko/llms-full.txt")
    posts = full.split("\n## 글\n", 1)[1]
    for slug in ("a-morning", "b-afternoon", "c-pinned", "d-yesterday", "e-plain", "f-english"):
        assert f"(https://real.example.org/ko/blog/{slug}/)" in posts, slug
    assert "```markdown\n![코드 안의 그림](/assets/img/in-code.png)\n```" in posts  # the body
    # its images and links resolved as on the page (the file is read away from the site)
    assert "![로고](https://real.example.org/assets/logos/acme.svg)" in posts
    assert "![상대 경로](https://real.example.org/ko/blog/a-morning/figure.png)" in posts
    # the English-only post: its English text, marked as the Korean pages mark it
    english = posts.split("### [An English-only post]", 1)[1]
    assert "**아직 번역되지 않음 (English)**: 이 글은 아직 번역되지 않아 원문으로" in english
    assert "First paragraph of the English post." in english
    # its description escaped as llms.txt escapes it: text, not HTML nor a link of its own
    assert "> Written in English alone, \\<b\\>bold\\</b\\> \\[not a link\\](x)" in english
    # its headings go under the post's own (### title): ## becomes ####; code is left alone
    assert "\n#### Setup\n" in english and "\n# not a heading\n" in english
    # its tag in the spelling the site shows (bipub.yaml tag_spellings: torch.compile)
    assert "태그: torch.compile" in english


def test_english_llms_full_marks_untranslated_korean_posts(project: Path) -> None:
    full = read(project, "en/llms-full.txt")
    morning = full.split("(https://real.example.org/en/blog/a-morning/)", 1)[1]
    assert morning.split("\n### ", 1)[0].count("**Not translated yet (한국어)**") == 1
    assert "## Experience" in full and "- Email: real@example.org" in full


def test_root_copies_follow_a_lang_build(project: Path) -> None:
    post = project / "content/ko/posts/e-plain.md"
    post.write_text(post.read_text(encoding="utf-8").replace("날짜만 있는 글", "새 제목"))
    build(project, "--lang", "ko")
    for name in ("llms.txt", "llms-full.txt"):
        root = read(project, name)
        assert "새 제목" in root, name
        assert root == read(project, f"ko/{name}"), name
    # a build of another language leaves both the default language's copy and the root's
    before = read(project, "llms.txt")
    build(project, "--lang", "en")
    assert read(project, "llms.txt") == before == read(project, "ko/llms.txt")
