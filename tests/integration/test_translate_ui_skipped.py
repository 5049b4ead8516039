# ruff: noqa: F811 - pytest fixtures imported by name
"""A UI string filled in by hand while `bipub translate` runs is kept, and the run says so: it
is not counted as drafted (it was counted, and skipped without a word)."""

from __future__ import annotations

from pathlib import Path

from babel.messages.pofile import read_po

from bipub.translate.deepl_client import DeepL
from bipub.translate.drafts import make_plan, run
from tests.deepl_fake import FakeDeepL
from tests.integration.test_translate import (
    _offline,  # noqa: F401
    fake,  # noqa: F401
    make,
    post,
)

PO = "locales/ko/LC_MESSAGES/messages.po"
CATALOG = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
    '"Plural-Forms: nplurals=1; plural=0;\\n"\n\n'
    'msgid "Posted on %(date)s"\nmsgstr ""\n\n'
    'msgid "Share this post"\nmsgstr ""\n\n'
    'msgid "%(num)d comment"\nmsgid_plural "%(num)d comments"\nmsgstr[0] ""\n'
)


def test_a_ui_string_filled_in_by_hand_during_the_run_is_kept_said_and_not_counted(
    fake: FakeDeepL, tmp_path: Path
) -> None:
    root = make(
        tmp_path / "ui",
        {"content/ko/posts/a.md": post("가", "나.\n"), "content/en/posts/a.md": post("A", "B.\n"),
         PO: CATALOG},
    )  # fmt: skip
    plan = make_plan(root, "ko")
    assert sum(1 for j in plan.jobs if j.key.startswith("ui:")) == 3

    def by_hand(_chars: int) -> None:  # (the translator fills two entries while DeepL answers)
        po = root / PO
        text = po.read_text(encoding="utf-8")
        text = text.replace('"Share this post"\nmsgstr ""', '"Share this post"\nmsgstr "공유"')
        text = text.replace('msgstr[0] ""', 'msgstr[0] "댓글 %(num)d개"')
        po.write_text(text, encoding="utf-8")

    result = run(plan, DeepL.from_env, on_start=by_hand)
    assert result.drafted == 1, result.summary()
    assert sorted(s.key for s in result.skipped) == [
        "ui:%(num)d comment",
        "ui:Share this post",
    ], result.skipped
    said = [s.format("ko") for s in result.skipped]
    assert f"{PO}: warning: [ko] ui:Share this post: skipped: filled in by hand during the run" in (
        said[0] + said[1]
    ), said
    assert "Drafted 1 unit (ko)" in result.summary()
    assert "2 UI strings NOT drafted: 2 filled in by hand during the run (kept)" in result.summary()
    assert result.ok  # (a translation by hand is not a failure)
    with (root / PO).open("rb") as fh:
        catalog = read_po(fh, locale="ko")
    share = catalog.get("Share this post")
    assert share.string == "공유" and not share.fuzzy  # (the hand translation, not a draft)
    posted = catalog.get("Posted on %(date)s")
    assert posted.fuzzy and "%(date)s" in posted.string
