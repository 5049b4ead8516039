"""render/key_memo.py EntryKeyMemo.lay: an update's entries still in place (the very objects,
in the same order around the edit) are taken at once, not one by one. It must never take a
key that `take`, entry by entry, would not take: an entry that is another object, whose key
`moved` names, whose facts have diagrams or images, or any entry when tags changed. Random
runs of edits (objects replaced, added, removed, moved, given a diagram) compare what `lay`
leaves to work out with what `take` refuses; the keys it gives are those kept for the very
entry (tests/integration/test_incremental_pairing.py compares keys after real edits)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from bipub.render.key_memo import EntryKeyMemo, KeyMade


@dataclass(eq=False)  # (identity is what the memo compares)
class _Entry:
    kind: str
    key: str


@dataclass(frozen=True)
class _Doc:
    rel: str


def _facts(entry: _Entry, diagrams: bool, tag: str) -> tuple[object, ...]:
    return (("en", _Doc(f"content/en/{entry.kind}/{entry.key}.md"), (tag,), diagrams),)


def _run(
    memo: EntryKeyMemo,
    entries: list[_Entry],
    moved: tuple[set[str], set[tuple[str, str]]] | None,
    images: set[str],
    drawn: set[str],
    tags: dict[str, str],
    version: int,
) -> tuple[list[int], dict[tuple[str, str], str]]:
    """One `entry_keys` as render/html.py runs it: the positions `lay` left, and the keys."""
    todo = memo.lay(entries, moved, images)
    for i in todo:
        entry = entries[i]
        facts = _facts(entry, entry.key in drawn, tags.get(entry.key, "t0"))
        memo.put(i, (entry, facts, None, None, f"{entry.key}@{version}"))
    keys = memo.laid()
    memo.done()
    return todo, keys


def _refused(
    memo: EntryKeyMemo,
    entries: list[_Entry],
    moved: tuple[set[str], set[tuple[str, str]]] | None,
    images: set[str],
) -> set[int]:
    """The positions `take`, entry by entry, does not take (what `lay` must work out)."""
    if moved is None:
        return set(range(len(entries)))
    return {
        i
        for i, e in enumerate(entries)
        if memo._taken((e.kind, e.key), e, moved, images) is None  # (take, nothing recorded)
    }


def test_lay_takes_only_what_take_takes() -> None:
    rng = random.Random(7)
    entries = [_Entry("posts" if i % 5 else "pages", f"e{i:03d}") for i in range(300)]
    memo = EntryKeyMemo()
    memo.start("status")
    drawn: set[str] = set()
    images: set[str] = set()
    tags: dict[str, str] = {}
    todo, keys = _run(memo, entries, None, images, drawn, tags, 0)
    assert todo == list(range(len(entries)))
    for version in range(1, 120):
        moved: tuple[set[str], set[tuple[str, str]]] = (set(), set())
        edit = rng.choice(["replace", "insert", "delete", "move", "diagram", "image", "tag"])
        at = rng.randrange(len(entries))
        if edit == "replace":  # (an edited entry: paired again, another object; its tag too)
            tags[entries[at].key] = f"t{rng.randrange(6)}"
            entries[at] = _Entry(entries[at].kind, entries[at].key)
        elif edit == "insert":
            entries.insert(at, _Entry("posts", f"new{version}"))
        elif edit == "delete":
            del entries[at]
        elif edit == "move":  # (its neighbours changed: the same object, its key moved)
            moved[0].add(entries[at].key)
        elif edit == "diagram":  # (its facts have diagrams from now on: another object)
            drawn.add(entries[at].key)
            entries[at] = _Entry(entries[at].kind, entries[at].key)
        elif edit == "image":  # (an image added to a document: no entry changed)
            e = entries[at]
            images.add(f"content/en/{e.kind}/{e.key}.md")
        else:  # (a tag's shown name changed: the entries listing it)
            moved[1].add(("en", f"t{rng.randrange(6)}"))
        memo.start("status")
        must = _refused(memo, entries, moved, images)
        last = dict(memo.known)
        todo, keys = _run(memo, entries, moved, images, drawn, tags, version)
        assert must <= set(todo), (edit, sorted(must - set(todo)))
        assert list(keys) == [(e.kind, e.key) for e in entries]  # (the site's order)
        for i, e in enumerate(entries):  # (a key taken: the one kept for the very entry)
            if i not in todo:
                made: KeyMade = last[(e.kind, e.key)]
                assert made[0] is e and keys[(e.kind, e.key)] == made[4]
        if edit in ("replace", "move"):  # (an update's edit: the others taken at once)
            assert len(todo) <= 1 + len(drawn) + len(images)
        if edit == "tag":
            assert len(todo) < len(entries)


def test_without_the_same_status_nothing_is_taken() -> None:
    entries = [_Entry("posts", f"e{i}") for i in range(10)]
    memo = EntryKeyMemo()
    memo.start("status")
    _run(memo, entries, None, set(), set(), {}, 0)
    memo.start("status")
    todo, _ = _run(memo, entries, None, set(), set(), {}, 1)  # (`around` gave None)
    assert todo == list(range(10))


def test_an_entry_given_a_tag_is_found_by_it_when_the_tag_changes() -> None:
    entries = [_Entry("posts", f"e{i}") for i in range(10)]
    memo = EntryKeyMemo()
    memo.start("status")
    tags = {e.key: "t0" for e in entries}
    _run(memo, entries, None, set(), set(), tags, 0)
    memo.start("status")
    todo, _ = _run(memo, entries, (set(), {("en", "t0")}), set(), set(), tags, 1)
    assert todo == list(range(10))  # (each lists t0: which entries list a tag, now known)
    tags["e3"] = "t1"  # e3 edited: its tag is another one
    entries[3] = _Entry("posts", "e3")
    memo.start("status")
    assert _run(memo, entries, (set(), set()), set(), set(), tags, 2)[0] == [3]
    memo.start("status")  # t1 changes (its shown name): e3 lists it
    assert _run(memo, entries, (set(), {("en", "t1")}), set(), set(), tags, 3)[0] == [3]


class _Counted:
    """A document that counts how often its path is read."""

    def __init__(self, rel: str) -> None:
        self._rel, self.reads = rel, 0

    @property
    def rel(self) -> str:
        self.reads += 1
        return self._rel


def test_without_images_no_document_is_read_to_take_a_key() -> None:
    """`lay` without a layout (a build in a new process: its memo read from disk) looks at every
    entry (`take`); on a site without images it reads none of their documents (each an object
    of its own in memory: ~5 ms of a build after an edit at 5,000 posts a language), and it
    still refuses an entry whose document has images."""
    entries = [_Entry("posts", f"e{i}") for i in range(3)]
    docs = [_Counted(f"content/en/posts/e{i}.md") for i in range(3)]
    memo = EntryKeyMemo()
    memo.start("status")
    for entry, doc in zip(entries, docs, strict=True):
        facts = (("en", doc, ("t0",), False),)
        memo.known[entry.kind, entry.key] = (entry, facts, None, None, f"{entry.key}@0")
    assert memo.layout is None  # (read from disk: every entry is looked at)
    assert memo.lay(entries, (set(), set()), set()) == []
    assert [doc.reads for doc in docs] == [0, 0, 0]
    memo.start("status")
    assert memo.lay(entries, (set(), set()), {"content/en/posts/e1.md"}) == [1]
    assert all(doc.reads for doc in docs)
