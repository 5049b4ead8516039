"""UI strings: gettext catalogs (locales/<lang>/LC_MESSAGES/messages.po) loaded with Babel.

The theme ships catalogs for its own templates; a project's catalogs override them message by
message. Catalogs are read from the .po files at build time (no stale .mo can be published).
Fuzzy entries are never published; a msgstr that changes the placeholders of its msgid, adds
markup or is not a valid format string is an error naming the .po file and line. (Templates call
`_()`, Jinja's newstyle gettext, which always formats the translation with `%`, even without
variables: a literal `%` in a msgstr must be written `%%`.)
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.mofile import write_mo
from babel.messages.pofile import PoFileError, read_po
from babel.support import NullTranslations, Translations

from bipub.diagnostics import Collector
from bipub.load.text import TextDecodeError, read_inside, read_text

DOMAIN = "messages"
_PLACEHOLDER = re.compile(r"%\((\w+)\)[sdifr]|\{(\w*)\}|%[sdif]")
# A printf-style conversion (group 1), else a lone % (no group)
_CONVERSION = re.compile(
    r"(%(?:\([^)]*\))?[#0 +-]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?[diouxXeEfFgGcrsa%])|%"
)
_TAG = re.compile(r"</?([a-zA-Z][a-zA-Z0-9]*)\b[^>]*>")


def po_path(locales: Path, lang: str) -> Path:
    return locales / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def placeholders(text: str) -> list[str]:
    return sorted(m.group(0) for m in _PLACEHOLDER.finditer(text))


def tags(text: str) -> list[str]:
    return sorted(m.group(0).lower() for m in _TAG.finditer(text))


def format_problem(text: str, msgid: str) -> str | None:
    """Why `text`, a translation of `msgid`, is wrong as the format string Jinja's newstyle
    gettext makes of every translation (`text % variables`), or None: a `%` that starts no
    conversion (`100% 완료`: an error at render time), or one the msgid does not have (`100% d`
    would format as `100 0`). A literal % is written %%."""
    allowed = {m.group(1) for m in _CONVERSION.finditer(msgid) if m.group(1)}
    for m in _CONVERSION.finditer(text):
        conversion = m.group(1)
        if conversion == "%%" or (conversion is not None and conversion in allowed):
            continue
        around = text[max(0, m.start() - 12) : m.end() + 12]
        return f"a % that is not a placeholder of the msgid: “{around}”"
    return None


@dataclass(frozen=True)
class CatalogStats:
    translated: int
    untranslated: list[str]
    fuzzy: list[str]


def read_catalog(
    path: Path, rel: str, lang: str, collector: Collector, root: Path | None = None
) -> Catalog | None:
    """Parse a .po file; with `root`, a symbolic link or a file outside `root` is an error."""
    try:
        text = read_text(path, rel) if root is None else read_inside(path, rel, root)
    except TextDecodeError as exc:
        collector.add(exc.diagnostic)
        return None
    try:
        return read_po(io.StringIO(text), locale=lang, domain=DOMAIN, abort_invalid=True)
    except PoFileError as exc:
        collector.error(rel, None, "catalog", f"invalid .po file: {exc}")
        return None
    except ValueError as exc:
        collector.error(rel, None, "catalog", f"invalid .po file: {exc}")
        return None


def check_message(msg: Message, rel: str, collector: Collector) -> bool:
    """Placeholders and markup of msgstr must match msgid. Returns False if the entry is bad."""
    if not msg.id or not msg.string:
        return True
    ids = msg.id if isinstance(msg.id, tuple | list) else (msg.id,)
    strs = msg.string if isinstance(msg.string, tuple | list) else (msg.string,)
    ok = True
    for s in strs:
        if not s:
            continue
        if set(placeholders(s)) != set(placeholders(ids[0])):
            collector.error(
                rel,
                msg.lineno,
                "placeholders",
                f"msgstr for {ids[0]!r} has placeholders {placeholders(s)}, "
                f"msgid has {placeholders(ids[0])}",
                key=f"ui:{ids[0]}",
            )
            ok = False
        problem = format_problem(s, " ".join(ids)) if ok else None  # (one error an entry)
        if problem is not None:
            collector.error(
                rel,
                msg.lineno,
                "placeholders",
                f"msgstr for {ids[0]!r} has {problem}; templates format every translation "
                "with %, so write a literal % as %%",
                key=f"ui:{ids[0]}",
            )
            ok = False
        extra = set(tags(s)) - set(tags(ids[0]))
        if extra:
            collector.error(
                rel,
                msg.lineno,
                "markup",
                f"msgstr for {ids[0]!r} adds markup its msgid does not have: {sorted(extra)}",
                key=f"ui:{ids[0]}",
            )
            ok = False
    return ok


def load_translations(
    lang: str,
    catalog_dirs: list[tuple[Path, str]],
    collector: Collector,
    *,
    warn_untranslated: bool,
) -> Translations | NullTranslations:
    """Merge catalogs (later directories override earlier ones) into one Translations object.

    `catalog_dirs` is a list of (locales folder, project-relative label) pairs.
    """
    merged: Translations | None = None
    untranslated: dict[str, str] = {}
    for folder, label in catalog_dirs:
        path = po_path(folder, lang)
        if not path.is_file():
            continue
        rel = f"{label}/{lang}/LC_MESSAGES/{DOMAIN}.po"
        own = not label.startswith("(bipub theme)")  # the project's catalogs stay inside it
        catalog = read_catalog(path, rel, lang, collector, folder.parent if own else None)
        if catalog is None:
            continue
        clean = Catalog(locale=lang, domain=DOMAIN)
        fuzzy: list[str] = []
        for msg in catalog:
            if not msg.id:
                continue
            if msg.fuzzy:
                fuzzy.append(str(msg.id))
                continue
            if not msg.string or (isinstance(msg.string, tuple) and not all(msg.string)):
                untranslated.setdefault(str(msg.id), rel)
                continue
            untranslated.pop(str(msg.id), None)
            if check_message(msg, rel, collector):
                clean[msg.id] = msg
        if fuzzy:
            collector.warning(
                rel,
                None,
                "fuzzy",
                f"{len(fuzzy)} fuzzy entr{'y' if len(fuzzy) == 1 else 'ies'} not published "
                f"(needs review): {', '.join(repr(f) for f in fuzzy[:5])}",
            )
        buf = io.BytesIO()
        write_mo(buf, clean)
        buf.seek(0)
        translations = Translations(fp=buf, domain=DOMAIN)
        merged = translations if merged is None else merged.merge(translations)
    if warn_untranslated and untranslated:
        ids = sorted(untranslated)
        collector.warning(
            untranslated[ids[0]],
            None,
            "ui-untranslated",
            f"[{lang}] {len(ids)} UI string(s) have no translation and show in the template's "
            f"language: {', '.join(repr(i) for i in ids[:5])}{' …' if len(ids) > 5 else ''}",
        )
    return merged if merged is not None else NullTranslations()
