"""bipub writes only into an output folder it made (issue 16 items 1, 6 and 9).

Every refusal happens before anything is written: the user's folder, the project and the folder
holding the output are exactly as they were (nothing made beside them either: no lock, no spare
copy, no staging folder).
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bipub.write.output import MARKER
from tests.conftest import PROJECTS, CliResult, tree_snapshot

Cli = Callable[..., CliResult]


def _listing(*folders: Path) -> dict[str, list[str]]:
    """Every name in and under `folders` (what a refused build must not change)."""
    return {
        str(folder): sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))
        for folder in folders
    }


@pytest.fixture
def project(make_project: Callable[[str], Path]) -> Path:
    return make_project("minimal")


def _build(cli: Cli, project: Path, *args: str) -> CliResult:
    return cli("-C", str(project), "-q", "build", *args)


def test_a_folder_of_the_users_is_refused_and_never_moved(project: Path, cli: Cli) -> None:
    """`mkdir docs; echo notes > docs/design-notes.md; bipub build --out docs` moved docs/
    aside, and the next build pruned it: design-notes.md was lost."""
    docs = project / "docs"
    docs.mkdir()
    (docs / "design-notes.md").write_text("notes\n", encoding="utf-8")
    before = _listing(project.parent)
    for _ in range(2):
        result = _build(cli, project, "--out", str(docs))
        assert result.exit_code == 2, result.stderr
        assert "docs holds files bipub did not make" in result.stderr
        assert f"touch docs/{MARKER}" in result.stderr
        assert (docs / "design-notes.md").read_text(encoding="utf-8") == "notes\n"
        assert _listing(project.parent) == before


@pytest.fixture(scope="module")
def refusing(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The minimal project with a .git folder, built once (a cache to keep, and an output
    beside): each refusal below runs on a copy (it is refused before it reads anything)."""
    from click.testing import CliRunner

    from bipub.cli import main

    project = tmp_path_factory.mktemp("refusing") / "minimal"
    shutil.copytree(PROJECTS / "minimal", project)
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    args = ["-C", str(project), "-q", "build", "--no-cache", "--out", str(project / "ignored")]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return project


@pytest.mark.parametrize(
    ("out", "says"),
    [
        (".", "is the project folder itself"),
        ("content", "is the project's content"),
        ("content/en", "is inside the project's content"),
        ("content/en/posts/new", "is inside the project's content"),
        ("templates", "is the project's templates"),  # (not there: still an input's place)
        ("static/site", "is inside the project's static"),
        (".git", "is the project's .git"),
        (".bipub-cache", "is the project's .bipub-cache"),
        (".bipub-cache/other", "is inside the project's .bipub-cache"),
        ("..", "holds the project's"),
        ("glossary.yaml", "is the project's glossary.yaml"),  # (not there)
    ],
)
def test_the_project_and_its_inputs_are_refused(
    refusing: Path, tmp_path: Path, cli: Cli, out: str, says: str
) -> None:
    project = tmp_path / "minimal"
    shutil.copytree(refusing, project, symlinks=True)
    before = _listing(project.parent)
    snapshot = tree_snapshot(project)
    result = _build(cli, project, "--out", os.path.normpath(project / out))
    assert result.exit_code == 2, result.stderr
    assert says in result.stderr, result.stderr
    assert "nothing was written" in result.stderr
    assert _listing(project.parent) == before
    assert tree_snapshot(project) == snapshot


def test_a_symbolic_link_into_an_input_is_refused(project: Path, cli: Cli) -> None:
    (project / "out").symlink_to(project / "content")
    before = _listing(project)
    result = _build(cli, project, "--out", str(project / "out"))
    assert result.exit_code == 2
    assert "is the project's content" in result.stderr
    assert _listing(project) == before


@pytest.mark.parametrize("where", ["new", "empty", "absolute"])
def test_ordinary_output_folders_work(project: Path, cli: Cli, tmp_path: Path, where: str) -> None:
    out = {
        "new": project / "docs",
        "empty": project / "docs",
        "absolute": tmp_path / "var" / "www" / "html",
    }[where]
    if where == "empty":
        out.mkdir()
    result = _build(cli, project, "--out", str(out))
    assert result.exit_code == 0, result.stderr
    assert (out / "en" / "index.html").is_file()
    assert (out / MARKER).is_file()
    alpha = project / "content/en/posts/alpha.md"
    alpha.write_text(alpha.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
    for args in (("--no-cache",), ()):
        again = _build(cli, project, "--out", str(out), *args)
        assert again.exit_code == 0, again.stderr
    assert b"More." in (out / "en/blog/alpha/index.html").read_bytes()


def test_the_serve_folder_in_the_cache_is_bipubs_own(project: Path) -> None:
    from bipub.pipeline import build

    build(project, project / ".bipub-cache" / "serve", use_cache=False)
    assert (project / ".bipub-cache" / "serve" / MARKER).is_file()


def test_a_site_made_by_an_older_bipub_is_adopted_if_its_record_says_so(
    project: Path, cli: Cli
) -> None:
    """An older bipub wrote no marker; the record of its last build (.bipub-cache/) proves the
    folder is bipub's as long as it holds only the files that build published."""
    assert _build(cli, project).exit_code == 0
    site = project / "site"
    (site / MARKER).unlink()
    alpha = project / "content/en/posts/alpha.md"
    alpha.write_text(alpha.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
    result = _build(cli, project, "--no-cache")
    assert result.exit_code == 0, result.stderr
    assert (site / MARKER).is_file()
    assert b"More." in (site / "en/blog/alpha/index.html").read_bytes()


def test_an_older_site_with_a_file_it_did_not_publish_is_refused(project: Path, cli: Cli) -> None:
    assert _build(cli, project).exit_code == 0
    site = project / "site"
    (site / MARKER).unlink()
    (site / "notes.txt").write_text("mine\n", encoding="utf-8")
    before = tree_snapshot(site)
    result = _build(cli, project, "--no-cache")
    assert result.exit_code == 2
    assert "holds files bipub did not make" in result.stderr
    assert tree_snapshot(site) == before


def test_a_folder_bipub_did_not_make_in_the_spare_copys_place_is_left_alone(
    project: Path, cli: Cli
) -> None:
    """An older bipub moved `docs/` to `.docs.prev/`: it is kept, with a warning, and no build
    reuses or removes it."""
    prev = project / ".site.prev"
    prev.mkdir()
    (prev / "design-notes.md").write_text("notes\n", encoding="utf-8")
    alpha = project / "content/en/posts/alpha.md"
    for n in range(3):
        alpha.write_text(alpha.read_text(encoding="utf-8") + f"\nMore {n}.\n", encoding="utf-8")
        result = cli("-C", str(project), "build", "--no-cache")
        assert result.exit_code == 0, result.stderr
        assert ".site.prev was not made by bipub" in result.stderr
        assert f"More {n}." in (project / "site/en/blog/alpha/index.html").read_text("utf-8")
        assert sorted(p.name for p in prev.iterdir()) == ["design-notes.md"]
    assert not [p for p in project.iterdir() if p.name.startswith((".site.tmp", ".site.old"))]


def test_a_file_as_output_folder_is_refused(project: Path) -> None:
    """(The command line refuses a file for --out itself; a link to a file reaches bipub.)"""
    from bipub.diagnostics import ConfigError
    from bipub.pipeline import build

    (project / "notes.txt").write_text("x", encoding="utf-8")
    (project / "out").symlink_to(project / "notes.txt")
    with pytest.raises(ConfigError, match="is a file, not a folder"):
        build(project, project / "out")
    assert (project / "notes.txt").read_text(encoding="utf-8") == "x"


# --- a `site` that is a symbolic link to a web root (item 6) ---


def test_a_symlinked_site_is_published_through_the_link(
    project: Path, cli: Cli, tmp_path: Path
) -> None:
    www = tmp_path / "www"
    (www / "html").mkdir(parents=True)
    (project / "site").symlink_to(www / "html")
    alpha = project / "content/en/posts/alpha.md"
    for n, args in enumerate([(), (), ("--no-cache",), ("--no-cache",), ()]):
        alpha.write_text(alpha.read_text(encoding="utf-8") + f"\nMore {n}.\n", encoding="utf-8")
        result = _build(cli, project, *args)
        assert result.exit_code == 0, result.stderr
        assert (project / "site").is_symlink()
        assert os.readlink(project / "site") == str(www / "html")
        page = www / "html" / "en/blog/alpha/index.html"
        assert f"More {n}." in page.read_text(encoding="utf-8")
    # staged and swapped beside the folder the link points to, nothing beside the link
    assert not [p.name for p in project.iterdir() if p.name.startswith(".site")]
    assert sorted(p.name for p in www.iterdir()) == [".html.lock", ".html.prev", "html"]
    again = _build(cli, project)
    assert again.exit_code == 0
    assert "Up to date" in cli("-C", str(project), "build").stderr


def test_a_symlink_to_nothing_is_refused(project: Path, cli: Cli, tmp_path: Path) -> None:
    (project / "site").symlink_to(tmp_path / "nowhere" / "html")
    result = _build(cli, project)
    assert result.exit_code == 2
    assert "is a symbolic link to" in result.stderr
    assert "which does not exist" in result.stderr
    assert not (tmp_path / "nowhere").exists()


def test_a_symlink_to_a_folder_of_the_users_is_refused(
    project: Path, cli: Cli, tmp_path: Path
) -> None:
    www = tmp_path / "www"
    www.mkdir()
    (www / "index.html").write_text("the old web site\n", encoding="utf-8")
    (project / "site").symlink_to(www)
    result = _build(cli, project)
    assert result.exit_code == 2
    assert "holds files bipub did not make" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["minimal", "www"]
    assert sorted(p.name for p in www.iterdir()) == ["index.html"]


# --- modes (item 9) ---


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _modes(root: Path) -> set[tuple[str, int]]:
    found = {("dir", stat.S_IMODE(root.stat().st_mode))}
    for path in root.rglob("*"):
        kind = "dir" if path.is_dir() else "file"
        found.add((kind, stat.S_IMODE(path.lstat().st_mode)))
    return found


def test_published_folders_and_files_follow_the_umask(
    project: Path, cli: Cli, umask_022: None
) -> None:
    site = project / "site"
    alpha = project / "content/en/posts/alpha.md"
    for n, args in enumerate([(), ("--no-cache",), ("--no-cache",)]):  # new, then spare copies
        alpha.write_text(alpha.read_text(encoding="utf-8") + f"\nMore {n}.\n", encoding="utf-8")
        assert _build(cli, project, *args).exit_code == 0
        assert _modes(site) == {("dir", 0o755), ("file", 0o644)}


def test_a_0700_site_of_an_older_bipub_becomes_0755(
    project: Path, cli: Cli, umask_022: None
) -> None:
    site = project / "site"
    assert _build(cli, project).exit_code == 0
    site.chmod(0o700)
    alpha = project / "content/en/posts/alpha.md"
    for n in range(2):  # the 0700 folder comes back as the spare copy on the second build
        alpha.write_text(alpha.read_text(encoding="utf-8") + f"\nMore {n}.\n", encoding="utf-8")
        assert _build(cli, project, "--no-cache").exit_code == 0
        assert stat.S_IMODE(site.stat().st_mode) == 0o755


def test_a_static_file_where_a_page_needs_a_folder_is_an_error(project: Path, cli: Cli) -> None:
    assert _build(cli, project).exit_code == 0
    before = tree_snapshot(project / "site")
    (project / "static" / "ko").mkdir(parents=True)
    (project / "static" / "ko" / "blog").write_text("a file named like a folder\n", "utf-8")
    result = _build(cli, project)
    assert result.exit_code == 1
    # the static file and a page's folder race in the staging folder: the clash check before
    # the swap names both sources, or the page's worker finds a file where its folder goes
    assert (
        "ko/blog is written as a file (static/ko/blog) and is the folder of" in result.stderr
        or (
            "could not write the output: Not a directory" in result.stderr
            and "ko/blog/" in result.stderr
        )
    ), result.stderr
    assert "nothing was written" in result.stderr
    assert tree_snapshot(project / "site") == before


# --- what may fail after the swap (item 7) ---


def test_an_unwritable_cache_folder_publishes_the_site_with_a_warning(
    project: Path, cli: Cli
) -> None:
    """A file where .bipub-cache/ should be (root ignores chmod): the site is published, the
    build says the cache was not saved, exits 0, and prints no traceback."""
    (project / ".bipub-cache").write_text("not a folder\n", encoding="utf-8")
    for _ in range(2):
        result = cli("-C", str(project), "build")
        assert result.exit_code == 0, result.stderr
        assert "the site is published, but the build cache could not be saved" in result.stderr
        assert "Traceback" not in result.stderr
        assert (project / "site" / "en" / "index.html").is_file()


@pytest.mark.parametrize("step", ["cache", "record"])
def test_a_full_disk_after_the_swap_is_a_warning_and_nothing_claims_the_site_is_current(
    project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    import errno

    from bipub import cache, uptodate

    assert _build(cli, project).exit_code == 0
    alpha = project / "content/en/posts/alpha.md"
    alpha.write_text(alpha.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")

    def full(*_args: object, **_kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(project / ".bipub-cache"))

    if step == "cache":
        monkeypatch.setattr(cache.BuildCache, "save", full)
    else:
        monkeypatch.setattr(uptodate, "save", full)
    result = cli("-C", str(project), "build", "--no-cache")  # (no cache: nothing to save)
    assert result.exit_code == 0
    result = cli("-C", str(project), "build")
    assert result.exit_code == 0, result.stderr
    assert "No space left on device" in result.stderr
    assert "the site is published" in result.stderr
    assert b"More." in (project / "site/en/blog/alpha/index.html").read_bytes()
    monkeypatch.undo()
    again = cli("-C", str(project), "build")
    assert again.exit_code == 0
    assert "Up to date" not in again.stderr  # no stale record says the site is current


def test_a_full_disk_while_staging_is_an_error_without_a_traceback(
    project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    from bipub.write import files

    assert _build(cli, project).exit_code == 0
    before = tree_snapshot(project / "site")
    alpha = project / "content/en/posts/alpha.md"
    alpha.write_text(alpha.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")

    def full(target: str, data: bytes, fresh: bool = False, trash: object = None) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", target)

    monkeypatch.setattr(files, "replace_with_bytes", full)
    result = cli("-C", str(project), "build", "--no-cache")
    assert result.exit_code == 1
    assert "could not write the output: No space left on device" in result.stderr
    assert "Traceback" not in result.stderr
    assert tree_snapshot(project / "site") == before
