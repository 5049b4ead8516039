"""A quick rebuild keeps status.json as runs of records, one per entry (quick.StatusRuns), and
replaces an edited entry's run: joined again, the runs must be the file the full build writes
(json_api.status_json), and an entry whose records are not one run must be refused."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bipub.quick import _status_runs
from bipub.render.json_api import dump_record, status_json

_KEYS = st.tuples(
    st.sampled_from(["posts", "pages", "cv"]),
    st.text(alphabet="ab-:한", min_size=1, max_size=4),
    st.text(alphabet="xyz.[]0", min_size=1, max_size=4),
).map(lambda parts: f"{parts[0]}/{parts[1]}:{parts[2]}")


def _records(keys: list[str]) -> list[tuple[str, str]]:
    return [(key, dump_record({"key": key, "state": "current"})) for key in keys]


@given(st.lists(_KEYS, unique=True, max_size=30))
def test_runs_join_to_the_file(keys: list[str]) -> None:
    records = _records(sorted(keys))
    runs = _status_runs(records)
    assert runs.text() == status_json(records)
    for prefix, at in runs.index.items():
        members = [text for key, text in records if key.rpartition(":")[0] + ":" == prefix]
        if at >= 0:  # the run holds exactly that entry's records
            assert runs.runs[at] == ",\n  ".join(members)


def test_an_entry_split_over_two_runs_is_marked() -> None:
    """Unit keys whose entry part itself holds a colon can sort apart: such an entry has no run
    (-1), and a quick rebuild of it falls back to the full build."""
    records = _records(["posts/a:x", "posts/a:y:z", "posts/a:z"])
    runs = _status_runs(records)
    assert runs.index["posts/a:"] == -1 and runs.index["posts/a:y:"] == 1
    assert runs.text() == status_json(records)


def test_replacing_a_run_gives_the_rebuilt_file() -> None:
    old = _records(["pages/about:body", "posts/a:body", "posts/a:title", "posts/b:title"])
    runs = _status_runs(old)
    new = _records(["pages/about:body", "posts/a:body", "posts/a:intro", "posts/a:title"])
    new += _records(["posts/b:title"])
    runs.runs[runs.index["posts/a:"]] = ",\n  ".join(text for _, text in new[1:4])
    assert runs.text() == status_json(new)
