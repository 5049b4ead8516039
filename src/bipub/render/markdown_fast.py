"""Faster parsing for bipub's own MarkdownIt instances: the same tokens (and HTML) as stock
markdown-it-py.

`speed_up(md)` changes only the instance it is given (nothing process-wide), with each of
`SPEEDUPS`:

* block-dispatch — markdown-it tries every block rule on every line (and the `paragraph`,
  `blockquote`, `list` and `reference` chains again, in silent mode, on every line that might
  end a block) until one matches; most rules give up at once unless the line starts with their
  marker. Each chain becomes one dispatcher that looks at the line's first non-space character
  and calls, in the ruler's order, only the rules that can match such a line.
* inline-dispatch — the same for inline rules, at the characters where `text` stops. (The
  dollarmath plugin's `$$` block and `$` inline rules, closures made per parser, are known by
  their code: they match only at a "$".)
* plain-inline — inline content without any of those characters is one text token.
* normalize — the core `normalize` rule is skipped when there is nothing to replace.
* footnote-tail — the footnote plugin's core rule is skipped when there are no footnotes.
* links — `normalizeLink` returns plain ASCII URLs as they are (and remembers the others), and
  `parseLinkDestination` finds an ordinary destination with one regex, and `parseLinkLabel`
  the end of a label of plain text (markdown_fast_parts.py `link_label`).
* render-attrs — the renderer skips the attributes loop of tokens that have none.
* render-loops — the renderer's `render` and `renderInline` loops do `renderToken` and the
  stock `text` rule themselves, instead of a method call per token.
* tokens — the block and inline parsers make their tokens without the Token dataclass's
  `__init__` (every field set to its default, as it does).
* paragraphs — a paragraph of one line (the next one empty: the usual Markdown) is made
  without the `lheading` and `paragraph` rules' loops over the lines that follow, which stop at
  once there (markdown_fast_parts.py `fast_lheading`, `fast_paragraph`).

Every shortcut is taken only where it is provably what the stock code does (each says why);
tests/unit/test_markdown_fast.py compares tokens, env and HTML with a stock parser, and
bench/markdown_ab.py times the two.

"Provably" holds for the markdown-it-py and mdit-py-plugins versions it was read against: this
module is imported (by render/markdown.py) only on the versions listed in render/upstream.py;
on any other, bipub parses with stock markdown-it-py.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, fields
from functools import lru_cache
from types import ModuleType
from typing import Any

from markdown_it import MarkdownIt, rules_block, rules_core, rules_inline
from markdown_it.common.utils import unescapeAll
from markdown_it.helpers import parse_link_destination
from markdown_it.parser_block import ParserBlock, RuleFuncBlockType
from markdown_it.parser_inline import ParserInline, RuleFuncInlineType
from markdown_it.ruler import Ruler
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType
from mdit_py_plugins.footnote.index import footnote_def, footnote_inline, footnote_tail

from bipub.render.markdown_fast_parts import (
    LABEL_RULES,
    TOKEN_FIELDS,
    BlockParser,
    InlineState,
    anchors,
    code_of,
    fast_lheading,
    fast_paragraph,
    link_label,
    new_token,
    one_line_paragraphs,
    options_get,
    render_loops,
)

# --------------------------------------------------------------------------- block rules


@dataclass(frozen=True)
class _BlockGate:
    """Necessary conditions for a block rule to match line `startLine` (which is not empty:
    empty lines always get every rule). Let `pos = bMarks + tShift` (the first non-space
    character) and `is_code = state.is_code_block(startLine)`."""

    chars: frozenset[str] | None  # when not is_code: src[pos] is one of these (None: anything)
    code_lines: bool  # whether it can match when is_code
    pipe: bool = False  # when not is_code: "|" occurs in src[pos:eMarks]


_NEVER: frozenset[str] = frozenset()

# Each condition below is checked by the rule itself, before it changes anything (state, tokens
# or env) and whether `silent` or not, and on failure it returns False. `is_code` lines: every
# rule here but `code` and `paragraph` starts with `if state.is_code_block(startLine): return
# False` (table checks it after its other checks, none of which changes anything).
_BLOCK_GATES: dict[Callable[..., bool], _BlockGate] = {
    # `"|" not in lineText` → False, lineText = src[pos:eMarks] stripped of spaces.
    rules_block.table: _BlockGate(None, code_lines=False, pipe=True),
    # Matches exactly the lines that is_code_block.
    rules_block.code: _BlockGate(_NEVER, code_lines=True),
    # The stock fence rule (markers "~" and "`"): `marker = src[pos]; if marker not in markers`.
    rules_block.fence: _BlockGate(frozenset("~`"), code_lines=False),
    # `if state.src[pos] != ">": return False`.
    rules_block.blockquote: _BlockGate(frozenset(">"), code_lines=False),
    # `if marker not in ("*", "-", "_"): return False` (marker = src[pos]).
    rules_block.hr: _BlockGate(frozenset("*-_"), code_lines=False),
    # skipOrderedListMarker wants an ASCII digit at pos, skipBulletListMarker one of "*-+";
    # when both fail, list_block returns False.
    rules_block.list_block: _BlockGate(frozenset("0123456789*-+"), code_lines=False),
    # `if state.src[pos] != "[": return False`.
    rules_block.reference: _BlockGate(frozenset("["), code_lines=False),
    # `if state.src[pos] != "<": return False`.
    rules_block.html_block: _BlockGate(frozenset("<"), code_lines=False),
    # `if ch != "#" or pos >= maximum: return False` (ch = src[pos]).
    rules_block.heading: _BlockGate(frozenset("#"), code_lines=False),
    # Only the code-line check: past it, even a failing lheading changes the state (it leaves
    # state.parentType = "paragraph" behind), so it must be called on every other line.
    rules_block.lheading: _BlockGate(None, code_lines=False),
    # paragraph matches any line, is_code or not.
    rules_block.paragraph: _BlockGate(None, code_lines=True),
    # mdit_py_plugins' footnote_def: `if state.src[start] != "[": return False` (start = pos).
    footnote_def: _BlockGate(frozenset("["), code_lines=False),
    # the `paragraphs` speedup's rules: the same conditions as the rules they stand for
    fast_lheading: _BlockGate(None, code_lines=False),
    fast_paragraph: _BlockGate(None, code_lines=True),
}


# mdit_py_plugins' dollarmath rules are closures made by each `md.use(dollarmath_plugin)`: known
# by their code (its module and qualified name), not by identity.
_DOLLAR_BLOCK = (
    "mdit_py_plugins.dollarmath.index",
    "math_block_dollar.<locals>._math_block_dollar",
)
_DOLLAR_INLINE = (
    "mdit_py_plugins.dollarmath.index",
    "math_inline_dollar.<locals>._math_inline_dollar",
)


def _block_gate(rule: Callable[..., bool]) -> _BlockGate | None:
    gate = _BLOCK_GATES.get(rule)
    if gate is None and code_of(rule) == _DOLLAR_BLOCK:
        # `$$` blocks (math_block, math_block_label): `if is_code_block(state, startLine):
        # return False`, then `if startPos + 2 > end: return False` and `if state.src[startPos]
        # != "$" ...: return False` (startPos = pos), before it changes anything.
        gate = _BlockGate(frozenset("$"), code_lines=False)
    return gate


def _block_dispatcher(rules: list[RuleFuncBlockType]) -> RuleFuncBlockType:
    """One function doing what `for rule in rules: if rule(...): return True` does."""
    gates = [_block_gate(rule) for rule in rules]

    def chain(admits: Callable[[_BlockGate], bool]) -> tuple[RuleFuncBlockType, ...]:
        return tuple(
            rule for rule, gate in zip(rules, gates, strict=True) if gate is None or admits(gate)
        )

    def text_chain(char: str | None, pipe: bool) -> tuple[RuleFuncBlockType, ...]:
        return chain(lambda g: (g.chars is None or char in g.chars) and (pipe or not g.pipe))

    everything = tuple(rules)
    code_chain = chain(lambda g: g.code_lines)
    markers = {c for gate in gates if gate and gate.chars for c in gate.chars}
    by_char = {c: (text_chain(c, False), text_chain(c, True)) for c in markers}
    other = (text_chain(None, False), text_chain(None, True))
    wants_pipe = any(gate and gate.pipe for gate in gates)

    def dispatch(state: StateBlock, startLine: int, endLine: int, silent: bool) -> bool:
        pos = state.bMarks[startLine] + state.tShift[startLine]
        maximum = state.eMarks[startLine]
        if pos >= maximum:
            candidates = everything
        elif state.sCount[startLine] - state.blkIndent >= 4 and state.is_code_block(startLine):
            candidates = code_chain
        else:
            pair = by_char.get(state.src[pos], other)
            if wants_pipe and state.src.find("|", pos, maximum) >= 0:
                candidates = pair[1]
            else:
                candidates = pair[0]
        for rule in candidates:  # noqa: SIM110 - any(generator) is slower, on every line
            if rule(state, startLine, endLine, silent):
                return True
        return False

    return dispatch


class _BlockRuler(Ruler[RuleFuncBlockType]):
    """A block ruler whose every chain (`getRules(name)`) is one dispatcher of its rules.

    markdown-it calls the chains only as `for rule in chain: if rule(...): ...; break`
    (ParserBlock.tokenize, and the terminator checks of paragraph, lheading, blockquote, list,
    table and reference), so a single function returning whether some rule matched is
    equivalent. Rules added, replaced, enabled or disabled later recompile the dispatchers."""

    def __compile__(self) -> None:
        super().__compile__()
        assert self.__cache__ is not None
        self.__cache__ = {
            name: [_block_dispatcher(rules)] if rules else []
            for name, rules in self.__cache__.items()
        }


def _dispatch_block_rules(md: MarkdownIt) -> None:
    ruler = _BlockRuler()
    ruler.__rules__ = list(md.block.ruler.__rules__)
    md.block.ruler = ruler


# --------------------------------------------------------------------------- inline rules

# The character at state.pos that each inline rule needs, checked by the rule before it changes
# anything, in silent mode too (`if state.src[pos] != "\n": return False` and the like).
# Not here, so always called: `text` (kept first, outside the dispatcher), `linkify` (raises
# when enabled without linkify-it-py, whatever the character) and the footnote plugin's
# `footnote_ref` (it sets up env["footnotes"] before looking at the character).
_INLINE_GATES: dict[Callable[..., bool], str] = {
    rules_inline.newline: "\n",
    rules_inline.escape: "\\",
    rules_inline.backtick: "`",
    rules_inline.strikethrough.tokenize: "~",
    rules_inline.emphasis.tokenize: "_*",
    rules_inline.link: "[",
    rules_inline.image: "!",
    rules_inline.autolink: "<",
    rules_inline.html_inline: "<",
    rules_inline.entity: "&",
    footnote_inline: "^",  # `if state.src[start] != "^": return False`, after a length check
}


def _inline_gate(rule: Callable[..., bool]) -> str | None:
    gate = _INLINE_GATES.get(rule)
    if gate is None and code_of(rule) == _DOLLAR_INLINE:
        # `$…$` (math_inline, math_inline_double): `if state.src[state.pos] != "$": return
        # False` first (the dispatcher sends a position past the end to every rule)
        gate = "$"
    return gate


def _inline_dispatcher(rules: list[RuleFuncInlineType]) -> RuleFuncInlineType:
    gates = [_inline_gate(rule) for rule in rules]
    everything = tuple(rules)

    def chain(char: str | None) -> tuple[RuleFuncInlineType, ...]:
        return tuple(
            rule
            for rule, gate in zip(rules, gates, strict=True)
            if gate is None or (char is not None and char in gate)
        )

    by_char = {c: chain(c) for gate in gates if gate for c in gate}
    other = chain(None)

    def dispatch(state: StateInline, silent: bool) -> bool:
        try:
            candidates = by_char.get(state.src[state.pos], other)
        except IndexError:  # not at a character: let the rules say what they do
            candidates = everything
        for rule in candidates:  # noqa: SIM110 - any(generator) is slower
            if rule(state, silent):
                return True
        return False

    return dispatch


class _InlineRuler(Ruler[RuleFuncInlineType]):
    """An inline ruler whose chain is [text, dispatcher of the other rules] (or one dispatcher
    when `text` is not first). ParserInline calls the chain only as `for rule in chain: ok =
    rule(state, silent); if ok: break` (skipToken also raising state.level around each call,
    which the dispatcher's rules see just the same), so this is equivalent."""

    def __compile__(self) -> None:
        super().__compile__()
        assert self.__cache__ is not None
        chains = {}
        for name, rules in self.__cache__.items():
            head = rules[:1] if rules[:1] == [rules_inline.text] else []
            rest = rules[len(head) :]
            chains[name] = head + ([_inline_dispatcher(rest)] if rest else [])
        self.__cache__ = chains


def _dispatch_inline_rules(md: MarkdownIt) -> None:
    ruler = _InlineRuler()
    ruler.__rules__ = list(md.inline.ruler.__rules__)
    md.inline.ruler = ruler


# Post-processing (ruler2) rules that change nothing when no rule of the first pass ran but
# `text`: they only walk `state.delimiters` and the `delimiters` of `state.tokens_meta` (both
# empty then), except fragments_join, which merges adjacent text tokens and recomputes levels
# (one text token of level 0: nothing to do).
_NOOP_WITHOUT_DELIMITERS = frozenset(
    {
        rules_inline.link_pairs,
        rules_inline.strikethrough.postProcess,
        rules_inline.emphasis.postProcess,
        rules_inline.fragments_join,
    }
)


class _InlineParser(ParserInline):
    """Inline content with no character that stops the `text` rule is one text token.

    When `text` is the first rule, it takes everything up to the next terminator character
    (`state.md.inline.terminator_re`) in one step; without any, it takes the whole source,
    so the stock parse makes exactly one token — Token("text", "", 0, content=src), level 0 —
    and the post-processing rules, if all are `_NOOP_WITHOUT_DELIMITERS`, leave it alone. Only
    for an empty `tokens` list (fragments_join would also touch tokens already in it)."""

    def parse(self, src: str, md: MarkdownIt, env: EnvType, tokens: list[Token]) -> list[Token]:
        if (
            src
            and not tokens
            and md.inline.terminator_re.search(src) is None  # what `text` looks at
            and self.plain_rules()
        ):
            token = self.new_token("text", "", 0)
            token.content = src
            tokens.append(token)
            return tokens
        # ParserInline.parse, with the state made by `state_class`
        state = self.state_class(src, md, env, tokens)
        self.tokenize(state)
        for rule in self.ruler2.getRules(""):
            rule(state)
        return state.tokens

    def plain_rules(self) -> bool:
        """Whether `text` is the first rule and every post-processing rule is one of
        `_NOOP_WITHOUT_DELIMITERS` (worked out again when the rulers' chains change: a ruler
        makes new lists when it compiles them)."""
        rules, rules2 = self.ruler.getRules(""), self.ruler2.getRules("")
        if rules is not self._seen[0] or rules2 is not self._seen[1]:
            plain = rules[:1] == [rules_inline.text] and _NOOP_WITHOUT_DELIMITERS.issuperset(rules2)
            self._seen = (rules, rules2, plain)
        return self._seen[2]

    # (what makes tokens and states: stock markdown-it's, or those of `_fast_tokens`)
    new_token: Callable[[str, str, Any], Token] = Token
    state_class: type[StateInline] = StateInline
    _seen: tuple[object, object, bool] = (None, None, False)


def _plain_inline(md: MarkdownIt) -> None:
    inline = _InlineParser()
    inline.__dict__.update(md.inline.__dict__)  # its rulers and terminator characters
    md.inline = inline


# --------------------------------------------------------------------------- tokens


def _fast_tokens(md: MarkdownIt) -> None:
    """Tokens made by `new_token` where the block and the inline parser make them (when
    Token has the fields `new_token` sets: else nothing changes)."""
    if tuple(f.name for f in fields(Token)) != TOKEN_FIELDS:
        return
    if type(md.block) is ParserBlock:
        block = BlockParser()
        block.__dict__.update(md.block.__dict__)  # its ruler
        md.block = block
    if isinstance(md.inline, _InlineParser):
        md.inline.new_token = new_token
        md.inline.state_class = InlineState


# --------------------------------------------------------------------------- core rules


def _normalize(state: StateCore) -> None:
    """markdown-it's `normalize` replaces "\\r\\n", "\\r" and "\\n" with "\\n", and NUL with
    U+FFFD: without "\\r" and NUL the source stays as it is."""
    if "\r" in state.src or "\0" in state.src:
        rules_core.normalize(state)


def _footnote_tail(state: StateCore) -> None:
    """The footnote plugin's `footnote_tail`, skipped when env["footnotes"] has empty `refs` and
    `list`: then no footnote_reference tokens exist (only footnote_def makes them, after adding
    their label to `refs`), so it would keep every token (in a new list) and return."""
    data = state.env.get("footnotes")
    if isinstance(data, dict) and data.get("refs") == {} and data.get("list") == {}:
        return
    footnote_tail(state)


def inline_with_lines(set_line: Callable[[int | None], object]) -> Callable[[StateCore], None]:
    """render/markdown.py's core `inline` rule — markdown-it's, calling `set_line` with each
    inline's first source line (or None) before parsing it, and with None at the end — in
    fewer steps per inline, for a parser whose inline parser is `_InlineParser`:

    * an inline that `_InlineParser.parse` makes one text token of is made one here (the same
      test, the same token), without the call;
    * `set_line` is called only before an inline that has a "[" or a "<" (unless linkify is
      on). What it sets is read only by `validateLink`, which markdown-it calls in the inline
      rules `link`, `image` (they match only at "[" and "![") and `autolink` (only at "<") and
      in `linkify` (only when options.linkify); the block rule `reference` runs before this
      rule, where both ways have left None. (render/markdown_autolinks.py's core rule, after
      this one, sets the line of each inline it links in itself.)
    """

    def inline(state: StateCore) -> None:
        md = state.md
        parser = md.inline
        if not isinstance(parser, _InlineParser):  # (replaced since: do what the stock rule does)
            for token in state.tokens:
                if token.type == "inline":
                    if token.children is None:
                        token.children = []
                    set_line(token.map[0] + 1 if token.map else None)
                    parser.parse(token.content, md, state.env, token.children)
            set_line(None)
            return
        plain = parser.plain_rules()
        search = parser.terminator_re.search
        new = parser.new_token
        every = bool(md.options.get("linkify"))
        env = state.env
        for token in state.tokens:
            if token.type != "inline":
                continue
            children = token.children
            if children is None:
                children = token.children = []
            src = token.content
            if plain and src and not children and search(src) is None:
                text = new("text", "", 0)  # (what `_InlineParser.parse` makes of it)
                text.content = src
                children.append(text)
                continue
            if every or "[" in src or "<" in src:
                set_line(token.map[0] + 1 if token.map else None)
            parser.parse(src, md, env, children)
        set_line(None)

    return inline


def _replace_core_rule(md: MarkdownIt, name: str, stock: object, fast: Any) -> None:
    """Rule `name` becomes `fast`, if it is still `stock` (else it is left alone)."""
    for rule in md.core.ruler.__rules__:
        if rule.name == name and rule.fn is stock:
            md.core.ruler.at(name, fast)


def _skip_normalize(md: MarkdownIt) -> None:
    _replace_core_rule(md, "normalize", rules_core.normalize, _normalize)


def _skip_footnote_tail(md: MarkdownIt) -> None:
    _replace_core_rule(md, "footnote_tail", footnote_tail, _footnote_tail)


# --------------------------------------------------------------------------- links

# URLs that markdown-it's normalizeLink returns unchanged. Its steps, for these:
# mdurl.parse (slashes_denote_host=True) → for `http(s)://host…`: protocol, `//`, hostname =
# everything up to the first of "/?#" (no "@", ":" or other non-host character in it, each label
# valid as HOSTNAME_PART_PATTERN wants and the whole ≤ 255 characters, so it is kept as is), then
# pathname, search, hash split off the rest; for the relative ones (no ":", not "//…"): no
# protocol, no host, only pathname/search/hash. Punycode leaves an ASCII hostname as it is;
# mdurl.format puts the parts back together as they were; mdurl.encode keeps letters, digits and
# ";/?:@&=+$,-_.!~*'()#" (no "%" here, which it might escape).
_PLAIN_URL = re.compile(
    r"(?:https?://[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*(?:[/?#][A-Za-z0-9._~/?#=&+-]*)?"
    r"|(?!//)[A-Za-z0-9._~/?#=&+-]+)"
)


def _link_normalizer(normalize: Callable[[str], str]) -> Callable[[str], str]:
    cached = lru_cache(maxsize=4096)(normalize)  # pure: the URL in, the URL out

    def normalize_link(url: str) -> str:
        if len(url) <= 255 and _PLAIN_URL.fullmatch(url):
            return url
        return cached(url)

    return normalize_link


# A destination without "<" first: markdown-it scans to the first space, control character or
# unbalanced ")", stepping over `\x` and counting parentheses. Up to the first "\\", "(" or ")"
# that is a plain run; if what ends it is not "\\" or "(", the scan stops there, with no open
# parenthesis (see _parse_link_destination).
_DESTINATION_RUN = re.compile(r"[^\x00-\x20\x7f\\()]*")
_Result = parse_link_destination._Result


def _parse_link_destination(string: str, pos: int, maximum: int) -> Any:
    """markdown-it's parseLinkDestination, with the common case done by a regex."""
    if pos < maximum and string[pos] != "<":
        end = _DESTINATION_RUN.match(string, pos, maximum).end()  # type: ignore[union-attr]
        if end == maximum or string[end] not in "\\(":
            result = _Result()
            if end > pos:  # `if start == pos: return result` (not ok)
                result.str = unescapeAll(string[pos:end])
                result.pos = end
                result.ok = True
            return result
    return parse_link_destination.parseLinkDestination(string, pos, maximum)


class _Helpers:
    """md.helpers with a faster parseLinkDestination (and parseLinkLabel: `link_label`, for
    a parser whose inline rules it knows); the rest from markdown-it's module."""

    def __init__(self, helpers: ModuleType, labels: bool) -> None:
        self._helpers = helpers
        if labels:
            self.parseLinkLabel = link_label(helpers.parseLinkLabel)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._helpers, name)

    parseLinkDestination = staticmethod(_parse_link_destination)


def _links(md: MarkdownIt) -> None:
    md.normalizeLink = _link_normalizer(md.normalizeLink)  # type: ignore[method-assign, assignment]
    rules = {rule.name for rule in md.inline.ruler.__rules__ if rule.enabled}
    md.helpers = _Helpers(md.helpers, rules <= LABEL_RULES)  # type: ignore[assignment]


# --------------------------------------------------------------------------- rendering


def _attrs_renderer(render_attrs: Callable[[Token], str]) -> Callable[[Token], str]:
    def fast_render_attrs(token: Token) -> str:
        """RendererHTML.renderAttrs loops over `token.attrItems()`: "" when there are none."""
        return render_attrs(token) if token.attrs else ""

    return fast_render_attrs


def _skip_empty_attrs(md: MarkdownIt) -> None:
    # An instance attribute: what `self.renderAttrs(token)` finds first, in every render rule.
    renderer: Any = md.renderer
    renderer.renderAttrs = _attrs_renderer(renderer.renderAttrs)


# --------------------------------------------------------------------------- all of them

SPEEDUPS: dict[str, Callable[[MarkdownIt], None]] = {
    "block-dispatch": _dispatch_block_rules,
    "inline-dispatch": _dispatch_inline_rules,
    "plain-inline": _plain_inline,
    "normalize": _skip_normalize,
    "footnote-tail": _skip_footnote_tail,
    "links": _links,
    "render-attrs": _skip_empty_attrs,
    "render-loops": render_loops,
    "tokens": _fast_tokens,
    "anchors": anchors,
    "options-get": options_get,
    "paragraphs": one_line_paragraphs,
}


def speed_up(md: MarkdownIt, only: Collection[str] | None = None) -> MarkdownIt:
    """Make `md` parse faster, to the same tokens (see the module's docstring). `only`: the
    names of the SPEEDUPS to apply (default: all; for benchmarks and tests)."""
    for name, apply in SPEEDUPS.items():
        if only is None or name in only:
            apply(md)
    return md
