# ruff: noqa: F811 - pytest fixtures imported by name
"""A section inserted in (or removed from) a reviewed source: until the translation is put back
in step, each later section's translation is the one made from another section (sections pair
by position). `check` says so at the unit, and `review approve` never records that text as the
translation of the section it stands beside (check/moved.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bipub.diagnostics import Collector
from bipub.pair.status import StatusRecord, load_status
from bipub.pair.units import split_sections, text_hash
from tests.conftest import CliResult
from tests.deepl_fake import FakeDeepL
from tests.deepl_fake.corpus import CONFIG
from tests.deepl_fake.fixtures import deepl_env, deepl_fake  # noqa: F401

Cli = Callable[..., CliResult]


KO = """\
---
title: 캐시 이야기
date: 2026-01-01
---

첫 문단입니다.

## 둘째

두 번째 문단입니다.

## 셋째

세 번째 문단입니다.
"""

EN = """\
---
title: A cache story
---

The first paragraph.

## Second

The second paragraph.

## Third

The third paragraph.
"""

KO_PATH = "content/ko/posts/cache.md"
EN_PATH = "content/en/posts/cache.md"


def sections(text: str) -> list[str]:
    return [s.text for s in split_sections(text.split("---\n", 2)[2], 1)]


def records(root: Path) -> dict[str, StatusRecord]:
    collector = Collector()
    found = load_status(root, "en", collector).records
    assert not collector.items
    return found


@pytest.fixture
def fake(deepl_env: FakeDeepL) -> FakeDeepL:
    return deepl_env


@pytest.fixture
def root(tmp_path: Path, cli: Cli) -> Path:
    """A post whose three sections are reviewed."""
    for rel, text in {"bipub.yaml": CONFIG, KO_PATH: KO, EN_PATH: EN}.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    done = cli("-C", str(tmp_path), "review", "approve", "--reviewer", "jiwon", "posts/cache")
    assert done.exit_code == 0, done.stderr
    assert all(r.state == "reviewed" for r in records(tmp_path).values())
    return tmp_path


def insert_section(root: Path) -> None:
    """A new section before `## 둘째`: 둘째 moves to body#2, 셋째 to body#3."""
    path = root / KO_PATH
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("## 둘째", "## 새 절\n\n새 문단입니다.\n\n## 둘째"), "utf-8")


def approve(cli: Cli, root: Path, *args: str) -> CliResult:
    return cli("-C", str(root), "review", "approve", "--reviewer", "mina", *args)


def test_check_says_whose_translation_a_moved_section_is(root: Path, cli: Cli) -> None:
    """It said `the source changed since this was translated`, with a diff from `## 셋째` to
    `## 둘째`: as if the section had been rewritten, when its translation is another's."""
    insert_section(root)
    result = cli("-C", str(root), "check")
    assert result.exit_code == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert (
        "stale [en] posts/cache:body#2: this en text is the reviewed translation of the ko "
        "section now at posts/cache:body#3, not of this one (a section was inserted before it in "
        "the ko source; sections pair by position): run bipub translate" in out
    )
    assert (
        "posts/cache:body#1: this en text is the reviewed translation of the ko section now "
        "at posts/cache:body#2" in out
    )
    assert "(as translated)" not in result.stdout  # no diff between two different sections


def test_keep_current_never_records_a_moved_translation_for_the_section_beside_it(
    root: Path, cli: Cli
) -> None:
    """`approve --keep-current posts/cache:body#2` recorded `## Third …` as the reviewed
    translation of `## 둘째 …` (exit status 0): the record then said reviewed for a text that
    translates another section, and the coverage counted it."""
    insert_section(root)
    before = (root / "status/en.yaml").read_bytes()
    for key in ("posts/cache:body#2", "posts/cache:body#1"):
        result = approve(cli, root, "--keep-current", key)
        assert result.exit_code == 1, result.stdout
        assert (
            f"content/en/posts/cache.md:{7 if key.endswith('1') else 11}: {key}: this en text is "
            "the reviewed translation of the ko section now at" in result.stderr
        )
        assert "approving it would record it as the translation of another section" in (
            " ".join(result.stderr.split())
        )
        assert (root / "status/en.yaml").read_bytes() == before
        forced = approve(cli, root, "--keep-current", "--force", key)
        assert forced.exit_code == 1 and (root / "status/en.yaml").read_bytes() == before
    # approving a whole file or language skips them and says why; nothing is recorded for them
    result = approve(cli, root, "--keep-current", "--all", "--lang", "en")
    assert result.exit_code == 0, result.stderr
    assert "skipped posts/cache:body#1 [en]: this en text is the reviewed translation" in (
        result.stdout
    )
    assert "skipped posts/cache:body#2 [en]" in result.stdout
    assert (root / "status/en.yaml").read_bytes() == before


def test_a_section_removed_before_it_is_said_too(root: Path, cli: Cli) -> None:
    for rel, more in (
        (KO_PATH, "\n## 넷째\n\n네 번째 문단입니다.\n"),
        (EN_PATH, "\n## Fourth\n\nFourth.\n"),
    ):
        path = root / rel
        path.write_text(path.read_text(encoding="utf-8") + more, "utf-8")
    assert approve(cli, root, "posts/cache:body#3").exit_code == 0
    path = root / KO_PATH
    path.write_text(
        path.read_text(encoding="utf-8").replace("## 둘째\n\n두 번째 문단입니다.\n\n", "")
    )
    out = " ".join(cli("-C", str(root), "check").stdout.split())
    assert (
        "posts/cache:body#2: this en text is the reviewed translation of the ko section now at "
        "posts/cache:body#1, not of this one (a section before it was removed from the ko "
        "source; sections pair by position)" in out
    )
    # body#1's recorded source (둘째) is gone: an ordinary stale unit, its diff shown
    assert "posts/cache:body#1: the source changed since this was translated" in out
    before = (root / "status/en.yaml").read_bytes()
    result = approve(cli, root, "--keep-current", "posts/cache:body#2")
    assert result.exit_code == 1 and (root / "status/en.yaml").read_bytes() == before


def test_an_edited_translation_is_approved_as_the_reviewers_text(root: Path, cli: Cli) -> None:
    """Only the text recorded for another section is refused: a translation edited since is the
    reviewer's own for this section."""
    insert_section(root)
    path = root / EN_PATH
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("## Second", "## New section\n\nA new paragraph.\n\n## Second"))
    result = approve(cli, root, "posts/cache:body#1", "posts/cache:body#2", "posts/cache:body#3")
    assert result.exit_code == 0, result.stderr
    recs = records(root)
    assert recs["posts/cache:body#1"].origin == "human"
    # body#2 and #3 now hold the translations of the sections beside them again (not moved)
    check = cli("-C", str(root), "check")
    assert "0 errors, 0 warnings" in check.stdout


def test_after_translate_the_waiting_drafts_are_adopted_and_keep_current_refused(
    root: Path, cli: Cli, fake: FakeDeepL
) -> None:
    """`bipub translate` gives the moved sections their reviewed wording as waiting drafts;
    until they are adopted, `--keep-current` would have recorded `## Second …` as the reviewed
    translation of the new section (body#1, whose waiting draft is DeepL's)."""
    insert_section(root)
    done = cli("-C", str(root), "translate", "--to", "en")
    assert done.exit_code == 0, done.stderr
    recs = records(root)
    assert recs["posts/cache:body#2"].draft == sections(EN)[1]
    check = " ".join(cli("-C", str(root), "check").stdout.split())
    assert (
        "posts/cache:body#1: this en text is the reviewed translation of the ko section now at "
        "posts/cache:body#2, not of this one (a section was inserted before it in the ko source; "
        "sections pair by position): adopt the waiting drafts (bipub review approve "
        "posts/cache:body#1 and the sections after it) to put the sections back in step" in check
    )
    before = (root / "status/en.yaml").read_bytes()
    refused = approve(cli, root, "--keep-current", "posts/cache:body#1")
    assert refused.exit_code == 1
    assert "approve it without --keep-current to adopt its waiting draft" in " ".join(
        refused.stderr.split()
    )
    assert (root / "status/en.yaml").read_bytes() == before
    # adopting puts the sections back in step: each reviewed for the section it translates
    adopted = approve(cli, root, "posts/cache:body#1", "posts/cache:body#2", "posts/cache:body#3")
    assert adopted.exit_code == 0, adopted.stderr
    en = sections((root / EN_PATH).read_text(encoding="utf-8"))
    ko = sections((root / KO_PATH).read_text(encoding="utf-8"))
    assert en[2:] == sections(EN)[1:]
    recs = records(root)
    for i in range(len(ko)):
        rec = recs[f"posts/cache:body#{i}"]
        assert rec.source_hash == text_hash(ko[i]) and rec.translation_hash == text_hash(en[i])
    after = cli("-C", str(root), "check")
    assert "0 errors, 0 warnings" in after.stdout


def test_review_i_words_the_refusal_for_its_prompt(root: Path, cli: Cli, fake: FakeDeepL) -> None:
    """At `bipub review -i` a waiting draft is adopted by the `[a]dopt` choice: the refusal of
    `[k]eep current` for a moved section said `approve it without --keep-current`, a flag the
    prompt has not."""
    from click.testing import CliRunner

    from bipub.cli import main

    insert_section(root)
    assert cli("-C", str(root), "translate", "--to", "en").exit_code == 0
    before = (root / "status/en.yaml").read_bytes()
    args = ["-C", str(root), "review", "-i", "--reviewer", "mina"]
    result = CliRunner().invoke(main, args, input="k\nq\n", catch_exceptions=False)
    said = " ".join(result.stderr.split())
    assert "posts/cache:body#1" in said
    assert (
        "choose [a]dopt the draft (not [k]eep current) to adopt its waiting draft, and adopt "
        "those of the sections after it, to put the sections back in step" in said
    )
    assert "--keep-current" not in said
    assert (root / "status/en.yaml").read_bytes() == before
