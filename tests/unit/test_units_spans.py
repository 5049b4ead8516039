"""Pairing makes the body units of a document from the build cache from where its sections are
in its body (pair/units.py `_span_units`, Document.unsplit_spans), without making the sections
again, and slices their texts from the bodies only when they are read; the units must be those
`doc_units` makes of the sections, in every mix of a cached and a freshly read source and
translation, with more, fewer or no sections on either side."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import shutil
from dataclasses import fields
from pathlib import Path

import pytest

from bipub.config import load_config
from bipub.diagnostics import Collector
from bipub.load.content import Document, load_content
from bipub.pair.site import pair_site
from bipub.pair.units import Unit, doc_units, text_hash
from bipub.render import json_api
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
    return [
        (*(getattr(u, f.name) for f in fields(Unit)), u.source_hash, text_hash(u.source))
        for u in units
    ]


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


def _lazy_pairs(docs: dict[tuple[str, str], Document]) -> list[tuple[Unit, Unit]]:
    """(the unit made from cached documents, its text unread; the one made of the sections)."""
    out = []
    for (lang, name), src in sorted(docs.items()):
        if lang != "ko" or not name.startswith(tuple(BODIES)):
            continue
        tr = docs.get(("en", name))
        want = doc_units(name, "posts", src, tr, "en")
        got = doc_units(name, "posts", _cached(src), _cached(tr) if tr else None, "en")
        out.extend(zip(got, want, strict=True))
    return out


def test_a_body_unit_s_texts_are_sliced_when_read(docs: dict[tuple[str, str], Document]) -> None:
    pairs = [(g, w) for g, w in _lazy_pairs(docs) if ":body#" in g.key]
    assert pairs
    for got, want in pairs:
        assert "source" not in vars(got) and "_body" in vars(got), got.key
        assert isinstance(vars(got)["_body"], Document), got.key  # (its body read when asked)
        assert got.translated == (want.translation is not None), got.key
        assert want.translated == (want.translation is not None), want.key
        assert got.source_hash == want.source_hash
        assert ("translation" in vars(got)) == (want.translation is None)  # (unread: unsliced)
        assert got.source == want.source and got.translation == want.translation, got.key
        assert vars(got)["source"] == want.source  # (kept once read)
    with pytest.raises(AttributeError, match="no attribute 'texts'"):
        pairs[0][0].texts  # type: ignore[attr-defined]  # noqa: B018


def test_a_body_unit_reads_its_texts_from_sections_split_since(
    docs: dict[tuple[str, str], Document],
) -> None:
    src, tr = _cached(docs[("ko", "four-three")]), _cached(docs[("en", "four-three")])
    got = doc_units("four-three", "posts", src, tr, "en")
    assert src.sections and tr.sections  # (split after the units were made)
    want = doc_units(
        "four-three", "posts", docs[("ko", "four-three")], docs[("en", "four-three")], "en"
    )
    assert [(u.source, u.translation) for u in got] == [(u.source, u.translation) for u in want]
    assert sum(":body#" in u.key and u.translated for u in got) == 3


def test_a_lazy_unit_pickles_and_copies_with_its_texts(
    docs: dict[tuple[str, str], Document],
) -> None:
    for got, want in _lazy_pairs(docs):
        blob = pickle.dumps(got)
        assert b"_body" not in blob and len(blob) < 600 + 4 * len(want.source), got.key
        for again in (pickle.loads(blob), copy.copy(got), copy.deepcopy(got)):
            assert again == want and again.source_hash == want.source_hash, got.key
            assert (again.source, again.translation) == (want.source, want.translation)


def test_pairing_and_status_json_read_no_body_text(tmp_path: Path) -> None:
    """A build reads of the units their keys, hashes and whether they are translated: pairing
    cached documents and writing status.json must leave every body unit's text unsliced."""
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    for name, body in BODIES.items():
        _write(root, "ko", name, body)
        _write(root, "en", name, BODIES["two"])
    (root / "status").mkdir()
    (root / "status" / "en.yaml").write_text(
        "posts/three:body#1:\n  source_hash: '000000000000'\n  state: reviewed\n  reviewer: min\n",
        encoding="utf-8",
    )
    collector = Collector()
    config = load_config(root)
    content = load_content(root, config, collector)
    cached = dataclasses.replace(content, documents=[_cached(d) for d in content.documents])
    site = pair_site(root, config, cached, collector)
    status = json_api.status_texts(json_api.status_units(site, "en"), site.status.get("en"))
    body = [u for u in site.units if ":body#" in u.key]
    assert body and any(u.translated for u in body)
    for unit in body:  # (an untranslated unit's translation is None from the start)
        assert "source" not in vars(unit), unit.key
        assert not unit.translated or "translation" not in vars(unit), unit.key
    assert status == json_api.status_texts(
        json_api.status_units(pair_site(root, config, content, Collector()), "en"),
        site.status.get("en"),
    )
    three = next(e for e in site.entries if e.key == "three")
    assert three.versions["en"].state == "stale"
    assert three.versions["en"].stale_keys == ("posts/three:body#1",)
