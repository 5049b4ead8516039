"""What the theme's catalogs compile to is kept between builds (render/catalogs.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bipub.diagnostics import Collector
from bipub.render import catalogs
from bipub.render.catalogs import load_translations, po_path
from bipub.render.templates import THEME_DIR

THEME = (THEME_DIR / "locales", "(bipub theme) locales")


def theme_ids(lang: str) -> list[str]:
    from babel.messages.pofile import read_po

    with po_path(THEME[0], lang).open(encoding="utf-8") as f:
        return [str(m.id) for m in read_po(f, locale=lang) if m.id and isinstance(m.id, str)]


def load(lang: str, dirs: list[tuple[Path, str]]) -> tuple[dict[str, str], list[str]]:
    collector = Collector()
    translations = load_translations(lang, dirs, collector, warn_untranslated=True)
    shown = {msgid: translations.gettext(msgid) for msgid in theme_ids(lang)}
    return shown, sorted(d.format() + d.code for d in collector.items)


@pytest.fixture
def user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "bipub" / "catalogs"


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_theme_catalog_is_parsed_once_and_read_back_the_same(
    user_cache: Path, monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    first = load(lang, [THEME])
    assert len(list(user_cache.iterdir())) == 1
    monkeypatch.setattr(catalogs, "parse_catalog", lambda *a: pytest.fail("parsed again"))
    assert load(lang, [THEME]) == first
    assert any(first[0][msgid] != msgid for msgid in first[0]) or lang == "en"


def catalog_folder(root: Path, lang: str, entries: str) -> Path:
    path = po_path(root, lang)
    path.parent.mkdir(parents=True)
    head = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    path.write_text(head + entries, encoding="utf-8")
    return root


def test_a_project_catalog_over_a_kept_theme_one_is_merged_as_before(
    user_cache: Path, tmp_path: Path
) -> None:
    ids = [i for i in theme_ids("ko") if not set(i) & set('%{<"\\')]
    own = catalog_folder(tmp_path / "locales", "ko", f'msgid "{ids[0]}"\nmsgstr "덮어씀"\n')
    dirs = [THEME, (own, "locales")]
    first = load("ko", dirs)
    second = load("ko", dirs)  # (the theme's from the cache)
    assert first == second and first[0][ids[0]] == "덮어씀"
    assert len(list(user_cache.iterdir())) == 1  # (the project's catalog is never kept)


def test_a_catalog_with_a_problem_is_not_kept_and_says_it_at_every_build(
    user_cache: Path, tmp_path: Path
) -> None:
    folder = catalog_folder(tmp_path / "theme-like", "ko", '#, fuzzy\nmsgid "Home"\nmsgstr "홈"\n')
    dirs = [(folder, "(bipub theme) locales")]
    for _ in range(2):
        _, said = load("ko", dirs)
        assert any("fuzzy" in line for line in said), said
    assert not user_cache.exists() or not list(user_cache.iterdir())


def test_a_damaged_kept_catalog_is_parsed_again(user_cache: Path) -> None:
    first = load("ko", [THEME])
    (kept,) = user_cache.iterdir()
    kept.write_bytes(b"\x00damaged")
    assert load("ko", [THEME]) == first
    assert catalogs._kept_theme(po_path(THEME[0], "ko").read_text(encoding="utf-8"), "ko")


def test_another_text_is_not_read_from_the_kept_catalog(user_cache: Path, tmp_path: Path) -> None:
    text = po_path(THEME[0], "ko").read_text(encoding="utf-8")
    load("ko", [THEME])
    assert catalogs._kept_theme(text, "ko") is not None
    assert catalogs._kept_theme(text + "\n", "ko") is None
    assert catalogs._kept_theme(text, "en") is None


def test_a_catalog_that_cannot_be_kept_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "xdg"
    blocker.write_text("a file where the cache folder should be", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    shown, said = load("ko", [THEME])
    assert any("[cache-not-saved]" not in line and "cache-not-saved" in line for line in said)
    assert shown == load("ko", [THEME])[0]
