"""A strict YAML loader that keeps line numbers.

PyYAML's ``safe_load`` follows YAML 1.1: ``no`` becomes False, ``012`` becomes 10, ``1:30`` becomes
90, duplicate keys silently keep the last value, and ``2024-02-30`` raises a raw ValueError. This
loader builds data from PyYAML's *event* stream instead, so that:

* plain scalars resolve by the YAML 1.2 core schema only (null, true/false, decimal ints without
  leading zeros, floats); everything else — ``yes``, ``NO``, ``on``, ``012``, ``1:30``, dates —
  stays a string, and the models decide what a string may mean;
* a duplicate key is an error naming both lines;
* anchors, aliases and custom tags are rejected (no alias bombs, no object construction);
* nesting depth is bounded without recursion (``'[' * 3000`` fails cleanly).

Every value's line is recorded in ``YamlDoc.lines`` under its path, e.g. ``("experience", 0,
"company")``, so validation errors can be mapped back to ``file:line``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, cast

import yaml

from bipub.diagnostics import Diagnostic

MAX_DEPTH = 50

Path_ = tuple[str | int, ...]

_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL_TRUE = re.compile(r"^(?:true|True|TRUE)$")
_BOOL_FALSE = re.compile(r"^(?:false|False|FALSE)$")
_INT = re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|(?:0|[1-9][0-9]*)\.[0-9]*)(?:[eE][-+]?[0-9]+)?$")

_STD = "tag:yaml.org,2002:"
_ALLOWED_TAGS = {_STD + t for t in ("str", "int", "float", "bool", "null", "map", "seq")}


class YamlError(Exception):
    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = diagnostics
        super().__init__("\n".join(d.format() for d in diagnostics))


@dataclass
class YamlDoc:
    data: Any
    lines: dict[Path_, int] = field(default_factory=dict)

    def line_for(self, path: Path_) -> int | None:
        """The line of the value at `path`, or of its nearest recorded ancestor."""
        p = tuple(path)
        while True:
            if p in self.lines:
                return self.lines[p]
            if not p:
                return None
            p = p[:-1]


_Loader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when present


_EXPECTED: dict[str, type | tuple[type, ...]] = {
    _STD + "int": int,
    _STD + "float": (int, float),
    _STD + "bool": bool,
    _STD + "null": type(None),
}


def _resolve_plain(value: str) -> Any:
    if _NULL.match(value):
        return None
    if _BOOL_TRUE.match(value):
        return True
    if _BOOL_FALSE.match(value):
        return False
    if _INT.match(value):
        return int(value)
    if _FLOAT.match(value):
        return float(value)
    return value


_SURROGATE = re.compile("[\ud800-\udfff]")


def _scalar(event: yaml.ScalarEvent, rel: str, line: int | None) -> Any:
    # libyaml refuses a "\ud800" escape, PyYAML's pure-Python scanner keeps it: a lone surrogate
    # is not a character and would crash the UTF-8 writer much later, so it is an error here.
    bad = _SURROGATE.search(event.value)
    if bad:
        raise YamlError(
            [
                _diag(
                    rel,
                    line,
                    f"invalid YAML: {bad.group()!r} is a lone surrogate, not a character "
                    "(write the character itself or a \\U0001xxxx escape)",
                )
            ]
        )
    tag = event.tag
    if tag is not None and tag != "!":
        full = tag
        if full not in _ALLOWED_TAGS:
            raise YamlError([_diag(rel, line, f"tag {tag} is not allowed")])
        value = event.value
        if full == _STD + "str":
            return value
        resolved: Any = _resolve_plain(value)
        expected = _EXPECTED[full]
        if not isinstance(resolved, expected) or (
            full == _STD + "int" and isinstance(resolved, bool)
        ):
            raise YamlError(
                [
                    _diag(
                        rel,
                        line,
                        f"{value!r} is not a valid {full.removeprefix(_STD)}",
                    )
                ]
            )
        return float(cast(float, resolved)) if full == _STD + "float" else resolved
    if event.implicit[0]:  # plain scalar
        return _resolve_plain(event.value)
    return event.value  # quoted or block scalar: always a string


def describe_char(char: str) -> str:
    """'control character U+0000' / 'character U+FFFE' (for messages)."""
    kind = "control character" if unicodedata.category(char) == "Cc" else "character"
    return f"{kind} U+{ord(char):04X}"


# the contexts of an error whose cause is where its context starts (a quote or a bracket that
# is never closed)
_OPENED = re.compile(
    r"while scanning a (?:quoted|double-quoted|single-quoted) scalar|while parsing a flow"
)


def _mark_line(mark: Any, text: str, line_offset: int, other_breaks: bool) -> int | None:
    """The file line of a YAML mark. YAML also breaks lines at U+0085, U+2028 and U+2029, so
    its own line count runs ahead of the file's (which only "\n" breaks) when the text holds
    one (`other_breaks`: searched once per document, not per event, which made loading a
    large status file quadratic): count the "\n" before the mark's character index instead
    (both parsers count characters)."""
    if mark is None:
        return None
    if not other_breaks:
        return int(mark.line) + 1 + line_offset
    return text.count("\n", 0, mark.index) + 1 + line_offset


_OTHER_BREAKS = re.compile("[\x85\u2028\u2029]")


def _diag(rel: str, line: int | None, message: str) -> Diagnostic:
    return Diagnostic(rel, line, "yaml", message)


def load_yaml(text: str, rel: str, line_offset: int = 0) -> YamlDoc:
    """Parse one YAML document. `line_offset` is added to every line (front matter after `---`)."""
    doc = YamlDoc(data=None)
    # Stack of containers being built: (container, path, pending_key, key_lines)
    stack: list[tuple[Any, Path_, list[Any], dict[str, int]]] = []
    documents = 0
    root_set = False

    def place(value: Any, line: int) -> Path_:
        nonlocal root_set
        if not stack:
            doc.data = value
            root_set = True
            doc.lines[()] = line
            return ()
        container, path, pending, key_lines = stack[-1]
        if isinstance(container, list):
            item_path = (*path, len(container))
            container.append(value)
            doc.lines[item_path] = line
            return item_path
        # mapping: either a key or a value
        if not pending:
            if not isinstance(value, str):
                if isinstance(value, dict | list):
                    raise YamlError([_diag(rel, line, "a mapping key must be a plain string")])
                value = str(value) if value is not None else "null"
            if value in key_lines:
                raise YamlError(
                    [
                        _diag(
                            rel,
                            line,
                            f"duplicate key '{value}' (first defined on line {key_lines[value]})",
                        )
                    ]
                )
            key_lines[value] = line
            pending.append(value)
            return path
        key = pending.pop()
        container[key] = value
        value_path = (*path, key)
        doc.lines[value_path] = key_lines[key]
        return value_path

    other_breaks = _OTHER_BREAKS.search(text) is not None
    try:
        for event in yaml.parse(text, Loader=_Loader):
            line = _mark_line(event.start_mark, text, line_offset, other_breaks)
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise YamlError([_diag(rel, line, "only one YAML document is allowed")])
            elif isinstance(event, yaml.AliasEvent):
                raise YamlError(
                    [_diag(rel, line, f"YAML aliases (*{event.anchor}) are not allowed")]
                )
            elif isinstance(
                event, yaml.ScalarEvent | yaml.MappingStartEvent | yaml.SequenceStartEvent
            ):
                if event.anchor is not None:
                    raise YamlError(
                        [_diag(rel, line, f"YAML anchors (&{event.anchor}) are not allowed")]
                    )
                if isinstance(event, yaml.ScalarEvent):
                    place(_scalar(event, rel, line), line or 0)
                    continue
                tag = event.tag
                if tag is not None and tag not in _ALLOWED_TAGS:
                    raise YamlError([_diag(rel, line, f"tag {tag} is not allowed")])
                if len(stack) >= MAX_DEPTH:
                    raise YamlError(
                        [_diag(rel, line, f"nesting deeper than {MAX_DEPTH} levels is not allowed")]
                    )
                container: Any = {} if isinstance(event, yaml.MappingStartEvent) else []
                path = place(container, line or 0)
                stack.append((container, path, [], {}))
            elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
                stack.pop()
    except yaml.MarkedYAMLError as exc:
        line = _mark_line(exc.problem_mark or exc.context_mark, text, line_offset, other_breaks)
        problem = exc.problem or "invalid YAML"
        if "invalid Unicode character escape" in problem:  # libyaml: "\ud800" and the like
            problem = "a \\u escape of a lone surrogate or of no character"
        context = f" ({exc.context})" if exc.context else ""
        if exc.context_mark is not None and exc.context and _OPENED.search(exc.context):
            # a quote or bracket left open: named where it opens, not where the parser gave up
            # (the end of the front matter, for a quote never closed)
            opened = _mark_line(exc.context_mark, text, line_offset, other_breaks)
            if opened is not None and opened != line:
                context = f" ({exc.context} that starts on this line; found on line {line})"
                line = opened
        raise YamlError([_diag(rel, line, f"invalid YAML: {problem}{context}")]) from None
    except yaml.reader.ReaderError as exc:  # a control character (NUL…) YAML does not allow
        # libyaml counts UTF-8 bytes, the pure-Python reader characters
        if _Loader is yaml.SafeLoader:
            line = text.count("\n", 0, exc.position) + 1 + line_offset
        else:
            line = text.encode("utf-8").count(b"\n", 0, exc.position) + 1 + line_offset
        char = exc.character if isinstance(exc.character, str) else chr(exc.character)
        raise YamlError(
            [
                _diag(
                    rel,
                    line,
                    f"invalid YAML: {describe_char(char)} is not allowed in YAML; remove it",
                )
            ]
        ) from None
    except yaml.YAMLError as exc:
        raise YamlError([_diag(rel, None, f"invalid YAML: {exc}")]) from None
    if not root_set:
        doc.data = None
    return doc
