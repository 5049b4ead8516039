# ruff: noqa: F811 - pytest fixtures imported by name
"""Drafting a generated Korean blog through engines that break markup (issue 15).

Under every fault each post is written, its block structure (headings, list and table shape,
code blocks byte for byte) equals the source's, and every segment whose inline elements (code
spans, link targets, emphasis, footnote references) differ from its source's has a finding.
With one segment DeepL refuses, every other unit is written and the exit status is 1.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from bipub.cli import main
from bipub.pair.units import split_sections
from bipub.text.markdown import parser
from bipub.translate.segments import layout, structure
from tests.conftest import CliResult
from tests.deepl_fake import FakeDeepL
from tests.deepl_fake.corpus import write_corpus
from tests.deepl_fake.fixtures import deepl_fake, speed_up_deepl_client  # noqa: F401

SECRET = "bipub-test-secret-faults"
Cli = Callable[..., CliResult]
FINDING = re.compile(r"^\S+: warning: \[en\] (\S+): (\w[\w-]*): (.*)$", re.M)


@pytest.fixture
def fake(deepl_fake: FakeDeepL, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDeepL]:
    deepl_fake.auth_keys = frozenset({SECRET})
    monkeypatch.setenv("DEEPL_AUTH_KEY", SECRET)
    monkeypatch.setenv("DEEPL_SERVER_URL", deepl_fake.url)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    speed_up_deepl_client(monkeypatch, timeout=2.0, max_retries=1)
    yield deepl_fake


def body(text: str) -> str:
    return text.split("---\n", 2)[2]


def inline_signature(text: str) -> tuple[tuple[str, str], ...]:
    """The inline elements of one segment, in order."""
    out: list[tuple[str, str]] = []
    for tok in parser().parse(text):
        for child in tok.children or []:
            if child.type == "code_inline":
                out.append(("code", child.content))
            elif child.type == "link_open":
                out.append(("link", str(child.attrGet("href"))))
            elif child.type in ("em_open", "strong_open", "s_open"):
                out.append(("emphasis", child.type))
            elif child.type == "footnote_ref":
                out.append(("ref", str(child.meta.get("label"))))
    return tuple(out)


def findings(stderr: str) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {}
    for key, code, message in FINDING.findall(stderr):
        out.setdefault(key, []).append((code, message))
    return out


def check_drafts(root: Path, stderr: str, posts: int) -> int:
    """Every post written with the source's structure; each segment whose inline elements
    changed has a finding. Returns the number of segments that changed."""
    found = findings(stderr)
    changed = 0
    for i in range(posts):
        name = f"post-{i:03d}"
        src = (root / f"content/ko/posts/{name}.md").read_text(encoding="utf-8")
        out_path = root / f"content/en/posts/{name}.md"
        assert out_path.is_file(), name
        out = out_path.read_text(encoding="utf-8")
        assert structure(body(out)) == structure(body(src)), name
        src_sections = split_sections(body(src), 1)
        out_sections = split_sections(body(out), 1)
        assert len(src_sections) == len(out_sections)
        for s_sec, o_sec in zip(src_sections, out_sections, strict=True):
            key = f"posts/{name}:body#{s_sec.index}"
            # blocks (link titles are inline: a lost link takes its title along)
            s_segs = [s for s in layout(s_sec.text).segments if s.parent is None]
            o_segs = [s for s in layout(o_sec.text).segments if s.parent is None]
            assert [s.kind for s in s_segs] == [s.kind for s in o_segs], key
            for s_seg, o_seg in zip(s_segs, o_segs, strict=True):
                if inline_signature(s_seg.source) == inline_signature(o_seg.source):
                    continue
                changed += 1
                mine = [m for _, m in found.get(key, []) if m.startswith(f"segment {s_seg.index} ")]
                assert mine, f"{key} segment {s_seg.index}: {s_seg.source!r} → {o_seg.source!r}"
    return changed


@pytest.mark.parametrize(
    ("fault", "posts"),
    [
        ("drop_tags", 100),  # DeepL's own mock server: every tag dropped, every request
        ("drop_one_tag", 30),
        ("move_leading_tag", 30),
        ("malformed_xml", 30),
        (None, 30),
    ],
)
def test_a_generated_blog_survives_markup_faults(
    cli: Cli, fake: FakeDeepL, tmp_path: Path, fault: str | None, posts: int
) -> None:
    root = write_corpus(tmp_path / "blog", posts)
    fake.markup_fault(fault)
    result = cli("-C", str(root), "translate", "--to", "en")
    assert result.exit_code == 0, result.stderr[-2000:]
    changed = check_drafts(root, result.stderr, posts)
    if fault in ("drop_tags", "drop_one_tag", "malformed_xml"):
        assert changed > posts  # the fault did hit, and every hit was reported
    if fault is None:  # (the fake keeps names as DeepL does: no false finding either)
        assert changed == 0 and ", 0 findings" in result.stderr, result.stderr[-2000:]
    if fault == "malformed_xml":  # each malformed answer was asked again once, alone
        assert any(len(r.texts) == 1 for r in fake.translate_requests)


def test_two_answers_swapped_by_the_engine_are_reported(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    posts = 20
    root = write_corpus(tmp_path / "blog", posts)
    fake.markup_fault("swap")
    result = cli("-C", str(root), "translate", "--to", "en")
    assert result.exit_code == 0, result.stderr[-2000:]
    check_drafts(root, result.stderr, posts)
    found = findings(result.stderr)
    swapped = {
        t
        for r in fake.translate_requests
        if len(r.texts) >= 2
        for t in (r.texts[0], r.texts[-1])
        if t != r.texts[-1] or t != r.texts[0]
    }
    assert swapped
    # every unit whose request had two answers exchanged has a finding saying so
    for i in range(posts):
        for sec in split_sections(body(
            (root / f"content/ko/posts/post-{i:03d}.md").read_text(encoding="utf-8")), 1):  # fmt: skip
            sent = [s.encoded.xml for s in layout(sec.text).segments if s.needs_request]
            if len(sent) >= 2 and sent[0] != sent[-1]:
                key = f"posts/post-{i:03d}:body#{sec.index}"
                codes = {c for c, _ in found.get(key, [])}
                assert codes & {"mismatch", "numbers", "markup", "code", "links"}, key


def test_one_refused_segment_leaves_only_its_unit_unwritten(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    posts = 10
    root = write_corpus(tmp_path / "blog", posts)
    src = (root / "content/ko/posts/post-003.md").read_text(encoding="utf-8")
    heading = split_sections(body(src), 1)[2].text.split("\n")[0]  # "## … 2"
    fake.fail_texts(heading.removeprefix("## "), 400)
    result = cli("-C", str(root), "translate", "--to", "en")
    assert result.exit_code == 1
    assert "posts/post-003:body#2: not-written: segment 0 (content/ko/posts/post-003.md:" in (
        result.stderr
    )
    assert "1 unit NOT written" in result.stderr
    # every other unit is written: post 3 too, its section 2 holding the source text as a
    # draft to redo (a new file needs every section)
    assert len(list((root / "content/en/posts").glob("*.md"))) == posts
    out = (root / "content/en/posts/post-003.md").read_text(encoding="utf-8")
    assert heading in out
    assert structure(body(out)) == structure(body(src))

    fake.clear_faults()
    again = cli("-C", str(root), "translate", "--to", "en")
    assert again.exit_code == 0, again.stderr
    assert "Drafted 1 unit (en)" in again.stderr
    assert heading not in (root / "content/en/posts/post-003.md").read_text(encoding="utf-8")
    assert "Nothing to draft" in cli("-C", str(root), "translate", "--to", "en").stderr


def test_two_refused_segments_of_one_section_do_not_stop_the_run(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    root = write_corpus(tmp_path / "blog", 3)
    # an existing translation whose body is missing: the refused section is a unit of its own
    bad = "## 거부 제목\n\n거부 문단이다.\n\n다른 문단이다.\n"
    (root / "content/ko/posts/extra.md").write_text(
        '---\ntitle: "추가"\ndate: 2026-01-05\n---\n\n서론.\n\n' + bad, encoding="utf-8"
    )
    fake.fail_texts("거부", 400)
    result = cli("-C", str(root), "translate", "--to", "en")
    assert result.exit_code == 1
    assert "stopped" not in result.stderr  # two refusals in a row are one section's fault
    assert (
        "posts/extra:body#1: not-written: segment 0 (content/ko/posts/extra.md:8): DeepL HTTP 400"
        in result.stderr
    )
    assert "1 unit NOT written" in result.stderr
    assert len(list((root / "content/en/posts").glob("*.md"))) == 4


def _said(root: Path, key: str, field: str = "findings") -> list[str] | None:
    import yaml

    records = yaml.safe_load((root / "status/en.yaml").read_text(encoding="utf-8"))
    return records[key].get(field)


def test_what_drafting_said_stays_with_the_draft_until_it_is_reviewed_or_rejected(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    """A lost tag put back or an emphasis lost can only be seen while drafting: the status
    record keeps it, `check` and `review show` say it, until the draft is reviewed or rejected
    (before, it was printed once by `translate` and gone)."""
    import json

    root = write_corpus(tmp_path / "blog", 3)
    fake.markup_fault("drop_one_tag")
    result = cli("-C", str(root), "translate", "--to", "en")
    assert result.exit_code == 0, result.stderr[-2000:]
    # translate prints the segment's line in the source file, the record keeps its line in
    # the unit (still right when lines above the unit change): compared without the line
    where = re.compile(r"^(segment \d+) \([^)]*\)")
    printed = {
        (key, code, where.sub(r"\1", message))
        for key, items in findings(result.stderr).items()
        for code, message in items
        if message.startswith("segment ")
    }
    assert printed
    assert all(
        re.search(r"\(content/ko/posts/[^:]+:\d+\)", m)
        for _, items in findings(result.stderr).items()
        for _, m in items
        if m.startswith("segment ")
    )

    def reported() -> set[tuple[str, str, str]]:
        out = cli("-C", str(root), "check", "--format", "json")
        return {
            (
                f["key"],
                f["code"],
                where.sub(r"\1", f["message"].removesuffix(" (said when drafted)")),
            )
            for f in json.loads(out.stdout)["findings"]
            if f["message"].endswith(" (said when drafted)")
        }

    assert reported() == printed  # every one, and nothing else
    key = min(k for k, _, _ in printed if k.endswith(":body#0"))
    code, message = min((c, m) for k, c, m in printed if k == key)
    shown = cli("-C", str(root), "review", "show", key)
    assert code in shown.stdout and "(said when drafted)" in shown.stdout
    assert message.split(" ", 2)[2] in shown.stdout  # (the segment's line aside)
    name = key.split("/", 1)[1].split(":", 1)[0]
    post, src = root / f"content/en/posts/{name}.md", root / f"content/ko/posts/{name}.md"

    # a draft edited by hand is no longer the text they were said of: not said of it
    original = post.read_text(encoding="utf-8")
    post.write_text(original.replace("\n---\n\n", "\n---\n\nEdited by hand. ", 1), encoding="utf-8")
    now = reported()
    assert key not in {k for k, _, _ in now}
    assert now == {f for f in printed if f[0] != key}  # the other units' still are
    post.write_text(original, encoding="utf-8")

    # approving the drafted text is refused while its drafting said something, as a QA error
    # is (check cannot find a lost tag again: the reviewer is told, not the record wiped)
    before = (root / "status/en.yaml").read_text(encoding="utf-8")
    refused = cli("-C", str(root), "review", "approve", key, "--reviewer", "jiwon")
    assert refused.exit_code != 0
    assert f"{key}: its drafting said: " in refused.stderr, refused.stderr
    assert message.split(" ", 2)[2] in refused.stderr and "approve with --force" in refused.stderr
    assert (root / "status/en.yaml").read_text(encoding="utf-8") == before
    also = cli("-C", str(root), "review", "approve", "--file", str(post), "--reviewer", "jiwon")
    assert also.exit_code != 0 and f"{key}: its drafting said: " in also.stderr, also.stderr
    # review -i shows what its drafting said and asks, as for QA errors; declined: nothing
    listed = cli("-C", str(root), "review", "list").stdout.splitlines()
    queue = [line.split()[1] for line in listed if line.startswith("  ")]
    walk = CliRunner().invoke(
        main,
        ["-C", str(root), "review", "-i", "--reviewer", "jiwon"],
        input="s\n" * queue.index(key) + "a\nn\nq\n",
        catch_exceptions=False,
    )
    assert "said when drafted" in walk.stdout and message.split(" ", 2)[2] in walk.stdout
    assert "Approve despite what was found?" in walk.stdout, walk.stdout[-1500:]
    assert (root / "status/en.yaml").read_text(encoding="utf-8") == before

    # approved with --force: the record forgets them, check no longer says them, and the
    # approval says what was accepted with it
    approved = cli("-C", str(root), "review", "approve", key, "--reviewer", "jiwon", "--force")
    assert approved.exit_code == 0, approved.stderr
    out = approved.stdout + approved.stderr
    assert f"approved {key} [en] with what its drafting said (--force): {code}: " in out, out
    assert message.split(" ", 2)[2] in out
    assert _said(root, key) is None
    assert key not in {k for k, _, _ in reported()}

    # a newer draft beside the reviewed text carries its own, shown with the waiting draft;
    # rejecting that draft forgets them
    text = src.read_text(encoding="utf-8")
    src.write_text(
        text.replace("\n---\n\n", "\n---\n\n새 문장은 `new_flag` 옵션을 씁니다. ", 1),
        encoding="utf-8",
    )
    fake.markup_fault("drop_tags", match="새 문장")
    again = cli("-C", str(root), "translate", "--to", "en")
    assert again.exit_code == 0, again.stderr[-2000:]
    said = _said(root, key, "draft_findings")
    assert said and any("new_flag" in s for s in said), (said, again.stderr[-1500:])
    assert _said(root, key) is None  # (the reviewed text in the file: nothing)
    out = json.loads(cli("-C", str(root), "check", "--format", "json").stdout)
    waits = [f for f in out["findings"] if f["key"] == key and f["code"] == "draft"]
    assert any(
        q["message"].endswith("(said when drafted)") and "new_flag" in q["message"]
        for f in waits
        for q in f["waiting_draft"]["qa"]
    ), waits
    adopting = cli("-C", str(root), "review", "approve", key, "--reviewer", "jiwon")
    assert adopting.exit_code != 0
    assert f"{key}: the waiting draft's drafting said: " in adopting.stderr, adopting.stderr
    rejected = cli("-C", str(root), "review", "reject", key)
    assert rejected.exit_code == 0, rejected.stderr
    assert _said(root, key) is None and _said(root, key, "draft_findings") is None

    # a draft edited by hand is approved as edited, and the approval says what its drafting
    # had said (the edit may not have mended it)
    other = min(k for k, _, _ in printed if k.endswith(":body#0") and k != key)
    other_post = root / f"content/en/posts/{other.split('/', 1)[1].split(':', 1)[0]}.md"
    edited = other_post.read_text(encoding="utf-8").replace("\n---\n\n", "\n---\n\nBy hand. ", 1)
    other_post.write_text(edited, encoding="utf-8")
    note = cli("-C", str(root), "review", "approve", other, "--reviewer", "jiwon", "--force")
    assert note.exit_code == 0, note.stderr
    said_before = {m for k, _, m in printed if k == other}
    assert f"{other} [en] was edited since it was drafted; its drafting had said: " in (
        note.stdout + note.stderr
    ), note.stdout + note.stderr
    assert any(m.split(" ", 2)[2] in note.stdout + note.stderr for m in said_before)


def _draft_one(cli: Cli, tmp_path: Path, post: str) -> tuple[Path, CliResult]:
    """A one-post Korean blog with `post` as its text, drafted into English (exit status 0)."""
    root = write_corpus(tmp_path / "blog", 1)
    (root / "content/ko/posts/post-000.md").write_text(post, encoding="utf-8")
    result = cli("-C", str(root), "translate", "--to", "en")
    assert result.exit_code == 0, result.stderr[-2000:]
    return root, result


def test_a_footnote_defined_in_another_section_is_drafted(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    """A post's footnotes are mostly defined in its last section and referenced from earlier
    ones; each section is a unit of its own. The reading dialect dropped a definition its own
    unit did not reference, so its prose was never sent: the English post was published with
    the Korean footnote and nothing said so."""
    root, _ = _draft_one(
        cli,
        tmp_path,
        "---\ntitle: 메모리 예산\ndate: 2025-11-02\n---\n\n"
        "처리량이 떨어졌습니다.[^1] 원인은 설정이었습니다.[^note]\n\n"
        "## 결론\n\n1. 가중치는 정밀도에 비례한다.\n\n"
        "[^1]: vLLM 0.6.3 기준입니다.\n    0.7.0부터는 기본값이 바뀌었습니다.\n\n"
        "[^note]: 둘째 주석입니다.\n",
    )
    out = (root / "content/en/posts/post-000.md").read_text(encoding="utf-8")
    definitions = [line for line in out.splitlines() if line.startswith("[^")]
    assert [d.split(":")[0] for d in definitions] == ["[^1]", "[^note]"], out
    hangul = re.compile(r"[\uac00-\ud7a3]")
    assert not hangul.search(out), out  # the continuation line too
    assert "0.6.3" in out and "0.7.0" in out


def test_a_diagram_with_words_is_said_to_be_left_in_korean(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    """A ```mermaid block is code to the parser, so it is never sent: its Korean labels were
    published in the English post and nothing said so (an HTML block has a finding)."""
    root, result = _draft_one(
        cli,
        tmp_path,
        "---\ntitle: 요청 흐름\ndate: 2025-11-05\n---\n\n요청이 들어옵니다.\n\n"
        "```mermaid\nflowchart LR\n  A[요청 도착] --> B{KV 캐시 여유?}\n```\n\n"
        "```mermaid\nflowchart LR\n  A --> B\n```\n\n"
        "```python\nprint('한글 문자열')\n```\n",
    )
    said = findings(result.stderr).get("posts/post-000:body#0", [])
    assert said == [
        (
            "untranslated",
            "content/ko/posts/post-000.md:8: a Mermaid diagram is never sent to DeepL; "
            "translate its labels by hand",
        )
    ], result.stderr
    check = cli("-C", str(root), "check")
    assert "a Mermaid diagram is never sent" in check.stdout + check.stderr


def test_an_edited_draft_keeps_its_findings_while_a_new_draft_waits_beside(
    cli: Cli, fake: FakeDeepL, tmp_path: Path
) -> None:
    """Two drafts of one unit, each with what its own drafting said: a draft edited by hand
    (its drafting lost a tag) and, its source changed since, a new draft waiting beside it
    (whose drafting lost the new code span). Before, the record kept one `findings`: the
    waiting draft's replaced the edited draft's, so approving the edit (--keep-current, or
    after rejecting the waiting draft) no longer said what its drafting had found."""
    import json

    root = write_corpus(tmp_path / "blog", 3)
    fake.markup_fault("drop_one_tag")
    first = cli("-C", str(root), "translate", "--to", "en")
    assert first.exit_code == 0, first.stderr[-2000:]
    keys = sorted(k for k, items in findings(first.stderr).items() if k.endswith(":body#0"))
    assert len(keys) >= 2, keys
    kept, rejected = keys[:2]
    own = {k: _said(root, k) for k in keys[:2]}
    assert all(own.values()), own

    def post(key: str, lang: str) -> Path:
        return root / f"content/{lang}/posts/{key.split('/', 1)[1].split(':', 1)[0]}.md"

    for key in (kept, rejected):  # edited by hand, then the source changes
        en, ko = post(key, "en"), post(key, "ko")
        en.write_text(
            en.read_text(encoding="utf-8").replace("\n---\n\n", "\n---\n\nBy hand. ", 1),
            encoding="utf-8",
        )
        ko.write_text(
            ko.read_text(encoding="utf-8").replace(
                "\n---\n\n", "\n---\n\n새 문장은 `new_flag` 옵션을 씁니다. ", 1
            ),
            encoding="utf-8",
        )
    fake.markup_fault("drop_tags", match="새 문장")
    again = cli("-C", str(root), "translate", "--to", "en")
    assert again.exit_code == 0, again.stderr[-2000:]
    status = yaml_records(root)
    for key in (kept, rejected):
        rec = status[key]
        assert rec["state"] == "draft" and rec.get("draft"), rec
        # each draft's findings travel with it
        assert rec.get("findings") == own[key], rec
        waiting = rec.get("draft_findings")
        assert waiting and any("new_flag" in s for s in waiting), rec
        assert not any("new_flag" in s for s in rec["findings"]), rec
    # check shows the waiting draft with its own findings, not the edited draft's
    out = json.loads(cli("-C", str(root), "check", "--format", "json").stdout)
    (waits,) = [f for f in out["findings"] if f["key"] == kept and f["code"] == "draft"]
    where = re.compile(r"(: segment \d+) \([^)]*\)")  # (check names the source file's line)
    said = {
        where.sub(r"\1", f"{q['code']}: {q['message'].removesuffix(' (said when drafted)')}")
        for q in waits["waiting_draft"]["qa"]
        if q["message"].endswith(" (said when drafted)")
    }
    stored = {where.sub(r"\1", s) for s in status[kept]["draft_findings"]}  # type: ignore[attr-defined]
    assert said == stored, said
    assert all(
        f"({post(kept, 'ko').relative_to(root)}:" in q["message"]
        for q in waits["waiting_draft"]["qa"]
        if q["message"].startswith("segment ")
    ), waits

    # approving the edit beside the waiting draft says what its own drafting had said
    note = cli("-C", str(root), "review", "approve", kept, "--reviewer", "jiwon", "--keep-current",
               "--force")  # fmt: skip
    assert note.exit_code == 0, note.stderr
    told = note.stdout + note.stderr
    assert f"{kept} [en] was edited since it was drafted; its drafting had said: " in told, told
    assert all(bare(line.split(": ", 1)[1]) in bare(told) for line in own[kept] or ()), told
    # the waiting draft's findings are not named; the approved edit's own QA error, let through
    # by --force, is (it lacks the new code span)
    assert [line for line in told.splitlines() if "new_flag" in line] == [
        f"approved {kept} [en] with QA errors (--force): code: code span `new_flag` of the "
        "source is missing or changed"
    ], told

    # rejecting the waiting draft keeps the edited draft's own; approving the edit says them
    dropped = cli("-C", str(root), "review", "reject", rejected)
    assert dropped.exit_code == 0, dropped.stderr
    rec = yaml_records(root)[rejected]
    assert rec.get("findings") == own[rejected] and "draft_findings" not in rec, rec
    note = cli("-C", str(root), "review", "approve", rejected, "--reviewer", "jiwon", "--force")
    assert note.exit_code == 0, note.stderr
    told = note.stdout + note.stderr
    assert f"{rejected} [en] was edited since it was drafted; its drafting had said: " in told
    assert all(bare(line.split(": ", 1)[1]) in bare(told) for line in own[rejected] or ()), told


def bare(text: str) -> str:
    """`text` with each segment's line left out (recorded as the unit's line, said as the
    source file's, or as a line of the source the draft was made from)."""
    return re.sub(r"(segment \d+) \([^)]*\)", r"\1", text)


def yaml_records(root: Path) -> dict[str, dict[str, object]]:
    import yaml

    records: dict[str, dict[str, object]] = yaml.safe_load(
        (root / "status/en.yaml").read_text(encoding="utf-8")
    )
    return records
