"""Split a Markdown file into its YAML front matter and body."""

from __future__ import annotations

from dataclasses import dataclass

from bipub.diagnostics import Diagnostic


class FrontMatterError(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        self.diagnostic = diagnostic
        super().__init__(diagnostic.format())


@dataclass(frozen=True)
class Split:
    yaml_text: str
    yaml_line: int  # file line of the first YAML line (fence line + 1)
    body: str
    body_line: int  # file line where the body starts


def split_front_matter(text: str, rel: str) -> Split:
    """The front matter between a first line `---` and the next line `---` or `...` (trailing
    whitespace allowed on both), and the body after it. Lines end at "\n" only: the text is read
    up to the closing line, not split whole (a body is most of a file)."""
    end = text.find("\n")
    if (text if end < 0 else text[:end]).rstrip() != "---":
        raise FrontMatterError(
            Diagnostic(
                rel,
                1,
                "front-matter",
                "missing front matter: the file must start with a '---' line",
            )
        )
    yaml_start = start = end + 1  # (0 if there is no second line: never used then)
    number = 2  # the file line that begins at `start`
    while end >= 0:
        end = text.find("\n", start)
        if (text[start:] if end < 0 else text[start:end]).rstrip() in ("---", "..."):
            body = "" if end < 0 else text[end + 1 :]
            return Split(text[yaml_start : start - 1] + "\n", 2, body, number + 1)
        start = end + 1
        number += 1
    raise FrontMatterError(
        Diagnostic(
            rel, 1, "front-matter", "unclosed front matter: no closing '---' line after line 1"
        )
    )
