"""Faster parsing for bipub's own MarkdownIt instances: the same tokens as stock markdown-it-py.

`speed_up(md)` changes only the instance it is given (nothing process-wide):

* Block rules are tried through one dispatcher per rule chain. markdown-it tries every block rule
  on every line (and the `paragraph`, `blockquote`, `list` and `reference` chains again, in
  silent mode, on every line that might end a block) until one matches; most rules give up at
  once unless the line starts with their marker. The dispatcher looks at the line's first
  non-space character and calls, in the ruler's order, only the rules that can match a line
  starting with it (`_BLOCK_GATES` says which, for each rule of markdown-it and of the footnote
  plugin; any other rule is always called). A rule skipped this way would have returned False
  without changing anything.

tests/unit/test_markdown_fast.py compares the token streams and HTML with a stock parser.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from markdown_it import MarkdownIt, rules_block
from markdown_it.parser_block import RuleFuncBlockType
from markdown_it.ruler import Ruler
from markdown_it.rules_block import StateBlock
from mdit_py_plugins.footnote.index import footnote_def


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
    rules_block.lheading: _BlockGate(None, code_lines=False),
    # paragraph matches any line, is_code or not.
    rules_block.paragraph: _BlockGate(None, code_lines=True),
    # mdit_py_plugins' footnote_def: `if state.src[start] != "[": return False` (start = pos).
    footnote_def: _BlockGate(frozenset("["), code_lines=False),
}


def _block_dispatcher(rules: list[RuleFuncBlockType]) -> RuleFuncBlockType:
    """One function doing what `for rule in rules: if rule(...): return True` does."""
    gates = [_BLOCK_GATES.get(rule) for rule in rules]

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


def speed_up(md: MarkdownIt) -> MarkdownIt:
    """Make `md` parse faster, to the same tokens (see the module's docstring)."""
    block_ruler = _BlockRuler()
    block_ruler.__rules__ = list(md.block.ruler.__rules__)
    md.block.ruler = block_ruler
    return md
