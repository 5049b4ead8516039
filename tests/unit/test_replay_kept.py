"""What an update says again of the documents of the pages it keeps (render/kept_pages.py):
MarkdownCache.replay_all, in set operations, says what `replay`, one document at a time, says
(the notes kept, the documents rendered because theirs are not, those without a digest or with
local images by `replay`); KeptPages keeps the documents its pages show, each once, as pages
are added and dropped (a document no kept page shows is not said again)."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

from bipub.diagnostics import Collector, Diagnostic, Severity
from bipub.pair.images import Images
from bipub.render.kept_pages import Found, KeptPages
from bipub.render.markdown import MarkdownCache
from bipub.write.output import OutputFile


class _Cache(MarkdownCache):
    """Renders nothing: says which documents it was asked to render (and that it did)."""

    def __call__(self, doc: Any) -> Any:
        self.rendered.append(doc.rel)
        self.collector.warning(doc.rel, None, "rendered", "rendered again")
        self._cache[doc.rel] = "html"
        return "html"


def _doc(rel: str, digest: str) -> Any:
    return SimpleNamespace(rel=rel, digest=digest)


def _said(docs: dict[str, Any], notes: dict[str, Any], bulk: bool) -> tuple[object, ...]:
    images = Images(docs={"d.md": {}})  # (d.md has local images: `replay` keys it)
    cache = _Cache(False, Collector(), dict(notes), images=images)
    cache.rendered = []
    if bulk:
        keyed = {rel: f"{doc.digest}:{rel}" for rel, doc in docs.items() if doc.digest}
        cache.replay_all(docs, keyed)
    else:
        for doc in docs.values():
            cache.replay(doc)
    said = sorted((d.file or "", d.code, d.message) for d in cache.collector.items)
    return said, sorted(cache.rendered), cache.used_notes()


def test_replay_all_says_what_replay_says() -> None:
    def warn(rel: str) -> Diagnostic:
        return Diagnostic(rel, 3, "link", f"a link of {rel}", Severity.WARNING)

    docs = {
        "a.md": _doc("a.md", "A"),  # notes kept: said again
        "b.md": _doc("b.md", "B"),  # notes kept, none to say
        "c.md": _doc("c.md", ""),  # no digest: no key (rendered)
        "d.md": _doc("d.md", "D"),  # local images: keyed by `replay` (its notes said)
        "e.md": _doc("e.md", "E"),  # notes not kept: rendered
    }
    probe = _Cache(False, Collector())
    notes = {
        probe.key(docs["a.md"]): (warn("a.md"),),
        probe.key(docs["b.md"]): (),
        probe.key(docs["d.md"]): (warn("d.md"),),
    }
    one, bulk = _said(docs, notes, False), _said(docs, notes, True)
    assert bulk == one
    said, rendered, used = bulk
    assert rendered == ["c.md", "e.md"]
    assert ("a.md", "link", "a link of a.md") in said and ("d.md", "link", "a link of d.md") in said
    assert len(used) == 3


def test_kept_pages_keep_the_documents_their_pages_show() -> None:
    rng = random.Random(11)
    kept = KeptPages()
    info = OutputFile("en", "post.html (en)")
    docs = {f"{n}.md": _doc(f"{n}.md", f"D{n}") for n in range(8)}
    for step in range(300):
        path = f"p{rng.randrange(12)}/index.html"
        if rng.random() < 0.4:
            kept.drop(path)
            continue
        rel = rng.choice([*docs, None])
        if rel is not None and rng.random() < 0.2:  # (edited: another document, another digest)
            docs[rel] = _doc(rel, f"D{rel}-{step}")
        spec: Any = SimpleNamespace(lang="en", doc=docs[rel] if rel is not None else None)
        kept.add(Found([path], [spec], ["fp"], [info]))
        shown = {spec.doc.rel: spec.doc for spec in kept.pages.values() if spec.doc}
        assert kept.docs.keys() == shown.keys()
        assert kept.keyed == {r: f"{d.digest}:{r}" for r, d in kept.docs.items()}
