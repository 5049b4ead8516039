"""Pairing makes the body units of a document from the build cache from where its sections are
in its body (pair/units.py `_span_units`, Document.unsplit_spans), without making the sections
again; the units must be those `doc_units` makes of the sections, in every mix of a cached and
a freshly read source and translation, with more, fewer or no sections on either side."""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import pytest

from bipub.config import load_config
from bipub.diagnostics import Collector
from bipub.load.content import Document, load_content
from bipub.pair.units import Unit, doc_units, text_hash
from tests.conftest import PROJECTS

BODIES = {
    "three": "## 하나\n\n첫째.\n\n## 둘\n\n둘째.\n\n```python\n# 제목 아님\n```\n\n## 셋\n\n셋째.\n",
    "two": "## One\n\nFirst.\n\n## Two\n\nSecond.   \n",
    "four": "Lead.\n\n## One\n\nFirst.\n\n## Two\n\n## Three\n\nThird.\n\n## Four\n",
    "none": "",
}


def _write(root: Path, lang: str, name: str, body: str) -> None:
    meta = "title: T\ndescription: D\ndate: 2026-04-07\n" if lang == "ko" else "title: T\n"
    (root / "content" / lang / "posts" / f"{name}.md").write_text(
        f"---\n{meta}---\n\n{body}", encoding="utf-8"
    )


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Document]:
    root = tmp_path_factory.mktemp("spans") / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    for src in BODIES:
        for tr in BODIES:
            _write(root, "ko", f"{src}-{tr}", BODIES[src])
            _write(root, "en", f"{src}-{tr}", BODIES[tr])
        _write(root, "ko", f"{src}-alone", BODIES[src])
    collector = Collector()
    content = load_content(root, load_config(root), collector)
    assert not collector.items, collector.items
    return {(d.lang, d.name): d for d in content.documents}


def _cached(doc: Document) -> Document:
    """The document as the build cache gives it back (with its spans, no sections)."""
    again: Document = pickle.loads(pickle.dumps(doc))
    assert again.unsplit_spans() is not None
    return again


def _facts(units: list[Unit]) -> list[tuple[object, ...]]:
    return [(*vars(u).values(), u.source_hash, text_hash(u.source)) for u in units]


@pytest.mark.parametrize("src_cached", [False, True])
@pytest.mark.parametrize("tr_cached", [False, True])
def test_units_from_spans_are_those_of_the_sections(
    docs: dict[tuple[str, str], Document], src_cached: bool, tr_cached: bool
) -> None:
    seen = 0
    for (lang, name), src in sorted(docs.items()):
        if lang != "ko" or not name.startswith(tuple(BODIES)):
            continue
        tr = docs.get(("en", name))
        want = doc_units(name, "posts", src, tr, "en")
        src2 = _cached(src) if src_cached else src
        tr2 = _cached(tr) if tr_cached and tr is not None else tr
        got = doc_units(name, "posts", src2, tr2, "en")
        assert _facts(got) == _facts(want), name
        assert got == want, name
        if src_cached and (tr is None or tr_cached):  # made from the spans alone
            assert "sections" not in vars(src2), name
            assert tr2 is None or "sections" not in vars(tr2), name
        seen += 1
    assert seen == len(BODIES) * (len(BODIES) + 1)
    body_units = [u for u in want if ":body#" in u.key]
    assert body_units  # (the last one, none-alone, has none: checked above by `seen`)


def test_a_cached_document_split_since_gives_no_spans(
    docs: dict[tuple[str, str], Document],
) -> None:
    doc = _cached(docs[("ko", "three-two")])
    assert doc.unsplit_spans() is not None
    assert len(doc.sections) == 3
    assert doc.unsplit_spans() is None  # (its sections are read from now on)
    assert docs[("ko", "three-two")].unsplit_spans() is None  # (read here, never cached)
