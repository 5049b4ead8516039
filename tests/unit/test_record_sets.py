"""The output record of an update is worked out from the last one by what changed (issue 17):
the folders of the new site from the recorded folders and the paths added and removed
(write/record.py `next_folders`), the way the full computation (`folders_of`) has them."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from bipub.write.folders import check_folders
from bipub.write.record import OutputRecord, folders_of, next_folders

_names = st.sampled_from(["a", "b", "ko", "blog", "index.html", "x.txt", "a-b", "a.b", "é"])
_paths = st.lists(_names, min_size=1, max_size=4).map("/".join)


def _record(files: set[str]) -> OutputRecord:
    return OutputRecord(dict.fromkeys(files, b""), dict.fromkeys(folders_of(files), b""), {})


@settings(max_examples=400, deadline=None)
@example(before={"a/b", "a/x/y", "a-b/z"}, added=set(), removed={"a/b"})  # (`a-b` sorts first)
@given(
    before=st.sets(_paths, max_size=30),
    added=st.sets(_paths, max_size=6),
    removed=st.sets(_paths, max_size=6),
)
def test_the_next_folders_are_those_of_the_files(
    before: set[str], added: set[str], removed: set[str]
) -> None:
    """Whatever was added and removed (a folder emptied, one that keeps a file or a folder
    deeper down, a name that sorts between a folder and its contents: `a`, `a-b`, `a/x`)."""
    files = (before - removed) | added
    assert next_folders(dict.fromkeys(files), _record(before)) == folders_of(files)


def test_a_clash_is_found_with_the_folders_given() -> None:
    """`check_folders` with the folders worked out already still finds a file where another
    output needs a folder."""
    files = {"ko/blog/index.html": "page", "ko/blog/index.html/a.txt": "post"}

    class Origin:
        def __init__(self, origin: str) -> None:
            self.origin = origin

    origins = {path: Origin(origin) for path, origin in files.items()}
    try:
        check_folders(origins, folders_of(files))
    except Exception as exc:  # (DiagnosticError)
        assert "ko/blog/index.html is written as a file" in str(exc)
    else:
        raise AssertionError("no clash found")
