"""Code highlighting: Pygments' lexers, each lexer state's rules tried in one regex, and a small
HTML formatter of our own.

Tokenizing. Pygments' RegexLexer tries a state's rules one after the other at every position (a
Python lexer state has ~50 rules, so a four-line block costs thousands of `re.match` calls).
This module compiles each state's rules into one alternation, `(?:A)()|(?:B)()|…`. Python's `re`
tries alternatives left to right and keeps the first that matches at the position, which is
exactly Pygments' rule: the first rule that matches wins. The empty group after the rule that
matched names it; its action then runs on that rule's own match object, so callbacks
(`bygroups`, `using`) see the groups they expect. A state whose rules cannot be joined safely
(back-references or conditional groups, which would refer to other groups once joined, clashing
group names, mixed flags) keeps Pygments' own loop; so does any lexer that overrides Pygments'
tokenizer. That is not a fallback anyone needs to hear about: the result is the same.
`highlight` still calls `lexer.get_tokens`, so the lexer's input preprocessing (newlines, tabs,
byte order mark) and filters apply as before.

Formatting. `_format` writes the text `HtmlFormatter(nowrap=True)` writes (the only options
this site uses), in one pass over the tokens instead of Pygments' stack of line generators:
the same CSS classes (from Pygments' own `_get_css_classes`), the same escaping, the same span
merging and line endings. It supports none of HtmlFormatter's other options.

Output is identical to Pygments' (tests/unit/test_highlight.py compares token streams and HTML
with Pygments' own lexers and `HtmlFormatter(nowrap=True)` on many languages, the demo, the
benchmark corpus shapes, random text and random token streams).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import Any

from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer, RegexLexer
from pygments.lexers import get_lexer_by_name
from pygments.token import Error, Whitespace, _TokenType
from pygments.util import ClassNotFound

_UNSAFE = re.compile(r"\\[1-9]|\(\?P=|\(\?\(|\\g<")

Rule = tuple[Callable[..., Any], Any, Any]
# one state: (combined pattern or None, the rule each marker group ends (indexed by the
# group's number, None for the rules' own groups), the rules)
Joined = tuple["re.Pattern[str] | None", list["Rule | None"], list[Rule]]


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


def _join_state(rules: list[Rule]) -> Joined:
    parts = []
    for rexmatch, _action, _new in rules:
        pattern = getattr(rexmatch, "__self__", None)
        if not isinstance(pattern, re.Pattern) or not isinstance(pattern.pattern, str):
            return None, [], rules
        if _UNSAFE.search(pattern.pattern) or pattern.flags & (re.ASCII | re.LOCALE):
            return None, [], rules
        parts.append(pattern)
    try:
        combined = re.compile("|".join(_alternative(p) for p in parts))
    except re.error:  # e.g. a named group used by two rules
        return None, [], rules
    by_marker: list[Rule | None] = [None]  # group 0 is the whole match
    for p, rule in zip(parts, rules, strict=True):
        by_marker += [None] * p.groups
        by_marker.append(rule)
    if combined.groups != len(by_marker) - 1:
        return None, [], rules
    return combined, by_marker, rules


class _States(dict[str, Joined]):
    """A lexer's states, each joined when first used: a lexer has dozens of states and a code
    block visits a few, and compiling a joined pattern costs far more than matching with it
    (a quick rebuild highlights a handful of blocks in a fresh process)."""

    def __init__(self, tokens: dict[str, list[Rule]]) -> None:
        super().__init__()
        self.tokens = tokens

    def __missing__(self, name: str) -> Joined:
        joined = self[name] = _join_state(self.tokens[name])
        return joined


# a memo of pure functions of each token table, by the table's id (its _States keeps it alive)
_JOINED: dict[int, _States] = {}


def _joined(lexer: RegexLexer) -> _States:
    """The joined states of `lexer`'s token table: its class's, or for lexers with token
    variants (C#, Nemerle, Inform 7: one table per option value) the one the instance chose."""
    tokens = lexer._tokens
    cached = _JOINED.get(id(tokens))
    if cached is None:
        cached = _JOINED[id(tokens)] = _States(tokens)
    return cached


def _fast_tokens(
    self: RegexLexer, text: str, stack: tuple[str, ...] = ("root",)
) -> Iterator[tuple[int, Any, str]]:
    """RegexLexer.get_tokens_unprocessed, one regex search per token instead of one per rule."""
    pos = 0
    states = _joined(self)
    statestack = list(stack)
    combined, by_marker, rules = states[statestack[-1]]
    while 1:
        rule: Rule | None = None
        m: re.Match[str] | None = None
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
                combined, by_marker, rules = states[statestack[-1]]
            continue
        try:
            if text[pos] == "\n":
                statestack = ["root"]
                combined, by_marker, rules = states["root"]
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
def lexer_for(name: str) -> Lexer | None:
    """A lexer for a fence's language name, or None if Pygments has none."""
    try:
        lexer = get_lexer_by_name(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None
    return accelerate(lexer)


# Used for its class names only (`_get_css_classes`): the formatting is `_format` below.
_CLASSES = HtmlFormatter(nowrap=True)
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


def _format(tokens: Iterable[tuple[_TokenType, str]]) -> str:
    """The text `HtmlFormatter(nowrap=True)` writes for `tokens` (its default options otherwise:
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
    for ttype, value in tokens:
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


@lru_cache(maxsize=1024)
def highlight(code: str, lexer: Lexer) -> str:
    """HTML for one code block. Memoized: a post and its translation share their code blocks,
    and the renderer puts both on the same worker one after the other."""
    return _format(lexer.get_tokens(code))
