"""Content-file edits that `bipub review` decides: a waiting draft adopted, a rejected draft
removed.

    texts = prepare(analysis, decision.edits)   # rel → new file text (None: delete the file)
    write(analysis.root, texts)                 # then the status files (review.write_changes)

Placing a text goes through the writers `bipub translate` uses (the post/page writer and the CV
writer of bipub.translate.drafts), so an adopted draft lands exactly where a fresh draft would,
and is verified to load back the same way. Removing a drafted text (rejecting it) is done here:
the trailing body sections, an optional front-matter field (description, series), a CV field,
or the whole file when every unit of a drafted post is rejected. What cannot be removed on its
own (a post's title, a body section that others follow, a CV list item) is refused with a
reason and nothing is written: the draft then keeps its record and its notice.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from bipub.check.review import ContentEdit, Decision, write_changes
from bipub.diagnostics import Diagnostic, DiagnosticError
from bipub.load.front_matter import split_front_matter
from bipub.load.text import read_text
from bipub.load.yaml_strict import YamlError, load_yaml
from bipub.pair.units import Unit, nfc, split_sections
from bipub.translate import drafts as dr
from bipub.translate.cv_tree import apply_cv_drafts
from bipub.translate.files import interrupts_deferred
from bipub.translate.segments import Layout
from bipub.user_files import write_atomic

if TYPE_CHECKING:
    from bipub.check.run import Analysis

_DRAFTED_FIELDS = {"title", "description", "series", "key"}  # what `translate` writes


class _Refused(Exception):
    pass


def _group_of(key: str) -> str:
    return "cv" if key.startswith("cv:") else key.split(":", 1)[0]


def prepare(analysis: Analysis, edits: Sequence[ContentEdit]) -> dict[str, str | None]:
    """The new text of every content file the edits touch (None: the file is deleted).
    DiagnosticError, naming file and unit, when any edit cannot be made safely."""
    groups: dict[tuple[str, str], list[ContentEdit]] = defaultdict(list)
    for edit in edits:
        groups[(edit.lang, _group_of(edit.key))].append(edit)
    out: dict[str, str | None] = {}
    problems: list[Diagnostic] = []
    for (lang, name), items in sorted(groups.items()):
        placed = {e.key: e.text for e in items if e.text is not None}
        removed = [e.key for e in items if e.text is None]
        try:
            if placed and removed:
                raise _Refused("cannot place and remove texts of one file at once")
            if name == "cv":
                rel, text = _cv(analysis, lang, placed, removed)
            else:
                rel, text = _doc(analysis, lang, name, placed, removed)
        except _Refused as exc:
            units = [analysis.units[(lang, e.key)] for e in items]
            first = units[0]
            problems.append(
                Diagnostic(
                    first.translation_file or first.source_file,
                    first.translation_line or first.source_line,
                    "review",
                    f"{', '.join(e.key for e in items)}: {exc}",
                )
            )
            continue
        out[rel] = text
    if problems:
        raise DiagnosticError(problems)
    return out


def write(root: Path, texts: dict[str, str | None]) -> list[str]:
    """Write (or delete) each file atomically; the files changed."""
    written: list[str] = []
    for rel, text in sorted(texts.items()):
        path = root / rel
        if text is None:
            if path.exists():
                path.unlink()
                written.append(rel)
            continue
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        write_atomic(path, text)
        written.append(rel)
    return written


# --------------------------------------------------------------------------- the writers of translate


def _plan(analysis: Analysis, lang: str) -> dr.Plan:
    return dr.Plan(analysis.root, analysis.config, lang, [], {}, {}, analysis.glossary)


def _draft(unit: Unit, group: str, text: str) -> dr._Draft:
    job = dr.Job(unit, group, "replace", Layout("", (), ()), "", None)
    return dr._Draft(job, text, ())


def _entry(analysis: Analysis, name: str) -> Any:
    for entry in analysis.site.entries:
        if f"{entry.kind}/{nfc(entry.key)}" == name:
            return entry
    raise _Refused(f"{name} is not a post or page of this site")


def _doc(
    analysis: Analysis, lang: str, name: str, placed: dict[str, str], removed: list[str]
) -> tuple[str, str | None]:
    entry = _entry(analysis, name)
    src, tgt = entry.source, entry.docs.get(lang)
    if tgt is None:
        raise _Refused(f"there is no {lang} translation file of {name}")
    if placed:
        group = dr.Group(name, "doc", src.rel, tgt.rel, source_doc=src, target_doc=tgt)
        drafts = [_draft(analysis.units[(lang, k)], name, t) for k, t in placed.items()]
        try:
            text = dr._doc_text(_plan(analysis, lang), group, drafts)
        except dr._NotWritten as exc:
            raise _Refused(str(exc)) from None
        return tgt.rel, text
    return tgt.rel, _remove_from_doc(analysis, lang, name, tgt.rel, removed)


def _cv(
    analysis: Analysis, lang: str, placed: dict[str, str], removed: list[str]
) -> tuple[str, str | None]:
    content = analysis.content
    src_lang = analysis.config.source_languages.cv
    if content is None or src_lang not in content.cv:
        raise _Refused(f"the CV source content/{src_lang}/cv.yaml is not loaded")
    src, tgt = content.cv[src_lang], content.cv.get(lang)
    rel = tgt.rel if tgt is not None else f"content/{lang}/cv.yaml"
    if placed:
        group = dr.Group("cv", "cv", src.rel, rel, source_cv=src, target_cv=tgt)
        drafts = [_draft(analysis.units[(lang, k)], "cv", t) for k, t in placed.items()]
        try:
            text = dr._cv_text(_plan(analysis, lang), group, drafts)
        except dr._NotWritten as exc:
            raise _Refused(str(exc)) from None
        return rel, text
    return rel, _remove_from_cv(analysis.root, rel, src.raw, removed)


# --------------------------------------------------------------------------- removing


def _remove_from_doc(
    analysis: Analysis, lang: str, name: str, rel: str, removed: list[str]
) -> str | None:
    current = read_text(analysis.root / rel, rel)
    parts = split_front_matter(current, rel)
    try:
        fm = load_yaml(parts.yaml_text, rel).data or {}
    except YamlError as exc:
        raise _Refused(f"{rel}: {exc}") from None
    translated = {
        k
        for (lg, k), u in analysis.units.items()
        if lg == lang and k.startswith(name + ":") and u.translation is not None
    }
    names = {k.split(":", 1)[1] for k in removed}
    if translated <= set(removed):
        extra = sorted(set(map(str, fm)) - _DRAFTED_FIELDS)
        if extra:
            raise _Refused(
                f"{rel} also holds {', '.join(extra)}; it is not deleted — remove the drafted "
                "texts by hand"
            )
        return None  # every unit of the drafted file is rejected: the file goes
    if "title" in names:
        raise _Refused(
            f"a {name.split('/')[0][:-1]} needs its title: reject every unit of {name} to "
            "delete the drafted file, or approve or edit the title"
        )
    fm_text = parts.yaml_text
    for field in sorted(n for n in names if not n.startswith("body#")):
        fm_text = _remove_key(fm_text, (field,), rel)
    body = parts.body
    indices = sorted(int(n[5:]) for n in names if n.startswith("body#"))
    sections = split_sections(body, 1)
    if indices:
        if indices != list(range(indices[0], len(sections))):
            raise _Refused(
                "a body section that other sections follow cannot be removed on its own (the "
                "sections pair by position): reject the sections after it too, or edit it"
            )
        lines = body.split("\n")
        kept = "\n".join(lines[: sections[indices[0]].line - 1]).rstrip("\n")
        body = kept + "\n" if kept else ""
    all_lines = current.split("\n")
    closing = all_lines[parts.body_line - 2]
    text = all_lines[0] + "\n" + fm_text + closing + "\n" + body
    # it must load back as intended: the other fields and sections unchanged
    check = split_front_matter(text, rel)
    new_fm = load_yaml(check.yaml_text, rel).data or {}
    want = {k: v for k, v in fm.items() if str(k) not in names}
    new_sections = [s.text for s in split_sections(check.body, 1)]
    old_sections = [s.text for s in sections[: indices[0] if indices else len(sections)]]
    if new_fm != want or new_sections != old_sections:
        raise _Refused(f"{rel}: the drafted text cannot be removed cleanly; remove it by hand")
    return text


_SENTINEL = "\0bipub-review-sentinel\0"


def _find(data: Any, path: tuple[str | int, ...] = ()) -> tuple[str | int, ...] | None:
    if data == _SENTINEL:
        return path
    items: Any = data.items() if isinstance(data, dict) else enumerate(data)
    if isinstance(data, dict | list):
        for k, v in items:
            found = _find(v, (*path, k))
            if found is not None:
                return found
    return None


def _remove_from_cv(root: Path, rel: str, source: dict[str, Any], removed: list[str]) -> str | None:
    path = root / rel
    if not path.is_file():
        raise _Refused(f"{rel} does not exist")
    text = read_text(path, rel)
    data = load_yaml(text, rel).data
    expected = copy.deepcopy(data)
    for key in removed:
        placed, _, problems = apply_cv_drafts(source, expected, {key: _SENTINEL})
        where = _find(placed)
        if problems or where is None:
            raise _Refused(f"{key}: cannot find it in {rel}")
        if isinstance(where[-1], int):
            raise _Refused(
                f"{key}: an item of a list cannot be removed on its own (items pair by "
                "position); edit the list by hand"
            )
        parent: Any = expected
        for step in where[:-1]:
            parent = parent[step]
        del parent[where[-1]]
        if expected == {}:
            return None  # nothing else was in the file (translate created it): it goes
        text = _remove_key(text, where, rel)
    if load_yaml(text, rel).data != expected:
        raise _Refused(f"{rel}: the drafted text cannot be removed cleanly; remove it by hand")
    return text


def _remove_key(text: str, where: tuple[str | int, ...], rel: str) -> str:
    """`text` without the mapping key at `where` (the key's lines, comments included)."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise _Refused(f"{rel}: {exc}") from None
    for step in where[:-1]:
        if isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if k.value == str(step)), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int):
            node = node.value[step] if step < len(node.value) else None
        else:
            node = None
        if node is None:
            raise _Refused(f"{rel}: cannot find {'.'.join(map(str, where))}")
    if not isinstance(node, yaml.MappingNode) or node.flow_style or len(node.value) < 2:
        raise _Refused(f"{rel}: {'.'.join(map(str, where))} cannot be removed on its own")
    for key_node, value_node in node.value:
        if key_node.value != str(where[-1]):
            continue
        at = int(key_node.start_mark.index)
        start = text.rfind("\n", 0, at) + 1
        if text[start:at].strip():
            raise _Refused(
                f"{rel}: {'.'.join(map(str, where))} shares its line with another key; "
                "remove it by hand"
            )
        end = int(value_node.end_mark.index)
        if end > 0 and text[end - 1] != "\n":
            nl = text.find("\n", end)
            end = len(text) if nl < 0 else nl + 1
        return text[:start] + text[end:]
    raise _Refused(f"{rel}: cannot find {'.'.join(map(str, where))}")


def apply(analysis: Analysis, decision: Decision) -> list[str]:
    """Carry out an approve or reject decision: the content files first, then the status
    files (a stop between the two leaves a unit reported, never machine text unrecorded), with
    Ctrl-C held until both are written. DiagnosticError (nothing written) when a content edit
    cannot be made. Returns the files written."""
    texts = prepare(analysis, decision.edits)
    with interrupts_deferred():
        written = write(analysis.root, texts)
        written += write_changes(analysis, decision.changes, decision.rejections)
    return written
