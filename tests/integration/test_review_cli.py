"""`bipub review`: list, show, approve, reject, prune and the interactive queue."""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bipub.cli import main
from bipub.diagnostics import Collector
from bipub.pair.status import StatusRecord, dump_status, load_status
from bipub.pair.units import split_sections, text_hash

CONFIG = """\
languages:
  - {code: ko, name: 한국어, title: 테스트}
  - {code: en, name: English, title: Test}
default_language: ko
base_url: https://t.example.org/
author: {name: T}
"""

KO = """\
---
title: 캐시 이야기
date: 2026-01-01
---

처리량은 157 → 382 tokens/s가 됐습니다. `block_size`를 보세요.

## 둘째

두 번째 문단입니다.
"""

EN = """\
---
title: A cache story
---

Throughput went to 157 → 382 tokens/s. See `block_size`.

## Second

The second paragraph.
"""

KO_B = "---\ntitle: 짧은 글\ndate: 2026-02-01\n---\n\n짧은 본문입니다.\n"
EN_B = "---\ntitle: A short post\n---\n\nA short body.\n"


def body(text: str, index: int) -> str:
    return split_sections(text.split("---\n", 2)[2], 1)[index].text


def draft(source: str, translation: str) -> StatusRecord:
    return StatusRecord(
        source_hash=text_hash(source),
        source=source,
        origin="machine",
        engine="deepl",
        state="draft",
        translation_hash=text_hash(translation),
    )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    files = {
        "bipub.yaml": CONFIG,
        "content/ko/posts/cache.md": KO,
        "content/en/posts/cache.md": EN,
        "content/ko/posts/short.md": KO_B,
        "content/en/posts/short.md": EN_B,
        "status/en.yaml": dump_status({"posts/short:body#0": draft(body(KO_B, 0), body(EN_B, 0))}),
    }
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def records(root: Path, lang: str = "en") -> dict[str, StatusRecord]:
    collector = Collector()
    status = load_status(root, lang, collector)
    assert not collector.items
    return status.records


def run(root: Path, *args: str, input: str | None = None, env: dict[str, str] | None = None) -> Any:
    result = CliRunner().invoke(
        main, ["-C", str(root), *args], input=input, env=env, catch_exceptions=False
    )
    return result


def test_list_shows_drafts_and_stale_units(root: Path, cli: Callable[..., Any]) -> None:
    result = cli("-C", str(root), "review")
    assert result.exit_code == 0
    assert "en: 1 unit to review" in result.stdout
    assert (
        "draft" in result.stdout
        and "posts/short:body#0  content/en/posts/short.md:5" in result.stdout
    )
    assert cli("-C", str(root), "review", "list", "--lang", "ko").stdout == "Nothing to review.\n"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--reviewer", "jiwon", "approve", "posts/short:body#0"], "--reviewer before 'approve'"),
        (["--lang", "ko", "reject", "posts/short:body#0"], "--lang before 'reject'"),
        (["--human", "--lang", "en", "list"], "--lang, --human before 'list'"),
        (["-i", "show", "posts/short:body#0"], "-i walks the review queue"),
    ],
)
def test_queue_options_before_a_subcommand_are_refused(
    root: Path, cli: Callable[..., Any], args: list[str], said: str
) -> None:
    # they were dropped without a word: the review recorded git's user.name, not jiwon, and
    # `review --lang ko reject` rejected the English draft
    status_before = (root / "status/en.yaml").read_bytes()
    result = cli("-C", str(root), "review", *args)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert said in result.stderr
    assert (root / "status/en.yaml").read_bytes() == status_before


def test_approve_a_draft_clears_its_finding(root: Path, cli: Callable[..., Any]) -> None:
    before = cli("-C", str(root), "check", "--format", "json").stdout
    assert '"code": "draft"' in before
    result = cli("-C", str(root), "review", "approve", "posts/short:body#0", "--reviewer", "jiwon")
    assert result.exit_code == 0, result.stderr
    assert "Approved 1 unit as jiwon on 2027-01-01" in result.stderr
    rec = records(root)["posts/short:body#0"]
    assert (rec.state, rec.origin, rec.engine, rec.reviewer) == (
        "reviewed",
        "machine",
        "deepl",
        "jiwon",
    )
    assert rec.reviewed is not None and rec.reviewed.isoformat() == "2027-01-01"
    assert rec.translation_hash == text_hash(body(EN_B, 0))
    assert '"code": "draft"' not in cli("-C", str(root), "check", "--format", "json").stdout
    assert cli("-C", str(root), "review").stdout == (
        "Nothing to review. 4 translations written by hand have no review record "
        "(bipub review --human lists them).\n"
    )


def test_approve_a_human_translation_records_every_field(
    root: Path, cli: Callable[..., Any]
) -> None:
    result = cli("-C", str(root), "review", "approve", "posts/cache", "--reviewer", "jiwon")
    assert result.exit_code == 0, result.stderr
    recs = records(root)
    assert sorted(k for k in recs if k.startswith("posts/cache")) == [
        "posts/cache:body#0",
        "posts/cache:body#1",
        "posts/cache:title",
    ]
    rec = recs["posts/cache:body#1"]
    assert rec.source == body(KO, 1)
    assert rec.source_hash == text_hash(body(KO, 1))
    assert (rec.origin, rec.state, rec.reviewer) == ("human", "reviewed", "jiwon")
    assert rec.translation_hash == text_hash(body(EN, 1))
    text = (root / "status/en.yaml").read_text(encoding="utf-8")
    # deterministic: approving again writes the same bytes
    assert (
        cli("-C", str(root), "review", "approve", "posts/cache", "--reviewer", "jiwon").exit_code
        == 0
    )
    assert (root / "status/en.yaml").read_text(encoding="utf-8") == text
    assert text == dump_status(recs)
    assert not list((root / "status").glob("*.tmp")) and not list((root / "status").glob(".*.tmp"))


def test_approve_refuses_qa_errors_unless_forced(root: Path, cli: Callable[..., Any]) -> None:
    (root / "content/en/posts/cache.md").write_text(EN.replace("382", "328"), encoding="utf-8")
    before = (root / "status/en.yaml").read_bytes()
    result = cli("-C", str(root), "review", "approve", "posts/cache:body#0", "--reviewer", "r")
    assert result.exit_code == 1
    assert "content/en/posts/cache.md:5: posts/cache:body#0: numbers differ" in result.stderr
    assert (root / "status/en.yaml").read_bytes() == before
    forced = cli(
        "-C", str(root), "review", "approve", "posts/cache:body#0", "--reviewer", "r", "--force"
    )
    assert forced.exit_code == 0
    assert "posts/cache:body#0" in records(root)
    # what --force let through is said, as for what drafting said
    said = forced.stdout + forced.stderr
    assert "approved posts/cache:body#0 [en] with QA errors (--force): numbers: numbers differ" in (
        said
    ), said


def test_approve_unknown_key_is_an_error(root: Path, cli: Callable[..., Any]) -> None:
    before = (root / "status/en.yaml").read_bytes()
    result = cli("-C", str(root), "review", "approve", "posts/nope:title", "--reviewer", "r")
    assert result.exit_code == 1
    assert "unknown unit key 'posts/nope:title'" in result.stderr
    assert (root / "status/en.yaml").read_bytes() == before


@pytest.mark.parametrize(
    ("given", "said"),
    [
        # a file where a key goes: its key and --file are named
        (
            "content/en/posts/cache.md",
            "that is a file; use --file content/en/posts/cache.md or its key posts/cache",
        ),
        ("cache.md", "that is a file; use --file cache.md or its key posts/cache"),
        # a mistyped key: the closest keys
        ("posts/cahce:title", "did you mean posts/cache:title"),
        ("posts/cache:body#7", "did you mean posts/cache:body#0"),
        # nothing close
        ("zzzz", "(bipub review list shows the keys)"),
    ],
)
def test_an_unknown_key_says_what_was_probably_meant(
    root: Path, cli: Callable[..., Any], given: str, said: str
) -> None:
    before = (root / "status/en.yaml").read_bytes()
    result = cli("-C", str(root), "review", "approve", given, "--reviewer", "r")
    assert result.exit_code == 1
    assert f"unknown unit key {given!r}: {said}" in result.stderr or (
        f"unknown unit key {given!r} {said}" in result.stderr
    )
    assert (root / "status/en.yaml").read_bytes() == before


def test_approve_by_file_and_all(root: Path, cli: Callable[..., Any]) -> None:
    result = cli(
        "-C",
        str(root),
        "review",
        "approve",
        "--file",
        str(root / "content/en/posts/cache.md"),
        "--reviewer",
        "r",
    )
    assert result.exit_code == 0, result.stderr
    assert sum(k.startswith("posts/cache:") for k in records(root)) == 3
    assert cli("-C", str(root), "review", "approve", "--all", "--reviewer", "r").exit_code == 2
    result = cli("-C", str(root), "review", "approve", "--all", "--lang", "en", "--reviewer", "r")
    assert result.exit_code == 0
    assert "Approved 2 units" in result.stderr  # short: title + body#0 (the draft)
    assert all(r.state == "reviewed" for r in records(root).values())


def test_approve_by_file_leaves_units_reviewed_already_as_they_were(
    root: Path, cli: Callable[..., Any]
) -> None:
    """Approving a file is for what waits in it: a unit another reviewer approved, current and
    unchanged, keeps its reviewer and day (it was re-recorded as this reviewer's, today)."""
    post = str(root / "content/en/posts/cache.md")
    first = cli("-C", str(root), "review", "approve", "posts/cache:title", "--reviewer", "jiwon")
    assert first.exit_code == 0, first.stderr
    before = records(root)["posts/cache:title"]
    assert before.reviewer == "jiwon"
    result = cli("-C", str(root), "review", "approve", "--file", post, "--reviewer", "min")
    assert result.exit_code == 0, result.stderr
    out = result.stdout + result.stderr
    assert "Approved 2 units as min" in out, out
    assert "1 unit of the file reviewed already, current and unchanged: left as they were" in out
    after = records(root)
    assert after["posts/cache:title"] == before
    assert {after[k].reviewer for k in after if k.startswith("posts/cache:body")} == {"min"}
    again = cli("-C", str(root), "review", "approve", "--file", post, "--reviewer", "min")
    assert again.exit_code == 0 and "Nothing to approve." in again.stdout + again.stderr
    assert records(root) == after
    # a key given by name is approved again: by this reviewer
    named = cli("-C", str(root), "review", "approve", "posts/cache:title", "--reviewer", "min")
    assert named.exit_code == 0 and records(root)["posts/cache:title"].reviewer == "min"


def test_show_prints_source_translation_and_stale_diff(root: Path, cli: Callable[..., Any]) -> None:
    assert (
        cli("-C", str(root), "review", "approve", "posts/cache", "--reviewer", "r").exit_code == 0
    )
    (root / "content/ko/posts/cache.md").write_text(
        KO.replace("두 번째 문단입니다.", "두 번째 문단입니다.\n\n새 문단 42."), encoding="utf-8"
    )
    result = cli("-C", str(root), "review", "show", "posts/cache:body#1")
    assert result.exit_code == 0
    out = result.stdout
    assert "posts/cache:body#1  [en]  stale" in out
    assert "── source (ko)  content/ko/posts/cache.md:8" in out
    assert "The second paragraph." in out
    assert "reviewed by r" in out
    assert "+새 문단 42." in out
    listed = cli("-C", str(root), "review").stdout
    assert "en: 2 units to review" in listed
    assert "stale        posts/cache:body#1  content/en/posts/cache.md:7" in listed
    assert cli("-C", str(root), "review", "show", "posts/zzz").exit_code == 1


def test_reject_removes_the_drafted_text_from_the_file(root: Path, cli: Callable[..., Any]) -> None:
    result = cli("-C", str(root), "review", "reject", "posts/short:body#0")
    assert result.exit_code == 0, result.stderr
    assert "posts/short:body#0" not in records(root)
    assert "Rejected 1 draft (1 removed from the content files)" in result.stderr
    # the draft's text is gone with its record: the unit is missing again
    assert (root / "content/en/posts/short.md").read_text(encoding="utf-8") == (
        "---\ntitle: A short post\n---\n"
    )
    again = cli("-C", str(root), "review", "reject", "posts/cache:title")
    assert again.exit_code == 1 and "not a draft" in again.stderr


def test_reject_remembers_the_rejected_text_for_its_source(
    root: Path, cli: Callable[..., Any]
) -> None:
    """What `bipub translate` needs not to bring the text back (translate/rejected.py): the
    rejected text's hash, its source's, who and when; kept after the unit's record is gone,
    and kept by the status file's later rewrites."""
    env = {"SOURCE_DATE_EPOCH": "1796342400"}  # 2026-12-04
    result = run(root, "review", "reject", "--reviewer", "jiwon", "posts/short:body#0", env=env)
    assert result.exit_code == 0, result.output
    status = load_status(root, "en", Collector())
    assert "posts/short:body#0" not in status.records
    [rejection] = status.rejected["posts/short:body#0"]
    assert rejection.source_hash == text_hash(body(KO_B, 0))
    assert rejection.drafts == [text_hash(body(EN_B, 0))]
    assert (rejection.reviewer, str(rejection.date)) == ("jiwon", "2026-12-04")
    approved = cli("-C", str(root), "review", "approve", "posts/cache:title", "--reviewer", "r")
    assert approved.exit_code == 0, approved.stderr
    assert load_status(root, "en", Collector()).rejected == status.rejected


def test_reject_a_files_drafts(root: Path, cli: Callable[..., Any]) -> None:
    """`reject --file`, as `approve --file`: every machine draft of the file; its other units
    are left alone (cache.md has none: nothing to do, and nothing is said to be wrong)."""
    before = (root / "status/en.yaml").read_bytes()
    cache, short = (str(root / f"content/en/posts/{name}.md") for name in ("cache", "short"))
    nothing = cli("-C", str(root), "review", "reject", "--file", cache)
    assert nothing.exit_code == 0, nothing.stderr
    assert f"Nothing to reject: {cache} has no machine draft." in nothing.stdout
    assert (root / "status/en.yaml").read_bytes() == before
    result = cli("-C", str(root), "review", "reject", "--file", short)
    assert result.exit_code == 0, result.stderr
    assert "Rejected 1 draft (1 removed from the content files)" in result.stderr
    assert "posts/short:body#0" not in records(root)
    assert (root / "content/en/posts/short.md").read_text(encoding="utf-8") == (
        "---\ntitle: A short post\n---\n"
    )
    for args in ((), ("posts/short", "--file", short)):
        usage = cli("-C", str(root), "review", "reject", *args)
        assert usage.exit_code == 2 and "give KEY… or --file PATH (exactly one)" in usage.stderr


def test_reject_a_draft_kept_beside_a_reviewed_translation(
    root: Path, cli: Callable[..., Any]
) -> None:
    assert (
        cli("-C", str(root), "review", "approve", "posts/cache:title", "--reviewer", "r").exit_code
        == 0
    )
    recs = records(root)
    recs["posts/cache:title"] = recs["posts/cache:title"].model_copy(
        update={"draft": "A cache tale"}
    )
    (root / "status/en.yaml").write_text(dump_status(recs), encoding="utf-8")
    assert "posts/cache:title" in cli("-C", str(root), "review").stdout
    assert cli("-C", str(root), "review", "reject", "posts/cache:title").exit_code == 0
    rec = records(root)["posts/cache:title"]
    assert rec.draft is None and rec.state == "reviewed"


def test_prune_removes_records_whose_source_is_gone(root: Path, cli: Callable[..., Any]) -> None:
    assert (
        cli(
            "-C", str(root), "review", "approve", "--all", "--lang", "en", "--reviewer", "r"
        ).exit_code
        == 0
    )
    (root / "content/ko/posts/short.md").unlink()
    (root / "content/en/posts/short.md").unlink()
    result = cli("-C", str(root), "review", "prune")
    assert result.exit_code == 0
    assert "en: removed posts/short:body#0" in result.stdout
    assert not any(k.startswith("posts/short") for k in records(root))
    assert any(k.startswith("posts/cache") for k in records(root))


def test_prune_removes_the_rejections_of_units_that_are_gone(
    root: Path, cli: Callable[..., Any]
) -> None:
    assert cli("-C", str(root), "review", "reject", "posts/short:body#0").exit_code == 0
    assert "posts/short:body#0" in load_status(root, "en", Collector()).rejected
    dry = cli("-C", str(root), "review", "prune", "--dry-run")
    assert "would remove the rejection" not in dry.stdout, dry.stdout
    (root / "content/ko/posts/short.md").unlink()
    (root / "content/en/posts/short.md").unlink()
    dry = cli("-C", str(root), "review", "prune", "--dry-run")
    assert "en: would remove the rejection of posts/short:body#0" in dry.stdout, dry.stdout
    assert "posts/short:body#0" in load_status(root, "en", Collector()).rejected
    done = cli("-C", str(root), "review", "prune")
    assert done.exit_code == 0, done.stderr
    assert "and 1 rejection of units gone → status/en.yaml" in done.stderr, done.stderr
    assert load_status(root, "en", Collector()).rejected == {}


def test_prune_moves_the_records_of_a_renamed_post(root: Path, cli: Callable[..., Any]) -> None:
    """Renaming a post's files gave its units new keys: its reviews read as orphans, its units
    as unreviewed, and prune removed the records — the reviews were lost without a word. Check
    names the new key, prune moves each record there, and the units are reviewed again."""
    approve = ("review", "approve", "--all", "--lang", "en", "--reviewer", "r")
    assert cli("-C", str(root), *approve).exit_code == 0
    before = records(root)
    (root / "content/ko/posts/cache.md").rename(root / "content/ko/posts/kv-cache.md")
    (root / "content/en/posts/cache.md").rename(root / "content/en/posts/kv-cache.md")
    # the source of the second section was edited with the rename: stale, as it would be
    ko = root / "content/ko/posts/kv-cache.md"
    ko.write_text(ko.read_text(encoding="utf-8").replace("두 번째", "둘째"), encoding="utf-8")
    check = cli("-C", str(root), "check", "--lang", "en")
    assert (
        "posts/cache:body#0: status record for posts/cache:body#0, whose post or page was "
        "renamed: it is posts/kv-cache:body#0's (bipub review prune moves it there)"
    ) in check.stdout
    status_before = (root / "status/en.yaml").read_bytes()
    dry = cli("-C", str(root), "review", "prune", "--dry-run")
    assert dry.exit_code == 0, dry.stderr
    assert "en: would move posts/cache:title → posts/kv-cache:title (renamed)" in dry.stdout
    assert "Would prune 0 records, move 3 of renamed posts or pages" in dry.stderr
    assert (root / "status/en.yaml").read_bytes() == status_before
    result = cli("-C", str(root), "review", "prune")
    assert result.exit_code == 0, result.stderr
    assert "en: moved posts/cache:title → posts/kv-cache:title (renamed)" in result.stdout
    assert "moved 3 of renamed posts or pages" in result.stderr
    after = records(root)
    assert not any(k.startswith("posts/cache:") for k in after)
    for part in ("title", "body#0", "body#1"):
        assert after[f"posts/kv-cache:{part}"] == before[f"posts/cache:{part}"]
    assert after["posts/short:body#0"] == before["posts/short:body#0"]
    listed = cli("-C", str(root), "check", "--lang", "en").stdout
    assert "orphan" not in listed
    assert "stale  [en] posts/kv-cache:body#1" in listed  # the edited section, stale as it is
    assert "posts/kv-cache:title" not in listed  # reviewed, as before the rename


def test_prune_moves_nothing_to_a_post_that_is_not_the_same(
    root: Path, cli: Callable[..., Any]
) -> None:
    """A post deleted while another with other texts was added: nothing is moved."""
    approve = ("review", "approve", "--all", "--lang", "en", "--reviewer", "r")
    assert cli("-C", str(root), *approve).exit_code == 0
    for lang in ("ko", "en"):
        (root / f"content/{lang}/posts/short.md").unlink()
    (root / "content/ko/posts/other.md").write_text(
        KO_B.replace("짧은 본문입니다.", "다른 본문입니다.").replace("짧은 글", "다른 글"),
        encoding="utf-8",
    )
    (root / "content/en/posts/other.md").write_text(
        EN_B.replace("A short body.", "Another body.").replace("A short", "Another"),
        encoding="utf-8",
    )
    result = cli("-C", str(root), "review", "prune")
    assert result.exit_code == 0, result.stderr
    assert "(renamed)" not in result.stdout and "en: removed posts/short:title" in result.stdout
    assert not any(k.startswith(("posts/short:", "posts/other:")) for k in records(root))


@pytest.mark.parametrize(
    ("rel", "old", "new"),
    [
        ("content/ko/posts/short.md", "title: 짧은 글", 'title: "짧은 글'),  # a quote left open
        ("content/ko/posts/short.md", "date: 2026-02-01", "date: 01.02.2026"),
        ("content/en/posts/short.md", "title: A short post", "title: [A short post"),
    ],
)
def test_prune_removes_nothing_while_a_content_file_does_not_load(
    root: Path, cli: Callable[..., Any], rel: str, old: str, new: str
) -> None:
    """A post whose front matter does not load has no units: its records must not be read as
    orphans and pruned (that lost every review record of the post, exit status 0)."""
    approve = ("review", "approve", "--all", "--lang", "en", "--reviewer", "r")
    assert cli("-C", str(root), *approve).exit_code == 0
    before = (root / "status/en.yaml").read_text(encoding="utf-8")
    assert "posts/short:body#0" in before
    path = root / rel
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    result = cli("-C", str(root), "review", "prune")
    assert result.exit_code == 1
    assert f"{rel}:" in result.stderr
    assert "nothing pruned" in result.stderr
    assert (root / "status/en.yaml").read_text(encoding="utf-8") == before


def test_a_corrupt_status_file_is_never_rewritten(root: Path, cli: Callable[..., Any]) -> None:
    bad = (
        (root / "status/en.yaml")
        .read_text(encoding="utf-8")
        .replace("state: draft", "state: drfat")
    )
    (root / "status/en.yaml").write_text(bad, encoding="utf-8")
    for args in (("approve", "posts/cache:title"), ("reject", "posts/short:body#0"), ("prune",)):
        result = cli(
            "-C", str(root), "review", *args, *(("--reviewer", "r") if args[0] == "approve" else ())
        )
        assert result.exit_code == 1, args
        assert "status/en.yaml:" in result.stderr
        assert (root / "status/en.yaml").read_text(encoding="utf-8") == bad


def test_nfd_status_keys_are_read_as_their_nfc_twins(root: Path, cli: Callable[..., Any]) -> None:
    (root / "content/ko/posts/카페.md").write_text(KO_B, encoding="utf-8")
    (root / "content/en/posts/카페.md").write_text(EN_B, encoding="utf-8")
    nfd = unicodedata.normalize("NFD", "posts/카페:title")
    text = (root / "status/en.yaml").read_text(encoding="utf-8") + dump_status(
        {nfd: draft("짧은 글", "A short post")}
    ).split("\n", 1)[1]
    (root / "status/en.yaml").write_text(text, encoding="utf-8")
    assert "posts/카페:title" in cli("-C", str(root), "review").stdout
    result = cli(
        "-C",
        str(root),
        "review",
        "approve",
        unicodedata.normalize("NFD", "posts/카페:title"),
        "--reviewer",
        "r",
    )
    assert result.exit_code == 0, result.stderr
    assert records(root)["posts/카페:title"].state == "reviewed"


# --------------------------------------------------------------------------- interactive


def test_interactive_queue_approve_skip_reject(root: Path) -> None:
    recs = records(root)
    recs["posts/cache:title"] = draft("캐시 이야기", "A cache story")
    (root / "status/en.yaml").write_text(dump_status(recs), encoding="utf-8")
    result = run(root, "review", "-i", "--reviewer", "min", input="a\nr\n")
    assert result.exit_code == 0, result.output
    assert "[1/2]" in result.output and "[2/2]" in result.output
    assert "Approved 1, rejected 1, skipped 0." in result.output
    after = records(root)
    assert (
        after["posts/cache:title"].state == "reviewed"
        and after["posts/cache:title"].reviewer == "min"
    )
    assert "posts/short:body#0" not in after


def test_interactive_edit_then_approve(root: Path, tmp_path: Path) -> None:
    (root / "content/en/posts/short.md").write_text(
        EN_B.replace("A short body.", "A short body 7."), encoding="utf-8"
    )
    recs = {"posts/short:body#0": draft(body(KO_B, 0), "A short body 7.")}
    (root / "status/en.yaml").write_text(dump_status(recs), encoding="utf-8")
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import sys, pathlib\np = pathlib.Path(sys.argv[1])\n"
        "p.write_text(p.read_text(encoding='utf-8').replace('A short body 7.', 'A short body.'), encoding='utf-8')\n",
        encoding="utf-8",
    )
    # approve is refused at first (a number was added), then the unit is edited and approved
    result = run(
        root,
        "review",
        "-i",
        "--reviewer",
        "min",
        input="a\nn\ne\na\n",
        env={"EDITOR": f"{sys.executable} {editor}"},
    )
    assert result.exit_code == 0, result.output
    assert "numbers differ" in result.output
    assert "Approved 1, rejected 0, skipped 0." in result.output
    rec = records(root)["posts/short:body#0"]
    assert rec.state == "reviewed" and rec.translation_hash == text_hash("A short body.")


def test_interactive_refusals_name_the_prompts_choices(root: Path, cli: Callable[..., Any]) -> None:
    """Refusing `[a]pprove` at `review -i`, it said `approve --keep-current`, a flag its
    prompt has not: the way out is its `[k]eep current` choice."""
    (root / "status/en.yaml").write_text(dump_status({}), encoding="utf-8")
    done = cli("-C", str(root), "review", "approve", "--reviewer", "min", "posts/cache")
    assert done.exit_code == 0, done.stderr
    path = root / "content/ko/posts/cache.md"
    path.write_text(KO.replace("두 번째 문단입니다.", "두 번째 문단을 고쳤습니다."), "utf-8")
    before = (root / "status/en.yaml").read_bytes()
    result = run(root, "review", "-i", "--reviewer", "min", input="a\nq\n")
    said = " ".join(result.output.split())
    assert (
        "posts/cache:body#1: the source changed since this translation was made and the "
        "translation has not changed; edit it, run bipub translate for a new draft, or choose "
        "[k]eep current if it still fits the new source" in said
    )
    assert "--keep-current" not in said
    assert (root / "status/en.yaml").read_bytes() == before


def test_interactive_skip_and_quit(root: Path) -> None:
    before = (root / "status/en.yaml").read_bytes()
    result = run(root, "review", "-i", "--reviewer", "min", input="s\n")
    assert result.exit_code == 0
    assert "Approved 0, rejected 0, skipped 1." in result.output
    result = run(root, "review", "-i", "--reviewer", "min", input="q\n")
    assert "Approved 0, rejected 0, skipped 0." in result.output
    assert (root / "status/en.yaml").read_bytes() == before


def test_list_marks_the_drafts_that_carry_findings(root: Path, cli: Callable[..., Any]) -> None:
    """Among many drafts, the one whose number changed is marked in the list itself, not only
    by `review show` (user21: ten drafts with lost links looked like the other 590)."""
    wrong = EN.replace("382", "383")
    (root / "content/en/posts/cache.md").write_text(wrong, encoding="utf-8")
    status = {
        "posts/short:body#0": draft(body(KO_B, 0), body(EN_B, 0)),
        "posts/cache:body#0": draft(body(KO, 0), body(wrong, 0)),
    }
    (root / "status/en.yaml").write_text(dump_status(status), encoding="utf-8")
    out = cli("-C", str(root), "review").stdout
    lines = {line.split()[1]: line for line in out.splitlines() if line.startswith("  ")}
    assert lines["posts/cache:body#0"].endswith("[numbers]"), out
    assert "[" not in lines["posts/short:body#0"], out
    assert "1 of them with findings [in brackets]" in out


def test_a_corrupt_status_file_is_said_by_list_show_and_the_queue(
    root: Path, cli: Callable[..., Any]
) -> None:
    """A status record that does not load: the queue would show its machine draft as a
    translation written by hand (no record), and exit 0. list, show and -i say the error at
    its file, line and key instead, and exit 1; a language whose file is sound still lists."""
    path = root / "status/en.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("state: draft", "state: drfat"), encoding="utf-8"
    )
    line = next(
        i
        for i, text in enumerate(path.read_text(encoding="utf-8").split("\n"), 1)
        if "drfat" in text
    )
    for args in (
        ("list",),
        (),
        ("show", "posts/short:body#0"),
        ("-i", "--reviewer", "r"),
        ("approve", "posts/cache:title", "--reviewer", "r"),
    ):
        result = run(root, "review", *args, input="a\n")
        assert result.exit_code == 1, (args, result.output)
        assert f"status/en.yaml:{line}: posts/short:body#0: state: " in result.stderr, args
        assert "written by hand" not in result.stdout and "Approved" not in result.stdout, args
    assert cli("-C", str(root), "review", "list", "--lang", "ko").exit_code == 0


def test_a_file_that_does_not_exist_is_said_to_be_none(root: Path, cli: Callable[..., Any]) -> None:
    """`--file` naming no file (a typo): not "no translatable units in" it, as if it were
    there."""
    for verb in ("approve", "reject"):
        result = cli(
            "-C", str(root), "review", verb, "--file", str(root / "content/en/posts/cahce.md"),
            *(("--reviewer", "r") if verb == "approve" else ()),
        )  # fmt: skip
        assert result.exit_code == 1, result.stderr
        assert "content/en/posts/cahce.md: no such file" in result.stderr, result.stderr


def test_interactive_queue_ended_by_the_input_says_what_was_saved(root: Path) -> None:
    """The input ends (or Ctrl-C) after a decision: the decision is saved, and said with the
    counts; exit 1 (before: `Aborted!` only)."""
    recs = records(root)
    recs["posts/cache:title"] = draft("캐시 이야기", "A cache story")
    (root / "status/en.yaml").write_text(dump_status(recs), encoding="utf-8")
    result = run(root, "review", "-i", "--reviewer", "min", input="a\n")
    assert result.exit_code == 1, result.output
    assert "Stopped. Approved 1, rejected 0, skipped 0 (each decision was saved" in result.stderr
    assert records(root)["posts/cache:title"].state == "reviewed"
