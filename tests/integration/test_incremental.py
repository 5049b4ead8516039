"""Incremental builds equal clean builds, byte for byte, after any sequence of edits.

A hypothesis state machine edits a copy of the 'minimal' project (add, edit, rename and delete
posts; change a template, the config, a catalog, a translation's status) and after every step
compares the incremental build (with .bipub-cache/) with a clean build (--no-cache) in another
folder, output and warnings. Steps that change nothing, or that damage the published site by
hand, are included: the up-to-date check must neither rebuild for nothing nor miss a damaged
output. Body, title, tags and date edits exercise the quick rebuild (src/bipub/quick.py).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from bipub.pipeline import build
from tests.conftest import PROJECTS, tree_snapshot

POST = """---
title: {title}
description: {desc}
date: 2026-0{month}-1{day}
tags: [{tag}]
---

## 소개

{body} `code` [링크](https://example.org/{n}).
"""

EN_POST = """---
title: {title}
---

## Intro

{body} `code` [link](https://example.org/{n}).
"""

# PDFs have their own cache and tests (tests/integration/test_pdf.py); leaving them out keeps
# this test fast enough to explore many edit sequences.
KINDS = {"html", "json", "feeds", "llms"}


def _folders(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_dir())


def _without_pdf(files: dict[str, bytes]) -> dict[str, bytes]:
    return {p: data for p, data in files.items() if not p.endswith(".pdf")}


words = st.sampled_from(["캐시", "스케줄러", "배치", "cache", "KV", "서빙", "토큰"])
text = st.lists(words, min_size=1, max_size=4).map(" ".join)


class IncrementalEqualsClean(RuleBasedStateMachine):
    @initialize()
    def setup(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="bipub-incremental-"))
        self.project = self.tmp / "p"
        shutil.copytree(PROJECTS / "minimal", self.project)
        self.names: list[str] = ["alpha", "beta"]
        self.counter = 0
        build(self.project, only=KINDS)

    def teardown(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _post(self, name: str, title: str, body: str, lang: str = "ko") -> None:
        self.counter += 1
        path = self.project / "content" / lang / "posts" / f"{name}.md"
        template = POST if lang == "ko" else EN_POST
        path.write_text(
            template.format(
                title=title,
                desc=body,
                month=1 + self.counter % 8,
                day=self.counter % 9,
                tag=["vllm", "kv-cache", "KV cache", "scheduler"][self.counter % 4],
                body=body,
                n=self.counter,
            ),
            encoding="utf-8",
        )

    @rule(title=text, body=text)
    def add_post(self, title: str, body: str) -> None:
        name = f"post-{self.counter}"
        self._post(name, title, body)
        self.names.append(name)

    @rule(data=st.data(), title=text, body=text)
    def edit_post(self, data: st.DataObject, title: str, body: str) -> None:
        if self.names:
            self._post(data.draw(st.sampled_from(self.names)), title, body)

    @rule(data=st.data(), title=text, body=text)
    def translate_post(self, data: st.DataObject, title: str, body: str) -> None:
        if self.names:
            self._post(data.draw(st.sampled_from(self.names)), title, body, lang="en")

    def _existing_post(self, data: st.DataObject) -> Path | None:
        """A post file of either language, if the drawn one exists."""
        if not self.names:
            return None
        name = data.draw(st.sampled_from(self.names))
        lang = data.draw(st.sampled_from(["ko", "en"]))
        path = self.project / "content" / lang / "posts" / f"{name}.md"
        return path if path.exists() else None

    @rule(
        data=st.data(),
        body=text,
        extra=st.sampled_from(["", "heading", "code", "unknown-code", "unsafe-link", "long"]),
    )
    def edit_body(self, data: st.DataObject, body: str, extra: str) -> None:
        """Only the body changes (the front matter stays byte for byte): a quick rebuild
        (src/bipub/quick.py) unless the reading time or a translation state changes."""
        path = self._existing_post(data)
        if path is None:
            return
        text = path.read_text(encoding="utf-8")
        end = text.index("\n---\n", 4) + 5
        tail = {
            "": "",
            "heading": "\n## 새 절\n\n더 있습니다.\n",
            "code": "\n```python\nx = 2\n```\n",
            "unknown-code": "\n```nosuchlang\nx\n```\n",
            "unsafe-link": "\n[눌러](javascript:alert(1))\n",
            "long": "\n" + "긴 문단입니다. " * 300 + "\n",
        }[extra]
        path.write_text(text[:end] + f"\n## 소개\n\n{body}\n{tail}", encoding="utf-8")

    @rule(
        data=st.data(),
        field=st.sampled_from(["title", "description"]),
        value=st.sampled_from(["캐시", "스케줄러 <b>&</b>", "[KV] cache", "캐시"]),
    )
    def retitle(self, data: st.DataObject, field: str, value: str) -> None:
        """Only the title or the description changes (often back to an earlier one): a quick
        rebuild (src/bipub/quick.py), in a series too (alpha and beta: the series pages and
        every member's series box), unless the series' title-prefix warning changes."""
        path = self._existing_post(data)
        if path is None:
            return
        lines = path.read_text(encoding="utf-8").split("\n")
        end = lines.index("---", 1)
        head = [line for line in lines[1:end] if not line.startswith(f"{field}:")]
        if field == "title" or data.draw(st.booleans()):  # a description may also go
            head.insert(0 if field == "title" else len(head), f"{field}: {json.dumps(value)}")
        path.write_text("\n".join(["---", *head, *lines[end:]]), encoding="utf-8")

    @rule(
        data=st.data(),
        tags=st.lists(
            st.sampled_from(["vllm", "kv-cache", "KV cache", "scheduler", "새-태그", "rust"]),
            max_size=3,
        ),
    )
    def retag(self, data: st.DataObject, tags: list[str]) -> None:
        """Only the tags change (or go): a quick rebuild (src/bipub/quick.py `_relist`) for a post
        whose tags keep their names: tag pages re-paginated, made or removed (and the series
        page of a series member)."""
        path = self._existing_post(data)
        if path is None:
            return
        lines = path.read_text(encoding="utf-8").split("\n")
        end = lines.index("---", 1)
        head = [line for line in lines[1:end] if not line.startswith("tags:")]
        if tags or data.draw(st.booleans()):  # no tags line, or an empty list
            head.append(f"tags: [{', '.join(tags)}]")
        path.write_text("\n".join(["---", *head, *lines[end:]]), encoding="utf-8")

    @rule(
        data=st.data(),
        day=st.sampled_from(["2026-01-05", "2026-04-07", "2026-05-01", "2026-09-30"]),
        updated=st.sampled_from([None, "2026-10-01"]),
    )
    def redate(self, data: st.DataObject, day: str, updated: str | None) -> None:
        """Only the date (and the update) of a Korean post change: a quick rebuild
        (src/bipub/quick.py `_relist`): listings reordered (a series member that the date would
        move in its series builds in full)."""
        if not self.names:
            return
        path = (
            self.project
            / "content"
            / "ko"
            / "posts"
            / f"{data.draw(st.sampled_from(self.names))}.md"
        )
        lines = path.read_text(encoding="utf-8").split("\n")
        end = lines.index("---", 1)
        head = [ln for ln in lines[1:end] if not ln.startswith(("date:", "updated:"))]
        head.append(f"date: {day}")
        if updated:
            head.append(f"updated: {updated}")
        path.write_text("\n".join(["---", *head, *lines[end:]]), encoding="utf-8")

    @rule(data=st.data())
    def delete_post(self, data: st.DataObject) -> None:
        if len(self.names) > 1:
            name = data.draw(st.sampled_from(self.names))
            for lang in ("ko", "en"):
                (self.project / "content" / lang / "posts" / f"{name}.md").unlink(missing_ok=True)
            self.names.remove(name)

    @rule(data=st.data())
    def rename_post(self, data: st.DataObject) -> None:
        if self.names:
            name = data.draw(st.sampled_from(self.names))
            new = f"renamed-{self.counter}"
            self.counter += 1
            for lang in ("ko", "en"):
                src = self.project / "content" / lang / "posts" / f"{name}.md"
                if src.exists():
                    src.rename(src.with_name(f"{new}.md"))
            self.names[self.names.index(name)] = new

    @rule(word=words)
    def change_template(self, word: str) -> None:
        templates = self.project / "templates"
        templates.mkdir(exist_ok=True)
        (templates / "post.html").write_text(
            '{% extends "base.html" %}{% block content %}<p>' + word + "</p>{{ post.html }}"
            "{% endblock %}\n",
            encoding="utf-8",
        )

    @rule(word=words)
    def change_config(self, word: str) -> None:
        config = self.project / "bipub.yaml"
        lines = config.read_text(encoding="utf-8").splitlines()
        lines = [
            f"    title: 테스트 {word}" if ln.startswith("    title: 테스트") else ln
            for ln in lines
        ]
        config.write_text("\n".join(lines) + "\n", encoding="utf-8")

    @rule(state=st.sampled_from(["draft", "reviewed"]))
    def change_status(self, state: str) -> None:
        status = self.project / "status"
        status.mkdir(exist_ok=True)
        (status / "en.yaml").write_text(
            f"posts/alpha:title:\n  source_hash: '000000000000'\n  state: {state}\n",
            encoding="utf-8",
        )

    @rule()
    def nothing(self) -> None:
        """No edit: the next build finds the output up to date (src/bipub/uptodate.py)."""

    @rule(data=st.data(), how=st.sampled_from(["delete", "overwrite", "extra"]))
    def damage_output(self, data: st.DataObject, how: str) -> None:
        """Someone changes the published site by hand: the next build must repair it."""
        site = self.project / "site"
        files = sorted(p for p in site.rglob("*") if p.is_file())
        victim = data.draw(st.sampled_from(files))
        if how == "delete":
            victim.unlink()
        elif how == "overwrite":
            victim.write_bytes(b"changed by hand")
        else:
            victim.with_name("planted.html").write_bytes(b"planted")

    @invariant()
    def incremental_equals_clean(self) -> None:
        if not hasattr(self, "project"):
            return
        got = build(self.project, only=KINDS)
        clean = self.tmp / "clean"
        shutil.rmtree(clean, ignore_errors=True)
        want = build(self.project, clean, use_cache=False, only=KINDS)
        incremental = _without_pdf(tree_snapshot(self.project / "site"))
        expected = _without_pdf(tree_snapshot(clean))
        assert sorted(incremental) == sorted(expected)
        assert _folders(self.project / "site") == _folders(clean), got.cache_note
        differing = [p for p in expected if incremental[p] != expected[p]]
        assert not differing, (differing, got.cache_note)
        assert got.warnings == want.warnings, got.cache_note


IncrementalEqualsClean.TestCase.settings = settings(
    max_examples=6,
    stateful_step_count=6,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestIncrementalEqualsClean = IncrementalEqualsClean.TestCase
