r"""First characters of a regex: the characters a match of a pattern can start with, read from its
parsed pattern (`re._parser`, the parser `re.compile` itself uses).

bipub.render.highlight uses it to try, at each position, only the rules of a Pygments lexer
state that can start with the next character (its module docstring tells the whole scheme).
`def\b` starts only with "d", `[a-z_]\w*` only with a letter or "_", `(?i)k` with "k", "K" or
the Kelvin sign (case folding and classes such as `\w` are left to `re` itself: a regex of the
pattern's possible first items, matched against the character). Lookarounds and anchors consume
nothing, so what follows them decides. A pattern that may match the empty string, or that the
analysis does not understand (back-references, anything new), gets None: it may match anywhere.

It relies on CPython's regex parser internals, so it runs only on the Python versions listed in
render/upstream.py (highlight.FAST); tests/unit/test_highlight.py checks its answers against the
matches `re` finds.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from re import _constants as _c  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any

_TYPE_FLAGS = _c.SRE_FLAG_ASCII | _c.SRE_FLAG_LOCALE | _c.SRE_FLAG_UNICODE

# First characters. A rule that cannot match the empty string consumes a first character, and
# only a few of the pattern's items can be the one that consumes it: `first_items` walks the
# parsed pattern (`re._parser`, the parser `re.compile` itself uses) and collects them. Anything
# it does not know makes the rule "any": tried at every position, as all rules were before.

_CONSUMING = (_c.LITERAL, _c.NOT_LITERAL, _c.IN, _c.ANY)
_ZERO_WIDTH = (_c.AT, _c.ASSERT, _c.ASSERT_NOT)  # they only look: the next item consumes
_REPEATS = (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT)
_CATEGORIES = {
    _c.CATEGORY_DIGIT: r"\d",
    _c.CATEGORY_NOT_DIGIT: r"\D",
    _c.CATEGORY_SPACE: r"\s",
    _c.CATEGORY_NOT_SPACE: r"\S",
    _c.CATEGORY_WORD: r"\w",
    _c.CATEGORY_NOT_WORD: r"\W",
}
_LIST_RANGE = 64  # a set's range wider than this is kept as a range, not listed char by char

# one consuming item: the flags in force there and the parsed item
Item = tuple[int, Any, Any]


class Unknown(Exception):
    """The analysis met something it does not know: the rule is tried everywhere."""


def first_items(items: Any, flags: int, out: list[Item]) -> bool:
    """Append to `out` the items of the sequence `items` that can consume its first character
    (each with the flags in force there); return whether the sequence can match the empty
    string. A superset is fine (a rule is then tried where it cannot match); missing one is not."""
    for op, av in items:
        if op in _CONSUMING:
            out.append((flags, op, av))
            return False
        if op in _ZERO_WIDTH:
            continue
        if op is _c.SUBPATTERN:
            _group, add, remove, sub = av
            if add & _TYPE_FLAGS:
                flags &= ~_TYPE_FLAGS
            if not first_items(sub, (flags | add) & ~remove, out):
                return False
        elif op is _c.BRANCH:
            empty = False
            for alternative in av[1]:
                empty = first_items(alternative, flags, out) or empty
            if not empty:
                return False
        elif op in _REPEATS:
            low, _high, sub = av
            if not first_items(sub, flags, out) and low > 0:
                return False
        elif op is _c.ATOMIC_GROUP:
            if not first_items(av, flags, out):
                return False
        else:  # back-references, conditional groups, anything new
            raise Unknown(op)
    return True


def _char(code: int) -> str:
    return f"\\U{code:08x}"


def item_regex(op: Any, av: Any) -> str:
    """A single-character item of a parsed pattern as regex text (the parser's inverse)."""
    if op is _c.LITERAL:
        return _char(av)
    if op is _c.NOT_LITERAL:
        return f"[^{_char(av)}]"
    if op is _c.ANY:
        return "."
    if op is _c.IN:
        negate, parts = "", []
        for index, (kind, value) in enumerate(av):
            if kind is _c.NEGATE and index == 0:
                negate = "^"
            elif kind is _c.LITERAL:
                parts.append(_char(value))
            elif kind is _c.RANGE:
                parts.append(f"{_char(value[0])}-{_char(value[1])}")
            elif kind is _c.CATEGORY and value in _CATEGORIES:
                parts.append(_CATEGORIES[value])
            else:
                raise Unknown(kind)
        if not parts:
            raise Unknown(op)
        return f"[{negate}{''.join(parts)}]"
    raise Unknown(op)


class FirstChars:
    r"""The characters a rule's match can start with: those listed, those in the ranges, and
    those the regex of single-character items matches (for what a list cannot say simply:
    ignored case, negated sets, categories such as \w)."""

    __slots__ = ("chars", "his", "los", "regex")

    def __init__(self, items: list[Item]) -> None:
        chars: set[str] = set()
        ranges: list[tuple[int, int]] = []
        regexes: list[str] = []
        for flags, op, av in items:
            if flags & _c.SRE_FLAG_LOCALE:
                raise Unknown(flags)
            if not flags & _c.SRE_FLAG_IGNORECASE and _listed(op, av, chars, ranges):
                continue
            on = ("i" if flags & _c.SRE_FLAG_IGNORECASE else "") + (
                "s" if flags & _c.SRE_FLAG_DOTALL else ""
            )
            off = "".join(letter for letter in "is" if letter not in on)
            scope = ("a" if flags & _c.SRE_FLAG_ASCII else "") + on + (f"-{off}" if off else "")
            regexes.append(f"(?{scope}:{item_regex(op, av)})")
        merged: list[list[int]] = []
        for low, high in sorted(ranges):
            if merged and low <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], high)
            else:
                merged.append([low, high])
        self.chars = frozenset(chars)
        self.los = [low for low, _ in merged]
        self.his = [high for _, high in merged]
        self.regex = re.compile("|".join(regexes)).match if regexes else None

    def __contains__(self, char: str) -> bool:
        if char in self.chars:
            return True
        index = bisect_right(self.los, ord(char)) - 1
        if index >= 0 and ord(char) <= self.his[index]:
            return True
        return self.regex is not None and self.regex(char) is not None


def _listed(op: Any, av: Any, chars: set[str], ranges: list[tuple[int, int]]) -> bool:
    """Add to `chars` and `ranges` the characters a case-sensitive item matches, if it is a
    literal or a set of literals and ranges; return False (adding nothing) for any other item."""
    if op is _c.LITERAL:
        chars.add(chr(av))
        return True
    if op is not _c.IN or not all(kind is _c.LITERAL or kind is _c.RANGE for kind, _ in av):
        return False
    for kind, value in av:
        if kind is _c.LITERAL:
            chars.add(chr(value))
        elif value[1] - value[0] <= _LIST_RANGE:
            chars.update(map(chr, range(value[0], value[1] + 1)))
        else:
            ranges.append(value)
    return True


def first_test(pattern: re.Pattern[str]) -> FirstChars | None:
    """The characters a match of `pattern` can start with (None: it can match the empty
    string, so anywhere, or the analysis gave up)."""
    try:
        parsed = _parser.parse(pattern.pattern, pattern.flags)
        items: list[Item] = []
        if first_items(parsed, parsed.state.flags, items):
            return None  # it can match the empty string: anywhere, the end of the text too
        return FirstChars(items)
    except Exception:
        return None
