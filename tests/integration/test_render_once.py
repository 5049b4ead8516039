"""Every body is parsed once per build (issue 19's cold-build cost): its post page, the
side-by-side pages that show it (render/both.py: the same render cut into sections) and
llms-full.txt (render/llms_body.py: where the headings are, what the links point to) all come
from one parse, in whichever process renders them.

Markdown parses are counted by source text in a file every process appends to (the render
workers are forked: a counter in memory would not see theirs).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from bipub.pipeline import build
from bipub.render import workers
from tests.conftest import PROJECTS

KINDS = {"html", "json", "feeds", "llms"}


def _count_parses(monkeypatch: pytest.MonkeyPatch, log: Path) -> None:
    real = MarkdownIt.parse

    def parse(self: MarkdownIt, src: str, env: Any = None) -> Any:
        digest = hashlib.sha256(src.strip("\n").encode("utf-8")).hexdigest()[:16]
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            os.write(fd, f"{digest}\n".encode())
        finally:
            os.close(fd)
        return real(self, src, env)

    monkeypatch.setattr(MarkdownIt, "parse", parse)


def _bodies(root: Path) -> dict[str, str]:
    """Each post's body (as the parses are counted: without its leading and trailing blank
    lines) by its digest."""
    out = {}
    for path in sorted(root.glob("content/*/posts/*.md")):
        body = path.read_text(encoding="utf-8").split("---\n", 2)[2].strip("\n")
        out[hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]] = path.relative_to(
            root / "content"
        ).as_posix()
    return out


@pytest.mark.parametrize("workers_", [1, 2])
def test_each_post_body_is_parsed_once_per_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers_: int
) -> None:
    """The 'side_by_side' project: a post in two languages with its two side-by-side pages,
    Korean-only posts shown in English as they are. With workers (forced, a page a chunk), an
    entry's pages are still rendered in one process."""
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "side_by_side", root)
    log = tmp_path / "parses"
    monkeypatch.setenv("BIPUB_WORKERS", str(workers_))
    monkeypatch.setattr(workers, "MIN_PAGES_TO_RENDER_IN_WORKERS", 0)
    monkeypatch.setattr(workers, "CHUNK", 1)
    _count_parses(monkeypatch, log)
    build(root, only=KINDS, use_cache=False)
    assert (root / "site/en/blog/paired/both/index.html").is_file()
    parses = Counter(log.read_text().split())
    counted = {rel: parses[digest] for digest, rel in _bodies(root).items()}
    assert counted == {
        "en/posts/paired.md": 1,
        "ko/posts/newer.md": 1,
        "ko/posts/older.md": 1,
        "ko/posts/paired.md": 1,
        "ko/posts/unlisted.md": 0,  # a draft: not published, never rendered
    }
