"""`bipub check` reuses its last result only while no input changed (src/bipub/uptodate.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bipub.check import run
from bipub.check.cached import run_check


@pytest.fixture
def demo(make_project) -> Path:  # type: ignore[no-untyped-def]
    return make_project("demo")  # type: ignore[no-any-return]


def _forbid_analysis(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("analyzed again although nothing changed")

    monkeypatch.setattr(run, "analyze", fail)


def _codes(result: run.CheckResult) -> list[tuple[str, str | None, str | None]]:
    return [(f.code, f.lang, f.key) for f in result.findings]


def test_unchanged_project_reuses_the_result(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = run_check(demo)
    _forbid_analysis(monkeypatch)
    again = run_check(demo)
    assert _codes(again) == _codes(first)
    assert again.coverage == first.coverage
    assert again.exit_code == first.exit_code


def test_edited_translation_is_checked_again(demo: Path) -> None:
    first = run_check(demo)
    post = demo / "content" / "en" / "posts" / "prefix-caching.md"
    text = post.read_text(encoding="utf-8")
    post.write_text(text.replace("## ", "## 9999 ", 1), encoding="utf-8")
    again = run_check(demo)
    assert _codes(again) != _codes(first)


@pytest.mark.parametrize(
    "edit",
    [
        lambda p: (p / "glossary.yaml").write_text("keep: [vLLM]\n", encoding="utf-8"),
        lambda p: (p / "status" / "en.yaml").touch(),
        lambda p: (p / "static" / "new.txt").write_text("new\n", encoding="utf-8"),
    ],
    ids=["glossary", "status", "new-file"],
)
def test_every_input_kind_invalidates(demo: Path, edit, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    run_check(demo)
    edit(demo)
    calls = []
    original = run.analyze

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(run, "analyze", counting)
    run_check(demo)
    assert calls, "the check ran again"


def test_options_have_their_own_result(demo: Path) -> None:
    everything = run_check(demo)
    only_en = run_check(demo, langs=["en"])
    strict = run_check(demo, strict=True)
    assert {f.lang for f in only_en.findings} <= {"en", None}
    assert strict.exit_code == 1 and len(strict.errors) > len(everything.errors)


def test_unsigned_result_is_not_trusted(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = run_check(demo)
    for path in (demo / ".bipub-cache").glob("check-*.pickle"):
        blob = path.read_bytes()  # 64-byte input stamp, 32-byte signature, pickle
        path.write_bytes(blob[:64] + b"\0" * 32 + blob[96:])  # signature no longer matches
    assert _codes(run_check(demo)) == _codes(first)
    _forbid_analysis(monkeypatch)
    run_check(demo)  # re-signed by the run above


def _forbid_reporting(monkeypatch: pytest.MonkeyPatch) -> None:
    from bipub.check import report

    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("the report was written again although nothing changed")

    monkeypatch.setattr(report, "render", fail)
    _forbid_analysis(monkeypatch)


@pytest.mark.parametrize("fmt", ["text", "json", "github", "html"])
def test_unchanged_project_reuses_the_report(demo: Path, cli, monkeypatch, fmt: str) -> None:  # type: ignore[no-untyped-def]
    first = cli("-C", str(demo), "check", "--format", fmt)
    assert first.stdout.strip()
    with monkeypatch.context() as patched:
        _forbid_reporting(patched)
        again = cli("-C", str(demo), "check", "--format", fmt)
        assert (again.exit_code, again.stdout) == (first.exit_code, first.stdout)
        to_file = cli("-C", str(demo), "check", "--format", fmt, "-o", str(demo / "report.out"))
    assert (demo / "report.out").read_text(encoding="utf-8") == first.stdout
    assert to_file.exit_code == first.exit_code
    assert "report written to" in to_file.stderr


def test_report_is_written_again_after_an_edit(demo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    first = cli("-C", str(demo), "check", "--format", "json")
    post = demo / "content" / "en" / "posts" / "prefix-caching.md"
    text = post.read_text(encoding="utf-8")
    post.write_text(text.replace("## ", "## 9999 ", 1), encoding="utf-8")
    again = cli("-C", str(demo), "check", "--format", "json")
    assert again.stdout != first.stdout
    assert again.stdout == cli("-C", str(demo), "check", "--format", "json").stdout


def test_unsigned_report_is_not_trusted(demo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    first = cli("-C", str(demo), "check", "--format", "github")
    reports = list((demo / ".bipub-cache").glob("check-*-github.report"))
    assert len(reports) == 1
    blob = reports[0].read_bytes()
    # a planted report claiming success, behind the right input stamp, without our signature
    import pickle

    from bipub.check.cached import CachedReport

    fake = pickle.dumps((blob[:64], CachedReport("all good\n", "0 errors", 0)))
    reports[0].write_bytes(blob[:64] + b"\0" * 32 + fake)
    again = cli("-C", str(demo), "check", "--format", "github")
    assert (again.exit_code, again.stdout) == (first.exit_code, first.stdout)
    assert first.exit_code != 0 or "all good" not in again.stdout
