"""A translation file's body edited by the drafts (translate/writers.py): its sections
replaced or appended, and the file checked to pair exactly as intended before it is written."""

from __future__ import annotations

from bipub.load.front_matter import split_front_matter
from bipub.load.yaml_strict import YamlError, load_yaml
from bipub.pair.units import split_sections


class NotWritable(Exception):
    """A group cannot be written safely; its jobs are reported and left for the next run."""


class Gap(NotWritable):
    """A unit the file needs is not among the drafts (translate/blocked.py): a body section
    before one appended, or (`new`) any unit of a new file."""

    def __init__(self, message: str, missing: str, *, new: bool = False) -> None:
        super().__init__(message)
        self.missing = missing  # its name: "body#3", "title"
        self.new = new


def edit_body(body: str, texts: dict[str, str], rel: str) -> str:
    """`body` with the sections of `texts` ("body#N" → text) replaced, and those after its last
    appended in order (Gap: one before them is missing)."""
    sections = split_sections(body, 1)
    lines = body.split("\n")
    wanted = sorted(
        (int(name[5:]), text) for name, text in texts.items() if name.startswith("body#")
    )
    for index, text in reversed([w for w in wanted if w[0] < len(sections)]):
        sec = sections[index]
        start, count = sec.line - 1, len(sec.text.split("\n"))
        if "\n".join(lines[start : start + count]) != sec.text:
            raise NotWritable(f"{rel}: cannot locate body section {index}")
        lines[start : start + count] = text.split("\n")
    out = "\n".join(lines)
    expected = len(sections)
    for index, text in (w for w in wanted if w[0] >= len(sections)):
        if index != expected:
            raise Gap(
                f"{rel}: body section {index} needs the sections before it", f"body#{expected}"
            )
        out = out.rstrip("\n") + "\n\n" + text + "\n"
        expected += 1
    return out


def verify_doc(text: str, rel: str, texts: dict[str, str]) -> None:
    """The written file must pair exactly as intended: same section boundaries, same fields."""
    parts = split_front_matter(text, rel)
    try:
        fm = load_yaml(parts.yaml_text, rel).data or {}
    except YamlError as exc:
        raise NotWritable(f"{rel}: the drafted front matter does not load ({exc})") from None
    sections = split_sections(parts.body, parts.body_line)
    for name, value in texts.items():
        if name.startswith("body#"):
            index = int(name[5:])
            if index >= len(sections) or sections[index].text != value.strip("\n"):
                raise NotWritable(f"{rel}: the draft of {name} would change where sections begin")
        elif fm.get(name) != value:
            raise NotWritable(f"{rel}: the drafted {name} does not load back unchanged")
