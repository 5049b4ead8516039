from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from bipub.diagnostics import DiagnosticError
from bipub.write import files, output
from bipub.write.output import (
    MARKER,
    OutputTree,
    check_relative,
    clean_leftovers,
    inside,
    owned_by,
    publish,
    staged,
)


def test_two_writers_for_one_path_is_an_error(tmp_path: Path) -> None:
    with staged(tmp_path / "site") as tree:
        tree.add("ko/index.html", "a", "ko", "home")
        with pytest.raises(DiagnosticError, match=r"two sources write ko/index\.html"):
            tree.add("ko/index.html", "b", "ko", "page")
        tree.discard()


@pytest.mark.parametrize("bad", ["../x", "/etc/x", "a/../../b", "a\\b", ""])
def test_paths_must_be_plain_relative(bad: str) -> None:
    with pytest.raises(ValueError):
        check_relative(bad)


def test_inside_is_not_a_string_prefix_check(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out-old").mkdir()
    assert inside(tmp_path / "out", tmp_path / "out" / "a")
    assert not inside(tmp_path / "out", tmp_path / "out" / ".." / "out-old")


def _publish(
    out: Path, files: dict[str, tuple[str, str | None]], only: list[str] | None = None
) -> int:
    tree = OutputTree.create(out)
    for path, (text, lang) in files.items():
        tree.add(path, text, lang, "test")
    return publish(tree, only)


def test_partial_publish_keeps_other_languages(tmp_path: Path) -> None:
    out = tmp_path / "site"
    _publish(
        out,
        {
            "ko/a.html": ("v1", "ko"),
            "en/a.html": ("v1 en", "en"),
            "ko/old.html": ("v1", "ko"),
            "index.html": ("root", None),
        },
    )
    _publish(out, {"ko/a.html": ("v2", "ko")}, ["ko"])
    assert (out / "ko/a.html").read_text() == "v2"
    assert not (out / "ko/old.html").exists()
    assert (out / "en/a.html").read_text() == "v1 en"
    assert (out / "index.html").read_text() == "root"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".site.prev", "site"]


def test_full_publish_removes_stale_files(tmp_path: Path) -> None:
    out = tmp_path / "site"
    _publish(out, {"a.html": ("a", None), "gone.html": ("g", None)})
    _publish(out, {"a.html": ("a", None)})
    assert sorted(p.name for p in out.iterdir()) == [".bipub-output", "a.html"]


def test_failed_publish_leaves_previous_site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "site"
    _publish(out, {"a.html": ("old", None)})

    def boom(*_a: object, **_k: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("bipub.write.output._swap", boom)
    with pytest.raises(KeyboardInterrupt):
        _publish(out, {"a.html": ("new", None)})
    assert (out / "a.html").read_text() == "old"
    assert not [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name]


def test_what_an_update_removes_waits_in_a_trash_folder_until_the_swap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Removing a file frees its blocks (on a disk mounted with `discard`, ~0.4 ms a file and
    ~2 ms a folder, at times far more): what an update takes out of its staging folder is
    moved into a trash folder beside the output, removed only after the swap."""
    out = tmp_path / "site"
    first = {"a.html": ("a", None), "old/gone.html": ("gone", None), "b.html": ("b1", None)}
    _publish(out, first)
    _publish(out, first)  # (the first site is now the spare copy: the next one is staged in it)
    seen: dict[str, object] = {}
    real = output._swap

    def swap(new: Path, where: Path) -> None:
        trash = list(tmp_path.glob(".site.trash-*"))
        seen["trash"] = len(trash)
        held = {p.name: p for p in trash[0].iterdir()} if trash else {}
        seen["marker"] = MARKER in held
        seen["moved"] = sorted(
            p.read_text() if p.is_file() else f"{p.name in held} folder"
            for name, p in held.items()
            if name != MARKER and (p.is_dir() or p.read_text() in ("gone", "b1"))
        )
        seen["staged"] = sorted(str(p.relative_to(new)) for p in new.rglob("*"))
        real(new, where)

    monkeypatch.setattr(output, "_swap", swap)
    _publish(out, {"a.html": ("a", None), "b.html": ("b2", None)})
    assert seen["trash"] == 1 and seen["marker"]  # (bipub's, made with the tree)
    assert seen["moved"] == ["True folder", "b1", "gone"]  # (b.html replaced; old/ pruned)
    assert seen["staged"] == [".bipub-output", "a.html", "b.html"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".site.prev", "site"]  # (emptied)
    assert (out / "b.html").read_text() == "b2"


def _three_sites(out: Path) -> None:
    """Two sites published, then a third that replaces every file of the spare copy: a.html
    and b.html unchanged by the second (the spare copy's file is then the published one, a
    hard link), c-e.html changed by it (files of the spare copy alone)."""
    names = ["a", "b", "c", "d", "e"]
    _publish(out, {f"{n}.html": ("v1", None) for n in names})
    _publish(out, {f"{n}.html": ("v1" if n in "ab" else "v2", None) for n in names})
    _publish(out, {f"{n}.html": ("v3", None) for n in names})


def test_many_files_an_update_removes_are_removed_by_a_process_of_their_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Removing a file frees its blocks: on a disk mounted with `discard`, the ~1,800 pages a
    new post replaces at 5,000 posts a language took 2.5-6.5 s to remove. The hard links are
    removed before `publish` returns (their removal changes the link count and ctime of a
    file the record of the output reads next); the files nothing else names are removed with
    the trash folder by a process this one does not wait for."""
    handed: list[tuple[str, list[tuple[str, int]]]] = []

    def apart(folder: str) -> str:
        found = sorted((p.name, p.stat().st_nlink) for p in Path(folder).iterdir())
        handed.append((folder, found))
        return ""

    monkeypatch.setattr(files, "AWAY", 2)
    monkeypatch.setattr(files, "remove_apart", apart)
    out = tmp_path / "site"
    _three_sites(out)
    ((folder, found),) = handed
    assert Path(folder).parent == tmp_path and ".site.trash-" in folder
    # c, d and e as the first site had them (and the marker); a and b removed here
    assert [n for name, n in found if name != MARKER] == [1, 1, 1]
    assert len(found) == 4 and (MARKER, 1) in found
    assert [(out / f"{n}.html").read_text() for n in "abcde"] == ["v3"] * 5
    # the spare copy (the second site): its a and b named once again
    prev = tmp_path / ".site.prev"
    assert [(prev / f"{n}.html").stat().st_nlink for n in "abcde"] == [1] * 5
    monkeypatch.undo()
    assert files.remove_apart(folder) == ""
    deadline = time.monotonic() + 20
    while os.path.lexists(folder) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not os.path.lexists(folder), "the process did not remove the trash folder"


def test_trash_removed_here_when_no_process_can_be_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without posix_spawn (or when it fails) the trash folder is removed by the build, which
    says so at `-v` (OutputTree.note)."""

    def refused(*args: object, **kwargs: object) -> int:
        raise OSError("refused")

    monkeypatch.setattr(files, "AWAY", 2)
    monkeypatch.setattr(files.os, "posix_spawn", refused)
    out = tmp_path / "site"
    names = ["a", "b", "c", "d", "e"]
    _publish(out, {f"{n}.html": ("v1", None) for n in names})
    _publish(out, {f"{n}.html": ("v2", None) for n in names})
    tree = OutputTree.create(out)
    for n in names:
        tree.add(f"{n}.html", "v3", None, "test")
    publish(tree)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".site.prev", "site"]
    assert "removed here (could not start a process removing it (refused))" in tree.note


def test_a_trash_folder_a_killed_build_left_is_removed_but_not_one_of_the_users(
    tmp_path: Path,
) -> None:
    out = tmp_path / "site"
    _publish(out, {"a.html": ("a", None)})
    ours = tmp_path / ".site.trash-0123456789ab"
    (ours / "1-1").mkdir(parents=True)
    (ours / "1-1" / "index.html").write_text("moved")
    (ours / MARKER).write_text("bipub")
    theirs = tmp_path / ".site.trash-users"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("mine")
    empty = tmp_path / ".site.trash-empty"  # (killed before its marker was written)
    empty.mkdir()
    clean_leftovers(out)
    assert not ours.exists() and not empty.exists()
    assert (theirs / "notes.txt").read_text() == "mine"


def test_moved_into_the_trash_a_path_is_refused_as_unlink_and_rmdir_refuse_it(
    tmp_path: Path,
) -> None:
    trash = files.Trash(str(tmp_path / ".site.trash-x"))
    trash.make()
    folder = tmp_path / "folder"
    (folder / "inside").mkdir(parents=True)
    (tmp_path / "link").symlink_to(folder / "inside")
    (tmp_path / "file").write_text("f")
    with pytest.raises(IsADirectoryError):
        files.unlink(str(folder), trash)
    with pytest.raises(OSError, match="not empty"):
        files.rmdir(str(folder), trash)
    with pytest.raises(NotADirectoryError):
        files.rmdir(str(tmp_path / "link"), trash)
    with pytest.raises(NotADirectoryError):
        files.rmdir(str(tmp_path / "file"), trash)
    with pytest.raises(FileNotFoundError):
        files.unlink(str(tmp_path / "nothing"), trash)
    assert folder.is_dir() and (tmp_path / "file").exists() and (tmp_path / "link").is_symlink()
    files.unlink(str(tmp_path / "link"), trash)  # (the link itself, not what it points to)
    files.rmdir(str(folder / "inside"), trash)
    files.unlink(str(tmp_path / "file"), trash)
    assert sorted(os.listdir(tmp_path)) == [".site.trash-x", "folder"]
    assert len(os.listdir(tmp_path / ".site.trash-x")) == 4  # (three and the marker)
    trash.empty()
    assert sorted(os.listdir(tmp_path)) == ["folder"]


def test_error_while_staging_removes_the_staging_folder(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), staged(tmp_path / "site") as tree:
        tree.add("a.html", "x", None, "t")
        raise RuntimeError("render failed")
    assert [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name] == []


def test_unchanged_files_keep_their_mtime(tmp_path: Path) -> None:
    out = tmp_path / "site"
    _publish(out, {"a.html": ("same", None), "b.html": ("old", None)})
    os.utime(out / "a.html", (1_000_000, 1_000_000))
    assert _publish(out, {"a.html": ("same", None), "b.html": ("new", None)}) == 1
    assert (out / "a.html").stat().st_mtime == 1_000_000
    assert (out / "b.html").read_text() == "new"


def test_ownership() -> None:
    assert owned_by("ko/blog/x/index.html", ["ko"])
    assert owned_by("api/ko/cv.json", ["ko"])
    assert owned_by("pdf/cv-ko.pdf", ["ko"])
    assert not owned_by("pdf/cv-ko-en.pdf", ["ko"])
    assert owned_by("pdf/cv-ko-short.pdf", ["ko"])  # a --lang ko build removes a stale one
    assert not owned_by("pdf/cv-en-short.pdf", ["ko"])
    assert not owned_by("en/index.html", ["ko"])
    assert not owned_by("sitemap.xml", ["ko"])


def test_leftovers_of_a_killed_build_are_removed(tmp_path: Path) -> None:
    (tmp_path / ".site.tmp-abc").mkdir()
    (tmp_path / ".site.old-def").mkdir()
    with staged(tmp_path / "site") as tree:
        tree.add("a.html", "a", None, "t")
        publish(tree)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".site.lock", "site"]


def test_two_builds_cannot_write_one_output(tmp_path: Path) -> None:
    with staged(tmp_path / "site") as tree:
        with (
            pytest.raises(DiagnosticError, match="another bipub process"),
            staged(tmp_path / "site"),
        ):
            pass
        tree.discard()


def test_a_spare_copy_is_reused_and_never_leaks_old_files(tmp_path: Path) -> None:
    out = tmp_path / "site"
    _publish(out, {"a.html": ("1", None), "old/x.html": ("x", None)})
    _publish(out, {"a.html": ("2", None)})
    _publish(out, {"a.html": ("3", None), "b.html": ("b", None)})
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*")) == [
        ".bipub-output",
        "a.html",
        "b.html",
    ]
    assert (out / "a.html").read_text() == "3"


def test_rewriting_a_file_never_changes_the_live_site_through_a_shared_inode(
    tmp_path: Path,
) -> None:
    out = tmp_path / "site"
    _publish(out, {"a.html": ("same", None), "b.html": ("v1", None)})
    _publish(out, {"a.html": ("same", None), "b.html": ("v1", None)})  # staged files are links
    tree = OutputTree.create(out)
    tree.add("b.html", "v2", None, "t")
    assert (out / "b.html").read_text() == "v1"  # live site untouched before publish
    tree.add("a.html", "same", None, "t")
    publish(tree)
    assert (out / "b.html").read_text() == "v2"


def test_render_workers_making_one_folder_at_once_both_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two workers attached to one staging folder can both find `ko/tags/x` missing; the one
    whose mkdir comes second must go on (it crashed a cold build with FileExistsError)."""
    with staged(tmp_path / "site") as tree:
        first = tree.attach()
        second = tree.attach()
        real_lstat = os.lstat
        raced: list[str] = []

        def lstat_racing(path: str | os.PathLike[str]) -> os.stat_result:
            name = os.fspath(path)
            if name.endswith("ko/tags/x") and not raced:
                raced.append(name)
                # our lstat finds nothing; the other worker makes the folder before our mkdir
                first.add("ko/tags/x/index.html", "page 1", "ko", "tag")
                raise FileNotFoundError(name)
            return real_lstat(path)

        monkeypatch.setattr(os, "lstat", lstat_racing)
        second.fresh = False  # (a staging folder brought up to date: it looks before mkdir)
        second.add("ko/tags/x/page/2/index.html", "page 2", "ko", "tag")
        monkeypatch.undo()
        assert raced
        assert (tree.staging / "ko/tags/x/index.html").read_text() == "page 1"
        assert (tree.staging / "ko/tags/x/page/2/index.html").read_text() == "page 2"
        tree.discard()


def test_render_workers_making_one_folder_at_once_in_a_fresh_staging_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a staging folder that started empty a worker makes a folder without looking first;
    the other worker's mkdir of the same folder comes second and must go on, and a file where
    a folder goes is still replaced."""
    from bipub.write import files

    with staged(tmp_path / "site") as tree:
        first = tree.attach()
        second = tree.attach()
        assert second.fresh
        real_made = files.made_folder
        raced: list[str] = []

        def made_racing(folder: str) -> bool:
            if folder.endswith("ko/tags/x") and not raced:
                raced.append(folder)
                first.add("ko/tags/x/index.html", "page 1", "ko", "tag")  # before our mkdir
            return real_made(folder)

        monkeypatch.setattr(files, "made_folder", made_racing)
        second.add("ko/tags/x/page/2/index.html", "page 2", "ko", "tag")
        first.add("ko/feed", "a file", "ko", "feed")
        second.add("ko/feed/index.html", "a folder now", "ko", "feed")
        monkeypatch.undo()
        assert raced
        assert (tree.staging / "ko/tags/x/index.html").read_text() == "page 1"
        assert (tree.staging / "ko/tags/x/page/2/index.html").read_text() == "page 2"
        assert (tree.staging / "ko/feed/index.html").read_text() == "a folder now"
        tree.discard()


def test_a_written_file_has_its_bytes_and_the_umask(tmp_path: Path) -> None:
    """Pages are written with os.open/os.write (write/files.py `_write_new`): every byte, the
    umask's mode, never over a file that is there (staged files share inodes with the site)."""
    from bipub.write import files

    big = bytes(range(256)) * 5000
    target = tmp_path / "page.html"
    files.replace_with_bytes(str(target), big, fresh=True)
    assert target.read_bytes() == big
    old = os.umask(0o022)
    os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~old
    files.replace_with_bytes(str(target), b"", fresh=True)  # there: removed, a new file made
    assert target.read_bytes() == b""
    with pytest.raises(FileExistsError):
        files._write_new(str(target), b"x")


def test_a_big_file_is_written_a_megabyte_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write call of 2 MB or more cost 35-65 ms of system time for 30 MB where calls of
    1 MB cost ~6 ms (llms-full.txt after an edit: write/files.py WRITE_AT_ONCE): a file, or a
    piece of one, bigger than that is handed to the kernel in calls of at most that many
    bytes, every byte in its place, short writes continued."""
    sizes: list[int] = []
    short = [True]  # (the second call, once: a short write, the rest written after it)
    real_write = os.write

    def write(fd: int, data: bytes | memoryview) -> int:
        sizes.append(len(data))
        if len(sizes) == 2 and short and short.pop():
            return real_write(fd, memoryview(data)[:1000])
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)
    big = bytes(range(256)) * (3 * files.WRITE_AT_ONCE // 256 + 17)
    small = b"a small piece"
    target = tmp_path / "llms-full.txt"
    files.replace_with_bytes(
        str(target), files.Pieces([memoryview(big)[5:], small, big]), fresh=True
    )
    assert target.read_bytes() == big[5:] + small + big
    assert max(sizes) == files.WRITE_AT_ONCE
    assert len(small) in sizes  # (a small piece: one call, as it is)
    page = tmp_path / "page.html"
    sizes.clear()
    files.replace_with_bytes(str(page), big, fresh=True)
    assert page.read_bytes() == big
    assert max(sizes) == files.WRITE_AT_ONCE
    assert len(sizes) == -(-len(big) // files.WRITE_AT_ONCE)


def test_a_file_where_a_folder_goes_is_replaced_even_if_another_worker_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with staged(tmp_path / "site") as tree:
        (tree.staging / "ko").mkdir()
        (tree.staging / "ko" / "x").write_text("an old file")
        other = tree.attach()
        real_unlink = os.unlink

        def unlink_racing(path: str | os.PathLike[str]) -> None:
            if os.fspath(path).endswith("ko/x") and os.path.isfile(path):
                real_unlink(path)
                os.mkdir(path)  # the other worker was quicker: removed the file, made the folder
                raise FileNotFoundError(os.fspath(path))
            real_unlink(path)

        monkeypatch.setattr(os, "unlink", unlink_racing)
        other.add("ko/x/index.html", "page", "ko", "page")
        monkeypatch.undo()
        assert (tree.staging / "ko/x/index.html").read_text() == "page"
        tree.discard()


def test_a_file_where_another_output_needs_a_folder_is_an_error_and_nothing_is_published(
    tmp_path: Path,
) -> None:
    """(A post whose slug is `index.html` made the blog listing a folder: issue 16 item 2. The
    slugs are refused when paired; this is what stops any other such pair of outputs.)"""
    out = tmp_path / "site"
    _publish(out, {"ko/blog/index.html": ("listing", "ko")})
    tree = OutputTree.create(out)
    tree.add("ko/blog/index.html/index.html", "post", "ko", "post.html (ko)")
    tree.add("ko/blog/index.html", "listing", "ko", "blog.html (ko)")
    with pytest.raises(DiagnosticError, match=r"ko/blog/index\.html is written as a file"):
        publish(tree)
    assert (out / "ko/blog/index.html").read_text() == "listing"
    assert not [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name]
