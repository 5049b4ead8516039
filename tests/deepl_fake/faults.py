"""Markup faults of translation engines, applied to one answer text (XML tag handling).

Each is something a real engine does now and then, or always:

* ``drop_tags`` — every tag is gone, the words stay (DeepL's own mock server, deepl-mock, does
  this to every request);
* ``drop_one_tag`` — one inline placeholder is gone (the first ``<x/>``, else the first pair);
* ``move_leading_tag`` — a tag at the start of the text is moved behind the word after it;
* ``malformed_xml`` — the answer is not well-formed XML (an unclosed element).

``swap`` (two texts' answers exchanged: the first and the last of a request) works on a whole
request's answers (``swap``; see ``FakeDeepL.markup_fault``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_TAG = re.compile(r"<[^>]+>")
_X = re.compile(r"<x\b[^>]*/>")
_PAIR = re.compile(r"<([ga])\b[^>]*>(.*?)</\1>", re.S)
_LEADING = re.compile(r"(\s*)(<(?:x\b[^>]*/|[ga]\b[^>]*)>)(\s*)([^\s<]+)")


def drop_tags(text: str) -> str:
    return _TAG.sub("", text)


def drop_one_tag(text: str) -> str:
    m = _X.search(text)
    if m:
        return text[: m.start()] + text[m.end() :]
    m = _PAIR.search(text)
    if m:
        return text[: m.start()] + m.group(2) + text[m.end() :]
    return text


def move_leading_tag(text: str) -> str:
    m = _LEADING.match(text)
    if not m:
        return text
    return m.group(1) + m.group(4) + m.group(3) + m.group(2) + text[m.end() :]


def malformed_xml(text: str) -> str:
    m = _X.search(text)
    if m:  # an unclosed <x ...>
        return text[: m.end() - 2] + ">" + text[m.end() :]
    return text + '<g i="0">'


def swap(answers: list[str]) -> list[str]:
    """The first and the last answers of a request of two or more texts, exchanged."""
    if len(answers) < 2:
        return list(answers)
    return [answers[-1], *answers[1:-1], answers[0]]


FAULTS: dict[str, Callable[[str], str]] = {
    "drop_tags": drop_tags,
    "drop_one_tag": drop_one_tag,
    "move_leading_tag": move_leading_tag,
    "malformed_xml": malformed_xml,
}
