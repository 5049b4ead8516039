# ruff: noqa: F811 - pytest fixtures imported by name
"""Segments and their cache (issue 15 items 4 and 5): an edit re-sends only what changed, a
failed answer is never served, an answer in flight when Ctrl-C comes is saved."""

from __future__ import annotations

import os
import shutil
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bipub.pair.status import StatusRecord, dump_status
from bipub.pair.units import text_hash
from bipub.translate.cache import DraftCache
from tests.conftest import CliResult
from tests.deepl_fake import FakeDeepL
from tests.deepl_fake.fixtures import deepl_fake, speed_up_deepl_client  # noqa: F401
from tests.integration.test_translate import make, post, status

SECRET = "bipub-test-secret-segments"
Cli = Callable[..., CliResult]


@pytest.fixture
def fake(deepl_fake: FakeDeepL, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDeepL]:
    deepl_fake.auth_keys = frozenset({SECRET})
    monkeypatch.setenv("DEEPL_AUTH_KEY", SECRET)
    monkeypatch.setenv("DEEPL_SERVER_URL", deepl_fake.url)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    speed_up_deepl_client(monkeypatch, timeout=5.0, max_retries=0)
    yield deepl_fake


def translate(cli: Cli, root: Path) -> CliResult:
    return cli("-C", str(root), "translate", "--to", "en")


KO_BODY = (
    "서론 문단이다.\n\n## 측정\n\n처리량을 재었다. 결과는 157개였다.\n\n"
    "- 첫째 항목\n- 둘째 항목\n\n```sh\nmake bench\n```\n"
)


def approve_all(root: Path, edit: Callable[[str], str] = lambda t: t) -> None:
    """Record every drafted unit as reviewed (as `bipub review approve` does), after `edit`
    changed the English file by hand."""
    path = root / "content/en/posts/p.md"
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    from bipub.diagnostics import Collector
    from bipub.pipeline import load, pair
    from bipub.project import Project

    collector = Collector()
    config, content = load(Project(root), collector)
    site = pair(Project(root), config, content, collector)
    units = {u.key: u for u in site.units if u.target_lang == "en"}
    records = {}
    for key, rec in status(root, "en").items():
        unit = units[key]
        assert unit.translation is not None
        records[key] = rec.model_copy(
            update={
                "state": "reviewed",
                "origin": "human",
                "reviewer": "r",
                "translation_hash": text_hash(unit.translation),
            }
        )
    (root / "status/en.yaml").write_text(dump_status(records), encoding="utf-8")


def test_a_one_sentence_edit_to_a_reviewed_section_re_sends_one_segment(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    root = make(tmp_path / "p", {"content/ko/posts/p.md": post("글", KO_BODY)})
    assert translate(cli, root).exit_code == 0
    # the reviewer rewrites the heading's translation by hand, then approves everything
    approve_all(root, lambda t: t.replace("## cheugjeong", "## Measurement (by hand)"))
    before = len(fake.translate_requests)

    edited = KO_BODY.replace("처리량을 재었다.", "처리량을 다시 재었다.")
    (root / "content/ko/posts/p.md").write_text(post("글", edited), encoding="utf-8")
    # nothing sent (--max-chars 0): the unit is not written, and no segment is said to have
    # kept its translation (the count was the plan's, written or not)
    held = cli("-C", str(root), "translate", "--to", "en", "--max-chars", "0")
    assert held.exit_code == 1, held.stderr
    assert "Drafted 0 units" in held.stderr and "kept" not in held.stderr, held.stderr
    result = translate(cli, root)
    assert result.exit_code == 0, result.stderr
    sent = [t for r in fake.translate_requests[before:] for t in r.texts]
    assert sent == ["처리량을 다시 재었다. 결과는 157개였다."]  # one segment, one text
    assert "3 unchanged segments kept their translation" in result.stderr
    rec = status(root, "en")["posts/p:body#1"]
    assert rec.state == "reviewed" and rec.draft is not None  # waits beside the reviewed text
    # the new draft keeps the reviewed heading and items, with the new paragraph's translation
    assert rec.draft.startswith("## Measurement (by hand)\n\n")
    assert "dasi" in rec.draft and "```sh\nmake bench\n```" in rec.draft


def test_a_failed_answer_is_cached_as_failed_and_asked_again(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    root = make(tmp_path / "p", {"content/ko/posts/p.md": post("글", "`x`를 본다.\n")})
    fake.markup_fault("drop_tags")
    first = translate(cli, root)
    assert first.exit_code == 0, first.stderr
    line = (
        (root / "content/ko/posts/p.md")
        .read_text(encoding="utf-8")
        .split("\n")
        .index("`x`를 본다.")
    )
    assert f"markup: segment 0 (content/ko/posts/p.md:{line + 1}): lost '`x`'" in first.stderr
    cache = DraftCache(root)
    assert cache.failed and all(key not in cache for key in cache.failed)

    # the draft is thrown away; the next run must ask again, not serve the broken answer
    shutil.rmtree(root / "content/en")
    (root / "status/en.yaml").unlink()
    fake.markup_fault(None)
    before = len(fake.translate_requests)
    second = translate(cli, root)
    assert second.exit_code == 0, second.stderr
    assert [t for r in fake.translate_requests[before:] for t in r.texts] == ['<x i="0"/>를 본다.']
    assert "markup" not in second.stderr and "1 cache hit" in second.stderr  # the title
    assert "`x`reul bonda." in (root / "content/en/posts/p.md").read_text(encoding="utf-8")


def test_a_malformed_answer_is_asked_again_once_alone(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    root = make(tmp_path / "p", {"content/ko/posts/p.md": post("글", "`x`를 본다.\n")})
    fake.markup_fault("malformed_xml", match="본다", times=1)
    result = translate(cli, root)
    assert result.exit_code == 0, result.stderr
    sent = [t for r in fake.translate_requests for t in r.texts]
    assert sent.count('<x i="0"/>를 본다.') == 2  # asked again, alone, and the answer was good
    assert "markup" not in result.stderr
    assert "`x`reul bonda." in (root / "content/en/posts/p.md").read_text(encoding="utf-8")


def test_ctrl_c_while_an_answer_is_in_flight_saves_it(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    root = make(
        tmp_path / "p",
        {
            "content/ko/posts/a.md": post("가", "첫 글 문단.\n"),
            "content/ko/posts/b.md": post("나", "둘째 글 문단.\n"),
        },
    )
    fake.hang_next(1.0, path="/v2/translate", respond=True)  # a slow first answer

    def interrupt() -> None:
        for _ in range(500):  # until the first request is in flight (bounded)
            if fake.translate_requests:
                break
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGINT)

    killer = threading.Thread(target=interrupt)
    killer.start()
    first = translate(cli, root)
    killer.join()
    assert first.exit_code == 1
    assert "interrupted (Ctrl-C)" in first.stderr
    paid = fake.translate_requests[0]
    assert paid.status == 200  # answered after the Ctrl-C, and billed
    cache = DraftCache(root)
    assert len(cache.entries) == len(paid.texts)  # ... and saved

    before = len(fake.translate_requests)
    second = translate(cli, root)
    assert second.exit_code == 0, second.stderr
    resent = {t for r in fake.translate_requests[before:] for t in r.texts}
    assert not resent & set(paid.texts)  # nothing paid for is asked again
    assert (root / "content/en/posts/a.md").is_file() and (root / "content/en/posts/b.md").is_file()


def test_status_records_of_drafts_stay_compatible(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    root = make(tmp_path / "p", {"content/ko/posts/p.md": post("글", KO_BODY)})
    assert translate(cli, root).exit_code == 0
    records = status(root, "en")
    assert set(records) == {"posts/p:title", "posts/p:body#0", "posts/p:body#1"}
    for rec in records.values():
        assert isinstance(rec, StatusRecord)
        assert rec.state == "draft" and rec.origin == "machine" and rec.engine == "deepl"


def test_a_finding_names_the_line_of_the_source_file(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    """A lost code span in the second paragraph of the second section: the finding names the
    source file's line of that paragraph, not its line in the section (user21)."""
    body = "첫 문단이다.\n\n## 둘째\n\n둘째 절이다.\n\n`x`를 본다.\n"
    root = make(tmp_path / "p", {"content/ko/posts/p.md": post("글", body)})
    fake.markup_fault("drop_tags")
    result = translate(cli, root)
    assert result.exit_code == 0, result.stderr
    lines = (root / "content/ko/posts/p.md").read_text(encoding="utf-8").split("\n")
    at = lines.index("`x`를 본다.") + 1
    assert f"posts/p:body#1: markup: segment 2 (content/ko/posts/p.md:{at}): lost '`x`'" in (
        result.stderr
    )
