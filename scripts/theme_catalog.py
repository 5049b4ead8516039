"""Maintain the theme's own UI catalogs (src/bipub/theme/locales/).

    python scripts/theme_catalog.py          # re-extract messages.pot and update ko/en .po files

Korean msgstrs are edited in src/bipub/theme/locales/ko/LC_MESSAGES/messages.po; a test fails when
a theme template uses a msgid the catalogs lack (tests/unit/test_theme_catalog.py).
"""

from __future__ import annotations

import io
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from bipub.i18n_catalogs import THEME_TEMPLATES, _fixed_date, _write_po, extract_catalog

LOCALES = THEME_TEMPLATES.parent / "locales"


def main() -> None:
    template = extract_catalog([THEME_TEMPLATES])
    _write_po(LOCALES / "messages.pot", template)
    for lang in ("ko", "en"):
        path = LOCALES / lang / "LC_MESSAGES" / "messages.po"
        if path.is_file():
            catalog = read_po(io.StringIO(path.read_text(encoding="utf-8")), locale=lang)
        else:
            catalog = Catalog(locale=lang, domain="messages", creation_date=_fixed_date())
        catalog.revision_date = _fixed_date()
        catalog.update(template, update_header_comment=False)
        _write_po(path, catalog)
        missing = [m.id for m in catalog if m.id and not m.string]
        print(
            f"{path.relative_to(Path.cwd())}: {len(catalog)} messages, {len(missing)} untranslated"
        )


if __name__ == "__main__":
    main()
