"""render/after_pages.py: the outputs made after the pages, one language in a forked helper;
what the helper made (files, warnings, parts and their counts, notes) comes back here, and its
errors (and its death) are raised here."""

from __future__ import annotations

import os
import select
from dataclasses import dataclass, field

import pytest

from bipub.diagnostics import Collector, Diagnostic, DiagnosticError
from bipub.render import after_pages
from bipub.render.after_pages import render_after
from bipub.render.parts import Parts
from bipub.write.output import OutputFile


class Tree:
    """What render_after asks of an OutputTree."""

    def __init__(self) -> None:
        self.files: dict[str, OutputFile] = {}
        self.released = 0

    def add(self, path: str, lang: str) -> None:
        self.files[path] = OutputFile(lang, f"made by {os.getpid()}")

    def attach(self) -> Tree:
        return Tree()

    def merge(self, files: dict[str, OutputFile]) -> None:
        assert not set(files) & set(self.files)
        self.files.update(files)

    def release_in_child(self) -> None:
        self.released += 1


@dataclass
class Markdown:
    collector: Collector
    notes: dict[str, tuple[Diagnostic, ...]] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)

    def used_notes(self) -> dict[str, tuple[Diagnostic, ...]]:
        return {key: self.notes[key] for key in self.used}

    def merge(self, notes: dict[str, tuple[Diagnostic, ...]]) -> None:
        self.notes.update(notes)
        self.used.update(notes)


@dataclass
class Job:
    langs: list[str]
    collector: Collector = field(default_factory=Collector)
    parts: Parts = field(default_factory=Parts)
    markdown: Markdown = field(init=False)

    def __post_init__(self) -> None:
        self.markdown = Markdown(self.collector)


PARENT = os.getpid()


class Kind:
    """Writes a file, warns, makes a part and uses a note per language (all marked with the
    process that did it); `fail` raises in that language. The shared part (made here first)
    waits until the helper has started a language (else this process, faster, could take
    both before it starts: each is claimed when it is started)."""

    def __init__(self, fail: str = "", wait: bool = False) -> None:
        self.fail = fail
        self.wait = wait
        self.read, self.write = os.pipe()

    def render_lang(self, job: Job, tree: Tree, lang: str) -> None:
        if os.getpid() != PARENT:
            os.write(self.write, b"x")
        if lang == self.fail:
            raise DiagnosticError([Diagnostic("x.md", 3, "yaml", f"broken in {lang}")])
        tree.add(f"{lang}/feed.xml", lang)
        job.markdown.collector.warning(f"{lang}.md", 1, "ui-untranslated", f"said in {lang}")
        job.parts.get(f"part {lang}".encode(), lambda: f"{lang} by {os.getpid()}")
        key = f"note {lang}"
        job.markdown.notes[key] = (Diagnostic(f"{lang}.md", 2, "yaml", "noted"),)
        job.markdown.used.add(key)

    def render_shared(self, job: Job, tree: Tree) -> None:
        if self.wait:  # (if the helper never starts: on after 20 s)
            select.select([self.read], [], [], 20)
        tree.add("sitemap.xml", "")


@pytest.fixture
def forking(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIPUB_WORKERS", "2")
    monkeypatch.setattr(after_pages, "can_fork", lambda: True)  # (a thread other tests left)


def test_a_language_made_by_the_helper_comes_back_whole(forking: None) -> None:
    job, tree = Job(["ko", "en"]), Tree()
    render_after(job, tree, [Kind(wait=True)], after_pages.MIN_POSTS_FOR_HELPER)
    assert set(tree.files) == {"ko/feed.xml", "en/feed.xml", "sitemap.xml"}
    makers = {info.origin for info in tree.files.values()}
    assert makers == {f"made by {os.getpid()}", *makers} and len(makers) == 2  # (a helper's)
    assert sorted(d.message for d in job.collector.items) == ["said in en", "said in ko"]
    assert set(job.parts.now) == {b"part ko", b"part en"}
    assert job.parts.made == 2  # (the helper's counted too: `-v`'s parts note)
    assert {str(v).split(" by ")[1] for v in job.parts.now.values()} == {
        info.origin.removeprefix("made by ") for info in tree.files.values()
    }
    assert set(job.markdown.used_notes()) == {"note ko", "note en"}


def test_the_same_made_here_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIPUB_WORKERS", "2")
    job, tree = Job(["ko", "en"]), Tree()
    render_after(job, tree, [Kind()], after_pages.MIN_POSTS_FOR_HELPER - 1)  # (too few)
    assert {info.origin for info in tree.files.values()} == {f"made by {os.getpid()}"}
    assert set(job.parts.now) == {b"part ko", b"part en"} and job.parts.made == 2
    assert tree.released == 0


@pytest.mark.parametrize("failing", ["ko", "en"])
def test_an_error_in_either_process_is_raised_here(forking: None, failing: str) -> None:
    job, tree = Job(["ko", "en"]), Tree()
    with pytest.raises(DiagnosticError) as info:
        render_after(job, tree, [Kind(fail=failing, wait=True)], after_pages.MIN_POSTS_FOR_HELPER)
    assert info.value.diagnostics[0].message == f"broken in {failing}"


def test_a_helper_that_dies_is_an_error(forking: None) -> None:
    parent = os.getpid()

    class Dies(Kind):
        def render_lang(self, job: Job, tree: Tree, lang: str) -> None:
            if os.getpid() != parent:
                os.write(self.write, b"x")
                os._exit(3)
            super().render_lang(job, tree, lang)

    with pytest.raises(RuntimeError, match="ended without sending what it made"):
        render_after(Job(["ko", "en"]), Tree(), [Dies(wait=True)], after_pages.MIN_POSTS_FOR_HELPER)


def test_one_language_is_made_here(forking: None) -> None:
    job, tree = Job(["ko"]), Tree()
    render_after(job, tree, [Kind()], 10_000)
    assert {info.origin for info in tree.files.values()} == {f"made by {os.getpid()}"}


def test_no_helper_is_forked_while_other_threads_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIPUB_WORKERS", "2")
    monkeypatch.setattr(after_pages, "can_fork", lambda: False)
    monkeypatch.setattr(after_pages, "share_chunks", None)  # (used: a TypeError)
    job, tree = Job(["ko", "en"]), Tree()
    render_after(job, tree, [Kind()], 10_000)
    assert len(tree.files) == 3
