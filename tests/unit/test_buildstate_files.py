"""The build state's files (src/bipub/buildstate.py `save`, `load_noted`): a state file that
names its parts files by their signatures, a save that writes only the parts the files lack,
and a state refused, with a reason for `-v`, when any of its files is missing, truncated,
planted, or another one than it names. The build's use of a refused state (every page
fingerprinted, the output byte-identical) is tests/integration/test_buildstate.py's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bipub import buildstate, cache
from bipub.buildstate import BuildState
from bipub.project import Project
from bipub.render.outputs import Parts

TARGET = Path("/nowhere/site")


@pytest.fixture
def project(tmp_path: Path) -> Project:
    (tmp_path / "p").mkdir()
    return Project(tmp_path / "p")


def _state(parts: dict[bytes, object], key: str = "g") -> BuildState:
    return BuildState(
        key,
        {("posts", "a"): "ka", ("posts", "b"): "kb"},
        {"ko/index.html": "f1", "en/index.html": "f2"},
        {("posts", "a", "ko"): "c1"},
        Parts(dict(parts)),
    )


def _parts(n: int, tag: str = "") -> dict[bytes, object]:
    return {f"{tag}{i:04d}".encode(): (f"<entry {tag}{i}>", f"json {i}") for i in range(n)}


def _files(project: Project) -> list[Path]:
    return sorted(project.cache.glob("parts-*.pickle"))


def _same(a: BuildState | None, b: BuildState) -> bool:
    return a is not None and a == b and a.parts.earlier == b.parts.earlier


def test_a_saved_state_loads_whole(project: Project) -> None:
    state = _state(_parts(50))
    buildstate.save(project, TARGET, state)
    loaded, why = buildstate.load_noted(project, TARGET)
    assert why == "" and _same(loaded, state)
    assert len(_files(project)) == 1


def test_an_update_writes_only_the_parts_the_files_lack(project: Project) -> None:
    first = _state(_parts(50))
    buildstate.save(project, TARGET, first)
    (big,) = _files(project)
    before = big.stat()
    loaded = buildstate.load(project, TARGET)
    assert loaded is not None
    # the next build: one part made again (another key), the others used as they were
    used = dict(loaded.parts.earlier)
    del used[b"0007"]
    used[b"new-7"] = ("<entry 7, edited>", "json 7")
    nxt = _state(used, key="g")
    nxt.stored = loaded.stored  # (pipeline.py passes them on)
    buildstate.save(project, TARGET, nxt)
    files = _files(project)
    assert len(files) == 2 and big in files
    after = big.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    small = next(f for f in files if f != big)
    assert small.stat().st_size < before.st_size / 10
    again = buildstate.load(project, TARGET)
    assert again is not None
    assert (again.global_key, again.entries, again.fingerprints, again.cards) == (
        nxt.global_key,
        nxt.entries,
        nxt.fingerprints,
        nxt.cards,
    )
    # the unused part stays on disk (a part is keyed by what it is made of: one more is never
    # wrong) until the unused ones are a quarter of all
    assert again.parts.earlier == {**used, b"0007": ("<entry 7>", "json 7")}


def test_the_parts_are_written_again_as_one_when_many_are_unused(project: Project) -> None:
    state = _state(_parts(40))
    buildstate.save(project, TARGET, state)
    loaded = buildstate.load(project, TARGET)
    assert loaded is not None
    used = _parts(20, "x")  # half of them new, the other half gone
    used.update(_parts(20))
    nxt = _state(used)
    nxt.stored = loaded.stored
    buildstate.save(project, TARGET, nxt)
    assert len(_files(project)) == 1  # (the old file removed)
    assert _same(buildstate.load(project, TARGET), nxt)


def test_the_parts_are_written_again_as_one_when_the_files_are_many(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(buildstate, "MAX_SEGMENTS", 3)
    state = _state(_parts(100))
    buildstate.save(project, TARGET, state)
    counts = []
    for i in range(4):
        loaded = buildstate.load(project, TARGET)
        assert loaded is not None
        used = {**loaded.parts.earlier, f"n{i}".encode(): f"part {i}"}
        nxt = _state(used)
        nxt.stored = loaded.stored
        buildstate.save(project, TARGET, nxt)
        counts.append(len(_files(project)))
        assert _same(buildstate.load(project, TARGET), nxt)
    assert counts == [2, 3, 1, 2]


def test_a_resident_state_saves_only_what_it_lacks_each_time(project: Project) -> None:
    """`bipub serve` saves the state it keeps in memory: `save` leaves `stored` for the
    next save."""
    state = _state(_parts(50))
    buildstate.save(project, TARGET, state)
    state.parts = Parts({**state.parts.earlier, b"more": "text"})
    buildstate.save(project, TARGET, state)
    assert len(_files(project)) == 2
    assert _same(buildstate.load(project, TARGET), state)


def test_parts_files_of_another_save_are_not_reused(project: Project) -> None:
    """Another build into the same output folder saved its own state since this one was
    read: its parts files are not this state's, so all the parts are written again."""
    state = _state(_parts(30))
    buildstate.save(project, TARGET, state)
    loaded = buildstate.load(project, TARGET)
    assert loaded is not None
    other = _state(_parts(30, "o"))
    buildstate.save(project, TARGET, other)  # (no `stored`: written whole; the first removed)
    nxt = _state({**loaded.parts.earlier, b"z": "z"})
    nxt.stored = loaded.stored
    buildstate.save(project, TARGET, nxt)
    assert _same(buildstate.load(project, TARGET), nxt)


def _two_saves(project: Project) -> tuple[BuildState, list[Path], BuildState]:
    first = _state(_parts(30))
    buildstate.save(project, TARGET, first)
    loaded = buildstate.load(project, TARGET)
    assert loaded is not None
    nxt = _state({**loaded.parts.earlier, b"z": "z"})
    nxt.stored = loaded.stored
    old_files = _files(project)
    return first, old_files, nxt


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        ("truncate-parts", "parts-"),
        ("remove-parts", "No such file"),
        ("plant-parts", "not the file expected"),
        ("older-parts", "not the file expected"),
        ("truncate-state", "not signed by this user's key"),
        ("plant-state", "not signed by this user's key"),
        ("other-version", "made by another bipub version"),
    ],
)
def test_a_damaged_state_is_refused_and_says_why(
    project: Project, damage: str, reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _first, old_files, nxt = _two_saves(project)
    (old,) = old_files
    kept = project.root / "kept.pickle"
    shutil.copy(old, kept)
    buildstate.save(project, TARGET, nxt)
    assert buildstate.load(project, TARGET) is not None
    (new,) = [f for f in _files(project) if f != old]
    state_file = buildstate._path(project, TARGET)
    if damage == "truncate-parts":
        new.write_bytes(new.read_bytes()[:-5])
    elif damage == "remove-parts":
        new.unlink()
    elif damage == "plant-parts":  # signed by no one
        new.write_bytes(b"\0" * 32 + new.read_bytes()[32:])
    elif damage == "older-parts":  # signed by this user, but another save's file
        shutil.copy(kept, new)
    elif damage == "truncate-state":
        state_file.write_bytes(state_file.read_bytes()[:100])
    elif damage == "plant-state":
        state_file.write_bytes(b"\0" * 32 + b"planted")
    else:
        monkeypatch.setattr(buildstate, "CODE", "0.0.0-other")
    loaded, why = buildstate.load_noted(project, TARGET)
    assert loaded is None
    assert why.startswith("build state ignored (") and reason in why, why
    assert "made again by this build" in why or "another bipub version" in why


def test_a_save_killed_at_any_step_leaves_the_old_state_or_the_new_one(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kill at each file operation of a save (the parts file written, the state file
    replaced, an old parts file removed): the state read back is the old one or the new one,
    whole, never a mix."""
    steps = 0
    real_save, real_unlink = cache.save_signed, Path.unlink

    class Killed(BaseException):
        pass

    def counting(limit: int) -> None:
        def save_signed(*args: object, **kwargs: object) -> bytes:
            nonlocal steps
            steps += 1
            if steps > limit:
                raise Killed
            return real_save(*args, **kwargs)  # type: ignore[arg-type]

        def unlink(self: Path, missing_ok: bool = False) -> None:
            nonlocal steps
            steps += 1
            if steps > limit:
                raise Killed
            real_unlink(self, missing_ok=missing_ok)

        monkeypatch.setattr(buildstate, "save_signed", save_signed)
        monkeypatch.setattr(Path, "unlink", unlink)

    outcomes = []
    for limit in range(6):
        shutil.rmtree(project.cache, ignore_errors=True)
        monkeypatch.undo()
        first = _state(_parts(30))
        buildstate.save(project, TARGET, first)
        loaded = buildstate.load(project, TARGET)
        assert loaded is not None
        nxt = _state(_parts(10, "n"))  # all new: the old file is removed after the save
        nxt.stored = loaded.stored
        steps = 0
        counting(limit)
        try:
            buildstate.save(project, TARGET, nxt)
            done = True
        except Killed:
            done = False
        monkeypatch.undo()
        now = buildstate.load(project, TARGET)
        if _same(now, nxt):
            outcomes.append("new")
        else:
            assert _same(now, first), limit
            outcomes.append("old")
        if done:
            break
    assert outcomes[0] == "old" and outcomes[-1] == "new"


def test_a_cache_file_signed_with_another_key_or_none_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Signing is keyed (cache.py): a file signed by another user's key, or carrying a plain
    hash of its payload (BLAKE3 without the key, or SHA-256), is not unpickled."""
    import hashlib
    import pickle

    from blake3 import blake3

    path = tmp_path / "f.pickle"
    cache.save_signed(path, {"a": 1})
    assert cache.load_signed(path) == {"a": 1}
    payload = pickle.dumps({"a": 2})
    for plain in (blake3(payload).digest(), hashlib.sha256(payload).digest()):
        path.write_bytes(plain + payload)
        with pytest.raises(cache.UnsignedCache):
            cache.load_signed(path)
    cache.save_signed(path, {"a": 3})
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "another-user"))
    with pytest.raises(cache.UnsignedCache):
        cache.load_signed(path)
    for size in (32, 48):  # (a key file longer than BLAKE3's 32 bytes is derived from)
        key = cache.user_cache_dir() / "cache-key"
        key.write_bytes(bytes(range(size)))
        cache.save_signed(path, {"a": size})
        assert cache.load_signed(path) == {"a": size}
        key.write_bytes(bytes(range(1, size + 1)))
        with pytest.raises(cache.UnsignedCache):
            cache.load_signed(path)


def test_the_build_cache_writes_only_the_shards_whose_documents_changed(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    first = cache.BuildCache()
    for i in range(200):
        first.docs[f"content/ko/posts/p{i}.md"] = ((i, i, i, i), f"d{i}", f"doc {i}")
    first.save(folder)

    def stamps() -> dict[str, int]:
        return {p.name: p.stat().st_mtime_ns for p in folder.glob("build-docs-*.pickle")}

    def ino() -> dict[str, int]:
        return {p.name: p.stat().st_ino for p in folder.glob("build-docs-*.pickle")}

    loaded = cache.BuildCache.load(folder)
    assert loaded.docs == first.docs
    before = ino()
    loaded.save(folder)
    assert ino() == before  # nothing changed: no shard written
    edited, gone = "content/ko/posts/p7.md", "content/ko/posts/p9.md"
    loaded.docs[edited] = ((1, 2, 3, 4), "new", "edited")  # (a file read again: a new entry)
    del loaded.docs[gone]
    loaded.save(folder)
    after = ino()
    changed = {name for name in before if after.get(name) != before[name]}
    expected = {cache._docs_file(cache._shard(edited)), cache._docs_file(cache._shard(gone))}
    assert changed == expected
    assert cache.BuildCache.load(folder).docs == loaded.docs
    assert stamps()


def test_a_state_keeps_what_each_listing_fingerprint_was_made_of(project: Project) -> None:
    """`Listed`: each listing page's fingerprint with the values it is the hash of, saved with
    the state; a save takes those the files hold for the same fingerprint as they were (its
    values not worked out again) and works out the others from the plan."""
    from bipub.render.html import made_of_values
    from bipub.render.page_plan import PageSpec, Plan

    made: list[str] = []

    def deps(what: str) -> object:
        made.append(what)
        return ("list", what)

    plan = Plan()
    listing = PageSpec(("blog", "1"), "ko", "/ko/blog/", "blog.html", "t", "d", dict,
                       deps=lambda: deps("blog"), lists=("a", "b"))  # fmt: skip
    post = PageSpec(("post", "a"), "ko", "/ko/blog/a/", "post.html", "t", "d", dict,
                    deps=lambda: deps("post"), made_of=(("posts", "a"),))  # fmt: skip
    for spec in (listing, post):
        plan.add(spec)
    state = _state(_parts(3))
    state.fingerprints = {listing.file: "f1", post.file: "f2"}
    state.plan = plan
    buildstate.save(project, TARGET, state)
    assert made == ["blog"]  # (a post's page is carried by its entries' keys: no values kept)
    loaded = buildstate.load(project, TARGET)
    assert loaded is not None and loaded.stored is not None
    assert loaded.stored.listed == {listing.file: ("f1", made_of_values(plan, listing, "g"))}
    made.clear()
    again = _state(_parts(3))
    again.fingerprints, again.plan, again.stored = dict(state.fingerprints), plan, loaded.stored
    buildstate.save(project, TARGET, again)
    assert made == []  # the same fingerprint: the values as the file held them
    again.fingerprints[listing.file] = "f3"
    buildstate.save(project, TARGET, again)
    assert made == ["blog"]
    loaded = buildstate.load(project, TARGET)
    assert loaded is not None and loaded.stored is not None
    assert loaded.stored.listed[listing.file][0] == "f3"


def _big_state(n: int) -> BuildState:
    """A state with `n` pages' fingerprints, entries' keys and card keys."""
    return BuildState(
        "g",
        {("posts", f"p{i}"): f"key {i}" for i in range(n)},
        {f"ko/blog/p{i}/index.html": f"fingerprint {i}" for i in range(n)},
        {("posts", f"p{i}", "ko"): f"card {i}" for i in range(n)},
        Parts(_parts(3)),
    )


def _tables(project: Project) -> list[Path]:
    return sorted(project.cache.glob("tables-*.pickle"))


def test_an_update_writes_only_what_changed_of_the_tables(project: Project) -> None:
    """The state's tables (entries' keys, fingerprints, card keys) are written whole once, in
    a tables file; a save after an edit writes only what changed since (the state's own file,
    small), and the state read back is the new one."""
    first = _big_state(400)
    buildstate.save(project, TARGET, first)
    (tables,) = _tables(project)
    before = tables.stat()
    loaded = buildstate.load(project, TARGET)
    assert loaded is not None and loaded == first
    nxt = _big_state(400)
    nxt.entries[("posts", "p7")] = "key 7, edited"
    nxt.fingerprints["ko/blog/p7/index.html"] = "fingerprint 7, edited"
    del nxt.fingerprints["ko/blog/p8/index.html"]
    nxt.fingerprints["ko/blog/new/index.html"] = "fingerprint new"
    del nxt.cards[("posts", "p9", "ko")]
    nxt.stored = loaded.stored  # (pipeline.py passes them on)
    buildstate.save(project, TARGET, nxt)
    assert _tables(project) == [tables]
    after = tables.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert buildstate._path(project, TARGET).stat().st_size < before.st_size / 10
    again = buildstate.load(project, TARGET)
    assert again is not None and again == nxt
    # and from that one: what changed since the tables file, again (the edits carried on)
    third = _big_state(400)
    third.fingerprints = dict(nxt.fingerprints)
    third.fingerprints["ko/blog/p1/index.html"] = "fingerprint 1, edited"
    third.stored = again.stored
    buildstate.save(project, TARGET, third)
    assert _tables(project) == [tables]
    assert buildstate.load(project, TARGET) == third


def test_the_tables_are_written_again_when_much_changed(project: Project) -> None:
    first = _big_state(40)
    buildstate.save(project, TARGET, first)
    (tables,) = _tables(project)
    loaded = buildstate.load(project, TARGET)
    assert loaded is not None
    nxt = _big_state(40)
    nxt.fingerprints = {f"{path}x": fp for path, fp in nxt.fingerprints.items()}
    nxt.stored = loaded.stored
    buildstate.save(project, TARGET, nxt)
    now = _tables(project)
    assert len(now) == 1 and now != [tables]  # (the old file removed)
    assert buildstate._path(project, TARGET).stat().st_size < now[0].stat().st_size / 10
    assert buildstate.load(project, TARGET) == nxt
