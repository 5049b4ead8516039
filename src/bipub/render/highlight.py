r"""Code highlighting: Pygments' lexers, at each position only the rules that can start with the
next character, tried in one regex, and a small HTML formatter of our own.

Tokenizing. Pygments' RegexLexer tries a state's rules one after the other at every position (a
Python lexer state has ~50 rules, so a four-line block costs thousands of `re.match` calls).
Two things make that cheaper, both keeping Pygments' rule that the first rule that matches wins:

- First characters. A rule that cannot match the empty string starts its match with one of a
  few characters, read from its parsed pattern (`re._parser`, the parser `re.compile` uses):
  `def\b` only with "d", `[a-z_]\w*` only with a letter or "_", `(?i)k` with "k", "K" or the
  Kelvin sign (case folding and classes such as `\w` are left to `re` itself: a regex of the
  pattern's possible first items, matched against the character). Lookarounds and anchors
  consume nothing, so what follows them decides; a rule that may match the empty string, or
  that the analysis does not understand (back-references, anything new), may match anywhere
  and is always tried. The rules that can match where a character comes next are the rules
  whose first characters include it, plus those; at the end of the text, only those. Other
  rules cannot match there, so leaving them out changes nothing.
- Joining. Those rules, in their order, are compiled into one alternation,
  `(?:A)()|(?:B)()|…`: `re` tries alternatives left to right and keeps the first that matches.
  The empty group after the rule that matched names it; its action then runs on that rule's
  own match object, so callbacks (`bygroups`, `using`) see the groups they expect. Characters
  with the same rules share one pattern, and so do states that share rules (`include`).

Both cost time up front (parsing a state's rules: ~10 ms for Python's main state, ~50 ms for
CSS's; compiling a joined pattern: ~4 µs per character of pattern), and a fresh process (`bipub build`
after one edit) highlights a few blocks. So a state runs Pygments' loop over all its rules until that
has cost about what its analysis costs, then loops over the rules that can match at each
position, and joins each group of rules once looping over it has cost about what joining costs
(`_PARSE_US` and the other measured costs set the thresholds). Each way gives the same tokens.

A state whose rules cannot be joined safely (back-references or conditional groups, which would
refer to other groups once joined, clashing group names, mixed flags) keeps Pygments' own loop;
so does any lexer that overrides Pygments' tokenizer. That is not a fallback anyone needs to
hear about: the result is the same. `highlight` still calls `lexer.get_tokens`, so the lexer's
input preprocessing (newlines, tabs, byte order mark) and filters apply as before.

Formatting. `_format` writes the text `HtmlFormatter(nowrap=True)` writes (the only options
this site uses), in one pass over the tokens instead of Pygments' stack of line generators:
the same CSS classes (from Pygments' own `_get_css_classes`), the same escaping, the same span
merging and line endings. It supports none of HtmlFormatter's other options.

Both rely on Pygments' and CPython's internals, so they run only on the Pygments and Python
versions listed in render/upstream.py (`FAST`); elsewhere `lexer_for` returns Pygments' own lexer
and `highlight` formats with `HtmlFormatter(nowrap=True)`, and `bipub -v build` says so.

Output is identical to Pygments' (tests/unit/test_highlight.py compares token streams and HTML
with Pygments' own lexers and `HtmlFormatter(nowrap=True)` on many languages, a sample of all
lexers, the demo, the benchmark corpus shapes, random text and random token streams, with each
way of tokenizing forced and with the thresholds as built; it checks the first characters of
tricky patterns against the matches `re` finds).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import Any, Final

from pygments import format as pygments_format
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer, RegexLexer
from pygments.lexers import get_lexer_by_name
from pygments.token import Error, Whitespace, _TokenType
from pygments.util import ClassNotFound

from bipub.render import upstream
from bipub.render.first_chars import FirstChars, first_test

# on the verified Pygments and Python versions only (render/upstream.py); else stock Pygments
FAST: Final = upstream.fast_highlight()

_UNSAFE = re.compile(r"\\[1-9]|\(\?P=|\(\?\(|\\g<")

Rule = tuple[Callable[..., Any], Any, Any]
# rules joined into one pattern: (the pattern or None if they could not be joined, the rule each
# marker group ends (indexed by the group's number, None for the rules' own groups), the rules)
Joined = tuple["re.Pattern[str] | None", list["Rule | None"], list[Rule]]
# one state: (its dispatch table, the function that finds the rules for a character, the state's
# rules); the table maps the next character ("" at the end of the text) to the rules that can
# match there, once joined; it is None for a state whose rules cannot be joined, which keeps
# Pygments' loop over all its rules
State = tuple["dict[str, Joined] | None", Callable[[str], Joined], list[Rule]]


_LEADING_FLAGS = re.compile(r"\A(?:\(\?[aiLmsux]+\))+")
_SCOPED = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"), (re.VERBOSE, "x"))


def _alternative(pattern: re.Pattern[str]) -> str:
    """One rule as an alternative of the joined pattern, its flags scoped to it, followed by an
    empty marker group: the last group to close in a match, so `lastindex` names the rule.

    The marker goes after the rule, not around it: `re` skips an alternative whose first item
    is a literal or a character set that the next character does not match without entering
    it, and a group opening first would hide that item (matching is ~15 % faster)."""
    text = _LEADING_FLAGS.sub("", pattern.pattern)  # already in pattern.flags
    on = "".join(letter for flag, letter in _SCOPED if pattern.flags & flag)
    if pattern.flags & re.VERBOSE:
        text += "\n"  # a trailing comment must not swallow the closing parenthesis
    return f"(?{on}:{text})()"


# Costs on this project's machine class (Python 3.11, microseconds): parsing a pattern, per
# character; compiling a joined pattern, per character; trying one rule in a loop. They decide
# when a state's first characters are found (`_Dispatch`) and when a group of rules is joined
# (`_Group`): when doing without has cost about as much as doing it (so, if the estimates
# hold, never much more than twice the best choice in hindsight). The two factors scale the
# thresholds: the tests force each way with 0 and 1e18.
_PARSE_US, _COMPILE_US, _RULE_US = 2.0, 4.0, 0.3
_ANALYSE_AFTER = 1.0
_JOIN_AFTER = 1.0

_FIRSTS: dict[re.Pattern[str], FirstChars | None] = {}  # by pattern: states share rules


def _first(pattern: re.Pattern[str]) -> FirstChars | None:
    try:
        return _FIRSTS[pattern]
    except KeyError:
        test = _FIRSTS[pattern] = first_test(pattern)
        return test


# joined patterns by the rules' patterns they join (a state's `include`d rules are shared with
# other states): the pattern and, for each group number, the index of the rule its marker ends
_COMBINED: dict[tuple[re.Pattern[str], ...], tuple[re.Pattern[str], list[int | None]]] = {}


def _combine(patterns: tuple[re.Pattern[str], ...]) -> tuple[re.Pattern[str], list[int | None]]:
    found = _COMBINED.get(patterns)
    if found is None:
        combined = re.compile("|".join(_alternative(p) for p in patterns))
        markers: list[int | None] = [None]  # group 0 is the whole match
        for index, p in enumerate(patterns):
            markers += [None] * p.groups
            markers.append(index)
        if combined.groups != len(markers) - 1:
            raise re.error("unexpected groups")
        found = _COMBINED[patterns] = combined, markers
    return found


class _Group:
    """The rules that can match where some character comes next, in their order: tried one by
    one (Pygments' loop, over fewer rules) until used often enough to pay for joining them."""

    __slots__ = ("joined", "left", "loop", "patterns")

    def __init__(self, rules: list[Rule], patterns: tuple[re.Pattern[str], ...]) -> None:
        self.loop: Joined = None, [], rules
        self.patterns = patterns
        self.joined: Joined | None = None
        if len(rules) < 2:  # nothing to join
            self.left = float("inf")
        elif patterns in _COMBINED:  # joined already, for another state
            self.left = 0.0
        else:  # uses left before joining: when the loop has cost what joining costs
            chars = sum(len(p.pattern) for p in patterns)
            self.left = _JOIN_AFTER * _COMPILE_US * chars / (_RULE_US * (len(rules) - 1))

    def use(self) -> Joined:
        self.left -= 1
        if self.left > 0:
            return self.loop
        if self.joined is None:
            rules = self.loop[2]
            try:
                combined, markers = _combine(self.patterns)
            except re.error:  # never seen: keep Pygments' loop over the same rules
                self.joined = self.loop
            else:
                self.joined = combined, [None if i is None else rules[i] for i in markers], rules
        return self.joined


class _Dispatch:
    """One state's rules by the next character. `fill` finds the rules that can match where a
    character comes next ("": at the end of the text) and, once they are joined (or are one rule,
    or none), keeps them in `table`, where the tokenizer looks first.

    Finding first characters means parsing every rule of the state (about 2 µs per character of
    pattern: 10 ms for Python's main state, 50 ms for CSS's), which a few blocks do not repay:
    the state runs Pygments' loop over all its rules until that loop has cost about as much."""

    __slots__ = ("by_char", "by_indices", "left", "parts", "plain", "rules", "table", "tests")

    def __init__(self, rules: list[Rule], parts: list[re.Pattern[str]]) -> None:
        self.rules = rules
        self.parts = parts
        self.table: dict[str, Joined] = {}
        self.plain: Joined = None, [], rules
        self.tests: list[FirstChars | None] | None = None
        self.by_char: dict[str, _Group] = {}
        self.by_indices: dict[tuple[int, ...], _Group] = {}
        chars = sum(len(p.pattern) for p in parts if p not in _FIRSTS)
        # a token costs the loop about half the rules; after the analysis, a few
        self.left = _ANALYSE_AFTER * _PARSE_US * chars / (_RULE_US * len(parts) / 2 + 1)

    def fill(self, char: str) -> Joined:
        tests = self.tests
        if tests is None:
            self.left -= 1
            if self.left > 0:
                return self.plain
            tests = self.tests = [_first(p) for p in self.parts]
        group = self.by_char.get(char)
        if group is None:
            indices = tuple(
                index for index, test in enumerate(tests) if test is None or (char and char in test)
            )
            group = self.by_indices.get(indices)
            if group is None:
                group = self.by_indices[indices] = _Group(
                    [self.rules[i] for i in indices], tuple(self.parts[i] for i in indices)
                )
            self.by_char[char] = group
        joined = group.use()
        if group.joined is not None or len(joined[2]) < 2:  # final: no more uses to count
            self.table[char] = joined
        return joined


def _dispatch(rules: list[Rule]) -> State:
    """A state's dispatch table and the function that fills it; no table (Pygments' loop over
    all rules) for rules that cannot be joined."""
    parts = []
    names: set[str] = set()
    for rexmatch, _action, _new in rules:
        pattern = getattr(rexmatch, "__self__", None)
        if not isinstance(pattern, re.Pattern) or not isinstance(pattern.pattern, str):
            return None, _no_dispatch, rules
        if _UNSAFE.search(pattern.pattern) or pattern.flags & (re.ASCII | re.LOCALE):
            return None, _no_dispatch, rules
        if names & pattern.groupindex.keys():  # a named group used by two rules
            return None, _no_dispatch, rules
        names |= pattern.groupindex.keys()
        parts.append(pattern)
    dispatch = _Dispatch(rules, parts)
    return dispatch.table, dispatch.fill, rules


def _no_dispatch(char: str) -> Joined:  # pragma: no cover - never called: the table is None
    raise AssertionError(char)


class _States(dict[str, State]):
    """A lexer's states, each prepared when first used: a lexer has dozens of states and a code
    block visits a few, and compiling a joined pattern costs far more than matching with it
    (a build after one edit highlights a handful of blocks in a fresh process)."""

    def __init__(self, tokens: dict[str, list[Rule]]) -> None:
        super().__init__()
        self.tokens = tokens

    def __missing__(self, name: str) -> State:
        state = self[name] = _dispatch(self.tokens[name])
        return state


# a memo of pure functions of each token table, by the table's id (its _States keeps it alive)
_JOINED: dict[int, _States] = {}


def _joined(lexer: RegexLexer) -> _States:
    """The prepared states of `lexer`'s token table: its class's, or for lexers with token
    variants (C#, Nemerle, Inform 7: one table per option value) the one the instance chose."""
    tokens = lexer._tokens
    cached = _JOINED.get(id(tokens))
    if cached is None:
        cached = _JOINED[id(tokens)] = _States(tokens)
    return cached


def _fast_tokens(
    self: RegexLexer, text: str, stack: tuple[str, ...] = ("root",)
) -> Iterator[tuple[int, Any, str]]:
    """RegexLexer.get_tokens_unprocessed, one regex match per token (of the rules that can start
    with the next character) instead of one per rule."""
    pos = 0
    states = _joined(self)
    statestack = list(stack)
    table, fill, rules = states[statestack[-1]]
    combined = None
    while 1:
        rule: Rule | None = None
        m: re.Match[str] | None = None
        if table is not None:
            char = text[pos : pos + 1]
            combined, by_marker, rules = table.get(char) or fill(char)
        if combined is not None:
            m = combined.match(text, pos)
            if m is not None:
                rule = by_marker[m.lastindex]  # type: ignore[index]
        else:
            for candidate in rules:
                m = candidate[0](text, pos)
                if m:
                    rule = candidate
                    break
        if rule is not None and m is not None:
            rexmatch, action, new_state = rule
            if type(action) is _TokenType:
                yield pos, action, m.group()
            elif action is not None:
                # the joined match serves a plain token; a callback (bygroups, using) wants the
                # rule's own groups, so the rule is matched alone
                if combined is not None:
                    m = rexmatch(text, pos)
                yield from action(self, m)
            pos = m.end()
            if new_state is not None:
                if isinstance(new_state, tuple):
                    for state in new_state:
                        if state == "#pop":
                            if len(statestack) > 1:
                                statestack.pop()
                        elif state == "#push":
                            statestack.append(statestack[-1])
                        else:
                            statestack.append(state)
                elif isinstance(new_state, int):
                    if abs(new_state) >= len(statestack):
                        del statestack[1:]
                    else:
                        del statestack[new_state:]
                elif new_state == "#push":
                    statestack.append(statestack[-1])
                else:  # pragma: no cover - Pygments validates state definitions
                    raise AssertionError(f"wrong state def: {new_state!r}")
                table, fill, rules = states[statestack[-1]]
                combined = None
            continue
        try:
            if text[pos] == "\n":
                statestack = ["root"]
                table, fill, rules = states["root"]
                combined = None
                yield pos, Whitespace, "\n"
                pos += 1
                continue
            yield pos, Error, text[pos]
            pos += 1
        except IndexError:
            break


def accelerate(lexer: Lexer) -> Lexer:
    """Give `lexer` the joined-rules tokenizer when it uses Pygments' own RegexLexer loop."""
    if (
        isinstance(lexer, RegexLexer)
        and type(lexer).get_tokens_unprocessed is RegexLexer.get_tokens_unprocessed
    ):
        lexer.get_tokens_unprocessed = _fast_tokens.__get__(lexer)
    return lexer


@lru_cache(maxsize=256)
def lexer_for(name: str, fast: bool = FAST) -> Lexer | None:
    """A lexer for a fence's language name, or None if Pygments has none. `fast`: with the
    joined-rules tokenizer (only on verified upstream versions: render/upstream.py)."""
    try:
        lexer = get_lexer_by_name(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None
    return accelerate(lexer) if fast else lexer


# Used for its class names only (`_get_css_classes`): the formatting is `_format` below; and as
# the stock formatter where the fast path is off.
_CLASSES = _STOCK = HtmlFormatter(nowrap=True)
_OPENERS: dict[_TokenType, str] = {}  # token type → `<span class="…">`, or "" for no span


def _opener(ttype: _TokenType) -> str:
    css = _CLASSES._get_css_classes(ttype)
    opener = _OPENERS[ttype] = f'<span class="{css}">' if css else ""
    return opener


def _escape(text: str) -> str:
    """Pygments' escaping of token text, `html.escape(quote=False)`: quotes are left alone."""
    if "&" in text or "<" in text or ">" in text:
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text


def _span(opener: str, text: str) -> str:
    """One run of tokens that share a CSS class, `text` escaped, as Pygments writes it: in one
    span that is closed before every newline and reopened after it, with no span around an empty
    line part; no span at all for tokens without a class."""
    if not opener:
        return text
    if "\n" not in text:
        return opener + text + "</span>"
    return "\n".join([opener + part + "</span>" if part else "" for part in text.split("\n")])


def _format(tokens: Iterable[tuple[int, _TokenType, str]]) -> str:
    """The text `HtmlFormatter(nowrap=True)` writes for `tokens`, (index, type, value) triples
    as `get_tokens_unprocessed` makes them (the index unused; its default options otherwise:
    no line numbers, highlighted lines, anchors or class prefix).

    Pygments' `_format_lines` works line by line: within a line, consecutive non-empty token
    parts with the same CSS class share one span, and every line ends with its span closed and a
    newline, the last line too (text that does not end with a newline gets one). Gathering each
    run of consecutive same-class tokens and cutting it at its newlines gives the same spans: a
    token of another class ends the run, one that holds only newlines too (Pygments closes the
    span at its newline), and an empty token changes nothing in either."""
    out: list[str] = []
    append = out.append
    openers = _OPENERS
    current = ""  # the opener of the run being gathered
    run = ""
    for _, ttype, value in tokens:
        if not value:
            continue
        opener = openers.get(ttype)
        if opener is None:
            opener = _opener(ttype)
        if opener == current:
            run += value
            continue
        if run:  # _span(current, _escape(run)), inlined: a block has about as many runs as tokens
            if "&" in run or "<" in run or ">" in run:
                run = run.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            if current and "\n" not in run:
                append(current + run + "</span>")
            else:
                append(_span(current, run))
        current = opener
        run = value
    if run:
        append(_span(current, _escape(run)))
    html = "".join(out)
    return html if not html or html[-1] == "\n" else html + "\n"


def _tokens(lexer: Lexer, code: str) -> Iterator[tuple[int, _TokenType, str]]:
    """`lexer.get_tokens(code)`'s tokens with an index (0) before each; for a lexer with no
    filters whose `get_tokens` is Pygments' own, which preprocesses the text and drops the index
    of each of `get_tokens_unprocessed`'s tokens in a generator of its own (with no filters,
    that generator is what it returns), those tokens themselves."""
    if not lexer.filters and type(lexer).get_tokens is Lexer.get_tokens:
        return iter(lexer.get_tokens_unprocessed(lexer._preprocess_lexer_input(code)))
    return ((0, ttype, value) for ttype, value in lexer.get_tokens(code))


@lru_cache(maxsize=1024)
def highlight(code: str, lexer: Lexer, fast: bool = FAST, lines: tuple[int, ...] = ()) -> str:
    """HTML for one code block. Memoized: a post and its translation share their code blocks,
    and the renderer puts both on the same worker one after the other. `fast`: formatted by
    `_format`, else by Pygments' `HtmlFormatter(nowrap=True)` (the same text). `lines`: the
    1-based lines to highlight (HtmlFormatter's `hl_lines`; `mark_lines` on the fast path)."""
    if fast:
        return mark_lines(_format(_tokens(lexer, code)), lines)
    formatter = HtmlFormatter(nowrap=True, hl_lines=list(lines)) if lines else _STOCK
    html: str = pygments_format(lexer.get_tokens(code), formatter)
    return html


def mark_lines(html: str, lines: tuple[int, ...]) -> str:
    """`html` (`_format`'s) with the 1-based `lines` in `<span class="hll">…</span>`, their
    newline inside, as HtmlFormatter's `hl_lines` writes them: Pygments highlights the lines
    its `_format_lines` makes, each one ending with its spans closed and a newline, which are
    `html`'s lines (`_format`: the same text)."""
    if not lines or not html:
        return html
    marked = frozenset(lines)
    rows = html.split("\n")[:-1]  # (html ends with a newline)
    return "".join(
        f'<span class="hll">{row}\n</span>' if n in marked else row + "\n"
        for n, row in enumerate(rows, start=1)
    )


def pygments_css(style: str = "default") -> str:
    """Pygments' own CSS of a style, for the `.highlight` blocks (the PDFs' stylesheet)."""
    from pygments.formatters import HtmlFormatter  # Pygments only when asked (start-up time)

    return str(HtmlFormatter(style=style).get_style_defs(".highlight"))
