"""Incremental builds equal clean builds, byte for byte, after any sequence of edits.

A hypothesis state machine edits a copy of the 'minimal' project (add, edit, rename and delete
posts; body, title, tags, date, draft and series edits; a template (a page's, the post card's),
the config, a catalog, a translation's status) or moves the build's "now" (SOURCE_DATE_EPOCH:
posts dated after it are scheduled, src/bipub/schedule.py) and after every step compares the incremental
build — every build runs the full build's stages, starting from what the last one left (build cache, BuildState:
src/bipub/buildstate.py), either kept in memory as `bipub serve` keeps it or read back from
.bipub-cache/ as `bipub build` does — with a clean build (--no-cache) in another folder, output
and warnings. Steps that change nothing, or that damage the published site by hand, are
included: the up-to-date check must neither rebuild for nothing nor miss a damaged output.

An update can also be killed at any write (`kill_update`: an exception raised from inside the
output writer, with no clean-up, as a kill leaves it): the site must then be the old one or the
new one, whole, and the next build must equal a clean one.

CI runs 50 examples of 20 steps; `-m slow` runs 300 of 40.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from bipub import buildstate, uptodate
from bipub.cache import BuildCache
from bipub.diagnostics import Diagnostic
from bipub.load.sections import split_sections, text_hash
from bipub.pipeline import Kept, build
from bipub.project import Project
from bipub.render import urls
from bipub.render.first_pages import FirstPages
from bipub.write import files as write_files
from bipub.write import output
from tests.conftest import PROJECTS, tree_snapshot
from tests.integration.test_change_set import reported

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
# a thousand builds write and remove small files: in memory where there is a tmpfs
_TMP = "/dev/shm" if Path("/dev/shm").is_dir() and os.access("/dev/shm", os.W_OK) else None


def _walk(
    root: Path, skip: Callable[[str], bool] = lambda name: False
) -> Iterator[tuple[list[str], list[str], list[str]]]:
    """(relative path parts of a folder, its sub-folders (a symlinked one too, not entered),
    its files) for every folder under `root`, but no top-level file or folder whose name
    `skip` names (os.walk: Path.rglob costs twice the CPU, and these run at every step)."""
    top = str(root)
    for folder, folders, files in os.walk(top):
        rel = os.path.relpath(folder, top).replace(os.sep, "/")
        parts = [] if rel == "." else rel.split("/")
        if not parts:
            folders[:] = [name for name in folders if not skip(name)]
            files = [name for name in files if not skip(name)]
        yield parts, folders, files


def _folders(root: Path) -> list[str]:
    found = [[*parts, name] for parts, folders, _ in _walk(root) for name in folders]
    return ["/".join(parts) for parts in sorted(found)]  # as sorted(Path): part by part


def _output(name: str) -> bool:
    """What bipub writes into the project, no input: the site, its lock, spare copy and
    staging folders (.site.lock, .site.prev, .site.tmp-*), the build cache."""
    return name in ("site", ".bipub-cache") or name.startswith(".site.")


def _without_pdf(files: dict[str, bytes]) -> dict[str, bytes]:
    return {p: data for p, data in files.items() if not p.endswith(".pdf")}


def _digests(files: dict[str, bytes]) -> dict[str, str]:
    return {p: hashlib.sha256(data).hexdigest() for p, data in _without_pdf(files).items()}


def _inputs_digest(project: Path) -> str:
    """Every input file of the project (none of bipub's outputs: `_output`), path and bytes.
    (The previous site in .site.prev/ is no input: counted, it made a new key, and a clean
    build again, of every state of the inputs reached with another site before it.)"""
    found = [[*parts, name] for parts, _, files in _walk(project, _output) for name in files]
    h = hashlib.sha256()
    for parts in sorted(found):
        path = project.joinpath(*parts)
        if path.is_file():
            h.update("/".join(parts).encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _followed(path: str) -> bool:
    """A page `url-removed` is said of when a build drops it (render/removed_urls.py): each of
    the site's pages the edits can take away (a post's, a page's, a side-by-side, tag, series or
    blog page, a redirect page of an alias `set_aliases` gives), not a file planted by hand."""
    return path.endswith(".html") and not path.endswith("planted.html")


def _named(message: str) -> set[str]:
    """The output files of the pages a `url-removed` warning names: the URL it starts with and
    the side-by-side page it names with it."""
    paths = [message.split(" ", 1)[0], *re.findall(r"its side-by-side page (/\S*/)", message)]
    return {urls.output_file(path) for path in paths}


@dataclass(frozen=True)
class Clean:
    """A clean build's output (file digests, no PDFs), folders and warnings."""

    files: dict[str, str]
    folders: list[str]
    warnings: list[Diagnostic]


# The clean build of each state of the inputs met so far, across steps and examples. The clean
# build is the reference, a function of the inputs alone (builds are reproducible:
# test_reproducible.py; file paths in warnings are relative to the project); many steps leave
# the inputs as an earlier step had them (no edit, damaged output, a title set back, a rule
# that found nothing to edit, every example's first state), and then the reference is not
# built again. Only the incremental build under test runs at every step.
_CLEAN: dict[str, Clean] = {}
CLEAN_BUILDS = [0, 0]  # [built, reused]: what the reference cost (for a report)


class Killed(BaseException):
    """A kill, simulated: raised from inside the writer; nothing cleans up after it."""


# every step of the writer that changes a file or folder, and the saves after publishing
WRITES = [
    (write_files, "replace_with_bytes"),
    (write_files, "replace_with_link"),
    (write_files, "remove"),
    (write_files, "link_or_copy"),
    (write_files, "unlink"),
    (write_files, "rmdir"),
    (write_files, "set_aside"),  # (into the build's trash folder: files.Trash)
    (write_files.Trash, "empty"),  # (after the swap)
    (output, "_prune"),
    (output, "_swap"),
    (uptodate, "save"),
    (buildstate, "save"),
]


def _killing(stack: ExitStack, at: int) -> list[int]:
    """Patch the writer so that its `at`-th write raises Killed (and a failed build's staging
    folder is left as a kill leaves it). Returns the count of writes seen."""
    seen = [0]
    for module, name in WRITES:
        real = getattr(module, name)

        def wrapper(*args: Any, _real: Any = real, **kwargs: Any) -> Any:
            seen[0] += 1
            if seen[0] == at:
                raise Killed
            return _real(*args, **kwargs)

        stack.enter_context(mock.patch.object(module, name, wrapper))
    stack.enter_context(mock.patch.object(output.OutputTree, "discard", lambda self: None))
    return seen


# the build's "now" (SOURCE_DATE_EPOCH) `move_clock` sets: before, between and after the posts'
# dates; the first is the tests' fixed one (tests/conftest.py), every example's start
CLOCK = {
    "2027-01-01": "1798761600",
    "2026-03-01": "1772323200",
    "2026-06-15": "1781481600",
    "2027-03-02": "1803945600",
}

words = st.sampled_from(["캐시", "스케줄러", "배치", "cache", "KV", "서빙", "토큰"])
text = st.lists(words, min_size=1, max_size=4).map(" ".join)


class IncrementalEqualsClean(RuleBasedStateMachine):
    @initialize(resident=st.booleans(), watched=st.booleans())
    def setup(self, resident: bool, watched: bool) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="bipub-incremental-", dir=_TMP))
        self.project = self.tmp / "p"
        os.environ["SOURCE_DATE_EPOCH"] = CLOCK["2027-01-01"]  # (as tests/conftest.py sets it)
        shutil.copytree(PROJECTS / "minimal", self.project)
        self.names: list[str] = ["alpha", "beta"]
        self.counter = 0
        # resident: the cache and state stay in memory (`bipub serve`); else they are read
        # back from .bipub-cache/ by every build (`bipub build`)
        self.kept = Kept(BuildCache()) if resident else None
        # watched (resident only): each build is told what changed since the last one that
        # succeeded, as `bipub serve`'s watcher reports it (tests/integration/test_change_set.py
        # `reported`), and looks at those files of content/ only (uptodate.rescan_inputs)
        self.watched: set[str] | None = set() if resident and watched else None
        self.scanned = uptodate.scan_inputs(Project(self.project))
        self.killed: tuple[dict[str, bytes], dict[str, bytes]] | None = None
        # whether the site as it is now is the one the last build recorded (no kill, no fast
        # render since): then the next build's `url-removed` warnings are exactly its posts'
        # and pages' pages that the new site does not have
        self.recorded = True
        build(self.project, only=KINDS, kept=self.kept)

    def _build(self) -> Any:
        if self.watched is None:
            return build(self.project, only=KINDS, kept=self.kept)
        now = uptodate.scan_inputs(Project(self.project))
        self.watched |= {
            os.path.join(os.path.abspath(self.project), *rel.split("/"))
            for rel in reported(self.scanned, now)
        }
        self.scanned = now
        result = build(self.project, only=KINDS, kept=self.kept, changed=set(self.watched))
        self.watched = set()  # (a build that failed or was killed keeps them for the next)
        return result

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
        """Only the body changes (the front matter stays byte for byte): the post's pages and,
        when its reading time changes, the listings that show its card."""
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
        """Only the title or the description changes (often back to an earlier one), in a
        series too (alpha and beta: the series pages and every member's series box)."""
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
        """Only the tags change (or go): tag pages paginated again, made or removed, tag
        names ranked again."""
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
        # (2027-03-01T10:00+09:00: after the tests' fixed "now", scheduled until `move_clock`)
        day=st.sampled_from(
            ["2026-01-05", "2026-04-07", "2026-05-01", "2026-09-30", "2027-03-01T10:00:00+09:00"]
        ),
        updated=st.sampled_from([None, "2026-10-01"]),
    )
    def redate(self, data: st.DataObject, day: str, updated: str | None) -> None:
        """Only the date (and the update) of a Korean post change: listings reordered, a
        series ordered by date too."""
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

    @rule(now=st.sampled_from(list(CLOCK)))
    def move_clock(self, now: str) -> None:
        """No file changes, but "now" does (SOURCE_DATE_EPOCH): the posts dated between the
        last build's "now" and this one's are published, or held back again (a post dated
        after "now" is scheduled: src/bipub/schedule.py)."""
        os.environ["SOURCE_DATE_EPOCH"] = CLOCK[now]

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

    @rule(word=st.one_of(st.none(), words))
    def change_card_template(self, word: str | None) -> None:
        """The project's own post card (kept from build to build by its key: a changed card
        template must change every listing), or none (the theme's again)."""
        partials = self.project / "templates" / "partials"
        card = partials / "post_card.html"
        if word is None:
            card.unlink(missing_ok=True)
            return
        partials.mkdir(parents=True, exist_ok=True)
        card.write_text(
            f'<li class="mine">{word} {{{{ card.title }}}} {{{{ level }}}} {{{{ number }}}}</li>\n',
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

    @rule(
        data=st.data(),
        state=st.sampled_from(["draft", "reviewed"]),
        current=st.booleans(),
        translation=st.sampled_from([None, "000000000000"]),
    )
    def review_section(
        self, data: st.DataObject, state: str, current: bool, translation: str | None
    ) -> None:
        """A post's first section gets a review record (or a machine draft's), of its current
        source or an older one: only the side-by-side pages show it (issue 19)."""
        if not self.names:
            return
        name = data.draw(st.sampled_from(self.names))
        source = self.project / "content" / "ko" / "posts" / f"{name}.md"
        if not source.exists():
            return
        text = source.read_text(encoding="utf-8")
        body = text[text.index("\n---\n", 4) + 5 :]
        sections = split_sections(body, 1)
        digest = text_hash(sections[0].text) if current and sections else "000000000000"
        status = self.project / "status"
        status.mkdir(exist_ok=True)
        lines = [f"posts/{name}:body#0:", f"  source_hash: '{digest}'", f"  state: {state}"]
        if translation is not None:
            lines.append(f"  translation_hash: '{translation}'")
        (status / "en.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")

    @rule(data=st.data())
    def toggle_draft(self, data: st.DataObject) -> None:
        """A post becomes a draft (it leaves the listings, feeds and its series) or is one no
        more."""
        path = self._existing_post(data)
        if path is None:
            return
        lines = path.read_text(encoding="utf-8").split("\n")
        end = lines.index("---", 1)
        head = [line for line in lines[1:end] if not line.startswith("draft:")]
        if len(head) == end - 1:
            head.append("draft: true")
        path.write_text("\n".join(["---", *head, *lines[end:]]), encoding="utf-8")

    @rule(
        data=st.data(),
        series=st.sampled_from([None, "연재", "다른 연재", "A series"]),
        order=st.sampled_from([None, 1, 2, 3]),
    )
    def change_series(self, data: st.DataObject, series: str | None, order: int | None) -> None:
        """A post joins, leaves or changes its series, or its place in it."""
        path = self._existing_post(data)
        if path is None:
            return
        lines = path.read_text(encoding="utf-8").split("\n")
        end = lines.index("---", 1)
        head = [ln for ln in lines[1:end] if not ln.startswith(("series:", "series_order:"))]
        if series is not None:
            head.append(f"series: {series}")
            if order is not None:
                head.append(f"series_order: {order}")
        path.write_text("\n".join(["---", *head, *lines[end:]]), encoding="utf-8")

    @rule(word=words)
    def change_catalog(self, word: str) -> None:
        """The project's own Korean catalog: the reading time's wording changes."""
        theme = Path(output.__file__).parent.parent / "theme" / "locales" / "ko" / "LC_MESSAGES"
        folder = self.project / "locales" / "ko" / "LC_MESSAGES"
        folder.mkdir(parents=True, exist_ok=True)
        text = (theme / "messages.po").read_text(encoding="utf-8")
        text = text.replace('msgstr "%(n)d분 분량"', f'msgstr "%(n)d분 {word}"')
        (folder / "messages.po").write_text(text, encoding="utf-8")

    @rule(data=st.data(), at=st.integers(min_value=1, max_value=80))
    def kill_update(self, data: st.DataObject, at: int) -> None:
        """An edit, then an update killed at its `at`-th write (or not, if it has fewer)."""
        path = self._existing_post(data)
        if path is None:
            return
        text = path.read_text(encoding="utf-8")
        old = tree_snapshot(self.project / "site")
        path.write_text(text.replace("\n## ", f"\n킬 {at}.\n\n## ", 1) + f"\n킬 {at}\n")
        self.recorded = False
        with ExitStack() as stack:
            _killing(stack, at)
            try:
                self._build()
            except Killed:
                self.killed = (old, tree_snapshot(self.project / "site"))

    @rule(
        data=st.data(),
        edit=st.sampled_from(["add", "delete", "draft", "retitle", "redate", "retag"]),
        then=st.sampled_from(["", "edit", "kill", "fast"]),
    )
    def fast_render(self, data: st.DataObject, edit: str, then: str) -> None:
        """`bipub serve`'s fast render (render/first_pages.py): an edit published first for
        the pages of the entries it changed and those a browser has open, the other changed
        pages keeping their files; then the second step (the invariant's build), or another
        edit, an update killed, or another fast render first. Whatever comes, the site then
        equals a clean build (the deferred pages are never taken for current)."""
        if edit == "add":
            self.add_post(data.draw(text), data.draw(text))
        elif edit == "delete":
            self.delete_post(data)
        elif edit == "draft":
            self.toggle_draft(data)
        elif edit == "retitle":
            self.retitle(data, "title", data.draw(st.sampled_from(["캐시", "새 제목"])))
        elif edit == "redate":
            self.redate(data, data.draw(st.sampled_from(["2026-01-05", "2026-09-30"])), None)
        else:
            self.retag(data, data.draw(st.lists(st.sampled_from(["vllm", "rust"]), max_size=2)))
        pages = sorted(p for p in tree_snapshot(self.project / "site") if p.endswith(".html"))
        shown = data.draw(st.sets(st.sampled_from(pages), max_size=3)) if pages else set()
        self.recorded = False
        build(self.project, only=KINDS, kept=self.kept, first=FirstPages(shown, few=0))
        if then == "edit":
            self.edit_body(data, data.draw(text), "")
        elif then == "kill":
            self.kill_update(data, data.draw(st.integers(min_value=1, max_value=80)))
        elif then == "fast":
            self.edit_body(data, data.draw(text), "")
            build(self.project, only=KINDS, kept=self.kept, first=FirstPages(few=0))

    @rule(data=st.data(), which=st.sets(st.sampled_from(["folder", "html", "hangul", "root"])))
    def set_aliases(self, data: st.DataObject, which: set[str]) -> None:
        """A post's old URLs (front matter `aliases`) are added, changed or removed: each a
        redirect page (render/aliases.py) in the next build, and none once it is removed.
        Named after the file (names are never used twice), so no two posts share one."""
        path = self._existing_post(data)
        if path is None:
            return
        lang, name = path.parent.parent.name, path.stem
        given = {"folder": f"/{lang}/blog/old-{name}/", "html": f"/{lang}/{name}.html"}
        given["hangul"] = f"/{lang}/blog/옛-{name}/"
        given["root"] = f"/old/{name}/"  # (outside the language folders: the source's only)
        if lang != "ko":
            which = which - {"root"}
        lines = path.read_text(encoding="utf-8").split("\n")
        end = lines.index("---", 1)
        head = [line for line in lines[1:end] if not line.startswith("aliases:")]
        if which:
            head.append(f"aliases: [{', '.join(given[w] for w in sorted(which))}]")
        path.write_text("\n".join(["---", *head, *lines[end:]]), encoding="utf-8")

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
        key = _inputs_digest(self.project) + os.environ["SOURCE_DATE_EPOCH"]  # (and "now")
        want = _CLEAN.get(key)
        if want is None:
            clean = self.tmp / "clean"
            # (built over the last clean build: its writes are a full build's, its pages all new)
            result = build(self.project, clean, use_cache=False, only=KINDS)
            want = _CLEAN[key] = Clean(
                _digests(tree_snapshot(clean)), _folders(clean), result.warnings
            )
            CLEAN_BUILDS[0] += 1
        else:
            CLEAN_BUILDS[1] += 1
        expected = want.files
        if self.killed is not None:
            old, seen = self.killed
            self.killed = None
            assert _digests(seen) in (_digests(old), expected), "a half-published site"
        before = {p for p in _digests(tree_snapshot(self.project / "site")) if _followed(p)}
        got = self._build()
        incremental = _digests(tree_snapshot(self.project / "site"))
        assert sorted(incremental) == sorted(expected)
        assert _folders(self.project / "site") == want.folders, got.cache_note
        differing = [p for p in expected if incremental[p] != expected[p]]
        assert not differing, (differing, got.cache_note)
        # `url-removed` compares this build with the last one into the same folder: a clean
        # build into a new one has none to compare with (render/removed_urls.py)
        said = [d for d in got.warnings if d.code == "url-removed"]
        assert [d for d in got.warnings if d not in said] == want.warnings, got.cache_note
        named = {file for d in said for file in _named(d.message)}
        assert named.isdisjoint(incremental), said  # (never a URL the site still has)
        if self.recorded and not got.up_to_date:
            assert named == before - set(incremental), (said, got.cache_note)
        self.recorded = True


class TestIncrementalEqualsClean(IncrementalEqualsClean.TestCase):  # type: ignore[misc,name-defined]
    settings = settings(
        max_examples=50,
        stateful_step_count=20,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )


@pytest.mark.slow
def test_incremental_equals_clean_longer() -> None:
    """The nightly-style run: `pytest -m slow tests/integration/test_incremental.py` (skipped
    unless selected: tests/conftest.py)."""
    run_state_machine_as_test(
        IncrementalEqualsClean,
        settings=settings(
            max_examples=300,
            stateful_step_count=40,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )


# The clean build of each state of the inputs the test below met (two: its title alternates;
# both its runs make the same edits), as _CLEAN for the state machine.
_CLEAN_SITES: dict[str, dict[str, bytes]] = {}


def _clean_site(project: Path, clean: Path) -> dict[str, bytes]:
    key = _inputs_digest(project)
    if key not in _CLEAN_SITES:
        build(project, clean, use_cache=False, only=KINDS)
        _CLEAN_SITES[key] = tree_snapshot(clean)
    return _CLEAN_SITES[key]


@pytest.fixture
def shm_path() -> Iterator[Path]:
    """A temporary folder, in memory where there is a tmpfs (as the state machine's): the test
    below makes some 270 builds."""
    folder = Path(tempfile.mkdtemp(prefix="bipub-kill-", dir=_TMP))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("resident", [False, True], ids=["restored", "resident"])
def test_an_update_killed_at_every_write_leaves_the_old_or_the_new_site(
    shm_path: Path, resident: bool
) -> None:
    """Issue 16 item 3: a retitled post changes its pages, the listings, tag and series pages,
    the feed, posts.json, status.json and the llms files. Killed at each write of that update
    in turn, the site is the old one or the new one, whole; the next build equals a clean one."""
    project = shm_path / "p"
    shutil.copytree(PROJECTS / "minimal", project)
    kept = Kept(BuildCache()) if resident else None
    build(project, only=KINDS, kept=kept)
    post = project / "content/ko/posts/alpha.md"
    source = post.read_text(encoding="utf-8")
    clean = shm_path / "clean"
    at, outcomes = 0, set()
    while True:
        at += 1
        old = tree_snapshot(project / "site")
        # the title alternates between two of two lengths (each update changes the same files;
        # the clean build of each of the two states is made once, not once per write killed)
        post.write_text(
            source.replace("title: ", "title: " + "새" * (1 + at % 2), 1), encoding="utf-8"
        )
        new = _clean_site(project, clean)
        with ExitStack() as stack:
            seen = _killing(stack, at)
            with suppress(Killed):
                build(project, only=KINDS, kept=kept)
        site = tree_snapshot(project / "site")
        assert site in (old, new), f"killed at write {at}: a half-published site"
        outcomes.add("old" if site == old else "new")
        build(project, only=KINDS, kept=kept)
        assert tree_snapshot(project / "site") == new, f"after the kill at write {at}"
        if seen[0] < at:  # the update had fewer writes: every one was killed once
            break
    assert outcomes == {"old", "new"} and at > 20


@pytest.mark.parametrize("resident", [False, True], ids=["restored", "resident"])
def test_an_alias_added_changed_and_removed_makes_and_removes_its_redirect_page(
    shm_path: Path, resident: bool
) -> None:
    """Front matter `aliases` (render/aliases.py): the build after each edit equals a clean
    one, its redirect pages written, moved and removed with it (and their folders)."""
    project = shm_path / "p"
    shutil.copytree(PROJECTS / "minimal", project)
    kept = Kept(BuildCache()) if resident else None
    build(project, only=KINDS, kept=kept)
    post = project / "content/ko/posts/alpha.md"
    source = post.read_text(encoding="utf-8")
    site = project / "site"
    for aliases, present in [
        ("[/ko/blog/old-alpha/, /ko/2019/alpha.html]", {"ko/blog/old-alpha", "ko/2019"}),
        ("[/ko/blog/older-alpha, /old/alpha/]", {"ko/blog/older-alpha", "old"}),
        (None, set()),
    ]:
        text = (
            source if aliases is None else source.replace("---\n", f"---\naliases: {aliases}\n", 1)
        )
        post.write_text(text, encoding="utf-8")
        result = build(project, only=KINDS, kept=kept)
        assert not result.up_to_date
        clean = shm_path / "clean"
        build(project, clean, use_cache=False, only=KINDS)
        assert tree_snapshot(site) == tree_snapshot(clean), aliases
        assert _folders(site) == _folders(clean), aliases
        made = {"ko/blog/old-alpha", "ko/2019", "ko/blog/older-alpha", "old"}
        assert {f for f in made if (site / f).exists()} == present, aliases


def test_a_series_name_written_in_another_language_is_rendered_again_on_its_cards(
    tmp_path: Path,
) -> None:
    """Found by the state machine (session 33): the English alpha leaves its series, then
    names it '연재' as the Korean source does. The series' name is as it was, but it is now
    written in an English file (no `lang="ko"` on its link): the untranslated beta's card in
    the English listings, which was not paired again, showed the old attribute. The entry keys
    take the series' `facts` (its name's language too: pair/model.py Series.facts)."""
    project = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", project)
    path = project / "content" / "en" / "posts" / "alpha.md"
    build(project, only=KINDS)
    for series in (None, "연재"):
        lines = path.read_text(encoding="utf-8").split("\n")
        end = lines.index("---", 1)
        head = [ln for ln in lines[1:end] if not ln.startswith("series:")]
        head += [f"series: {series}"] if series else []
        path.write_text("\n".join(["---", *head, *lines[end:]]), encoding="utf-8")
        build(project, only=KINDS)
        clean = tmp_path / "clean"
        build(project, clean, use_cache=False, only=KINDS)
        want, got = tree_snapshot(clean), tree_snapshot(project / "site")
        assert [p for p in want if got.get(p) != want[p]] == [], series
