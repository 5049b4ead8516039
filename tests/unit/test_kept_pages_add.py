"""render/kept_pages.py `KeptPages.add` in bulk keeps what adding the pages one at a time
keeps: each document's key is worked out once per document object (a post's page and its
side-by-side page show the same one), and again when another object of the same path comes
(an edited document, in a resident build)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from bipub.render.kept_pages import Found, KeptPages


def _doc(rel: str, digest: str) -> Any:
    return SimpleNamespace(rel=rel, digest=digest)


def _page(doc: Any, lang: str = "ko") -> Any:
    return (SimpleNamespace(doc=doc, lang=lang), f"fp-{id(doc)}", SimpleNamespace(lang=lang))


def _found(pages: dict[str, Any]) -> Found:
    """`pages` (output file → (spec, fingerprint, OutputFile)) as `_check` finds them."""
    return Found(list(pages), *(list(column) for column in zip(*pages.values(), strict=True)))


def _state(kept: KeptPages) -> object:
    return (kept.files, kept.fingerprints, kept.counts, kept.docs, kept.keyed, kept.showing)


def test_bulk_equals_one_at_a_time_and_an_edited_document_is_keyed_again() -> None:
    a, b, none = _doc("a.md", "1"), _doc("b.md", ""), None
    pages = {
        "ko/a/index.html": _page(a),
        "ko/a/both/index.html": _page(a),
        "ko/b/index.html": _page(b),
        "ko/index.html": _page(none),
        "en/a/index.html": _page(a, "en"),
    }
    bulk, single = KeptPages(), KeptPages()
    bulk.add(_found(pages))
    for path, page in pages.items():
        single.add(_found({path: page}))
    assert _state(bulk) == _state(single)
    assert bulk.keyed == {"a.md": "1:a.md"} and bulk.showing == {"a.md": 3, "b.md": 1}
    edited = _doc("a.md", "2")  # (the same path, another document: its key is worked out)
    for kept in (bulk, single):
        kept.add(_found({"ko/a/index.html": _page(edited)}))
        assert kept.docs["a.md"] is edited and kept.keyed["a.md"] == "2:a.md"
        assert kept.showing["a.md"] == 3 and kept.counts == {"ko": 4, "en": 1}
    undigested = _doc("a.md", "")
    bulk.add(_found({"en/a/index.html": _page(undigested, "en")}))
    assert "a.md" not in bulk.keyed and bulk.docs["a.md"] is undigested
    for path in list(bulk.pages):
        bulk.drop(path)
    assert _state(bulk) == ({}, {}, {"ko": 0, "en": 0}, {}, {}, {})
