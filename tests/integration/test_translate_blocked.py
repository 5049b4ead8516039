# ruff: noqa: F811 - pytest fixtures imported by name
"""A body section appended to an existing translation needs the sections before it: when one of
them is not written (held back as rejected, refused by DeepL, too long), the later section
names that one, where it is and what it needs, not "draft them too"; the later section's
answer is not lost (the run that unblocks it writes it without sending it again), and the exit
status says a unit was not written."""

from __future__ import annotations

from pathlib import Path

import pytest

from bipub.diagnostics import Collector
from bipub.pair.status import load_status
from bipub.translate import deepl_client
from tests.deepl_fake import FakeDeepL
from tests.integration.test_translate import (
    Cli,
    _offline,  # noqa: F401
    fake,  # noqa: F401
    make,
    post,
    sections,
    small,  # noqa: F401
    status,
    translate,
    translate_requests,
)

ALPHA_KO = "content/ko/posts/alpha.md"
ALPHA_EN = "content/en/posts/alpha.md"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def _line_of(root: Path, rel: str, needle: str) -> int:
    lines = (root / rel).read_text(encoding="utf-8").split("\n")
    return next(i for i, line in enumerate(lines, 1) if needle in line)


def test_a_section_after_one_held_back_as_rejected_names_the_rejection(
    cli: Cli, fake: FakeDeepL, small: Path
) -> None:
    """The last two sections' drafts rejected, then the source of the last one edited: the
    one before it is held back (its draft is the rejected text), so the last one cannot be
    appended. It says so, with the held one's key and line and the two remedies."""
    assert translate(cli, small, "--to", "en", "--only", "posts/alpha").exit_code == 0
    for key in ("posts/alpha:body#2", "posts/alpha:body#1"):  # (the last section first)
        rejected = cli("-C", str(small), "review", "reject", "--reviewer", "jiwon", key)
        assert rejected.exit_code == 0, rejected.stderr
    en = small / ALPHA_EN
    assert len(sections(en.read_text(encoding="utf-8"))) == 1
    _edit(small / ALPHA_KO, "- 둘 3.5배", "- 둘 4.5배")

    result = translate(cli, small, "--to", "en", "--only", "posts/alpha")
    assert result.exit_code == 1, result.stderr
    assert "draft them too" not in result.stderr
    line = _line_of(small, ALPHA_KO, "## 둘째")
    assert (
        f"{ALPHA_EN}: error: [en] posts/alpha:body#2: not-written: body section 1 before it "
        f"(posts/alpha:body#1, {ALPHA_KO}:{line}) is held back: its draft is the one rejected on "
    ) in result.stderr, result.stderr
    assert "translate it by hand, or run again with --redraft-rejected" in result.stderr
    assert "run again to retry them" not in result.stderr  # (running again does not help)
    assert "1 unit(s) not written" in result.stderr
    assert len(sections(en.read_text(encoding="utf-8"))) == 1
    assert "posts/alpha:body#2" not in status(small, "en")

    # the later section's answer is kept: the run that unblocks it sends nothing again
    sent = translate_requests(fake)
    forced = translate(cli, small, "--to", "en", "--only", "posts/alpha", "--redraft-rejected")
    assert forced.exit_code == 0, forced.stderr
    assert translate_requests(fake) == sent
    drafted = sections(en.read_text(encoding="utf-8"))
    assert len(drafted) == 3 and "4.5" in drafted[2]
    assert {status(small, "en")[f"posts/alpha:body#{i}"].state for i in (1, 2)} == {"draft"}
    assert "posts/alpha:body#1" in load_status(small, "en", Collector()).rejected  # (remembered)


def test_a_section_after_one_deepl_refused_names_the_refusal(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    """An existing translation with its first section only, two sections added to the source,
    DeepL refusing the first of them: the second says the first was not written and why, and
    a run after the fault writes both."""
    root = make(
        tmp_path / "refused",
        {
            ALPHA_KO: post("글", "서론.\n\n## 거부\n\n거부 문단.\n\n## 다음\n\n다음 문단 2개.\n"),
            ALPHA_EN: "---\ntitle: Post\n---\n\nIntro.\n",
        },
    )
    fake.fail_texts("거부", 400)
    result = translate(cli, root, "--to", "en")
    assert result.exit_code == 1, result.stderr
    assert "draft them too" not in result.stderr
    line = _line_of(root, ALPHA_KO, "## 거부")
    assert (
        f"posts/alpha:body#2: not-written: body section 1 before it (posts/alpha:body#1, "
        f"{ALPHA_KO}:{line}) is not written: segment 0 ({ALPHA_KO}:{line}): DeepL HTTP 400"
    ) in result.stderr, result.stderr
    assert "run again to retry them" in result.stderr  # (a refusal may pass)
    fake.clear_faults()
    again = translate(cli, root, "--to", "en")
    assert again.exit_code == 0, again.stderr
    assert len(sections((root / ALPHA_EN).read_text(encoding="utf-8"))) == 3


def test_a_section_after_one_too_long_names_the_long_one(
    cli: Cli, fake: FakeDeepL, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(deepl_client, "MAX_BYTES", deepl_client.REQUEST_MARGIN + 2048)
    long = "긴 문단이다. " * 200
    root = make(
        tmp_path / "long",
        {
            ALPHA_KO: post("글", f"서론.\n\n## 긴 것\n\n{long}\n\n## 다음\n\n다음 문단.\n"),
            ALPHA_EN: "---\ntitle: Post\n---\n\nIntro.\n",
        },
    )
    result = translate(cli, root, "--to", "en")
    assert result.exit_code == 1, result.stderr
    assert "draft them too" not in result.stderr
    line = _line_of(root, ALPHA_KO, "## 긴 것")
    assert (
        "posts/alpha:body#2: not-written: body section 1 before it (posts/alpha:body#1, "
        f"{ALPHA_KO}:{line}) is not written: segment 1 ({ALPHA_KO}:{line + 2}) is too long for "
        "one DeepL request (1,599 characters); split the paragraph"
    ) in result.stderr, result.stderr
    assert "run again to retry them" not in result.stderr  # (running again does not help)


def test_a_section_after_one_outside_only_says_to_draft_that_one(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    root = make(
        tmp_path / "only",
        {
            ALPHA_KO: post("글", "서론.\n\n## 둘\n\n둘째.\n\n## 셋\n\n셋째.\n"),
            ALPHA_EN: "---\ntitle: Post\n---\n\nIntro.\n",
        },
    )
    result = translate(cli, root, "--to", "en", "--only", "posts/alpha:body#2")
    assert result.exit_code == 1, result.stderr
    assert (
        "posts/alpha:body#2: not-written: body section 1 before it (posts/alpha:body#1, "
        f"{ALPHA_KO}:{_line_of(root, ALPHA_KO, '## 둘')}) is not drafted in this run (outside "
        "--only): draft it too (--only posts/alpha:body#1)"
    ) in result.stderr, result.stderr


def test_a_run_whose_only_unit_is_too_long_exits_1(
    cli: Cli, fake: FakeDeepL, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every unit in scope left out (too long for a request): not "Nothing to draft" with
    exit 0, but the unit named as not written, exit 1."""
    monkeypatch.setattr(deepl_client, "MAX_BYTES", deepl_client.REQUEST_MARGIN + 2048)
    root = make(
        tmp_path / "long-only",
        {
            ALPHA_KO: post("글", f"서론.\n\n## 긴 것\n\n{'긴 문단이다. ' * 200}\n"),
            ALPHA_EN: "---\ntitle: Post\n---\n\nIntro.\n",
        },
    )
    result = translate(cli, root, "--to", "en")
    assert result.exit_code == 1, result.stderr
    assert "Nothing to draft" not in result.stderr
    line = _line_of(root, ALPHA_KO, "## 긴 것") + 2
    assert (
        f"{ALPHA_EN}: error: [en] posts/alpha:body#1: not-written: segment 1 ({ALPHA_KO}:{line}) "
        "is too long for one DeepL request (1,599 characters); split the paragraph"
    ) in result.stderr, result.stderr
    assert "the unit is left out" not in result.stderr  # (said once, as not written)
    assert "1 unit NOT written" in result.stderr
    assert "running again does not write them" in result.stderr
    assert translate_requests(fake) == 0


def test_approving_a_stand_in_for_a_rejected_draft_does_not_advise_drafting_it_again(
    cli: Cli, fake: FakeDeepL, small: Path
) -> None:
    """The source text stands in for a rejected draft in a new file: approve refuses it, and
    its advice is not "draft it again with bipub translate" (that run holds the same draft
    back again) but the hand translation or --redraft-rejected."""
    assert translate(cli, small, "--to", "en", "--only", "posts/alpha").exit_code == 0
    assert cli("-C", str(small), "review", "reject", "posts/alpha").exit_code == 0
    _edit(small / ALPHA_KO, "- 둘 3.5배", "- 둘 4.5배")
    assert translate(cli, small, "--to", "en", "--only", "posts/alpha").exit_code == 0
    refused = cli("-C", str(small), "review", "approve", "--reviewer", "r", "posts/alpha:title")
    assert refused.exit_code == 1, refused.stderr
    assert "draft it again with bipub translate" not in refused.stderr, refused.stderr
    assert (
        "posts/alpha:title: its text is the ko source standing in for a translation (its draft "
        "was rejected), not a translation to approve; translate it by hand (then approve it), or "
        "bipub translate --redraft-rejected writes the rejected draft again"
    ) in refused.stderr, refused.stderr


def test_an_only_that_matches_no_unit_is_a_usage_error(
    cli: Cli, fake: FakeDeepL, small: Path
) -> None:
    """`--only posts/alhpa` (a typo) drafted nothing and said "Nothing to draft", exit 0: now
    exit 2, naming the pattern and what it was likely meant for; nothing sent."""
    result = translate(cli, small, "--to", "en", "--only", "posts/alhpa")
    assert result.exit_code == 2, result.stderr
    assert (
        "--only posts/alhpa: no unit of the site translated into en matches (did you mean "
        "posts/alpha?)"
    ) in result.stderr, result.stderr
    assert "Nothing to draft" not in result.stderr
    assert translate_requests(fake) == 0
    # a pattern that matches units with nothing to draft is still "Nothing to draft", exit 0
    assert translate(cli, small, "--to", "en", "--only", "posts/alpha").exit_code == 0
    again = translate(cli, small, "--to", "en", "--only", "content/ko/posts/alpha.md")
    assert again.exit_code == 0 and "Nothing to draft for en." in again.stderr, again.stderr


def test_a_new_file_with_a_unit_too_long_names_that_unit(
    cli: Cli, fake: FakeDeepL, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A post with no translation yet, one section too long for a request: the new file needs
    every unit, so none is written; each says which unit it waits for and why (not only "a new
    translation needs every unit of the source")."""
    monkeypatch.setattr(deepl_client, "MAX_BYTES", deepl_client.REQUEST_MARGIN + 2048)
    root = make(
        tmp_path / "new-long",
        {ALPHA_KO: post("글", f"서론.\n\n## 긴 것\n\n{'긴 문단이다. ' * 200}\n")},
    )
    result = translate(cli, root, "--to", "en")
    assert result.exit_code == 1, result.stderr
    line = _line_of(root, ALPHA_KO, "## 긴 것")
    assert (
        f"posts/alpha:title: not-written: a new translation needs every unit of the source: "
        f"posts/alpha:body#1 ({ALPHA_KO}:{line}) is not written: segment 1 ({ALPHA_KO}:"
        f"{line + 2}) is too long for one DeepL request"
    ) in result.stderr, result.stderr
    assert "run again to retry them" not in result.stderr
    assert not (root / ALPHA_EN).exists()
