"""Some of render/markdown_fast.py's speedups, the pieces they put into a MarkdownIt instance:
tokens made without the Token dataclass's `__init__` (`new_token`, the parsers' states that use
it, the block state's line markers found by string methods: `line_marks`), the renderer's loops
doing `renderToken` and the stock `text` rule themselves (`render_loops`), the anchors plugin's
rule in one pass (`anchors`) and `options.get` without an exception per missing option
(`options_get`). Each piece does what the markdown-it-py code it replaces does, step for step.

Imported only by render/markdown_fast.py, which is imported only on the markdown-it-py and
mdit-py-plugins versions it was verified with (render/upstream.py); tests/unit/
test_markdown_fast.py compares the tokens and HTML with stock markdown-it-py's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import fields
from itertools import accumulate
from typing import Any

from markdown_it import MarkdownIt, rules_block
from markdown_it.common.utils import MD_TRIM_CHARS, escapeHtml
from markdown_it.parser_block import ParserBlock
from markdown_it.renderer import RendererHTML
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.anchors.index import unique_slug

# Token's fields (a dataclass with slots), in order: what `Token(type, tag, nesting)` sets
TOKEN_FIELDS = (
    "type",
    "tag",
    "nesting",
    "attrs",
    "map",
    "level",
    "children",
    "content",
    "markup",
    "info",
    "meta",
    "block",
    "hidden",
)
_new = object.__new__


def new_token(ttype: str, tag: str, nesting: Any) -> Token:
    """`Token(ttype, tag, nesting)` without the dataclass's `__init__` and `__post_init__`
    (which turns the default `attrs`, a new empty dict, into another new empty dict): every
    field set to its default, as they do, in a third of the time (~180 tokens a body)."""
    token: Token = _new(Token)
    token.type = ttype
    token.tag = tag
    token.nesting = nesting
    token.attrs = {}
    token.map = None
    token.level = 0
    token.children = None
    token.content = ""
    token.markup = ""
    token.info = ""
    token.meta = {}
    token.block = False
    token.hidden = False
    return token


def line_marks(src: str) -> tuple[list[int], list[int], list[int], list[int]]:
    """StateBlock's line markers of `src` (bMarks, eMarks, tShift, sCount, without the fake
    entry it appends), its per-line loop done with string methods: each line's begin and end
    offsets, its leading spaces and tabs (`isStrSpace`) and their width with tabs expanded to
    the next multiple of 4. Every line split at "\n" is one, but the last when it has nothing
    but spaces and tabs (or nothing: after a final "\n"), which StateBlock's loop leaves out."""
    lines = src.split("\n")
    if not lines[-1].strip(" \t"):
        lines.pop()
    begins = list(accumulate([len(line) + 1 for line in lines], initial=0))
    begins.pop()
    ends = [begin + len(line) for begin, line in zip(begins, lines, strict=True)]
    shifts = [len(line) - len(line.lstrip(" \t")) for line in lines]
    if "\t" not in src:
        return begins, ends, shifts, shifts[:]
    counts = []
    for line, shift in zip(lines, shifts, strict=True):
        offset = 0
        for character in line[:shift]:
            offset += 4 - offset % 4 if character == "\t" else 1
        counts.append(offset)
    return begins, ends, shifts, counts


class BlockState(StateBlock):
    """StateBlock whose `push` (the same steps) makes its token with `new_token`, and whose
    `__init__` sets the same fields, the line markers found by `line_marks`."""

    def __init__(self, src: str, md: MarkdownIt, env: EnvType, tokens: list[Token]) -> None:
        self.src = src
        self.md = md
        self.env = env
        self.tokens = tokens
        begins, ends, shifts, counts = line_marks(src)
        length = len(src)
        begins.append(length)  # (StateBlock's fake entry, for bounds checks)
        ends.append(length)
        shifts.append(0)
        counts.append(0)
        self.bMarks = begins
        self.eMarks = ends
        self.tShift = shifts
        self.sCount = counts
        self.bsCount = [0] * len(begins)
        self.blkIndent = 0
        self.line = 0
        self.lineMax = len(begins) - 1
        self.tight = False
        self.ddIndent = -1
        self.listIndent = -1
        self.parentType = "root"
        self.level = 0
        self.result = ""
        self._code_enabled = "code" in md["block"].ruler.get_active_rules()

    def push(self, ttype: str, tag: str, nesting: Any) -> Token:
        token = new_token(ttype, tag, nesting)
        token.block = True
        if nesting < 0:
            self.level -= 1  # closing tag
        token.level = self.level
        if nesting > 0:
            self.level += 1  # opening tag
        self.tokens.append(token)
        return token


class InlineState(StateInline):
    """StateInline whose `push` and `pushPending` (the same steps) make their tokens with
    `new_token`."""

    def pushPending(self) -> Token:
        token = new_token("text", "", 0)
        token.content = self.pending
        token.level = self.pendingLevel
        self.tokens.append(token)
        self.pending = ""
        return token

    def push(self, ttype: str, tag: str, nesting: Any) -> Token:
        if self.pending:
            self.pushPending()
        token = new_token(ttype, tag, nesting)
        token_meta = None
        if nesting < 0:
            self.level -= 1  # closing tag
            self.delimiters = self._prev_delimiters.pop()
        token.level = self.level
        if nesting > 0:
            self.level += 1  # opening tag
            self._prev_delimiters.append(self.delimiters)
            self.delimiters = []
            token_meta = {"delimiters": self.delimiters}
        self.pendingLevel = self.level
        self.tokens.append(token)
        self.tokens_meta.append(token_meta)
        return token


class BlockParser(ParserBlock):
    """ParserBlock.parse with the state made by `BlockState`."""

    def parse(
        self, src: str, md: MarkdownIt, env: EnvType, outTokens: list[Token]
    ) -> list[Token] | None:
        if not src:
            return None
        state = BlockState(src, md, env, outTokens)
        self.tokenize(state, state.line, state.lineMax)
        return state.tokens


def token_html(
    tokens: list[Token], idx: int, token: Token, xhtml: bool, attrs: Callable[[Token], str]
) -> str:
    """RendererHTML.renderToken, step for step (`attrs`: the renderer's renderAttrs)."""
    if token.hidden:
        return ""
    nesting = token.nesting
    result = "</" + token.tag if nesting == -1 else "<" + token.tag
    if token.block and nesting != -1 and idx and tokens[idx - 1].hidden:
        result = "\n" + result
    if token.attrs:  # (renderAttrs of no attributes is "")
        result += attrs(token)
    if nesting == 0 and xhtml:
        result += " /"
    if not token.block:
        return result + ">"
    if nesting == 1 and idx + 1 < len(tokens):
        after = tokens[idx + 1]
        if (
            after.type == "inline"
            or after.hidden
            or (after.nesting == -1 and after.tag == token.tag)
        ):
            return result + ">"
    return result + ">\n"


def render_loops(md: MarkdownIt) -> None:
    """RendererHTML's `render` and `renderInline` as one loop each, with its `renderToken` and
    its `text` rule (when it is still the stock one: `escapeHtml` of the content) done in the
    loop instead of a method call per token. Only on a RendererHTML whose `renderToken` was not
    replaced; `rules` is read at every render (rules added later are used, as by the stock
    loops)."""
    if type(md.renderer) is not RendererHTML or "renderToken" in vars(md.renderer):
        return
    renderer: Any = md.renderer
    stock_text = RendererHTML.text

    def render_inline(tokens: list[Token], options: Any, env: EnvType) -> str:
        rules = renderer.rules
        text = rules.get("text")
        plain = getattr(text, "__func__", None) is stock_text
        attrs = renderer.renderAttrs
        xhtml = options["xhtmlOut"]
        out = []
        for i, token in enumerate(tokens):
            kind = token.type
            if kind == "text" and plain:
                out.append(escapeHtml(token.content))
            elif kind in rules:
                out.append(rules[kind](tokens, i, options, env))
            else:
                out.append(token_html(tokens, i, token, xhtml, attrs))
        return "".join(out)

    def render(tokens: list[Token], options: Any, env: EnvType) -> str:
        rules = renderer.rules
        text = rules.get("text")
        # an inline of one text token (most paragraphs) is its escaped content: what
        # `render_inline` makes of it, when it is still the renderer's `renderInline`
        plain = getattr(text, "__func__", None) is stock_text and (
            renderer.renderInline is render_inline
        )
        attrs = renderer.renderAttrs
        xhtml = options["xhtmlOut"]
        out = []
        for i, token in enumerate(tokens):
            kind = token.type
            if kind == "inline":
                children = token.children
                if children:
                    if plain and len(children) == 1 and children[0].type == "text":
                        out.append(escapeHtml(children[0].content))
                    else:
                        out.append(renderer.renderInline(children, options, env))
            elif kind in rules:
                out.append(rules[kind](tokens, i, options, env))
            else:
                out.append(token_html(tokens, i, token, xhtml, attrs))
        return "".join(out)

    renderer.render = render
    renderer.renderInline = render_inline


# --------------------------------------------------------------------------- plugins and options


def code_of(rule: Callable[..., object]) -> tuple[str, str]:
    return getattr(rule, "__module__", ""), getattr(rule, "__qualname__", "")


# mdit_py_plugins' anchors rule, a closure made by each `md.use(anchors_plugin, ...)`: known by
# its code, its options read from the closure's cells by name
ANCHORS = ("mdit_py_plugins.anchors.index", "_make_anchors_func.<locals>._anchor_func")
_ANCHOR_OPTIONS = (
    "permalink",
    "permalinkBefore",
    "permalinkSpace",
    "permalinkSymbol",
    "selected_levels",
    "slug_func",
)


def _fast_anchors(
    levels: Collection[int],
    slug_func: Callable[[str], str],
    permalink: bool,
    symbol: str,
    before: bool,
    space: bool,
) -> Callable[[StateCore], None]:
    """The anchors plugin's rule, step for step, with one pass over the tokens to find the
    headings (it makes two) and its tokens made by `new_token` (the `tokens` speedup's reason)."""

    def anchors(state: StateCore) -> None:
        tokens = state.tokens
        heads = [i for i, token in enumerate(tokens) if token.type == "heading_open"]
        if not heads:
            return
        # (the plugin reserves every explicit heading id first, an empty one counting as none)
        slugs = {str(found) for i in heads if (found := tokens[i].attrGet("id"))}
        for idx in heads:
            token = tokens[idx]
            if int(token.tag[1]) not in levels:
                continue
            inline_token = tokens[idx + 1]
            assert inline_token.children is not None
            title = "".join(
                child.content
                for child in inline_token.children
                if child.type in ("text", "code_inline")
            )
            slug = token.attrGet("id")
            if not slug:
                slug = unique_slug(slug_func(title), slugs)
                token.attrSet("id", slug)
            if permalink:
                link_open = new_token("link_open", "a", 1)
                link_open.attrSet("class", "header-anchor")
                link_open.attrSet("href", f"#{slug}")
                block = new_token("html_block", "", 0)
                block.content = symbol
                link_tokens = [link_open, block, new_token("link_close", "a", -1)]
                spacer = []
                if space:
                    text = new_token("text", "", 0)
                    text.content = " "
                    spacer = [text]
                if before:
                    inline_token.children = link_tokens + spacer + inline_token.children
                else:
                    inline_token.children.extend(spacer + link_tokens)

    return anchors


def anchors(md: MarkdownIt) -> None:
    """The anchors plugin's rule becomes `_fast_anchors` with its options (when Token has the
    fields `new_token` sets, and the rule's closure has the cells it is known to have)."""
    if tuple(f.name for f in fields(Token)) != TOKEN_FIELDS:
        return
    for rule in md.core.ruler.__rules__:
        fn = rule.fn
        code = getattr(fn, "__code__", None)
        if code_of(fn) != ANCHORS or code is None or fn.__closure__ is None:
            continue
        cells = dict(zip(code.co_freevars, fn.__closure__, strict=True))
        if sorted(cells) != sorted(_ANCHOR_OPTIONS):
            continue
        values = {name: cell.cell_contents for name, cell in cells.items()}
        fast = _fast_anchors(
            values["selected_levels"],
            values["slug_func"],
            values["permalink"],
            values["permalinkSymbol"],
            values["permalinkBefore"],
            values["permalinkSpace"],
        )
        md.core.ruler.at(rule.name, fast)


def options_get(md: MarkdownIt) -> None:
    """`md.options.get(key, default)` as the dict's own `get` of the options it holds.

    OptionsDict gets `get` from Mapping, which asks `self[key]` and catches the KeyError: the
    list and strikethrough rules ask for options bipub's parser does not set (`tasklists`,
    `strikethrough_single_tilde`) about twenty times a body, an exception each. OptionsDict's
    `__getitem__` is `self._options[key]`, so `_options.get` gives the same answers. Set on
    the instance (what `md.options.get` finds first), only on an OptionsDict holding a dict."""
    options = md.options
    held = getattr(options, "_options", None)
    if type(options) is OptionsDict and type(held) is dict:
        vars(options)["get"] = held.get


# --------------------------------------------------------------------------- one-line paragraphs


def fast_lheading(state: StateBlock, startLine: int, endLine: int, silent: bool) -> bool:
    """markdown-it's `lheading` rule, whose line loop (`while nextLine < endLine and not
    state.isEmpty(nextLine)`) does not run when the next line is empty or past `endLine`: it
    then sets `state.parentType = "paragraph"` (and leaves it so, as the stock rule does when it
    fails) unless the line is a code block, and returns False. Any other line: the stock rule."""
    nextLine = startLine + 1
    if nextLine < endLine and not state.isEmpty(nextLine):
        return rules_block.lheading(state, startLine, endLine, silent)
    if state.is_code_block(startLine):
        return False
    state.parentType = "paragraph"
    return False


def fast_paragraph(state: StateBlock, startLine: int, endLine: int, silent: bool) -> bool:
    """markdown-it's `paragraph` rule for a paragraph of one line (the next line is empty or
    past `state.lineMax`: its loop stops at once), the same steps without the loop; any other
    line: the stock rule. (The stock rule sets `state.parentType` to "paragraph" while it
    works and back after; nothing it calls in between reads it.)"""
    nextLine = startLine + 1
    if nextLine < state.lineMax and not state.isEmpty(nextLine):
        return rules_block.paragraph(state, startLine, endLine, silent)
    content = state.getLines(startLine, nextLine, state.blkIndent, False).strip(MD_TRIM_CHARS)
    state.line = nextLine
    token = state.push("paragraph_open", "p", 1)
    token.map = [startLine, nextLine]
    token = state.push("inline", "", 0)
    token.content = content
    token.map = [startLine, nextLine]
    token.children = []
    state.push("paragraph_close", "p", -1)
    return True


def one_line_paragraphs(md: MarkdownIt) -> None:
    """The block rules `lheading` and `paragraph` become `fast_lheading` and `fast_paragraph`,
    if they are still the stock ones."""
    ruler = md.block.ruler
    for rule in ruler.__rules__:
        if rule.name == "lheading" and rule.fn is rules_block.lheading:
            ruler.at("lheading", fast_lheading, {"alt": rule.alt})
        elif rule.name == "paragraph" and rule.fn is rules_block.paragraph:
            ruler.at("paragraph", fast_paragraph, {"alt": rule.alt})


# The inline rules a link label is scanned with (`parseLinkLabel` steps over it with
# `skipToken`, which tries them in silent mode at each position, `text` first): at a character
# none of the others starts at (`_LABEL_RUN`) but a terminator (`md.inline.terminator_re`, which
# `text` searches for), `text` takes the run up to the next terminator and no other rule is
# tried; it never steps over a "]" (a terminator).
LABEL_RULES = frozenset(
    {"text", "newline", "math_inline", "escape", "backticks", "strikethrough", "emphasis",
     "link", "image", "footnote_inline", "footnote_ref", "autolink", "html_inline", "entity"}
)  # fmt: skip
_LABEL_RUN = re.compile(r"[^\n!$&*<\[\\\]^_`~]*")  # where only `text` can match (or nothing)


def link_label(stock: Callable[[StateInline, int, bool], int]) -> Callable[..., int]:
    """markdown-it's `parseLinkLabel` (`stock`) with the common case done here: a label whose
    text up to its first "]" is one `_LABEL_RUN` ends at that "]" (the nesting level is 1
    throughout: no "["). Its `text` steps are made here, with `skipToken`'s memo
    (`state.cache`) as `skipToken` keeps it; at a terminator, `skipToken` itself runs (the
    footnote plugin's rule sets up `env` there). Anything else (a memo entry past the "]",
    nesting at its limit) is left to `stock`, with the state as it found it."""

    def parse_link_label(state: StateInline, start: int, disableNested: bool = False) -> int:
        src, maximum = state.src, state.posMax
        run = _LABEL_RUN.match(src, start + 1, maximum)
        end = maximum if run is None else run.end()
        if end >= maximum or src[end] != "]" or state.level >= state.md.options["maxNesting"]:
            return stock(state, start, disableNested)
        cache = state.cache
        search = state.md.inline.terminator_re.search
        pos = start + 1
        while pos < end:
            step = cache.get(pos)
            if step is None:
                found = search(src, pos)
                stop = found.start() if found else maximum
                if stop > pos:  # `text` matches: no other rule is tried
                    step = cache[pos] = stop
                else:
                    before, state.pos = state.pos, pos
                    state.md.inline.skipToken(state)
                    step, state.pos = state.pos, before
            if step > end:  # (never: "]" is a terminator; a memo made another way)
                return stock(state, start, disableNested)
            pos = step
        return end

    return parse_link_label
