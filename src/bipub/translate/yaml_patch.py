"""Edit a YAML file in place: set values, add keys and list items, keep everything else.

`patch_yaml(text, old, new)` returns `text` changed just enough that it loads as `new`, given
that it loads as `old` today and that `new` only replaces scalars and adds keys or list items
(drafting never deletes). Comments, blank lines, quoting and the order of what is already there
stay as they were; new keys go after their previous sibling in `new`'s key order (callers order
`new` like the source file). Values are written as double-quoted scalars, collections in block
style. Where the old value is a flow collection, or its type changes, that one value is rewritten
in flow style. `dump_yaml` writes a whole file in the same style.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")
#: What a YAML stream may not contain raw (PyYAML's reader), plus characters that confuse readers.
_NEEDS_ESCAPE = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[\u2028\u2029\ufeff]"
)
_SHORT = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\x00": "\\0"}


def quote(text: str) -> str:
    """A YAML double-quoted scalar for `text` (one line; escapes for what must not be raw)."""
    out = []
    for ch in text:
        if ch in _SHORT:
            out.append(_SHORT[ch])
        elif _NEEDS_ESCAPE.match(ch):
            code = ord(ch)
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _key(key: object) -> str:
    text = str(key)
    return text if _PLAIN_KEY.match(text) and text not in ("true", "false", "null") else quote(text)


def _scalar(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return quote(str(value))


def flow(value: Any) -> str:
    """One-line flow style."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)}: {flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    return _scalar(value)


def _block_pair(key: object, value: Any, indent: int) -> list[str]:
    pad = " " * indent
    if isinstance(value, dict) and value:
        return [f"{pad}{_key(key)}:", *_block_mapping(value, indent + 2)]
    if isinstance(value, list) and value:
        return [f"{pad}{_key(key)}:", *_block_sequence(value, indent + 2)]
    return [f"{pad}{_key(key)}: {flow(value)}"]


def _block_mapping(value: dict[Any, Any], indent: int) -> list[str]:
    lines: list[str] = []
    for k, v in value.items():
        lines.extend(_block_pair(k, v, indent))
    return lines


def _block_item(item: Any, indent: int) -> list[str]:
    """A sequence item `- …` whose dash is at column `indent`."""
    pad = " " * indent
    if isinstance(item, dict) and item:
        inner = _block_mapping(item, indent + 2)
        return [pad + "- " + inner[0][indent + 2 :], *inner[1:]]
    return [f"{pad}- {flow(item)}"]


def _block_sequence(value: list[Any], indent: int) -> list[str]:
    lines: list[str] = []
    for item in value:
        lines.extend(_block_item(item, indent))
    return lines


def dump_yaml(data: dict[str, Any], header: str = "") -> str:
    """A whole YAML document (a mapping) in bipub's drafting style."""
    return header + "\n".join(_block_mapping(data, 0)) + "\n"


# --------------------------------------------------------------------------- patching


class PatchError(ValueError):
    """The file cannot be edited in place (callers rewrite it or report the problem)."""


def _content_end(node: yaml.Node) -> int:
    """Index just after the last character of a node's own content (comments excluded)."""
    if isinstance(node, yaml.MappingNode) and not node.flow_style and node.value:
        return _content_end(node.value[-1][1])
    if isinstance(node, yaml.SequenceNode) and not node.flow_style and node.value:
        return _content_end(node.value[-1])
    return int(node.end_mark.index)


def _line_after(text: str, index: int) -> int:
    """Start of the line after the one holding `index`."""
    nl = text.find("\n", index)
    return len(text) if nl < 0 else nl + 1


def _line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


class _Patcher:
    def __init__(self, text: str) -> None:
        self.text = text
        self.edits: list[tuple[int, int, str, int]] = []  # start, end, text, order

    def insert_lines(self, at: int, lines: list[str]) -> None:
        block = "\n".join(lines) + "\n"
        if at == len(self.text) and self.text and not self.text.endswith("\n"):
            block = "\n" + block
        self.edits.append((at, at, block, len(self.edits)))

    def replace(self, node: yaml.Node, value: Any) -> None:
        start, end = int(node.start_mark.index), _content_end(node)
        while end > start and self.text[end - 1] in " \t\r\n":
            end -= 1  # a block scalar's or collection's span runs on to the next line
        if start == end or (
            isinstance(node, yaml.ScalarNode) and node.value in ("", "~", "null", "Null", "NULL")
        ):
            # an empty value (`key:`): the mark may sit at the next line; write after the colon
            colon = self.text.rfind(":", 0, start + 1)
            line_end = self.text.find("\n", colon)
            line_end = len(self.text) if line_end < 0 else line_end
            if start == end and colon >= 0:
                self.edits.append((colon + 1, colon + 1, " " + flow(value), len(self.edits)))
                return
            if colon < 0 or line_end < start:
                raise PatchError("cannot locate an empty value")
        self.edits.append((start, end, flow(value), len(self.edits)))

    def patch(self, node: yaml.Node, old: Any, new: Any) -> None:
        if old == new:
            return
        if isinstance(new, dict) and isinstance(old, dict) and isinstance(node, yaml.MappingNode):
            if node.flow_style:
                self.replace(node, new)
            else:
                self.mapping(node, old, new)
            return
        if isinstance(new, list) and isinstance(old, list) and isinstance(node, yaml.SequenceNode):
            if node.flow_style or not node.value:
                self.replace(node, new)
            else:
                self.sequence(node, old, new)
            return
        self.replace(node, new)

    def mapping(self, node: yaml.MappingNode, old: dict[Any, Any], new: dict[Any, Any]) -> None:
        pairs = {str(k.value): (k, v) for k, v in node.value}
        old_keys = {str(k) for k in old}
        if set(pairs) != old_keys:
            raise PatchError("the mapping's keys differ from its loaded data")
        for key, value in new.items():
            if str(key) in pairs:
                self.patch(pairs[str(key)][1], old[key], value)
        missing = [k for k in new if str(k) not in pairs]
        if not missing:
            return
        column = int(node.value[0][0].start_mark.column)
        groups: dict[int, list[str]] = {}
        order = list(new)
        first_key = node.value[0][0]
        first_line = _line_start(self.text, int(first_key.start_mark.index))
        first_alone = not self.text[first_line : int(first_key.start_mark.index)].strip()
        for key in missing:
            position = order.index(key)
            anchor = next((str(k) for k in reversed(order[:position]) if str(k) in pairs), None)
            if anchor is not None:
                at = _line_after(self.text, _content_end(pairs[anchor][1]))
            elif first_alone:
                at = first_line
            else:
                at = _line_after(self.text, _content_end(node.value[-1][1]))
            groups.setdefault(at, []).extend(_block_pair(key, new[key], column))
        for at, lines in groups.items():
            self.insert_lines(at, lines)

    def sequence(self, node: yaml.SequenceNode, old: list[Any], new: list[Any]) -> None:
        if len(new) < len(old):
            raise PatchError("items cannot be removed")
        for item_node, o, n in zip(node.value, old, new, strict=False):
            self.patch(item_node, o, n)
        if len(new) == len(old):
            return
        first = node.value[0]
        line = _line_start(self.text, int(first.start_mark.index))
        dash = self.text.rfind("-", line, int(first.start_mark.index) + 1)
        if dash < 0:
            raise PatchError("cannot find the sequence's dash")
        column = dash - line
        lines: list[str] = []
        for item in new[len(old) :]:
            lines.extend(_block_item(item, column))
        self.insert_lines(_line_after(self.text, _content_end(node.value[-1])), lines)

    def result(self) -> str:
        out = self.text
        # from the end backwards; of two insertions at one place, the later one is applied first
        for start, end, replacement, _ in sorted(
            self.edits, key=lambda e: (e[0], e[1], e[3]), reverse=True
        ):
            out = out[:start] + replacement + out[end:]
        return out


def patch_yaml(text: str, old: Any, new: Any) -> str:
    """`text` (which loads as `old`) edited to load as `new`. Raises PatchError."""
    if old == new:
        return text
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise PatchError(f"cannot parse: {exc}") from None
    if node is None:
        if isinstance(new, dict):
            return text + ("" if not text or text.endswith("\n") else "\n") + dump_yaml(new)
        raise PatchError("an empty document")
    patcher = _Patcher(text)
    patcher.patch(node, old, new)
    return patcher.result()
