"""The Jinja2 environment: project templates override the theme's file by file.

Autoescaping is on for every template whatever its extension; undefined variables are errors
(StrictUndefined) reported with template name and line; UI strings go through gettext with the
page's own catalog (one environment per language, no global state).
"""

from __future__ import annotations

import hashlib
import json
import sys
import traceback
from collections.abc import Callable, Sequence
from datetime import date, datetime
from pathlib import Path
from types import CodeType
from typing import TYPE_CHECKING, Any, Final, cast

import jinja2
from babel.support import NullTranslations, Translations
from markupsafe import Markup

from bipub.cache import write_cache_file
from bipub.code_stamp import CODE
from bipub.diagnostics import Collector, Diagnostic
from bipub.render import locale_format
from bipub.render.card_html import KeptCard, KeptCardHtml, kept_html
from bipub.render.catalogs import load_translations
from bipub.render.josa import josa
from bipub.render.markdown import is_safe_url
from bipub.render.template_fast import (
    FAST_TEMPLATES,
    FastCallContext,
    FastEscapeTemplate,
    JoinedOutputGenerator,
    SiteEnvironment,
)

if TYPE_CHECKING:
    from bipub.project import Project

THEME_DIR = Path(__file__).resolve().parent.parent / "theme"
BLOCKED_URL = "about:invalid#bipub-blocked-url"


# a URL that begins so is safe whatever follows (`is_safe_url`: NFC composes nothing with "/",
# ":" or "#", and none of them is a control character it strips): the hrefs bipub makes, tens
# of thousands on a big site (more than its memo keeps), pass without a look-up
_SAFE_PREFIXES: Final = ("/", "#", "https:", "http:")


def safe_url(value: object) -> str:
    """URL filter for attributes: only http(s), mailto, tel, fragment and relative URLs pass."""
    if type(value) is str and value.startswith(_SAFE_PREFIXES):
        return value
    text = str(value)
    return text if is_safe_url(text) else BLOCKED_URL


# `json.dumps(value, ensure_ascii=False, default=str)`'s encoder, made once (dumps makes one
# for every call that passes options: ~once a page)
_JSON_LD: Final = json.JSONEncoder(ensure_ascii=False, default=str)


def json_script(value: Any) -> Markup:
    """JSON for embedding in <script> (JSON-LD): '<', '>', '&' and U+2028/9 escaped."""
    text = _JSON_LD.encode(value)
    for ch, rep in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(ch, rep)
    return Markup(text)  # noqa: S704 - escaped above for the <script> context


class MemoryBytecodeCache(jinja2.BytecodeCache):
    """Compiled templates shared by the environments of one build (one per language)."""

    def __init__(self) -> None:
        self._store: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = self._store.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self._store[bucket.key] = bucket.bytecode_to_string()


# Compiled templates of every build in this process without a cache folder (--no-cache): a
# pure memo (Jinja keys a template's code by its file and checks it against its source), so
# `bipub serve` and the test suite compile each template once.
_IN_MEMORY = MemoryBytecodeCache()

# The compiled-template files read in this process: {file: (the checksum of the source it was
# made from, its code)}. A file's name holds everything its code depends on but the source
# (`compile_key`, Jinja's key of the template's name and file), and Jinja checks the source's
# checksum: an entry whose checksum matches is what reading the file again would give, so
# every build of a process (`bipub serve`'s updates, the test suite's builds) reads and
# unmarshals each file once (~10 ms of a small site's build). One entry per file: a template
# edited again and again replaces its own.
_READ: dict[Path, tuple[str, CodeType]] = {}


class CompiledTemplates(jinja2.BytecodeCache):
    """Where compiled templates are kept: the theme's in the user's cache folder always (they
    are part of bipub, like its own compiled modules: a `--no-cache` build compiles them once,
    the first time, then loads them), the project's there too with the build cache on, else in
    memory (`--no-cache`: every project template compiled again).

    The folder is named by everything a template's compiled code depends on besides its source
    (`compile_key`); Jinja checks each file against its template's source and name. A compiled
    template that cannot be written is compiled again by the next build (the output is the
    same): a `cache-not-saved` warning names the file and the error, through `collector` (the
    collector of the process that compiled it: a render worker sets its own)."""

    def __init__(self, folder: Path, *, project_too: bool, collector: Collector) -> None:
        self.folder = folder
        self.project_too = project_too
        self.collector = collector
        self.warned = False  # (one warning per process: every template fails alike)
        self._on_disk: dict[str, Path] = {}  # bucket key -> its folder, if kept on disk
        self._keys: dict[int, str] = {}  # id of an environment (alive for the build) -> its key
        # the files read in this process (`_READ`): each language's environment of each build
        # loads the same theme templates (~0.15 ms a file to read and unmarshal)
        self._read = _READ

    def get_bucket(
        self, environment: jinja2.Environment, name: str, filename: str | None, source: str
    ) -> jinja2.bccache.Bucket:
        key = self.get_cache_key(name, filename)
        in_theme = filename is not None and Path(filename).is_relative_to(THEME_DIR)
        if in_theme or self.project_too:
            env_key = self._keys.get(id(environment))
            if env_key is None:
                env_key = self._keys[id(environment)] = compile_key(environment)
            self._on_disk[key] = self.folder / env_key
        return super().get_bucket(environment, name, filename, source)

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        folder = self._on_disk.get(bucket.key)
        if folder is None:
            _IN_MEMORY.load_bytecode(bucket)
            return
        path = folder / f"{bucket.key}.cache"
        read = self._read.get(path)
        if read is not None and read[0] == bucket.checksum:  # (another language's
            bucket.code = read[1]  # environment read the same file: its code object, shared)
            return
        try:
            with open(path, "rb") as f:
                bucket.load_bytecode(f)  # (a file of other Jinja or Python: ignored by it)
        except OSError:
            return  # none yet (or unreadable): compiled from the source
        if bucket.code is not None:
            self._read[path] = (bucket.checksum, bucket.code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        folder = self._on_disk.get(bucket.key)
        if folder is None:
            _IN_MEMORY.dump_bytecode(bucket)
            return
        path = folder / f"{bucket.key}.cache"
        try:
            write_cache_file(path, bucket.bytecode_to_string())
            if bucket.code is not None:  # (what the next build would read back)
                self._read[path] = (bucket.checksum, bucket.code)
        except OSError as err:
            if self.warned:
                return
            self.warned = True
            self.collector.warning(
                None,
                None,
                "cache-not-saved",
                f"compiled template not saved to {path}: {err.strerror or err}"
                " (the next build compiles it again)",
            )


def compile_key(env: jinja2.Environment) -> str:
    """What the code Jinja compiles a template to depends on besides its source: Jinja's and
    bipub's versions, the environment's syntax and options, its extensions, and how each
    filter and test is called (decided when compiling)."""
    passes = {
        kind: sorted(
            (name, str(getattr(func, "jinja_pass_arg", None))) for name, func in table.items()
        )
        for kind, table in (("filters", env.filters), ("tests", env.tests))
    }
    parts = (
        jinja2.__version__,
        CODE,
        sys.version_info[:2],
        env.block_start_string,
        env.block_end_string,
        env.variable_start_string,
        env.variable_end_string,
        env.comment_start_string,
        env.comment_end_string,
        env.line_statement_prefix,
        env.line_comment_prefix,
        env.trim_blocks,
        env.lstrip_blocks,
        env.newline_sequence,
        env.keep_trailing_newline,
        env.optimized,
        env.is_async,
        repr(env.autoescape),
        sorted(env.extensions),
        getattr(env, "newstyle_gettext", None),
        passes,
        # (the compiled code's shape: template_fast.JoinedOutputGenerator or Jinja's own)
        f"{env.code_generator_class.__module__}.{env.code_generator_class.__qualname__}",
    )
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:24]


def bytecode_cache(folder: Path, *, project_too: bool, collector: Collector) -> CompiledTemplates:
    """Compiled templates: the theme's in `folder` (the user's cache), the project's there too
    if `project_too` (the build cache is on), else in memory; a failed save is a warning in
    `collector`."""
    return CompiledTemplates(folder, project_too=project_too, collector=collector)


class TemplateOutsideError(jinja2.TemplateError):
    def __init__(self, rel: str) -> None:
        super().__init__(f"{rel}: symbolic links and files outside templates/ are not read")
        self.rel = rel


class _ProjectLoader(jinja2.FileSystemLoader):
    """The project's templates/: a symbolic link, or a file resolving outside it, is never read."""

    def __init__(self, root: Path) -> None:
        super().__init__(str(root))
        self.root = root

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)
        path = Path(filename)
        if path.is_symlink() or not path.resolve().is_relative_to(self.root.resolve()):
            raise TemplateOutsideError(f"templates/{template}")
        return source, filename, uptodate


def site_environment(
    project: Project,
    lang: str,
    collector: Collector,
    bytecode: jinja2.BytecodeCache | None,
    *,
    warn_untranslated: bool,
) -> jinja2.Environment:
    """One language's environment for a project: its templates over the theme's, its catalogs
    over the theme's (catalog problems go to `collector`)."""

    translations = load_translations(
        lang,
        [(THEME_DIR / "locales", "(bipub theme) locales"), (project.locales, "locales")],
        collector,
        warn_untranslated=warn_untranslated,
    )
    return make_environment(project.templates, lang, translations, bytecode)


def make_environment(
    project_templates: Path | None,
    lang: str,
    translations: Translations | NullTranslations,
    bytecode: jinja2.BytecodeCache | None = None,
) -> jinja2.Environment:
    loaders: list[jinja2.BaseLoader] = []
    if project_templates is not None and project_templates.is_dir():
        loaders.append(_ProjectLoader(project_templates))
    loaders.append(jinja2.FileSystemLoader(str(THEME_DIR / "templates")))
    env = SiteEnvironment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,
        # every template kept, in a dict: Jinja's LRU cache (400 by default, never reached by a
        # site's few dozen templates) takes a lock and reorders its queue on every
        # `get_template`: ~7 a page (extends, imports, includes, the footer)
        cache_size=-1,
        bytecode_cache=bytecode,
    )
    if FAST_TEMPLATES:
        env.template_class = FastEscapeTemplate
        env.context_class = FastCallContext
        env.code_generator_class = JoinedOutputGenerator
    env.install_gettext_translations(translations, newstyle=True)  # type: ignore[attr-defined]
    gettext = _memoized_gettext(translations)
    # `_` is jinja2.ext's alias that looks `gettext` up in the context and calls it (two calls
    # more for each of ~50 strings a page): bound to the memoized function itself
    env.globals["gettext"] = env.globals["_"] = gettext

    def fmt_date(value: date | datetime, style: str = "long") -> str:
        return locale_format.format_date(value, lang, style)

    env.filters.update(
        josa=josa,
        date=fmt_date,
        isodate=locale_format.format_iso,
        number=lambda n: locale_format.format_number(n, lang),
        url=safe_url,
        json_script=json_script,
    )
    env.globals["lang"] = lang
    cards = CardHtml(env, lang)
    env.globals["post_card"] = cards
    env.globals["post_cards"] = cards.join
    env.globals["archive_rows"] = cards.rows
    env.globals["site_part"] = _site_part_renderer(env)
    return env


def _memoized_gettext(translations: Translations | NullTranslations) -> Callable[..., str]:
    """Jinja's newstyle `gettext` (`_()` in templates: `Markup(catalog.gettext(s)) % variables`
    while autoescaping, else `catalog.gettext(s) % variables`), remembering what it returns
    while autoescaping for a plain string whose variables (if any) are plain `int`s and `str`s:
    then it depends on nothing but `s` and the variables' values (~30 calls a page, the same
    dozen strings; `_('%(n)d min read', n=...)` with a few numbers). Other variables (Markup,
    objects with `__html__`, bools) are formatted each time: their escaping depends on more
    than their value as a key.

    It takes the evaluation context (autoescaping on or off), not the whole context as Jinja's
    own does: Jinja gives a function that wants the context a context of its own in every block
    or loop that sets a variable (`Context.derived`, for each call)."""
    # as Jinja's install_gettext_translations picks it
    catalog: Callable[[str], str] = getattr(translations, "ugettext", None) or translations.gettext
    memo: dict[object, str] = {}

    @jinja2.pass_eval_context
    def memo_gettext(eval_ctx: jinja2.nodes.EvalContext, string: str, /, **variables: Any) -> str:
        key: object = None
        if eval_ctx.autoescape and type(string) is str:
            # exactly int or str: `1 == True` and `Markup("a") == "a"` would share a key
            if not variables:
                key = string
            elif len(variables) == 1:  # (most: `_('Page %(n)d', n=…)`, a key of three)
                ((name, value),) = variables.items()
                if type(value) is int or type(value) is str:
                    key = (string, name, value)
            elif all(type(v) is int or type(v) is str for v in variables.values()):
                key = (string, tuple(variables.items()))
        if key is not None:
            text = memo.get(key)
            if text is not None:
                return text
        rv = catalog(string)
        if eval_ctx.autoescape:
            rv = Markup(rv)  # noqa: S704 - as Jinja does: catalogs are checked for markup
        # (always a format string, even without variables: as Jinja's newstyle gettext)
        text = rv % variables
        if key is not None:
            memo[key] = text
        return text

    return memo_gettext


def text_gettext(env: jinja2.Environment) -> Callable[[str], str]:
    """The environment's `_()` for plain text (llms.txt): the same catalogs, nothing escaped,
    `%%` written `%` as in the templates — what `{% autoescape false %}{{ _(message) }}`
    renders, called without compiling that template (~1.6 ms, once per language and build).
    Remembers each string it translated."""
    translate = cast(Callable[..., object], env.globals["_"])  # (_memoized_gettext's)
    unescaped = jinja2.nodes.EvalContext(env)
    unescaped.autoescape = False
    memo: dict[str, str] = {}

    def gettext(message: str) -> str:
        text = memo.get(message)
        if text is None:
            text = memo[message] = str(translate(unescaped, message))
        return text

    return gettext


ARCHIVE_ROW = 0  # the "heading level" of a card shown as a row of the archive (`CardHtml`)


class CardHtml:
    """`post_card(card, level, number)`: partials/post_card.html, rendered once per card, heading
    level and list number in this environment's language (a card is on the blog, tag, series
    and home pages); `post_cards(cards, level, numbered)`: those of a list, joined (what the
    theme's `post_list` macro loops over); `archive_rows(cards)`: each card as a row of the
    archive (partials/archive_item.html, "level" 0), joined — kept as the cards are, so that
    the archive after a new title renders one row, not every post's.

    Remembered by the card's identity (PageViews makes each card once per build and hands out
    that object; hashing a card by value costs more than rendering from the memo), the card
    kept in the memo beside its HTML so that its id stays its own; an equal card made again
    (another object) is only rendered again, to the same HTML. With `kept` (the renderer's
    KeptCardHtml, set for each page it renders), a card whose key it names is taken from
    there, or rendered and kept there: a later build shows it without rendering it again. A
    KeptCard (a card not made, its key known: render/card_html.py) is shown as the HTML kept
    under its key at that level and number, or else as its card (made then)."""

    def __init__(self, env: jinja2.Environment, lang: str) -> None:
        self.env = env
        self.lang = lang
        # (the HTML as the template rendered it, a plain str: made Markup where it is given to
        # a template, the one card `__call__` gives or the cards of a list joined; the kept
        # cards are read back as str, ~20,000 of them at 5,000 posts a language)
        self.memo: dict[tuple[int, int, int | None], tuple[object, str]] = {}
        self.kept: KeptCardHtml | None = None

    def __call__(self, card: object, level: int = 2, number: int | None = None) -> Markup:
        return Markup(self._html(card, level, number))  # noqa: S704 - autoescaped output

    def _html(self, card: object, level: int, number: int | None) -> str:
        key = (id(card), level, number)
        hit = self.memo.get(key)
        if hit is not None and hit[0] is card:
            return hit[1]
        kept = self.kept
        if isinstance(card, KeptCard):  # (a card not made, its key known: PageViews.shown_card)
            found = kept_html(card, kept, self.lang, level, number) if kept is not None else None
            if found is not None:
                self.memo[key] = (card, found)
                return found
            # (none kept at this level: the card itself, as it is rendered)
            html = self._html(card.card, level, number)
            self.memo[key] = (card, html)
            return html
        card_key = kept.key_of(card, self.lang) if kept is not None else None
        if kept is None or card_key is None:
            html = self._render(card, level, number)
        else:
            at = (self.lang, card_key, level, number)
            found = kept.get(at)
            if found is None:
                found = self._render(card, level, number)
                kept.keep(at, found)
            html = found
        self.memo[key] = (card, html)
        return html

    def _render(self, card: object, level: int, number: int | None) -> str:
        # (level 0, no heading: the card as a row of the archive, render/archive.py)
        name = "partials/archive_item.html" if level == ARCHIVE_ROW else "partials/post_card.html"
        template = self.env.get_template(name)
        return template.render(card=card, level=level, number=number)  # (autoescaped)

    def rows(self, cards: Sequence[object]) -> Markup:
        """The archive's rows of `cards` (partials/archive_item.html), kept as the cards are."""
        return self._joined(cards, ARCHIVE_ROW, False)

    def join(self, cards: Sequence[object], level: int = 2, numbered: bool = False) -> Markup:
        """The cards of a list, one after the other (numbered from 1 if `numbered`)."""
        return self._joined(cards, level, numbered)

    def _joined(self, cards: Sequence[object], level: int, numbered: bool) -> Markup:
        # each card as `_html` gives it; those in the memo taken here, without a call each
        # (a listing page shows ten, the archive every post)
        memo = self.memo
        out: list[str] = []
        for n, card in enumerate(cards, 1):
            number = n if numbered else None
            hit = memo.get((id(card), level, number))
            out.append(
                hit[1] if hit is not None and hit[0] is card else self._html(card, level, number)
            )
        return Markup("".join(out))  # noqa: S704 - the cards' autoescaped HTML


def _site_part_renderer(env: jinja2.Environment) -> Callable[..., Markup]:
    """`site_part(name)`: the template `name` rendered with the page's `site` only (and the
    globals), once per build and language: what is the same on every page of a language (the
    footer). Remembered by the `site` object (PageViews makes one per language and build; it is
    kept beside the HTML so that its id stays its own); a template that uses anything of a
    page's is an `undefined variable` error naming it."""
    memo: dict[tuple[str, int], tuple[object, Markup]] = {}

    @jinja2.pass_context
    def site_part(context: jinja2.runtime.Context, name: str) -> Markup:
        site = context.resolve("site")
        key = (name, id(site))
        hit = memo.get(key)
        if hit is not None and hit[0] is site:
            return hit[1]
        html = Markup(env.get_template(name).render(site=site))  # noqa: S704 - autoescaped output
        memo[key] = (site, html)
        return html

    return site_part


def template_error(exc: BaseException, project_root: Path | None = None) -> Diagnostic:
    """A Diagnostic naming the template and line of a Jinja2 error."""
    if isinstance(exc, TemplateOutsideError):
        return Diagnostic(exc.rel, None, "symlink", "symbolic links are not followed")
    if isinstance(exc, jinja2.TemplateSyntaxError):
        name = exc.filename or exc.name or "?"
        return Diagnostic(_rel(name, project_root), exc.lineno, "template", exc.message or str(exc))
    if isinstance(exc, jinja2.TemplateNotFound):
        return Diagnostic(None, None, "template", f"template not found: {exc.name}")
    frames = traceback.extract_tb(exc.__traceback__)
    for frame in reversed(frames):
        if frame.filename.endswith((".html", ".xml", ".txt", ".j2")):
            return Diagnostic(
                _rel(frame.filename, project_root), frame.lineno, "template", _message(exc)
            )
    return Diagnostic(None, None, "template", _message(exc))


def _message(exc: BaseException) -> str:
    if isinstance(exc, jinja2.UndefinedError):
        return f"undefined variable: {exc.message}"
    return f"{type(exc).__name__}: {exc}"


def _rel(filename: str, project_root: Path | None) -> str:
    path = Path(filename)
    for base, label in ((project_root, ""), (THEME_DIR, "(bipub theme) ")):
        if base is None:
            continue
        try:
            return label + path.resolve().relative_to(base.resolve()).as_posix()
        except ValueError:
            continue
    return filename
