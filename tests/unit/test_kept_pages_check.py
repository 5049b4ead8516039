"""render/kept_pages.py `_check` finds the kept pages as columns (`Found`: no object per
page), each output file once, with one OutputFile per template and language; the others are
left in order. render/workers.py `_with_written` adds the rendered pages' fingerprints to the
kept ones' own dict (no copy of the ~24,000 kept pages' fingerprints)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from bipub.render.kept_pages import Found, KeptPages, _check
from bipub.render.workers import _with_written


class _Tree:
    """keep_each keeps the files of `kept` (and says what it was asked)."""

    def __init__(self, kept: set[str]) -> None:
        self.kept, self.asked = kept, []

    def keep_each(self, wanted: Any) -> set[str]:
        self.asked = list(wanted)
        return {file for file, _ in self.asked if file in self.kept}


def _spec(path: str, template: str = "post.html", lang: str = "ko") -> Any:
    return SimpleNamespace(path=path, file=path.strip("/") + "/index.html", template=template,
                           lang=lang, doc=None)  # fmt: skip


def _pages() -> list[Any]:
    return [
        _spec("/ko/a/"),
        _spec("/ko/b/"),  # (no known fingerprint)
        _spec("/ko/c/", "both.html"),
        _spec("/en/a/", lang="en"),
        _spec("/ko/d/"),  # (its published file's fingerprint is another)
        _spec("/ko/e/"),  # (already kept without a check)
        _spec("/ko/f/"),
    ]


def _inputs(pages: list[Any]) -> tuple[dict[str, str], dict[str, Any]]:
    known = {spec.path: f"fp{spec.path}" for spec in pages if spec.path != "/ko/b/"}
    previous = {spec.file: (known.get(spec.path), (1, 2, 3, n)) for n, spec in enumerate(pages)}
    previous["ko/d/index.html"] = ("other", (0, 0, 0, 0))
    return known, previous


def test_kept_pages_are_found_as_columns_with_an_output_file_per_template_and_language() -> None:
    pages = _pages()
    known, previous = _inputs(pages)
    tree = _Tree({spec.file for spec in pages})
    found, rest = _check(known, pages, previous, tree, {"ko/e/index.html": pages[5]})  # type: ignore[arg-type]
    assert isinstance(found, Found)
    assert found.files == [
        "ko/a/index.html",
        "ko/c/index.html",
        "en/a/index.html",
        "ko/f/index.html",
    ]
    assert found.specs == [pages[0], pages[2], pages[3], pages[6]]
    assert found.fingerprints == ["fp/ko/a/", "fp/ko/c/", "fp/en/a/", "fp/ko/f/"]
    assert [(info.lang, info.origin) for info in found.infos] == [
        ("ko", "post.html (ko)"),
        ("ko", "both.html (ko)"),
        ("en", "post.html (en)"),
        ("ko", "post.html (ko)"),
    ]
    assert found.infos[0] is found.infos[3]  # (one OutputFile per template and language)
    assert tree.asked == [(file, previous[file][1]) for file in found.files]
    assert rest == [pages[1], pages[4], pages[5]]
    kept = KeptPages()
    kept.add(found)
    assert kept.counts == {"ko": 3, "en": 1} and list(kept.pages) == found.files


def test_a_file_not_kept_is_left_in_order_and_a_file_twice_is_its_last_pages() -> None:
    pages = [*_pages(), _spec("/ko/a/")]  # (the last: another page with /ko/a/'s file)
    known, previous = _inputs(pages)
    previous["ko/a/index.html"] = ("fp/ko/a/", (1, 2, 3, 0))
    tree = _Tree({"ko/a/index.html", "en/a/index.html"})  # (ko/c: changed since, not kept)
    found, rest = _check(known, pages, previous, tree, {})  # type: ignore[arg-type]
    assert found.files == ["ko/a/index.html", "en/a/index.html"]
    assert found.specs == [pages[7], pages[3]]
    assert found.fingerprints == ["fp/ko/a/", "fp/en/a/"]
    assert [info.lang for info in found.infos] == ["ko", "en"]
    # (not kept, after the others: ko/c changed since, ko/e and ko/f not the files bipub wrote)
    assert rest == [pages[1], pages[4], pages[2], pages[5], pages[6]]


def test_the_rendered_pages_fingerprints_join_the_kept_ones_own_dict() -> None:
    same = {"ko/a/index.html": "1", "ko/b/index.html": "2"}
    tree: Any = SimpleNamespace(
        files={"ko/a/index.html": 0, "ko/b/index.html": 0, "ko/c/index.html": 0}
    )
    out = _with_written(same, {"ko/c/index.html": "3", "ko/d/index.html": "4"}, tree)
    assert out is same  # (not copied)
    assert list(out.items()) == [
        ("ko/a/index.html", "1"),
        ("ko/b/index.html", "2"),
        ("ko/c/index.html", "3"),
    ]  # (ko/d failed to render: not in the tree, no fingerprint)
