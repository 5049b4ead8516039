"""`bipub serve` prints only the warnings that are new since the previous rebuild (issue 18),
and says how many known ones it did not repeat."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bipub.diagnostics import Diagnostic, Severity
from bipub.serve import WarningMemo, report_warnings


def warning(
    code: str, message: str, file: str | None = None, line: int | None = None
) -> Diagnostic:
    return Diagnostic(file, line, code, message, Severity.WARNING)


class FakeUi:
    """The Ui's interface as serve uses it; records what would be printed."""

    def __init__(self) -> None:
        self.printed: list[str] = []

    def diagnostics(self, items: list[Diagnostic]) -> None:
        self.printed.extend(f"{d.format()} [{d.code}]" for d in items)

    def info(self, message: str) -> None:
        self.printed.append(message)

    def debug(self, message: str) -> None:
        pass


A = warning("tag-spellings", "tag 'KV cache' is also written 'kv-cache'")
B = warning("title-prefix", "[vllm] and [vLLM]")
C = warning("missing-file", "logo: no such file", "content/en/cv.yaml", 9)


def test_a_rebuild_prints_only_new_warnings_and_counts_the_known_ones() -> None:
    ui, memo = FakeUi(), WarningMemo()
    memo.begin()
    report_warnings(ui, memo, [A, B])
    assert ui.printed == [f"{A.format()} [tag-spellings]", f"{B.format()} [title-prefix]"]

    ui.printed.clear()
    memo.begin()
    report_warnings(ui, memo, [A, B, C])
    assert ui.printed == [f"{C.format()} [missing-file]", "(2 warnings as before)"]

    ui.printed.clear()
    memo.begin()
    report_warnings(ui, memo, [C])  # A and B were fixed: nothing to say about them
    assert ui.printed == ["(1 warning as before)"]

    ui.printed.clear()
    memo.begin()
    report_warnings(ui, memo, [A, C])  # A is back: new since the previous rebuild
    assert ui.printed == [f"{A.format()} [tag-spellings]", "(1 warning as before)"]


def test_the_pdf_step_of_a_rebuild_does_not_repeat_the_page_warnings() -> None:
    ui, memo = FakeUi(), WarningMemo()
    memo.begin()
    report_warnings(ui, memo, [A])
    report_warnings(ui, memo, [A, C])  # the PDF build reports the content warnings too
    assert ui.printed == [f"{A.format()} [tag-spellings]", f"{C.format()} [missing-file]"]
    ui.printed.clear()
    memo.begin()
    report_warnings(ui, memo, [A])
    report_warnings(ui, memo, [A, C])
    assert ui.printed == ["(1 warning as before)", "(1 warning as before)"]


def test_a_failed_rebuild_leaves_the_memo_alone() -> None:
    ui, memo = FakeUi(), WarningMemo()
    memo.begin()
    report_warnings(ui, memo, [A])
    # a rebuild that fails prints its errors and never calls begin(): the next one compares
    # with the last rebuild that printed its warnings
    ui.printed.clear()
    memo.begin()
    report_warnings(ui, memo, [A])
    assert ui.printed == ["(1 warning as before)"]


def test_serve_prints_a_repeated_warning_once(
    make_project: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The serve loop with the real page builds (the PDF step is faked: no PDF is laid out):
    a tag-spelling warning is printed at the first rebuild, not at the next two."""
    import watchfiles

    from bipub import pipeline
    from bipub.serve import serve

    root = make_project("hand_cv")
    post = root / "content/en/posts/one.md"
    post.write_text(
        post.read_text(encoding="utf-8").replace("date:", "tags: [KV cache]\ndate:"),
        encoding="utf-8",
    )
    two = root / "content/en/posts/two.md"
    two.write_text(
        two.read_text(encoding="utf-8").replace("date:", "tags: [kv-cache]\ndate:"),
        encoding="utf-8",
    )
    real_build = pipeline.build
    others = threading.Semaphore(0)  # (a build of the outputs after the pages: asked for)

    def build(*args: Any, only: set[str] | None = None, **kw: Any) -> Any:
        if only is not None and "html" not in only:
            others.release()
        if only == {"pdf"}:
            return pipeline.BuildResult({}, 0, 0, 0.0, warnings=[], up_to_date=True)
        return real_build(*args, only=only, **kw)

    def edits(*paths: Any, **kw: Any) -> Iterator[set[Any]]:
        # (the watcher's thread: serve_watch.Batches) a save that changes nothing the warnings
        # are about (an empty batch is the watcher saying nothing changed for a while:
        # serve.Follower)
        assert others.acquire(timeout=60)  # (the server's first build)
        yield {(watchfiles.Change.modified, str(two.absolute()))}
        # (the next save once the rebuild of that one is at its last build: not waiting)
        assert others.acquire(timeout=60)
        three = root / "content/en/posts/three.md"
        three.write_text(
            three.read_text(encoding="utf-8").replace("date:", "tags: [Kv Cache]\ndate:"),
            encoding="utf-8",
        )
        # a third spelling: the warning changes, so it is new (the watcher reports the file:
        # serve builds from its change set, tests/integration/test_change_set.py)
        yield {(watchfiles.Change.modified, str(three.absolute()))}

    monkeypatch.setattr(pipeline, "build", build)
    monkeypatch.setattr(watchfiles, "watch", edits)
    ui = FakeUi()
    serve(ui, root, "127.0.0.1", 0, tmp_path / "out")
    spellings = [p for p in ui.printed if p.endswith("[tag-spellings]")]
    assert len(spellings) == 2, ui.printed  # the first rebuild, and the changed warning
    assert "Kv Cache" not in spellings[0] and "Kv Cache" in spellings[1]
    again = [p for p in ui.printed if p.endswith("as before)")]
    # (hand_cv: its posts/four also says sections-out-of-step)
    assert again == ["(4 warnings as before)", "(3 warnings as before)"], ui.printed
