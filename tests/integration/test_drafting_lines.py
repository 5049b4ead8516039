# ruff: noqa: F811 - pytest fixtures imported by name
"""What drafting said of a unit names the line of its source file (as `bipub translate` says
it), not a line of the unit's text that reads as a line of some file: in `bipub check`,
`review show`, `review approve`'s refusal. The status record keeps the unit's line (still
right when lines above the unit change)."""

from __future__ import annotations

from pathlib import Path

from tests.deepl_fake import FakeDeepL
from tests.integration.test_translate import (
    Cli,
    _offline,  # noqa: F401
    fake,  # noqa: F401
    make,
    post,
    status,
    translate,
)

KO = "content/ko/posts/p.md"
SOURCE = post(
    "글",
    "서론 문단.\n\n## 둘째\n\n첫 문단이다.\n\n`block_size`를 **세 번** 보자.\n\n"
    "```mermaid\nflowchart LR\n  A[요청 도착] --> B\n```\n",
)


def _line(root: Path, needle: str) -> int:
    lines = (root / KO).read_text(encoding="utf-8").split("\n")
    return next(i for i, text in enumerate(lines, 1) if needle in text)


def test_drafting_findings_name_the_source_files_line(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    root = make(tmp_path / "lines", {KO: SOURCE})
    fake.markup_fault("drop_one_tag", match="세 번")
    result = translate(cli, root, "--to", "en")
    assert result.exit_code == 0, result.stderr
    key = "posts/p:body#1"
    seg = f"segment 2 ({KO}:{_line(root, '세 번')})"
    diagram = f"{KO}:{_line(root, '```mermaid')}: a Mermaid diagram is never sent to DeepL"
    assert f"{key}: markup: {seg}: " in result.stderr, result.stderr
    assert f"{key}: untranslated: {diagram}" in result.stderr, result.stderr
    kept = status(root, "en")[key].findings or []
    assert any(f.startswith("markup: segment 2 (line 5): ") for f in kept), kept  # (the unit's)

    checked = cli("-C", str(root), "check")
    said = checked.stdout + checked.stderr
    assert f"{key}: {seg}: " in said and f"{key}: {diagram}" in said, said
    assert "(line 5)" not in said and "line 7: a Mermaid" not in said

    shown = cli("-C", str(root), "review", "show", key)
    assert f"markup: {seg}: " in shown.stdout and diagram in shown.stdout, shown.stdout

    refused = cli("-C", str(root), "review", "approve", "--reviewer", "r", key)
    assert refused.exit_code == 1, refused.stderr
    assert f"{key}: its drafting said: {seg}: " in refused.stderr, refused.stderr


def test_a_draft_of_an_older_source_says_its_lines_are_of_that_source(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    """The source edited since the draft was made: the lines drafting said are of the source
    the draft was made from, not of the file as it is; said so, not "(line 5)"."""
    root = make(tmp_path / "older", {KO: SOURCE})
    fake.markup_fault("drop_one_tag", match="세 번")
    assert translate(cli, root, "--to", "en").exit_code == 0
    path = root / KO
    path.write_text(
        path.read_text(encoding="utf-8").replace("첫 문단이다.", "첫 문단이다.\n\n끼운 문단."),
        encoding="utf-8",
    )
    checked = cli("-C", str(root), "check")
    said = checked.stdout + checked.stderr
    assert "posts/p:body#1: segment 2 (line 5 of the source it was drafted from): lost" in said, (
        said
    )
    assert "line 7 of the source it was drafted from: a Mermaid diagram" in said, said


def test_a_moved_section_keeps_what_its_drafting_said(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    """A section moved by one inserted before it is drafted with its present translation
    (translate/memory.py): the text is the one whose drafting lost a tag (put back at the end
    of its segment). Its record was made anew without that finding, and check, which cannot
    find a lost tag again, no longer said it. Now the kept text's findings come with it."""
    root = make(
        tmp_path / "moved", {KO: post("글", "서론.\n\n## 둘\n\n`block_size`를 **세 번** 보자.\n")}
    )
    fake.markup_fault("drop_one_tag", match="세 번")
    assert translate(cli, root, "--to", "en").exit_code == 0
    before = status(root, "en")["posts/p:body#1"].findings or []
    lost = [f for f in before if f.startswith("markup: segment 1 (line 3): lost ")]
    assert lost, before
    fake.markup_fault(None)
    path = root / KO
    path.write_text(
        path.read_text(encoding="utf-8").replace("## 둘", "## 새 절\n\n새 문단.\n\n## 둘"),
        encoding="utf-8",
    )
    result = translate(cli, root, "--to", "en")
    assert result.exit_code == 0, result.stderr
    moved = status(root, "en")["posts/p:body#2"]
    assert moved.engine == "memory", moved  # (worded as the present translation: not sent)
    assert lost[0] in (moved.findings or []), moved.findings
    checked = cli("-C", str(root), "check")
    said = checked.stdout + checked.stderr
    line = _line(root, "세 번")
    assert f"posts/p:body#2: segment 1 ({KO}:{line}): lost " in said, said
