"""UI strings: gettext catalogs (locales/<lang>/LC_MESSAGES/messages.po) loaded with Babel.

The theme ships catalogs for its own templates; a project's catalogs override them message by
message. Catalogs are read from the .po files at build time (no stale .mo can be published).
Fuzzy entries are never published; a msgstr that changes the placeholders of its msgid, adds
markup or is not a valid format string is an error naming the .po file and line. (Templates call
`_()`, Jinja's newstyle gettext, which always formats the translation with `%`, even without
variables: a literal `%` in a msgstr must be written `%%`.)

The theme's catalogs are part of bipub: what a build makes of each (the compiled messages, the
ids left untranslated) is kept in the user's cache folder by the catalog's bytes, the Babel
version and this module's code (`_kept_theme`), and the next build reads that instead of
parsing the .po file again (~5 ms a build with Babel's parser and its imports). Only a catalog
that gave no diagnostic is kept, so every problem is still found and said at every build.
"""

from __future__ import annotations

import hashlib
import io
import marshal
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import babel
from babel.support import NullTranslations, Translations

from bipub.cache import write_cache_file
from bipub.compiled_code import user_cache_dir
from bipub.diagnostics import Collector
from bipub.load.text import TextDecodeError, read_inside, read_text

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog, Message

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
    return parse_catalog(text, rel, lang, collector)


def parse_catalog(text: str, rel: str, lang: str, collector: Collector) -> Catalog | None:
    """The catalog of a .po file's text (None, and an error, if it is not valid)."""
    # imported here: a build whose catalogs are kept (`_kept_theme`) does not parse any
    from babel.messages.pofile import PoFileError, read_po

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
        try:
            text = read_text(path, rel) if not own else read_inside(path, rel, folder.parent)
        except TextDecodeError as exc:
            collector.add(exc.diagnostic)
            continue
        compiled = _kept_theme(text, lang) if not own else None
        if compiled is None:
            compiled = _compile(text, rel, lang, collector, keep=not own)
            if compiled is None:
                continue
        mo, missing, present = compiled
        for msgid in missing:
            untranslated.setdefault(msgid, rel)
        for msgid in present:
            untranslated.pop(msgid, None)
        translations = Translations(fp=io.BytesIO(mo), domain=DOMAIN)
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


# what a catalog compiles to: its messages as a .mo file, the ids it leaves untranslated and
# those it translates (in its order)
Compiled = tuple[bytes, list[str], list[str]]


def _compile(
    text: str, rel: str, lang: str, collector: Collector, *, keep: bool
) -> Compiled | None:
    """Parse and check a catalog (`text`, the file `rel`): its messages without the fuzzy
    ones and those that fail `check_message`; None if it cannot be parsed. With `keep`, a
    catalog that gave no diagnostic is kept for the next build (`_kept_theme`)."""
    # imported here: a build whose catalogs are kept does not load Babel's .po machinery
    from babel.messages.catalog import Catalog
    from babel.messages.mofile import write_mo

    found = len(collector.items)
    catalog = parse_catalog(text, rel, lang, collector)
    if catalog is None:
        return None
    clean = Catalog(locale=lang, domain=DOMAIN)
    fuzzy: list[str] = []
    missing: list[str] = []
    present: list[str] = []
    for msg in catalog:
        if not msg.id:
            continue
        if msg.fuzzy:
            fuzzy.append(str(msg.id))
            continue
        if not msg.string or (isinstance(msg.string, tuple) and not all(msg.string)):
            missing.append(str(msg.id))
            continue
        present.append(str(msg.id))
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
    compiled = (buf.getvalue(), missing, present)
    if keep and len(collector.items) == found:
        _keep_theme(text, lang, compiled, collector)
    return compiled


def _theme_key(text: str, lang: str) -> Path:
    """Where what a theme catalog compiles to is kept: named by its text, its language, the
    Babel version and this module's code (what it is made with)."""
    h = hashlib.sha256(Path(__file__).read_bytes())
    h.update(f"\0{babel.__version__}\0{lang}\0".encode())
    h.update(text.encode("utf-8"))
    return user_cache_dir() / "catalogs" / f"{h.hexdigest()[:32]}.marshal"


def _kept_theme(text: str, lang: str) -> Compiled | None:
    """What a theme catalog compiled to in an earlier build, if it was kept (`_compile`)."""
    try:  # (data only, from the user's own cache folder: checked below)
        found = marshal.loads(_theme_key(text, lang).read_bytes())  # noqa: S302
    except (OSError, EOFError, ValueError, TypeError):
        return None  # (none kept, or damaged: parsed again, and kept again)
    if (
        isinstance(found, tuple)
        and len(found) == 3
        and isinstance(found[0], bytes)
        and all(isinstance(v, list) and all(isinstance(i, str) for i in v) for v in found[1:])
    ):
        return found[0], found[1], found[2]
    return None


def _keep_theme(text: str, lang: str, compiled: Compiled, collector: Collector) -> None:
    """Keep what a theme catalog compiled to (`_kept_theme`); one that cannot be written is
    a `cache-not-saved` warning (the next build parses it again: the same translations)."""
    path = _theme_key(text, lang)
    try:
        write_cache_file(path, marshal.dumps(compiled))
    except OSError as err:
        collector.warning(
            None,
            None,
            "cache-not-saved",
            f"compiled catalog not saved to {path}: {err.strerror or err} "
            "(the next build parses it again)",
        )
