"""Files saved as what changed since a base file (cache.py `save_delta`, `load_delta`): the
up-to-date record (uptodate.py) and the build cache's build.pickle. An edit writes a small
file; the tables read back are those saved; a damaged, missing or swapped base is refused
(never taken for the tables); a kill during a save leaves the old file and its base whole."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from bipub import cache, uprecord, uptodate
from bipub.cache import UNREADABLE, BuildCache, load_delta, save_delta
from bipub.diagnostics import Diagnostic, Severity
from bipub.project import Project
from bipub.write.record import TreeRecord

PREFIX = "t-tables"


def _tables(n: int = 100) -> cache.Tables:
    return {
        "a": {f"file-{i}": bytes([i % 256]) * 40 for i in range(n)},
        "b": {(i, "x"): ("fp", i) for i in range(n)},
    }


def _bases(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob(f"{PREFIX}-*.pickle"))


def test_an_edit_is_saved_as_what_changed_and_read_back_whole(tmp_path: Path) -> None:
    path = tmp_path / "t.pickle"
    tables = _tables()
    base = save_delta(path, "head", tables, None, PREFIX)
    (first,) = _bases(tmp_path)
    whole = cache.delta_size(path, PREFIX)  # (the file and its base)
    head, read, base = load_delta(path)
    assert (head, read) == ("head", tables)
    read["a"]["file-3"] = b"new" * 10  # one changed, one gone, one new; a new table
    del read["a"]["file-4"]
    read["b"][(1000, "x")] = ("fp", 1000)
    read["c"] = {"k": "v"}
    base = save_delta(path, "head 2", read, base, PREFIX)
    assert _bases(tmp_path) == [first]  # the base file as it was: not written again
    assert path.stat().st_size < whole / 10
    head, again, _ = load_delta(path)
    assert (head, again) == ("head 2", read)
    del read["c"]  # a table no longer saved is not read back
    save_delta(path, "head 3", read, base, PREFIX)
    assert load_delta(path)[1] == read


def test_a_delta_of_more_than_a_quarter_writes_a_new_base(tmp_path: Path) -> None:
    path = tmp_path / "t.pickle"
    base = save_delta(path, 1, _tables(), None, PREFIX)
    (first,) = _bases(tmp_path)
    changed = _tables()
    changed["a"] = {k: b"z" * 40 for k in changed["a"]}
    save_delta(path, 2, changed, base, PREFIX)
    (second,) = _bases(tmp_path)  # (the old base removed)
    assert second != first
    assert load_delta(path)[1] == changed


def test_a_base_replaced_since_is_not_the_base_of_the_next_delta(tmp_path: Path) -> None:
    """Another build saved its own base since this one read the file: the next save writes
    a new base (a delta against tables the files no longer hold would be wrong)."""
    path = tmp_path / "t.pickle"
    base = save_delta(path, 1, _tables(), None, PREFIX)
    other = save_delta(path, 2, {"a": {"x": b"y"}}, None, PREFIX)
    assert other.name != base.name
    tables = _tables()
    tables["a"]["file-1"] = b"edit"
    save_delta(path, 3, tables, base, PREFIX)
    assert load_delta(path)[1] == tables


@pytest.mark.parametrize("damage", ["truncated", "missing", "another base", "flipped"])
def test_a_damaged_or_swapped_base_is_refused(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "t.pickle"
    older = tmp_path / "older.pickle"
    save_delta(older, 0, {"a": {"x": b"old"}}, None, "older")  # signed by this user too
    base = save_delta(path, 1, _tables(), None, PREFIX)
    tables = _tables()
    tables["a"]["file-1"] = b"edit"
    save_delta(path, 2, tables, base, PREFIX)
    base_file = tmp_path / base.name
    if damage == "truncated":
        base_file.write_bytes(base_file.read_bytes()[:-100])
    elif damage == "missing":
        base_file.unlink()
    elif damage == "another base":
        (older_base,) = tmp_path.glob("older-*.pickle")
        base_file.write_bytes(older_base.read_bytes())
    else:
        data = bytearray(base_file.read_bytes())
        data[-5] ^= 1
        base_file.write_bytes(bytes(data))
    with pytest.raises(UNREADABLE):
        load_delta(path)


def test_a_kill_while_saving_leaves_the_old_file_and_its_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kill after the new base is written, before the file naming it replaced the old one
    (the worst moment: a delta big enough for a new base): the old file is read back whole,
    with the base it names; the next save cleans the unnamed base up."""
    path = tmp_path / "t.pickle"
    tables = _tables()
    save_delta(path, "old", tables, None, PREFIX)
    real = cache.save_signed

    def killed(target: Path, value: object, prefix: bytes = b"") -> bytes:
        if target == path:
            raise KeyboardInterrupt  # (as a kill: after the base, before the file)
        return real(target, value, prefix)

    monkeypatch.setattr(cache, "save_signed", killed)
    changed = {"a": {"only": b"x"}}
    with pytest.raises(KeyboardInterrupt):
        save_delta(path, "new", changed, None, PREFIX)
    assert len(_bases(tmp_path)) == 2
    assert load_delta(path)[:2] == ("old", tables)
    monkeypatch.setattr(cache, "save_signed", real)
    save_delta(path, "new", changed, None, PREFIX)
    assert load_delta(path)[:2] == ("new", changed)
    assert len(_bases(tmp_path)) == 1


def _record(n: int) -> uptodate.Record:
    ident = b"\1" * 40
    return uptodate.Record(
        "key",
        {f"content/{i}.md": ident for i in range(n)},
        {f"site/{i}.html": ident for i in range(n)},
        {"site": ident},
        [Diagnostic("content/1.md", 3, "code", "message", Severity.WARNING)],
        {"ko": n},
        {f"site/{i}.html": b"d" * 16 for i in range(n)},
        TreeRecord({"a": ident}, {"": ident}),
    )


def test_the_up_to_date_record_is_saved_as_what_changed(tmp_path: Path) -> None:
    project = Project(tmp_path)
    out = tmp_path / "site"
    record = _record(400)
    uptodate.save(project, out, record)
    size = uptodate.record_size(project, out)
    assert size > 5 * uprecord._path(project, out).stat().st_size  # (with its base)
    read = uptodate.load(project, out)
    assert read == record
    edited = _record(400)
    edited.files["site/7.html"] = b"\2" * 40
    edited.inputs.pop("content/9.md")
    uptodate.save(project, out, edited, read)
    assert uprecord._path(project, out).stat().st_size < size / 10
    assert uptodate.load(project, out) == edited
    assert len(list(project.cache.glob("uprecord-*.pickle"))) == 1
    uptodate.forget(project, out)
    assert uptodate.load_noted(project, out) == (None, "")
    assert not list(project.cache.glob("uprecord-*.pickle"))


def test_a_record_whose_base_is_damaged_is_not_used_and_says_why(tmp_path: Path) -> None:
    project = Project(tmp_path)
    out = tmp_path / "site"
    uptodate.save(project, out, _record(50))
    (base,) = project.cache.glob("uprecord-*.pickle")
    base.write_bytes(base.read_bytes()[:-10])
    record, why = uptodate.load_noted(project, out)
    assert record is None
    assert "up-to-date record ignored" in why and "the output is compared in full" in why
    base.unlink()
    record, why = uptodate.load_noted(project, out)
    assert record is None and base.name in why


def test_build_cache_pages_are_saved_as_what_changed(tmp_path: Path) -> None:
    folder = tmp_path / ".bipub-cache"
    built = BuildCache()
    built.pages["/site"] = {f"ko/{i}/index.html": (f"fp{i}", (1, 2, 3, i)) for i in range(500)}
    built.cards["/site"] = {"ko/card.png": ("key", (1, 2, 3, 4))}
    built.notes = {"content/ko/a.md": ()}
    built.save(folder)
    size = cache.delta_size(folder / cache.FILE, cache.TABLES)
    read = BuildCache.load(folder)
    assert (read.pages, read.cards, read.notes, read.note) == (
        built.pages,
        built.cards,
        built.notes,
        "",
    )
    assert set(cache.BuildCache.files(folder)) >= set(folder.glob(f"{cache.TABLES}-*.pickle"))
    read.pages["/site"]["ko/3/index.html"] = ("new", (5, 6, 7, 8))
    read.save(folder)
    assert (folder / cache.FILE).stat().st_size < size / 10
    assert BuildCache.load(folder).pages == read.pages
    (base,) = folder.glob(f"{cache.TABLES}-*.pickle")
    base.write_bytes(pickle.dumps("not signed"))
    damaged = BuildCache.load(folder)
    assert damaged.pages == {} and "build cache ignored" in damaged.note


def test_tables_that_swap_places_are_saved_as_what_changed(tmp_path: Path) -> None:
    """The output's folders and its spare copy's swap places at every build (uptodate.py
    `_ALIKE`): each is saved as what changed since the other's in the base file."""
    path = tmp_path / "t.pickle"
    one = {f"d{i}": bytes([1]) * 40 for i in range(200)}
    two = {f"d{i}": bytes([2]) * 40 for i in range(200)}
    alike = {"dirs": "spare_dirs", "spare_dirs": "dirs"}
    base = save_delta(path, 0, {"dirs": one, "spare_dirs": two}, None, PREFIX, alike)
    (first,) = _bases(tmp_path)
    swapped = {"dirs": dict(two), "spare_dirs": dict(one)}
    swapped["dirs"]["d1"] = b"new"
    save_delta(path, 1, swapped, base, PREFIX, alike)
    assert _bases(tmp_path) == [first]
    assert load_delta(path)[1] == swapped
    save_delta(path, 1, swapped, base, PREFIX)  # (without: all of them changed)
    assert _bases(tmp_path) != [first]
    assert load_delta(path)[1] == swapped


def _site_tables(n: int = 400) -> cache.Tables:
    """A record's tables as a build leaves them: the spare copy's files are the output's but
    for a few, each table's keys its own string objects (as the passes that make them do)."""
    files = {f"site/{i}.html": bytes([i % 256]) * 40 for i in range(n)}
    spare = {"".join(["site/", str(i), ".html"]): v for i, v in enumerate(files.values())}
    spare["site/3.html"] = b"\2" * 40
    del spare["site/4.html"]
    digests = {"".join(["site/", str(i), ".html"]): b"d" * 16 for i in reversed(range(n))}
    dirs = {"".join(["d", str(i)]): bytes([1]) * 40 for i in range(n // 4)}
    return {
        "files": files,
        "dirs": dirs,
        "digests": digests,
        "spare_files": spare,
        "spare_dirs": {k: bytes([2]) * 40 for k in dirs},
    }


def test_a_shared_base_holds_each_key_once_and_the_spare_files_as_what_differs(
    tmp_path: Path,
) -> None:
    """The up-to-date record's base file (`shared`): read back, its tables share their key
    objects (fewer strings made; a key of one table looked up in another compares no
    characters), and the spare copy's files are made from the output's (their identities the
    same objects): unpickled once, not twice. The folders of the two trees differ in every
    identity (other inodes): each is held whole."""
    path = tmp_path / "t.pickle"
    tables = _site_tables()
    base = save_delta(path, 0, tables, None, PREFIX, uprecord._ALIKE, shared=True)
    (base_file,) = tmp_path.glob(f"{PREFIX}-*.pickle")
    held = cache._unpickled(cache.read_signed(base_file))
    assert held["spare_files"] == ("files", {"site/3.html": b"\2" * 40}, ("site/4.html",))
    assert isinstance(held["spare_dirs"], dict)
    _, read, again = load_delta(path)
    assert read == tables and again.tables == tables
    keys = {id(k) for k in read["files"]}
    assert {id(k) for k in (*read["digests"], *read["spare_files"])} <= keys
    assert {id(k) for k in read["spare_dirs"]} == {id(k) for k in read["dirs"]}
    same = [read["files"][k] is v for k, v in read["spare_files"].items() if k != "site/3.html"]
    assert all(same)
    plain = tmp_path / "plain"
    plain.mkdir()
    save_delta(plain / "t.pickle", 0, tables, None, PREFIX, uprecord._ALIKE)
    (plain_base,) = plain.glob(f"{PREFIX}-*.pickle")
    assert base_file.stat().st_size < plain_base.stat().st_size * 0.8
    edited = {name: dict(table) for name, table in read.items()}  # an edit: a delta on it
    edited["files"]["site/7.html"] = b"\3" * 40
    edited["spare_files"] = dict(read["files"])
    save_delta(path, 1, edited, base, PREFIX, uprecord._ALIKE, shared=True)
    assert list(tmp_path.glob(f"{PREFIX}-*.pickle")) == [base_file]
    assert load_delta(path)[1] == edited


def test_a_table_its_base_lacks_writes_a_new_base(tmp_path: Path) -> None:
    """A record saved after a build without a spare copy's record has a base without it: the
    next save that has one writes a new base (a delta holding it whole would be read and
    compared at every build until a quarter of the record changed)."""
    path = tmp_path / "t.pickle"
    tables = _site_tables()
    first = {name: tables[name] for name in ("files", "dirs", "digests")}
    base = save_delta(path, 0, first, None, PREFIX, uprecord._ALIKE, shared=True)
    save_delta(path, 1, tables, base, PREFIX, uprecord._ALIKE, shared=True)
    (base_file,) = tmp_path.glob(f"{PREFIX}-*.pickle")
    assert base_file.name != base.name
    assert set(cache._unpickled(cache.read_signed(base_file))) == set(tables)
    assert load_delta(path)[1] == tables


def test_a_base_table_made_from_one_it_lacks_is_refused() -> None:
    with pytest.raises(UNREADABLE):
        cache._resolved({"a": ("b", {}, ())}, "t.pickle")
    with pytest.raises(UNREADABLE):
        cache._resolved({"a": ["not", "a", "table"]}, "t.pickle")


def test_a_journal_on_the_records_base_writes_no_base_for_a_table_it_lacks(
    tmp_path: Path,
) -> None:
    """`bipub serve`'s journal is saved as what changed since the record's base (uprecord.py
    `save_journal`), which a new base of its own would not replace: it writes none for a
    table that base lacks (else one at every update until the record is saved again)."""
    path = tmp_path / "t.pickle"
    tables = _site_tables()
    first = {name: tables[name] for name in ("files", "dirs", "digests")}
    base = save_delta(path, 0, first, None, PREFIX, uprecord._ALIKE, shared=True)
    journal = tmp_path / "j.pickle"
    again = save_delta(journal, 1, tables, base, "t-journal", uprecord._ALIKE, shared=True)
    assert again == base and not list(tmp_path.glob("t-journal-*.pickle"))
    assert load_delta(journal)[1] == tables


def test_a_table_held_whole_that_nothing_is_read_from_writes_a_new_base(
    tmp_path: Path,
) -> None:
    """A base written when the spare copy's files differed from the output's in every
    identity (a record made before the spare copy's record had the files it shares as they
    are now) holds them whole; once the spare copy's files are made from the output's (the
    closer), nothing is read from that table, which every build would unpickle for nothing:
    the next save writes a new base, holding them as what differs. Tables each read from the
    other (the folders of the two trees, which swap places) keep their base."""
    path = tmp_path / "t.pickle"
    tables = _site_tables()
    old = dict(tables)
    old["spare_files"] = {k: b"\4" * 40 for k in tables["spare_files"]}  # (every one other)
    base = save_delta(path, 0, old, None, PREFIX, uprecord._ALIKE, shared=True)
    (first,) = tmp_path.glob(f"{PREFIX}-*.pickle")
    assert isinstance(cache._unpickled(cache.read_signed(first))["spare_files"], dict)
    again = save_delta(path, 1, tables, base, PREFIX, uprecord._ALIKE, shared=True)
    (second,) = tmp_path.glob(f"{PREFIX}-*.pickle")
    assert second != first and again.name == second.name
    assert isinstance(cache._unpickled(cache.read_signed(second))["spare_files"], tuple)
    assert load_delta(path)[1] == tables
    swapped = dict(tables, dirs=tables["spare_dirs"], spare_dirs=tables["dirs"])
    save_delta(path, 2, swapped, again, PREFIX, uprecord._ALIKE, shared=True)
    assert list(tmp_path.glob(f"{PREFIX}-*.pickle")) == [second]
    assert load_delta(path)[1] == swapped
