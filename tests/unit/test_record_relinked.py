"""write/record.py `relinked`: a build killed while it linked published files into its
staging folder moved those files' ctime; the next start vouches for each by hashing its bytes
again (uptodate.py `Prescan.known_output`), never for a file edited in place."""

from __future__ import annotations

import os
from pathlib import Path

from bipub.write.record import digest, relinked, tree_state


def _site(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    out = tmp_path / "site"
    (out / "ko").mkdir(parents=True)
    texts = {"index.html": b"<p>home</p>", "ko/feed.xml": b"<feed/>", "ko/a.html": b"<p>a</p>"}
    for rel, data in texts.items():
        (out / rel).write_bytes(data)
    return out, {rel: digest(data) for rel, data in texts.items()}


def test_files_only_linked_since_are_vouched_for_by_their_bytes(tmp_path) -> None:
    out, digests = _site(tmp_path)
    record = tree_state(str(out), digests)
    assert relinked(str(out), record.files, record.dirs, digests) == {}
    staging = tmp_path / "staging"
    staging.mkdir()
    os.link(out / "ko" / "feed.xml", staging / "feed.xml")  # (its ctime moves)
    moved = relinked(str(out), record.files, record.dirs, digests)
    assert moved is not None and set(moved) == {"ko/feed.xml"}, moved
    assert moved["ko/feed.xml"] != record.files["ko/feed.xml"]


def test_a_file_edited_in_place_with_its_mtime_set_back_is_not(tmp_path) -> None:
    out, digests = _site(tmp_path)
    record = tree_state(str(out), digests)
    page = out / "ko" / "a.html"
    st = page.stat()
    with page.open("r+b") as file:  # (same size, same inode)
        file.write(b"<p>b</p>")
    os.utime(page, ns=(st.st_atime_ns, st.st_mtime_ns))  # (only its ctime moved)
    assert relinked(str(out), record.files, record.dirs, digests) is None
    unhashed = {rel: d for rel, d in digests.items() if rel != "ko/a.html"}
    page.write_bytes(b"<p>a</p>")
    os.utime(page, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert relinked(str(out), record.files, record.dirs, unhashed) is None  # (no hash: no vouch)


def test_a_folder_changed_is_not(tmp_path) -> None:
    out, digests = _site(tmp_path)
    record = tree_state(str(out), digests)
    (out / "ko" / "new.html").write_bytes(b"x")
    assert relinked(str(out), record.files, record.dirs, digests) is None


def test_a_build_killed_while_it_linked_published_files_is_no_full_compare(
    make_project, tmp_path
) -> None:
    """The next build finds the output as recorded but for the files the killed build linked
    into its staging folder (their ctime moved): it hashes those again instead of comparing
    every file of the output (before: `every file of it compared`), and the site is a clean
    build's."""
    import filecmp

    from bipub.pipeline import build

    project = make_project("minimal")
    post = project / "content" / "ko" / "posts" / "beta.md"
    build(project)
    post.write_text(post.read_text(encoding="utf-8") + "\n\n하나\n", encoding="utf-8")
    build(project)  # (now with a spare copy: .site.prev)
    out = project / "site"
    staging = project / ".site.tmp-killed"  # (what a killed build leaves: the spare copy moved)
    (project / ".site.prev").rename(staging)
    linked = sorted((out / "ko").glob("feed.*"))
    assert linked
    for feed in linked:
        (staging / "ko" / feed.name).unlink(missing_ok=True)
        os.link(feed, staging / "ko" / feed.name)
    post.write_text(post.read_text(encoding="utf-8") + "\n\n둘\n", encoding="utf-8")
    result = build(project)
    assert f"but for {len(linked)} files linked since" in result.cache_note, result.cache_note
    assert "every file of it compared" not in result.cache_note
    reference = tmp_path / "clean"
    build(project, reference, use_cache=False)
    ours = sorted(p.relative_to(out) for p in out.rglob("*"))
    theirs = sorted(p.relative_to(reference) for p in reference.rglob("*"))
    assert ours == theirs
    files = [str(p) for p in ours if (out / p).is_file()]
    assert filecmp.cmpfiles(out, reference, files, shallow=False)[0] == files
