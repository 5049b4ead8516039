# ruff: noqa: F811 - pytest fixtures imported by name
"""A unit held back as rejected costs nothing on a run that will not write it: its cached
answer (one that failed its checks, so not served as a draft) is the rejected draft, and
asking DeepL again would be billed for the same answer, held back again."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.deepl_fake import FakeDeepL
from tests.integration.test_translate import (
    Cli,
    _offline,  # noqa: F401
    fake,  # noqa: F401
    small,  # noqa: F401
    translate,
    translate_requests,
)

KEY = "posts/alpha:body#1"


def test_a_held_back_unit_whose_cached_answer_failed_is_not_sent_again(
    cli: Cli, fake: FakeDeepL, small: Path
) -> None:
    fake.markup_fault("drop_one_tag", match="문서")  # (the same answer every time, as DeepL)
    first = translate(cli, small, "--to", "en", "--only", "posts/alpha")
    assert first.exit_code == 0, first.stderr
    assert "markup" in first.stderr
    for key in ("posts/alpha:body#2", KEY):  # (the last section first: they pair by position)
        rejected = cli("-C", str(small), "review", "reject", "--reviewer", "jiwon", key)
        assert rejected.exit_code == 0, rejected.stderr

    dry = translate(cli, small, "--to", "en", "--only", "posts/alpha", "--dry-run")
    assert dry.exit_code == 0, dry.stderr
    assert "total: 2 units, 0 characters to send" in dry.stdout, dry.stdout
    assert "rejected: 1 unit held back without a request: the cache holds the answer" in dry.stdout
    for _ in range(2):  # (every run, not only the first after the rejection)
        sent, billed = translate_requests(fake), fake.billed_chars
        again = translate(cli, small, "--to", "en", "--only", "posts/alpha")
        assert again.exit_code == 0, again.stderr
        assert f"{KEY}: rejected: its draft is the one rejected" in again.stderr
        assert translate_requests(fake) == sent, again.stderr
        assert fake.billed_chars == billed
        assert "0 characters billed, " in again.stderr, again.stderr
        assert (
            "1 of them not sent to DeepL again: the cache holds the answer that made the "
            "rejected draft"
        ) in again.stderr


def test_a_request_a_held_back_unit_needs_is_counted_in_the_summary(
    cli: Cli, fake: FakeDeepL, small: Path
) -> None:
    """Without its stored answer (the cache deleted), a held-back unit is asked again: the
    summary says what of the bill went to it; the run after it sends nothing for it."""
    fake.markup_fault("drop_one_tag", match="문서")
    assert translate(cli, small, "--to", "en", "--only", "posts/alpha").exit_code == 0
    for key in ("posts/alpha:body#2", KEY):
        assert cli("-C", str(small), "review", "reject", key).exit_code == 0
    shutil.rmtree(small / ".bipub-cache")
    billed = fake.billed_chars
    again = translate(cli, small, "--to", "en", "--only", "posts/alpha")
    assert again.exit_code == 0, again.stderr
    spent = fake.billed_chars - billed
    assert spent > 0
    assert f"{spent} characters billed (" in again.stderr, again.stderr
    assert (
        f"({spent} of those characters for units then held back as rejected: DeepL's answer "
        "made the rejected draft again)"
    ) not in again.stderr  # (the segment count comes first)
    assert (
        f"; {spent} of those characters for units then held back as rejected: DeepL's answer "
        "made the rejected draft again)"
    ) in again.stderr, again.stderr
    sent = translate_requests(fake)
    third = translate(cli, small, "--to", "en", "--only", "posts/alpha")
    assert third.exit_code == 0 and translate_requests(fake) == sent, third.stderr


def test_fresh_asks_again_for_a_held_back_unit(cli: Cli, fake: FakeDeepL, small: Path) -> None:
    """`--fresh` is for new answers: the held-back unit's segment is sent, and what it cost
    is said as spent on units then held back."""
    fake.markup_fault("drop_one_tag", match="문서")
    assert translate(cli, small, "--to", "en", "--only", "posts/alpha").exit_code == 0
    for key in ("posts/alpha:body#2", KEY):
        assert cli("-C", str(small), "review", "reject", key).exit_code == 0
    sent = translate_requests(fake)
    fresh = translate(cli, small, "--to", "en", "--only", "posts/alpha", "--fresh")
    assert fresh.exit_code == 0, fresh.stderr
    assert translate_requests(fake) > sent
    assert "of those characters for units then held back as rejected" in fresh.stderr
    assert "not sent to DeepL again" not in fresh.stderr
