"""How a Document (load/content.py) is kept in the build cache: where its sections are in its
body (`section_spans`: their texts would double the cache's size), who found its images, and
its body apart from the rest (`body_apart`: cache.py keeps it after the pickle, out_of_band.py,
and a build decodes it only when read: `lazy_body`; a build after an edit reads the bodies of
the few documents it parses again, not the ~57 MB of all of them at 5,000 posts a language).
"""

from __future__ import annotations

import pickle
from typing import Any

from bipub.load.image_refs import parser_version
from bipub.load.sections import Section

SectionSpan = tuple[int, int, int, str]  # start and end in the body, line, digest

_SPANS = "_section_spans"  # in a pickled Document's state: section_spans()
_IMAGES_BY = "_image_refs_by"  # in a pickled Document's state: who found its image_refs
_LAZY_BODY = "_body_utf8"  # a Document's body as the build cache read it, not yet decoded


def section_spans(body: str, sections: tuple[Section, ...]) -> tuple[SectionSpan, ...]:
    """Where each section's text is in `body` (a section's text is a slice of the body), with
    its line and digest: `Document.sections` is rebuilt from these."""
    spans = []
    pos = 0
    for section in sections:
        start = body.find(section.text, pos)
        if start < 0:  # cannot be: split_sections slices the body
            raise AssertionError(f"section {section.index} is not in its document's body")
        end = start + len(section.text)
        spans.append((start, end, section.line, section.digest))
        pos = end
    return tuple(spans)


def lazy_body(cls: type[Any], state: dict[str, object], body: memoryview) -> Any:
    """A Document (`cls`) of `state` (its `__getstate__`'s, without its body) whose body is
    `body`'s UTF-8 bytes, decoded when first read (`Document.__getattr__`)."""
    doc = object.__new__(cls)
    doc.__setstate__(state)
    doc.__dict__[_LAZY_BODY] = body
    return doc


def body_apart(doc: Any) -> tuple[Any, tuple[type[Any], dict[str, object], pickle.PickleBuffer]]:
    """How the build cache pickles a Document (out_of_band.py): its state without its body,
    and the body's UTF-8 bytes after the pickle (as read, if not decoded since)."""
    found = doc.__dict__
    lazy = found.get(_LAZY_BODY)
    if lazy is not None and _SPANS in found:  # (as read: its state is its __dict__)
        state = {k: v for k, v in found.items() if k != _LAZY_BODY}
        if "image_refs" in state:
            state[_IMAGES_BY] = parser_version()
        body: memoryview | bytes = lazy
    else:
        state = doc.__getstate__()
        body = str(state.pop("body")).encode("utf-8")
    return lazy_body, (type(doc), state, pickle.PickleBuffer(body))
