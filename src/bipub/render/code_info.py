"""What a fence's info string says after its language: ```` ```python title="app.py" {2,4-5} ````.

Accepted, as MkDocs Material, Docusaurus and Hugo readers write them:

- `title="app.py"` (or `title='app.py'`): a title (a file name, usually) shown above the block;
- `{1,3-5}` (Docusaurus, Hugo) and `hl_lines="1 3-5"` (MkDocs): lines highlighted, counted
  from 1 (several are joined).

Anything else is ignored and said (`CodeInfo.ignored`: the render warning `code-info` at the
fence's line): an unknown attribute (`linenums="1"`: bipub shows no line numbers), a malformed
range, a line past the end of the block, a second title.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# one item of the info string: name=value (quoted or not), {…}, or anything up to a space
_ITEM = re.compile(
    r"""(?P<name>[A-Za-z_][\w-]*)=(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[^\s"'{}]+))(?=\s|$)"""
    r"""|\{(?P<braces>[^{}]*)\}(?=\s|$)"""
    r"""|(?P<other>\S+)"""
)
_RANGE = re.compile(r"(\d+)(?:-(\d+))?")
_SEP = re.compile(r"[\s,]+")


@dataclass(frozen=True)
class CodeInfo:
    title: str = ""
    lines: tuple[int, ...] = ()  # highlighted lines, 1-based, ascending, within the block
    ignored: tuple[str, ...] = ()  # what is ignored, and why: one message each


@lru_cache(maxsize=1024)  # pure; asked at parse time and again by the highlighter
def parse_info(rest: str, count: int) -> CodeInfo:
    """The attributes of `rest`, the info string after the language (as markdown-it passes it
    to the highlighter), for a block of `count` lines."""
    title = ""
    lines: set[int] = set()
    ignored: list[str] = []
    for m in _ITEM.finditer(rest):
        name, braces = m["name"], m["braces"]
        value = next((v for v in (m["dq"], m["sq"], m["bare"]) if v is not None), "")
        if name == "title":
            if not value.strip():
                ignored.append(f"{m[0]!r} ignored: an empty title")
            elif title:
                ignored.append(f"{m[0]!r} ignored: a second title (the first, {title!r}, is shown)")
            else:
                title = value.strip()
        elif name == "hl_lines" or braces is not None:
            _ranges(value if braces is None else braces, m[0], count, lines, ignored)
        elif name is not None:
            why = "bipub shows no line numbers" if name in _NUMBERS else "an unknown attribute"
            ignored.append(f"{m[0]!r} ignored: {why}")
        else:
            ignored.append(f"{m[0]!r} ignored: not an attribute ({_ACCEPTED})")
    return CodeInfo(title, tuple(sorted(lines)), tuple(ignored))


_NUMBERS = frozenset({"linenums", "linenos", "showLineNumbers", "linenostart"})
_ACCEPTED = 'title="…", {1,3-5}, hl_lines="1 3-5"'


def _ranges(text: str, item: str, count: int, lines: set[int], ignored: list[str]) -> None:
    parts = [part for part in _SEP.split(text.strip()) if part]
    if not parts:
        ignored.append(f"{item!r} ignored: no lines named")
    for part in parts:
        m = _RANGE.fullmatch(part)
        if m is None:
            ignored.append(f"{item!r}: {part!r} ignored: not a line or a range (3, 1-4)")
            continue
        first = int(m[1])
        last = int(m[2]) if m[2] else first
        if first < 1 or last < first:
            ignored.append(
                f"{item!r}: {part!r} ignored: no line (lines count from 1, ranges go up)"
            )
        elif first > count:
            ignored.append(f"{item!r}: {part!r} ignored: past the block's last line ({count})")
        else:
            if last > count:
                ignored.append(
                    f"{item!r}: lines {count + 1}-{last} ignored: past the block's last line ({count})"
                )
            lines.update(range(first, min(last, count) + 1))


def line_count(code: str) -> int:
    """The lines of a fence's content as Pygments counts them (at newlines only; a last line
    without one counts)."""
    return code.count("\n") + (1 if code and not code.endswith("\n") else 0)
