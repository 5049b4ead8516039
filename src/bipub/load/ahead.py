"""The load stage of a cold build done ahead: bipub.yaml and content/ read, parsed and
validated by a forked child while the command imports the later stages.

A cold `bipub build --no-cache` of a blog spends its first ~0.2 s on one core: the interpreter
starts and imports the stages, then the load stage reads the files (~35 ms of this process's
time, with a helper forked for half the files). The command imports this module (and with it
the load stage's modules: pydantic, YAML, markdown-it, about half of the imports) as soon as
it knows it builds without the cache; `LoadAhead.start` then forks a child that loads the
configuration and the content, with the same `load_config` and `load_content` a build without
a cache calls and the same arguments, on the second core, while this process imports the
other stages (~60 ms); it sends back the configuration, the content and the problems found,
pickled (~3 ms to unpickle at 100 posts a language, ~7 ms to pickle in the child).

It is used only where it pays: by a build without the cache (`--no-cache`: a build with one
reads it and the prescan's identities), where forking is safe (`parallel.can_fork`), and for a
project of at most `MAX_FILES` files under content/ (a child alone reads ~4 files a ms; more
files are read faster by this process and its helpers once the imports are done,
load/content.py). Where the child cannot give its result (an error, a death), this process
loads the files itself, as a build without the child does, and meets any error the usual way;
`-v` says which way the content was loaded.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from pathlib import Path

from bipub.config import SiteConfig, load_config
from bipub.diagnostics import Collector, Diagnostic
from bipub.load.content import Content, load_content
from bipub.parallel import Ahead, can_fork
from bipub.project import Project

# files under content/ (a blog's posts and pages in every language, its CV) loaded ahead at
# most: the child reads and parses ~4 files a ms and pickles each in ~0.03 ms beside the ~60 ms
# of imports here, where this process and a helper read ~8 a ms once the imports are done (at
# 100 posts a language, 200 files: ~55 ms in the child, ~35 ms of this process's time saved)
MAX_FILES = 300

_Loaded = tuple[SiteConfig, Content, list[Diagnostic]]


class LoadAhead:
    """The configuration and content of the project at `root`, loaded by a child started
    by `start` (or by this process where the child cannot give them: `result`)."""

    def __init__(self, root: Path, ahead: Ahead[_Loaded]) -> None:
        self.root = root
        self._ahead = ahead
        self.note = ""  # (for -v: how the content was loaded, once `result` has run)

    @classmethod
    def start(cls, root: Path) -> LoadAhead | None:
        """The child forked now, where it pays (see the module's text); else None."""
        if not can_fork():  # (another thread runs: the build loads the files itself)
            return None
        if _count_files(Project(root).content, MAX_FILES + 1) > MAX_FILES:
            return None
        return cls(root, Ahead(partial(_load, root)))

    def result(
        self, collector: Collector, prepare: Callable[[SiteConfig], None] | None = None
    ) -> tuple[SiteConfig, Content]:
        """The configuration and the content (their problems added to `collector`), as
        `pipeline.load` makes them without a cache. `prepare` is run first, with this
        process's own reading of bipub.yaml, while the child may still be at work: what the
        later stages would load at their first use (a problem in bipub.yaml is met there, as
        the load stage meets it first)."""
        if prepare is not None:
            prepare(load_config(self.root))
        loaded = self._ahead.result()
        if loaded is None:
            self.note = f"content loaded here: {self._ahead.why}"
            loaded = _load(self.root)
        else:
            self.note = "content loaded by a child process while the build's modules were imported"
        config, content, found = loaded
        collector.extend(found)
        return config, content

    def close(self) -> None:
        """End the child if its result was not taken (the build failed first)."""
        self._ahead.close()

    def __enter__(self) -> LoadAhead:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _load(root: Path) -> _Loaded:
    """What `LoadAhead.result` takes: the load stage without a cache (in the child, or here
    where the child could not give it)."""
    collector = Collector()
    config = load_config(root)
    content = load_content(root, config, collector)
    return config, content, collector.items


def _count_files(folder: Path, limit: int) -> int:
    """The files under `folder` (symbolic links not followed), counted up to `limit`."""
    count = 0
    todo = [folder]
    while todo and count < limit:
        try:
            entries = list(os.scandir(todo.pop()))
        except OSError:
            continue  # (the load stage says what it cannot read)
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                todo.append(Path(entry.path))
            else:
                count += 1
    return count
