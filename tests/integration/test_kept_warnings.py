"""An update keeps the pages whose fingerprint did not change, most pages at once
(render/workers.py `_keep_known`): the warnings of their bodies are still said, from the
notes the last build kept (MarkdownCache.replay_all), as a clean build says them."""

from __future__ import annotations

import shutil
from pathlib import Path

from bipub.cache import BuildCache
from bipub.pipeline import Kept, build
from tests.conftest import PROJECTS

WARNS = """---
title: 경고 글
description: 코드 언어를 모르는 글
date: 2025-02-01
tags: [vllm]
---

## 소개

```nosuchlanguage
x = 1
```
"""


def test_an_update_says_the_warnings_of_the_bodies_of_the_pages_it_keeps(tmp_path: Path) -> None:
    project = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", project)
    (project / "content/ko/posts/warns.md").write_text(WARNS, encoding="utf-8")
    kept = Kept(BuildCache())
    cold = build(project, only={"html"}, kept=kept)
    said = [d for d in cold.warnings if d.code == "code-language"]
    assert said, "the body does not warn: the test shows nothing"
    beta = project / "content/ko/posts/beta.md"  # (not a neighbour of the post that warns)
    beta.write_text(beta.read_text(encoding="utf-8") + "\n더 씁니다.\n", encoding="utf-8")
    update = build(project, only={"html"}, kept=kept)
    assert update.reused > 0, "no page kept: the test shows nothing"
    assert [d for d in update.warnings if d.code == "code-language"] == said
