"""Markdown → HTML: CommonMark + tables, footnotes, strikethrough, bare URLs linked
(markdown_autolinks.py); Pygments; heading anchors.

Raw HTML is off unless the site opts in; `javascript:`, `vbscript:`, `data:` and `file:` link
targets are dropped (the link text stays) and reported in `RenderedMarkdown.dropped_links` with
their line in the body, so the build can warn about them. Heading ids are prefixed (`h-`) so they never collide
with the page's own ids; a heading's own `{#id}` is used as written (markdown_heading_ids.py).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, compress, repeat
from operator import is_, is_not
from typing import TYPE_CHECKING, Any, Final

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin

from bipub.code_stamp import CODE
from bipub.diagnostics import Collector, Diagnostic
from bipub.pair.images import Images, LocalImage
from bipub.render import mathml, upstream
from bipub.render.code_info import line_count, parse_info
from bipub.render.diagrams import Diagrams
from bipub.render.markdown_alerts import alert_titles, render_alert_open, unknown_alerts
from bipub.render.markdown_autolinks import AMBIGUOUS, bare_links
from bipub.render.markdown_code import (
    FENCES,
    UNKNOWN,
    Fences,
    fence,
    is_diagram,
    mark_code_blocks,
)
from bipub.render.markdown_findings import (
    DroppedLink,
    html_as_text,
    locate,
    math_errors,
    render_findings,
    stray_emphasis,
    unused_footnotes,
)
from bipub.render.markdown_heading_ids import HEADING_IDS, heading_ids
from bipub.render.markdown_images import mark_images, render_image
from bipub.render.markdown_sections import (
    MARK,
    Outline,
    Sections,
    cut,
    outline,
    relative_candidates,
    top_headings,
    unmarked,
)
from bipub.render.markdown_tasks import task_lists
from bipub.text.headings import HEADING_PREFIX, heading_slug

# Which paths a render takes: the fast ones only on verified upstream versions (render/upstream.py).
FAST_MARKDOWN: Final = upstream.fast_markdown()
FAST_HIGHLIGHT: Final = upstream.fast_highlight()
speed_up: Callable[[MarkdownIt], MarkdownIt] | None = None
inline_with_lines: Callable[[Callable[[int | None], object]], Callable[[StateCore], None]] | None
inline_with_lines = None
if FAST_MARKDOWN:  # markdown_fast reaches into markdown-it-py: not even imported on other versions
    from bipub.render.markdown_fast import inline_with_lines, speed_up

if TYPE_CHECKING:
    from bipub.load.content import Document

_SAFE_SCHEME = re.compile(r"^(?:https?:|mailto:|tel:|#|/|\./|\.\./|[^:/?#]*(?:[/?#]|$))", re.I)
_CTRL = re.compile(r"[\x00-\x20\x7f]+")


@lru_cache(maxsize=65536)  # pure; asked for every link of every page
def is_safe_url(url: str) -> bool:
    """True for http(s), mailto, tel, fragment and relative URLs; false for any other scheme.
    Control characters and whitespace are stripped first, as browsers do (`java\\nscript:`)."""
    cleaned = _CTRL.sub("", unicodedata.normalize("NFC", url))
    return bool(_SAFE_SCHEME.match(cleaned))


@dataclass(frozen=True)
class Heading:
    level: int
    id: str
    text: str


@dataclass(frozen=True)
class RenderedMarkdown:
    html: str
    headings: tuple[Heading, ...]
    text: str  # plain text (for reading time, llms-full.txt, search)
    unknown_languages: tuple[str, ...] = ()
    dropped_links: tuple[DroppedLink, ...] = ()
    math_errors: tuple[tuple[int | None, str], ...] = ()  # (line in the body, why): issue 19
    diagram_errors: tuple[tuple[int | None, str], ...] = ()  # (line of the fence, why): issue 19
    unused_footnotes: tuple[tuple[int | None, str], ...] = ()  # (line, label): never referenced
    stray_emphasis: tuple[tuple[int | None, str], ...] = ()  # (line, run): `**` shown as text
    html_text: tuple[tuple[int | None, str], ...] = ()  # (line, text): a tag shown as text
    unknown_alerts: tuple[tuple[int | None, str], ...] = ()  # (line, marker): `> [!NOTICE]`
    code_info: tuple[tuple[int | None, str], ...] = ()  # (line, what): ignored in an info string
    ambiguous_urls: tuple[tuple[int | None, str], ...] = ()  # (line, URL): may end in a particle
    heading_ids: tuple[tuple[int | None, str], ...] = ()  # (line, why): `{#…}` unread, clashing


# Per render call: the refused URLs and the source line of the inline being parsed.
_DROPPED: ContextVar[list[tuple[str, int | None]] | None] = ContextVar("_DROPPED", default=None)
_LINE: ContextVar[int | None] = ContextVar("_LINE", default=None)


def _validate_link(url: str) -> bool:
    ok = is_safe_url(url)
    if not ok:
        dropped = _DROPPED.get()
        if dropped is not None:
            dropped.append((url, _LINE.get()))
    return ok


def _inline_with_lines(state: StateCore) -> None:
    """markdown-it's core `inline` rule, remembering each inline's first source line."""
    for token in state.tokens:
        if token.type == "inline":
            if token.children is None:
                token.children = []
            _LINE.set(token.map[0] + 1 if token.map else None)
            state.md.inline.parse(token.content, state.md, state.env, token.children)
    _LINE.set(None)


# (language name, code, highlighted lines) → HTML; None: an unknown language
Blocks = dict[tuple[str, str, tuple[int, ...]], "str | None"]


def _highlighter(unknown: list[str], blocks: Blocks | None, fast: bool) -> object:
    def _highlight(code: str, lang: str, attrs: str) -> str:
        name = (lang or "").strip().split()[0] if lang else ""
        if not name:
            return ""
        lines = parse_info(attrs, line_count(code)).lines if attrs else ()  # (code_info.py)
        key = (name, code, lines)
        if blocks is not None and key in blocks:
            html = blocks[key]
        else:
            # imported here: Pygments and its lexers load only for a page with a code block
            # (start-up time of an update that renders a few pages)
            from bipub.render.highlight import highlight, lexer_for

            lexer = lexer_for(name, fast)
            html = None if lexer is None else highlight(code, lexer, fast, lines)
            if blocks is not None:
                blocks[key] = html
        if html is None:
            unknown.append(name)
            return ""
        return html

    return _highlight


def _stock_parser(raw_html: bool) -> MarkdownIt:
    """bipub's Markdown dialect on a plain MarkdownIt (tests compare `_parser` with it)."""
    md = MarkdownIt("commonmark", {"html": raw_html, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.options["alerts"] = True  # `> [!NOTE]`: titled in the body's language (markdown_alerts)
    md.use(footnote_plugin)
    # $…$ and $$…$$ (also inside a paragraph), typeset to MathML (mathml.py); "$5" stays text
    md.use(
        dollarmath_plugin, allow_space=False, allow_digits=False, double_inline=True, renderer=_math
    )
    md.add_render_rule("math_inline_double", mathml.render_display_inline)
    md.core.ruler.after("inline", "spaced_double_dollars", mathml.spaced_double_as_text)
    md.use(anchors_plugin, min_level=1, max_level=6, slug_func=heading_slug, permalink=True)
    md.validateLink = _validate_link  # type: ignore[method-assign]
    md.core.ruler.at("inline", _inline_with_lines)
    md.core.ruler.after("inline", "task_lists", task_lists)  # session 29: `- [x] done`
    md.add_render_rule("image", render_image)  # issue 19: <picture> around a local image
    md.add_render_rule("fence", fence)  # ```mermaid: a diagram (render/diagrams.py)
    md.core.ruler.after("inline", "alert_titles", alert_titles)
    # session 32: `## 결론 {#conclusion}`, before the anchors plugin's rule (markdown_heading_ids)
    md.core.ruler.before("anchor", "heading_ids", heading_ids)
    md.add_render_rule("alert_open", render_alert_open)
    # session 32: bare URLs linked (GFM), ending where the drafter and QA end them (text/urls.py)
    md.core.ruler.after("text_join", "bare_links", bare_links(_LINE.set))
    return md


@lru_cache(maxsize=2)
def _blocks_parser(raw_html: bool) -> MarkdownIt:
    """bipub's dialect without the inline parse: the blocks a render finds (half its cost)."""
    md = _stock_parser(raw_html)
    md.core.ruler.disable(["inline"])
    return md


def body_outline(source: str, raw_html: bool = False) -> Outline:
    """A body's Outline as its render finds it (MarkdownCache.outlines) without rendering it,
    for a body no render of this build parsed: a block parse (a parse with the inline one for
    a body that may have a relative link)."""
    if relative_candidates(source):
        return outline(_parser(raw_html).parse(source, {}), source)
    return Outline(top_headings(_blocks_parser(raw_html).parse(source, {})))


@lru_cache(maxsize=4)
def _parser(raw_html: bool, fast: bool = FAST_MARKDOWN) -> MarkdownIt:
    """The parser of every render: `_stock_parser`, sped up (the same tokens, see markdown_fast)
    on the markdown-it-py it was verified with, else as it is."""
    md = _stock_parser(raw_html)
    if not fast or speed_up is None or inline_with_lines is None:
        return md
    speed_up(md)
    md.core.ruler.at("inline", inline_with_lines(_LINE.set))  # (`_inline_with_lines`, faster)
    return md


def render_markdown(
    source: str,
    *,
    raw_html: bool = False,
    blocks: Blocks | None = None,
    fast: bool | None = None,
    images: Mapping[str, LocalImage] | None = None,
    prefix: str = "",
    diagrams: Diagrams | None = None,
    lang: str = "en",
) -> RenderedMarkdown:
    """`blocks`: highlighted code blocks from earlier (and for later) renders; Pygments output
    depends on nothing but the language name, the code and its highlighted lines (`bipub serve`
    keeps them between updates, so an update compiles no lexer for blocks it has highlighted
    before). `fast`: force the fast paths on or off (tests; default: on verified upstream
    versions only). `images`: the body's local images by their `src` (pair/images.py),
    `prefix`: the site's base path (variants' hrefs). `diagrams`: where ```mermaid fences get their SVG (render/diagrams.py; None: drawn
    on demand, not cached). `lang`: the body's language (its alerts' titles: markdown_alerts)."""
    md = _parser(raw_html, FAST_MARKDOWN if fast is None else fast)
    fast_highlight = FAST_HIGHLIGHT if fast is None else fast
    return _render(md, source, blocks, fast_highlight, images or {}, prefix, diagrams, lang)


def render_body(
    source: str,
    starts: tuple[int, ...],
    *,
    raw_html: bool = False,
    blocks: Blocks | None = None,
    images: Mapping[str, LocalImage] | None = None,
    prefix: str = "",
    diagrams: Diagrams | None = None,
    fences: Fences | None = None,
    lang: str = "en",
) -> tuple[RenderedMarkdown, Sections]:
    """`render_markdown`, and the same render cut into the parts that begin at the 0-based
    lines `starts` of `source` (load/sections.py: where each section begins; the side-by-side
    view, render/both.py): one parse of the body for both. `fences`: code blocks' HTML from
    earlier renders, and for later ones (markdown_code.py; on verified versions only)."""
    md = _parser(raw_html, FAST_MARKDOWN)
    rendered, sections = _render_body(
        md,
        source,
        blocks,
        FAST_HIGHLIGHT,
        images or {},
        prefix,
        diagrams,
        starts,
        fences if FAST_MARKDOWN else None,
        lang,
    )
    assert sections is not None  # (asked for: starts)
    return rendered, sections


def _render(
    md: MarkdownIt,
    source: str,
    blocks: Blocks | None,
    fast_highlight: bool = FAST_HIGHLIGHT,
    images: Mapping[str, LocalImage] | None = None,
    prefix: str = "",
    diagrams: Diagrams | None = None,
    lang: str = "en",
) -> RenderedMarkdown:
    return _render_body(
        md, source, blocks, fast_highlight, images, prefix, diagrams, None, None, lang
    )[0]


def _render_body(
    md: MarkdownIt,
    source: str,
    blocks: Blocks | None,
    fast_highlight: bool = FAST_HIGHLIGHT,
    images: Mapping[str, LocalImage] | None = None,
    prefix: str = "",
    diagrams: Diagrams | None = None,
    starts: tuple[int, ...] | None = None,
    fences: Fences | None = None,
    lang: str = "en",
) -> tuple[RenderedMarkdown, Sections | None]:
    unknown: list[str] = []
    env: dict[str, Any] = {"lang": lang}
    dropped: list[tuple[str, int | None]] = []
    reset = _DROPPED.set(dropped)
    try:
        tokens = md.parse(source, env)
    finally:
        _DROPPED.reset(reset)
    found = outline(tokens, source) if starts is not None else None  # (before mark_images)
    ignored = mark_code_blocks(tokens)
    mark_images(tokens, images or {}, prefix)
    headings: list[Heading] = []
    text_parts: list[str] = []
    opened: Token | None = None  # a heading_open: the next token (its inline) is its text
    for tok in tokens:
        kind = tok.type
        text = _inline_text(tok) if kind == "inline" else None  # (once for a heading's both)
        if opened is not None:
            title = text if text is not None else _inline_text(tok)
            headings.append(Heading(int(opened.tag[1]), str(opened.attrGet("id") or ""), title))
        if text is not None:
            text_parts.append(text)
        elif kind in ("fence", "code_block"):
            text_parts.append(tok.content)
        opened = tok if kind == "heading_open" else None
    env["diagrams"] = diagrams if diagrams is not None else Diagrams(None)
    if fences is not None:
        env[FENCES], env[UNKNOWN] = fences, unknown
    md.options["highlight"] = _highlighter(unknown, blocks, fast_highlight)
    try:
        if starts is None:
            html, sections = md.renderer.render(tokens, md.options, env), None
        else:
            env["docId"] = MARK  # (the footnotes' ids)
            parts, notes = cut(tokens, starts)
            sections = Sections(
                tuple(md.renderer.render(part, md.options, env) for part in parts),
                md.renderer.render(notes, md.options, env) if notes else "",
                found or Outline(()),
                frozenset(h.id for h in headings if not h.id.startswith(HEADING_PREFIX)),
            )
            html = "".join(unmarked(part) for part in sections.parts) + unmarked(sections.notes)
    finally:
        md.options["highlight"] = None
    rendered = RenderedMarkdown(
        html,
        tuple(headings),
        "\n".join(text_parts),
        tuple(unknown),
        locate(dropped, source),
        # (formulas come only from the dollarmath rules, which match only at a "$")
        math_errors(tokens) if "$" in source else (),
        tuple(env.get("diagram_errors", ())),
        unused_footnotes(env, source),
        stray_emphasis(tokens) if "**" in source or "__" in source or "~~" in source else (),
        html_as_text(tokens) if "<" in source and not md.options.get("html") else (),
        tuple(unknown_alerts(tokens)) if "[!" in source else (),
        ignored,
        tuple(env.get(AMBIGUOUS, ())),
        tuple(env.get(HEADING_IDS, ())),
    )
    return rendered, sections


def parse(body: str, raw_html: bool = False) -> list[Token]:
    """A body's tokens as its render parses them (`bipub check --links` finds its links)."""
    return _parser(raw_html).parse(body, {})


def diagram_sources(body: str, raw_html: bool = False) -> list[str]:
    """The source of every ```mermaid fence of a Markdown body (what `render_markdown` will
    ask `Diagrams` for)."""
    if "mermaid" not in body:  # (most bodies: no parse)
        return []
    tokens = _parser(raw_html).parse(body, {})
    return [tok.content for tok in tokens if tok.type == "fence" and is_diagram(tok.info)]


def _math(latex: str, options: dict[str, Any]) -> str:
    return mathml.render(latex, bool(options.get("display_mode")))


def _inline_text(tok: Token) -> str:
    out = []
    for child in tok.children or []:
        if child.type in ("text", "code_inline"):
            out.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
    return "".join(out).replace("¶", "").strip()


class MarkdownCache:
    """Each document body is rendered once per build, whichever outputs show it.

    What rendering a body warns about (unknown code languages, refused links) is also kept in
    `notes` (the build cache keeps them between builds, by path and file digest), so a page kept
    from the previous build still reports its document's warnings without rendering it again
    (`replay`)."""

    def __init__(
        self,
        raw_html: bool,
        collector: Collector,
        notes: dict[str, tuple[Diagnostic, ...]] | None = None,
        blocks: Blocks | None = None,
        images: Images | None = None,
        diagrams: Diagrams | None = None,
    ) -> None:
        self.raw_html = raw_html
        self.images = images if images is not None else Images()  # the site's (pair/images.py)
        self.diagrams = diagrams if diagrams is not None else Diagrams(None)
        self.collector = collector
        self.notes = notes if notes is not None else {}
        self.blocks = blocks
        self._cache: dict[str, RenderedMarkdown] = {}
        self._sections: dict[str, Sections] = {}  # the same renders cut into sections
        # the Outline of each body rendered in this build (where llms-full.txt moves headings
        # and makes links absolute: render/llms_body.py), by path: render workers send theirs
        # back (`merge`)
        self.outlines: dict[str, Outline] = {}
        # the paths whose renders a render worker sends back (`shipped`, then `merge`): bodies
        # an output made in the build's own process after the pages shows (feeds)
        self.wanted: frozenset[str] = frozenset()
        self.shipped: dict[str, RenderedMarkdown] = {}
        self._replayed: set[str] = set()
        self._used: set[str] = set()  # the notes of this build's documents
        self._renderer = ""  # (renderer(), worked out once)
        self._fences: Fences = {}  # code blocks' HTML (markdown_code.py: a body and its translation)

    def __call__(self, doc: Document) -> RenderedMarkdown:
        """Render a document's body once per build."""
        hit = self._cache.get(doc.rel)
        if hit is None:
            hit = self._render(doc)
            if doc.rel in self.wanted:
                self.shipped[doc.rel] = hit
            self._cache[doc.rel] = hit
            found = render_findings(doc.rel, hit, doc.body_line)
            self.collector.extend(found)
            if doc.digest:
                key = self.key(doc)
                self.notes[key] = found
                self._used.add(key)
        return hit

    def sections(self, doc: Document) -> Sections:
        """The document's body cut into its sections (load/sections.py), from the same render
        as its page's (`render_body`): what the side-by-side page shows (render/both.py)."""
        found = self._sections.get(doc.rel)
        if found is None:
            self(doc)  # (its warnings, once)
            found = self._sections.get(doc.rel)
            if found is None:  # its render came from a render worker (`merge`): not its cut
                self._render(doc)
                found = self._sections[doc.rel]
        return found

    def _render(self, doc: Document) -> RenderedMarkdown:
        """One parse of the body: its page's render, and the same cut into sections."""
        rendered, sections = render_body(
            doc.body,
            tuple(sec.line - doc.body_line for sec in doc.sections),
            raw_html=self.raw_html,
            blocks=self.blocks,
            images=self.images.of(doc.rel),
            prefix=self.images.prefix,
            diagrams=self.diagrams,
            fences=self._fences,
            lang=doc.lang,
        )
        self._sections[doc.rel] = sections
        self.outlines[doc.rel] = sections.outline
        return rendered

    def prepare_diagrams(self, docs: Iterable[Document]) -> None:
        """Draw the ```mermaid diagrams of `docs` that are not in the cache, in one renderer
        run (render/diagrams.py), before bodies are rendered (here or in forked workers)."""
        self.diagrams.prepare(
            source
            for doc in docs
            if doc.mentions_mermaid
            for source in diagram_sources(doc.body, self.raw_html)
        )

    def replay(self, doc: Document) -> None:
        """Report what rendering this document's body warns about: from `notes` if they are
        there, else by rendering it."""
        if doc.rel in self._cache or doc.rel in self._replayed:
            return
        key = self.key(doc) if doc.digest else ""
        found = self.notes.get(key) if key else None
        if found is None:
            self(doc)
            return
        self._replayed.add(doc.rel)
        self._used.add(key)
        self.collector.extend(found)

    def replay_all(self, docs: Mapping[str, Document], keyed: Mapping[str, str]) -> None:
        """`replay` each of `docs` (by path, each once: an update replays every document of a
        big site whose pages it keeps), `keyed` giving each one's `key` but for what renders
        every body (f"{digest}:{path}"; none without a digest): in set operations, with a step
        each only for those it lacks or with local images (`replay`) and for those whose notes
        are not kept (rendered)."""
        done, images = self._cache.keys() | self._replayed, self.images.docs.keys()
        for rel in ((docs.keys() - keyed.keys()) | (docs.keys() & images)) - done:
            self.replay(docs[rel])  # (no key, or its images' in it: `key`)
        fast = list(keyed.keys() - done - images)
        head = f"{self.renderer()}:{int(self.raw_html)}:"
        keys = list(map(head.__add__, map(keyed.__getitem__, fast)))
        found = list(map(self.notes.get, keys))
        if None in found:  # (not kept: rendered, as `replay` renders it)
            for rel in compress(fast, map(is_, found, repeat(None))):
                self(docs[rel])
            kept = list(map(is_not, found, repeat(None)))
            fast, keys = list(compress(fast, kept)), list(compress(keys, kept))
        self._replayed.update(fast)
        self._used.update(keys)
        self.collector.extend(chain.from_iterable(filter(None, found)))

    def merge(
        self,
        notes: dict[str, tuple[Diagnostic, ...]],
        outlines: Mapping[str, Outline] | None = None,
        shipped: Mapping[str, RenderedMarkdown] | None = None,
    ) -> None:
        """What a render worker worked out rendering bodies for this build: their notes, their
        Outlines, the renders of the `wanted` ones (rendered here, now: the worker
        reported their warnings)."""
        self.notes.update(notes)
        self._used.update(notes)
        self.outlines.update(outlines or {})
        self._cache.update(shipped or {})

    def used_notes(self) -> dict[str, tuple[Diagnostic, ...]]:
        """The notes of the documents this build rendered or replayed: what the build cache
        keeps (older versions of documents are dropped, so the cache does not grow forever)."""
        return {key: self.notes[key] for key in self._used}

    def key(self, doc: Document) -> str:
        """What a body's rendering depends on: the document's bytes, the raw-HTML option, its
        local images (their sizes and variants: issue 19) and what renders it (`renderer`)."""
        images = self.images.key(doc.rel)
        key = f"{self.renderer()}:{int(self.raw_html)}:{doc.digest}:{doc.rel}"
        return f"{key}:{images}" if images else key

    def renderer(self) -> str:
        """A digest of what renders every body, the same for each: bipub's version, the
        versions of markdown-it-py, its plugins and Pygments, and what draws the diagrams (their
        tool and the fonts of pdf.fonts: Diagrams.stamp). Bodies kept from an earlier build
        (`earlier`, `notes`) by a key without it were reused after any of these changed."""
        if not self._renderer:
            parts = (CODE, sorted(upstream.installed().items()), self.diagrams.stamp())
            self._renderer = hashlib.sha256(repr(parts).encode("utf-8")).hexdigest()[:16]
        return self._renderer
