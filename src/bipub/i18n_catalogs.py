"""`bipub i18n extract|update|compile`: the templates' UI strings as gettext catalogs (Babel).

    locales/messages.pot                     extracted from templates/ (and the theme with --theme)
    locales/<lang>/LC_MESSAGES/messages.po   one catalog per language, updated from the .pot
    locales/<lang>/LC_MESSAGES/messages.mo   compiled (the build itself reads the .po files)

Catalog files are written deterministically: sorted, and dated by SOURCE_DATE_EPOCH (or 1970-01-01)
so that re-running a command on unchanged templates changes nothing.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir, extract_from_file
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from bipub.config import load_config
from bipub.diagnostics import Collector, Diagnostic, DiagnosticError
from bipub.project import Project
from bipub.render.catalogs import DOMAIN, check_message, po_path, read_catalog
from bipub.schedule import source_date_epoch
from bipub.user_files import write_atomic

THEME_TEMPLATES = Path(__file__).resolve().parent / "theme" / "templates"
# The theme's UI strings written outside its templates: `_("…")` calls in Python (llms.txt)
THEME_SOURCES = (Path(__file__).resolve().parent / "render" / "llms.py",)
METHOD_MAP = [("**.html", "jinja2.ext:babel_extract"), ("**.xml", "jinja2.ext:babel_extract")]
OPTIONS = {"**.html": {"extensions": "jinja2.ext.i18n", "trimmed": "true"}}


def _fixed_date() -> datetime:
    """SOURCE_DATE_EPOCH (schedule.source_date_epoch), else 1970-01-01; a value that is not
    a number of seconds is a usage error (it was a traceback)."""
    try:
        epoch = source_date_epoch()
    except ValueError as exc:
        raise DiagnosticError([Diagnostic(None, None, "usage", str(exc))]) from None
    return datetime.fromtimestamp(epoch or 0, tz=UTC)


def _write_po(path: Path, catalog: Catalog) -> bool:
    buf = io.BytesIO()
    write_po(buf, catalog, width=100, sort_output=True, omit_header=False, include_lineno=False)
    data = buf.getvalue()
    if path.is_file() and path.read_bytes() == data:
        return False
    write_atomic(path, data)
    return True


def extract_catalog(template_dirs: list[Path]) -> Catalog:
    catalog = Catalog(domain=DOMAIN, project="bipub site", creation_date=_fixed_date())
    catalog.revision_date = _fixed_date()
    for folder in template_dirs:
        if not folder.is_dir():
            continue
        for filename, lineno, message, comments, context in extract_from_dir(
            str(folder), METHOD_MAP, OPTIONS
        ):
            catalog.add(
                message, None, [(filename, lineno)], auto_comments=comments, context=context
            )
        if folder == THEME_TEMPLATES:
            for source in THEME_SOURCES:
                for lineno, message, comments, context in extract_from_file("python", source):
                    catalog.add(
                        message,
                        None,
                        [(source.name, lineno)],
                        auto_comments=comments,
                        context=context,
                    )
    return catalog


def extract(root: Path, include_theme: bool = False) -> tuple[Path, int]:
    project = Project(root)
    dirs = [project.templates] + ([THEME_TEMPLATES] if include_theme else [])
    catalog = extract_catalog(dirs)
    pot = project.locales / f"{DOMAIN}.pot"
    _write_po(pot, catalog)
    return pot, len(catalog)


def update(root: Path) -> list[str]:
    project = Project(root)
    config = load_config(root)
    pot = project.locales / f"{DOMAIN}.pot"
    collector = Collector()
    if not pot.is_file():
        collector.error(
            "locales/messages.pot", None, "catalog", "no template catalog: run 'bipub i18n extract'"
        )
        collector.raise_if_errors()
    with pot.open("rb") as f:
        template = read_po(f)
    out = []
    for lang in config.codes:
        path = po_path(project.locales, lang)
        rel = path.relative_to(root).as_posix()
        if path.is_file():
            catalog = read_catalog(path, rel, lang, collector)
            if catalog is None:
                continue
        else:
            catalog = Catalog(locale=lang, domain=DOMAIN, creation_date=_fixed_date())
        catalog.revision_date = _fixed_date()
        catalog.update(template, update_header_comment=False)
        fuzzy = sum(1 for m in catalog if m.id and m.fuzzy)
        missing = sum(1 for m in catalog if m.id and not m.string)
        changed = _write_po(path, catalog)
        out.append(
            f"{rel}: {len(catalog)} messages, {missing} untranslated, {fuzzy} fuzzy"
            + ("" if changed else " (unchanged)")
        )
    collector.raise_if_errors()
    return out


def compile_catalogs(root: Path) -> list[str]:
    project = Project(root)
    config = load_config(root)
    collector = Collector()
    out = []
    for lang in config.codes:
        path = po_path(project.locales, lang)
        if not path.is_file():
            continue
        rel = path.relative_to(root).as_posix()
        catalog = read_catalog(path, rel, lang, collector)
        if catalog is None:
            continue
        for msg in catalog:
            if msg.id and msg.string and not msg.fuzzy:
                check_message(msg, rel, collector)
        buf = io.BytesIO()
        write_mo(buf, catalog, use_fuzzy=False)
        mo = path.with_suffix(".mo")
        fuzzy = sum(1 for m in catalog if m.id and m.fuzzy)
        if not collector.errors:
            write_atomic(mo, buf.getvalue())
            out.append(
                f"{mo.relative_to(root).as_posix()}: compiled"
                + (f" ({fuzzy} fuzzy entries left out)" if fuzzy else "")
            )
    collector.raise_if_errors()
    return out
