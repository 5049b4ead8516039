"""The review loop end to end: translate → approve / reject → source edit → translate again.

The two bugs of issue 15 first: approving a unit whose re-drafted text waits beside its
reviewed translation must adopt the draft (not delete it and record the old text for the new
source), and rejecting a draft written into a content file must not leave machine text behind
without its status record.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bipub.diagnostics import Collector
from bipub.pair.status import StatusRecord, dump_status, load_status
from bipub.pair.units import split_sections, text_hash
from tests.conftest import check_golden
from tests.integration.test_check_cli import SCHEMA, validate
from tests.review_engine import FakeEngine, draft

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

처리량은 157 → 382 tokens/s가 됐습니다.

## 둘째

두 번째 문단입니다.
"""

EN = """\
---
title: A cache story
---

Throughput went to 157 → 382 tokens/s.

## Second

The second paragraph.
"""


def sections(text: str) -> list[str]:
    return [s.text for s in split_sections(text.split("---\n", 2)[2], 1)]


def records(root: Path, lang: str = "en") -> dict[str, StatusRecord]:
    collector = Collector()
    status = load_status(root, lang, collector)
    assert not collector.items
    return status.records


@pytest.fixture
def root(tmp_path: Path) -> Path:
    for rel, text in {
        "bipub.yaml": CONFIG,
        "content/ko/posts/cache.md": KO,
        "content/en/posts/cache.md": EN,
    }.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


Cli = Callable[..., Any]


def review(cli: Cli, root: Path, *args: str) -> Any:
    return cli("-C", str(root), "review", *args)


def reviewed_then_redrafted(root: Path, cli: Cli, added: str = "새 문장 42개.") -> str:
    """posts/cache is reviewed; a sentence is added to body#1's source; translate drafts it
    again: the new draft waits beside the reviewed text. Returns the waiting draft."""
    assert review(cli, root, "approve", "posts/cache", "--reviewer", "r").exit_code == 0
    ko = KO.replace("두 번째 문단입니다.", f"두 번째 문단입니다. {added}")
    (root / "content/ko/posts/cache.md").write_text(ko, encoding="utf-8")
    result = draft(root, "en", FakeEngine())
    assert result.drafted == 1 and not result.stopped
    rec = records(root)["posts/cache:body#1"]
    assert rec.state == "reviewed" and rec.draft is not None and "sae munjang" in rec.draft
    assert sections((root / "content/en/posts/cache.md").read_text(encoding="utf-8"))[1] == (
        "## Second\n\nThe second paragraph."
    )
    return rec.draft


@pytest.mark.parametrize("added", ["새 문장.", "새 문장 42개."])
def test_approve_adopts_the_waiting_draft(root: Path, cli: Cli, added: str) -> None:
    waiting = reviewed_then_redrafted(root, cli, added)
    result = review(cli, root, "approve", "posts/cache:body#1", "--reviewer", "r")
    assert result.exit_code == 0, result.stderr
    assert "1 waiting draft adopted" in result.stderr
    text = (root / "content/en/posts/cache.md").read_text(encoding="utf-8")
    assert sections(text)[1] == waiting  # the draft is in the file …
    rec = records(root)["posts/cache:body#1"]
    new_source = sections((root / "content/ko/posts/cache.md").read_text(encoding="utf-8"))[1]
    # … and recorded as reviewed for the source it was made from, as a machine text
    assert rec.source_hash == text_hash(new_source) and rec.translation_hash == text_hash(waiting)
    assert (rec.state, rec.origin, rec.draft) == ("reviewed", "machine", None)
    assert review(cli, root).stdout == "Nothing to review.\n"


def test_approve_keep_current_records_the_present_text_and_says_so(root: Path, cli: Cli) -> None:
    reviewed_then_redrafted(root, cli, "새 문장.")
    before = (root / "content/en/posts/cache.md").read_bytes()
    result = review(cli, root, "approve", "posts/cache:body#1", "--reviewer", "r", "--keep-current")
    assert result.exit_code == 0, result.stderr
    assert "dismissed the waiting machine draft of posts/cache:body#1 [en]" in result.stdout
    assert (root / "content/en/posts/cache.md").read_bytes() == before
    rec = records(root)["posts/cache:body#1"]
    assert rec.draft is None and rec.state == "reviewed" and rec.origin == "human"


def test_approve_force_with_qa_errors_adopts_the_draft_too(root: Path, cli: Cli) -> None:
    reviewed_then_redrafted(root, cli)
    recs = records(root)
    broken = "## Second\n\nThe second paragraph. 41 new sentences."  # 42 → 41
    recs["posts/cache:body#1"] = recs["posts/cache:body#1"].model_copy(update={"draft": broken})
    (root / "status/en.yaml").write_text(dump_status(recs), encoding="utf-8")
    refused = review(cli, root, "approve", "posts/cache:body#1", "--reviewer", "r")
    assert refused.exit_code == 1
    assert "the waiting draft: numbers differ" in refused.stderr
    assert records(root)["posts/cache:body#1"].draft == broken  # nothing written
    forced = review(cli, root, "approve", "posts/cache:body#1", "--reviewer", "r", "--force")
    assert forced.exit_code == 0, forced.stderr
    text = (root / "content/en/posts/cache.md").read_text(encoding="utf-8")
    assert sections(text)[1] == broken
    assert records(root)["posts/cache:body#1"].translation_hash == text_hash(broken)


def test_approve_refuses_an_unchanged_translation_of_an_older_source(root: Path, cli: Cli) -> None:
    assert review(cli, root, "approve", "posts/cache", "--reviewer", "r").exit_code == 0
    ko = KO.replace("두 번째 문단입니다.", "두 번째 문단입니다. 새 문장.")
    (root / "content/ko/posts/cache.md").write_text(ko, encoding="utf-8")
    before = (root / "status/en.yaml").read_bytes()
    refused = review(cli, root, "approve", "posts/cache:body#1", "--reviewer", "r")
    assert refused.exit_code == 1
    assert "the source changed since this translation was made" in refused.stderr
    assert (root / "status/en.yaml").read_bytes() == before
    kept = review(cli, root, "approve", "posts/cache:body#1", "--reviewer", "r", "--keep-current")
    assert kept.exit_code == 0, kept.stderr
    assert records(root)["posts/cache:body#1"].source_hash == text_hash(sections(ko)[1])


def test_a_draft_from_an_older_source_is_not_adopted(root: Path, cli: Cli) -> None:
    reviewed_then_redrafted(root, cli)
    ko = (root / "content/ko/posts/cache.md").read_text(encoding="utf-8")
    (root / "content/ko/posts/cache.md").write_text(ko.replace("42개", "43개"), encoding="utf-8")
    before = (root / "status/en.yaml").read_bytes()
    refused = review(cli, root, "approve", "posts/cache:body#1", "--reviewer", "r")
    assert refused.exit_code == 1
    assert "the waiting machine draft was made from an older source" in refused.stderr
    assert (root / "status/en.yaml").read_bytes() == before


def test_reject_removes_a_drafted_section_and_its_record(root: Path, cli: Cli) -> None:
    en_one = EN.split("\n## Second")[0].rstrip("\n") + "\n"
    (root / "content/en/posts/cache.md").write_text(en_one, encoding="utf-8")
    for key in ("posts/cache:title", "posts/cache:body#0"):
        assert review(cli, root, "approve", key, "--reviewer", "r").exit_code == 0
    result = draft(root, "en", FakeEngine())
    assert result.drafted == 1
    assert records(root)["posts/cache:body#1"].state == "draft"
    rejected = review(cli, root, "reject", "posts/cache:body#1")
    assert rejected.exit_code == 0, rejected.stderr
    # the file holds what it held before the draft; the unit is missing again
    assert (root / "content/en/posts/cache.md").read_text(encoding="utf-8") == en_one
    assert "posts/cache:body#1" not in records(root)
    out = cli("-C", str(root), "check", "--format", "json").stdout
    assert '"code": "missing"' in out and '"key": "posts/cache:body#1"' in out


def test_reject_a_whole_drafted_post_deletes_its_file(root: Path, cli: Cli) -> None:
    (root / "content/en/posts/cache.md").unlink()
    assert draft(root, "en", FakeEngine()).drafted == 3
    assert (root / "content/en/posts/cache.md").is_file()
    refused = review(cli, root, "reject", "posts/cache:title")
    assert refused.exit_code == 1 and "needs its title" in refused.stderr
    assert review(cli, root, "reject", "posts/cache").exit_code == 0
    assert not (root / "content/en/posts/cache.md").exists()
    assert not any(k.startswith("posts/cache") for k in records(root))


def test_reject_a_hand_edited_draft_is_refused(root: Path, cli: Cli) -> None:
    (root / "content/en/posts/cache.md").unlink()
    draft(root, "en", FakeEngine())
    path = root / "content/en/posts/cache.md"
    path.write_text(path.read_text(encoding="utf-8").replace("## ", "## My "), encoding="utf-8")
    before = path.read_bytes()
    refused = review(cli, root, "reject", "posts/cache:body#1")
    assert refused.exit_code == 1 and "edited by hand" in refused.stderr
    assert path.read_bytes() == before
    # approving the hand-edited draft records it as the reviewer's own text
    assert review(cli, root, "approve", "posts/cache:body#1", "--reviewer", "r").exit_code == 0
    assert records(root)["posts/cache:body#1"].origin == "human"


def test_keep_current_beside_a_draft_with_findings_names_none_of_them(root: Path, cli: Cli) -> None:
    """A machine draft edited by hand, its source changed, and a new draft (whose drafting lost
    a tag) waits beside it with its own findings (`draft_findings`; the edited draft's drafting
    said nothing): approving the edit with --keep-current dismisses that draft without saying
    its findings were the edited draft's (it said "was edited since it was drafted; its
    drafting had said: <the waiting draft's findings>"). Found by the review state machine."""
    (root / "content/en/posts/cache.md").unlink()
    draft(root, "en", FakeEngine())
    path = root / "content/en/posts/cache.md"
    path.write_text(path.read_text(encoding="utf-8").replace("## ", "## My "), encoding="utf-8")
    ko = KO.replace("두 번째 문단입니다.", "두 번째 문단은 `new_flag` 옵션을 씁니다.")
    (root / "content/ko/posts/cache.md").write_text(ko, encoding="utf-8")
    engine = FakeEngine()
    engine.fail(0, "drop_tags")
    draft(root, "en", engine)
    rec = records(root)["posts/cache:body#1"]
    assert rec.state == "draft" and rec.draft is not None and rec.draft_findings, rec
    assert rec.findings is None, rec  # the edited draft's drafting said nothing
    before = path.read_bytes()
    keep = ("--reviewer", "r", "--keep-current", "--force")  # (the edit lacks the code span)
    result = review(cli, root, "approve", "posts/cache:body#1", *keep)
    assert result.exit_code == 0, result.stderr
    said = result.stdout + result.stderr
    assert "dismissed the waiting machine draft of posts/cache:body#1 [en]" in said
    assert "its drafting had said" not in said, said
    # (the approved edit's own QA error, let through by --force, is said as such)
    assert [line for line in said.splitlines() if "new_flag" in line] == [
        "approved posts/cache:body#1 [en] with QA errors (--force): code: code span "
        "`new_flag` of the source is missing or changed"
    ], said
    assert path.read_bytes() == before
    rec = records(root)["posts/cache:body#1"]
    assert (rec.state, rec.origin, rec.draft, rec.findings, rec.draft_findings) == (
        ("reviewed", "human", None, None, None)
    )


# --------------------------------------------------------------------------- what a reviewer sees

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "review"


def test_show_and_reports_carry_the_waiting_draft(
    root: Path, cli: Cli, update_golden: bool
) -> None:
    reviewed_then_redrafted(root, cli, "새 문장 42개.")
    recs = records(root)  # the draft lost a number: its QA finding must be shown
    rec = recs["posts/cache:body#1"]
    assert rec.draft is not None
    recs["posts/cache:body#1"] = rec.model_copy(update={"draft": rec.draft.replace("42", "41")})
    (root / "status/en.yaml").write_text(dump_status(recs), encoding="utf-8")

    show = review(cli, root, "show", "posts/cache:body#1")
    assert show.exit_code == 0, show.stderr
    for part in (
        "waiting machine draft (made from the current source)",
        "sae munjang 41gae.",  # the draft's text
        "{+ sae munjang 41gae.+}",  # its word diff against the present translation
        "+두 번째 문단입니다. 새 문장 42개.",  # the source diff that made it stale
        "numbers: ",  # its QA finding
    ):
        assert part in show.stdout, part
    check_golden(GOLDEN / "show_waiting_draft.txt", show.stdout, update_golden)

    text = cli("-C", str(root), "check").stdout
    assert "waiting machine draft" in text and "{+ sae munjang 41gae.+}" in text

    data = json.loads(cli("-C", str(root), "check", "--format", "json").stdout)
    validate(data, json.loads(SCHEMA.read_text(encoding="utf-8")))
    (waiting,) = [f["waiting_draft"] for f in data["findings"] if "waiting_draft" in f]
    assert waiting["from_current_source"] is True
    assert waiting["word_diff"].endswith("{+ sae munjang 41gae.+}")
    assert [q["code"] for q in waiting["qa"]] == ["numbers"]
    assert "+두 번째 문단입니다. 새 문장 42개." in waiting["source_diff"]

    # --lang en: the theme's own UI strings (ko) would make the golden file change with them
    html = cli("-C", str(root), "check", "--format", "html", "--lang", "en").stdout
    assert '<details class="waiting-draft" open>' in html
    assert "<ins> sae munjang 41gae.</ins>" in html
    check_golden(GOLDEN / "check_waiting_draft.html", html, update_golden)


def interactive(root: Path, keys: str, env: dict[str, str] | None = None) -> Any:
    from click.testing import CliRunner

    from bipub.cli import main

    args = ["-C", str(root), "review", "-i", "--reviewer", "min"]
    return CliRunner().invoke(main, args, input=keys, env=env, catch_exceptions=False)


def test_interactive_shows_and_adopts_the_waiting_draft(root: Path, cli: Cli) -> None:
    waiting = reviewed_then_redrafted(root, cli, "새 문장.")
    result = interactive(root, "a\n")
    assert result.exit_code == 0, result.output
    assert "waiting machine draft (made from the current source)" in result.output
    assert "{+ sae munjang.+}" in result.output
    assert "[a]dopt the draft, [k]eep current" in result.output
    assert "Approved 1, rejected 0, skipped 0." in result.output
    text = (root / "content/en/posts/cache.md").read_text(encoding="utf-8")
    assert sections(text)[1] == waiting
    rec = records(root)["posts/cache:body#1"]
    assert (rec.origin, rec.draft, rec.reviewer) == ("machine", None, "min")


def test_interactive_edit_by_hand_is_recorded_as_human(
    root: Path, cli: Cli, tmp_path: Path
) -> None:
    reviewed_then_redrafted(root, cli, "새 문장.")
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import sys, pathlib\np = pathlib.Path(sys.argv[1])\n"
        "p.write_text(p.read_text(encoding='utf-8').replace('The second paragraph.', "
        "'The second paragraph. A new sentence.'), encoding='utf-8')\n",
        encoding="utf-8",
    )
    result = interactive(root, "e\na\n", env={"EDITOR": f"{sys.executable} {editor}"})
    assert result.exit_code == 0, result.output
    assert "dismissed the waiting machine draft of posts/cache:body#1 [en]" in result.output
    text = (root / "content/en/posts/cache.md").read_text(encoding="utf-8")
    assert sections(text)[1] == "## Second\n\nThe second paragraph. A new sentence."
    rec = records(root)["posts/cache:body#1"]
    assert (rec.origin, rec.state, rec.draft) == ("human", "reviewed", None)
    assert rec.translation_hash == text_hash(sections(text)[1])


# --------------------------------------------------------------------------- CV drafts on the site

CV_KO = "name: Min\ntitle: 엔지니어\nsummary: 무언가를 만듭니다.\n"


@pytest.fixture
def cv_drafted(root: Path) -> Path:
    """A CV written in Korean; its English drafted by the engine, not reviewed."""
    config = CONFIG + "source_languages: {cv: ko, pages: ko, posts: ko}\n"
    (root / "bipub.yaml").write_text(config, encoding="utf-8")
    (root / "content/ko/cv.yaml").write_text(CV_KO, encoding="utf-8")
    assert draft(root, "en", FakeEngine()).drafted == 2  # the CV's two fields
    assert records(root)["cv:summary"].state == "draft"
    return root


def test_cv_drafts_are_marked_counted_and_flagged(cv_drafted: Path, cli: Cli) -> None:
    root = cv_drafted
    result = cli("-C", str(root), "build", "--only", "html", "--only", "json")
    assert result.exit_code == 0, result.stderr
    # the build's summary counts them with the post drafts
    assert "[en] shown with a notice: 2 CV fields machine draft" in result.stderr
    home = (root / "site/en/index.html").read_text(encoding="utf-8")
    assert '<span class="machine-draft">mueongareul mandeubnida.</span>' in home
    assert "Marked text is a machine translation that has not been reviewed yet." in home
    status = json.loads((root / "site/api/en/status.json").read_text(encoding="utf-8"))
    flagged = sorted(r["key"] for r in status if r["machine_draft"])
    assert flagged == ["cv:summary", "cv:title"]
    # keys and states only: no repository paths or line numbers are published (issue 18)
    assert all(set(r) == {"key", "state", "machine_draft"} for r in status)
    assert "content/" not in (root / "site/api/en/status.json").read_text(encoding="utf-8")
    # reviewed: no mark, no note, not counted
    assert review(cli, root, "approve", "cv:", "--reviewer", "r").exit_code == 0
    result = cli("-C", str(root), "build", "--only", "html", "--only", "json")
    assert "CV field" not in result.stderr
    home = (root / "site/en/index.html").read_text(encoding="utf-8")
    assert "machine-draft" not in home
    status = json.loads((root / "site/api/en/status.json").read_text(encoding="utf-8"))
    assert not any(r["machine_draft"] for r in status if r["key"].startswith("cv:"))


def test_cv_drafts_are_not_shown_when_drafts_are_not_published(cv_drafted: Path, cli: Cli) -> None:
    root = cv_drafted
    config = (root / "bipub.yaml").read_text(encoding="utf-8")
    (root / "bipub.yaml").write_text(
        config + "outputs: {publish_drafts: false}\n", encoding="utf-8"
    )
    result = cli("-C", str(root), "build", "--only", "html")
    assert result.exit_code == 0, result.stderr
    home = (root / "site/en/index.html").read_text(encoding="utf-8")
    assert "mueongareul" not in home  # the source is shown instead, marked as such
    assert '<span lang="ko" class="untranslated">무언가를 만듭니다.</span>' in home
    assert "[en] shown with a notice: 2 CV fields in ko" in result.stderr


@pytest.mark.pdf
def test_cv_pdf_carries_the_draft_notice(cv_drafted: Path, cli: Cli) -> None:
    from pypdf import PdfReader

    result = cli("-C", str(cv_drafted), "build", "--only", "pdf")
    assert result.exit_code == 0, result.stderr
    text = "".join(p.extract_text() for p in PdfReader(cv_drafted / "site/pdf/cv-en.pdf").pages)
    assert "Machine translation, not reviewed" in text


def test_approve_all_skips_stale_units_and_names_them(root: Path, cli: Cli) -> None:
    assert review(cli, root, "approve", "posts/cache", "--reviewer", "r").exit_code == 0
    ko = KO.replace("두 번째 문단입니다.", "두 번째 문단입니다. 새 문장.")
    (root / "content/ko/posts/cache.md").write_text(ko, encoding="utf-8")
    result = review(cli, root, "approve", "--all", "--lang", "en", "--reviewer", "r")
    assert result.exit_code == 0, result.stderr
    assert "skipped posts/cache:body#1 [en]: the source changed since" in result.stdout
    assert records(root)["posts/cache:body#1"].source_hash != text_hash(sections(ko)[1])


def test_interactive_keep_current_for_a_stale_unit(root: Path, cli: Cli) -> None:
    assert review(cli, root, "approve", "posts/cache", "--reviewer", "r").exit_code == 0
    ko = KO.replace("두 번째 문단입니다.", "두 번째 문단입니다. 새 문장.")
    (root / "content/ko/posts/cache.md").write_text(ko, encoding="utf-8")
    result = interactive(root, "a\nk\n")  # approve is refused (old text), keep current is not
    assert result.exit_code == 0, result.output
    assert "[k]eep current for the new source" in result.output
    assert "the source changed since this translation was made" in result.output
    assert "Approved 1, rejected 0, skipped 0." in result.output
    rec = records(root)["posts/cache:body#1"]
    assert rec.source_hash == text_hash(sections(ko)[1]) and rec.reviewer == "min"


def test_reject_a_drafted_description_removes_the_field(root: Path, cli: Cli) -> None:
    ko = KO.replace("title: 캐시 이야기\n", "title: 캐시 이야기\ndescription: 짧은 소개\n")
    (root / "content/ko/posts/cache.md").write_text(ko, encoding="utf-8")
    assert draft(root, "en", FakeEngine()).drafted == 1
    path = root / "content/en/posts/cache.md"
    assert "description:" in path.read_text(encoding="utf-8")
    assert review(cli, root, "reject", "posts/cache:description").exit_code == 0
    assert path.read_text(encoding="utf-8") == EN
    assert "posts/cache:description" not in records(root)


def test_the_build_counts_machine_drafts_in_the_plural(root: Path, cli: Cli) -> None:
    (root / "content/en/posts/cache.md").unlink()
    (root / "content/ko/posts/other.md").write_text(KO, encoding="utf-8")
    assert draft(root, "en", FakeEngine()).drafted == 6  # two posts, three units each
    result = cli("-C", str(root), "build", "--only", "html")
    assert result.exit_code == 0, result.stderr
    assert "[en] shown with a notice: 2 machine drafts (posts/" in result.stderr
    assert ", 1 warning → " in result.stderr  # that one warning, in the summary's last line


def test_a_reviewed_text_edited_after_its_review_is_edited_everywhere(root: Path, cli: Cli) -> None:
    """A translation changed by hand after its review: `bipub check` says `edited`, and so do
    status.json and the side-by-side page (status.json said `reviewed`); the build in a new
    process after the edit (a restored pairing) says it too, and approving it again makes it
    reviewed."""
    assert review(cli, root, "approve", "posts/cache", "--reviewer", "r").exit_code == 0
    assert cli("-C", str(root), "build", "--only", "json").exit_code == 0
    en = root / "content/en/posts/cache.md"
    en.write_text(EN.replace("The second paragraph.", "The second paragraph, edited."), "utf-8")

    def states() -> dict[str, str]:
        status = json.loads((root / "site/api/en/status.json").read_text(encoding="utf-8"))
        return {rec["key"]: rec["state"] for rec in status}

    result = cli("-C", str(root), "build", "--only", "json", "--only", "html")
    assert result.exit_code == 0, result.stderr
    assert states() == {
        "posts/cache:title": "reviewed",
        "posts/cache:body#0": "reviewed",
        "posts/cache:body#1": "edited",
    }
    pages = (root / "site").rglob("*.html")
    assert any('data-state="edited"' in p.read_text(encoding="utf-8") for p in pages)
    # another post added: posts/cache is taken as the last build paired it (restore.py)
    other = root / "content/ko/posts/other.md"
    other.write_text(KO.replace("캐시 이야기", "다른 글"), encoding="utf-8")
    result = cli("-v", "-C", str(root), "build", "--only", "json")
    assert result.exit_code == 0, result.stderr
    assert "1 of 2 entries paired again" in result.stderr, result.stderr
    assert states()["posts/cache:body#1"] == "edited"
    report = json.loads(cli("-C", str(root), "check", "--format", "json").stdout)
    edited = [f["key"] for f in report["findings"] if f["code"] == "edited"]
    assert edited == ["posts/cache:body#1"]
    assert review(cli, root, "approve", "posts/cache:body#1", "--reviewer", "r").exit_code == 0
    assert cli("-C", str(root), "build", "--only", "json").exit_code == 0
    assert {k: v for k, v in states().items() if k.startswith("posts/cache:")} == {
        "posts/cache:title": "reviewed",
        "posts/cache:body#0": "reviewed",
        "posts/cache:body#1": "reviewed",
    }


def test_a_draft_post_is_not_counted_as_shown_with_a_notice(root: Path, cli: Cli) -> None:
    """A post marked `draft: true` in its source, with no translation, is built in neither
    language: the build's summary does not count it as shown untranslated (it said `[en]
    shown with a notice: 1 untranslated (posts/hidden)`)."""
    hidden = root / "content/ko/posts/hidden.md"
    hidden.write_text(KO.replace("date: 2026-01-01", "date: 2026-01-02\ndraft: true"), "utf-8")
    shown = root / "content/ko/posts/shown.md"
    shown.write_text(KO.replace("캐시 이야기", "보이는 글"), encoding="utf-8")
    result = cli("-C", str(root), "build", "--only", "html")
    assert result.exit_code == 0, result.stderr
    assert not list((root / "site").rglob("hidden/index.html"))
    assert "[en] shown with a notice: 1 untranslated (posts/shown)" in result.stderr
    assert "posts/hidden" not in result.stderr


def test_the_translation_of_a_draft_source_is_not_published(root: Path, cli: Cli) -> None:
    """A post whose source says `draft: true` is published in no language: `bipub translate`
    drafts its translation (it may be reviewed ahead of publication), and the build left the
    Korean out but published that machine draft in English — page, listing, posts.json,
    sitemap, feed and llms.txt. Set `draft: false` in the source and it is published in both."""
    (root / "content/en/posts/cache.md").unlink()
    secret = root / "content/ko/posts/secret.md"
    secret.write_text(KO.replace("date: 2026-01-01", "date: 2026-01-02\ndraft: true"), "utf-8")
    assert draft(root, "en", FakeEngine()).drafted >= 2
    assert (root / "content/en/posts/secret.md").is_file()
    result = cli("-C", str(root), "build", "--only", "html", "--only", "json", "--only", "feeds")
    assert result.exit_code == 0, result.stderr
    site = root / "site"
    assert not list(site.rglob("secret")), list(site.rglob("secret"))
    shown = ("en/index.html", "en/blog/index.html", "api/en/posts.json", "sitemap.xml")
    for rel in (*shown, "api/en/status.json", "api/ko/status.json"):  # (not even its keys)
        assert "secret" not in (site / rel).read_text(encoding="utf-8"), rel
    assert all("secret" not in p.read_text("utf-8") for p in site.rglob("feed.*"))
    secret.write_text(KO.replace("date: 2026-01-01", "date: 2026-01-02\ndraft: false"), "utf-8")
    result = cli("-C", str(root), "build", "--only", "html", "--only", "json")
    assert result.exit_code == 0, result.stderr
    assert (site / "en/blog/secret/index.html").is_file()
    assert (site / "ko/blog/secret/index.html").is_file()
    assert "secret" in (site / "api/en/posts.json").read_text(encoding="utf-8")
    assert "posts/secret:title" in (site / "api/en/status.json").read_text(encoding="utf-8")


def test_a_draft_page_is_not_published(root: Path, cli: Cli) -> None:
    """A page that says `draft: true` is published in no language (it was published in both,
    whatever its `draft` said), and is not counted as shown with a notice."""
    page = root / "content/ko/pages/later.md"
    page.parent.mkdir(parents=True)
    page.write_text("---\ntitle: 나중에\nsource_lang: ko\ndraft: true\n---\n\n아직.\n", "utf-8")
    result = cli("-C", str(root), "build", "--only", "html")
    assert result.exit_code == 0, result.stderr
    assert not list((root / "site").rglob("later")), list((root / "site").rglob("later"))
    assert "pages/later" not in result.stderr
    page.write_text("---\ntitle: 나중에\nsource_lang: ko\n---\n\n아직.\n", encoding="utf-8")
    result = cli("-C", str(root), "build", "--only", "html")
    assert result.exit_code == 0, result.stderr
    assert (root / "site/ko/later/index.html").is_file()
    assert (root / "site/en/later/index.html").is_file()  # (the original, with a notice)
    assert "1 untranslated (pages/later)" in result.stderr
