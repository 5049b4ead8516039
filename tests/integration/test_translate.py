# ruff: noqa: F811 - pytest fixtures imported by name
"""`bipub translate`: DeepL drafts through the real `deepl` client against the local fake.

Every test talks to FakeDeepL on 127.0.0.1 (DEEPL_SERVER_URL); none touches the network.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bipub.check import qa
from bipub.diagnostics import Collector
from bipub.load.yaml_strict import load_yaml
from bipub.pair.status import StatusRecord, dump_status, load_status
from bipub.pair.units import split_sections, text_hash
from bipub.translate import deepl_client
from tests.conftest import CliResult, tree_snapshot
from tests.deepl_fake import FakeDeepL
from tests.deepl_fake.fixtures import deepl_fake, speed_up_deepl_client  # noqa: F401

SECRET = "bipub-test-secret-5c0ffee"
Cli = Callable[..., CliResult]

CONFIG = """\
languages:
  - {code: ko, name: 한국어, title: 테스트}
  - {code: en, name: English, title: Test}
default_language: ko
base_url: https://t.example.org/
author: {name: T}
"""


def post(title: str, body: str, extra: str = "") -> str:
    return f"---\ntitle: {title}\ndate: 2026-01-01\n{extra}---\n\n{body}"


ALPHA = post(
    "알파 글",
    "처리량은 157 → 382 tokens/s가 됐다. `block_size`를 보자.\n\n"
    "## 둘째\n\n[문서](https://docs.example.org/a_b)를 읽고 **세 번** 측정했다.\n\n"
    "```python\nx = 1  # 주석\n```\n\n## 셋째\n\n- 하나\n- 둘 3.5배\n",
    "description: 첫 글\n",
)
BETA = post("베타 글", "짧은 본문 하나.\n\n## 다음\n\n두 번째 문단 42.\n")
GAMMA = post("감마 글", "감마 본문.\n\n## 끝\n\n마지막 7개.\n")


def body(text: str) -> str:
    return text.split("---\n", 2)[2]


def sections(text: str) -> list[str]:
    return [s.text for s in split_sections(body(text), 1)]


def make(root: Path, files: dict[str, str]) -> Path:
    for rel, text in {"bipub.yaml": CONFIG, **files}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def status(root: Path, lang: str) -> dict[str, StatusRecord]:
    collector = Collector()
    records = load_status(root, lang, collector).records
    assert not collector.errors
    return records


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture
def fake(deepl_fake: FakeDeepL, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDeepL]:
    """The fake with SECRET as its key, the environment pointing at it, fast client retries."""
    deepl_fake.auth_keys = frozenset({SECRET})
    monkeypatch.setenv("DEEPL_AUTH_KEY", SECRET)
    monkeypatch.setenv("DEEPL_SERVER_URL", deepl_fake.url)
    speed_up_deepl_client(monkeypatch, timeout=2.0)
    yield deepl_fake


@pytest.fixture
def small(tmp_path: Path) -> Path:
    return make(
        tmp_path / "small",
        {
            "content/ko/posts/alpha.md": ALPHA,
            "content/ko/posts/beta.md": BETA,
            "content/ko/posts/gamma.md": GAMMA,
        },
    )


def translate(cli: Cli, root: Path, *args: str) -> CliResult:
    return cli("-C", str(root), "translate", *args)


def billable(xml: str) -> int:
    """Characters DeepL bills for a text sent with tag_handling=xml (tags are free)."""
    return len(re.sub(r"&[#\w]+;", "e", re.sub(r"<[^>]*>", "", xml)))


def translate_requests(fake: FakeDeepL) -> int:
    return len(fake.translate_requests)


# --------------------------------------------------------------------------- the demo


def test_demo_drafts_the_untranslated_post_and_the_stale_unit(
    make_project: Callable[[str], Path], cli: Cli, fake: FakeDeepL
) -> None:
    root = make_project("demo")
    reviewed_en = (root / "content/en/posts/prefix-caching.md").read_bytes()
    before = status(root, "en")["posts/prefix-caching:body#4"]
    assert before.state == "reviewed" and before.source_hash != text_hash(
        sections((root / "content/ko/posts/prefix-caching.md").read_text())[4]
    )

    result = translate(cli, root, "--to", "en")
    assert result.exit_code == 0, result.stderr
    assert re.search(
        r"Drafted \d+ units \(en\), [\d,]+ characters billed \(\d+ segments in \d+ requests\), "
        r"0 cache hits",
        result.stderr,
    )

    # the untranslated post: a new file, text fields only, every unit a machine draft
    ko = (root / "content/ko/posts/tensor-parallel-allreduce.md").read_text(encoding="utf-8")
    en = (root / "content/en/posts/tensor-parallel-allreduce.md").read_text(encoding="utf-8")
    meta = load_yaml(en.split("---\n")[1], "x").data
    assert set(meta) == {"title", "description"}  # no date, tags: shared fields stay in the source
    records = status(root, "en")
    keys = [k for k in records if k.startswith("posts/tensor-parallel-allreduce:")]
    assert len(keys) == 8
    for key in keys:
        rec = records[key]
        assert (rec.state, rec.origin, rec.engine) == ("draft", "machine", "deepl")
        assert rec.options is not None and rec.options["target_lang"] == "EN-US"
    # code blocks, code spans, links and numbers are identical to the source
    for src, tr in zip(sections(ko), sections(en), strict=True):
        assert qa.facts(tr).blocks == qa.facts(src).blocks
        assert qa.facts(tr).code_spans == qa.facts(src).code_spans
        assert qa.facts(tr).links == qa.facts(src).links
        assert re.findall(r"\d+", tr) == re.findall(r"\d+", src)
        assert qa.check_markup(src, tr) == []
        assert not re.search(r"[가-힣]", tr)

    # the stale reviewed unit: the reviewed text stays, the draft waits in the status record
    assert (root / "content/en/posts/prefix-caching.md").read_bytes() == reviewed_en
    after = status(root, "en")["posts/prefix-caching:body#4"]
    assert after.state == "reviewed" and after.source_hash == before.source_hash
    assert after.draft and "V1" in after.draft and not re.search(r"[가-힣]", after.draft)

    # bipub check: drafts, not missing
    check = cli("-C", str(root), "check", "--format", "json", "--lang", "en")
    findings = json.loads(check.stdout)["findings"]
    tp = [f for f in findings if (f["key"] or "").startswith("posts/tensor-parallel-allreduce")]
    assert {f["code"] for f in tp} >= {"draft"} and "missing" not in {f["code"] for f in tp}
    assert any(f["code"] == "draft" and f["key"] == "posts/prefix-caching:body#4" for f in findings)

    # the site shows the draft notice; approving clears it
    page = root / "site/en/blog/tensor-parallel-allreduce/index.html"
    build = cli("-C", str(root), "build", "--lang", "en", "--only", "html")
    assert build.exit_code == 0, build.stderr
    assert "notice--draft" in page.read_text(encoding="utf-8")
    approve = cli(
        "-C", str(root), "review", "approve", "posts/tensor-parallel-allreduce",
        "--lang", "en", "--reviewer", "Tester", "--force",
    )  # fmt: skip
    assert approve.exit_code == 0, approve.stderr
    assert cli("-C", str(root), "build", "--lang", "en", "--only", "html").exit_code == 0
    assert "notice--" not in page.read_text(encoding="utf-8")

    # a second run bills nothing
    billed, sent = fake.billed_chars, translate_requests(fake)
    again = translate(cli, root, "--to", "en")
    assert again.exit_code == 0, again.stderr
    assert (fake.billed_chars, translate_requests(fake)) == (billed, sent)
    assert "0 characters billed" in again.stderr


def test_demo_to_ko_fills_the_cv_in_place(
    make_project: Callable[[str], Path], cli: Cli, fake: FakeDeepL
) -> None:
    root = make_project("demo")
    cv = root / "content/ko/cv.yaml"
    old = cv.read_text(encoding="utf-8")
    result = translate(cli, root, "--to", "ko")
    assert result.exit_code == 0, result.stderr
    new = cv.read_text(encoding="utf-8")
    added = [line for line in new.split("\n") if line not in old.split("\n")]
    assert len(added) == 1 and added[0].startswith('    text: "')  # one line, nothing else moved
    assert new.replace(added[0] + "\n", "") == old
    assert status(root, "ko")["cv:highlights[2].text"].state == "draft"
    assert (root / "content/ko/posts/benchmarking-methodology.md").is_file()
    check = cli("-C", str(root), "check", "--format", "json", "--lang", "ko")
    codes = {(f["code"], f["key"]) for f in json.loads(check.stdout)["findings"]}
    assert ("missing", "cv:highlights[2].text") not in codes
    assert ("draft", "cv:highlights[2].text") in codes


# --------------------------------------------------------------------------- cost and resume


def test_dry_run_sends_nothing_and_changes_nothing(cli: Cli, fake: FakeDeepL, small: Path) -> None:
    before = tree_snapshot(small)
    result = translate(cli, small, "--to", "en", "--dry-run")
    assert result.exit_code == 0, result.stderr
    assert tree_snapshot(small) == before
    assert translate_requests(fake) == 0
    assert [r.path for r in fake.requests] == ["/v2/usage"]  # the quota check only
    out = result.stdout
    assert "content/ko/posts/alpha.md → content/en/posts/alpha.md" in out
    assert re.search(r"total: 11 units, [\d,]+ characters to send", out)
    assert "fits" in out


def test_dry_run_without_a_key_says_so(
    cli: Cli, fake: FakeDeepL, small: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DEEPL_AUTH_KEY")
    result = translate(cli, small, "--to", "en", "--dry-run")
    assert result.exit_code == 0
    assert fake.requests == []
    assert "quota: not checked (DEEPL_AUTH_KEY is not set" in result.stdout


def test_identical_texts_are_sent_once_and_cached(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    root = make(
        tmp_path / "dup",
        {
            "content/ko/posts/a.md": post("같은 제목", "같은 문단.\n"),
            "content/ko/posts/b.md": post("같은 제목", "같은 문단.\n"),
        },
    )
    result = translate(cli, root, "--to", "en")
    assert result.exit_code == 0, result.stderr
    texts = [t for r in fake.translate_requests for t in r.texts]
    assert sorted(texts) == ["같은 문단.", "같은 제목"]  # each segment once, not per post
    assert (root / "content/en/posts/a.md").read_text() == (
        root / "content/en/posts/b.md"
    ).read_text()
    assert list((root / ".bipub-cache/deepl").glob("*.json"))
    # drafted again from the cache: the dry run counts the cached segments as the run does
    for rel in ("content/en/posts/a.md", "content/en/posts/b.md", "status/en.yaml"):
        (root / rel).unlink()
    dry = translate(cli, root, "--to", "en", "--dry-run")
    assert "(segments: 2 cached, 2 duplicate;" in dry.stdout, dry.stdout
    again = translate(cli, root, "--to", "en")
    assert again.exit_code == 0 and "2 cache hits" in again.stderr, again.stderr


def test_a_rejected_draft_is_not_drafted_again_for_the_same_source(
    cli: Cli, fake: FakeDeepL, small: Path
) -> None:
    """Rejecting a post's drafts and drafting again: the cached answers are the rejected texts,
    so nothing is written and each unit says why; `--fresh` asks DeepL again (the same answers:
    still held back); `--redraft-rejected` writes them."""
    assert translate(cli, small, "--to", "en", "--only", "posts/alpha").exit_code == 0
    sent = translate_requests(fake)
    assert sent
    rejected = cli("-C", str(small), "review", "reject", "--reviewer", "jiwon", "posts/alpha")
    assert rejected.exit_code == 0, rejected.stderr
    assert not (small / "content/en/posts/alpha.md").exists()
    kept = load_status(small, "en", Collector()).rejected
    assert sorted(kept) == [
        f"posts/alpha:{k}" for k in ("body#0", "body#1", "body#2", "description", "title")
    ]
    assert [r.reviewer for r in kept["posts/alpha:title"]] == ["jiwon"]
    checked = cli("-C", str(small), "check")
    assert "its machine draft was rejected on " in checked.stdout + checked.stderr

    dry = translate(cli, small, "--to", "en", "--only", "posts/alpha", "--dry-run")
    assert "rejected: 5 units whose draft a reviewer rejected for the same source" in dry.stdout

    again = translate(cli, small, "--to", "en", "--only", "posts/alpha")
    assert again.exit_code == 0, again.stderr
    assert translate_requests(fake) == sent  # (every segment answered from the cache)
    assert not (small / "content/en/posts/alpha.md").exists()
    assert "posts/alpha:body#2: rejected: its draft is the one rejected on " in again.stderr, (
        again.stderr
    )
    assert (
        "by jiwon (same source): not drafted again; translate it by hand, or run again with --redraft-rejected"
        in again.stderr
    )
    assert "Drafted 0 units (en)" in again.stderr
    assert (
        "5 units whose draft was the one rejected for the same source NOT drafted again"
        in again.stderr
    )

    fresh = translate(cli, small, "--to", "en", "--only", "posts/alpha", "--fresh")
    assert fresh.exit_code == 0, fresh.stderr
    assert translate_requests(fake) > sent  # (asked again: the same answers)
    assert "0 cache hits" in fresh.stderr, fresh.stderr
    assert "NOT drafted again" in fresh.stderr
    assert not (small / "content/en/posts/alpha.md").exists()

    forced = translate(cli, small, "--to", "en", "--only", "posts/alpha", "--redraft-rejected")
    assert forced.exit_code == 0, forced.stderr
    assert "Drafted 5 units (en)" in forced.stderr and "NOT drafted" not in forced.stderr
    assert (small / "content/en/posts/alpha.md").is_file()
    assert status(small, "en")["posts/alpha:title"].state == "draft"


def test_a_rejected_section_is_drafted_again_once_its_source_changes(
    cli: Cli, fake: FakeDeepL, small: Path
) -> None:
    """A rejection holds for the source it was made from: the source edited, the unit is
    drafted as any missing one; the rejection is kept, and holds again once the source comes
    back to that text (an edit undone: the cache has the rejected answer)."""
    assert translate(cli, small, "--to", "en", "--only", "posts/alpha").exit_code == 0
    key = "posts/alpha:body#2"
    assert cli("-C", str(small), "review", "reject", key).exit_code == 0
    en = small / "content/en/posts/alpha.md"
    assert len(sections(en.read_text(encoding="utf-8"))) == 2
    held = translate(cli, small, "--to", "en", "--only", "posts/alpha")
    assert held.exit_code == 0, held.stderr
    assert f"{key}: rejected: its draft is the one rejected on" in held.stderr, held.stderr
    assert len(sections(en.read_text(encoding="utf-8"))) == 2
    assert key in load_status(small, "en", Collector()).rejected
    checked = cli("-C", str(small), "check", "--verbose")
    said = checked.stdout + checked.stderr
    assert "no en translation (its machine draft was rejected on " in said, said

    ko = small / "content/ko/posts/alpha.md"
    ko.write_text(
        ko.read_text(encoding="utf-8").replace("- 둘 3.5배", "- 둘 4.5배"), encoding="utf-8"
    )
    sent = translate_requests(fake)
    again = translate(cli, small, "--to", "en", "--only", "posts/alpha")
    assert again.exit_code == 0, again.stderr
    assert translate_requests(fake) > sent
    assert "rejected" not in again.stderr and "Drafted 1 unit (en)" in again.stderr
    assert "4.5" in sections(en.read_text(encoding="utf-8"))[2]
    drafted = status(small, "en")[key]
    assert drafted.state == "draft"
    assert len(load_status(small, "en", Collector()).rejected[key]) == 1

    ko.write_text(
        ko.read_text(encoding="utf-8").replace("- 둘 4.5배", "- 둘 3.5배"), encoding="utf-8"
    )
    undone = translate(cli, small, "--to", "en", "--only", "posts/alpha")
    assert undone.exit_code == 0, undone.stderr
    assert f"{key}: rejected: its draft is the one rejected on" in undone.stderr, undone.stderr
    assert "4.5" in sections(en.read_text(encoding="utf-8"))[2]  # (the draft for 4.5, stale)
    assert status(small, "en")[key] == drafted


def test_quota_456_midway_keeps_earlier_batches_and_a_rerun_completes(
    cli: Cli, fake: FakeDeepL, small: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.fail_after(4, 456)
    first = translate(cli, small, "--to", "en")
    assert first.exit_code == 1
    assert "DeepL quota exceeded (HTTP 456)" in first.stderr
    assert "run again to resume" in first.stderr
    assert "6 units NOT written (6 not sent: the run stopped)" in first.stderr
    assert first.stderr.count("\n") < 10
    # four requests (alpha's front matter and its three sections): alpha is written
    assert (small / "content/en/posts/alpha.md").is_file()
    assert not (small / "content/en/posts/beta.md").exists()
    assert set(status(small, "en")) == {f"posts/alpha:{k}" for k in
                                        ("title", "description", "body#0", "body#1", "body#2")}  # fmt: skip
    billed_first = fake.billed_chars
    done = len(fake.translate_requests)
    alpha = (small / "content/en/posts/alpha.md").read_bytes()

    fake.clear_faults()
    second = translate(cli, small, "--to", "en")
    assert second.exit_code == 0, second.stderr
    assert (small / "content/en/posts/gamma.md").is_file()
    assert (small / "content/en/posts/alpha.md").read_bytes() == alpha
    texts = [t for r in fake.translate_requests if r.status == 200 for t in r.texts]
    assert len(texts) == len(set(texts)) == 16  # every segment paid for exactly once
    resent = [t for r in fake.translate_requests[done:] for t in r.texts]
    assert fake.billed_chars - billed_first == sum(billable(t) for t in resent)
    third = translate(cli, small, "--to", "en")
    assert "Nothing to draft" in third.stderr


def test_ctrl_c_behaves_like_a_fault(
    cli: Cli, fake: FakeDeepL, small: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = deepl_client.DeepL.translate
    calls: list[int] = []

    def interrupted(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 5:  # alpha took four requests
            raise KeyboardInterrupt
        return original(self, *args, **kwargs)

    monkeypatch.setattr(deepl_client.DeepL, "translate", interrupted)
    first = translate(cli, small, "--to", "en")
    assert first.exit_code == 1
    assert "interrupted (Ctrl-C)" in first.stderr
    assert (small / "content/en/posts/alpha.md").is_file()
    assert not (small / "content/en/posts/gamma.md").exists()
    assert not list(small.rglob("*.tmp"))
    billed = fake.billed_chars

    monkeypatch.setattr(deepl_client.DeepL, "translate", original)
    second = translate(cli, small, "--to", "en")
    assert second.exit_code == 0, second.stderr
    assert (small / "content/en/posts/gamma.md").is_file()
    first_texts = set(fake.translate_requests[0].texts)
    assert not first_texts & {t for r in fake.translate_requests[1:] for t in r.texts}
    assert fake.billed_chars > billed


def test_max_chars_stops_before_the_budget(
    cli: Cli, fake: FakeDeepL, small: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = translate(cli, small, "--to", "en", "--max-chars", "60")
    assert result.exit_code == 1, result.stderr  # units in scope were not written
    sent = [t for r in fake.translate_requests for t in r.texts]
    # only characters DeepL bills count (tags are free): more than 60 with tags
    assert 0 < fake.billed_chars == sum(billable(t) for t in sent) <= 60 < sum(map(len, sent))
    assert "--max-chars reached" in result.stderr and "not sent: --max-chars" in result.stderr
    rest = translate(cli, small, "--to", "en")
    assert rest.exit_code == 0
    assert all((small / f"content/en/posts/{n}.md").is_file() for n in ("alpha", "beta", "gamma"))


# --------------------------------------------------------------------------- faults


def test_bad_key_exits_1_and_changes_no_file(
    cli: Cli, fake: FakeDeepL, small: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEPL_AUTH_KEY", "wrong-key")
    before = tree_snapshot(small)
    result = translate(cli, small, "--to", "en")
    assert result.exit_code == 1
    assert "DeepL refused the key (HTTP 403): check DEEPL_AUTH_KEY" in result.stderr
    assert "wrong-key" not in result.stderr + result.stdout
    assert tree_snapshot(small) == before


def test_missing_key_exits_2_and_changes_no_file(
    cli: Cli, fake: FakeDeepL, small: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DEEPL_AUTH_KEY")
    before = tree_snapshot(small)
    result = translate(cli, small, "--to", "en")
    assert result.exit_code == 2
    assert "DEEPL_AUTH_KEY is not set" in result.stderr
    assert tree_snapshot(small) == before
    assert fake.requests == []


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("malformed", "malformed response from DeepL"),
        ("hang", "timed out"),
        ("500", "HTTP 500"),
    ],
)
def test_failures_stop_with_one_line(
    cli: Cli,
    fake: FakeDeepL,
    small: Path,
    monkeypatch: pytest.MonkeyPatch,
    fault: str,
    message: str,
) -> None:
    speed_up_deepl_client(monkeypatch, timeout=0.3, max_retries=1)
    if fault == "malformed":
        # a malformed answer is asked again segment by segment; three in a row stop the run
        fake.malformed_next("wrong_count", times=10, path="/v2/translate")
    elif fault == "hang":
        fake.hang_next(5, times=2, path="/v2/translate")
    else:
        fake.fail_next(500, times=5, path="/v2/translate")
    before = tree_snapshot(small)
    result = translate(cli, small, "--to", "en")
    assert result.exit_code == 1
    lines = [line for line in result.stderr.splitlines() if line.startswith("bipub translate:")]
    assert len(lines) == 1 and message in lines[0]
    assert {k for k in tree_snapshot(small)} == set(before)


def test_network_down_stops_with_one_line(
    cli: Cli, small: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dead = FakeDeepL().start()
    url = dead.url
    dead.stop()
    monkeypatch.setenv("DEEPL_AUTH_KEY", SECRET)
    monkeypatch.setenv("DEEPL_SERVER_URL", url)
    speed_up_deepl_client(monkeypatch, timeout=0.5, max_retries=1)
    result = translate(cli, small, "--to", "en")
    assert result.exit_code == 1
    assert f"no answer from {url}" in result.stderr


def test_429_is_retried_by_the_client(cli: Cli, fake: FakeDeepL, small: Path) -> None:
    fake.fail_next(429, path="/v2/translate")
    result = translate(cli, small, "--to", "en")
    assert result.exit_code == 0, result.stderr
    statuses = [r.status for r in fake.translate_requests]
    assert statuses[:2] == [429, 200] and set(statuses[2:]) == {200}


def test_the_key_never_appears_in_output_or_files(cli: Cli, fake: FakeDeepL, small: Path) -> None:
    outputs = [
        translate(cli, small, "--to", "en", "--dry-run"),
        translate(cli, small, "--to", "en", "--only", "posts/alpha"),
        cli("-C", str(small), "-v", "check"),
    ]
    fake.fail_next(403)
    outputs.append(translate(cli, small, "--to", "en"))
    assert outputs[-1].exit_code == 1
    for out in outputs:
        assert SECRET not in out.stdout + out.stderr
    for rel, data in tree_snapshot(small).items():
        assert SECRET.encode() not in data, rel


def test_an_answer_holding_the_key_is_written_scrubbed_and_said(
    cli: Cli, fake: FakeDeepL, small: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A short key (a DeepL-compatible server's) matches ordinary words of the answers: they
    are written with *** in the key's place (the key is never written), and the run says so."""
    fake.auth_keys = frozenset({"eo"})  # in most romanized syllables (서 → seo)
    monkeypatch.setenv("DEEPL_AUTH_KEY", "eo")
    result = translate(cli, small, "--to", "en")
    drafted = "".join(
        p.read_text(encoding="utf-8") for p in (small / "content/en/posts").glob("*.md")
    )
    assert "***" in drafted
    # said once for the run, not once a request
    assert result.stderr.count("held DEEPL_AUTH_KEY or 8 or more characters of it") == 1


# --------------------------------------------------------------------------- what is written where


def test_a_reviewed_translation_is_never_overwritten(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    old_ko = post("글", "옛 문단.\n")
    new_ko = post("글", "새 문단 2.\n")
    en = "---\ntitle: Post\n---\n\nThe old paragraph.\n"
    reviewed = StatusRecord(
        source_hash=text_hash("옛 문단."),
        source="옛 문단.",
        state="reviewed",
        reviewer="r",
        translation_hash=text_hash("The old paragraph."),
    )
    title = StatusRecord(source_hash=text_hash("글"), source="글", state="reviewed")
    root = make(
        tmp_path / "rev",
        {
            "content/ko/posts/p.md": new_ko,
            "content/en/posts/p.md": en,
            "status/en.yaml": dump_status({"posts/p:body#0": reviewed, "posts/p:title": title}),
        },
    )
    assert old_ko != new_ko
    result = translate(cli, root, "--to", "en")
    assert result.exit_code == 0, result.stderr
    assert (root / "content/en/posts/p.md").read_text() == en
    rec = status(root, "en")["posts/p:body#0"]
    assert rec.state == "reviewed" and rec.source_hash == reviewed.source_hash
    assert rec.draft is not None and "2" in rec.draft
    again = translate(cli, root, "--to", "en")
    assert "1 stored draft unchanged" in again.stderr and "0 characters billed" in again.stderr


def test_a_new_file_gets_the_source_text_in_place_of_the_rejected_drafts(
    cli: Cli, fake: FakeDeepL, small: Path
) -> None:
    """Every unit of a post rejected (its file deleted), then one section's source edited: the
    new file needs every unit; the rejected ones get their source text, as drafts to redo,
    never the rejected text, and each is said."""
    assert translate(cli, small, "--to", "en", "--only", "posts/alpha").exit_code == 0
    en = small / "content/en/posts/alpha.md"
    rejected_text = en.read_text(encoding="utf-8")
    assert cli("-C", str(small), "review", "reject", "posts/alpha").exit_code == 0
    ko = small / "content/ko/posts/alpha.md"
    ko.write_text(
        ko.read_text(encoding="utf-8").replace("- 둘 3.5배", "- 둘 4.5배"), encoding="utf-8"
    )
    result = translate(cli, small, "--to", "en", "--only", "posts/alpha")
    assert result.exit_code == 0, result.stderr
    assert "posts/alpha:title: rejected: its draft is the one rejected on" in result.stderr
    assert "its source text stands in, marked as a draft to redo" in result.stderr
    assert "Drafted 1 unit (en)" in result.stderr, result.stderr
    text = en.read_text(encoding="utf-8")
    assert 'title: "알파 글"' in text and "4.5" in sections(text)[2]
    assert sections(text)[0] == sections(ko.read_text(encoding="utf-8"))[0]
    assert sections(text)[0] not in rejected_text
    recs = status(small, "en")
    key = "posts/alpha:title"
    assert recs[key].state == "draft"
    assert recs[key].options and "untranslated" in recs[key].options
    again = translate(cli, small, "--to", "en", "--only", "posts/alpha")
    assert again.exit_code == 0, again.stderr
    assert "posts/alpha:title: rejected: " in again.stderr
    assert "its source text stands in, marked as a draft to redo" in again.stderr  # (still)
    assert en.read_text(encoding="utf-8") == text

    # the source standing in is no translation: never approved, not even with --force or
    # by approve --all (skipped, and said)
    before = (en.read_bytes(), (small / "status/en.yaml").read_bytes())
    for flags in ((), ("--force",), ("--keep-current",)):
        refused = cli("-C", str(small), "review", "approve", "--reviewer", "r", *flags, key)
        assert refused.exit_code == 1, refused.stderr
        said = (
            f"{key}: its text is the ko source standing in for a translation (its draft was "
            "rejected), not a translation to approve"
        )
        assert said in refused.stderr, refused.stderr
    assert (en.read_bytes(), (small / "status/en.yaml").read_bytes()) == before
    swept = cli("-C", str(small), "review", "approve", "--all", "--lang", "en", "--reviewer", "r")
    assert f"skipped {key} [en]: its text is the ko source standing in" in swept.stdout + (
        swept.stderr
    )
    assert status(small, "en")[key].state == "draft"


def test_a_rejected_waiting_draft_does_not_come_back_beside_the_reviewed_text(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    """A draft waiting beside a reviewed translation, rejected: the next run does not put
    the same text back beside it (it says so); the reviewed text stays as it was."""
    reviewed = StatusRecord(
        source_hash=text_hash("옛 문단."),
        source="옛 문단.",
        state="reviewed",
        reviewer="r",
        translation_hash=text_hash("The old paragraph."),
    )
    title = StatusRecord(source_hash=text_hash("글"), source="글", state="reviewed")
    en = "---\ntitle: Post\n---\n\nThe old paragraph.\n"
    root = make(
        tmp_path / "beside",
        {
            "content/ko/posts/p.md": post("글", "새 문단 2.\n"),
            "content/en/posts/p.md": en,
            "status/en.yaml": dump_status({"posts/p:body#0": reviewed, "posts/p:title": title}),
        },
    )
    assert translate(cli, root, "--to", "en").exit_code == 0
    assert status(root, "en")["posts/p:body#0"].draft is not None
    assert cli("-C", str(root), "review", "reject", "posts/p:body#0").exit_code == 0
    assert status(root, "en")["posts/p:body#0"].draft is None
    again = translate(cli, root, "--to", "en")
    assert again.exit_code == 0, again.stderr
    assert "posts/p:body#0: rejected: its draft is the one rejected on" in again.stderr
    rec = status(root, "en")["posts/p:body#0"]
    assert rec.draft is None and rec.state == "reviewed"
    assert (root / "content/en/posts/p.md").read_text() == en


def test_stale_machine_draft_is_replaced_but_an_edited_one_is_not(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    ko = post("글", "첫 문단 새로.\n\n## 둘\n\n둘째 문단 새로.\n")
    en = "---\ntitle: Post\n---\n\nFirst draft.\n\n## Two\n\nSecond, edited by hand.\n"

    def machine(source: str, translation: str) -> StatusRecord:
        return StatusRecord(
            source_hash=text_hash(source),
            source=source,
            origin="machine",
            engine="deepl",
            state="draft",
            translation_hash=text_hash(translation),
        )

    root = make(
        tmp_path / "drafts",
        {
            "content/ko/posts/p.md": ko,
            "content/en/posts/p.md": en,
            "status/en.yaml": dump_status(
                {
                    "posts/p:title": StatusRecord(source_hash=text_hash("글"), state="reviewed"),
                    "posts/p:body#0": machine("첫 문단.", "First draft."),
                    "posts/p:body#1": machine("## 둘\n\n둘째 문단.", "## Two\n\nSecond draft."),
                }
            ),
        },
    )
    result = translate(cli, root, "--to", "en")
    assert result.exit_code == 0, result.stderr
    text = (root / "content/en/posts/p.md").read_text()
    assert "First draft." not in text and "cheos mundan saero." in text
    assert "## Two\n\nSecond, edited by hand." in text  # the edited draft stays
    records = status(root, "en")
    assert records["posts/p:body#0"].source_hash == text_hash("첫 문단 새로.")
    assert records["posts/p:body#1"].draft is not None
    assert text.startswith("---\ntitle: Post\n---\n")


def test_missing_fields_and_sections_are_filled_in_an_existing_translation(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    ko = post("글", "하나.\n\n## 둘\n\n둘째.\n\n## 셋\n\n셋째.\n", "description: 설명\n")
    en = "---\ntitle: Post  # kept comment\n---\n\nOne.\n"
    root = make(tmp_path / "fill", {"content/ko/posts/p.md": ko, "content/en/posts/p.md": en})
    result = translate(cli, root, "--to", "en")
    assert result.exit_code == 0, result.stderr
    text = (root / "content/en/posts/p.md").read_text()
    assert text.startswith('---\ntitle: Post  # kept comment\ndescription: "seolmyeong"\n---\n')
    assert sections(text) == ["One.", "## dul\n\nduljjae.", "## ses\n\nsesjjae."]
    assert set(status(root, "en")) == {
        "posts/p:description",
        "posts/p:body#1",
        "posts/p:body#2",
    }


def test_cv_units_fill_the_translation_keeping_comments(
    make_project: Callable[[str], Path], cli: Cli, fake: FakeDeepL
) -> None:
    root = make_project("minimal")
    cv = root / "content/ko/cv.yaml"
    cv.write_text(
        "# 한국어 이력서 (comment kept)\n" + cv.read_text(encoding="utf-8"), encoding="utf-8"
    )
    result = translate(cli, root, "--to", "ko")
    assert result.exit_code == 0, result.stderr
    text = cv.read_text(encoding="utf-8")
    assert text.startswith("# 한국어 이력서 (comment kept)\n")
    data = load_yaml(text, "cv").data
    assert data["experience"][0]["achievements"][0] == "그것을 출시했습니다."
    assert len(data["experience"][0]["achievements"]) == 2
    assert "cv:experience[company=Acme].achievements[1]" in status(root, "ko")


def test_a_new_cv_translation_holds_text_and_identity_fields_only(
    make_project: Callable[[str], Path], cli: Cli, fake: FakeDeepL
) -> None:
    root = make_project("minimal")
    (root / "content/ko/cv.yaml").unlink()
    result = translate(cli, root, "--to", "ko")
    assert result.exit_code == 0, result.stderr
    data = load_yaml((root / "content/ko/cv.yaml").read_text(encoding="utf-8"), "cv").data
    assert "name" not in data and "contact" not in data  # shared fields stay in the source
    assert data["stats"][0]["url"] == "https://example.org/pr/1"  # identity of the item
    assert "number" not in data["stats"][0]
    assert data["experience"][0]["company"] == "Acme"
    assert "internship" not in data["experience"][0]
    check = cli("-C", str(root), "check", "--format", "json", "--lang", "ko")
    codes = {f["code"] for f in json.loads(check.stdout)["findings"]}
    assert "missing" not in codes and "pairing" not in codes and "draft" in codes


def test_gettext_msgstr_drafted_fuzzy_with_placeholders(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    po = (
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Posted on %(date)s by {name}"\nmsgstr ""\n\n'
        'msgid "Read more"\nmsgstr "더 읽기"\n'
    )
    root = make(
        tmp_path / "ui",
        {"content/ko/posts/a.md": post("가", "나.\n"), "content/en/posts/a.md": post("A", "B.\n"),
         "locales/ko/LC_MESSAGES/messages.po": po},
    )  # fmt: skip
    result = translate(cli, root, "--to", "ko")
    assert result.exit_code == 0, result.stderr
    from babel.messages.pofile import read_po

    with (root / "locales/ko/LC_MESSAGES/messages.po").open("rb") as fh:
        catalog = read_po(fh)
    msg = catalog.get("Posted on %(date)s by {name}")
    assert msg is not None and msg.fuzzy
    assert "%(date)s" in msg.string and "{name}" in msg.string and "Posted" not in msg.string
    assert catalog.get("Read more").string == "더 읽기"
    assert not (root / "status/ko.yaml").exists()  # the fuzzy flag is the draft marker


def test_ui_strings_the_theme_translates_are_skipped_and_plurals_drafted(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    po = (
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
        '"Plural-Forms: nplurals=1; plural=0;\\n"\n\n'
        'msgid "All posts"\nmsgstr ""\n\n'  # the bundled theme translates it
        'msgid "%(num)d comment"\nmsgid_plural "%(num)d comments"\nmsgstr[0] ""\n'
    )
    root = make(
        tmp_path / "ui",
        {"content/ko/posts/a.md": post("가", "나.\n"), "content/en/posts/a.md": post("A", "B.\n"),
         "locales/ko/LC_MESSAGES/messages.po": po},
    )  # fmt: skip
    result = translate(cli, root, "--to", "ko")
    assert result.exit_code == 0, result.stderr
    assert "translated by the bundled theme" in result.stderr and "'All posts'" in result.stderr
    sent = [t for r in fake.translate_requests for t in r.texts]
    assert "All posts" not in sent
    assert sent == ["<k>%(num)d</k> comments"]  # Korean has one plural form: the plural's
    from babel.messages.pofile import read_po

    with (root / "locales/ko/LC_MESSAGES/messages.po").open("rb") as fh:
        catalog = read_po(fh, locale="ko")
    assert catalog.get("All posts").string == ""  # the theme's translation is used
    plural = catalog.get("%(num)d comment")
    assert plural is not None and plural.fuzzy
    assert len(plural.string) == 1 and plural.string[0].startswith("%(num)d ")
    assert "comments" not in plural.string[0]


def test_glossary_synced_once_and_applied_keep_terms_protected(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    glossary = "terms:\n  - en: scheduler\n    ko: 스케줄러\nkeep:\n  - vLLM\n"
    root = make(
        tmp_path / "gl",
        {
            "glossary.yaml": glossary,
            "content/ko/posts/a.md": post("스케줄러 이야기", "vLLM의 스케줄러를 본다.\n"),
        },
    )
    result = translate(cli, root, "--to", "en")
    assert result.exit_code == 0, result.stderr
    text = (root / "content/en/posts/a.md").read_text()
    assert "vLLM" in text and "scheduler" in text
    request = fake.translate_requests[-1]
    assert request.params.get("glossary_id")
    assert request.params["ignore_tags"] == ["k"]
    assert any("<k>vLLM</k>" in t for r in fake.translate_requests for t in r.texts)

    (root / "content/ko/posts/a.md").write_text(
        post("스케줄러 이야기", "vLLM의 스케줄러를 다시 본다.\n")
    )
    assert translate(cli, root, "--to", "en").exit_code == 0
    v3 = [r for r in fake.requests if r.path == "/v3/glossaries"]
    assert [r.method for r in v3] == ["GET", "POST", "GET"]  # created once, then reused
    assert fake.translate_requests[-1].params["glossary_id"] == request.params["glossary_id"]

    # a changed glossary: a new one on DeepL, and the one it replaces is deleted there
    (root / "glossary.yaml").write_text(
        glossary.replace("keep:", "  - {en: block, ko: 블록}\nkeep:")
    )
    (root / "content/ko/posts/a.md").write_text(post("스케줄러 이야기", "블록을 본다.\n"))
    third = translate(cli, root, "--to", "en")
    assert third.exit_code == 0, third.stderr
    old_id = request.params["glossary_id"]
    assert [r.method for r in fake.requests if r.path == f"/v3/glossaries/{old_id}"] == ["DELETE"]
    assert "deleted the DeepL glossary" in third.stderr
    new_id = fake.translate_requests[-1].params["glossary_id"]
    assert new_id != old_id and fake.glossary_entries(new_id)
    with pytest.raises(KeyError):
        fake.glossary_entries(old_id)


def test_options_from_bipub_yaml(cli: Cli, fake: FakeDeepL, tmp_path: Path) -> None:
    config = CONFIG + (
        "translate:\n  formality: more\n  context: LLM serving blog\n  glossary: false\n"
    )
    files = {"bipub.yaml": config, "content/ko/posts/a.md": BETA}
    root = make(tmp_path / "opts", {**files, "glossary.yaml": "terms:\n  - {en: a, ko: 가}\n"})
    result = translate(cli, root, "--to", "en")
    assert result.exit_code == 0, result.stderr
    params = fake.translate_requests[-1].params
    assert params["formality"] == "prefer_more"  # DeepL has no formality for English
    # bipub.yaml's context, then the neighbouring source text (free of charge)
    assert params["context"].startswith("LLM serving blog\n\n")
    assert params["tag_handling"] == "xml" and params["source_lang"] == "KO"
    assert "glossary_id" not in params
    assert not [r for r in fake.requests if "glossar" in r.path]  # glossary sync is off
    rec = status(root, "en")["posts/a:title"]
    assert rec.options is not None and rec.options["formality"] == "prefer_more"


def test_only_narrows_and_unknown_language_is_a_usage_error(
    cli: Cli, fake: FakeDeepL, small: Path
) -> None:
    result = translate(cli, small, "--to", "en", "--only", "posts/beta")
    assert result.exit_code == 0, result.stderr
    assert (small / "content/en/posts/beta.md").is_file()
    assert not (small / "content/en/posts/alpha.md").exists()
    assert translate(cli, small, "--to", "fr").exit_code == 2


def test_drafts_with_qa_findings_are_written_and_reported(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    # the fake turns "3만" into "3man": a changed number, which QA must flag
    root = make(tmp_path / "qa", {"content/ko/posts/a.md": post("가", "사용자 3만 명.\n")})
    result = translate(cli, root, "--to", "en")
    assert result.exit_code == 0, result.stderr
    assert "numbers:" in result.stderr and "1 finding" in result.stderr
    assert (root / "content/en/posts/a.md").is_file()
    rec = status(root, "en")["posts/a:body#0"]
    assert rec.options is not None and rec.options.get("qa") == "numbers"


def test_a_new_part_takes_the_name_its_series_has(
    make_project: Callable[[str], Path], cli: Cli, fake: FakeDeepL
) -> None:
    """A new part of a translated series was drafted with the series' name sent to DeepL on
    its own: it came back worded otherwise than the reviewed name its other parts have, and
    the series' page showed only theirs (now said: `series-names`). It takes their name."""
    root = make_project("demo")
    (root / "content/ko/posts/vllm-scheduler-3.md").write_text(
        '---\ntitle: "[vLLM] 스케줄러 분석 3부: chunked prefill"\ndate: 2026-02-12\n'
        'series: "vLLM 스케줄러 분석"\nseries_order: 3\n---\n\n긴 프롬프트는 조각냅니다.\n',
        encoding="utf-8",
    )
    result = translate(cli, root, "--to", "en", "--only", "posts/vllm-scheduler-3")
    assert result.exit_code == 0, result.stderr
    en = (root / "content/en/posts/vllm-scheduler-3.md").read_text(encoding="utf-8")
    assert load_yaml(en.split("---\n")[1], "x").data["series"] == "vLLM scheduler deep dive"
    sent = [text for request in fake.translate_requests for text in request.texts]
    assert not any("스케줄러 분석</" in t or t == "vLLM 스케줄러 분석" for t in sent), sent
    assert "posts/vllm-scheduler-3:series: the series' name in en as posts/vllm-scheduler-1" in (
        result.stderr
    )
    assert "1 series name as the series' other parts have it" in result.stderr
    rec = status(root, "en")["posts/vllm-scheduler-3:series"]
    assert rec.state == "draft"  # a draft to review like any other
    build = cli("-C", str(root), "build", "--lang", "en", "--only", "html")
    assert build.exit_code == 0, build.stderr
    assert "series-names" not in build.stderr


def test_a_section_inserted_in_the_source_keeps_the_reviewed_wording_of_those_after(
    make_project: Callable[[str], Path], cli: Cli, fake: FakeDeepL
) -> None:
    """Sections pair by position: a section inserted in a Korean post moved every later one to
    the next key, whose recorded source was another section's. Each was sent to DeepL again,
    and adopting those drafts replaced the reviewer's wording with DeepL's. Only the new
    section is sent now; the moved ones are drafted with the reviewed text they had."""
    root = make_project("demo")
    ko_path = root / "content/ko/posts/speculative-decoding.md"
    en_path = root / "content/en/posts/speculative-decoding.md"
    ko, en_before = ko_path.read_text(encoding="utf-8"), en_path.read_text(encoding="utf-8")
    old_en = sections(en_before)
    second = ko.index("\n## ", ko.index("\n## ") + 1)
    ko_path.write_text(ko[:second] + "\n## 새로 넣은 절\n\n새 절입니다.\n" + ko[second:], "utf-8")
    assert len(sections(ko_path.read_text(encoding="utf-8"))) == len(old_en) + 1

    result = translate(cli, root, "--to", "en", "--only", "posts/speculative-decoding")
    assert result.exit_code == 0, result.stderr
    sent = [t for request in fake.translate_requests for t in request.texts]
    assert all("새" in t for t in sent) and len(sent) == 2, sent  # the heading, the paragraph
    records = status(root, "en")
    new = records["posts/speculative-decoding:body#2"]
    assert new.draft is not None and "새" not in new.draft  # the new section, drafted
    assert new.draft_engine == "deepl"
    for i in range(3, len(old_en)):  # each moved section: its reviewed text, waiting beside
        rec = records[f"posts/speculative-decoding:body#{i}"]
        assert rec.state == "reviewed" and rec.draft == old_en[i - 1], i
        assert rec.draft_engine == "memory", i  # (not DeepL's: nothing of it was sent)
    # the last section (a key the translation did not have) is written with its reviewed text
    en_after = sections(en_path.read_text(encoding="utf-8"))
    assert en_after[: len(old_en)] == old_en and en_after[-1] == old_en[-1]
    last = records[f"posts/speculative-decoding:body#{len(old_en)}"]
    # it was recorded as DeepL's, "copied: nothing to translate (code, numbers, URLs only)"
    assert (last.state, last.engine) == ("draft", "memory")
    assert last.options is not None and "copied" not in last.options
    assert last.options["kept"].endswith(
        "segments worded as the present translations have them (not sent)"
    )
    said = cli("-C", str(root), "check").stdout
    assert f"posts/speculative-decoding:body#{len(old_en)}: draft (memory) not yet reviewed" in said
