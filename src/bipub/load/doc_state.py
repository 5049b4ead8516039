"""How a Document (load/content.py) is kept in the build cache: where its sections are in its
body (`section_spans`: their texts would double the cache's size), who found its images, and
its body apart from the rest (`body_apart`: cache.py keeps it after the pickle, out_of_band.py,
and a build decodes it only when read: `lazy_body`; a build after an edit reads the bodies of
the few documents it parses again, not the ~57 MB of all of them at 5,000 posts a language).

What a build reads of an unchanged document is kept in its state: its file, language, kind,
name, digest, images, reading time. Its validated front matter (`Document.meta`, a
`FrontMatter`: ~28 objects and pydantic's `__setstate__`), where its sections are
(`_section_spans`: ~17 objects, a tuple of four values a section) and its front matter as
parsed (`Document.yaml`, a `YamlDoc`: the raw values and the line of each, ~25 objects, kept
pickled on its own, one bytes object: `yaml_apart`) are put in its shard file's batch, as one
value (out_of_band.py `Batch`), with those of the shard's other documents, unpickled all at
once when the first of them is read (`Document.__getattr__`, `lazy_attribute`; the `yaml`
bytes then unpickled when `yaml` itself is read). A build after an edit reads them only of the
documents whose entry is paired again or whose units' texts are read (what every build reads
of an unchanged entry's front matter is kept with the entry: pair/model.py
`Entry.source_image`, `names_series`, `shown_in`), ~10 of 10,000 at 5,000 posts a language, so
it unpickles a few shards' batches (of the ~31 objects a document read back, 13 are left;
`yaml` reads only to say a line in a diagnostic, `Document.line_of`), and one that lists every
post (a new post: the archive) all of them, as fast as when they were in the pickle. The bytes
are part of the signed shard file: they are unpickled only from a file whose signature was
checked, as the rest of it.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

from bipub.load.image_refs import parser_version
from bipub.load.sections import Section

SectionSpan = tuple[int, int, int, str]  # start and end in the body, line, digest

_SPANS = "_section_spans"  # in a pickled Document's state: section_spans()
_IMAGES_BY = "_image_refs_by"  # in a pickled Document's state: who found its image_refs
_LAZY_BODY = "_body_utf8"  # a Document's body as the build cache read it, not yet decoded
_LAZY_YAML = "_yaml_pickled"  # a Document's `yaml` pickled on its own (`yaml_apart`)
# a Document's `meta`, section spans and pickled `yaml` as the build cache read them: (its
# shard's Batch, the index of the three in it)
_BATCH_AT = "_batch_at"
_BATCHED = ("meta", _SPANS, "yaml")  # (the attributes `lazy_attribute` takes from the batch)


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


def body_apart(
    doc: Any, later: Callable[[Any], object]
) -> tuple[Any, tuple[type[Any], dict[str, object], pickle.PickleBuffer]]:
    """How the build cache pickles a Document (out_of_band.py): its state without its body,
    and the body's UTF-8 bytes after the pickle (as read, if not decoded since); its `meta`,
    section spans and pickled `yaml` put in the file's batch as one value (`later`: as read,
    if not read since)."""
    found = doc.__dict__
    lazy = found.get(_LAZY_BODY)
    if lazy is not None and (_BATCH_AT in found or _SPANS in found):  # (as read: its state
        # is its __dict__)
        state = {k: v for k, v in found.items() if k != _LAZY_BODY}
        if "image_refs" in state:
            state[_IMAGES_BY] = parser_version()
        body: memoryview | bytes = lazy
    else:
        state = doc.__getstate__()
        body = str(state.pop("body")).encode("utf-8")
    at = state.pop(_BATCH_AT, None)
    if at is not None:
        batched = at[0].get(at[1])
    else:
        yaml_apart(state)
        batched = (state.pop("meta"), state.pop(_SPANS), state.pop(_LAZY_YAML))
    state[_BATCH_AT] = later(batched)
    return lazy_body, (type(doc), state, pickle.PickleBuffer(body))


def yaml_apart(state: dict[str, object]) -> dict[str, object]:
    """A Document's pickled `state` with its `yaml` pickled on its own (`_LAZY_YAML`), as the
    build cache keeps it (module text); as it is if it is so already (read back, not read)."""
    if "yaml" in state:
        state[_LAZY_YAML] = pickle.dumps(state.pop("yaml"), protocol=pickle.HIGHEST_PROTOCOL)
    return state


def lazy_attribute(doc: Any, name: str) -> Any:
    """`Document.__getattr__`: the body of a document read back (`lazy_body`), decoded now,
    its `meta`, section spans or `yaml`, taken from its shard's batch now (`body_apart`: the
    three at once), its `yaml` unpickled now (`yaml_apart`), each kept in its place (the first
    one made, if another thread made one meanwhile); else AttributeError."""
    found = doc.__dict__
    if name == "body" and (lazy := found.get(_LAZY_BODY)) is not None:
        body = found["body"] = str(lazy, "utf-8")
        found.pop(_LAZY_BODY, None)  # (another thread may have decoded it meanwhile)
        return body
    if name in _BATCHED and (at := found.get(_BATCH_AT)) is not None:
        meta, spans, yaml_pickled = at[0].get(at[1])
        found.setdefault("meta", meta)
        found.setdefault(_SPANS, spans)
        if "yaml" not in found:
            found.setdefault(_LAZY_YAML, yaml_pickled)
        found.pop(_BATCH_AT, None)
        if name != "yaml":
            return found[name]
    if name == "yaml" and (lazy := found.get(_LAZY_YAML)) is not None:
        yaml = found.setdefault("yaml", pickle.loads(lazy))  # noqa: S301 - of a signed file
        found.pop(_LAZY_YAML, None)
        return yaml
    if name in found:  # (another thread took it meanwhile, after this one looked)
        return found[name]
    raise AttributeError(f"{type(doc).__name__!r} object has no attribute {name!r}")
