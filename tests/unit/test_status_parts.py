"""status.json joined from each entry's part (render/json_api_status.py, render/parts.py
`Parts.status_files`): byte for byte what `json_api.status_texts_of` makes of every unit, the
CV's among them, the drafts' left out; a build after an edit makes again only the parts of the
entries whose key changed, and a translation its entry's key does not hold (a machine draft
shown as its source) is read again at every build."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest

from bipub import pipeline
from bipub.diagnostics import Collector
from bipub.pair.site import Entry
from bipub.pair.status import StatusFile
from bipub.pipeline import build
from bipub.project import Project
from bipub.render import json_api, json_api_status
from bipub.render.json_api import join_records, status_texts_of
from tests.conftest import tree_snapshot

KINDS = {"html", "json", "feeds", "llms"}
DRAFT = "posts/alpha:title:\n  source_hash: '000000000000'\n  state: draft\n"


def _drafts_unpublished(root: Path) -> None:
    """A machine draft is shown as its source (bipub.yaml `publish_drafts: false`)."""
    config = root / "bipub.yaml"
    text = config.read_text("utf-8").replace("  publish_drafts: true\n", "")
    if "outputs:" in text:
        text = text.replace("outputs:\n", "outputs:\n  publish_drafts: false\n")
    else:
        text += "outputs:\n  publish_drafts: false\n"
    config.write_text(text, encoding="utf-8")


def _part(
    entry: Entry, codes: Sequence[str], status: Mapping[str, StatusFile]
) -> json_api_status.StatusPart:
    units = json_api_status.entry_units_of(entry, codes)
    return json_api_status.entry_part(units, codes, status)


def _joined_both_ways(root: Path) -> None:
    project = Project(root)
    collector = Collector()
    config, content = pipeline.load(project, collector)
    site = pipeline.pair(project, config, content, collector)
    codes = list(config.codes)
    hidden = json_api.drafts(site, codes)
    parts = [_part(e, codes, site.status) for e in site.entries]
    # (each entry's units made again from its documents, or the site's: the same)
    grouped = json_api_status.units_by_entry(site.units)
    assert parts == [
        json_api_status.entry_part(grouped.get(f"{e.kind}/{e.key}", []), codes, site.status)
        for e in site.entries
    ]
    files, why = json_api_status.joined(site, codes, hidden, parts)
    assert files is not None, why
    texts = status_texts_of(site.units, site.status, codes, hidden)
    assert files == {lang: join_records(texts[lang]).encode() for lang in codes}
    assert any(files[lang] != b"[]\n" for lang in codes)


@pytest.mark.parametrize("name", ["minimal", "side_by_side", "hand_cv"])
def test_the_entries_parts_join_into_status_texts_of_s_files(
    make_project: Callable[[str], Path], name: str
) -> None:
    root = make_project(name)
    _joined_both_ways(root)
    # a post that is a draft (its units left out), and a machine draft shown as its source
    post = root / "content/ko/posts/alpha.md"
    if post.exists():
        post.write_text(post.read_text("utf-8").replace("---\n", "---\ndraft: true\n", 1))
    (root / "status").mkdir(exist_ok=True)
    (root / "status/en.yaml").write_text(DRAFT, encoding="utf-8")
    _joined_both_ways(root)
    _drafts_unpublished(root)
    _joined_both_ways(root)


def test_an_entry_key_with_a_colon_is_joined_unit_by_unit(
    make_project: Callable[[str], Path],
) -> None:
    root = make_project("minimal")
    project = Project(root)
    collector = Collector()
    config, content = pipeline.load(project, collector)
    site = pipeline.pair(project, config, content, collector)
    site.entries[0] = dataclasses.replace(site.entries[0], key="a:b")
    parts = [_part(e, config.codes, site.status) for e in site.entries]
    files, why = json_api_status.joined(site, config.codes, {}, parts)
    assert files is None and why == "an entry's key has a ':'"


def _status_files(site: Path) -> dict[str, bytes]:
    return {p: b for p, b in tree_snapshot(site).items() if p.endswith("status.json")}


def test_a_build_after_an_edit_makes_only_the_changed_entries_parts(
    make_project: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After one edit, status.json is joined from the parts (status_texts_of is not run) and
    equals a clean build's; a machine draft shown as its source (its translation not in its
    entry's key) is read again when it changes, its entry's key the same."""
    root = make_project("minimal")
    _drafts_unpublished(root)
    (root / "status").mkdir()
    (root / "status/en.yaml").write_text(DRAFT, encoding="utf-8")
    build(root, only=KINDS)
    made: list[str] = []
    units_of = json_api_status.entry_units_of
    monkeypatch.setattr(
        json_api_status,
        "entry_units_of",
        lambda entry, *a: made.append(entry.key) or units_of(entry, *a),
    )
    monkeypatch.setattr(
        json_api, "status_texts_of", lambda *a, **k: pytest.fail("made unit by unit")
    )
    post = root / "content/ko/posts/beta.md"
    post.write_text(post.read_text("utf-8") + "\n\n## 새 절\n\n새 본문\n", encoding="utf-8")
    build(root, only=KINDS)
    assert made == ["alpha", "beta"]  # (beta: changed; alpha: made at every build)
    made.clear()
    # the draft translation's body edited: alpha's entry key stays, its units' texts change
    draft = root / "content/en/posts/alpha.md"
    draft.write_text(draft.read_text("utf-8") + "\n\n## More\n\nMore text.\n", encoding="utf-8")
    build(root, only=KINDS)
    assert made == ["alpha"]
    got = _status_files(root / "site")
    monkeypatch.undo()
    clean = tmp_path / "clean"
    build(root, clean, use_cache=False, only=KINDS)
    assert got == _status_files(clean)


@pytest.mark.parametrize(("prefix", "joined"), [("zz-", True), ("posts/alpha:zz-", False)])
def test_the_cv_s_records_go_where_their_keys_fall(
    make_project: Callable[[str], Path], prefix: str, joined: bool
) -> None:
    """The CV's units (of no entry) go where their keys sort among the entries' runs (here
    after every entry's), unless their keys fall among one entry's: then every language's
    file is made unit by unit."""
    root = make_project("minimal")
    project = Project(root)
    collector = Collector()
    config, content = pipeline.load(project, collector)
    site = pipeline.pair(project, config, content, collector)
    moved = {}
    for merged in site.cv.values():
        merged.units[:] = [dataclasses.replace(u, key=prefix + u.key) for u in merged.units]
        moved.update({u.key.removeprefix(prefix): u for u in merged.units})
    assert moved
    site.units[:] = [moved.get(u.key, u) for u in site.units]
    codes = list(config.codes)
    parts = [_part(e, codes, site.status) for e in site.entries]
    files, why = json_api_status.joined(site, codes, {}, parts)
    if not joined:
        assert files is None and why == "the CV's units' keys fall among an entry's"
        return
    texts = status_texts_of(site.units, site.status, codes, {})
    assert files == {lang: join_records(texts[lang]).encode() for lang in codes}
    assert any(f'"key": "{prefix}'.encode() in files[lang] for lang in codes)


def test_many_parts_made_take_the_site_s_units(
    make_project: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From FROM_THE_SITE entries whose parts are made on (a first build, a status file
    changed), their units are the site's, grouped in one pass, not each entry's made again:
    the same status.json as a clean build."""
    root = make_project("minimal")
    monkeypatch.setattr(json_api_status, "FROM_THE_SITE", 1)
    monkeypatch.setattr(
        json_api_status, "entry_units_of", lambda *a: pytest.fail("made from its documents")
    )
    build(root, only=KINDS)
    (root / "status").mkdir()
    (root / "status/en.yaml").write_text(DRAFT, encoding="utf-8")
    build(root, only=KINDS)
    got = _status_files(root / "site")
    monkeypatch.undo()
    clean = tmp_path / "clean"
    build(root, clean, use_cache=False, only=KINDS)
    assert got == _status_files(clean)
