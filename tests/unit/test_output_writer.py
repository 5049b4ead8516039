from __future__ import annotations

from pathlib import Path

import pytest

from bipub.diagnostics import DiagnosticError
from bipub.write.output import OutputTree, check_relative, inside, owned_by, publish


def test_two_writers_for_one_path_is_an_error() -> None:
    tree = OutputTree()
    tree.add("ko/index.html", "a", "ko", "home")
    with pytest.raises(DiagnosticError, match=r"two sources write ko/index\.html"):
        tree.add("ko/index.html", "b", "ko", "page")


@pytest.mark.parametrize("bad", ["../x", "/etc/x", "a/../../b", "a\\b", ""])
def test_paths_must_be_plain_relative(bad: str) -> None:
    with pytest.raises(ValueError):
        check_relative(bad)


def test_inside_is_not_a_string_prefix_check(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out-old").mkdir()
    assert inside(tmp_path / "out", tmp_path / "out" / "a")
    assert not inside(tmp_path / "out", tmp_path / "out" / ".." / "out-old")


def test_partial_publish_keeps_other_languages(tmp_path: Path) -> None:
    out = tmp_path / "site"
    full = OutputTree()
    for path, lang in [
        ("ko/a.html", "ko"),
        ("en/a.html", "en"),
        ("ko/old.html", "ko"),
        ("index.html", None),
    ]:
        full.add(path, f"v1 {path}", lang, "t")
    publish(full, out)
    partial = OutputTree()
    partial.add("ko/a.html", "v2", "ko", "t")
    publish(partial, out, ["ko"])
    assert (out / "ko/a.html").read_text() == "v2"
    assert not (out / "ko/old.html").exists()
    assert (out / "en/a.html").read_text() == "v1 en/a.html"
    assert (out / "index.html").read_text() == "v1 index.html"
    assert [p.name for p in tmp_path.iterdir()] == ["site"]


def test_failed_publish_leaves_previous_site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "site"
    tree = OutputTree()
    tree.add("a.html", "old", None, "t")
    publish(tree, out)
    tree2 = OutputTree()
    tree2.add("a.html", "new", None, "t")

    def boom(*_a: object, **_k: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("bipub.write.output._swap", boom)
    with pytest.raises(KeyboardInterrupt):
        publish(tree2, out)
    assert (out / "a.html").read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["site"]


def test_unchanged_files_keep_their_mtime(tmp_path: Path) -> None:
    out = tmp_path / "site"
    tree = OutputTree()
    tree.add("a.html", "same", None, "t")
    publish(tree, out)
    import os

    os.utime(out / "a.html", (1_000_000, 1_000_000))
    assert publish(tree, out) == 0
    assert (out / "a.html").stat().st_mtime == 1_000_000


def test_ownership() -> None:
    assert owned_by("ko/blog/x/index.html", ["ko"])
    assert owned_by("api/ko/cv.json", ["ko"])
    assert owned_by("pdf/cv-ko.pdf", ["ko"])
    assert not owned_by("pdf/cv-ko-en.pdf", ["ko"])
    assert not owned_by("en/index.html", ["ko"])
    assert not owned_by("sitemap.xml", ["ko"])
