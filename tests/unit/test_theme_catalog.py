"""The theme's Korean catalog covers every UI string of the theme templates (fails when stale).

Fix a failure with `python scripts/theme_catalog.py` and translate the new msgids in
src/bipub/theme/locales/ko/LC_MESSAGES/messages.po.
"""

from __future__ import annotations

import io

from babel.messages.pofile import read_po

from bipub.diagnostics import Collector
from bipub.i18n_catalogs import THEME_TEMPLATES, extract_catalog
from bipub.render.catalogs import check_message

LOCALES = THEME_TEMPLATES.parent / "locales"


def _catalog(lang: str):
    path = LOCALES / lang / "LC_MESSAGES" / "messages.po"
    return read_po(io.StringIO(path.read_text(encoding="utf-8")), locale=lang)


def test_every_theme_msgid_has_a_korean_translation() -> None:
    used = {
        m.id if isinstance(m.id, str) else m.id[0]
        for m in extract_catalog([THEME_TEMPLATES])
        if m.id
    }
    ko = _catalog("ko")
    translated = {
        (m.id if isinstance(m.id, str) else m.id[0])
        for m in ko
        if m.id and m.string and not m.fuzzy and (not isinstance(m.string, tuple) or all(m.string))
    }
    missing = sorted(used - translated)
    assert not missing, f"untranslated theme msgids (run scripts/theme_catalog.py): {missing}"


def test_korean_catalog_entries_pass_the_placeholder_and_markup_checks() -> None:
    collector = Collector()
    for msg in _catalog("ko"):
        check_message(msg, "ko.po", collector)
    assert not collector.errors, [d.format() for d in collector.errors]
